# In-flight NoC hazards (races.md #10, #18, #19, #22): the noc-inflight checks and the
# asynchronous NoC's latencies. Each item is a bug program and its -DRACE_FIXED twin, on two tiles
# with the whole-grid test helpers (tests/guest/grid/grid_test.h).
set(inflight_grid ${CMAKE_CURRENT_SOURCE_DIR}/../guest/grid)

# #10: an output page popped (and refilled) right after noc_async_write: the producer's store
# into the write's source, not read yet. Twin: noc_async_writes_flushed before cb_pop_front.
race_item(10 write_source_reused
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/10_write_source_reused.c
  CFLAGS -I${inflight_grid}
  RUN --board grid:2x1 --grid --cores brisc,ncrisc --noc-latency slow
  STATUS 8
  EXPECT "^bhemu: check noc-inflight: on tile 0 \\(1,2\\) core ncrisc"
         "other: NoC0 write of 64 bytes .* issued by tile 0 \\(1,2\\) brisc at pc .*: its source not read yet"
  SEEDS 10
  TWIN_SEEDS 10)

# #18: the receiver's semaphore (an atomic, VC 1) overtakes the multicast payload (VC 4); the
# receiver's loads of the payload not landed yet (opt-in load check). Long jitter leaves time
# between the two. Twin: noc_async_write_barrier before the semaphores.
race_item(18 sem_before_payload
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/18_sem_before_payload.c
  CFLAGS -I${inflight_grid}
  RUN --board grid:2x1 --grid --cores brisc,ncrisc --check default,noc-inflight-load --noc-latency 0:2000000
  STATUS 8
  EXPECT "^bhemu: check noc-inflight-load: on tile 1 \\(2,2\\) core brisc"
         "other: NoC0 multicast write of 256 bytes .*: not landed yet"
  SEEDS 20
  TWIN_SEEDS 10)

# #19: a read's data used before noc_async_read_barrier (opt-in load check).
race_item(19 read_before_barrier
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/19_read_before_barrier.c
  CFLAGS -I${inflight_grid}
  RUN --board grid:2x1 --grid --cores brisc,ncrisc --check default,noc-inflight-load --noc-latency slow
  STATUS 8
  EXPECT "^bhemu: check noc-inflight-load: on tile 0 \\(1,2\\) core brisc"
         "other: NoC0 read of 256 bytes .*: not landed yet"
         "why: load from the destination of a NoC read whose data has not landed yet"
  SEEDS 10
  TWIN_SEEDS 10)

# #22: NIU_MST_NONPOSTED_WR_REQ_SENT read right after CMD_CTRL: the program sees the count short
# and says so. Acceptance well after the store (a counter read runs what is due within
# 5 us itself). Twin: CMD_CTRL read back until 0 first.
race_item(22 counter_after_cmd_ctrl
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/22_counter_after_cmd_ctrl.c
  CFLAGS -I${inflight_grid}
  RUN --board grid:2x1 --grid --cores brisc,ncrisc --noc-latency 1000000:2000000
  STATUS 24
  EXPECT "^22_counter_after_cmd_ctrl: tile 0: NIU_MST_NONPOSTED_WR_REQ_SENT counts [0-9]+ writes after block [0-9]+, expected [0-9]+$"
  SEEDS 5
  TWIN_SEEDS 10)
