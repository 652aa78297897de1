/* Integer matrix multiply C = A * B (int32, N x N), repeated with A perturbed each round:
 * mul/add inner loop, row-major loads with a column stride. */
#include "bench.h"

#ifndef MATMUL_ROUNDS /* override with -DMATMUL_ROUNDS=N */
#define MATMUL_ROUNDS 224		/* tune: ~2.0 M instructions per round */
#endif
#define MATMUL_N 64

static int32_t a[MATMUL_N][MATMUL_N];
static int32_t b[MATMUL_N][MATMUL_N];
static int32_t c[MATMUL_N][MATMUL_N];

static void matmul(void)
{
	for (int i = 0; i < MATMUL_N; i++) {
		for (int j = 0; j < MATMUL_N; j++) {
			int32_t sum = 0;
			for (int k = 0; k < MATMUL_N; k++)
				sum += a[i][k] * b[k][j];
			c[i][j] = sum;
		}
	}
}

static uint32_t matrix_digest(void)
{
	uint32_t h = BARE_FNV_INIT;

	for (int i = 0; i < MATMUL_N; i++)
		for (int j = 0; j < MATMUL_N; j++)
			h = bare_fnv1a_u32(h, (uint32_t)c[i][j]);
	return h;
}

int main(void)
{
	uint32_t seed = 0x9e3779b9u;
	uint32_t digest = 0;

	for (int i = 0; i < MATMUL_N; i++) {
		for (int j = 0; j < MATMUL_N; j++) {
			a[i][j] = (int32_t)(bench_rand(&seed) % 2001) - 1000;
			b[i][j] = (int32_t)(bench_rand(&seed) % 2001) - 1000;
		}
	}
	for (int round = 0; round < MATMUL_ROUNDS; round++) {
		matmul();
		digest ^= matrix_digest() + (uint32_t)round;
		a[round % MATMUL_N][(round * 7) % MATMUL_N] += c[0][round % MATMUL_N] & 0xff;
	}
	bare_printf("matmul: n=%d rounds=%d c00=%d digest=%08x\n", MATMUL_N, MATMUL_ROUNDS, c[0][0],
		    digest);
	return 0;
}
