/* perfsweep status DIR [--json] [--points [--metric M]]: a campaign's progress, read-only. */
#include "cli/cli.h"
#include "orchestrator/adaptive.h"
#include "analysis/input.h"
#include "analysis/run_usage.h"
#include "campaign/store.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What status shows, read from the store. */
struct status {
	struct store_counts cnt;
	struct run *runs;           /* the runs with a problem (failed, collection error) */
	int nruns;
	char *name, *backend, *budget;
	char *order, *seed;         /* run order and its seed, NULL for an old store */
	int pass, passes;           /* the repetition pass the campaign is in */
	long long collect_errors;
	struct adaptive_spec adaptive;      /* target 0: fixed repetitions */
	struct adaptive_point *points;      /* adaptive: every point's precision */
	int npoints;
	struct run_usage_summary usage;     /* what the done runs used */
};

static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* What the done runs used, summarised: the campaign's figures, not each run's. */
static json_t *resources_json(const struct run_usage_summary *u)
{
	json_t *o = json_object(), *ids = json_array();
	json_object_set_new(o, "runs", json_integer(u->runs));
	json_object_set_new(o, "cpu_share_median", real_or_null(u->share_median));
	json_object_set_new(o, "cpu_share_min", real_or_null(u->share_min));
	json_object_set_new(o, "maxrss_kb", u->maxrss_kb >= 0 ? json_integer(u->maxrss_kb) : json_null());
	json_object_set_new(o, "nivcsw_per_s_median", real_or_null(u->nivcsw_median));
	json_object_set_new(o, "disturbed", json_integer(u->disturbed.n));
	for (int i = 0; i < u->disturbed.n; i++)
		json_array_append_new(ids, json_integer(u->disturbed.runs[i].run));
	json_object_set_new(o, "disturbed_runs", ids);
	json_object_set_new(o, "census_runs", json_integer(u->census));
	json_object_set_new(o, "quiet_wait_runs", json_integer(u->quiet_runs));
	json_object_set_new(o, "quiet_wait_s", json_real(u->quiet_wait));
	json_object_set_new(o, "quiet_wait_max_s", json_real(u->quiet_wait_max));
	json_t *waits = json_array();
	for (int i = 0; i < u->quiet_runs; i++)
		json_array_append_new(waits, json_pack("{s:I, s:f}", "run", (json_int_t)u->quiet[i].run, "seconds",
						       u->quiet[i].seconds));
	json_object_set_new(o, "quiet_waits", waits);
	return o;
}

static void resources_text(const struct run_usage_summary *u)
{
	if (!u->runs)
		return;
	printf("resources: %d run%s recorded: CPU share median %.2f (lowest %.2f)", u->runs, u->runs == 1 ? "" : "s",
	       u->share_median, u->share_min);
	if (u->maxrss_kb >= 0)
		printf(", max RSS %.1f MB", (double)u->maxrss_kb / 1024);
	if (!isnan(u->nivcsw_median))
		printf(", %.3g involuntary switches/s (median)", u->nivcsw_median);
	if (u->disturbed.n)
		printf("; %d disturbed (perfsweep validate lists them)", u->disturbed.n);
	putchar('\n');
	if (u->quiet_runs)
		printf("quiet gate: %d run%s waited for quiet cores, %.1f s in all (longest %.1f s)\n", u->quiet_runs,
		       u->quiet_runs == 1 ? "" : "s", u->quiet_wait, u->quiet_wait_max);
}

/* Adaptive repetitions: the points still converging. */
static json_t *adaptive_json(const struct status *s)
{
	json_t *a = json_object(), *conv = json_array();
	for (int i = 0; i < s->npoints; i++) {
		const struct adaptive_point *p = &s->points[i];
		if (p->converging)
			json_array_append_new(conv, json_pack("{s:s, s:i, s:o}", "point", p->name, "repetitions",
							      p->nreps, "ci", isnan(p->ci) ? json_null() : json_real(p->ci)));
	}
	json_object_set_new(a, "min", json_integer(s->adaptive.min));
	json_object_set_new(a, "max", json_integer(s->adaptive.max));
	json_object_set_new(a, "target", json_real(s->adaptive.target));
	json_object_set_new(a, "converging", conv);
	return a;
}

static void adaptive_text(const struct status *s)
{
	int n = 0;
	for (int i = 0; i < s->npoints; i++)
		n += s->points[i].converging;
	printf("adaptive:  repetitions %d..%d to a median known within %g%%: %d point%s still converging%s",
	       s->adaptive.min, s->adaptive.max, 100 * s->adaptive.target, n, n == 1 ? "" : "s", n ? ":" : "");
	for (int i = 0, k = 0; i < s->npoints; i++) {
		const struct adaptive_point *p = &s->points[i];
		if (!p->converging)
			continue;
		if (k++ == 8) {
			printf(" ...");
			break;
		}
		printf("%s %s (%d reps, ", k > 1 ? "," : "", p->name, p->nreps);
		if (isnan(p->ci))
			printf("CI ?)");
		else
			printf("CI %.1f%%)", 100 * p->ci);
	}
	putchar('\n');
}

static void print_json(const struct status *s)
{
	const struct store_counts cnt = s->cnt;
	const struct run *runs = s->runs;
	int nruns = s->nruns;
	const char *name = s->name, *backend = s->backend, *budget = s->budget;
	long long collect_errors = s->collect_errors;
	json_t *o = json_object();
	json_object_set_new(o, "campaign", json_string(name ? name : ""));
	json_object_set_new(o, "backend", json_string(backend ? backend : ""));
	json_object_set_new(o, "planned", json_integer(cnt.planned));
	json_object_set_new(o, "pending", json_integer(cnt.pending));
	json_object_set_new(o, "running", json_integer(cnt.running + cnt.submitted));
	json_object_set_new(o, "submitted", json_integer(cnt.submitted));
	json_object_set_new(o, "done", json_integer(cnt.done));
	json_object_set_new(o, "failed", json_integer(cnt.failed));
	json_object_set_new(o, "cancelled", json_integer(cnt.cancelled));
	json_object_set_new(o, "retired", json_integer(cnt.retired));
	json_object_set_new(o, "measurements", json_integer(cnt.measurements));
	json_object_set_new(o, "collection_errors", json_integer(collect_errors));
	json_object_set_new(o, "core_hours_planned", json_real(cnt.core_hours_planned));
	json_object_set_new(o, "core_hours_spent", json_real(cnt.core_hours_spent));
	if (budget)
		json_object_set_new(o, "budget_core_hours", json_real(atof(budget)));
	json_object_set_new(o, "budget", json_pack("{s:o, s:f, s:f}", "core_hours",
		budget ? json_real(atof(budget)) : json_null(), "spent", cnt.core_hours_spent,
		"planned", cnt.core_hours_planned));
	if (s->order)
		json_object_set_new(o, "order", json_pack("{s:s, s:s, s:i, s:i}", "kind", s->order,
			"seed", s->seed ? s->seed : "", "pass", s->pass, "passes", s->passes));
	if (s->adaptive.target > 0)
		json_object_set_new(o, "adaptive", adaptive_json(s));
	json_object_set_new(o, "resources", resources_json(&s->usage));
	json_t *fails = json_array();
	for (int i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		if (r->state != RUN_FAILED && !r->collect_error)
			continue;
		json_t *f = json_object();
		json_object_set_new(f, "run", json_integer(r->id));
		json_object_set_new(f, "state", json_string(run_state_name(r->state)));
		json_object_set_new(f, "attempts", json_integer(r->attempts));
		json_object_set_new(f, "reason", json_string(r->reason ? r->reason : ""));
		if (r->collect_error)
			json_object_set_new(f, "collect_error", json_string(r->collect_error));
		json_array_append_new(fails, f);
	}
	json_object_set_new(o, "problems", fails);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static void print_text(const struct status *s)
{
	const struct store_counts cnt = s->cnt;
	const struct run *runs = s->runs;
	int nruns = s->nruns;
	const char *name = s->name, *backend = s->backend, *budget = s->budget;
	printf("campaign:  %s (backend %s)\n", name ? name : "?", backend ? backend : "?");
	printf("runs:      %lld planned, %lld done, %lld running, %lld pending, %lld failed, %lld cancelled",
	       cnt.planned, cnt.done, cnt.running + cnt.submitted, cnt.pending, cnt.failed, cnt.cancelled);
	if (cnt.retired)        /* runs that left the plan: kept, not analysed */
		printf(", %lld retired", cnt.retired);
	putchar('\n');
	char b[40] = "";   /* stored with 17 digits: 0.1 reads 0.10000000000000001 */
	if (budget)
		snprintf(b, sizeof(b), ", budget %.10g", atof(budget));
	if (cnt.core_hours_planned > 0)
		printf("measured:  %lld values; %.4g core-hours spent of %.4g planned%s\n",
		       cnt.measurements, cnt.core_hours_spent, cnt.core_hours_planned, b);
	else
		printf("measured:  %lld values; %.4g core-hours spent (no cost model, nothing planned)\n",
		       cnt.measurements, cnt.core_hours_spent);
	if (s->order && strcmp(s->order, "grouped"))
		printf("order:     %s (seed %s), %s %d of %d\n", s->order, s->seed ? s->seed : "?",
		       s->pass ? "pass" : "passes done:", s->pass ? s->pass : s->passes, s->passes);
	else if (s->order)
		printf("order:     grouped\n");
	if (s->adaptive.target > 0)
		adaptive_text(s);
	resources_text(&s->usage);
	for (int i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		if (r->state == RUN_FAILED)
			printf("failed:    run %lld after %d attempt%s: %s\n", r->id, r->attempts,
			       r->attempts == 1 ? "" : "s", r->reason ? r->reason : "?");
		if (r->collect_error)
			printf("collect:   run %lld: %s\n", r->id, r->collect_error);
	}
}

/* The points in coordinate order (the first parameter slowest). */
static const struct experiment *sort_exp;
static int cmp_points(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	for (int k = 0; k < sort_exp->nparams; k++) {
		double u = experiment_coord(sort_exp, a, k), v = experiment_coord(sort_exp, b, k);
		if (u != v)
			return (u > v) - (u < v);
	}
	return 0;
}

/*
 * --points: the mean of metric's repetitions per region at every measured
 * point, as a table (text) or an array (JSON), from the same loader that
 * model and validate read (retired runs left out, a re-measured repetition
 * counted once).
 */
static int print_points(struct store *st, const char *metric, int json, struct perr *err)
{
	struct experiment e;
	experiment_init(&e);
	if (store_load_experiment(st, metric, &e, err) || campaign_leave_out_unmodelled(st, &e, err)) {
		experiment_release(&e);
		return -1;
	}
	int m = experiment_find_metric(&e, metric);
	if (m < 0) {
		experiment_release(&e);
		return perr_set(err, "no measurements of metric '%s' in %s (see export --format csv)", metric,
				store_dir(st));
	}
	int *order = xmalloc(sizeof(int) * (size_t)(e.npoints + 1));
	for (int p = 0; p < e.npoints; p++)
		order[p] = p;
	sort_exp = &e;
	qsort(order, (size_t)e.npoints, sizeof(int), cmp_points);
	json_t *arr = json ? json_array() : NULL;
	if (!json) {
		printf("%-24s", "point");
		for (int c = 0; c < e.ncallpaths; c++)
			printf(" %12.12s", e.callpaths[c]);
		printf("   [%s, mean of repetitions]\n", metric);
	}
	double *x = xmalloc(sizeof(double) * (size_t)(e.nparams + 1));
	for (int i = 0; i < e.npoints; i++) {
		int p = order[i];
		for (int k = 0; k < e.nparams; k++)
			x[k] = experiment_coord(&e, p, k);
		struct strbuf pt;
		strbuf_init(&pt);
		point_text(&pt, (const char *const *)e.params, x, e.nparams, " ");
		json_t *row = json ? json_object() : NULL, *vals = json ? json_object() : NULL;
		if (!json)
			printf("%-24s", pt.buf);
		for (int c = 0; c < e.ncallpaths; c++) {
			const struct exp_values *v = experiment_values(&e, c, m, p);
			double sum = 0;
			for (int r = 0; v && r < v->n; r++)
				sum += v->v[r];
			double mean = v && v->n ? sum / v->n : NAN;
			if (json)
				json_object_set_new(vals, e.callpaths[c], isnan(mean) ? json_null() : json_real(mean));
			else if (isnan(mean))
				printf(" %12s", "-");
			else
				printf(" %12.6g", mean);
		}
		if (json) {
			json_object_set_new(row, "point", json_string(pt.buf));
			json_object_set_new(row, metric, vals);
			json_array_append_new(arr, row);
		} else {
			printf("\n");
		}
		strbuf_release(&pt);
	}
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(arr);
	}
	free(x);
	free(order);
	experiment_release(&e);
	return 0;
}

static int exec_status(struct cli_args *a)
{
	struct store *st;
	struct perr err;
	struct status s = { .runs = NULL };
	if (store_open(&st, a->args[0], STORE_READONLY, &err))
		return cli_error(EXIT_USAGE, "%s", err.msg);
	if (cli_flag(a, 'p') || cli_value(a, 'm')) {
		const char *metric = cli_value(a, 'm') ? cli_value(a, 'm') : "time";
		int rc = print_points(st, metric, cli_flag(a, 'j'), &err);
		store_close(st);
		return rc ? cli_error(EXIT_USAGE, "%s", err.msg) : EXIT_OK;
	}
	/* one report, one snapshot: counts and runs from the same moment */
	if (store_read_begin(st, &err) || store_counts(st, &s.cnt, &err) ||
	    store_pass(st, &s.pass, &s.passes, &s.collect_errors, &err) ||
	    store_load_problem_runs(st, &s.runs, &s.nruns, &err)) {
		store_close(st);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	s.name = store_get_meta(st, "name");
	s.backend = store_get_meta(st, "backend");
	s.budget = store_get_meta(st, "budget_core_hours");
	s.order = store_get_meta(st, "order");
	s.seed = store_get_meta(st, "order_seed");
	store_read_end(st);
	adaptive_spec_load(st, &s.adaptive);
	if ((s.adaptive.target > 0 && adaptive_points(st, &s.adaptive, &s.points, &s.npoints, &err)) ||
	    run_usage_summarise(st, 0, &s.usage, &err)) {
		run_usage_summary_release(&s.usage);
		store_close(st);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	if (cli_flag(a, 'j'))
		print_json(&s);
	else
		cli_display_stdout(), print_text(&s);
	free(s.name);
	free(s.backend);
	free(s.budget);
	free(s.order);
	free(s.seed);
	runs_free(s.runs, s.nruns);
	adaptive_points_free(s.points, s.npoints);
	run_usage_summary_release(&s.usage);
	store_close(st);
	return EXIT_OK;
}

static const struct cli_option status_options[] = {
	{ "json", 'j', 0, NULL, NULL, NULL, "print one JSON object", NULL, 0 },
	{ "points", 'p', 0, NULL, NULL, NULL, "print a metric's mean at every measured point", NULL, 0 },
	{ "metric", 'm', 1, NULL, NULL, "M", "with --points: the metric (default time)", "points", 0 },
	{ 0 },
};

const struct cli_entry cmd_status_entry = {
	.name = "status",
	.synopsis = "DIR",
	.summary = "summarise a campaign's progress",
	.help = "--json prints one object with planned, pending, running, done, failed, cancelled, retired,\n"
		"campaign, backend, measurements, collection_errors, the runs with problems, and\n"
		"resources: a summary of what the done runs used (runs recorded, the ranks' CPU share\n"
		"median and lowest, the largest RSS, the median involuntary context switches per\n"
		"second, the disturbed runs, census_runs: those the local census watched, and the quiet\n"
		"gate's quiet_wait_runs, quiet_wait_s, quiet_wait_max_s and quiet_waits [{run, seconds}]:\n"
		"runs held back before they started, seconds in all, the longest, each run's); per run:\n"
		"export --format csv, top's details.\n"
		"--points prints the mean of a metric's repetitions (--metric, default time) per region\n"
		"at every measured point instead: a table, or with --json an array of {point, METRIC}.",
	.options = status_options,
	.min_args = 1, .max_args = 1, .too_few = "missing DIR",
	.exec = exec_status,
};
