# Code and launch-state races (races.md 1, 3, 5, 6, 7, 8, 30): see tests/races/CMakeLists.txt.

race_item(06 stale_icache
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/06_stale_icache.c
  RUN --board grid:2x1 --grid --cores brisc --check code-written
  STATUS 8
  EXPECT "check code-written: on tile 0 .* core brisc" "other: NoC0 write issued by \\(2,2\\) brisc"
  SEEDS 3
  TWIN_SEEDS 5)

# The same program with the decode cache kept until the invalidate (Provoke of races.md #6): the
# worker runs the old kernel and its own check fails; the twin invalidates first.
race_item(06 stale_icache_provoked
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/06_stale_icache.c
  RUN --board grid:2x1 --grid --cores brisc --provoke stale-icache
  STATUS 21
  EXPECT "^stale_icache: the new kernel returned 1$"
  SEEDS 1
  TWIN_SEEDS 3)

race_item(01 firmware_rewritten
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/01_firmware_rewritten.c
  RUN --cores brisc,ncrisc --check code-written
  STATUS 8
  EXPECT "check code-written: on tile 0 .* core brisc" "other: ncrisc \\(running\\), which executed 0x"
  SEEDS 3
  TWIN_SEEDS 5)

race_item(30 sem_aliases_text
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/30_sem_aliases_text.c
  RUN --board grid:2x1 --grid --cores brisc
  STATUS 8
  EXPECT "check atomic-into-code: on tile 1 .* core brisc" "other: brisc of \\(1,2\\) \\(running\\), which executed 0x"
  SEEDS 3
  TWIN_SEEDS 5)

race_item(08 ldm_zeroing
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/08_ldm_zeroing.c
  RUN --cores brisc
  STATUS 8
  EXPECT "check ldm-zeroing: on tile 0 .* core brisc" "other: ncrisc, released from reset [0-9]+ cycles before"
  SEEDS 20
  TWIN_SEEDS 10)

race_item(03 release_order
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/03_release_order.c
  RUN --cores brisc,ncrisc --provoke skew
  STATUS 9
  EXPECT "release_order: ncrisc read its launch message before brisc wrote it"
  SEEDS 30
  TWIN_SEEDS 10)

race_item(05 cb_reset_window
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/05_cb_reset_window.c
  CFLAGS --param=min-pagesize=0
  RUN --cores brisc,ncrisc,trisc0 --profile p100a --timeout 20
  STATUS 8
  EXPECT "^bhemu: check cb-reset-window: on tile 0 \\(1,2\\) core brisc$" "other: trisc0, asked to zero the CB counters"
  SEEDS 3
  TWIN_SEEDS 10)
