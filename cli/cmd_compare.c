/*
 * perfsweep compare BASE NEW | NEW --reference FILE [--tolerance 5%]
 * [--alpha 0.01] [--metric M] [--json] [--html FILE]: did NEW get slower
 * than BASE, and did its scaling change?  The statistics live in
 * validator/compare.c, the reports in validator/compare_report.c; this
 * file parses, loads and picks the exit status (docs/compare.md).
 */
#include "cli/cli.h"
#include "orchestrator/input.h"
#include "validator/compare.h"
#include "validator/compare_report.h"
#include "validator/reference.h"
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct compare_args {
	const char *base, *new, *reference, *html;
	int json;
	struct compare_options opt;
};

/* "5%" is 0.05, "0.05" too; -1 when it is not a number >= 0. */
static double parse_tolerance(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	return *end ? -1 : v;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	static const struct option opts[] = {
		{ "tolerance", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "metric", required_argument, NULL, 'm' },
		{ "reference", required_argument, NULL, 'r' },
		{ "html", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;
	memset(a, 0, sizeof(*a));
	compare_options_init(&a->opt);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if ((a->opt.tolerance = parse_tolerance(optarg)) < 0)
				return cli_usage("compare", "bad --tolerance '%s'; write e.g. 5%% or 0.05", optarg);
			break;
		case 'a':
			a->opt.alpha = strtod(optarg, &end);
			if (end == optarg || *end || !(a->opt.alpha > 0 && a->opt.alpha < 1))
				return cli_usage("compare", "bad --alpha '%s'; write a number between 0 and 1", optarg);
			break;
		case 'm': a->opt.metric = optarg; break;
		case 'r': a->reference = optarg; break;
		case 'H': a->html = optarg; break;
		case 'j': a->json = 1; break;
		case '?':
			if (optopt)
				return cli_usage("compare", "option '%s' needs a value", argv[optind - 1]);
			/* fallthrough */
		default: return cli_usage("compare", "unknown option '%s'", argv[optind - 1]);
		}
	}
	int want = a->reference ? 1 : 2;
	if (argc - optind != want)
		return cli_usage("compare", argc - optind < want ? "missing %s" : "too many inputs (%s)",
				 a->reference ? "NEW (with --reference FILE as the base)" : "BASE and NEW");
	a->base = a->reference ? a->reference : argv[optind];
	a->new = argv[argc - 1];
	return 0;
}

/* Load one side: a reference file, or anything the input loader reads. */
static int load_side(const char *path, int is_reference, const char *metric, struct experiment *e,
		     struct perr *err)
{
	if (is_reference)
		return reference_read(path, e, err);
	struct input_source src;
	input_source_init(&src);
	int rc = input_load(&src, path, NULL, metric, e, err);
	input_source_release(&src);
	return rc;
}

static void print_json(const struct compare *c, const struct compare_args *a)
{
	json_t *o = compare_report_json(c, a->base, a->new);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	puts(s);
	free(s);
	json_decref(o);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	struct experiment base, new;
	struct compare c;
	struct perr err;
	experiment_init(&base);
	experiment_init(&new);
	memset(&c, 0, sizeof(c));
	if (load_side(a.base, a.reference != NULL, a.opt.metric, &base, &err) < 0 ||
	    load_side(a.new, 0, a.opt.metric, &new, &err) < 0) {
		rc = cli_error(EXIT_USAGE, "%s", err.msg);
	} else if (compare_experiments(&base, &new, &a.opt, &c, &err) < 0) {
		rc = cli_error(EXIT_USAGE, "cannot compare '%s' with '%s': %s", a.new, a.base, err.msg);
	} else {
		if (a.json)
			print_json(&c, &a);
		else
			compare_report_text(stdout, &c, a.base, a.new);
		if (a.html && compare_report_html(a.html, &c, a.base, a.new, &err) < 0)
			rc = cli_error(EXIT_USAGE, "%s", err.msg);
		else
			rc = compare_verdict(&c) ? EXIT_BLOCKED : EXIT_OK;
		compare_release(&c);
	}
	experiment_release(&base);
	experiment_release(&new);
	return rc;
}
