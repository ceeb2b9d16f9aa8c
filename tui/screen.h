/*
 * A screen is a grid of character cells with attributes, drawn by the views
 * (view_*.c) without curses.  tui/term.c copies it to the terminal through
 * curses, which sends only what changed; `--once` writes it as plain text.
 * Cells hold printable ASCII; anything else is shown as '?'.
 */
#ifndef PS_TUI_SCREEN_H
#define PS_TUI_SCREEN_H
#include <stdio.h>

/* Attributes: flags in the low bits, a colour above them. */
enum {
	SA_BOLD = 1,
	SA_REVERSE = 2,
	SA_DIM = 4,
	SA_UNDERLINE = 8,
};
enum screen_color {
	SC_NONE, SC_GREEN, SC_YELLOW, SC_RED, SC_CYAN, SC_MAGENTA, SC_BLUE, SC_NCOLORS
};
#define SA_COLOR(c) ((c) << 4)
#define SA_COLOR_OF(a) (((a) >> 4) & 15)

struct screen {
	int w, h;
	char *ch;               /* w * h cells, row-major */
	unsigned short *attr;
};

void screen_init(struct screen *s, int w, int h);
void screen_release(struct screen *s);
/* Resize (contents are cleared). */
void screen_resize(struct screen *s, int w, int h);
void screen_clear(struct screen *s);
/* Write text at (y, x), clipped to the row and to maxw cells (< 0: no limit).
   Returns the cells written. */
int screen_putn(struct screen *s, int y, int x, const char *text, int maxw, int attr);
int screen_put(struct screen *s, int y, int x, const char *text, int attr);
int screen_printf(struct screen *s, int y, int x, int attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Fill n cells with c. */
void screen_fill(struct screen *s, int y, int x, int n, char c, int attr);
/* One row as text without trailing blanks, into buf (w + 1 bytes). */
void screen_row_text(const struct screen *s, int y, char *buf);
/* Every row as plain text, trailing blank rows dropped. */
void screen_write(const struct screen *s, FILE *f);

#endif
