/* bare: the tiny runtime of bhemu bare-metal test and benchmark programs.
 * Host calls use the RISC-V Linux ecall convention, so programs run unchanged on
 * bhemu and under qemu-riscv32. */
#ifndef BHEMU_BARE_H
#define BHEMU_BARE_H

#include <stddef.h>
#include <stdint.h>

#define BARE_STDOUT 1
#define BARE_STDERR 2

/* Host calls. */
long bare_write(int fd, const void *buf, size_t len);
__attribute__((noreturn)) void bare_exit(int status);

/* Output on stdout; each call is one write. */
void bare_putstr(const char *s);
void bare_putu(uint32_t value);			/* unsigned decimal */
void bare_puthex(uint32_t value);		/* exactly 8 lower-case hex digits */
void bare_putu64(uint64_t value);
void bare_puthex64(uint64_t value);		/* exactly 16 hex digits */

/* A small printf for stdout: %s %c %d %u %x (32-bit), %lld %llu %llx (64-bit), %%,
 * each with an optional '0' flag and width ("%08x"). The formatted text (at most
 * 256 bytes; longer is cut) is one write. No format attribute: on riscv-elf
 * int32_t is long, and %x of a uint32_t is exactly what callers mean. */
void bare_printf(const char *fmt, ...);

/* FNV-1a over bytes, for digests that both hosts must agree on. */
#define BARE_FNV_INIT 0x811c9dc5u
uint32_t bare_fnv1a(uint32_t hash, const void *buf, size_t len);
uint32_t bare_fnv1a_u32(uint32_t hash, uint32_t value);

/* gcc emits calls to these even with -fno-builtin (struct copies, loops it recognises). */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

#endif
