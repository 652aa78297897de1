# Guest (RV32) programs: bare-metal test and benchmark ELFs built with Debian's
# riscv64-unknown-elf-gcc, plus the qemu-riscv32 settings used to cross-check them.
#
# Provides
#   BHEMU_HAVE_GUEST_CC            ON when the cross compiler was found; callers skip guest targets otherwise
#   BHEMU_GUEST_CC                 the cross compiler
#   BHEMU_GUEST_CFLAGS             compile flags of every guest source
#   BHEMU_GUEST_LDFLAGS            link flags (before objects; -lgcc comes last)
#   BHEMU_GUEST_RUNTIME_DIR        firmware/baremetal: crt0.S, bare.ld, bare.h, bare.c (and the
#                                  multi-core crt0_multi.S, bare_multi.ld, multicore.h; grid.h)
#   BHEMU_GUEST_DATAFLOW_DIR       firmware/dataflow: cb.h/cb.c, noc.h/noc.c and their per-core
#                                  state cb_state.c, noc_state.c (on every guest include path)
#   BHEMU_GUEST_LINKER_SCRIPT      the default linker script (bare.ld)
#   BHEMU_GUEST_MULTICORE_LINKER_SCRIPT   bare_multi.ld
#   BHEMU_GUEST_DIR                ${CMAKE_BINARY_DIR}/guest: where the ELFs go
#   BHEMU_QEMU_RISCV32             qemu-riscv32, or empty; BHEMU_HAVE_QEMU says which
#   BHEMU_QEMU_CPU                 the one -cpu value every qemu-riscv32 run uses
#   bhemu_guest_objects(OUT_VAR OBJDIR src...)   compile rules, object paths in OUT_VAR
#   bhemu_guest_executable(NAME SOURCES src... [CFLAGS f...] [LINKER_SCRIPT ld] [NO_RUNTIME] [MULTICORE]
#                          [LDFLAGS f...] [OUTPUT path.elf])
#       builds ${CMAKE_BINARY_DIR}/guest/NAME.elf (or OUTPUT) from target guest_NAME (part of ALL).
#       LDFLAGS are added to the link line (e.g. -Wl,--gc-sections).
#       The bare runtime (crt0 + bare.c, built once by firmware/) is linked in unless NO_RUNTIME.
#       MULTICORE: a program for several cores of a tile (`bhemu run --cores`, multicore.h):
#       crt0_multi + bare.c + the CB and NoC libraries, linked with bare_multi.ld. Such ELFs
#       need local data RAM, so they never run under qemu: do not make difftests of them.
#   global property BHEMU_GUEST_ELFS     every guest ELF defined so far
#   global property BHEMU_GUEST_TARGETS  every guest_NAME target defined so far
#   target property BHEMU_GUEST_ELF on guest_NAME: its ELF path
#
# Kernels for the reference firmware (contract: firmware/kernel/ABI.md; API: firmware/kernel/kernel.h)
#   BHEMU_GUEST_NM                 riscv64-unknown-elf-nm (next to the compiler)
#   BHEMU_KERNEL_PROCESSORS        brisc ncrisc trisc0 trisc1 trisc2 (list index = processor number)
#   BHEMU_KERNEL_CFLAGS            compile flags of kernel sources (the guest flags plus -mno-relax)
#   BHEMU_KERNEL_DIR               ${CMAKE_BINARY_DIR}/kernels: where the kernel ELFs go
#   bhemu_kernel(NAME PROCESSOR <brisc|ncrisc|trisc0|trisc1|trisc2> SOURCES src... [COMPILE_ARGS v...]
#                [CFLAGS f...])
#       builds ${CMAKE_BINARY_DIR}/kernels/NAME.elf from target kernel_NAME (part of ALL): kcrt0, the
#       sources and the CB/NoC functions of firmware/dataflow (not their state: that is the
#       firmware's), linked at 0x01000000 by that processor's kernel.ld with --emit-relocs, no
#       relaxation and --gc-sections, plus a PROVIDE script of the global symbols of that
#       processor's reference firmware ELF (regenerated when the firmware changes). The sources see
#       -DKERNEL_PROCESSOR=<0-4> and, with COMPILE_ARGS, -DKERNEL_COMPILE_TIME_ARGS=v1,v2,...; the
#       ELF records the values in its non-allocated section .bhemu.ct_args (count, then values).
#       CFLAGS come after the kernel flags (e.g. -Os).
#   global property BHEMU_KERNEL_ELFS    every kernel ELF defined so far
#   global property BHEMU_KERNEL_TARGETS every kernel_NAME target defined so far
#   target property BHEMU_KERNEL_ELF on kernel_NAME: its ELF path

set(BHEMU_GUEST_RUNTIME_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware/baremetal)
get_filename_component(BHEMU_GUEST_RUNTIME_DIR ${BHEMU_GUEST_RUNTIME_DIR} ABSOLUTE)
set(BHEMU_GUEST_LINKER_SCRIPT ${BHEMU_GUEST_RUNTIME_DIR}/bare.ld)
set(BHEMU_GUEST_MULTICORE_LINKER_SCRIPT ${BHEMU_GUEST_RUNTIME_DIR}/bare_multi.ld)
get_filename_component(BHEMU_GUEST_DATAFLOW_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware/dataflow ABSOLUTE)
set(BHEMU_GUEST_DIR ${CMAKE_BINARY_DIR}/guest)

find_program(BHEMU_GUEST_CC riscv64-unknown-elf-gcc)
if(BHEMU_GUEST_CC AND EXISTS "${BHEMU_GUEST_CC}")
  set(BHEMU_HAVE_GUEST_CC ON)
  string(REGEX REPLACE "gcc$" "nm" BHEMU_GUEST_NM "${BHEMU_GUEST_CC}")
else()
  set(BHEMU_HAVE_GUEST_CC OFF)
  message(WARNING "riscv64-unknown-elf-gcc not found: guest test and benchmark programs are not built "
                  "(apt-get install gcc-riscv64-unknown-elf)")
endif()

# qemu-riscv32 (Linux user mode) runs the same ELFs for differential tests and benchmarks.
# The CPU is pinned here, in one place: RV32IMA + Zba/Zbb, and no C so that a compressed
# instruction in a guest ELF (which bhemu never decodes) fails under qemu too.
find_program(BHEMU_QEMU_RISCV32 qemu-riscv32)
if(BHEMU_QEMU_RISCV32)
  set(BHEMU_HAVE_QEMU ON)
else()
  set(BHEMU_HAVE_QEMU OFF)
  set(BHEMU_QEMU_RISCV32 "")
endif()
set(BHEMU_QEMU_CPU "rv32,c=false,zba=true,zbb=true" CACHE STRING "qemu-riscv32 -cpu value for guest programs")

# Compile for what Blackhole executes (RV32IM + Zba/Zbb; Zicsr for csr* in asm). Link with
# exactly rv32im so the driver picks the ilp32 libgcc multilib (riscv-cores.md section 6).
# -fno-tree-loop-distribute-patterns keeps gcc from turning memset/memcpy's own loops into
# calls to themselves (the real firmware uses it for the same reason).
set(BHEMU_GUEST_CFLAGS
  -march=rv32im_zicsr_zba_zbb -mabi=ilp32 -O2 -g
  -ffreestanding -fno-builtin -nostdlib -nostartfiles -mcmodel=medany
  -fno-tree-loop-distribute-patterns -Wall -Wextra
  -I${BHEMU_GUEST_RUNTIME_DIR} -I${BHEMU_GUEST_DATAFLOW_DIR})
set(BHEMU_GUEST_LDFLAGS -march=rv32im -mabi=ilp32 -nostdlib -nostartfiles -static)

# Compile rules for guest sources (.c or .S) into OBJDIR; object paths go to OUT_VAR.
# Extra flags for these sources come after the ones above, so they can override -O2 or -march.
function(bhemu_guest_objects OUT_VAR OBJDIR)
  cmake_parse_arguments(PARSE_ARGV 2 G "" "" "CFLAGS")
  set(objects)
  foreach(src IN LISTS G_UNPARSED_ARGUMENTS)
    get_filename_component(src_abs ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(src_name ${src} NAME)
    set(obj ${OBJDIR}/${src_name}.o)
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${OBJDIR}
      COMMAND ${BHEMU_GUEST_CC} ${BHEMU_GUEST_CFLAGS} ${G_CFLAGS} -MD -MF ${obj}.d -MT ${obj}
              -c ${src_abs} -o ${obj}
      DEPENDS ${src_abs}
      DEPFILE ${obj}.d
      COMMENT "Guest CC ${src_name}"
      VERBATIM)
    list(APPEND objects ${obj})
  endforeach()
  set(${OUT_VAR} ${objects} PARENT_SCOPE)
endfunction()

# The objects of a runtime that firmware/ built (global property PROP), for CALLER's link line.
function(bhemu_guest_runtime OUT_VAR PROP CALLER)
  get_property(objects GLOBAL PROPERTY ${PROP})
  if(NOT objects)
    message(FATAL_ERROR "${CALLER}: ${PROP} is not defined yet (add_subdirectory(firmware) must come first)")
  endif()
  set(${OUT_VAR} ${objects} PARENT_SCOPE)
endfunction()

function(bhemu_guest_executable NAME)
  cmake_parse_arguments(PARSE_ARGV 1 G "NO_RUNTIME;MULTICORE" "LINKER_SCRIPT;OUTPUT" "SOURCES;CFLAGS;LDFLAGS")
  if(NOT BHEMU_HAVE_GUEST_CC)
    return()
  endif()
  if(NOT G_SOURCES)
    message(FATAL_ERROR "bhemu_guest_executable(${NAME}): no SOURCES")
  endif()
  if(G_MULTICORE AND G_NO_RUNTIME)
    message(FATAL_ERROR "bhemu_guest_executable(${NAME}): MULTICORE is a runtime; not with NO_RUNTIME")
  endif()
  if(NOT G_LINKER_SCRIPT)
    if(G_MULTICORE)
      set(G_LINKER_SCRIPT ${BHEMU_GUEST_MULTICORE_LINKER_SCRIPT})
    else()
      set(G_LINKER_SCRIPT ${BHEMU_GUEST_LINKER_SCRIPT})
    endif()
  endif()
  get_filename_component(G_LINKER_SCRIPT ${G_LINKER_SCRIPT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})

  bhemu_guest_objects(objects ${BHEMU_GUEST_DIR}/obj/${NAME} ${G_SOURCES} CFLAGS ${G_CFLAGS})
  set(runtime)
  if(G_MULTICORE)
    bhemu_guest_runtime(runtime BHEMU_GUEST_MULTICORE_RUNTIME_OBJECTS "bhemu_guest_executable(${NAME})")
  elseif(NOT G_NO_RUNTIME)
    bhemu_guest_runtime(runtime BHEMU_GUEST_RUNTIME_OBJECTS "bhemu_guest_executable(${NAME})")
  endif()

  set(elf ${BHEMU_GUEST_DIR}/${NAME}.elf)
  if(G_OUTPUT)
    set(elf ${G_OUTPUT})
  endif()
  get_filename_component(elf_dir ${elf} DIRECTORY)
  # The runtime objects come from another directory's target; list them as files here and
  # order the build with add_dependencies below.
  add_custom_command(
    OUTPUT ${elf}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${elf_dir}
    COMMAND ${BHEMU_GUEST_CC} ${BHEMU_GUEST_LDFLAGS} ${G_LDFLAGS} -T ${G_LINKER_SCRIPT}
            -Wl,-Map=${BHEMU_GUEST_DIR}/obj/${NAME}/${NAME}.map
            ${runtime} ${objects} -lgcc -o ${elf}
    DEPENDS ${objects} ${runtime} ${G_LINKER_SCRIPT}
    COMMENT "Guest LD ${NAME}.elf"
    VERBATIM)
  add_custom_target(guest_${NAME} ALL DEPENDS ${elf})
  if(NOT G_NO_RUNTIME)
    add_dependencies(guest_${NAME} guest_runtime)
  endif()
  set_target_properties(guest_${NAME} PROPERTIES BHEMU_GUEST_ELF ${elf})
  set_property(GLOBAL APPEND PROPERTY BHEMU_GUEST_ELFS ${elf})
  set_property(GLOBAL APPEND PROPERTY BHEMU_GUEST_TARGETS guest_${NAME})
endfunction()

# ---- Kernels (firmware/kernel/ABI.md) ---------------------------------------------------------------

set(BHEMU_KERNEL_PROCESSORS brisc ncrisc trisc0 trisc1 trisc2)
set(BHEMU_KERNEL_DIR ${CMAKE_BINARY_DIR}/kernels)
# Built by firmware/kernel: kcrt0 + CB/NoC function objects, kernel_<proc>.ld, fw_<proc>.ld.
set(BHEMU_KERNEL_RUNTIME_DIR ${BHEMU_KERNEL_DIR}/runtime)
get_filename_component(BHEMU_KERNEL_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware/kernel ABSOLUTE)
# -mno-relax: every relocation the host applies describes the final instruction (ABI.md 2); without
# relaxation gcc never addresses through gp either, which is the firmware's. Sections per function
# and object, so --gc-sections keeps kernels small. min-pagesize=0: mailboxes sit at L1 0x60...
set(BHEMU_KERNEL_CFLAGS ${BHEMU_GUEST_CFLAGS} -mno-relax -ffunction-sections -fdata-sections
  --param=min-pagesize=0 -I${BHEMU_KERNEL_SOURCE_DIR} -I${BHEMU_KERNEL_SOURCE_DIR}/../ref
  -I${BHEMU_KERNEL_SOURCE_DIR}/../compute)

function(bhemu_kernel NAME)
  cmake_parse_arguments(PARSE_ARGV 1 K "" "PROCESSOR" "SOURCES;COMPILE_ARGS;CFLAGS")
  if(NOT BHEMU_HAVE_GUEST_CC)
    return()
  endif()
  if(NOT K_SOURCES)
    message(FATAL_ERROR "bhemu_kernel(${NAME}): no SOURCES")
  endif()
  list(FIND BHEMU_KERNEL_PROCESSORS "${K_PROCESSOR}" proc_index)
  if(proc_index LESS 0)
    message(FATAL_ERROR "bhemu_kernel(${NAME}): PROCESSOR must be one of ${BHEMU_KERNEL_PROCESSORS}")
  endif()
  bhemu_guest_runtime(runtime BHEMU_KERNEL_RUNTIME_OBJECTS "bhemu_kernel(${NAME})")
  list(POP_FRONT runtime kcrt0)

  # .bhemu.ct_args: written at configure time, rewritten only when the values change.
  set(objdir ${BHEMU_KERNEL_DIR}/obj/${NAME})
  list(LENGTH K_COMPILE_ARGS ct_count)
  set(ct_asm "/* Generated by bhemu_kernel(${NAME}): its compile-time arguments (ABI.md 2). */\n")
  string(APPEND ct_asm "\t.section .bhemu.ct_args, \"\", @progbits\n\t.balign 4\n\t.word ${ct_count}\n")
  set(ct_define)
  if(ct_count GREATER 0)
    list(JOIN K_COMPILE_ARGS ", " ct_words)
    string(APPEND ct_asm "\t.word ${ct_words}\n")
    list(JOIN K_COMPILE_ARGS "," ct_values)
    set(ct_define -DKERNEL_COMPILE_TIME_ARGS=${ct_values})
  endif()
  file(CONFIGURE OUTPUT ${objdir}/${NAME}_ct_args.S CONTENT "${ct_asm}" @ONLY)

  bhemu_guest_objects(objects ${objdir} ${K_SOURCES} ${objdir}/${NAME}_ct_args.S
    CFLAGS ${BHEMU_KERNEL_CFLAGS} -DKERNEL_PROCESSOR=${proc_index} ${ct_define} ${K_CFLAGS})

  set(ld ${BHEMU_KERNEL_RUNTIME_DIR}/kernel_${K_PROCESSOR}.ld)
  set(provide ${BHEMU_KERNEL_RUNTIME_DIR}/fw_${K_PROCESSOR}.ld)
  set(elf ${BHEMU_KERNEL_DIR}/${NAME}.elf)
  # The PROVIDE script is an input file, not -T: ld reads an input it cannot parse as an object as
  # a script that adds to kernel.ld.
  add_custom_command(
    OUTPUT ${elf}
    COMMAND ${BHEMU_GUEST_CC} ${BHEMU_GUEST_LDFLAGS} -Wl,--no-relax -Wl,--emit-relocs -Wl,--gc-sections
            -T ${ld} -Wl,-Map=${objdir}/${NAME}.map ${kcrt0} ${objects} ${runtime} ${provide} -lgcc -o ${elf}
    DEPENDS ${kcrt0} ${objects} ${runtime} ${ld} ${provide}
    COMMENT "Kernel LD ${NAME}.elf (${K_PROCESSOR})"
    VERBATIM)
  add_custom_target(kernel_${NAME} ALL DEPENDS ${elf})
  add_dependencies(kernel_${NAME} kernel_runtime)
  set_target_properties(kernel_${NAME} PROPERTIES BHEMU_KERNEL_ELF ${elf})
  set_property(GLOBAL APPEND PROPERTY BHEMU_KERNEL_ELFS ${elf})
  set_property(GLOBAL APPEND PROPERTY BHEMU_KERNEL_TARGETS kernel_${NAME})
endfunction()
