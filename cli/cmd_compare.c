/*
 * perfsweep compare BASE NEW | NEW --reference FILE [--tolerance 5%]
 * [--alpha 0.01] [--metric M] [--json] [--html FILE]: did NEW get slower
 * than BASE, and did its scaling change?  The statistics live in
 * validator/compare.c, the reports in validator/compare_report.c; this
 * file loads the inputs and picks the exit status (docs/compare.md).
 */
#include "cli/cli.h"
#include "engine/input.h"
#include "validator/compare.h"
#include "validator/compare_report.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --tolerance: "5%" is 0.05, "0.05" too. */
static int check_tolerance(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_fraction(o->arg, &o->d) < 0 || o->d < 0)
		return perr_set(err, "bad --tolerance '%s'; write e.g. 5%% or 0.05", o->arg);
	return 0;
}

static int check_alpha(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || !(o->d > 0 && o->d < 1))
		return perr_set(err, "bad --alpha '%s'; write a number between 0 and 1", o->arg);
	return 0;
}

/* Load one side through the input registry; format "reference" for --reference. */
static int load_side(const char *path, const char *format, const char *metric, struct experiment *e,
		     struct perr *err)
{
	struct input_source src;
	input_source_init(&src);
	int rc = input_load(&src, path, format, metric, e, err);
	input_source_release(&src);
	return rc;
}

static void print_json(const struct compare *c, const char *base, const char *new)
{
	json_t *o = compare_report_json(c, base, new);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	puts(s);
	free(s);
	json_decref(o);
}

static int exec_compare(struct cli_args *a)
{
	const char *ref = cli_value(a, 'r'), *html = cli_value(a, 'H');
	int want = ref ? 1 : 2;
	if (a->nargs != want)
		return cli_usage("compare", a->nargs < want ? "missing %s" : "too many inputs (%s)",
				 ref ? "NEW (with --reference FILE as the base)" : "BASE and NEW");
	const char *base = ref ? ref : a->args[0], *new = a->args[a->nargs - 1];
	struct compare_options opt;
	const struct cli_opt *x;
	compare_options_init(&opt);
	opt.metric = cli_value(a, 'm');
	if ((x = cli_opt(a, 't')))
		opt.tolerance = x->d;
	if ((x = cli_opt(a, 'a')))
		opt.alpha = x->d;
	struct experiment eb, en;
	struct compare c;
	struct perr err;
	int rc;
	experiment_init(&eb);
	experiment_init(&en);
	if (load_side(base, ref ? "reference" : NULL, opt.metric, &eb, &err) < 0 ||
	    load_side(new, NULL, opt.metric, &en, &err) < 0) {
		rc = cli_error(EXIT_USAGE, "%s", err.msg);
	} else if (compare_experiments(&eb, &en, &opt, &c, &err) < 0) {
		rc = cli_error(EXIT_USAGE, "cannot compare '%s' with '%s': %s", new, base, err.msg);
	} else {
		if (cli_flag(a, 'j'))
			print_json(&c, base, new);
		else
			compare_report_text(stdout, &c, base, new);
		if (html && compare_report_html(html, &c, base, new, &err) < 0)
			rc = cli_error(EXIT_USAGE, "%s", err.msg);
		else
			rc = compare_verdict(&c) ? EXIT_BLOCKED : EXIT_OK;
		compare_release(&c);
	}
	experiment_release(&eb);
	experiment_release(&en);
	return rc;
}

static const struct cli_option compare_options[] = {
	{ "tolerance", 't', 1, check_tolerance, NULL },
	{ "alpha", 'a', 1, check_alpha, NULL },
	{ "metric", 'm', 1, NULL, NULL },
	{ "reference", 'r', 1, NULL, NULL },
	{ "html", 'H', 1, NULL, NULL },
	{ "json", 'j', 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

const struct cli_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "compare BASE NEW [--tolerance 5%] [--alpha 0.01] [--metric M] [--json] [--html FILE]\n"
		 "       perfsweep compare NEW --reference FILE [options]",
	.summary = "did NEW get slower than BASE, and did its scaling change?",
	.help = "BASE and NEW are campaign directories, folders of Score-P experiments, Extra-P\n"
		"text/JSON files or saved references (any format of the input registry, as for\n"
		"validate); --reference FILE (written by 'perfsweep export DIR --format\n"
		"reference') takes the place of BASE.\n"
		"Per region, metric and common point: the medians of the repetitions, the change\n"
		"NEW/BASE - 1 (Hodges-Lehmann on log values) with its interval at 1 - alpha, and\n"
		"the two-sided Mann-Whitney p.  A point regressed when p < alpha (per point) and\n"
		"the change exceeds --tolerance (5%, or 0.05); it improved when below -tolerance.\n"
		"Higher is worse for every metric.  Mann-Whitney needs at least 5 + 5 repetitions\n"
		"to reach p < 0.01 (4 + 4 for 0.05); the report marks points that cannot.\n"
		"Per region: both PMNF models, their leading terms, whether the leading term\n"
		"changed or grew, and the predicted ratio NEW/BASE at the largest common point and\n"
		"at twice it.  A grown leading term is a scaling regression when that ratio at 2x\n"
		"exceeds 1 + tolerance and the largest point is significantly slower.\n"
		"--json prints {regressions, improvements, unchanged, models: [{callpath, metric,\n"
		"base, new, leading_term_changed, predicted_ratio, ...}], ...}; --html FILE writes\n"
		"a self-contained page with the tables.\n"
		"\n"
		"exit status: 0 no regression; 3 a regression or a scaling regression; 2 usage or\n"
		"input error.  See docs/compare.md.",
	.options = compare_options,
	.errors = CLI_ERRORS_STRICT,
	.min_args = 1, .max_args = 2, .too_few = "missing BASE and NEW",
	.too_many = "too many inputs ('%s')",
	.exec = exec_compare,
};
