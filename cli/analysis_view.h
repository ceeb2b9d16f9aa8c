/*
 * --min-cpu-share X and --include-disturbed: validate, model and compare's
 * look at a campaign's data under other analysis settings than its own
 * (analysis/run_usage.h, struct run_usage_view).  Nothing is stored; the
 * output says which settings it used, so that a look is never mistaken for
 * the campaign's verdict.  To change the campaign's own settings, edit its
 * config's analysis section and `perfsweep run CONFIG --dir DIR`.
 */
#ifndef PS_CLI_ANALYSIS_VIEW_H
#define PS_CLI_ANALYSIS_VIEW_H
#include "analysis/run_usage.h"
#include "cli/cli.h"
#include <jansson.h>
#include <stdio.h>

enum { OPT_MIN_CPU_SHARE = 0x200, OPT_INCLUDE_DISTURBED };

/* The option rows: a value from 0 to 1, and a flag. */
int analysis_view_check(const struct cli_args *a, struct cli_opt *o, struct perr *err);
#define ANALYSIS_VIEW_OPTIONS \
	{ "min-cpu-share", OPT_MIN_CPU_SHARE, 1, analysis_view_check, NULL, "X", \
	  "judge runs disturbed by X instead of analysis.min_cpu_share", NULL, 0 }, \
	{ "include-disturbed", OPT_INCLUDE_DISTURBED, 0, NULL, NULL, NULL, \
	  "keep disturbed runs in (the disturbed check off)", NULL, 0 }
#define ANALYSIS_VIEW_HELP \
	"--min-cpu-share X (0 to 1) judges a campaign's runs disturbed by X instead of its\n" \
	"analysis.min_cpu_share; --include-disturbed keeps its disturbed runs in (the\n" \
	"disturbed check is then off).  Both are a look at the data: the output says so, and\n" \
	"nothing is stored (edit the config's analysis section and run it to change them).\n"

/* The view the command line asks for into *v: 1 when it asks for one, else 0 (v all zero). */
int analysis_view_from(const struct cli_args *a, struct run_usage_view *v);

/*
 * "analysis view: --min-cpu-share 0 (the campaign's analysis.min_cpu_share
 * is 0.9); a look at the data, nothing is stored" on f, for the view v
 * given (nothing when it asks for nothing); u is the input's run usage
 * (NULL: not a campaign, where the options change nothing).
 */
void analysis_view_note(FILE *f, const struct run_usage_view *v, const struct run_usage *u);
/* The same as a JSON object: {min_cpu_share, campaign_min_cpu_share, include_disturbed, disturbed_included}. */
json_t *analysis_view_json(const struct run_usage_view *v, const struct run_usage *u);

#endif
