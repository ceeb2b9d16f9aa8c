/*
 * `perfsweep top`: the campaign monitor.  top_interactive runs the curses
 * main loop over one or more campaign directories; top_snapshot writes the
 * same screen once as plain text (`--once`).  Neither prints to stderr: the
 * caller reports err after the terminal is restored.
 */
#ifndef PS_TUI_TOP_H
#define PS_TUI_TOP_H
#include "common/error.h"
#include <stdio.h>

struct top_options {
	double interval;        /* seconds between refreshes (-d), > 0 */
	int color;              /* 0 with NO_COLOR */
};

int top_interactive(char *const *dirs, int ndirs, const struct top_options *o, struct perr *err);
int top_snapshot(char *const *dirs, int ndirs, int width, int height, FILE *out, struct perr *err);

#endif
