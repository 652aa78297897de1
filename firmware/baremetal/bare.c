/* bare: host calls, output and the memory functions gcc expects. See bare.h. */
#include "bare.h"

#include <stdarg.h>

#define SYS_WRITE 64
#define SYS_EXIT 93
#define BHEMU_CB_CONFIG 0xCB0	/* bhemu's own host call (no Linux number) */

/* Word accesses to memory of any declared type (memcpy, memset). */
typedef uint32_t __attribute__((may_alias)) bare_word;

long bare_write(int fd, const void *buf, size_t len)
{
	register long a0 __asm__("a0") = fd;
	register long a1 __asm__("a1") = (long)buf;
	register long a2 __asm__("a2") = (long)len;
	register long a7 __asm__("a7") = SYS_WRITE;
	__asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
	return a0;
}

void bare_exit(int status)
{
	register long a0 __asm__("a0") = status;
	register long a7 __asm__("a7") = SYS_EXIT;
	__asm__ volatile("ecall" : : "r"(a0), "r"(a7) : "memory");
	for (;;)
		;
}

/* CB set-up of MULTICORE programs (dataflow/cb.h; the weak one in cb.c does nothing): `bhemu
 * run` learns the config block of the CBs in mask. Firmware and kernels do not link this file. */
void cb_config_announce(const volatile uint32_t *config, uint32_t mask);
void cb_config_announce(const volatile uint32_t *config, uint32_t mask)
{
	register long a0 __asm__("a0") = (long)config;
	register long a1 __asm__("a1") = (long)mask;
	register long a7 __asm__("a7") = BHEMU_CB_CONFIG;
	__asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a7) : "memory");
}

/* Output buffer of one bare_printf call. */
struct bare_out {
	char buf[256];
	size_t len;
};

static void out_char(struct bare_out *out, char c)
{
	if (out->len < sizeof(out->buf))
		out->buf[out->len++] = c;
}

/* Digits of value in base 10 or 16, right-aligned in width with pad. */
static void out_number(struct bare_out *out, uint64_t value, unsigned base, int negative,
		       unsigned width, char pad)
{
	char digits[24];
	unsigned n = 0;

	do {
		unsigned d = (unsigned)(value % base);
		digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		value /= base;
	} while (value != 0);
	unsigned len = n + (negative ? 1 : 0);
	if (negative && pad == '0')
		out_char(out, '-');
	for (; width > len; width--)
		out_char(out, pad);
	if (negative && pad != '0')
		out_char(out, '-');
	while (n > 0)
		out_char(out, digits[--n]);
}

static void out_format(struct bare_out *out, const char *fmt, va_list ap)
{
	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%') {
			out_char(out, *fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		unsigned width = 0;
		int is_long_long = 0;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (unsigned)(*fmt++ - '0');
		if (fmt[0] == 'l' && fmt[1] == 'l') {
			is_long_long = 1;
			fmt += 2;
		}
		switch (*fmt) {
		case 's':
			for (const char *s = va_arg(ap, const char *); *s != '\0'; s++)
				out_char(out, *s);
			break;
		case 'c':
			out_char(out, (char)va_arg(ap, int));
			break;
		case 'd': {
			int64_t v = is_long_long ? va_arg(ap, int64_t) : va_arg(ap, int32_t);
			uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
			out_number(out, mag, 10, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			uint64_t v = is_long_long ? va_arg(ap, uint64_t) : va_arg(ap, uint32_t);
			out_number(out, v, *fmt == 'u' ? 10 : 16, 0, width, pad);
			break;
		}
		case '%':
			out_char(out, '%');
			break;
		case '\0':
			return;
		default: /* unknown conversion: show it rather than guess */
			out_char(out, '%');
			out_char(out, *fmt);
			break;
		}
	}
}

void bare_printf(const char *fmt, ...)
{
	struct bare_out out;
	va_list ap;

	out.len = 0;
	va_start(ap, fmt);
	out_format(&out, fmt, ap);
	va_end(ap);
	bare_write(BARE_STDOUT, out.buf, out.len);
}

void bare_putstr(const char *s)
{
	bare_write(BARE_STDOUT, s, strlen(s));
}

void bare_putu(uint32_t value)
{
	bare_printf("%u", value);
}

void bare_puthex(uint32_t value)
{
	bare_printf("%08x", value);
}

void bare_putu64(uint64_t value)
{
	bare_printf("%llu", value);
}

void bare_puthex64(uint64_t value)
{
	bare_printf("%016llx", value);
}

uint32_t bare_fnv1a(uint32_t hash, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 0x01000193u;
	return hash;
}

uint32_t bare_fnv1a_u32(uint32_t hash, uint32_t value)
{
	for (int i = 0; i < 4; i++, value >>= 8)
		hash = (hash ^ (value & 0xff)) * 0x01000193u;
	return hash;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	/* Word copy when both are aligned alike: benchmarks copy arrays. */
	if ((((uintptr_t)d ^ (uintptr_t)s) & 3) == 0) {
		while (n > 0 && ((uintptr_t)d & 3) != 0) {
			*d++ = *s++;
			n--;
		}
		for (; n >= 4; n -= 4, d += 4, s += 4)
			*(bare_word *)d = *(const bare_word *)s;
	}
	while (n-- > 0)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n-- > 0)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n > 0 && ((uintptr_t)d & 3) != 0) {
		*d++ = (uint8_t)c;
		n--;
	}
	uint32_t word = (uint8_t)c * 0x01010101u;
	for (; n >= 4; n -= 4, d += 4)
		*(bare_word *)d = word;
	while (n-- > 0)
		*d++ = (uint8_t)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *p = a, *q = b;

	for (size_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}
