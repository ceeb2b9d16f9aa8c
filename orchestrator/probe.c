/* `perfsweep probe`: the campaign's cheapest point, a few times, now (probe.h). */
#include "orchestrator/probe.h"
#include "analysis/run_usage.h"
#include "campaign/campaign_config.h"
#include "campaign/store.h"
#include "common/clock.h"
#include "common/strbuf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/backend.h"
#include "orchestrator/local/backend_local.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/runner.h"
#include "validator/power.h"
#include <errno.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What point i costs, for comparing: its estimate when a cost model priced
   it, else the product of its values over each parameter's smallest. */
static double cost_key(const struct plan *pl, int i)
{
	const struct plan_point *p = &pl->points[i];
	if (pl->cost_known && p->core_hours > 0 && p->repetitions > 0)
		return p->core_hours / p->repetitions;
	double key = 1;
	for (int k = 0; k < pl->nparams; k++) {
		const struct plan_param *q = &pl->params[k];
		double lo = q->values[0];
		for (int j = 1; j < q->nvalues; j++)
			lo = fmin(lo, q->values[j]);
		key *= lo > 0 && p->values[k] > 0 ? p->values[k] / lo : 1;
	}
	return key * (p->ranks_per_node > 0 ? p->ranks_per_node : 1);
}

/* The index of pl's nth cheapest point (n from 0; ties in plan order), or -1. */
static int nth_cheapest(const struct plan *pl, int n)
{
	for (int i = 0; i < pl->npoints; i++) {
		int below = 0;
		for (int j = 0; j < pl->npoints; j++)
			below += cost_key(pl, j) < cost_key(pl, i) || (cost_key(pl, j) == cost_key(pl, i) && j < i);
		if (below == n)
			return i;
	}
	return -1;
}

/* Keep only point best of pl, with runs repetitions. */
static void keep_point(struct plan *pl, int best, int runs)
{
	for (int i = 0; i < pl->npoints; i++) {
		if (i == best)
			continue;
		struct plan_point *p = &pl->points[i];
		free(p->values);
		free(p->policy);
		free(p->map);
		free(p->cores_per_rank);
		free(p->reason);
	}
	struct plan_point kept = pl->points[best];
	if (kept.repetitions > 0)
		kept.core_hours *= (double)runs / kept.repetitions;
	kept.repetitions = runs;
	pl->points[0] = kept;
	pl->npoints = 1;
	pl->runs = runs;
	pl->core_hours = kept.core_hours;
	pl->dropped = 0;
}

static char *point_name(const struct plan *pl)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int k = 0; k < pl->nparams; k++)
		strbuf_addf(&sb, "%s%s=%g", k ? ", " : "", pl->params[k].name, pl->points[0].values[k]);
	return strbuf_detach(&sb);
}

/* The smallest growth along a parameter's values vals[0..n) at relative noise cov, reps repetitions each. */
static double detectable_growth(const double *vals, int n, double cov, int reps)
{
	double mean = gsl_stats_mean(vals, 1, (size_t)n), sxx = 0, lo = vals[0], hi = vals[0];
	for (int i = 0; i < n; i++) {
		sxx += (vals[i] - mean) * (vals[i] - mean);
		lo = fmin(lo, vals[i]);
		hi = fmax(hi, vals[i]);
	}
	if (!(sxx > 0) || !isfinite(cov))
		return NAN;
	/* the slope test's standard error, over the range */
	return power_t_detectable(cov * (hi - lo) / sqrt(reps * sxx), n * reps - 2, PROBE_ALPHA, PROBE_POWER);
}

/* What the campaign's repetitions can detect at the probe's noise. */
static void detectable(const struct plan *full, struct probe_result *r)
{
	int reps = r->repetitions;
	r->detectable_difference = isfinite(r->cov) && reps >= 2
		? power_t_detectable(r->cov * sqrt(2.0 / reps), 2 * reps - 2, PROBE_ALPHA, PROBE_POWER) : NAN;
	r->params = xcalloc((size_t)full->nparams + 1, sizeof(char *));
	r->detectable_growth = xcalloc((size_t)full->nparams + 1, sizeof(double));
	for (int k = 0; k < full->nparams; k++) {
		const struct plan_param *q = &full->params[k];
		if (q->nvalues < 2)
			continue;
		r->params[r->nparams] = xstrdup(q->name);
		r->detectable_growth[r->nparams++] = detectable_growth(q->values, q->nvalues, r->cov, reps);
	}
}

static double cov_of(const double *v, int n)
{
	if (n < 2)
		return NAN;
	double m = gsl_stats_mean(v, 1, (size_t)n);
	return m != 0 ? gsl_stats_sd_m(v, 1, (size_t)n, m) / fabs(m) : NAN;
}

static int by_mean(const void *a, const void *b)
{
	double x = ((const struct probe_region *)a)->mean, y = ((const struct probe_region *)b)->mean;
	return (x < y) - (x > y);
}

/* Per region, the metric's mean and noise over all runs (all) and the undisturbed ones (kept). */
static void regions(struct probe_result *r, const struct experiment *all, const struct experiment *kept)
{
	int m = experiment_find_metric(all, r->metric);
	r->regions = xcalloc((size_t)all->nseries + 1, sizeof(*r->regions));
	for (int s = 0; s < all->nseries; s++) {
		const struct exp_series *x = &all->series[s];
		if (x->metric != m || all->npoints < 1 || x->at[0].n < 1)
			continue;
		struct probe_region *g = &r->regions[r->nregions++];
		g->region = xstrdup(all->callpaths[x->callpath]);
		g->n = x->at[0].n;
		g->mean = gsl_stats_mean(x->at[0].v, 1, (size_t)g->n);
		g->cov = cov_of(x->at[0].v, g->n);
		int kc = experiment_find_callpath(kept, g->region), km = experiment_find_metric(kept, r->metric);
		const struct exp_values *kv = kc >= 0 && km >= 0 && kept->npoints ? experiment_values(kept, kc, km, 0) : NULL;
		g->kept = kv ? kv->n : 0;
		g->cov_kept = kv ? cov_of(kv->v, kv->n) : NAN;
	}
	qsort(r->regions, (size_t)r->nregions, sizeof(*r->regions), by_mean);
	r->cov = NAN;
	if (r->nregions)
		r->cov = isfinite(r->regions[0].cov_kept) ? r->regions[0].cov_kept : r->regions[0].cov;
}

static int by_share(const void *a, const void *b)
{
	double x = ((const struct disturbed_cause *)a)->share, y = ((const struct disturbed_cause *)b)->share;
	return (x < y) - (x > y);
}

/* The disturbed runs' causes, once per process and core (its largest share). */
static void all_causes(struct probe_result *r)
{
	size_t alloc = 0;
	for (int i = 0; i < r->disturbed.n; i++)
		for (int k = 0; k < r->disturbed.runs[i].ncauses; k++) {
			const struct disturbed_cause *c = &r->disturbed.runs[i].causes[k];
			int j = 0;
			while (j < r->ncauses && !(r->causes[j].pid == c->pid && r->causes[j].core == c->core))
				j++;
			if (j == r->ncauses) {
				XGROW(r->causes, (size_t)r->ncauses + 1, alloc);
				r->causes[r->ncauses++] = *c;
			} else {
				r->causes[j].share = fmax(r->causes[j].share, c->share);
			}
		}
	if (r->ncauses)
		qsort(r->causes, (size_t)r->ncauses, sizeof(*r->causes), by_share);
}

/* Judge the probe's store: disturbed runs, the metric, the regions' noise. */
static int judge(struct store *st, struct probe_result *r, struct perr *err)
{
	struct experiment all, kept;
	struct run_usage u;
	experiment_init(&all);
	experiment_init(&kept);
	int rc = store_load_experiment_with(st, NULL, 0, &all, err);
	if (!rc && !all.nmetrics)
		rc = perr_set(err, "the probe's runs gave no measurement: check the campaign's collect section");
	if (!rc) {
		r->metric = xstrdup(experiment_find_metric(&all, "time") >= 0 ? "time" : all.metrics[0]);
		rc = run_usage_load(st, r->metric, 0, &kept, &u, err);
		if (!rc) {
			r->disturbed = u.disturbed;
			memset(&u.disturbed, 0, sizeof(u.disturbed));
			regions(r, &all, &kept);
			all_causes(r);
		}
		run_usage_release(&u);
	}
	experiment_release(&all);
	experiment_release(&kept);
	return rc;
}


/* Run the one-point plan pl in a campaign at dir, and judge it. */
static int run_and_judge(const struct campaign_config *cfg, const struct probe_options *o, const char *dir,
			 const struct plan *pl, struct probe_result *r, struct perr *err)
{
	struct store *st = NULL;
	struct backend *b = NULL;
	char *name = xasprintf("%s-probe", cfg->name);
	int rc = store_create(&st, dir, name, "local", cfg->text, pl, err);
	free(name);
	if (!rc)
		rc = campaign_save_config(st, cfg, err);
	if (!rc)
		rc = backend_local_new(&b, 1, err);
	struct runner_options ro = { .bind_path = o->bind_path, .stop = o->stop };
	struct runner_stats stats;
	if (!rc)
		rc = runner_execute(st, cfg, b, &ro, &stats, err);
	if (!rc) {
		r->done = stats.done;
		if (stats.interrupted)
			rc = perr_set(err, "interrupted");
		else if (!stats.done)
			rc = perr_set(err, "none of the probe's %d runs succeeded: try `perfsweep run` on the campaign "
				      "to see why", r->runs);
	}
	if (!rc)
		rc = judge(st, r, err);
	if (b)
		b->ops->free(b);
	store_close(st);
	return rc;
}

/* The scratch campaign's directory (and *tmp, the temporary one to remove, or NULL). */
static char *scratch_dir(const struct probe_options *o, char **tmp, struct perr *err)
{
	*tmp = NULL;
	if (o->dir) {
		struct stat sb;
		if (stat(o->dir, &sb) == 0)
			return perr_set(err, "'%s' exists: --dir names a new directory for the probe's campaign",
					o->dir), NULL;
		if (o->dir[0] == '/')
			return xstrdup(o->dir);
		/* absolute: the runs work in their own directories */
		char *cwd = getcwd(NULL, 0), *abs = xasprintf("%s/%s", cwd ? cwd : ".", o->dir);
		free(cwd);
		return abs;
	}
	const char *base = getenv("TMPDIR");
	*tmp = xasprintf("%s/perfsweep-probe-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(*tmp)) {
		perr_set(err, "cannot make a directory in '%s': %s", base && *base ? base : "/tmp", strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return xasprintf("%s/probe.campaign", *tmp);
}

/* What a try at a point found, forgotten for the next (dearer) point. */
static void forget_judgement(struct probe_result *r)
{
	free(r->metric);
	disturbed_result_release(&r->disturbed);
	free(r->causes);
	for (int i = 0; i < r->nregions; i++)
		free(r->regions[i].region);
	free(r->regions);
	r->metric = NULL;
	r->causes = NULL;
	r->regions = NULL;
	r->ncauses = r->nregions = r->done = 0;
	r->cov = NAN;
}

/*
 * The cheapest point whose runs can be judged: one whose runs all last
 * under the rule's shortest (0.1 s; a fast core runs a small input in
 * less) says nothing of the machine, and would say "go" for it; the next
 * dearer point is tried then, up to PROBE_TRIES points.
 */
int probe_run(const struct campaign_config *cfg, const struct probe_options *o, struct probe_result *r,
	      struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->runs = o->runs > 0 ? o->runs : PROBE_RUNS;
	r->repetitions = cfg->repetitions;
	r->cov = r->detectable_difference = NAN;
	census_signals_probe(&r->signals);
	struct plan full;
	if (plan_build(&full, cfg, err))
		return -1;
	char *tmp;
	char *dir = scratch_dir(o, &tmp, err);
	double t0 = mono_now();
	int rc = dir ? 0 : -1;
	for (int n = 0; !rc && n < PROBE_TRIES; n++) {
		int at = nth_cheapest(&full, n);
		if (at < 0)
			break;
		struct plan pl;
		if ((rc = plan_build(&pl, cfg, err)))
			break;
		keep_point(&pl, at, r->runs);
		if (r->point) {   /* the last try's: too short */
			r->too_short = xrealloc(r->too_short, sizeof(char *) * (size_t)(r->ntoo_short + 1));
			r->too_short[r->ntoo_short++] = r->point;
			forget_judgement(r);
			fs_remove_tree(dir);
		}
		r->point = point_name(&pl);
		rc = run_and_judge(cfg, o, dir, &pl, r, err);
		plan_release(&pl);
		if (rc || r->disturbed.njudged > 0)
			break;
	}
	r->seconds = mono_now() - t0;
	if (!rc && !r->point)
		rc = perr_set(err, "the campaign has no point to probe");
	if (!rc) {
		detectable(&full, r);
		r->busy = r->disturbed.n > 0;
		r->unjudged = r->disturbed.njudged == 0;   /* no "go" that nothing backs */
	}
	if (tmp)
		fs_remove_tree(tmp);
	free(tmp);
	free(dir);
	plan_release(&full);
	return rc;
}

void probe_result_release(struct probe_result *r)
{
	free(r->point);
	for (int i = 0; i < r->ntoo_short; i++)
		free(r->too_short[i]);
	free(r->too_short);
	forget_judgement(r);
	for (int i = 0; i < r->nparams; i++)
		free(r->params[i]);
	free(r->params);
	free(r->detectable_growth);
	memset(r, 0, sizeof(*r));
}
