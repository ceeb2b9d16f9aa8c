/* The archive layer of the CUBE4 reader: gzip/zlib inflation and the tar member index. */
#include "collectors/cubex_tar.h"
#include "common/xalloc.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---------- gzip (whole archive or anchor.xml) ---------- */

/* Inflate a gzip or zlib stream of unknown output size (cubex_tar.h). */
int cubex_inflate(const unsigned char *in, size_t inlen, int gzip, unsigned char **out, size_t *outlen,
		  size_t limit)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
		return -1;
	size_t cap = inlen * 4 + 1024, n = 0;
	unsigned char *buf = xmalloc(cap);
	int rc;
	size_t consumed = 0;
	do {
		if (n == cap) {
			if (cap >= limit) {
				rc = Z_MEM_ERROR;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t chunk_in = inlen - consumed;
		zs.next_in = (unsigned char *)in + consumed;
		zs.avail_in = chunk_in > UINT_MAX ? UINT_MAX : (unsigned)chunk_in;
		size_t room = cap - n;
		zs.next_out = buf + n;
		zs.avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
		unsigned ai = zs.avail_in, ao = zs.avail_out;
		rc = inflate(&zs, Z_NO_FLUSH);
		consumed += ai - zs.avail_in;
		n += ao - zs.avail_out;
		if (rc == Z_BUF_ERROR && zs.avail_out != 0)
			break;  /* truncated input */
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

/* ---------- tar ---------- */

static int tar_octal(const unsigned char *p, size_t n, size_t *v)
{
	if (p[0] & 0x80) {      /* GNU base-256 */
		size_t r = 0;
		for (size_t i = 1; i < n; i++) {
			if (r > (SIZE_MAX >> 8))
				return -1;
			r = (r << 8) | p[i];
		}
		*v = r;
		return 0;
	}
	size_t i = 0, r = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\0'))
		i++;
	int digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
		if (r > (SIZE_MAX >> 3))
			return -1;
		r = (r << 3) | (size_t)(p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	*v = r;
	return 0;
}

static int tar_checksum_ok(const unsigned char *h)
{
	size_t want;
	if (tar_octal(h + 148, 8, &want) < 0)
		return 0;
	unsigned long s = 0;
	long ss = 0;
	for (int i = 0; i < 512; i++) {
		unsigned char ch = (i >= 148 && i < 156) ? ' ' : h[i];
		s += ch;
		ss += (signed char)ch;
	}
	return want == s || (long)want == ss;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Value of "path=" in a pax extended header, or NULL. */
static char *pax_path(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9' && len < n)
			len = len * 10 + (size_t)(p[j++] - '0');
		if (len == 0 || j >= n || p[j] != ' ' || len > n - i)
			return NULL;
		const char *kv = (const char *)p + j + 1;
		size_t kvlen = i + len - (j + 1);
		if (kvlen > 5 && !memcmp(kv, "path=", 5)) {
			size_t vlen = kvlen - 5;
			if (vlen && kv[5 + vlen - 1] == '\n')
				vlen--;
			return xstrndup(kv + 5, vlen);
		}
		i += len;
	}
	return NULL;
}

int cubex_tar_index(struct cubex *c, struct perr *err)
{
	const unsigned char *b = c->buf;
	size_t len = c->len, off = 0;
	size_t alloc = 0;
	char *longname = NULL;
	int first = 1;
	while (off + 512 <= len) {
		const unsigned char *h = b + off;
		if (all_zero(h, 512))
			break;
		int magic = !memcmp(h + 257, "ustar", 5);
		/* a bad checksum is tolerated with the ustar magic (CubeLib 4.8 wrote such files) */
		if (!tar_checksum_ok(h) && !magic) {
			free(longname);
			if (first)
				return perr_set(err, "%s: not a tar archive (bad header checksum)", c->path);
			return perr_set(err, "%s: corrupt tar header at byte %zu", c->path, off);
		}
		first = 0;
		size_t size;
		if (tar_octal(h + 124, 12, &size) < 0) {
			free(longname);
			return perr_set(err, "%s: corrupt tar header at byte %zu (size field)", c->path, off);
		}
		size_t data = off + 512;
		if (size > len - data) {
			free(longname);
			return perr_set(err, "%s: truncated tar archive (member at byte %zu needs %zu bytes, %zu left)",
					c->path, off, size, len - data);
		}
		char type = (char)h[156];
		if (type == 'L') {              /* GNU long name for the next member */
			free(longname);
			longname = xstrndup((const char *)b + data, size);
		} else if (type == 'x') {       /* pax header */
			free(longname);
			longname = pax_path(b + data, size);
		} else if (type == '0' || type == '\0' || type == '7') {
			char *name;
			if (longname) {
				name = longname;
				longname = NULL;
			} else {
				char nm[101], pre[156];
				memcpy(nm, h, 100);
				nm[100] = '\0';
				pre[0] = '\0';
				if (magic) {
					memcpy(pre, h + 345, 155);
					pre[155] = '\0';
				}
				name = pre[0] ? xasprintf("%s/%s", pre, nm) : xstrdup(nm);
			}
			const char *base = name;
			while (!strncmp(base, "./", 2))
				base += 2;
			XGROW(c->members, (size_t)c->nmembers + 1, alloc);
			c->members[c->nmembers].name = xstrdup(base);
			c->members[c->nmembers].off = data;
			c->members[c->nmembers].size = size;
			c->nmembers++;
			free(name);
		} else {
			free(longname);
			longname = NULL;
		}
		size_t padded = (size + 511) / 512 * 512;
		if (padded > len - data)
			break;
		off = data + padded;
	}
	free(longname);
	if (c->nmembers == 0)
		return perr_set(err, "%s: not a tar archive (no members)", c->path);
	return 0;
}

const struct cubex_member *cubex_member(const struct cubex *c, const char *name)
{
	for (int i = c->nmembers - 1; i >= 0; i--)
		if (!strcmp(c->members[i].name, name))
			return &c->members[i];
	return NULL;
}
