/*
 * A tiny ustar writer for tests and fuzz targets that build .cubex archives
 * in memory (test-only: the reader in collectors/cubex.c never writes).
 */
#ifndef PS_TEST_TAR_BUILD_H
#define PS_TEST_TAR_BUILD_H
#include "common/strbuf.h"
#include <stdio.h>
#include <string.h>

/* Append one regular file member (header, data, padding to 512 bytes). */
static inline void tar_add(struct strbuf *sb, const char *name, const void *data, size_t len)
{
	unsigned char h[512];
	memset(h, 0, sizeof(h));
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011lo", (unsigned long)len & 077777777777UL);   /* 11 octal digits */
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	strbuf_add(sb, (const char *)h, 512);
	strbuf_add(sb, data, len);
	static const char zero[512];
	if (len % 512)
		strbuf_add(sb, zero, 512 - len % 512);
}

/* The two zero blocks that end an archive. */
static inline void tar_end(struct strbuf *sb)
{
	static const char zero[1024];
	strbuf_add(sb, zero, 1024);
}

#endif
