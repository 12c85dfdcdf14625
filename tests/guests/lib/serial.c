/* 16550 UART on COM1 (0x3f8) output and a small printf. */
#include "guest.h"

#define COM1 0x3f8

void serial_init(void)
{
	outb(COM1 + 1, 0x00);   /* no interrupts */
	outb(COM1 + 3, 0x80);   /* DLAB */
	outb(COM1 + 0, 0x01);   /* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);   /* 8N1 */
	outb(COM1 + 2, 0xc7);   /* FIFO on */
	outb(COM1 + 4, 0x03);
}

void putch(char c)
{
	/* Bounded wait for THR empty (LSR bit 5) so a broken UART cannot hang us. */
	for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		;
	outb(COM1, (uint8_t)c);
}

void gputs(const char *s)
{
	while (*s) {
		if (*s == '\n')
			putch('\r');
		putch(*s++);
	}
}

static void put_num(uint32_t v, unsigned base, int width, char pad, int neg)
{
	char buf[16];
	int n = 0;
	do {
		buf[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		buf[n++] = '-';
	while (n < width--)
		putch(pad);
	while (n)
		putch(buf[--n]);
}

void gvprintf(const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			if (*fmt == '\n')
				putch('\r');
			putch(*fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		int width = 0;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		switch (*fmt) {
		case 'd': {
			int32_t v = va_arg(ap, int32_t);
			put_num(v < 0 ? (uint32_t)-v : (uint32_t)v, 10, width, pad, v < 0);
			break;
		}
		case 'u': put_num(va_arg(ap, uint32_t), 10, width, pad, 0); break;
		case 'x': put_num(va_arg(ap, uint32_t), 16, width, pad, 0); break;
		case 's': gputs(va_arg(ap, const char *)); break;
		case 'c': putch((char)va_arg(ap, int)); break;
		case '%': putch('%'); break;
		default: putch('?'); break;
		}
	}
}

void gprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gvprintf(fmt, ap);
	va_end(ap);
}

void *gmemcpy(void *d, const void *s, uint32_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *gmemset(void *d, int c, uint32_t n)
{
	uint8_t *dp = d;
	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

int gstrncmp(const char *a, const char *b, uint32_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (uint8_t)*a - (uint8_t)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

/* gcc may emit calls to these even when freestanding. */
void *memcpy(void *d, const void *s, uint32_t n);
void *memset(void *d, int c, uint32_t n);
void *memcpy(void *d, const void *s, uint32_t n) { return gmemcpy(d, s, n); }
void *memset(void *d, int c, uint32_t n) { return gmemset(d, c, n); }
