/* A tt-metal style compute kernel on the three TRISCs (firmware/compute/compute.h): the same body
 * runs on TRISC0 (unpack), TRISC1 (math) and TRISC2 (pack), over compute_tiles tiles, with the
 * operation compute_op chosen by the host (tests/unit/test_compute_kernels.c), which fills the
 * input tiles and checks the output ones:
 *   0 add_tiles, 1 sub_tiles, 2 mul_tiles (in0 BF16, in1 BFP8 or BF16 -> out BF16)
 *   3 copy_tile (in0 -> out)
 *   4 matmul_tiles, HiFi4 (in0 @ in1, BF16 -> FP32 Dst -> BF16)
 *   5 matmul_tiles, LoFi
 *   6 + u: copy_tile, then the SFPU unary operation u (enum compute_unary) with compute_param
 *   6 + UNARY_COUNT: where(in0 > 0, in1, in0): in0, in1, in0 into Dst tiles 0, 1, 2, gtz_tile(0),
 *   where_tile(0, 1, 2)
 *   OP_MM_L1ACC: out tile 0 = the sum over t of in0 tile t @ in1 tile t (HiFi4): a matmul per
 *   K block, packed (compute_out_fmt: Float16_b or Float32) with L1 accumulation from the second
 *   block on (pack_reconfig_l1_acc)
 *   OP_MM_SFPU: matmul_tiles (HiFi4) of tile t into Dst tile (t / 2) % 2, then, for t % 3 == 2,
 *   mul_unary_tile by compute_param on it (the SFPU's sequence goes through the replay buffer
 *   the matmul uses too); packed from that Dst tile
 *   OP_DST32: copy_tile with a 32-bit Dst (fp32_dest_acc_en), in format compute_in_fmt, out
 *   compute_out_fmt (tiles of 32-bit formats are 4096 bytes: MAX_TILES / 2 of them fit)
 *   OP_DST32 + 1 + k: the same, then integer operation / typecast k (enum compute_int_unary)
 *   OP_DST16, OP_DST16 + 1 + k: the same with a 16-bit Dst (UInt16 tiles)
 *   OP_DST32F + u: the float unary operation u (enum compute_unary) with a 32-bit Dst
 *   OP_TYPECAST: copy_tile, typecast_tile(0, compute_in_fmt, compute_out_fmt); a 32-bit Dst when
 *   compute_param is 1
 * BRISC only starts the others; NCRISC does nothing. More tiles than MAX_TILES cycle through the
 * buffers (bench_tensix's data-plane rows). */
#include "compute.h"
#include "multicore.h"

#define MAX_TILES 32
#define OP_MM_SFPU 38u
#define OP_MM_L1ACC 39u
#define OP_DST32 40u
#define OP_DST16 80u
#define OP_DST32F 120u
#define OP_TYPECAST 160u

_Static_assert(OP_DST32 + INT_UNARY_COUNT < OP_DST16 && OP_DST16 + INT_UNARY_COUNT < OP_DST32F &&
	       OP_DST32F + UNARY_COUNT < OP_TYPECAST, "operation ranges overlap");

COMPUTE_DEFINE_STATE;

/* What the host writes between loading and starting lives in .data: BRISC zeroes .bss first. */
#define HOST_SET __attribute__((section(".data")))
HOST_SET volatile uint32_t compute_op;
HOST_SET volatile uint32_t compute_tiles = 1;
HOST_SET volatile uint32_t compute_in1_fmt = COMPUTE_FMT_BF16;
HOST_SET volatile uint32_t compute_param;
HOST_SET volatile uint32_t compute_in_fmt = COMPUTE_FMT_BF16;
HOST_SET volatile uint32_t compute_out_fmt = COMPUTE_FMT_BF16;
HOST_SET uint8_t tiles_in0[MAX_TILES * 2048] __attribute__((aligned(16)));
HOST_SET uint8_t tiles_in1[MAX_TILES * 2048] __attribute__((aligned(16)));
uint8_t tiles_out[MAX_TILES * 2048] __attribute__((aligned(16)));

static int kernel(enum compute_thread role)
{
	const uint32_t n = compute_tiles, op = compute_op;
	const uint32_t base = op >= OP_TYPECAST ? OP_TYPECAST : op >= OP_DST32F ? OP_DST32F : op >= OP_DST16 ? OP_DST16 : OP_DST32;
	_Static_assert(6 + UNARY_COUNT < OP_MM_SFPU, "operation numbers overlap");
	if (op > 6 + UNARY_COUNT && op != OP_MM_SFPU && op != OP_MM_L1ACC && (op < OP_DST32 || op > base + INT_UNARY_COUNT))
		return 2;
	compute_begin(role);
	if (op == OP_MM_SFPU) {
		compute_fp32_dest_acc_en(true);   /* the SFPU keeps the matmul's FP32 Dst */
		mm_init(0, 1, 16, HiFi4);
		for (uint32_t t = 0; t < n; t++) {
			uint32_t i = t % MAX_TILES, d = (t / 2) % 2;
			tile_regs_acquire();
			matmul_tiles(0, 1, i, i, d, 0);
			if (t % 3 == 2)
				compute_sfpu_unary(d, UNARY_MUL, compute_param);
			tile_regs_commit();
			tile_regs_wait();
			pack_tile(d, 16, i);
			tile_regs_release();
		}
		compute_end();
		return 0;
	}
	if (op == OP_MM_L1ACC) {
		mm_init(0, 1, 16, HiFi4);
		for (uint32_t t = 0; t < n; t++) {
			tile_regs_acquire();
			matmul_tiles(0, 1, t, t, 0, 0);
			tile_regs_commit();
			tile_regs_wait();
			pack_reconfig_l1_acc(t > 0);
			pack_tile(0, 16, 0);
			tile_regs_release();
		}
		pack_reconfig_l1_acc(0);
		compute_end();
		return 0;
	}
	if (op >= OP_DST32) {
		compute_fp32_dest_acc_en(base == OP_TYPECAST ? compute_param == 1 : base != OP_DST16);
		unary_op_init_common(0, 16);
		copy_tile_init(0);
	} else if (op == 3 || op >= 6) {
		unary_op_init_common(0, 16);
		copy_tile_init(0);
	}
	else if (op >= 4)
		mm_init(0, 1, 16, op == 4 ? HiFi4 : LoFi);
	else
		binary_op_init_common(0, 1, 16);
	for (uint32_t t = 0; t < n; t++) {
		tile_regs_acquire();
		uint32_t i = t % MAX_TILES;   /* more tiles than buffers (bench_tensix): the inputs cycle */
		if (op >= OP_DST32) {
			i = t % (MAX_TILES / 2);
			copy_tile(0, i, 0);
			if (base == OP_TYPECAST)
				typecast_tile(0, compute_in_fmt, compute_out_fmt);
			else if (base == OP_DST32F)
				compute_sfpu_unary(0, (enum compute_unary)(op - base), compute_param);
			else if (op > base)
				compute_sfpu_int(0, (enum compute_int_unary)(op - base - 1), compute_param);
			tile_regs_commit();
			tile_regs_wait();
			pack_tile(0, 16, i);
			tile_regs_release();
			continue;
		}
		switch (op) {
		case 0: add_tiles(0, 1, i, i, 0); break;
		case 1: sub_tiles(0, 1, i, i, 0); break;
		case 2: mul_tiles(0, 1, i, i, 0); break;
		case 3: copy_tile(0, i, 0); break;
		case 4: case 5: matmul_tiles(0, 1, i, i, 0, 0); break;
		default:
			copy_tile(0, i, 0);
			if (op == 6 + UNARY_COUNT) {
				copy_tile(1, i, 1);
				copy_tile(0, i, 2);
				gtz_tile(0);
				where_tile(0, 1, 2);
			} else {
				compute_sfpu_unary(0, (enum compute_unary)(op - 6), compute_param);
			}
			break;
		}
		tile_regs_commit();
		tile_regs_wait();
		pack_tile(0, 16, i);
		tile_regs_release();
	}
	compute_end();
	return 0;
}

void multicore_init(void)
{
	compute_cb_setup(0, (uint32_t)(uintptr_t)tiles_in0, compute_op >= OP_DST32 ? compute_in_fmt : COMPUTE_FMT_BF16);
	compute_cb_setup(1, (uint32_t)(uintptr_t)tiles_in1, compute_in1_fmt);
	compute_cb_setup(16, (uint32_t)(uintptr_t)tiles_out,
			 compute_op >= OP_DST32 || compute_op == OP_MM_L1ACC ? compute_out_fmt : COMPUTE_FMT_BF16);
}

int main_brisc(void) { return 0; }
int main_ncrisc(void) { return 0; }
int main_trisc0(void) { return kernel(COMPUTE_UNPACK); }
int main_trisc1(void) { return kernel(COMPUTE_MATH); }
int main_trisc2(void) { return kernel(COMPUTE_PACK); }
