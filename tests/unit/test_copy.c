/* fabric/copy.h: the relaxed atomic copy every host, NoC and DRAM transfer uses. Exact bytes for
 * every alignment and length, nothing outside touched, and an aligned 4-byte word is never seen
 * torn by a reader on another thread (the completion-queue write pointer once was). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <string.h>

#include "fabric/copy.h"

Test(copy, every_alignment_and_length_copies_exactly_and_nothing_else)
{
	/* 32-byte aligned, so that the offsets below give every agreement modulo 16 and both halves
	 * of a 32-byte line (the vector paths of copies that agree modulo 16 and move 64, and with AVX
	 * 256, bytes or more included). */
	_Alignas(32) uint8_t src[352], dst[352], want[352];
	for (unsigned k = 0; k < sizeof src; k++)
		src[k] = (uint8_t)(k * 37 + 11);
	for (unsigned so = 0; so < 16; so++)
		for (unsigned d = 0; d < 16; d++)
			for (unsigned len = 0; len <= 320; len += len < 80 ? 1 : 7) {
				memset(dst, 0xEE, sizeof dst);
				memset(want, 0xEE, sizeof want);
				memcpy(want + d, src + so, len);
				bh_copy_relaxed(dst + d, src + so, len);
				cr_assert_eq(memcmp(dst, want, sizeof dst), 0, "src +%u, dst +%u, %u bytes", so, d, len);
			}
}

static _Alignas(8) uint8_t word_buf[16];
static atomic_bool stop;

static void *writer(void *arg)
{
	(void)arg;
	static const _Alignas(8) uint8_t ones[16] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
						      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	static const _Alignas(8) uint8_t zeros[16];
	for (unsigned i = 0; !atomic_load(&stop); i++)
		bh_copy_relaxed(word_buf + 4, (i & 1 ? ones : zeros) + 4, 4);
	return NULL;
}

Test(copy, an_aligned_word_is_never_seen_torn)
{
	pthread_t t;
	atomic_store(&stop, false);
	pthread_create(&t, NULL, writer, NULL);
	unsigned torn = 0;
	for (unsigned k = 0; k < 2000000; k++) {
		uint32_t v = __atomic_load_n((uint32_t *)(word_buf + 4), __ATOMIC_RELAXED);
		torn += v != 0 && v != 0xFFFFFFFFu;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	cr_expect_eq(torn, 0, "%u reads saw a word half written", torn);
}

/* Blocks of 64 bytes and more whose sides agree modulo 16 take the widest moves: no reader sees
 * any aligned word of them torn either. */
static _Alignas(32) uint8_t block_buf[640];

static void *block_writer(void *arg)
{
	(void)arg;
	static _Alignas(32) uint8_t ones[640], zeros[640];
	memset(ones, 0xFF, sizeof ones);
	for (unsigned i = 0; !atomic_load(&stop); i++)   /* source 16 modulo 32: the loads cross 32-byte lines */
		bh_copy_relaxed(block_buf + 16, (i & 1 ? ones : zeros) + 16, 592);
	return NULL;
}

Test(copy, no_aligned_word_of_a_wide_block_copy_is_seen_torn)
{
	pthread_t t;
	atomic_store(&stop, false);
	pthread_create(&t, NULL, block_writer, NULL);
	unsigned torn = 0;
	for (unsigned k = 0; k < 50000; k++)
		for (unsigned w = 16; w < 608; w += 4) {
			uint32_t v = __atomic_load_n((uint32_t *)(block_buf + w), __ATOMIC_RELAXED);
			torn += v != 0 && v != 0xFFFFFFFFu;
		}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	cr_expect_eq(torn, 0, "%u reads saw a word half written", torn);
}
