/*
 * Refinement proposals: findings in, runs out (refine.h).  Pure: no I/O.
 */
#include "refine/refine.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/plan.h"
#include "models/points.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = { "outlier", "noise", "segmented", "extrapolation", "contention",
					   "disturbed", "accuracy" };

/* Base value of each kind: disturbed runs first, then blocking findings, extrapolation last
   (accuracy proposals come after all of them, refine_accuracy.c) */
static const double kind_value[] = { 200, 300, 300, 100, 150, 400, 0 };

const char *refine_kind_name(enum refine_kind k)
{
	return k >= 0 && k < REFINE_NKINDS ? kind_names[k] : "?";
}

/* Proposals under construction. */
struct plist {
	int n;
	size_t alloc;
	struct refine_proposal *p;
};

static int same_coords(const double *a, const double *b, int n)
{
	for (int k = 0; k < n; k++)
		if (fabs(a[k] - b[k]) > 1e-9 * fmax(1, fabs(a[k])))
			return 0;
	return 1;
}

/* The existing point at coords, or -1. */
static int find_point(const struct refine_space *s, const double *coords)
{
	for (int p = 0; p < s->npoints; p++)
		if (same_coords(s->points[p].coords, coords, s->nparams))
			return p;
	return -1;
}

/* "n=5,p=2" */
static void coords_name(struct strbuf *sb, const struct refine_space *s, const double *c)
{
	point_text(sb, (const char *const *)s->params, c, s->nparams, ",");
}

/*
 * Add (or merge into an existing proposal of the same kind and coordinates)
 * a proposal.  A merge keeps the larger repetitions and value and appends
 * the region to the reason.  Returns the proposal.
 */
static struct refine_proposal *padd(struct plist *l, const struct refine_space *s, enum refine_kind kind,
				    int from, const double *coords, int rep, int reps, double run_ch,
				    double value, const char *reason)
{
	for (int i = 0; i < l->n; i++) {
		struct refine_proposal *q = &l->p[i];
		if (q->kind != kind || q->rep != rep || !same_coords(q->coords, coords, s->nparams))
			continue;
		if (reps > q->repetitions) {
			q->core_hours = q->core_hours / q->repetitions * reps;
			q->repetitions = reps;
		}
		q->value = fmax(q->value, value);
		return q;
	}
	if ((size_t)l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 8;
		l->p = xrealloc(l->p, l->alloc * sizeof(*l->p));
	}
	struct refine_proposal *q = &l->p[l->n++];
	memset(q, 0, sizeof(*q));
	q->coords = xmalloc((size_t)s->nparams * sizeof(double));
	memcpy(q->coords, coords, (size_t)s->nparams * sizeof(double));
	q->ncoords = s->nparams;
	q->point = find_point(s, coords);
	q->from = from;
	q->rep = rep;
	q->repetitions = reps;
	q->core_hours = reps * run_ch;
	q->kind = kind;
	q->value = value;
	q->reason = xstrdup(reason);
	return q;
}

static void propose_outlier(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	const struct refine_point *pt = &s->points[f->point];
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s: repetition %d at ", f->region, f->rep + 1);
	coords_name(&sb, s, pt->coords);
	strbuf_addf(&sb, " is an outlier (%.2fx the median); rerun it as a new attempt", f->severity);
	padd(l, s, REFINE_OUTLIER, f->point, pt->coords, f->rep, 1, pt->run_core_hours,
	     kind_value[REFINE_OUTLIER] + fmin(f->severity, 99), sb.buf);
	strbuf_release(&sb);
}

static void propose_disturbed(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	const struct refine_point *pt = &s->points[f->point];
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "run %lld (repetition %d at ", f->run, f->rep);
	coords_name(&sb, s, pt->coords);
	if (f->severity > 0)
		strbuf_addf(&sb, ") was disturbed (its ranks got %.0f%% of their cores); measure it again first",
			    100 * (1 - f->severity));
	else
		strbuf_addstr(&sb, ") was disturbed (the scheduler kept taking its cores away); measure it again first");
	padd(l, s, REFINE_DISTURBED, f->point, pt->coords, f->rep, 1, pt->run_core_hours,
	     kind_value[REFINE_DISTURBED] + fmin(100 * f->severity, 99), sb.buf);
	strbuf_release(&sb);
}

static void propose_noise(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	const struct refine_point *pt = &s->points[f->point];
	int add = pt->nreps < 3 ? 3 : pt->nreps;
	if (s->max_repetitions > 0 && pt->nreps + add > s->max_repetitions)
		add = s->max_repetitions - pt->nreps;
	if (add <= 0)
		return;
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s: noisy at ", f->region);
	coords_name(&sb, s, pt->coords);
	strbuf_addf(&sb, " (CoV %.2f over %d repetitions); %d more repetitions", f->severity,
		    pt->nreps, add);
	padd(l, s, REFINE_NOISE, f->point, pt->coords, -1, add, pt->run_core_hours,
	     kind_value[REFINE_NOISE] + fmin(100 * f->severity, 99), sb.buf);
	strbuf_release(&sb);
}

/* The larger of the costs of two neighbours along a line (the point itself if none). */
static double neighbour_cost(const struct refine_space *s, const double *c, int k, double lo, double hi)
{
	double *q = xmalloc((size_t)s->nparams * sizeof(double));
	double cost = 0;
	for (int side = 0; side < 2; side++) {
		memcpy(q, c, (size_t)s->nparams * sizeof(double));
		q[k] = side ? hi : lo;
		int p = find_point(s, q);
		if (p >= 0)
			cost = fmax(cost, s->points[p].run_core_hours);
	}
	free(q);
	return cost;
}

static void propose_segment(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	int k = f->param;
	double xs[SEGMENT_BETWEEN_POINTS];
	int nx = segment_between_values(f->lo, f->hi, s->is_int[k], xs);
	double *c = xmalloc((size_t)s->nparams * sizeof(double));
	memcpy(c, s->points[f->point].coords, (size_t)s->nparams * sizeof(double));
	double cost = neighbour_cost(s, c, k, f->lo, f->hi);
	for (int i = 0; i < nx; i++) {
		c[k] = xs[i];
		if (find_point(s, c) >= 0)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s: the regime changes along %s between %g and %g; new point ", f->region,
			    s->params[k], f->lo, f->hi);
		coords_name(&sb, s, c);
		strbuf_addf(&sb, " locates it");
		padd(l, s, REFINE_SEGMENTED, f->point, c, -1, s->repetitions, cost,
		     kind_value[REFINE_SEGMENTED] + fmin(10 * f->severity, 9), sb.buf);
		strbuf_release(&sb);
	}
	free(c);
}

/* The largest and the next largest value of parameter k among the points. */
static void top_values(const struct refine_space *s, int k, double *top, double *next)
{
	*top = -INFINITY;
	*next = -INFINITY;
	for (int p = 0; p < s->npoints; p++)
		*top = fmax(*top, s->points[p].coords[k]);
	for (int p = 0; p < s->npoints; p++)
		if (s->points[p].coords[k] < *top)
			*next = fmax(*next, s->points[p].coords[k]);
}

static void propose_extrap(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	int k = f->param;
	double top, next;
	if (s->extending && s->extending[k])    /* the last extension has no result yet */
		return;
	top_values(s, k, &top, &next);
	if (!isfinite(next))
		return;
	int geo = next > 0 && top / next >= 1.5;
	double x = plan_step_beyond(top, next, s->is_int[k]);
	double growth = geo ? top / next : x / top;
	for (int p = 0; p < s->npoints; p++) {
		const struct refine_point *pt = &s->points[p];
		if (pt->coords[k] != top)
			continue;
		double *c = xmalloc((size_t)s->nparams * sizeof(double));
		memcpy(c, pt->coords, (size_t)s->nparams * sizeof(double));
		c[k] = x;
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s: the model is unstable beyond %s=%g (error %.0f%%); new point ", f->region,
			    s->params[k], top, 100 * f->severity);
		coords_name(&sb, s, c);
		padd(l, s, REFINE_EXTRAPOLATION, p, c, -1, s->repetitions, pt->run_core_hours * growth,
		     kind_value[REFINE_EXTRAPOLATION] + fmin(10 * f->severity, 9), sb.buf);
		strbuf_release(&sb);
		free(c);
	}
}

static void propose_contention(struct plist *l, const struct refine_space *s, const struct refine_finding *f)
{
	int k = f->param;
	const struct refine_point *base = &s->points[f->point];
	double *c = xmalloc((size_t)s->nparams * sizeof(double));
	for (int p = 0; p < s->npoints; p++) {
		memcpy(c, base->coords, (size_t)s->nparams * sizeof(double));
		c[k] = s->points[p].coords[k];
		if (find_point(s, c) >= 0)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_addf(&sb, "%s: contention along %s is not testable: no line; new point ", f->region,
			    s->params[k]);
		coords_name(&sb, s, c);
		strbuf_addf(&sb, " on the baseline's line");
		padd(l, s, REFINE_CONTENTION, f->point, c, -1, s->repetitions, base->run_core_hours,
		     kind_value[REFINE_CONTENTION], sb.buf);
		strbuf_release(&sb);
	}
	free(c);
}

/* Most valuable first; ties by kind, then coordinates, then repetition. */
static int cmp_value(const void *a, const void *b)
{
	const struct refine_proposal *x = a, *y = b;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (int k = 0; k < x->ncoords; k++)
		if (x->coords[k] != y->coords[k])
			return x->coords[k] < y->coords[k] ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

void refine_propose(const struct refine_space *s, const struct refine_finding *f, int nf,
		    struct refine_result *r)
{
	static void (*const by_kind[])(struct plist *, const struct refine_space *,
				       const struct refine_finding *) = {
		propose_outlier, propose_noise, propose_segment, propose_extrap, propose_contention,
		propose_disturbed,
	};
	struct plist l = { 0, 0, NULL };
	memset(r, 0, sizeof(*r));
	/* a point's noise waits for its disturbed runs to be measured again: they may explain it */
	unsigned char *rerun = xcalloc((size_t)s->npoints + 1, 1);
	for (int i = 0; i < nf; i++)
		if (f[i].kind == REFINE_DISTURBED && f[i].point >= 0 && f[i].point < s->npoints)
			rerun[f[i].point] = 1;
	for (int i = 0; i < nf; i++)
		if (f[i].kind >= 0 && f[i].kind < REFINE_ACCURACY && f[i].point >= 0 && f[i].point < s->npoints &&
		    !(f[i].kind == REFINE_NOISE && rerun[f[i].point]))
			by_kind[f[i].kind](&l, s, &f[i]);
	free(rerun);
	if (l.n)
		qsort(l.p, (size_t)l.n, sizeof(*l.p), cmp_value);
	/* most valuable first: keep what fits, drop the rest (in value order) */
	struct refine_proposal *sorted = l.p;
	l.p = l.n ? xmalloc((size_t)l.n * sizeof(*l.p)) : NULL;
	double used = 0;
	int keep = 0, drop = l.n;
	for (int i = 0; i < l.n; i++) {
		int fits = s->budget < 0 || used + sorted[i].core_hours <= s->budget * (1 + 1e-9);
		if (fits) {
			used += sorted[i].core_hours;
			l.p[keep++] = sorted[i];
		} else {
			l.p[--drop] = sorted[i];
		}
	}
	/* the dropped were filled from the end: restore their value order */
	for (int i = drop, j = l.n - 1; i < j; i++, j--) {
		struct refine_proposal t = l.p[i];
		l.p[i] = l.p[j];
		l.p[j] = t;
	}
	free(sorted);
	r->nproposals = keep;
	r->proposals = l.p;
	r->ndropped = l.n - keep;
	r->dropped = r->ndropped ? l.p + keep : NULL;
	r->used = used;
	r->remaining = s->budget;
}

void refine_result_release(struct refine_result *r)
{
	int n = r->nproposals + r->ndropped;
	for (int i = 0; i < n; i++) {
		free(r->proposals[i].coords);
		free(r->proposals[i].reason);
	}
	free(r->proposals);
	memset(r, 0, sizeof(*r));
}

/* Findings under construction. */
struct flist {
	int n;
	size_t alloc;
	struct refine_finding *f;
};

static struct refine_finding *finding_add(struct flist *l, enum refine_kind kind, const char *region, int point)
{
	if ((size_t)l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 8;
		l->f = xrealloc(l->f, l->alloc * sizeof(*l->f));
	}
	struct refine_finding *f = &l->f[l->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->region = region;
	f->point = point;
	f->rep = -1;
	f->param = -1;
	return f;
}

/* The baseline: the point with the smallest coordinates (in parameter order) but along k. */
static int baseline_point(const struct experiment *e, int k)
{
	int best = -1;
	for (int p = 0; p < e->npoints; p++) {
		if (best < 0) {
			best = p;
			continue;
		}
		for (int j = 0; j < e->nparams; j++) {
			double a = experiment_coord(e, p, j), b = experiment_coord(e, best, j);
			if (j == k || a == b)
				continue;
			if (a < b)
				best = p;
			break;
		}
	}
	return best;
}

/* A point at parameter k's value x, or -1. */
static int point_at(const struct experiment *e, int k, double x)
{
	for (int p = 0; p < e->npoints; p++)
		if (experiment_coord(e, p, k) == x)
			return p;
	return -1;
}

/* Every disturbed run at a measured point: measure its repetition again. */
static void disturbed_findings(struct flist *l, const struct validation *v)
{
	const struct disturbed_result *res = v->disturbed.res;
	for (int i = 0; res && i < res->n; i++) {
		const struct disturbed_run *d = &res->runs[i];
		if (d->point < 0)
			continue;
		struct refine_finding *f = finding_add(l, REFINE_DISTURBED, "", d->point);
		f->rep = d->repetition;
		f->run = d->run;
		/* how far below its allowed share: larger is worse */
		f->severity = d->allowed > 0 ? fmax(0, 1 - d->share / d->allowed) : 0;
	}
}

/*
 * Is an outlier worth a new attempt: does keeping it in move its point's
 * estimate by min_growth (enough to change a model or a flag), or is it
 * further from the median than noise explains: REFINE_OUTLIER_NOISE times
 * the point's noise (the larger of its CoV without outliers and the
 * region's median CoV), and at least the noise threshold (closer, it
 * could not make the point noisy either)?
 */
static int outlier_matters(const struct validation *v, const struct vregion *r, const struct noise_outlier *o)
{
	const struct exp_series *s = experiment_series(v->e, r->callpath, r->metric);
	const struct exp_values *vals = &s->at[o->point];
	double scov = point_series_cov(s->at, v->e->npoints);
	enum point_side side = point_side_of_series(v->e, s);
	struct point_estimate in, out;
	point_estimate(vals, v->opt.model.aggregate, 0, scov, side, &in);
	point_estimate(vals, v->opt.model.aggregate, 1, scov, side, &out);
	if (out.value != 0 && fabs(in.value - out.value) >= v->opt.min_growth * fabs(out.value))
		return 1;
	double noise = r->noise.cov[o->point];
	if (!(noise >= r->noise.median_cov))
		noise = r->noise.median_cov;
	return isfinite(noise) && fabs(o->ratio - 1) > fmax(REFINE_OUTLIER_NOISE * noise, v->opt.cov_threshold);
}

/*
 * The region's share of its metric's total: its values summed over the
 * points (each point's median), over the same sum of the top-level regions
 * (call paths without "->"); 1 when there is nothing to compare with.
 */
double refine_region_share(const struct validation *v, const struct vregion *r)
{
	double mine = 0, total = 0;
	for (int ri = 0; ri < v->nregions; ri++) {
		const struct vregion *q = &v->regions[ri];
		if (q->metric != r->metric)
			continue;
		const struct exp_series *s = experiment_series(v->e, q->callpath, q->metric);
		double sum = 0;
		for (int p = 0; s && p < v->e->npoints; p++)
			if (s->at[p].n)
				sum += fabs(point_median(&s->at[p]));
		if (q == r)
			mine = sum;
		if (!strstr(v->e->callpaths[q->callpath], "->"))
			total += sum;
	}
	return total > 0 ? mine / total : 1;
}

/* Is region ri flagged segmented along k?  Then its one model spans two regimes, and
   that it mispredicts beyond the range is the regime change, not a reason to extend. */
static int segmented_along(const struct validation *v, int ri, int k)
{
	for (int i = 0; i < v->nflags; i++)
		if (v->flags[i].region == ri && v->flags[i].kind == VFLAG_SEGMENTED && v->flags[i].param == k)
			return 1;
	return 0;
}

static void region_findings(struct flist *l, const struct validation *v, int ri)
{
	const struct vregion *r = &v->regions[ri];
	const char *name = v->e->callpaths[r->callpath];
	for (int i = 0; i < r->noise.noutliers; i++) {
		const struct noise_outlier *o = &r->noise.outliers[i];
		if (!outlier_matters(v, r, o))
			continue;
		struct refine_finding *f = finding_add(l, REFINE_OUTLIER, name, o->point);
		f->rep = o->rep;
		f->severity = o->ratio;
	}
	for (int p = 0; p < r->noise.npoints; p++)
		if (r->noise.noisy && r->noise.noisy[p])
			finding_add(l, REFINE_NOISE, name, p)->severity = r->noise.cov[p];
	for (int k = 0; k < v->e->nparams; k++) {
		const struct extrap_result *x = &r->extrap[k];
		if (!r->extrap_tested || !r->extrap_tested[k] || !x->unstable || segmented_along(v, ri, k))
			continue;
		struct refine_finding *f = finding_add(l, REFINE_EXTRAPOLATION, name, point_at(v->e, k, x->xmax));
		f->param = k;
		f->severity = x->error;
	}
}

void refine_findings(const struct validation *v, double min_share, struct refine_finding **out, int *nout)
{
	struct flist l = { 0, 0, NULL };
	/* regions below min_share of the time drive no runs: they are only reported */
	unsigned char *small = xcalloc((size_t)v->nregions + 1, 1);
	for (int ri = 0; ri < v->nregions; ri++)
		small[ri] = min_share > 0 && v->regions[ri].share < min_share;   /* the validator's share */
	disturbed_findings(&l, v);
	for (int ri = 0; ri < v->nregions; ri++)
		if (!small[ri])
			region_findings(&l, v, ri);
	for (int i = 0; i < v->nflags; i++) {
		const struct vflag *fl = &v->flags[i];
		const struct vregion *r = &v->regions[fl->region];
		/* a located change (not blocking) is a result: nothing to add */
		if (fl->kind != VFLAG_SEGMENTED || fl->param < 0 || !r->segment_tested[fl->param] ||
		    !fl->blocking || small[fl->region])
			continue;
		const struct segment_result *sg = &r->segment[fl->param];
		struct refine_finding *f = finding_add(&l, REFINE_SEGMENTED, v->e->callpaths[r->callpath],
						sg->points[sg->change]);
		f->param = fl->param;
		f->lo = sg->x_before;
		f->hi = sg->x_after;
		f->severity = sg->improvement;
	}
	for (int i = 0; i < v->nchecks; i++) {
		const struct vcheck *c = &v->checks[i];
		if (strcmp(c->check, "contention") || c->status != VCHECK_NOT_TESTABLE || c->param < 0 ||
		    small[c->region])
			continue;
		const struct vregion *r = &v->regions[c->region];
		struct refine_finding *f = finding_add(&l, REFINE_CONTENTION, v->e->callpaths[r->callpath],
						baseline_point(v->e, c->param));
		f->param = c->param;
	}
	free(small);
	*out = l.f;
	*nout = l.n;
}
