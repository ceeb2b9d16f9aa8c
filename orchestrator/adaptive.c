/* Adaptive repetitions (adaptive.h). */
#include "orchestrator/adaptive.h"
#include "analysis/run_usage.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "validator/validate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The largest l (1-based) whose order statistics x_(l), x_(n+1-l) cover the median with >= 95%. */
static int ci_rank(int n)
{
	double below = 0, pk = pow(0.5, n);     /* P(B(n, 1/2) = k), from k = 0 */
	int l = 1;
	for (int k = 0; 2 * (k + 1) <= n; k++) {
		below += pk;                     /* P(B <= k) */
		if (1 - 2 * below < 0.95)
			break;
		l = k + 1;
		pk = pk * (n - k) / (k + 1);
	}
	return l;
}

double adaptive_median_ci(const struct exp_values *v)
{
	if (v->n < 2)
		return NAN;
	double *x = xmalloc((size_t)v->n * sizeof(double));
	memcpy(x, v->v, (size_t)v->n * sizeof(double));
	qsort(x, (size_t)v->n, sizeof(double), cmp_double);
	int l = ci_rank(v->n);
	double med = v->n % 2 ? x[v->n / 2] : (x[v->n / 2 - 1] + x[v->n / 2]) / 2;
	double w = (x[v->n - l] - x[l - 1]) / 2;
	free(x);
	return med != 0 ? fabs(w / med) : NAN;
}

void adaptive_spec_load(struct store *st, struct adaptive_spec *a)
{
	memset(a, 0, sizeof(*a));
	char *s = store_get_meta(st, "adaptive");
	if (s && sscanf(s, "%d %d %lf", &a->min, &a->max, &a->target) != 3)
		memset(a, 0, sizeof(*a));
	free(s);
}

int adaptive_spec_store(struct store *st, const struct adaptive_spec *a, struct perr *err)
{
	char buf[96] = "";
	if (a->target > 0)
		snprintf(buf, sizeof(buf), "%d %d %.17g", a->min, a->max, a->target);
	return store_set_meta(st, "adaptive", buf, err);
}

int adaptive_run_point(const struct experiment *e, int store_params, const struct run *r)
{
	int rpn = experiment_find_param(e, "ranks_per_node");
	double *c = xmalloc(((size_t)e->nparams + 1) * sizeof(double));
	for (int k = 0; k < store_params && k < e->nparams; k++)
		c[k] = r->values[k];
	if (rpn >= store_params)
		c[rpn] = r->ranks_per_node;
	int p = experiment_find_point(e, c);
	free(c);
	return p;
}

int adaptive_superseded(const struct run *runs, int n, int i)
{
	for (int j = 0; j < n; j++)
		if (j != i && runs[j].state == RUN_DONE && runs[j].point == runs[i].point &&
		    runs[j].repetition == runs[i].repetition && runs[j].remeasure > runs[i].remeasure)
			return 1;
	return 0;
}

/* Precision of point p over the series of metric m (every metric when m < 0). */
static void point_precision(const struct experiment *e, int m, int p, struct adaptive_point *ap)
{
	ap->nreps = -1;
	ap->ci = NAN;
	for (int s = 0; s < e->nseries; s++) {
		const struct exp_series *se = &e->series[s];
		const struct exp_values *v = &se->at[p];
		if ((m >= 0 && se->metric != m) || v->n == 0)
			continue;
		if (ap->nreps < 0 || v->n < ap->nreps)
			ap->nreps = v->n;
		double ci = adaptive_median_ci(v);
		if (!isnan(ci) && (isnan(ap->ci) || ci > ap->ci))
			ap->ci = ci;
	}
	if (ap->nreps < 0)
		ap->nreps = 0;
}

/* Point p's disturbed runs (u's runs carry experiment points) into ap. */
static void point_disturbed(const struct run_usage *u, int p, struct adaptive_point *ap)
{
	const struct disturbed_result *d = &u->disturbed;
	for (int i = 0; i < d->n; i++)
		if (d->runs[i].point == p) {
			if (!ap->disturbed)
				ap->disturbed = xcalloc((size_t)d->n, sizeof(*ap->disturbed));
			ap->disturbed[ap->ndisturbed++] = d->runs[i].run;
		}
}

static void fill_points(const struct experiment *e, const struct run_usage *u, int store_params,
			const struct run *runs, int nr, const struct adaptive_spec *a, struct adaptive_point *pts)
{
	int m = experiment_find_metric(e, "time");
	for (int i = 0; i < nr; i++) {
		if (runs[i].state != RUN_DONE)
			continue;
		int p = adaptive_run_point(e, store_params, &runs[i]);
		if (p < 0)
			continue;
		pts[p].nruns++;
		if (!pts[p].run && !adaptive_superseded(runs, nr, i))
			pts[p].run = runs[i].id;
	}
	for (int p = 0; p < e->npoints; p++) {
		struct strbuf sb;
		strbuf_init(&sb);
		validate_point_name(&sb, e, p);
		pts[p].name = strbuf_detach(&sb);
		point_precision(e, m, p, &pts[p]);
		point_disturbed(u, p, &pts[p]);
		int room = a->target > 0 && pts[p].nruns < a->max;
		pts[p].converging = room && (pts[p].ndisturbed ||
					     (pts[p].nreps < a->max && (isnan(pts[p].ci) || pts[p].ci > a->target)));
	}
}

int adaptive_points(struct store *st, const struct adaptive_spec *a, struct adaptive_point **pts, int *n,
		    struct perr *err)
{
	struct experiment e;
	struct run_usage u;
	struct run *runs = NULL;
	int nr = 0;
	*pts = NULL;
	*n = 0;
	experiment_init(&e);
	memset(&u, 0, sizeof(u));
	if (store_read_begin(st, err))
		return -1;
	/* the runs analysis reads, without the disturbed ones */
	int rc = run_usage_load(st, NULL, 0, &e, &u, err);
	if (!rc)
		rc = store_load_runs(st, 0, &runs, &nr, err);
	store_read_end(st);
	if (!rc && e.npoints) {
		*pts = xcalloc((size_t)e.npoints, sizeof(**pts));
		*n = e.npoints;
		fill_points(&e, &u, store_nparams(st), runs, nr, a, *pts);
	}
	runs_free(runs, nr);
	run_usage_release(&u);
	experiment_release(&e);
	return rc;
}

void adaptive_points_free(struct adaptive_point *pts, int n)
{
	for (int i = 0; i < n; i++) {
		free(pts[i].name);
		free(pts[i].disturbed);
	}
	free(pts);
}

/* The new run of one more measurement like done run r: its repetition rep
   again (0: the next free one); cores (RUN_CORES_TEXT bytes) holds its
   point's cores per rank (a threads parameter's), if the store has them. */
static struct store_new_run new_run_like(const struct campaign_config *c, const struct run *r, int rep,
					 char *cores)
{
	const char *cpr = run_cores_per_rank(r, cores);
	return (struct store_new_run){ .values = r->values, .nodes = r->nodes,
				       .ranks_per_node = r->ranks_per_node, .policy = r->policy,
				       .map = c->placement_map, .cores_per_rank = cpr ? cpr : c->cores_per_rank,
				       .core_hours = r->core_hours, .origin = "adaptive", .repetition = rep };
}

/*
 * Append this pass's runs: at every converging point its disturbed
 * repetitions again (as many as max leaves room for), or else one more
 * repetition; *added gets how many.
 */
static int add_pass(struct store *st, const struct campaign_config *c, const struct adaptive_spec *a,
		    int *added, struct perr *err)
{
	struct adaptive_point *pts;
	int n, k = 0, total = 0;
	*added = 0;
	if (adaptive_points(st, a, &pts, &n, err))
		return -1;
	for (int p = 0; p < n; p++)
		total += pts[p].ndisturbed + 1;
	struct store_new_run *nr = xcalloc((size_t)total + 1, sizeof(*nr));
	struct run *runs = xcalloc((size_t)total + 1, sizeof(*runs));
	char (*cores)[RUN_CORES_TEXT] = xcalloc((size_t)total + 1, RUN_CORES_TEXT);
	int rc = 0;
	for (int p = 0; p < n && !rc; p++) {
		if (!pts[p].converging || !pts[p].run)
			continue;
		if (!pts[p].ndisturbed) {
			rc = store_load_run(st, pts[p].run, &runs[k], err);
			if (!rc) {
				nr[k] = new_run_like(c, &runs[k], 0, cores[k]);
				k++;
			}
			continue;
		}
		for (int i = 0; i < pts[p].ndisturbed && i < a->max - pts[p].nruns && !rc; i++) {
			rc = store_load_run(st, pts[p].disturbed[i], &runs[k], err);
			if (!rc) {
				nr[k] = new_run_like(c, &runs[k], runs[k].repetition, cores[k]);
				k++;
			}
		}
	}
	if (!rc && k)
		rc = store_append_runs(st, nr, k, NULL, err);
	if (!rc)
		*added = k;
	for (int i = 0; i < k; i++)
		run_release(&runs[i]);
	free(runs);
	free(nr);
	free(cores);
	adaptive_points_free(pts, n);
	return rc;
}

int campaign_execute(struct store *st, const struct campaign_config *c, struct backend *b,
		     const struct runner_options *o, struct runner_stats *stats, int *passes,
		     struct perr *err)
{
	struct adaptive_spec a = { c->repetitions, c->repetitions_max, c->repetitions_target };
	struct runner_stats s;
	memset(stats, 0, sizeof(*stats));
	*passes = 0;
	if (adaptive_spec_store(st, &a, err))
		return -1;
	for (;;) {
		if (runner_execute(st, c, b, o, &s, err))
			return -1;
		runner_stats_add(stats, &s);
		if (a.target <= 0 || s.interrupted || s.budget_stopped || s.failed)
			return 0;
		int added;
		if (add_pass(st, c, &a, &added, err))
			return -1;
		if (!added)
			return 0;
		(*passes)++;
	}
}
