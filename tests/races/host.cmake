# Race catalogue items of the CB-ownership, host-protocol and NoC-coordinate detectors
# (races.md #9 RISC-V side, #27); the fast-dispatch host protocol items (#4, #28, #29, #31) are
# Criterion tests in tests/unit/test_race_host.c.

# #9: a consumer pops a page of a second CB after waiting only on the first.
race_item(09 cb_pop_unwaited
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/09_cb_pop_unwaited.c
  RUN --cores brisc,ncrisc --provoke delay
  STATUS 8
  EXPECT "^bhemu: check cb-pop-unwaited: on tile 0 \\(1,2\\) core ncrisc$"
         "^  other: CB1 producer brisc, which has pushed tiles_received to 0x"
         "^  why: ncrisc pops 1 page of CB 1 \\(tiles_acked 0x0 -> 0x1\\) but its last read of tiles_received was 0x0: it saw 0 of them published"
  SEEDS 20
  TWIN_SEEDS 10)

# #9: a producer stamps a page's header after cb_push_back (cb-ownership is opt-in).
race_item(09 cb_overwrite_held
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/09_cb_overwrite_held.c
  RUN --cores brisc,ncrisc --check default,cb-ownership
  STATUS 8
  EXPECT "^bhemu: check cb-ownership: on tile 0 \\(1,2\\) core brisc$"
         "^  pc 0x[0-9a-f]+ <main_brisc\\+0x[0-9a-f]+>: [0-9a-f]+  sw "
         "^  access: 4-byte store to 0x[0-9a-f]+ (<fifo> )?in CB0 page 0 of 2 \\(L1 0x[0-9a-f]+\\)$"
         "^  other: the consumer of CB0: it has not popped page 0x0 yet \\(tiles_acked 0x0, tiles_received 0x1\\)$"
         "^  why: 4-byte store by brisc, the producer of CB0, into page 0x0, which it published \\(cb_push_back\\) and the consumer still holds"
  SEEDS 5
  TWIN_SEEDS 10)

# #9: a writer kernel sends a page (noc_async_write from the CB) before cb_wait_front; the producer
# is the slow side. cb-ownership judges the write's source (opt-in). #10's program, built so.
race_item(09 cb_send_unwaited
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/10_write_source_reused.c
  CFLAGS -I${CMAKE_CURRENT_SOURCE_DIR}/../guest/grid -DRACE_SEND_UNWAITED
  RUN --board grid:2x1 --grid --cores brisc,ncrisc --check default,cb-ownership
  STATUS 8
  EXPECT "^bhemu: check cb-ownership: on tile 0 \\(1,2\\) core brisc$"
         "^  why: NoC write issued by brisc reads its 64-byte source (at 0x[0-9a-f]+ )?from CB0 slot 0"
  SEEDS 3
  TWIN_SEEDS 5)

# #27: a NoC1 multicast with its rectangle in NoC0 corner order.
race_item(27 noc1_mcast_corners
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/27_noc1_mcast_corners.c
  CFLAGS -I${CMAKE_CURRENT_SOURCE_DIR}/../guest/grid
  RUN --board grid:3x2 --grid --cores brisc,ncrisc
  STATUS 8
  EXPECT "^bhemu: check noc-mcast-order: on tile 0 \\(1,2\\) core ncrisc$"
         "^  pc 0x[0-9a-f]+ <main_ncrisc\\+0x[0-9a-f]+>: [0-9a-f]+  sw "
         "^  why: NoC1 multicast write with start \\(2,2\\) and end \\(3,2\\) in RET_ADDR_HI: NoC1 takes the corners exchanged \\(start >= end in translated coordinates\\), so the rectangle wraps around the grid and reaches the wrong tiles; probably meant start \\(3,2\\) end \\(2,2\\)$"
  SEEDS 1
  TWIN_SEEDS 5)

# Not a catalogue item: `bhemu run` knows a CB's page count from the guest's CB set-up, so an
# overfill is a CB protocol fault naming it (exit status 3), as in a launch.
bhemu_guest_executable(cb_overfill_run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_overfill_run.c MULTICORE)
bhemu_guest_executable(cb_overfill_run_fixed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_overfill_run.c CFLAGS -DRACE_FIXED
                       MULTICORE)
add_test(NAME run_cb_overfill_knows_page_count
  COMMAND ${races_hunt} caught 00 cb_overfill_run 3 1
          "^bhemu: fault: CB protocol violation on tile 0 \\(1,2\\) core brisc$"
          "^  why: push of 1 page into CB 0 overfills it: received-acked would be 3, the CB has 2 pages \\(brisc wrote tiles_received 0x2 -> 0x3, tiles_acked is 0x0\\)$"
          -- ${races_bhemu} run --cores brisc,ncrisc --provoke skew ${BHEMU_GUEST_DIR}/cb_overfill_run.elf)
add_test(NAME run_cb_overfill_knows_page_count_fixed
  COMMAND ${races_hunt} clean 00 cb_overfill_run 0 3
          -- ${races_bhemu} run --cores brisc,ncrisc ${BHEMU_GUEST_DIR}/cb_overfill_run_fixed.elf)
set_tests_properties(run_cb_overfill_knows_page_count run_cb_overfill_knows_page_count_fixed PROPERTIES TIMEOUT 60)
