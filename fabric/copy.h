/* Copies between emulated memories and the host while cores run: relaxed atomics of the widest
 * width both sides allow, so a copy racing a core or a NoC transfer is not a C data race (the
 * memory model of DESIGN.md: every guest-visible byte is accessed atomically). */
#ifndef BH_FABRIC_COPY_H
#define BH_FABRIC_COPY_H

#include <stdint.h>
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#include <immintrin.h>
#define BH_COPY_SSE2 1
#endif

/* Every naturally aligned 4-byte word is copied with one 4-byte access when both sides agree
 * modulo 4, as the NoC moves words (a pointer written this way is never seen torn: the
 * completion-queue write pointer was); eight bytes at a time when they agree modulo 8 (always
 * for L1 <-> L1, which agree modulo 16), four per iteration so that loads and stores pipeline;
 * plain moves on x86, and aligned 16-byte vector moves there when both sides agree modulo 16. */
#ifdef BH_COPY_SSE2
/* Processors with AVX: 32-byte moves, the store aligned and the load 16-byte aligned (the sides
 * agree modulo 16), four per iteration; n a multiple of 128. A 32-byte access is at worst split
 * at an aligned 16-byte boundary (a load crossing a cache line there; the SDM promises atomicity
 * for aligned 16 bytes only), so no aligned 4-byte word is torn. A 16 KiB NoC packet costs about
 * what the host's memcpy does (half the SSE loop's instructions). */
__attribute__((target("avx")))
static inline void bh_copy_avx(uint8_t *dst, const uint8_t *src, uint64_t n)
{
	for (; n; n -= 128, dst += 128, src += 128) {
		const __m256i *s256 = (const __m256i *)src;
		__m256i *d256 = (__m256i *)dst;
		__m256i a = _mm256_loadu_si256(s256), b = _mm256_loadu_si256(s256 + 1);
		__m256i c = _mm256_loadu_si256(s256 + 2), d = _mm256_loadu_si256(s256 + 3);
		_mm256_store_si256(d256, a);
		_mm256_store_si256(d256 + 1, b);
		_mm256_store_si256(d256 + 2, c);
		_mm256_store_si256(d256 + 3, d);
	}
}
#endif

static inline void bh_copy_relaxed(uint8_t *dst, const uint8_t *src, uint64_t len)
{
	uintptr_t mis = (uintptr_t)dst ^ (uintptr_t)src;
	if ((mis & 3) == 0) {
		for (; len && ((uintptr_t)dst & 3); len--)
			__atomic_store_n(dst++, __atomic_load_n(src++, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
		if ((mis & 7) == 0) {
			if (len >= 4 && ((uintptr_t)dst & 7)) {
				__atomic_store_n((uint32_t *)dst, __atomic_load_n((const uint32_t *)src, __ATOMIC_RELAXED),
						 __ATOMIC_RELAXED);
				dst += 4, src += 4, len -= 4;
			}
#ifdef BH_COPY_SSE2
			/* Sides that agree modulo 16 (L1 <-> L1 always do): aligned 16-byte moves, which x86
			 * performs as single accesses (atomic as a whole on processors with AVX, and never
			 * tearing an aligned 8-byte half on any), four per iteration. Not under TSan, which
			 * would see plain vector accesses racing the cores' atomics: it takes the loop below. */
			if ((mis & 15) == 0 && len >= 64) {
				if ((uintptr_t)dst & 8) {
					__atomic_store_n((uint64_t *)dst, __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED),
							 __ATOMIC_RELAXED);
					dst += 8, src += 8, len -= 8;
				}
				if (len >= 256 && __builtin_cpu_supports("avx")) {
					if ((uintptr_t)dst & 16) {
						_mm_store_si128((__m128i *)dst, _mm_load_si128((const __m128i *)src));
						dst += 16, src += 16, len -= 16;
					}
					uint64_t n = len & ~(uint64_t)127;
					bh_copy_avx(dst, src, n);
					dst += n, src += n, len -= n;
				}
				for (; len >= 64; len -= 64, dst += 64, src += 64) {
					const __m128i *s128 = (const __m128i *)src;
					__m128i *d128 = (__m128i *)dst;
					__m128i a = _mm_load_si128(s128), b = _mm_load_si128(s128 + 1);
					__m128i c = _mm_load_si128(s128 + 2), d = _mm_load_si128(s128 + 3);
					_mm_store_si128(d128, a);
					_mm_store_si128(d128 + 1, b);
					_mm_store_si128(d128 + 2, c);
					_mm_store_si128(d128 + 3, d);
				}
			}
#endif
			for (; len >= 32; len -= 32, dst += 32, src += 32) {
				const uint64_t *s64 = (const uint64_t *)src;
				uint64_t *d64 = (uint64_t *)dst;
				uint64_t a = __atomic_load_n(s64, __ATOMIC_RELAXED), b = __atomic_load_n(s64 + 1, __ATOMIC_RELAXED);
				uint64_t c = __atomic_load_n(s64 + 2, __ATOMIC_RELAXED), d = __atomic_load_n(s64 + 3, __ATOMIC_RELAXED);
				__atomic_store_n(d64, a, __ATOMIC_RELAXED);
				__atomic_store_n(d64 + 1, b, __ATOMIC_RELAXED);
				__atomic_store_n(d64 + 2, c, __ATOMIC_RELAXED);
				__atomic_store_n(d64 + 3, d, __ATOMIC_RELAXED);
			}
			for (; len >= 8; len -= 8, dst += 8, src += 8)
				__atomic_store_n((uint64_t *)dst, __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED),
						 __ATOMIC_RELAXED);
		}
		for (; len >= 4; len -= 4, dst += 4, src += 4)
			__atomic_store_n((uint32_t *)dst, __atomic_load_n((const uint32_t *)src, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
	}
	for (; len; len--)
		__atomic_store_n(dst++, __atomic_load_n(src++, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

#endif
