/*
 * perfsweep validate INPUT [--deps FILE] [--json] [--html FILE] [--strict]:
 * run the validator's checks on a campaign or an Extra-P input and print
 * the validity report.  Exit 0 publishable, 3 blocked, 2 input error.
 */
#include "collectors/extrap_text.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include "cli/cli.h"
#include "orchestrator/input.h"
#include "validator/report.h"
#include "validator/validate.h"
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static double parse_double(const char *s, int *bad)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || *end || !isfinite(x))
		*bad = 1;
	return x;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "deps", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "strict", no_argument, NULL, 's' },
		{ "metric", required_argument, NULL, 'm' },
		{ "cov", required_argument, NULL, 'c' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-growth", required_argument, NULL, 'g' },
		{ "format", required_argument, NULL, 'f' },
		{ "aggregate", required_argument, NULL, 'A' },
		{ "selection", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *deps_path = NULL, *html = NULL, *format = NULL;
	int json = 0;
	struct validate_options vo;
	validate_options_init(&vo);
	optind = 1;
	opterr = 0;
	int c, bad = 0, agg_set = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'd': deps_path = optarg; break;
		case 'j': json = 1; break;
		case 'H': html = optarg; break;
		case 's': vo.strict = 1; break;
		case 'm': vo.metric = optarg; break;
		case 'f': format = optarg; break;
		case 'c':
			vo.cov_threshold = parse_double(optarg, &bad);
			if (bad || vo.cov_threshold <= 0)
				return cli_usage("validate", "--cov wants a positive number, not '%s'", optarg);
			break;
		case 'a':
			vo.alpha = parse_double(optarg, &bad);
			if (bad || vo.alpha <= 0 || vo.alpha >= 1)
				return cli_usage("validate", "--alpha wants a number in (0, 1), not '%s'", optarg);
			break;
		case 'g':
			vo.min_growth = parse_double(optarg, &bad);
			if (bad || vo.min_growth < 0)
				return cli_usage("validate", "--min-growth wants a number >= 0, not '%s'", optarg);
			break;
		case 'A':
			if (model_aggregate_parse(optarg, &vo.model.aggregate) < 0)
				return cli_usage("validate", "--aggregate wants mean, median or min, not '%s'", optarg);
			agg_set = 1;
			break;
		case 'S':
			if (model_selection_parse(optarg, &vo.model.selection) < 0)
				return cli_usage("validate", "--selection wants robust or extrap, not '%s'", optarg);
			break;
		case ':':
			return cli_usage("validate", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage("validate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage("validate", optind >= argc ? "no INPUT given" : "more than one INPUT given");
	const char *input = argv[optind];

	struct perr err = { "" };
	struct experiment e;
	experiment_init(&e);
	struct deps d;
	memset(&d, 0, sizeof(d));
	int have_deps = 0, rc = EXIT_USAGE;
	const struct dep_function **funcs = NULL;
	struct validation v;
	memset(&v, 0, sizeof(v));
	struct region_match match;
	memset(&match, 0, sizeof(match));
	struct input_source src;
	input_source_init(&src);

	if (input_load(&src, input, format, vo.metric, &e, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (!agg_set && src.aggregate)
		model_aggregate_parse(src.aggregate, &vo.model.aggregate);   /* analysis.aggregate */
	if (e.npoints == 0 || e.nseries == 0) {
		cli_error(EXIT_USAGE, "no measurements in '%s'", input);
		goto out;
	}
	if (deps_path) {
		if (deps_read(&d, deps_path, &err) < 0) {
			cli_error(EXIT_USAGE, "%s", err.msg);
			goto out;
		}
		have_deps = 1;
		funcs = xcalloc((size_t)e.ncallpaths, sizeof(*funcs));
		if (input_match_regions(&e, &d, funcs, &match, &err) < 0) {
			cli_error(EXIT_USAGE, "%s", err.msg);
			goto out;
		}
	}
	struct validate_input in = {
		.e = &e, .deps = have_deps ? &d : NULL, .funcs = funcs,
		.expect = validate_expect_expr, .expect_ctx = NULL,
	};
	if (validate_run(&v, &in, &vo, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (json) {
		json_t *j = report_json(&v);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		report_text(stdout, &v);
		if (have_deps && match.nunmatched_regions) {
			printf("note: %d region%s without dependency information (not checked for false "
			       "dependencies):", match.nunmatched_regions,
			       match.nunmatched_regions == 1 ? "" : "s");
			for (int i = 0; i < match.nunmatched_regions; i++)
				printf("%s %s", i ? "," : "", match.unmatched_regions[i]);
			putchar('\n');
		}
	}
	if (html) {
		struct report_context rc_ctx;
		report_context_init(&rc_ctx);
		rc_ctx.title = src.title ? src.title : input;
		rc_ctx.input = input;
		rc_ctx.deps_path = deps_path;
		rc_ctx.placements = src.placements;
		rc_ctx.core_hours_planned = src.core_hours_planned;
		rc_ctx.core_hours_spent = src.core_hours_spent;
		rc_ctx.budget_core_hours = src.budget_core_hours;
		rc_ctx.gnuplot = getenv("PERFSWEEP_GNUPLOT");
		if (report_html(html, &v, &rc_ctx, &err) < 0) {
			cli_error(EXIT_USAGE, "%s", err.msg);
			goto out;
		}
	}
	rc = validation_publishable(&v) ? EXIT_OK : EXIT_BLOCKED;
out:
	validation_release(&v);
	free(funcs);
	if (have_deps) {
		region_match_release(&match);
		deps_release(&d);
	}
	input_source_release(&src);
	experiment_release(&e);
	return rc;
}
