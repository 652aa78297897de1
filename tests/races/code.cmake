# Code and launch-state races (races.md 1, 3, 6, 7, 8, 30): see tests/races/CMakeLists.txt.

race_item(06 stale_icache
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/06_stale_icache.c
  RUN --board grid:2x1 --grid --cores brisc --check code-written
  STATUS 8
  EXPECT "check code-written: on tile 0 .* core brisc" "other: NoC0 write issued by \\(2,2\\) brisc"
  SEEDS 3
  TWIN_SEEDS 5)

race_item(01 firmware_rewritten
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/01_firmware_rewritten.c
  RUN --cores brisc,ncrisc --check code-written
  STATUS 8
  EXPECT "check code-written: on tile 0 .* core brisc" "other: ncrisc \\(running\\), which executed 0x"
  SEEDS 3
  TWIN_SEEDS 5)
