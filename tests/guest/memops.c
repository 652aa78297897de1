/* Byte, halfword and word loads and stores at every aligned offset, little-endian layout,
 * sign and zero extension, store merging into words, and memcpy/memmove/memset-style loops
 * with every source/destination alignment. */
#include "guest_test.h"

#define MEMOPS_EXIT_STATUS 17
#define MEMOPS_BUF 256

static uint8_t src_buf[MEMOPS_BUF] __attribute__((aligned(16)));
static uint8_t dst_buf[MEMOPS_BUF + 16] __attribute__((aligned(16)));

static void memops_fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand(&seed);
}

/* Stores of each width into a word: which bytes change, in which order. */
static void memops_test_store_layout(void)
{
	volatile uint32_t word[2] __attribute__((aligned(8)));
	uint32_t row[8];

	for (int off = 0; off < 4; off++) {
		word[0] = 0x11223344u;
		__asm__ volatile("sb %1, 0(%0)" : : "r"((volatile uint8_t *)word + off), "r"(0xabcdef80u)
				 : "memory");
		row[off] = word[0];
	}
	for (int off = 0; off < 4; off += 2) {
		word[0] = 0x11223344u;
		__asm__ volatile("sh %1, 0(%0)" : : "r"((volatile uint8_t *)word + off), "r"(0xabcd8001u)
				 : "memory");
		row[4 + off / 2] = word[0];
	}
	word[0] = 0;
	word[1] = 0;
	__asm__ volatile("sw %1, 4(%0)" : : "r"(word), "r"(0xcafef00du) : "memory");
	row[6] = word[0];
	row[7] = word[1];
	test_row("sb@0..3 sh@0,2 sw+4 into 11223344", row, 8);
}

/* Loads of each width and signedness at every aligned offset of 0x80 0xff 0x7f 0x01 ... */
static void memops_test_load_extension(void)
{
	static const uint8_t bytes[16] __attribute__((aligned(16))) = {
		0x80, 0xff, 0x7f, 0x01, 0x00, 0x80, 0xff, 0x7f, 0xfe, 0x00, 0x01, 0x80, 0x55, 0xaa, 0xc3, 0x3c,
	};
	uint32_t row[16];

	for (int i = 0; i < 16; i++)
		row[i] = (uint32_t)(int32_t)(int8_t)bytes[i];
	test_row("lb", row, 16);
	for (int i = 0; i < 16; i++)
		row[i] = bytes[i];
	test_row("lbu", row, 16);
	for (int i = 0; i < 8; i++)
		row[i] = (uint32_t)(int32_t)((const volatile int16_t *)bytes)[i];
	test_row("lh", row, 8);
	for (int i = 0; i < 8; i++)
		row[i] = ((const volatile uint16_t *)bytes)[i];
	test_row("lhu", row, 8);
	for (int i = 0; i < 4; i++)
		row[i] = ((const volatile uint32_t *)bytes)[i];
	test_row("lw", row, 4);
}

/* Byte-loop copies with every alignment pair and length. */
static void memops_test_copies(void)
{
	uint32_t h = BARE_FNV_INIT;

	memops_fill(src_buf, MEMOPS_BUF, 0x13579bdfu);
	for (int so = 0; so < 4; so++) {
		for (int d_off = 0; d_off < 4; d_off++) {
			for (size_t len = 0; len < 40; len += 3) {
				memset(dst_buf, 0xee, sizeof(dst_buf));
				memcpy(dst_buf + d_off, src_buf + so, len);
				h = bare_fnv1a(h, dst_buf, 64);
			}
		}
	}
	test_value("memcpy alignment x length digest", h);

	/* Overlapping moves in both directions. */
	h = BARE_FNV_INIT;
	for (int shift = -9; shift <= 9; shift++) {
		memcpy(dst_buf, src_buf, MEMOPS_BUF);
		memmove(dst_buf + 16 + shift, dst_buf + 16, 100);
		h = bare_fnv1a(h, dst_buf, MEMOPS_BUF);
	}
	test_value("memmove overlap digest", h);

	h = BARE_FNV_INIT;
	for (int off = 0; off < 8; off++) {
		for (size_t len = 0; len < 24; len++) {
			memset(dst_buf, 0, 48);
			memset(dst_buf + off, 0x80 + (int)len, len);
			h = bare_fnv1a(h, dst_buf, 48);
		}
	}
	test_value("memset offset x length digest", h);
}

/* Word, halfword and byte views of the same buffer after mixed-width stores. */
static void memops_test_mixed_widths(void)
{
	static uint32_t words[32];
	uint8_t *b = (uint8_t *)words;
	uint16_t *hw = (uint16_t *)words;
	uint32_t seed = 0x2468ace1u;

	for (int round = 0; round < 500; round++) {
		uint32_t r = test_rand(&seed);
		uint32_t i = r >> 24;
		switch (r & 3) {
		case 0: b[i % 128] = (uint8_t)r; break;
		case 1: hw[i % 64] = (uint16_t)(r >> 8); break;
		case 2: words[i % 32] = r; break;
		default: words[i % 32] += b[(i * 3) % 128] + hw[(i * 5) % 64]; break;
		}
	}
	test_row("mixed-width buffer", words, 32);
	uint32_t sum = 0;
	for (int i = 0; i < 64; i++)
		sum = sum * 31 + (uint32_t)(int32_t)(int16_t)hw[i];
	for (int i = 0; i < 128; i++)
		sum = sum * 37 + (uint32_t)(int32_t)(int8_t)b[i];
	test_value("signed half/byte sum", sum);
}

/* Far-apart addresses: the stack, and the lowest word of the stack region (bare.ld's
 * __stack_bottom, far below anything the program's own stack reaches). */
static void memops_test_addresses(void)
{
	volatile uint32_t local = 0xfeedface;
	uintptr_t addr;

	local ^= 0xffffffffu;
	test_value("stack word", local);
	/* The address comes from asm so gcc has no object size to complain about. */
	__asm__("lla %0, __stack_bottom" : "=r"(addr));
	volatile uint32_t *lowest = (volatile uint32_t *)addr;
	*lowest = 0x0badf00d;
	lowest[1] = ~*lowest;
	test_value("__stack_bottom word", *lowest);
	test_value("__stack_bottom next word", lowest[1]);
}

int main(void)
{
	memops_test_store_layout();
	memops_test_load_extension();
	memops_test_copies();
	memops_test_mixed_widths();
	memops_test_addresses();
	return test_finish("memops", MEMOPS_EXIT_STATUS);
}
