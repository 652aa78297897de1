# Core and Tensix misuse (races.md #2, #9's Tensix side, #11-#17, #20, #23-#26): programs written as kernel authors
# write them, each caught by a detector or a fault, and their fixed twins.

race_item(14 wrcfg_consumed
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/14_wrcfg_consumed.c
  RUN --board grid:1x1 --cores brisc,trisc0
  STATUS 8
  EXPECT "^bhemu: check cfg-hazard: on tile 0 \\(1,2\\) core trisc0$" "RDCFG .*reads configuration word 209 in the cycle after the WRCFG"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(16 ttsync_then_sem
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/16_ttsync_then_sem.c
  RUN --board grid:1x1 --cores brisc,trisc0
  STATUS 8
  EXPECT "^bhemu: check ttsync-load: on tile 0 \\(1,2\\) core trisc0$" "other: the TTSync load at pc"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(17 brisc_push_running
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/17_brisc_push_running.c
  RUN --board grid:1x1 --cores brisc --timeout 20
  STATUS 8
  EXPECT "^bhemu: check brisc-push: on tile 0 \\(1,2\\) core brisc$" "other: trisc0, out of reset and running"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(21 stream_store_load_order
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/21_stream_store_load_order.c
  RUN --board grid:1x1 --cores brisc --provoke reorder --provoke-rate 0.5 --timeout 20
  STATUS 9
  EXPECT "^bhemu: seed [0-9]+ \\(rerun with --seed [0-9]+; provoke reorder"
  SEEDS 5
  TWIN_SEEDS 10)

race_item(20 poll_no_fence
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/20_poll_no_fence.c
  RUN --board grid:1x1 --cores brisc,ncrisc --timeout 20
  STATUS 8
  EXPECT "^bhemu: check poll-no-fence: on tile 0 \\(1,2\\) core ncrisc$" "reads L1 with the L0 data cache on"
  SEEDS 3
  TWIN_SEEDS 5)

# The same cache seen by one read after a hand-off through a stream register, shown by the L0
# model (--provoke l0-cache; the program's own status).
race_item(20 read_after_signal
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/20_poll_no_fence.c
  CFLAGS -DRACE_READ_AFTER_SIGNAL
  RUN --board grid:1x1 --cores brisc,ncrisc --provoke l0-cache --timeout 20
  STATUS 9
  EXPECT "^bhemu: ncrisc exited with status 9$"
  SEEDS 3
  TWIN_SEEDS 5)

race_item(13 seminit_in_use
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/13_seminit_in_use.c
  RUN --board grid:1x1 --cores brisc,trisc0,trisc1 --timeout 20
  STATUS 8
  EXPECT "^bhemu: check sem-reinit: on tile 0 \\(1,2\\) core trisc0$" "SEMINIT of semaphore 3 while its value is 1"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(15 mopcfg_while_queued
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/15_mopcfg_while_queued.c
  RUN --board grid:1x1 --cores brisc,trisc0,trisc1 --timeout 20
  STATUS 8
  EXPECT "^bhemu: check mopcfg-busy: on tile 0 \\(1,2\\) core trisc0$" "other: MOP 0x01030000 pushed by trisc0"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(02 ttinsn_on_ncrisc
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/02_ttinsn_on_ncrisc.c
  RUN --board grid:1x1 --cores brisc,ncrisc,trisc0
  STATUS 3
  EXPECT "^bhemu: fault: illegal instruction on tile 0 \\(1,2\\) core ncrisc$" "but NCRISC has no Tensix instruction push path"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(25 inline_write_l1
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/25_inline_write_l1.c
  RUN --board grid:1x1 --cores brisc --noc-latency slow --timeout 20
  STATUS 3
  EXPECT "^bhemu: fault: not modelled on tile 0 \\(1,2\\) core brisc$" "inline write to L1 0x[0-9a-f]+: unsafe on Blackhole"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(26 atomic_to_register
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/26_atomic_to_register.c
  RUN --board grid:1x1 --cores brisc,ncrisc --timeout 20
  STATUS 3
  EXPECT "^bhemu: fault: access not allowed on tile 0 \\(1,2\\) core ncrisc$" "atomics act on L1 of a Tensix tile only"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(11 eq_wait_counter
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/11_eq_wait_counter.c
  RUN --board grid:1x1 --cores brisc,ncrisc --provoke coalesce --provoke-rate 0.5 --timeout 20
  STATUS 5
  EXPECT "^bhemu: deadlock after" "brisc : polling in the loop" "waits on stream 20 reg 297"
  SEEDS 20
  TWIN_SEEDS 10)

race_item(24 trid_after_mcast
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/24_trid_after_mcast.c
  RUN --board grid:3x1 --grid --cores brisc --timeout 20
  STATUS 8
  EXPECT "^bhemu: check noc-trid-overflow: on tile 0 \\(1,2\\) core brisc$" "NIU_MST_REQS_OUTSTANDING_ID\\(0\\) of NoC0, which holds 255"
  SEEDS 1
  TWIN_SEEDS 5)

race_item(23 shared_initiator
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/23_shared_initiator.c
  RUN --board grid:1x1 --cores brisc,ncrisc --provoke delay --noc-latency slow --timeout 20
  STATUS 8
  EXPECT "^bhemu: check (noc-shared-initiator|noc-busy-reprogram|lost-target): on tile 0 \\(1,2\\) core (brisc|ncrisc)$"
  SEEDS 20
  TWIN_SEEDS 10)

race_item(12 rendezvous_no_generation
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/12_rendezvous_no_generation.c
  RUN --board grid:1x1 --cores brisc,ncrisc --provoke delay --provoke-rate 0.3 --timeout 20
  STATUS 5
  EXPECT "^bhemu: deadlock after" "waits on stream 21 reg 297"
  SEEDS 20
  TWIN_SEEDS 10)

# #9, the Tensix side: a CB page published before the packer wrote it (a plain store after the
# PACRs; a STOREREG without its STALLWAIT) or freed before the unpacker read it (cb-publish-early),
# packed into while the consumer holds it or unpacked before it was pushed (cb-ownership). One
# program, the bug chosen at build time; each twin makes tt-llk's CB calls.
# race_09_compute(SLUG DEFINE CHECK CORE [REGEX...]): the pipeline built with bug DEFINE, caught by
# CHECK on CORE, its report matching each REGEX; the twin is clean over 3 seeds.
function(race_09_compute SLUG DEFINE CHECK CORE)
  race_item(09 ${SLUG}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/09_pack_publish_early.c
    CFLAGS -I${CMAKE_SOURCE_DIR}/firmware/compute -D${DEFINE}
    RUN --board grid:1x1 --cores brisc,ncrisc,trisc0,trisc1,trisc2 --check default,${CHECK}
    STATUS 8
    EXPECT "^bhemu: check ${CHECK}: on tile 0 \\(1,2\\) core ${CORE}$" ${ARGN}
    SEEDS 1
    TWIN_SEEDS 3)
endfunction()
race_09_compute(pack_publish_early RACE_PUSH_PLAIN cb-publish-early trisc2
  "^  other: the packer of Tensix thread 2, given a PACR before this store$"
  "^  why: trisc2 publishes CB1 tiles_received 0x0 -> 0x1 with a store of its own while the PACR it pushed into Tensix thread 2 may still be at work")
race_09_compute(storereg_no_stall RACE_STOREREG_NO_STALL cb-publish-early trisc2
  "^  other: the packer of Tensix thread 2, given a PACR before this STOREREG$"
  "STOREREG .*: trisc2's STOREREG publishes CB1 tiles_received 0x0 -> 0x1 with no STALLWAIT on the packer \\(C3, holding the scalar unit\\) since its PACR")
race_09_compute(unpack_pop_early RACE_POP_EARLY cb-publish-early trisc0
  "^  other: unpacker 0 of Tensix thread 0, given a UNPACR before this store$"
  "^  why: trisc0 publishes CB0 tiles_acked 0x0 -> 0x1 with a store of its own while the UNPACR it pushed into Tensix thread 0 may still be at work")
race_09_compute(pack_unreserved RACE_PACK_UNRESERVED cb-ownership trisc2
  "^  other: the consumer of CB1: it has not popped page 0x0 yet \\(tiles_acked 0x0, tiles_received 0x2\\)$"
  "PACR packs into L1 0x[0-9a-f]+, in CB1 page 0x0 \\(slot 0 of 2\\), which is published and the consumer still holds")
race_09_compute(unpack_unwaited RACE_UNPACK_UNWAITED cb-ownership trisc0
  "^  other: the producer of CB0, which has pushed nothing yet$"
  "UNPACR \\(unpacker 0\\) reads L1 0x[0-9a-f]+, in CB0 slot 0 of 2, which holds no published page")
