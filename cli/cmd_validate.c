/*
 * perfsweep validate INPUT [--deps FILE] [--json] [--html FILE] [--strict]:
 * run the engine's campaign_validate on a campaign (with its own dependency
 * file unless --deps is given) or another input and print the validity
 * report.  Exit 0 publishable, 3 blocked, 2 input
 * error.
 */
#include "cli/analysis_view.h"
#include "cli/cli.h"
#include "analysis/validation.h"
#include "validator/report.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_cov(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d <= 0)
		return perr_set(err, "--cov wants a positive number, not '%s'", o->arg);
	return 0;
}

static int check_alpha(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d <= 0 || o->d >= 1)
		return perr_set(err, "--alpha wants a number in (0, 1), not '%s'", o->arg);
	return 0;
}

/* --aggregate and --selection: a name from the models' tables, stored in o->i. */
static int check_model_choice(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	enum model_aggregate g;
	enum model_selection sel;
	int agg = o->key == 'A';
	if (agg ? model_aggregate_parse(o->arg, &g) < 0 : model_selection_parse(o->arg, &sel) < 0)
		return perr_set(err, agg ? "--aggregate wants mean, median or min, not '%s'"
				     : "--selection wants robust or extrap, not '%s'", o->arg);
	o->i = agg ? (int)g : (int)sel;
	return 0;
}

static int check_growth(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d < 0)
		return perr_set(err, "--min-growth wants a number >= 0, not '%s'", o->arg);
	return 0;
}

/* --max-detectable PCT: "50%" or the fraction 0.5, stored as the fraction in o->d. */
static int check_detectable(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_fraction(o->arg, &o->d) < 0 || !(o->d > 0))
		return perr_set(err, "--max-detectable wants a growth above 0 (50%% or 0.5), not '%s'", o->arg);
	return 0;
}

/* The options as the engine takes them (the view's storage is the caller's). */
static void engine_options(const struct cli_args *a, struct campaign_validation_options *o,
			   struct run_usage_view *view)
{
	const struct cli_opt *x;
	memset(o, 0, sizeof(*o));
	if (analysis_view_from(a, view))
		o->view = view;
	validate_options_init(&o->vo);
	o->format = cli_value(a, 'f');
	o->deps_path = cli_value(a, 'd');
	o->campaign_deps = 1;           /* without --deps: the campaign's own */
	o->vo.metric = cli_value(a, 'm');
	o->vo.strict = cli_flag(a, 's') > 0;
	o->include_retired = cli_flag(a, 'R') > 0;
	if ((x = cli_opt(a, 'c')))
		o->vo.cov_threshold = x->d;
	if ((x = cli_opt(a, 'a')))
		o->vo.alpha = x->d;
	if ((x = cli_opt(a, 'g')))
		o->vo.min_growth = x->d;
	if ((x = cli_opt(a, 'D')))
		o->vo.max_detectable = x->d;
	if ((x = cli_opt(a, 'A'))) {
		o->vo.model.aggregate = (enum model_aggregate)x->i;
		o->aggregate_set = 1;
	}
	if ((x = cli_opt(a, 'S')))
		o->vo.model.selection = (enum model_selection)x->i;
}

static void print_text(const struct campaign_validation *c)
{
	report_text(stdout, &c->v);
	const struct region_match *m = &c->in.match;
	if (!c->in.have_deps || !m->nunmatched_regions)
		return;
	printf("note: %d region%s without dependency information (not checked for false "
	       "dependencies):", m->nunmatched_regions, m->nunmatched_regions == 1 ? "" : "s");
	for (int i = 0; i < m->nunmatched_regions; i++)
		printf("%s %s", i ? "," : "", m->unmatched_regions[i]);
	putchar('\n');
}

static int write_html(const struct campaign_validation *c, const char *html, const char *input,
		      const char *deps_path, struct perr *err)
{
	struct report_context ctx;
	report_context_init(&ctx);
	ctx.title = c->in.src.title ? c->in.src.title : input;
	ctx.input = input;
	ctx.deps_path = deps_path;
	ctx.placements = c->in.src.placements;
	ctx.core_hours_planned = c->in.src.core_hours_planned;
	ctx.core_hours_spent = c->in.src.core_hours_spent;
	ctx.budget_core_hours = c->in.src.budget_core_hours;
	ctx.resources = c->in.src.usage ? c->in.src.usage->table : NULL;
	ctx.gnuplot = getenv("PERFSWEEP_GNUPLOT");
	return report_html(html, &c->v, &ctx, err);
}

static int exec_validate(struct cli_args *a)
{
	const char *input = a->args[0], *html = cli_value(a, 'H');
	struct campaign_validation_options o;
	struct campaign_validation c;
	struct run_usage_view view;
	struct perr err = { 0 };
	int rc = EXIT_USAGE;
	engine_options(a, &o, &view);
	if (campaign_validate(&c, input, &o, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (!c.validated) {
		cli_error(EXIT_USAGE, "no measurements in '%s'", input);
		goto out;
	}
	if (cli_flag(a, 'j')) {
		json_t *j = report_json(&c.v);
		if (o.view)
			json_object_set_new(j, "analysis_view", analysis_view_json(&view, c.in.src.usage));
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		cli_display_stdout();
		analysis_view_note(stdout, &view, c.in.src.usage);
		print_text(&c);
	}
	if (html && write_html(&c, html, input, c.in.deps_path, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	rc = validation_publishable(&c.v) ? EXIT_OK : EXIT_BLOCKED;
out:
	campaign_validation_release(&c);
	return rc;
}

static const struct cli_option validate_options[] = {
	{ "deps", 'd', 1, NULL, NULL, "FILE", "the dependency file (default: a campaign's own)", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print the stable JSON contract", NULL, 0 },
	{ "html", 'H', 1, NULL, NULL, "FILE", "also write a self-contained report with plots", NULL, 0 },
	{ "strict", 's', 0, NULL, NULL, NULL, "false dependencies and volume findings block too", NULL, 0 },
	{ "metric", 'm', 1, NULL, NULL, "M", "check this metric only", NULL, 0 },
	{ "cov", 'c', 1, check_cov, NULL, "T", "noise threshold, coefficient of variation (default 0.1)", NULL, 0 },
	{ "alpha", 'a', 1, check_alpha, NULL, "A", "significance level (default 0.01)", NULL, 0 },
	{ "min-growth", 'g', 1, check_growth, NULL, "G", "the smallest growth that counts (default 0.05)", NULL, 0 },
	{ "max-detectable", 'D', 1, check_detectable, NULL, "PCT", "not testable above this detectable growth (default 50%)", NULL, 0 },
	{ "format", 'f', 1, NULL, NULL, "F", "campaign|scorep|text|json|jsonl instead of the detected format", NULL, 0 },
	{ "aggregate", 'A', 1, check_model_choice, NULL, "mean|median|min", "each point's estimate of its repetitions", NULL, 0 },
	{ "selection", 'S', 1, check_model_choice, NULL, "robust|extrap", "how the model is chosen (default robust)", NULL, 0 },
	{ "include-retired", 'R', 0, NULL, NULL, NULL, "keep the runs that left the plan", NULL, 0 },
	ANALYSIS_VIEW_OPTIONS,
	{ 0 },
};

const struct cli_entry cmd_validate_entry = {
	.name = "validate",
	.synopsis = "INPUT",
	.summary = "check measurements for noise, false dependencies, contention and regime changes",
	.help = "INPUT is a campaign directory, a folder of Score-P experiment directories\n"
		"(lulesh.p64.size30.r1/profile.cubex), or an Extra-P text, JSON (.json) or JSON-lines\n"
		"(.jsonl) file; --format campaign|scorep|text|json|jsonl overrides the detection.\n"
		"--deps FILE is the dependency file; a campaign's own (its config's dependencies)\n"
		"is used without it, and a missing one is an error.\n"
		"Per region (call path) and metric it checks:\n"
		"  noise             CoV of each point's repetitions (outliers left out: notes,\n"
		"                    never blocking) significantly above --cov (0.1); a region\n"
		"                    with more than half its points noisy is unreliable: reported,\n"
		"                    not modelled\n"
		"  false-dependency  the black-box model uses a parameter that the region's\n"
		"                    dependencies exclude, changing it by --min-growth\n"
		"                    or more; the cause is contention, speedup or noise\n"
		"  contention        measurements grow with ranks_per_node, or with a parameter\n"
		"                    the dependencies exclude, by at least --min-growth (0.05) and\n"
		"                    significantly (p < --alpha, 0.01): slope t-test and ANOVA;\n"
		"                    \"oversubscribed\" instead when the ranks' CPU share falls\n"
		"                    along it enough to explain the growth; not testable when the\n"
		"                    smallest growth it can detect is above --max-detectable PCT\n"
		"                    (50%, or the fraction 0.5)\n"
		"  disturbed         runs whose ranks had less than analysis.min_cpu_share (0.9)\n"
		"                    of the CPU share their binding allows, or far more involuntary\n"
		"                    context switches than the campaign's median: listed and left\n"
		"                    out (so are they by model and refine)\n"
		"  segmented         a line of >= 8 points is better fitted by two models\n"
		"                    (relative residuals of the point estimates)\n"
		"  volume            c0 + c1 * expect is rejected and measured / expected drifts\n"
		"  extrapolation     refitted without a parameter's largest value, the model\n"
		"                    mispredicts it: unstable (a warning)\n"
		"Models: --selection robust (default) or extrap, --aggregate mean (default),\n"
		"median or min (a campaign's analysis.aggregate otherwise); see docs/modelling.md.\n"
		"\n"
		"Output: one line per flag and the verdict; --json prints the stable contract\n"
		"{verdict, flags: [{callpath, metric, kind, parameter, growth, p_value, detail}],\n"
		"regions: [...], checks: [{callpath, metric, check, parameter, status, reason}],\n"
		"selection, aggregate}; --html FILE writes a self-contained report with plots\n"
		"(gnuplot; PERFSWEEP_GNUPLOT names another binary).  --metric M checks one\n"
		"metric (default: time when present, else all).  A campaign's retired runs (they\n"
		"left its plan) are left out unless --include-retired.\n"
		ANALYSIS_VIEW_HELP
		"\n"
		"exit status: 0 publishable; 3 blocked: contention, segmented, or noisy points in\n"
		"a modelled region (--strict: false-dependency and volume too); 2 input error.\n"
		"See docs/validation.md.",
	.options = validate_options,
	.min_args = 1, .max_args = 1, .too_few = "no INPUT given", .too_many = "more than one INPUT given",
	.exec = exec_validate,
};
