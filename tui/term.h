/*
 * The terminal, through curses: the only file that includes curses.h.  It
 * copies a struct screen to the terminal (curses sends only the cells that
 * changed, so there is no flicker), reads keys with a timeout, and makes
 * sure the terminal is restored on every way out: normal exit, error,
 * SIGINT/SIGTERM/SIGHUP and fatal signals.  While it draws, stderr is held
 * in a file and printed after the terminal is restored.
 */
#ifndef PS_TUI_TERM_H
#define PS_TUI_TERM_H
#include "common/error.h"
#include "tui/screen.h"

/* Keys beyond plain characters. */
enum {
	TK_NONE = -1,           /* timeout: nothing typed */
	TK_UP = 0x1000, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_ENTER, TK_ESC, TK_BACKSPACE, TK_DELETE, TK_RESIZE, TK_F1, TK_F3, TK_F4, TK_F5, TK_F6,
	TK_F9, TK_F10, TK_TAB, TK_BTAB,
	TK_INTERRUPT,           /* SIGINT, SIGTERM or SIGHUP arrived */
	TK_MAX
};

/* Take over the terminal; color 0 draws without colours (NO_COLOR). */
int term_start(int color, struct perr *err);
/* Give the terminal back; safe to call twice and from atexit. */
void term_stop(void);
void term_size(int *w, int *h);
void term_draw(const struct screen *s);
/* Wait up to timeout_ms for a key; TK_NONE on timeout. */
int term_getkey(int timeout_ms);

#endif
