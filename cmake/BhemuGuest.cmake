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
#   BHEMU_GUEST_DATAFLOW_DIR       firmware/dataflow: cb.h/cb.c, noc.h/noc.c (on every guest
#                                  include path)
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

set(BHEMU_GUEST_RUNTIME_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware/baremetal)
get_filename_component(BHEMU_GUEST_RUNTIME_DIR ${BHEMU_GUEST_RUNTIME_DIR} ABSOLUTE)
set(BHEMU_GUEST_LINKER_SCRIPT ${BHEMU_GUEST_RUNTIME_DIR}/bare.ld)
set(BHEMU_GUEST_MULTICORE_LINKER_SCRIPT ${BHEMU_GUEST_RUNTIME_DIR}/bare_multi.ld)
get_filename_component(BHEMU_GUEST_DATAFLOW_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware/dataflow ABSOLUTE)
set(BHEMU_GUEST_DIR ${CMAKE_BINARY_DIR}/guest)

find_program(BHEMU_GUEST_CC riscv64-unknown-elf-gcc)
if(BHEMU_GUEST_CC AND EXISTS "${BHEMU_GUEST_CC}")
  set(BHEMU_HAVE_GUEST_CC ON)
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
    get_property(runtime GLOBAL PROPERTY BHEMU_GUEST_MULTICORE_RUNTIME_OBJECTS)
  elseif(NOT G_NO_RUNTIME)
    get_property(runtime GLOBAL PROPERTY BHEMU_GUEST_RUNTIME_OBJECTS)
  endif()
  if(NOT G_NO_RUNTIME AND NOT runtime)
    message(FATAL_ERROR "bhemu_guest_executable(${NAME}): the bare runtime is not defined yet "
                        "(add_subdirectory(firmware) must come first)")
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
