/* add1 on every Tensix tile: reader -> CB 0 -> compute (+1 on the vector unit) -> CB 1 -> writer,
 * the shape of tt-metal's add1 SFPU example. Run with
 *   bhemu run --grid --cores brisc,ncrisc,trisc0,trisc1,trisc2 add1.elf
 * Tile `index` of N owns the pages p of two interleaved DRAM buffers (one 32x32 BF16 tile per
 * 2048-byte page) with p mod N = index, add1_tiles of them:
 *   NCRISC (reader) writes its input pages to DRAM, then reads each back into CB 0;
 *   TRISC0 unpacks each page (copy_tile's unpack), TRISC1 moves it into Dst and adds 1.0 with
 *   add_unary_tile (SFPLOAD, SFPMAD, SFP_STOCH_RND, SFPSTORE over the tile), TRISC2 packs Dst
 *   into CB 1 (compute library, firmware/compute/compute.h);
 *   BRISC (writer) writes each page of CB 1 to the output buffer, then reads its pages back and
 *   checks every datum: x + 1, exact in BF16 for the inputs used (multiples of 1/16 in [-4, 4)).
 * Exit 0 on every core when the output is exact. */
#include "compute_cb.h"
#include "grid_test.h"

#define PAGE 2048u
#define CB_IN 0u
#define CB_OUT 1u
#define CB_PAGES 2u

/* Parameters a host may patch before the cores start (in .data: BRISC zeroes .bss). */
volatile uint32_t add1_tiles __attribute__((section(".data"))) = 4;
volatile uint32_t add1_in_base __attribute__((section(".data"))) = 0x100000;
volatile uint32_t add1_out_base __attribute__((section(".data"))) = 0x10000000;

COMPUTE_DEFINE_STATE;

static const char prog[] = "add1";
static uint8_t cb_mem[2][CB_PAGES * PAGE] __attribute__((aligned(64)));
static uint16_t page_buf[2][PAGE / 2] __attribute__((aligned(64)));
volatile uint32_t add1_cb_config[2 * 4] __attribute__((aligned(16)));

void multicore_init(void)
{
	for (unsigned c = 0; c < 2; c++)
		cb_config_set(add1_cb_config, c, cb_mem[c], CB_PAGES, PAGE);
	cb_counters_reset(3);
}

/* BF16 bits of n / 16 (|n| < 256). */
static uint16_t bf16_sixteenths(int32_t n)
{
	uint32_t sign = n < 0, m = (uint32_t)(n < 0 ? -n : n);
	if (m == 0)
		return 0;
	uint32_t e = 31 - (uint32_t)__builtin_clz(m);
	return (uint16_t)(sign << 15 | (127 + e - 4) << 7 | ((m << (7 - e)) & 0x7F));
}

static int32_t input_sixteenths(uint32_t page, uint32_t k)
{
	return (int32_t)((k * 7 + page * 13) % 128) - 64;
}

static int bank_tables(void)
{
	if (noc_bank_tables_init(BARE_BANK_TABLES_ADDR, bare_grid()->num_dram_banks, bare_grid()->num_l1_banks) != 0) {
		bare_printf("%s: the bank tables do not fit\n", prog);
		return GRID_ERR_SETUP;
	}
	return GRID_OK;
}

#define FOR_MY_PAGES(p, self) \
	for (uint32_t p = (self)->index; p < add1_tiles * (self)->ntiles; p += (self)->ntiles)

static int reader(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	const struct interleaved_addr_gen in = { add1_in_base, PAGE, true };
	int rc = bank_tables();
	if (rc != GRID_OK)
		return rc;
	FOR_MY_PAGES(p, self) {
		for (uint32_t k = 0; k < PAGE / 2; k++)
			page_buf[0][k] = bf16_sixteenths(input_sixteenths(p, k));
		noc_async_write_page(p, &in, (uint32_t)(uintptr_t)page_buf[0]);
		noc_async_writes_flushed();
	}
	noc_async_write_barrier();
	cb_interface_setup(add1_cb_config, 1u << CB_IN);
	FOR_MY_PAGES(p, self) {
		cb_reserve_back(CB_IN, 1);
		noc_async_read_page(p, &in, get_write_ptr(CB_IN));
		noc_async_read_barrier();
		cb_push_back(CB_IN, 1);
	}
	return GRID_OK;
}

static int writer(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	const struct interleaved_addr_gen out = { add1_out_base, PAGE, true };
	int rc = bank_tables();
	if (rc != GRID_OK)
		return rc;
	cb_interface_setup(add1_cb_config, 1u << CB_OUT);
	FOR_MY_PAGES(p, self) {
		cb_wait_front(CB_OUT, 1);
		noc_async_write_page(p, &out, get_read_ptr(CB_OUT));
		noc_async_write_barrier();
		cb_pop_front(CB_OUT, 1);
	}
	/* Tile order in L1 is face after face; the input pattern is per datum index, so it is too. */
	FOR_MY_PAGES(p, self) {
		noc_async_read_page(p, &out, (uint32_t)(uintptr_t)page_buf[1]);
		noc_async_read_barrier();
		for (uint32_t k = 0; k < PAGE / 2; k++) {
			uint16_t want = bf16_sixteenths(input_sixteenths(p, k) + 16);
			if (page_buf[1][k] != want) {
				bare_printf("%s: tile %u: page %u datum %u: 0x%04x, expected 0x%04x (input 0x%04x)\n", prog,
					    self->index, p, k, page_buf[1][k], want, bf16_sixteenths(input_sixteenths(p, k)));
				return GRID_ERR_DATA;
			}
		}
	}
	return GRID_OK;
}

/* TRISC1's part of a tile: into Dst, then + 1.0 on the vector unit. */
static void add1_math(unsigned idst)
{
	copy_tile(CB_IN, 0, idst);
	add_unary_tile(idst, 0x3F800000u);   /* + 1.0f */
}

/* The compute kernel, the same body on the three TRISCs (compute.h, compute_cb.h). */
static int compute(enum compute_thread role)
{
	const volatile struct bare_grid_info *g = bare_grid();
	int k = bare_grid_tile_index(NOC_XY_ENCODING(my_x(), my_y()));
	if (g->magic != BARE_GRID_MAGIC || k < 0)
		return GRID_ERR_SETUP;
	compute_unary_cb_begin(role, add1_cb_config, CB_IN, CB_OUT);
	for (uint32_t p = (uint32_t)k; p < add1_tiles * g->num_tiles; p += g->num_tiles)
		compute_unary_cb_tile(CB_IN, CB_OUT, add1_math, &compute_cb_llk);
	compute_end();
	return 0;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_main(NOC_PROC_BRISC, &self, prog, writer);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u tiles of 32x32 BF16, reader -> SFPU +1 -> writer on each of %u Tensix tiles: ok\n", prog,
			    add1_tiles, self.ntiles);
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_NCRISC, &self, prog, reader);
}

int main_trisc0(void) { return compute(COMPUTE_UNPACK); }
int main_trisc1(void) { return compute(COMPUTE_MATH); }
int main_trisc2(void) { return compute(COMPUTE_PACK); }
