/* Escaping text from input files for a terminal. */
#include "common/display.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 when it is
   not one, -1 when it may be one but is cut off by the end. */
static int utf8_len(const unsigned char *s, size_t n)
{
	int len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!len || s[0] > 0xf4)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	if (s[0] == 0xc2 && s[1] < 0xa0)   /* U+0080..U+009F: the C1 controls */
		return 0;
	return len;
}

/* Escape s[0..n); returns how many bytes were consumed: all but an
   incomplete UTF-8 sequence at the end when partial is set. */
static size_t escape(struct strbuf *sb, const char *s, size_t n, int partial)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			size_t j = i;
			while (j < n && u[j] >= 0x20 && u[j] < 0x7f)
				j++;
			strbuf_add(sb, s + i, j - i);
			i = j;
			continue;
		}
		if (u[i] == '\n' || u[i] == '\t') {
			strbuf_addch(sb, s[i++]);
			continue;
		}
		int len = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 0;
		if (len < 0 && partial)
			break;
		if (len > 0) {
			strbuf_add(sb, s + i, (size_t)len);
			i += (size_t)len;
		} else {
			strbuf_addf(sb, "\\x%02x", u[i]);
			i++;
		}
	}
	return i;
}

void display_escape(struct strbuf *sb, const char *s, size_t n)
{
	escape(sb, s, n, 0);
}

struct dstream {
	FILE *out;
	char carry[4];          /* the start of a UTF-8 sequence cut by the last write */
	size_t ncarry;
};

static ssize_t dstream_write(void *cookie, const char *buf, size_t size)
{
	struct dstream *d = cookie;
	struct strbuf in, sb;
	strbuf_init(&in);
	strbuf_init(&sb);
	strbuf_add(&in, d->carry, d->ncarry);
	strbuf_add(&in, buf, size);
	size_t used = escape(&sb, in.buf, in.len, 1);
	d->ncarry = in.len - used;
	memcpy(d->carry, in.buf + used, d->ncarry);
	size_t w = fwrite(sb.buf, 1, sb.len, d->out);
	int bad = w != sb.len;
	strbuf_release(&in);
	strbuf_release(&sb);
	return bad ? -1 : (ssize_t)size;
}

static int dstream_close(void *cookie)
{
	struct dstream *d = cookie;
	struct strbuf sb;
	strbuf_init(&sb);
	escape(&sb, d->carry, d->ncarry, 0);
	/* out is not flushed: its owner does that, and sees its errors */
	int bad = fwrite(sb.buf, 1, sb.len, d->out) != sb.len;
	strbuf_release(&sb);
	free(d);
	return bad ? -1 : 0;
}

FILE *display_stream(FILE *out)
{
	struct dstream *d = xcalloc(1, sizeof(*d));
	d->out = out;
	cookie_io_functions_t io = { .write = dstream_write, .close = dstream_close };
	FILE *f = fopencookie(d, "w", io);
	if (!f)
		free(d);
	else if (isatty(fileno(out)))   /* a terminal sees each line when it is written */
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
