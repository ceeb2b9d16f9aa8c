/* A character-cell screen the views draw into, without curses. */
#include "tui/screen.h"
#include "common/xalloc.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void screen_init(struct screen *s, int w, int h)
{
	s->w = w > 0 ? w : 1;
	s->h = h > 0 ? h : 1;
	s->ch = xmalloc((size_t)s->w * (size_t)s->h);
	s->attr = xmalloc(sizeof(*s->attr) * (size_t)s->w * (size_t)s->h);
	screen_clear(s);
}

void screen_release(struct screen *s)
{
	free(s->ch);
	free(s->attr);
	memset(s, 0, sizeof(*s));
}

void screen_resize(struct screen *s, int w, int h)
{
	screen_release(s);
	screen_init(s, w, h);
}

void screen_clear(struct screen *s)
{
	memset(s->ch, ' ', (size_t)s->w * (size_t)s->h);
	memset(s->attr, 0, sizeof(*s->attr) * (size_t)s->w * (size_t)s->h);
}

int screen_putn(struct screen *s, int y, int x, const char *text, int maxw, int attr)
{
	if (y < 0 || y >= s->h || x >= s->w || !text)
		return 0;
	int n = 0;
	for (const char *p = text; *p; p++) {
		if (maxw >= 0 && n >= maxw)
			break;
		int cx = x + n;
		if (cx >= s->w)
			break;
		n++;
		if (cx < 0)
			continue;
		unsigned char c = (unsigned char)*p;
		if (c == '\t')
			c = ' ';
		if (c < 32 || c > 126)
			c = '?';
		size_t i = (size_t)y * (size_t)s->w + (size_t)cx;
		s->ch[i] = (char)c;
		s->attr[i] = (unsigned short)attr;
	}
	return n;
}

int screen_put(struct screen *s, int y, int x, const char *text, int attr)
{
	return screen_putn(s, y, x, text, -1, attr);
}

int screen_printf(struct screen *s, int y, int x, int attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return screen_put(s, y, x, buf, attr);
}

void screen_fill(struct screen *s, int y, int x, int n, char c, int attr)
{
	if (y < 0 || y >= s->h)
		return;
	for (int i = 0; i < n; i++) {
		int cx = x + i;
		if (cx < 0)
			continue;
		if (cx >= s->w)
			break;
		size_t k = (size_t)y * (size_t)s->w + (size_t)cx;
		s->ch[k] = c;
		s->attr[k] = (unsigned short)attr;
	}
}

void screen_row_text(const struct screen *s, int y, char *buf)
{
	int n = s->w;
	memcpy(buf, s->ch + (size_t)y * (size_t)s->w, (size_t)n);
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

void screen_write(const struct screen *s, FILE *f)
{
	char *buf = xmalloc((size_t)s->w + 1);
	int last = s->h - 1;
	for (; last >= 0; last--) {
		screen_row_text(s, last, buf);
		if (buf[0])
			break;
	}
	for (int y = 0; y <= last; y++) {
		screen_row_text(s, y, buf);
		fprintf(f, "%s\n", buf);
	}
	free(buf);
}
