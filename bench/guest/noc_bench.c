/* The guest of bench_noc: BRISC of one tile runs the one measurement its host asks for in
 * noc_bench_params (noc_bench.h), through the dataflow library's NoC calls, and writes the wall
 * clock ticks and instructions of the timed loop back into the block.
 *
 *   write      batches of `batch` non-posted writes of `block` bytes, block i of the local
 *              source area to block i of the destination area on tile B, then
 *              noc_async_write_barrier()
 *   dram read  batches of `batch` reads of `block` bytes from consecutive DRAM offsets into
 *              consecutive blocks of the local area, then noc_async_read_barrier()
 *   atomic     noc_semaphore_inc(word on tile B, 1) and noc_async_atomic_barrier(), one by one
 *   compute    an arithmetic loop with L1 table loads and stores and data-dependent branches, no
 *              NoC: the same program on every tile for the aggregate instruction rate
 *
 * The host checks the data (the destination area, the atomic's word, the digests), so this
 * program checks only its parameters. It prints nothing. */
#include <stdint.h>

#include "multicore.h"
#include "noc.h"
#include "noc_bench.h"

volatile struct noc_bench_params noc_bench_params __attribute__((section(".data"))) = { 0 };

static uint64_t read_csr64(int cycle)
{
	uint32_t hi, lo, hi2;

	do {
		if (cycle) {
			__asm__ volatile("rdcycleh %0" : "=r"(hi));
			__asm__ volatile("rdcycle %0" : "=r"(lo));
			__asm__ volatile("rdcycleh %0" : "=r"(hi2));
		} else {
			__asm__ volatile("rdinstreth %0" : "=r"(hi));
			__asm__ volatile("rdinstret %0" : "=r"(lo));
			__asm__ volatile("rdinstreth %0" : "=r"(hi2));
		}
	} while (hi != hi2);
	return (uint64_t)hi << 32 | lo;
}

struct stamp {
	uint64_t ticks, instret;
};

static struct stamp stamp_now(void)
{
	struct stamp s = { read_csr64(1), read_csr64(0) };
	return s;
}

static void write_batch(uint32_t src, uint64_t dst, uint32_t batch, uint32_t block)
{
	for (uint32_t b = 0; b < batch; b++)
		noc_async_write(src + b * block, dst + b * block, block);
	noc_async_write_barrier();
}

static void read_batch(uint64_t src, uint32_t dst, uint32_t batch, uint32_t block)
{
	for (uint32_t b = 0; b < batch; b++)
		noc_async_read(src + b * block, dst + b * block, block);
	noc_async_read_barrier();
}

/* The old value the last atomic returned, at L1 4. Through a register: gcc takes a constant
 * address that low for a null-pointer offset and warns. */
static uint32_t atomic_returned(void)
{
	uintptr_t a = MEM_NOC_ATOMIC_RET_VAL_ADDR;

	__asm__("" : "+r"(a));
	return *(volatile uint32_t *)a;
}

static void atomic_inc(uint64_t sem)
{
	noc_semaphore_inc(sem, 1);
	noc_async_atomic_barrier();
}

static uint32_t compute_table[NOC_BENCH_TABLE_WORDS];

/* The host's phase word, fresh: the fence flushes the L0 data cache (riscv-cores.md 4). */
static uint32_t read_phase(volatile struct noc_bench_params *p)
{
	__asm__ volatile("fence" ::: "memory");
	return p->phase;
}

/* Steady state: rounds until the host says stop, the counters from the first round that saw the
 * timed phase to the first that saw the stop (both at the stop when the timed phase was missed:
 * an empty window, which the host reports). */
static uint32_t compute_steady(volatile struct noc_bench_params *p, struct stamp *t0, struct stamp *t1,
			       uint32_t *rounds)
{
	struct noc_bench_state s = noc_bench_compute_init(compute_table);
	uint32_t phase = NOC_BENCH_PHASE_WARM, n = 0;

	for (;;) {
		noc_bench_compute_round(compute_table, &s);
		if (n++ == 0)
			p->running = 1;
		uint32_t now = read_phase(p);
		if (now == phase)
			continue;
		if (phase == NOC_BENCH_PHASE_WARM)
			*t0 = stamp_now();
		phase = now;
		if (now >= NOC_BENCH_PHASE_STOP)
			break;
	}
	*t1 = stamp_now();
	*rounds = n;
	return s.acc;
}

static int params_ok(const volatile struct noc_bench_params *p)
{
	uint64_t bytes = (uint64_t)p->batch * p->block;

	if (p->mode == NOC_BENCH_ATOMIC)
		return (p->dst & 15) == 0 && p->dst < 0x180000u;
	return p->block >= 16 && p->block <= NOC_MAX_BURST_SIZE && p->block % 64 == 0 && p->batch >= 1 &&
	       bytes <= NOC_BENCH_AREA_SIZE;
}

int main_brisc(void)
{
	volatile struct noc_bench_params *p = &noc_bench_params;
	uint32_t n = p->iterations, batch = p->batch, block = p->block, result = 0;
	uint64_t peer = get_noc_addr_from_xy(p->peer_xy, 0);
	struct stamp t0, t1;

	uint32_t rounds = n;

	if (p->mode == NOC_BENCH_COMPUTE && n == 0) {
		result = compute_steady(p, &t0, &t1, &rounds);
	} else if (p->mode == NOC_BENCH_COMPUTE) {
		t0 = stamp_now();
		result = noc_bench_compute(compute_table, n);
		t1 = stamp_now();
	} else {
		if (!params_ok(p))
			return NOC_BENCH_ERR_PARAMS;
		noc_init_brisc();
		switch (p->mode) {
		case NOC_BENCH_WRITE: {
			uint32_t src = p->src;
			uint64_t dst = peer | p->dst;
			write_batch(src, dst, batch, block);   /* warm-up: first touch of the host pages */
			t0 = stamp_now();
			for (uint32_t i = 0; i < n; i++)
				write_batch(src, dst, batch, block);
			t1 = stamp_now();
			break;
		}
		case NOC_BENCH_DRAM_READ: {
			uint64_t src = peer | p->src;
			uint32_t dst = p->dst;
			read_batch(src, dst, batch, block);
			t0 = stamp_now();
			for (uint32_t i = 0; i < n; i++)
				read_batch(src, dst, batch, block);
			t1 = stamp_now();
			break;
		}
		case NOC_BENCH_ATOMIC: {
			uint64_t sem = peer | p->dst;
			atomic_inc(sem);
			t0 = stamp_now();
			for (uint32_t i = 0; i < n; i++)
				atomic_inc(sem);
			t1 = stamp_now();
			result = atomic_returned();
			break;
		}
		default:
			return NOC_BENCH_ERR_MODE;
		}
	}
	uint64_t ticks = t1.ticks - t0.ticks, insns = t1.instret - t0.instret;
	p->ticks_lo = (uint32_t)ticks;
	p->ticks_hi = (uint32_t)(ticks >> 32);
	p->instret_lo = (uint32_t)insns;
	p->instret_hi = (uint32_t)(insns >> 32);
	p->result = result;
	p->rounds = rounds;
	noc_fence();   /* the results before the flag (the host reads them after the exit anyway) */
	p->done = NOC_BENCH_DONE;
	return 0;
}
