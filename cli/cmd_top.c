/* perfsweep top: the campaign monitor (tui/), or one plain-text snapshot with --once. */
#include "cli/cli.h"
#include "tui/top.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Snapshot size: $COLUMNS/$LINES, else the terminal's, else 80x24. */
static void snapshot_size(int *w, int *h)
{
	struct winsize ws;
	*w = 80;
	*h = 24;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col &&
	    ws.ws_row) {
		*w = ws.ws_col;
		*h = ws.ws_row;
	}
	const char *c = getenv("COLUMNS"), *l = getenv("LINES");
	if (c && atoi(c) >= 20 && atoi(c) <= 1000)
		*w = atoi(c);
	if (l && atoi(l) >= 8 && atoi(l) <= 10000)
		*h = atoi(l);
}

static int check_delay(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d < 0.1 || o->d > 3600)
		return perr_set(err, "'-d %s': the delay must be 0.1 to 3600 seconds", o->arg);
	return 0;
}

static int exec_top(struct cli_args *a)
{
	struct top_options o = { .interval = 1, .color = 1 };
	const struct cli_opt *d = cli_opt(a, 'd');
	int once = cli_flag(a, 'o') > 0;
	if (d)
		o.interval = d->d;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		o.color = 0;
	char *here[] = { ".", NULL };
	char **dirs = a->nargs ? a->args : here;
	int ndirs = a->nargs ? a->nargs : 1;
	struct perr err;
	if (once) {
		int w, h;
		snapshot_size(&w, &h);
		if (top_snapshot(dirs, ndirs, w, h, stdout, &err) < 0)
			return cli_error(EXIT_USAGE, "%s", err.msg);
		return EXIT_OK;
	}
	if (top_interactive(dirs, ndirs, &o, &err) < 0)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	return EXIT_OK;
}

static const struct cli_option top_options[] = {
	{ "delay", 'd', 1, check_delay, NULL, "SECONDS", "refresh interval (default 1)", NULL, 0 },
	{ "once", 'o', 0, NULL, NULL, NULL, "print one plain-text snapshot of the screen and exit", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_top_entry = {
	.name = "top",
	.synopsis = "[CAMPAIGN_DIR ...]",
	.summary = "monitor campaigns: progress, budget, runs, flags; cancel and retry",
	.help = "Shows each campaign's progress against its plan and budget, its runs (sort,\n"
		"filter with a regex or param=value), a run's argv, binding, history and output,\n"
		"and noise flags.  Keys: ? help, / filter, < > sort, Enter details, Space mark,\n"
		"c cancel, r retry, v validate, Tab next campaign, q quit.\n"
		"--once takes its size from $COLUMNS and $LINES, else the terminal, else 80x24.\n"
		"NO_COLOR set and not empty turns colours off.  See docs/top.md.",
	.options = top_options,
	.shortopts = "d:",
	.min_args = 0, .max_args = -1,
	.exec = exec_top,
};
