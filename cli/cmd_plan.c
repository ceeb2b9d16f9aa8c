/*
 * perfsweep plan CONFIG [--json] [--explain] [--dir DIR]: the points a
 * campaign would execute (exactly what `perfsweep run` stores), with
 * placement, repetitions and cost, the totals against the full factorial,
 * the multiplicative groups and pruned parameters; with --dir, what `run`
 * would change in the campaign there (runs added, kept, retired).  --json is
 * a stable contract for scripts (docs/designs.md).
 */
#include "common/xalloc.h"
#include "cli/cli.h"
#include "cli/plan_eval.h"
#include "campaign/campaign_diff.h"
#include "campaign/config.h"
#include "orchestrator/plan_build.h"
#include "campaign/template.h"
#include "common/point_text.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *cost_json(const struct plan *pl, double v)
{
	return pl->cost_known && v >= 0 ? json_real(v) : json_null();
}

static json_t *count_json(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* The campaign in dir against the plan: an addition to the --json contract. */
static json_t *diff_json(const struct plan *pl, const char *dir, const struct store_diff *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "dir", json_string(dir));
	json_object_set_new(o, "added", json_integer(d->added));
	json_object_set_new(o, "added_points", json_integer(d->added_points));
	json_object_set_new(o, "added_core_hours", cost_json(pl, d->added_core_hours));
	json_object_set_new(o, "kept", json_integer(d->kept));
	json_object_set_new(o, "kept_done", json_integer(d->kept_done));
	json_object_set_new(o, "retired", json_integer(d->retired));
	json_object_set_new(o, "retired_points", json_integer(d->retired_points));
	json_object_set_new(o, "unretired", json_integer(d->unretired));
	json_object_set_new(o, "kept_outside", json_integer(d->kept_outside));
	json_object_set_new(o, "kept_outside_points", json_integer(d->kept_outside_points));
	return o;
}

/* One point of the --json contract. */
static json_t *point_json(const struct plan *pl, const struct plan_point *pt)
{
	json_t *p = json_object(), *params = json_object(), *place = json_object();
	for (int k = 0; k < pl->nparams; k++)
		json_object_set_new(params, pl->params[k].name,
				    pl->params[k].is_int ? json_integer((json_int_t)pt->values[k])
							 : json_real(pt->values[k]));
	json_object_set_new(place, "nodes", json_integer(pt->nodes));
	json_object_set_new(place, "ranks_per_node", json_integer(pt->ranks_per_node));
	json_object_set_new(place, "policy", pt->policy ? json_string(pt->policy) : json_null());
	if (pt->map)
		json_object_set_new(place, "map", json_string(pt->map));
	if (pt->cores_per_rank)
		json_object_set_new(place, "cores_per_rank", json_string(pt->cores_per_rank));
	json_object_set_new(p, "params", params);
	json_object_set_new(p, "placement", place);
	json_object_set_new(p, "repetitions", json_integer(pt->repetitions));
	json_object_set_new(p, "core_hours", cost_json(pl, pt->core_hours));
	json_object_set_new(p, "reason", json_string(pt->reason ? pt->reason : ""));
	return p;
}

#define PLAN_JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* The --json contract, its points streamed one at a time: the output of a
   10^6-point plan is never held in memory as one JSON tree. */
static void print_json(const struct plan *pl, const char *dir, const struct store_diff *d)
{
	json_t *strategy = json_string(pl->strategy ? pl->strategy : "full");
	char *st = json_dumps(strategy, JSON_ENCODE_ANY);
	printf("{\n  \"strategy\": %s,\n  \"points\": [", st);
	free(st);
	json_decref(strategy);
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints; i++) {
		json_t *p = point_json(pl, plan_point_at(pl, i, &buf, vals));
		char *text = json_dumps(p, JSON_COMPACT | PLAN_JSON_FLAGS);
		printf("%s\n    %s", i ? "," : "", text);
		free(text);
		json_decref(p);
	}
	free(vals);
	printf("%s],\n", pl->npoints ? "\n  " : "");
	json_t *root = json_object();
	json_t *totals = json_object();
	json_object_set_new(totals, "points", json_integer(pl->npoints));
	json_object_set_new(totals, "runs", json_integer(pl->runs));
	json_object_set_new(totals, "core_hours", cost_json(pl, pl->core_hours));
	json_object_set_new(root, "totals", totals);
	json_t *full = json_object();
	json_object_set_new(full, "points", count_json(pl->full_points));
	json_object_set_new(full, "runs", count_json(pl->full_runs));
	json_object_set_new(full, "core_hours", cost_json(pl, pl->full_core_hours));
	json_object_set_new(root, "full_factorial", full);
	json_t *pruned = json_array();
	for (int i = 0; i < pl->npruned; i++)
		json_array_append_new(pruned, json_string(pl->pruned[i]));
	json_object_set_new(root, "pruned", pruned);
	json_t *groups = json_array();
	for (int g = 0; g < pl->ngroups; g++) {
		json_t *a = json_array();
		for (int i = 0; i < pl->groups[g].nparams; i++)
			json_array_append_new(a, json_string(pl->groups[g].params[i]));
		json_array_append_new(groups, a);
	}
	json_object_set_new(root, "groups", groups);
	json_t *notes = json_array();
	for (int i = 0; i < pl->nnotes; i++)
		json_array_append_new(notes, json_string(pl->notes[i]));
	json_object_set_new(root, "notes", notes);
	if (dir)
		json_object_set_new(root, "diff", diff_json(pl, dir, d));
	char *rest = json_dumps(root, JSON_INDENT(2) | PLAN_JSON_FLAGS);
	fputs(rest + 2, stdout);      /* the rest of the object, without its "{\n" */
	putchar('\n');
	free(rest);
	json_decref(root);
}

static void print_cost(const struct plan *pl, double v)
{
	if (pl->cost_known && v >= 0)
		printf("%.4g core-hours", v);
	else
		printf("core-hours unknown");
}

static double saved(double part, double whole)
{
	return whole > 0 ? 100.0 * (1 - part / whole) : 0;
}

/* One decimal, but never "100.0%" for a saving that is not total, nor "-0.0%";
   a plan bigger than the factorial (contention points) saves nothing. */
static void print_pct(double v)
{
	if (v < 0)
		printf("none");
	else if (v < 0.05)
		printf("0.0%%");
	else if (v > 99.95 && v < 100)
		printf("%.2f%%", floor(v * 100) / 100);
	else
		printf("%.1f%%", v);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* One parameter's values seen in the plan: marked in its sorted distinct
   values, or kept aside when outside them (a contention point's may be). */
struct coverage {
	double *sorted;
	char *seen;
	int n;
	double *other;
	int nother;
	size_t oalloc;
	double lo, hi;
};

static void coverage_add(struct coverage *cv, double x)
{
	cv->lo = x < cv->lo ? x : cv->lo;
	cv->hi = x > cv->hi ? x : cv->hi;
	const double *at = bsearch(&x, cv->sorted, (size_t)cv->n, sizeof(double), cmp_double);
	if (at) {
		cv->seen[at - cv->sorted] = 1;
		return;
	}
	for (int i = 0; i < cv->nother; i++)
		if (cv->other[i] == x)
			return;
	XGROW(cv->other, (size_t)cv->nother + 1, cv->oalloc);
	cv->other[cv->nother++] = x;
}

/* --summary: for each parameter, how many of its values the plan measures
   (one pass over the points, however many). */
static void print_coverage(const struct plan *pl)
{
	struct coverage *cv = xcalloc((size_t)pl->nparams + 1, sizeof(*cv));
	for (int k = 0; k < pl->nparams; k++) {
		const struct plan_param *p = &pl->params[k];
		cv[k].sorted = xmalloc(sizeof(double) * (size_t)(p->nvalues + 1));
		memcpy(cv[k].sorted, p->values, sizeof(double) * (size_t)p->nvalues);
		qsort(cv[k].sorted, (size_t)p->nvalues, sizeof(double), cmp_double);
		for (int i = 0; i < p->nvalues; i++)
			if (!cv[k].n || cv[k].sorted[cv[k].n - 1] != cv[k].sorted[i])
				cv[k].sorted[cv[k].n++] = cv[k].sorted[i];
		cv[k].seen = xcalloc((size_t)cv[k].n + 1, 1);
		cv[k].lo = INFINITY;
		cv[k].hi = -INFINITY;
	}
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
		for (int k = 0; k < pl->nparams; k++)
			coverage_add(&cv[k], pt->values[k]);
	}
	printf("coverage:\n");
	for (int k = 0; k < pl->nparams; k++) {
		int distinct = cv[k].nother;
		for (int i = 0; i < cv[k].n; i++)
			distinct += cv[k].seen[i];
		printf("  %s: %d of %d values", pl->params[k].name, distinct, pl->params[k].nvalues);
		if (pl->npoints) {
			char lo[32], hi[32];
			value_text(lo, sizeof(lo), cv[k].lo);
			value_text(hi, sizeof(hi), cv[k].hi);
			printf(" (%s..%s)", lo, hi);
		}
		putchar('\n');
		free(cv[k].sorted);
		free(cv[k].seen);
		free(cv[k].other);
	}
	free(cv);
	free(vals);
}

static void print_header(const struct campaign_config *c, const struct plan *pl)
{
	printf("campaign '%s': strategy %s, %d points, %lld runs, ", c->name ? c->name : "?",
	       pl->strategy ? pl->strategy : "full", pl->npoints, pl->runs);
	print_cost(pl, pl->core_hours);
	printf("\n\n");
}

/* Every point: its values, placement, repetitions, cost (and reason). */
static void print_points(const struct plan *pl, int explain)
{
	int placed = 0;
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints && !placed; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
		placed = pt->nodes > 0 || pt->ranks_per_node > 0;
	}
	for (int k = 0; k < pl->nparams; k++)
		printf("%10s ", pl->params[k].name);
	if (placed)
		printf("%6s %5s %-8s ", "nodes", "rpn", "policy");
	printf("%5s %12s%s\n", "reps", "core-hours", explain ? "  reason" : "");
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
		for (int k = 0; k < pl->nparams; k++) {
			char v[64];
			template_format_value(v, sizeof(v), pt->values[k], pl->params[k].is_int);
			printf("%10s ", v);
		}
		if (placed && (pt->nodes > 0 || pt->ranks_per_node > 0))
			printf("%6d %5d %-8s ", pt->nodes, pt->ranks_per_node, pt->policy ? pt->policy : "-");
		else if (placed)        /* a point without a placement */
			printf("%6s %5s %-8s ", "-", "-", "-");
		if (pl->cost_known)
			printf("%5d %12.4g", pt->repetitions, pt->core_hours);
		else
			printf("%5d %12s", pt->repetitions, "-");
		if (explain)
			printf("  %s", pt->reason ? pt->reason : "");
		putchar('\n');
	}
	free(vals);
	putchar('\n');
}

/* --explain: what each run's collectors will read, a preset's patterns spelt out. */
static void print_collectors(const struct campaign_config *c)
{
	printf("collectors:%s\n", c->collect_wall || c->nregex || c->collect_cubex ? "" : " none");
	if (c->collect_wall)
		printf("  wall main/time\n");
	if (c->collect_preset)
		printf("  preset \"%s\": the first %d regex patterns below\n", c->collect_preset, c->npreset_regex);
	for (int i = 0; i < c->nregex; i++) {
		const struct regex_pattern *p = &c->regex[i];
		printf("  regex %s/%s in %s%s%s", p->region, p->metric, p->file ? p->file : p->stream,
		       p->optional ? ", optional" : "", p->aggregate ? ", " : "");
		printf("%s", p->aggregate ? p->aggregate : "");
		if (p->scale != 0)
			printf(", scale %g", p->scale);
		if (p->resolution > 0)
			printf(", resolution %g", p->resolution);
		printf(": %s\n", p->pattern);
	}
	if (c->collect_cubex)
		printf("  cubex\n");
	putchar('\n');
}

/* Totals against the full factorial, groups, pruned parameters, notes. */
static void print_summary(const struct plan *pl)
{
	printf("total:          %d points, %lld runs, ", pl->npoints, pl->runs);
	print_cost(pl, pl->core_hours);
	printf("\nfull factorial: %lld points, %lld runs, ", pl->full_points, pl->full_runs);
	print_cost(pl, pl->full_core_hours);
	printf("\nsaved:          ");
	print_pct(saved(pl->npoints, (double)pl->full_points));
	printf(" of points, ");
	print_pct(saved((double)pl->runs, (double)pl->full_runs));
	printf(" of runs");
	if (pl->cost_known && pl->full_core_hours > 0) {
		printf(", ");
		print_pct(saved(pl->core_hours, pl->full_core_hours));
		printf(" of core-hours");
	}
	if (pl->npoints > pl->full_points)
		printf(" (contention and placement points come on top of the factorial)");
	printf("\n");
	printf("multiplicative groups:%s\n", pl->ngroups ? "" : " none");
	for (int g = 0; g < pl->ngroups; g++) {
		const struct plan_group *gr = &pl->groups[g];
		printf("  ");
		for (int i = 0; i < gr->nparams; i++)
			printf("%s%s", i ? "*" : "", gr->params[i]);
		printf(": product term in ");
		for (int i = 0; i < gr->nfuncs; i++)
			printf("%s%s", i ? ", " : "", gr->funcs[i]);
		putchar('\n');
	}
	printf("pruned parameters:%s\n", pl->npruned ? "" : " none");
	for (int i = 0; i < pl->npruned; i++)   /* never silent: the reason, and how to keep it */
		printf("  %s: %s\n", pl->pruned[i], pl->pruned_why[i]);
	for (int i = 0; i < pl->nnotes; i++)
		printf("%s%s\n", strncmp(pl->notes[i], "warning:", 8) ? "note: " : "", pl->notes[i]);
}

/* What `run` would change in the campaign in dir. */
static void print_diff(const struct plan *pl, const char *dir, const struct store_diff *d)
{
	printf("\nagainst the campaign in %s:\n", dir);
	printf("  added:   %lld runs (%d new point%s), ", d->added, d->added_points, d->added_points == 1 ? "" : "s");
	print_cost(pl, d->added_core_hours);
	printf("\n  kept:    %lld runs (%lld done, %lld back from retired)\n", d->kept, d->kept_done, d->unretired);
	printf("  retired: %lld runs (%d point%s out of the plan; kept in the store, not analysed)\n",
	       d->retired, d->retired_points, d->retired_points == 1 ? "" : "s");
	if (d->kept_outside_points)
		printf("  outside the plan: %d point%s added by refine kept (%lld runs)\n", d->kept_outside_points,
		       d->kept_outside_points == 1 ? "" : "s", d->kept_outside);
}

static int exec_plan(struct cli_args *a)
{
	struct campaign_config cfg;
	struct perr err;
	struct plan pl;
	if (config_load(&cfg, a->args[0], &err)) {
		config_release(&cfg);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	const char *data = cli_value(a, 'v'), *html = cli_value(a, 'H');
	if (html && !data) {
		config_release(&cfg);
		return cli_usage("plan", "--html draws the evaluation: give --evaluate DATA");
	}
	if (data) {
		int ret = cli_value(a, 'd') ? cli_usage("plan", "--evaluate and --dir do not go together")
					    : plan_evaluate(&cfg, data, cli_flag(a, 'j'), html);
		config_release(&cfg);
		return ret;
	}
	/* the points stay compact, printed one at a time */
	int rc = plan_build_compact(&pl, &cfg, &err);
	if (rc) {
		config_release(&cfg);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	const char *dir = cli_value(a, 'd');
	struct store_diff d;
	if (dir)
		plan_materialize(&pl);      /* the store compares whole points */
	int found = dir ? campaign_diff(dir, &cfg, &pl, &d, &err) : 1;
	if (found <= 0) {
		if (!found)
			perr_set(&err, "'%s' is not a campaign directory (no campaign.db)", dir);
		config_release(&cfg);
		plan_release(&pl);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	if (cli_flag(a, 'j')) {
		print_json(&pl, dir, &d);
	} else {
		print_header(&cfg, &pl);
		if (!cli_flag(a, 's'))
			print_points(&pl, cli_flag(a, 'e'));
		if (cli_flag(a, 'e'))
			print_collectors(&cfg);
		print_summary(&pl);
		if (cli_flag(a, 's'))
			print_coverage(&pl);
		if (dir)
			print_diff(&pl, dir, &d);
	}
	config_release(&cfg);
	plan_release(&pl);
	return EXIT_OK;
}

static const struct cli_option plan_options[] = {
	{ "json", 'j', 0, NULL, NULL, NULL, "print the stable JSON contract, its points streamed", NULL, 0 },
	{ "explain", 'e', 0, NULL, NULL, NULL, "say why each point is in the plan and what the collectors read", NULL, 0 },
	{ "summary", 's', 0, NULL, NULL, NULL, "print the totals and each parameter's coverage, not the points", NULL, 0 },
	{ "dir", 'd', 1, NULL, "--dir needs the campaign directory to compare with", "DIR", "compare the plan with the campaign in DIR, as run would grow it", NULL, 0 },
	{ "evaluate", 'v', 1, NULL, "--evaluate needs DATA: a campaign, an Extra-P file or gen:EXPR", "DATA", "measure the design's accuracy against DATA or gen:EXPR", NULL, 0 },
	{ "html", 'H', 1, NULL, "--html needs the file to write", "FILE", "with --evaluate: a page of error against core-hours", "evaluate", 0 },
	{ 0 },
};

const struct cli_entry cmd_plan_entry = {
	.name = "plan",
	.synopsis = "CONFIG",
	.summary = "print the runs a campaign would execute, without running anything",
	.help = "--explain adds why each point is in the plan and what the collectors read (a\n"
		"collect.preset's regex patterns spelt out); --summary prints the totals, the\n"
		"budget's effect and each parameter's coverage without listing the points; --json\n"
		"prints the stable contract, its points streamed\n"
		"(docs/designs.md).  --dir DIR compares the plan with the campaign in DIR as 'run'\n"
		"would grow it: runs added (with their core-hours), kept and retired; --json adds\n"
		"it as \"diff\": {dir, added, added_points, added_core_hours, kept, kept_done, retired,\n"
		"retired_points, unretired, kept_outside, kept_outside_points}.  A config that\n"
		"changes what the stored runs mean (app.command, app.env, app.workdir, collect,\n"
		"backend, a parameter's role, an existing point's placement) is refused, as 'run'\n"
		"refuses it.\n"
		"--evaluate DATA measures what the design costs in accuracy: the config's design,\n"
		"the full factorial, lines only, cheapest first and the points where bootstrapped\n"
		"models disagree most, at the design's own cost and 10%..100% of the full\n"
		"factorial's, each with its models and their relative prediction error at points\n"
		"held out beyond the config's range.  DATA is a campaign or file measured on a\n"
		"fuller grid (its points beyond the config's values are held out), or a generated\n"
		"truth gen:EXPR[,noise=0.05][,seed=1][,seeds=N] (held out: one step beyond).\n"
		"--json prints the evaluation's contract; --html FILE adds a page with the error\n"
		"against core-hours, one line per strategy (docs/designs.md, \"Evaluating a\n"
		"design\").",
	.options = plan_options,
	.min_args = 1, .max_args = 1, .too_few = "missing CONFIG",
	.exec = exec_plan,
};
