/* A plan's points held compactly: value indices, costs, interned reasons. */
#include "designs/plan_points.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct plan_points *plan_points_new(const struct plan_param *params, int np)
{
	struct plan_points *pp = xcalloc(1, sizeof(*pp));
	pp->np = np;
	pp->vals = xcalloc((size_t)np + 1, sizeof(double *));
	pp->nvals = xcalloc((size_t)np + 1, sizeof(int));
	pp->valloc = xcalloc((size_t)np + 1, sizeof(size_t));
	pp->canon = xcalloc((size_t)np + 1, sizeof(uint32_t *));
	for (int k = 0; k < np; k++) {
		const struct plan_param *p = &params[k];
		pp->canon[k] = xmalloc(sizeof(uint32_t) * (size_t)(p->nvalues + 1));
		for (int i = 0; i < p->nvalues; i++)
			pp->canon[k][i] = plan_points_value_index(pp, k, p->values[i]);
	}
	pp->ranks_param = pp->rpn_param = pp->threads_param = -1;
	pp->cores = 1;
	pp->ranks = 1;
	return pp;
}

void plan_points_free(struct plan_points *pp)
{
	if (!pp)
		return;
	for (int i = 0; pp->threads_text && i < pp->nvals[pp->threads_param]; i++)
		free(pp->threads_text[i]);
	free(pp->threads_text);
	for (int k = 0; k < pp->np; k++) {
		free(pp->vals[k]);
		free(pp->canon[k]);
	}
	for (int i = 0; i < pp->nreasons; i++)
		free(pp->reasons[i]);
	free(pp->vals);
	free(pp->nvals);
	free(pp->valloc);
	free(pp->canon);
	free(pp->idx);
	free(pp->pt);
	free(pp->run_ch);
	free(pp->slots);
	free(pp->reasons);
	free(pp->rslots);
	free(pp->kept);
	free(pp->policy);
	free(pp->map);
	free(pp->cores_per_rank);
	free(pp);
}

/* Values are the same value when their bits are (as the planner always compared them). */
uint32_t plan_points_value_index(struct plan_points *pp, int k, double v)
{
	for (int i = 0; i < pp->nvals[k]; i++)
		if (!memcmp(&pp->vals[k][i], &v, sizeof(v)))
			return (uint32_t)i;
	XGROW(pp->vals[k], (size_t)pp->nvals[k] + 1, pp->valloc[k]);
	pp->vals[k][pp->nvals[k]] = v;
	return (uint32_t)pp->nvals[k]++;
}

uint32_t plan_points_canon(const struct plan_points *pp, int k, int i)
{
	return pp->canon[k][i];
}

const uint32_t *plan_points_index(const struct plan_points *pp, int i)
{
	return pp->idx + (size_t)i * (size_t)pp->np;
}

void plan_points_values(const struct plan_points *pp, const uint32_t *ix, double *v)
{
	for (int k = 0; k < pp->np; k++)
		v[k] = pp->vals[k][ix[k]];
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t point_hash(const struct plan_points *pp, const uint32_t *ix, int rpn)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(unsigned)rpn;
	for (int k = 0; k < pp->np; k++)
		h = (h ^ ix[k]) * 1099511628211ULL;
	return mix(h);
}

/* The slot of (ix, rpn): where it is, or the empty one it would take. */
static size_t point_slot(const struct plan_points *pp, const uint32_t *ix, int rpn)
{
	size_t i = point_hash(pp, ix, rpn) & (pp->cap - 1);
	for (; pp->slots[i] >= 0; i = (i + 1) & (pp->cap - 1)) {
		int j = pp->slots[i];
		if (pp->pt[j].rpn == rpn &&
		    !memcmp(pp->idx + (size_t)j * (size_t)pp->np, ix, sizeof(uint32_t) * (size_t)pp->np))
			break;
	}
	return i;
}

/* An index of at least cap slots (a power of two), rebuilt. */
static void index_grow(struct plan_points *pp, size_t cap)
{
	free(pp->slots);
	pp->cap = pp->cap ? pp->cap : 64;
	while (pp->cap < cap)
		pp->cap *= 2;
	pp->slots = xmalloc(sizeof(int) * pp->cap);
	memset(pp->slots, 0xff, sizeof(int) * pp->cap);
	for (int i = 0; i < pp->n; i++)
		pp->slots[point_slot(pp, plan_points_index(pp, i), pp->pt[i].rpn)] = i;
	pp->nindexed = pp->n;
}

/* Index the points appended since the last look-up, the index at most half full. */
static void index_catch_up(struct plan_points *pp)
{
	if ((size_t)(pp->n + 1) * 2 > pp->cap) {
		index_grow(pp, (size_t)(pp->n + 1) * 2);
		return;
	}
	for (; pp->nindexed < pp->n; pp->nindexed++) {
		int i = pp->nindexed;
		pp->slots[point_slot(pp, plan_points_index(pp, i), pp->pt[i].rpn)] = i;
	}
}

int plan_points_find(struct plan_points *pp, const uint32_t *ix, int rpn)
{
	index_catch_up(pp);
	return pp->slots[point_slot(pp, ix, rpn)];
}

int plan_points_append(struct plan_points *pp, const uint32_t *ix, int rpn, const char *reason)
{
	XGROW(pp->pt, (size_t)pp->n + 1, pp->alloc);
	XGROW(pp->run_ch, (size_t)pp->n + 1, pp->ch_alloc);
	XGROW(pp->idx, ((size_t)pp->n + 1) * (size_t)(pp->np ? pp->np : 1), pp->idx_alloc);
	memcpy(pp->idx + (size_t)pp->n * (size_t)pp->np, ix, sizeof(uint32_t) * (size_t)pp->np);
	struct pp_point *p = &pp->pt[pp->n];
	memset(p, 0, sizeof(*p));
	p->rpn = rpn;
	p->reason = plan_points_intern(pp, reason);
	pp->run_ch[pp->n] = 0;
	return pp->n++;
}

void plan_points_reserve(struct plan_points *pp, size_t n)
{
	XGROW(pp->pt, n, pp->alloc);
	XGROW(pp->run_ch, n, pp->ch_alloc);
	XGROW(pp->idx, n * (size_t)(pp->np ? pp->np : 1), pp->idx_alloc);
}

int plan_points_add(struct plan_points *pp, const uint32_t *ix, int rpn, const char *reason, int *added)
{
	index_catch_up(pp);
	size_t slot = point_slot(pp, ix, rpn);
	*added = pp->slots[slot] < 0;
	if (!*added)
		return pp->slots[slot];
	pp->slots[slot] = plan_points_append(pp, ix, rpn, reason);
	pp->nindexed = pp->n;
	return pp->n - 1;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h);
}

int plan_points_intern(struct plan_points *pp, const char *reason)
{
	if (pp->nreasons && !strcmp(pp->reasons[pp->nreasons - 1], reason))
		return pp->nreasons - 1;        /* the common case: a run of one reason */
	if ((size_t)(pp->nreasons + 1) * 2 > pp->rcap) {
		free(pp->rslots);
		pp->rcap = pp->rcap ? pp->rcap * 2 : 16;
		pp->rslots = xmalloc(sizeof(int) * pp->rcap);
		memset(pp->rslots, 0xff, sizeof(int) * pp->rcap);
		for (int i = 0; i < pp->nreasons; i++) {
			size_t s = text_hash(pp->reasons[i]) & (pp->rcap - 1);
			while (pp->rslots[s] >= 0)
				s = (s + 1) & (pp->rcap - 1);
			pp->rslots[s] = i;
		}
	}
	size_t s = text_hash(reason) & (pp->rcap - 1);
	for (; pp->rslots[s] >= 0; s = (s + 1) & (pp->rcap - 1))
		if (!strcmp(pp->reasons[pp->rslots[s]], reason))
			return pp->rslots[s];
	XGROW(pp->reasons, (size_t)pp->nreasons + 1, pp->ralloc);
	pp->reasons[pp->nreasons] = xstrdup(reason);
	pp->rslots[s] = pp->nreasons;
	return pp->nreasons++;
}

double plan_points_ranks(const struct plan_points *pp, const double *v)
{
	if (pp->ranks_param >= 0)
		return v[pp->ranks_param];
	if (pp->rpn_param >= 0)
		return v[pp->rpn_param];
	return pp->ranks;
}

double plan_points_cores(const struct plan_points *pp, const double *v)
{
	return pp->threads_param >= 0 ? v[pp->threads_param] : pp->cores;
}

int plan_points_rpn(const struct plan_points *pp, const double *v, int rpn)
{
	return pp->rpn_param >= 0 ? (int)v[pp->rpn_param] : rpn;
}

void plan_points_get(const struct plan_points *pp, int i, struct plan_point *pt, double *vals)
{
	int c = pp->kept ? pp->kept[i] : i;
	const struct pp_point *p = &pp->pt[c];
	memset(pt, 0, sizeof(*pt));
	plan_points_values(pp, plan_points_index(pp, c), vals);
	pt->values = vals;
	pt->ranks_per_node = plan_points_rpn(pp, vals, p->rpn);
	if ((pp->placed || pp->rpn_param >= 0) && pt->ranks_per_node > 0)
		pt->nodes = (int)ceil(plan_points_ranks(pp, vals) / pt->ranks_per_node);
	pt->policy = pp->policy;
	/* the map goes with the explicit policy, cores per rank with the others */
	if (pp->policy && pp->map && !strcmp(pp->policy, "explicit"))
		pt->map = pp->map;
	if (pp->policy && pp->cores_per_rank && strcmp(pp->policy, "explicit"))
		pt->cores_per_rank = pp->cores_per_rank;
	if (pp->threads_text)   /* a rank holds as many cores as it runs threads */
		pt->cores_per_rank = pp->threads_text[plan_points_index(pp, c)[pp->threads_param]];
	pt->repetitions = p->reps < pp->reps ? p->reps : pp->reps;
	pt->core_hours = pp->run_ch[c] * pt->repetitions;
	pt->reason = pp->reasons[p->reason];
}
