/* CRC-32 (IEEE, reflected) of a buffer that changes every round, computed both bit by bit
 * (shift/xor/mask, no loads) and with a 256-entry table (one load per byte). */
#include "bench.h"

#ifndef CRC_ROUNDS /* override with -DCRC_ROUNDS=N */
#define CRC_ROUNDS 1536		/* tune: ~0.29 M instructions per round */
#endif
#define CRC_BUF_BYTES 4096
#define CRC_POLY 0xedb88320u

static uint8_t buf[CRC_BUF_BYTES];
static uint32_t table[256];

static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC_POLY & (0u - (crc & 1)));
	}
	return ~crc;
}

static void crc32_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t crc = i;
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC_POLY & (0u - (crc & 1)));
		table[i] = crc;
	}
}

static uint32_t crc32_table(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = (crc >> 8) ^ table[(crc ^ p[i]) & 0xff];
	return ~crc;
}

int main(void)
{
	uint32_t seed = 0x12345678u;
	uint32_t digest = BARE_FNV_INIT;

	for (size_t i = 0; i < CRC_BUF_BYTES; i++)
		buf[i] = (uint8_t)bench_rand(&seed);
	crc32_table_init();

	for (int round = 0; round < CRC_ROUNDS; round++) {
		uint32_t a = crc32_bitwise(0, buf, CRC_BUF_BYTES);
		uint32_t b = crc32_table(0, buf, CRC_BUF_BYTES);
		if (a != b) {
			bare_printf("crc32: round %d bitwise %08x != table %08x\n", round, a, b);
			return 1;
		}
		digest = bare_fnv1a_u32(digest, a);
		buf[round % CRC_BUF_BYTES] ^= (uint8_t)a;	/* next round sees new data */
	}
	/* "123456789" has the well-known check value cbf43926. */
	bare_printf("crc32: check=%08x rounds=%d digest=%08x\n",
		    crc32_table(0, (const uint8_t *)"123456789", 9), CRC_ROUNDS, digest);
	return 0;
}
