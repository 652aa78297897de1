# Core and Tensix misuse (races.md #2, #11-#17, #20, #23-#26): programs written as kernel authors
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

race_item(20 poll_no_fence
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/20_poll_no_fence.c
  RUN --board grid:1x1 --cores brisc,ncrisc --timeout 20
  STATUS 8
  EXPECT "^bhemu: check poll-no-fence: on tile 0 \\(1,2\\) core ncrisc$" "reads L1 with the L0 data cache on"
  SEEDS 3
  TWIN_SEEDS 5)
