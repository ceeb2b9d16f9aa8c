/* perfsweep top: the campaign monitor (tui/), or one plain-text snapshot with --once. */
#include "cli/cli.h"
#include "tui/top.h"
#include <getopt.h>
#include <math.h>
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

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "once", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_options o = { .interval = 1, .color = 1 };
	int once = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			o.interval = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(o.interval) || o.interval < 0.1 ||
			    o.interval > 3600)
				return cli_usage("top", "'-d %s': the delay must be 0.1 to 3600 seconds",
						 optarg);
			break;
		case 'o':
			once = 1;
			break;
		default:
			return cli_usage("top", NULL);
		}
	}
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		o.color = 0;
	char *here[] = { ".", NULL };
	char **dirs = optind < argc ? argv + optind : here;
	int ndirs = optind < argc ? argc - optind : 1;
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
