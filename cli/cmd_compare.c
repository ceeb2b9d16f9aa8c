/*
 * perfsweep compare BASE NEW | NEW --reference FILE | --run BASE.cfg
 * NEW.cfg --dir DIR [--tolerance 5%] [--alpha 0.01] [--metric M] [--json]
 * [--html FILE]: did NEW get slower than BASE, and did its scaling change?
 * The statistics live in validator/compare.c, the reports in
 * validator/compare_report.c, the two-arm run in orchestrator/ab_run.c and
 * its pairing in analysis/ab_pairs.c; this file loads the inputs and
 * returns the verdict as the exit status (docs/compare.md).
 */
#include "campaign/config.h"
#include "campaign/config_diff.h"
#include "campaign/store.h"
#include "cli/analysis_view.h"
#include "cli/cli.h"
#include "common/progpath.h"
#include "common/strbuf.h"
#include "orchestrator/ab_run.h"
#include "common/xalloc.h"
#include "analysis/ab_pairs.h"
#include "analysis/input.h"
#include "analysis/model_pipeline.h"
#include "validator/compare.h"
#include "validator/compare_report.h"
#include <jansson.h>
#include <libgen.h>
#include <math.h>
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
/* Both sides as the one model pipeline loads them: each with its own
   dependency file (or --deps), its analysis options and its models. */
struct sides {
	struct input_data in[2];
	struct model_options opt[2];
	struct modeler *ctx;
};

static int load_side(struct sides *s, int k, const char *path, const char *format, const char *metric,
		     const char *deps, const struct run_usage_view *view, struct perr *err)
{
	struct model_pipeline_options mo = { .format = format, .metric = metric, .deps_path = deps,
					     .campaign_deps = 1, .view = view };
	model_options_robust(&mo.model);
	if (model_pipeline_load(&s->in[k], path, &mo, &s->opt[k], err) < 0)
		return -1;
	if (view)
		analysis_view_note(stderr, view, s->in[k].src.usage);
	return 0;
}

/* compare's one fit: the pipeline's model of the region, constrained by its
   side's dependency file where that names the region, else the black box. */
static int pipeline_fit(void *ctx, const struct experiment *e, int cp, int m, struct pmnf_model *out,
			struct perr *err)
{
	struct sides *s = ctx;
	int k = e == &s->in[1].e;
	struct model_fit f;
	if (model_pipeline_fit(s->ctx, &s->in[k], cp, m, &s->opt[k], &f, err) < 0) {
		model_fit_release(&f);
		return -1;
	}
	if (f.constrained) {
		*out = f.cm;
		pmnf_release(&f.bb);
	} else {
		*out = f.bb;
	}
	return 0;
}

/* 1 when path is a campaign directory (the input registry's detection). */
static int is_campaign(const char *path)
{
	struct perr err;
	const struct input_format *f = input_format_detect(path, &err);
	return f && !strcmp(f->name, "campaign");
}

/* One campaign's stored config text (*dir: where its includes resolve) and machine. */
static int campaign_facts(const char *dir, char **text, char **inc_dir, struct compare_machine *m,
			  struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, STORE_READONLY, err) < 0)
		return -1;
	m->hostname = store_get_meta(st, "hostname");
	m->cpu_model = store_get_meta(st, "cpu_model");
	m->ncores = store_get_meta(st, "ncores");
	*text = store_get_meta(st, "config");
	store_close(st);
	char *tmp = xstrdup(dir);
	*inc_dir = xstrdup(dirname(tmp));
	free(tmp);
	if (!*text || !**text)
		return perr_set(err, "'%s' has no stored config", dir);
	return 0;
}

static void add_diff(void *ctx, const char *key, const char *a, const char *b)
{
	compare_add_diff(ctx, key, a, b);
}

/* When both inputs are campaign directories: their configs' differences and their machines. */
static void campaign_inputs(const char *base, const char *new, struct compare *c)
{
	static const char *const skip[] = { "name", NULL };
	if (!is_campaign(base) || !is_campaign(new))
		return;
	char *text[2] = { NULL, NULL }, *dir[2] = { NULL, NULL }, *label[2];
	struct perr err;
	c->inputs.campaigns = 1;
	label[0] = xasprintf("the config stored in '%s'", base);
	label[1] = xasprintf("the config stored in '%s'", new);
	if (campaign_facts(base, &text[0], &dir[0], &c->inputs.machine[0], &err) < 0 ||
	    campaign_facts(new, &text[1], &dir[1], &c->inputs.machine[1], &err) < 0)
		c->inputs.config_note = xasprintf("not compared: %s", err.msg);
	else {
		struct config_text a = { text[0], dir[0], label[0] }, b = { text[1], dir[1], label[1] };
		if (config_diff_texts(&a, &b, skip, add_diff, c, &err) < 0)
			c->inputs.config_note = xasprintf("not compared: %s", err.msg);
	}
	for (int i = 0; i < 2; i++) {
		free(text[i]);
		free(dir[i]);
		free(label[i]);
	}
}

/* Regions under the base campaign's analysis.min_share decide nothing (its default for other inputs). */
static double min_share(const struct input_data *base)
{
	return isnan(base->src.min_share) ? CONFIG_MIN_SHARE : base->src.min_share;
}

/* Each campaign's runs judged for disturbance and those left out (analysis/run_usage.h). */
static void note_disturbed(struct compare *c, const struct sides *s)
{
	for (int k = 0; k < 2; k++) {
		const struct run_usage *u = s->in[k].src.usage;
		if (u && u->disturbed.njudged)
			compare_note_disturbed(c, k, u->disturbed.njudged, u->disturbed.n);
	}
}

static void print_json(const struct compare *c, const char *base, const char *new)
{
	json_t *o = compare_report_json(c, base, new);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	puts(s);
	free(s);
	json_decref(o);
}

/* The report in the form asked for, then the exit status: the verdict (0, 3 or 4). */
static int report(struct cli_args *a, const struct compare *c, const char *base, const char *new)
{
	const char *html = cli_value(a, 'H');
	struct perr err;
	if (cli_flag(a, 'j'))
		print_json(c, base, new);
	else
		cli_display_stdout(), compare_report_text(stdout, c, base, new);
	if (html && compare_report_html(html, c, base, new, &err) < 0)
		return cli_error(EXIT_USAGE, "%s", err.msg);
	return compare_verdict(c);      /* EXIT_OK, EXIT_BLOCKED or EXIT_INCONCLUSIVE */
}

/*
 * The two arms of one two-arm run (compare --run) are paired: each side
 * keeps the values of whole pairs (analysis/ab_pairs.h).  *paired 1 then.
 */
static int pair_arms(struct sides *sd, const char *base, const char *new, struct ab_pairing *p, int *paired,
		     struct perr *err)
{
	*paired = is_campaign(base) && is_campaign(new) && ab_pair_arms(base, new);
	return *paired ? ab_pair_values(&sd->in[0], &sd->in[1], base, new, p, err) : 0;
}

/* Load BASE (or the reference) and NEW, and pair two arms; set the options the inputs decide. */
static int load_sides(struct cli_args *a, struct sides *sd, struct compare_options *opt, const char *base,
		      const char *new, const char *ref, struct ab_pairing *pairs, struct perr *err)
{
	const char *deps = cli_value(a, 'd');
	int paired;
	struct run_usage_view view;
	const struct run_usage_view *vp = analysis_view_from(a, &view) ? &view : NULL;
	if (load_side(sd, 0, base, ref ? "reference" : NULL, opt->metric, deps, vp, err) < 0 ||
	    load_side(sd, 1, new, NULL, opt->metric, deps, vp, err) < 0 || pair_arms(sd, base, new, pairs, &paired, err) < 0)
		return -1;
	opt->min_share = min_share(&sd->in[0]);
	opt->paired = paired;
	return 0;
}

/* Load, compare and report: the exit status. */
static int compare_inputs(struct cli_args *a, struct compare_options *opt, const char *base, const char *new,
			  const char *ref)
{
	struct sides sd;
	struct compare c;
	struct perr err;
	struct ab_pairing pairs;
	int rc;
	memset(&sd, 0, sizeof(sd));
	sd.ctx = modeler_new();
	opt->fit = pipeline_fit;
	opt->fit_ctx = &sd;
	if (load_sides(a, &sd, opt, base, new, ref, &pairs, &err) < 0) {
		rc = cli_error(EXIT_USAGE, "%s", err.msg);
	} else {
		int cmp = compare_experiments(&sd.in[0].e, &sd.in[1].e, opt, &c, &err);
		if (cmp < 0)
			compare_init(&c, opt);  /* nothing to compare: inconclusive if disturbance took it */
		campaign_inputs(base, new, &c);
		if (opt->paired)
			compare_note_pairs(&c, pairs.pairs, pairs.lost);
		else
			note_disturbed(&c, &sd);
		if (cmp < 0 && !c.inputs.shared)
			rc = cli_error(EXIT_USAGE, "cannot compare '%s' with '%s': %s", new, base, err.msg);
		else
			rc = report(a, &c, base, new);
		compare_release(&c);
	}
	input_data_release(&sd.in[0]);
	input_data_release(&sd.in[1]);
	modeler_free(sd.ctx);
	return rc;
}

/* A two-arm run's events worth a line: failures, retries, warnings, the budget. */
static void on_ab_event(void *ctx, long long id, const char *what, const char *detail)
{
	(void)ctx;
	(void)id;
	if (!strcmp(what, "failed") || !strcmp(what, "retry") || !strcmp(what, "warning") ||
	    !strcmp(what, "budget") || !strcmp(what, "done-with-collection-error"))
		fprintf(stderr, "%s: %s\n", what, detail ? detail : "");
}

/* compare --run BASE.cfg NEW.cfg --dir DIR: run both arms in turn, then compare them paired. */
static int run_arms(struct cli_args *a, const char *dir, char **arm_dir)
{
	struct ab_run ab;
	struct ab_stats st;
	struct perr err;
	if (ab_open(&ab, a->args[0], a->args[1], dir, &err)) {
		ab_close(&ab);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	char *bind = progpath_find("perfsweep-bind");
	cli_catch_stop();
	struct runner_options ro = { .bind_path = bind ? bind : "perfsweep-bind", .stop = &cli_stop,
				     .event = on_ab_event };
	fprintf(stderr, "compare --run: %lld runs in each arm, one at a time, base and new in turn (%s)\n",
		ab.arm[0].pl.runs, dir);
	int rc = ab_execute(&ab, &ro, &st, &err);
	for (int k = 0; k < 2; k++)
		arm_dir[k] = xstrdup(ab.arm[k].co.dir);
	ab_close(&ab);
	free(bind);
	if (rc)
		return cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
	fprintf(stderr, "this session: %d runs started, %d retried, %d re-run after a restart, %d adopted, %d failed\n",
		st.runs.started, st.runs.retried, st.runs.rerun, st.runs.adopted, st.runs.failed);
	if (st.runs.interrupted) {
		fprintf(stderr, "interrupted: run the same command again to resume\n");
		return EXIT_RUNS_FAILED;
	}
	if (st.runs.budget_stopped)
		fprintf(stderr, "stopped starting pairs: the budget would be overrun; comparing the pairs measured\n");
	return EXIT_OK;
}

static int exec_compare(struct cli_args *a)
{
	const char *ref = cli_value(a, 'r'), *dir = cli_value(a, 'D');
	int run = cli_flag(a, 'R') > 0, want = ref ? 1 : 2;
	if (run && (ref || !dir))
		return cli_usage("compare", ref ? "--run takes BASE.cfg and NEW.cfg, not --reference"
						: "--run needs --dir DIR for the two arms' campaigns");
	if (!run && dir)
		return cli_usage("compare", "--dir goes with --run");
	if (a->nargs != want)
		return cli_usage("compare", a->nargs < want ? "missing %s" : "too many inputs (%s)",
				 run ? "BASE.cfg and NEW.cfg" : ref ? "NEW (with --reference FILE as the base)"
				 : "BASE and NEW");
	struct compare_options opt;
	const struct cli_opt *x;
	compare_options_init(&opt);
	opt.metric = cli_value(a, 'm');
	if ((x = cli_opt(a, 't')))
		opt.tolerance = x->d;
	if ((x = cli_opt(a, 'a')))
		opt.alpha = x->d;
	if (!run)
		return compare_inputs(a, &opt, ref ? ref : a->args[0], a->args[a->nargs - 1], ref);
	char *arm[2] = { NULL, NULL };
	int rc = run_arms(a, dir, arm);
	if (rc == EXIT_OK)
		rc = compare_inputs(a, &opt, arm[0], arm[1], NULL);
	free(arm[0]);
	free(arm[1]);
	return rc;
}

static const struct cli_option compare_options[] = {
	{ "tolerance", 't', 1, check_tolerance, NULL, "5%", "the smallest change that counts (a percentage or a fraction)", NULL, 0 },
	{ "alpha", 'a', 1, check_alpha, NULL, "0.01", "the significance level of every test", NULL, 0 },
	{ "metric", 'm', 1, NULL, NULL, "M", "compare this metric only", NULL, 0 },
	{ "reference", 'r', 1, NULL, NULL, "FILE", "a saved base ('export --format reference') in place of BASE", NULL, 1 },
	{ "html", 'H', 1, NULL, NULL, "FILE", "also write a self-contained page", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print the stable JSON contract", NULL, 0 },
	{ "deps", 'd', 1, NULL, "--deps needs a dependency file", "FILE", "the dependency file for both sides' models", NULL, 0 },
	{ "run", 'R', 0, NULL, NULL, NULL, "run both configs first, interleaved in one time window", NULL, 1 },
	{ "dir", 'D', 1, NULL, "--dir needs a directory", "DIR", "with --run: where the two arms' campaigns go", NULL, 1 },
	ANALYSIS_VIEW_OPTIONS,
	{ 0 },
};

const struct cli_entry cmd_compare_entry = {
	.name = "compare",
	.synopsis = "BASE NEW",
	.more_usage = "compare NEW --reference FILE [options]\ncompare --run BASE.cfg NEW.cfg --dir DIR [options]",
	.summary = "did NEW get slower than BASE, and did its scaling change?",
	.help = "BASE and NEW are campaign directories, folders of Score-P experiments, Extra-P\n"
		"text/JSON files or saved references (any format of the input registry, as for\n"
		"validate); --reference FILE (written by 'perfsweep export DIR --format\n"
		"reference') takes the place of BASE.\n"
		"--run BASE.cfg NEW.cfg --dir DIR runs both campaigns first, in one time window:\n"
		"DIR/base.campaign and DIR/new.campaign, one run at a time on the same cores of\n"
		"the local backend, point by point and pass by pass, base and new in turn; run\n"
		"the same command again to resume.  The budget is BASE's, for both arms.  Each new\n"
		"run is then compared with the base run beside it in time (also when the two arm\n"
		"directories are given as BASE and NEW later).\n"
		"Per region, metric and common point: the medians of the repetitions, the change\n"
		"NEW/BASE - 1 (Hodges-Lehmann on log values) with its interval at 1 - alpha, and\n"
		"the two-sided Mann-Whitney p.  A point regressed when p < alpha (per point) and\n"
		"the change exceeds --tolerance (5%, or 0.05); it improved when below -tolerance.\n"
		"Higher is worse for every metric.\n"
		"Per region, all common points together: the weighted mean of the points' log\n"
		"ratios, each weighed by its own noise (a random-effects meta-regression, one-sided\n"
		"t bounds at 1 - alpha): a regression when significant and above the tolerance;\n"
		"resolved when its upper bound is below the tolerance; else inconclusive, with the\n"
		"smallest slowdown the data could have detected.  Its trend along each parameter:\n"
		"a scaling regression is a significant rising trend that, at its interval's low\n"
		"end, adds more than tolerance to the ratio at twice the parameter's largest\n"
		"value.  Both PMNF models and their leading terms are shown, fitted as 'model'\n"
		"fits them (each side's dependency file, or --deps FILE for both).\n"
		"Regions under the base campaign's analysis.min_share of the time decide nothing.\n"
		"A campaign's disturbed runs are left out (in paired arms: with their partners);\n"
		"losing more than a quarter of them makes the comparison inconclusive.\n"
		"--json prints {verdict, regressions, improvements, unchanged, models: [{callpath,\n"
		"metric, base, new, region, trend, outcome, ...}], not_compared, config_diff,\n"
		"pairs, disturbed, ...}; --html FILE writes a self-contained page.\n"
		ANALYSIS_VIEW_HELP "(compare: one line per campaign on stderr).\n"
		"\n"
		"exit status: 0 every region that decides was resolved and none regressed; 3 a\n"
		"point, a region or a scaling regression; 4 inconclusive (a region not resolved,\n"
		"or the machine was shared); 1 the runs of --run failed or were interrupted; 2\n"
		"usage or input error.  See docs/compare.md.",
	.options = compare_options,
	.min_args = 1, .max_args = 2, .too_few = "missing BASE and NEW",
	.too_many = "too many inputs ('%s')",
	.exec = exec_compare,
};
