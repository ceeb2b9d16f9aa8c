/* The terminal through curses: draw a screen, read keys, always restore. */
#include "tui/term.h"
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int active, use_color, atexit_done;
static int saved_stderr = -1;
static FILE *held_stderr;       /* what libraries wrote to stderr while curses drew */
static volatile sig_atomic_t interrupted;
static struct sigaction old_int, old_term, old_hup, old_segv, old_abrt, old_bus, old_fpe;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* A crash: restore the terminal and stderr, then die of the same signal. */
static void on_fatal(int sig)
{
	if (active) {
		endwin();
		active = 0;
	}
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Nothing may reach the terminal behind curses' back: while the monitor
 * draws, stderr goes to an anonymous file (libslurm, for one, logs there);
 * term_stop prints what it caught once the screen is restored.
 */
static void hold_stderr(void)
{
	fflush(stderr);
	held_stderr = tmpfile();
	saved_stderr = held_stderr ? dup(STDERR_FILENO) : -1;
	if (saved_stderr < 0 || dup2(fileno(held_stderr), STDERR_FILENO) < 0) {
		if (saved_stderr >= 0)
			close(saved_stderr);
		if (held_stderr)
			fclose(held_stderr);
		held_stderr = NULL;
		saved_stderr = -1;
	}
}

static void release_stderr(void)
{
	if (saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	char buf[4096];
	size_t n;
	rewind(held_stderr);
	while ((n = fread(buf, 1, sizeof(buf), held_stderr)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(held_stderr);
	held_stderr = NULL;
}

void term_stop(void)
{
	if (!active)
		return;
	curs_set(1);
	endwin();
	active = 0;
	release_stderr();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGABRT, &old_abrt, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGFPE, &old_fpe, NULL);
}

static void atexit_stop(void)
{
	term_stop();
}

int term_start(int color, struct perr *err)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return perr_set(err, "the monitor needs a terminal (use --once for a snapshot)");
	const char *t = getenv("TERM");
	if (!t || !*t)
		return perr_set(err, "TERM is not set (use --once for a snapshot)");
	if (!newterm(NULL, stdout, stdin))
		return perr_set(err, "cannot initialise terminal '%s'", t);
	active = 1;
	hold_stderr();
	if (!atexit_done) {
		atexit(atexit_stop);
		atexit_done = 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = on_fatal;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGABRT, &sa, &old_abrt);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGFPE, &sa, &old_fpe);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	leaveok(stdscr, TRUE);
	use_color = 0;
	if (color && has_colors() && start_color() == OK) {
		use_default_colors();
		static const short fg[SC_NCOLORS] = { -1, COLOR_GREEN, COLOR_YELLOW, COLOR_RED,
						      COLOR_CYAN, COLOR_MAGENTA, COLOR_BLUE };
		for (short c = 1; c < SC_NCOLORS; c++)
			init_pair(c, fg[c], -1);
		use_color = 1;
	}
	return 0;
}

void term_size(int *w, int *h)
{
	int y, x;
	getmaxyx(stdscr, y, x);
	*w = x;
	*h = y;
}

static attr_t map_attr(int a)
{
	attr_t r = A_NORMAL;
	if (a & SA_BOLD)
		r |= A_BOLD;
	if (a & SA_REVERSE)
		r |= A_REVERSE;
	if (a & SA_DIM)
		r |= A_DIM;
	if (a & SA_UNDERLINE)
		r |= A_UNDERLINE;
	if (use_color && SA_COLOR_OF(a))
		r |= COLOR_PAIR(SA_COLOR_OF(a));
	return r;
}

void term_draw(const struct screen *s)
{
	int w, h;
	term_size(&w, &h);
	if (w > s->w)
		w = s->w;
	if (h > s->h)
		h = s->h;
	for (int y = 0; y < h; y++) {
		const char *ch = s->ch + (size_t)y * (size_t)s->w;
		const unsigned short *at = s->attr + (size_t)y * (size_t)s->w;
		int x = 0;
		while (x < w) {
			int e = x + 1;
			while (e < w && at[e] == at[x])
				e++;
			/* the bottom-right cell would scroll: leave it out */
			if (y == h - 1 && e == w)
				e--;
			if (e > x) {
				attrset(map_attr(at[x]));
				mvaddnstr(y, x, ch + x, e - x);
			}
			if (e <= x)
				break;
			x = e;
		}
	}
	attrset(A_NORMAL);
	wnoutrefresh(stdscr);
	doupdate();
}

int term_getkey(int timeout_ms)
{
	if (interrupted)
		return TK_INTERRUPT;
	timeout(timeout_ms);
	int c = getch();
	if (interrupted)
		return TK_INTERRUPT;
	switch (c) {
	case ERR: return TK_NONE;
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_HOME: return TK_HOME;
	case KEY_END: return TK_END;
	case KEY_ENTER: case '\n': case '\r': return TK_ENTER;
	case 27: return TK_ESC;
	case KEY_BACKSPACE: case 127: case 8: return TK_BACKSPACE;
	case KEY_DC: return TK_DELETE;
	case KEY_RESIZE: return TK_RESIZE;
	case KEY_F(1): return TK_F1;
	case KEY_F(3): return TK_F3;
	case KEY_F(4): return TK_F4;
	case KEY_F(5): return TK_F5;
	case KEY_F(6): return TK_F6;
	case KEY_F(9): return TK_F9;
	case KEY_F(10): return TK_F10;
	case '\t': return TK_TAB;
	case KEY_BTAB: return TK_BTAB;
	default: return c >= 0 && c < 256 ? c : TK_NONE;
	}
}
