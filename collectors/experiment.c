/* The in-memory experiment: parameters, points, callpaths, metrics, values. */
#include "collectors/experiment.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void experiment_init(struct experiment *e)
{
	memset(e, 0, sizeof(*e));
	strmap_init(&e->callpath_idx);
	strmap_init(&e->metric_idx);
	strmap_init(&e->series_idx);
	strmap_init(&e->better);
	idmap_init(&e->point_idx);
	strmap_init(&e->resolution_idx);
}

void experiment_release(struct experiment *e)
{
	for (int i = 0; i < e->nparams; i++)
		free(e->params[i]);
	for (int i = 0; i < e->ncallpaths; i++)
		free(e->callpaths[i]);
	for (int i = 0; i < e->nmetrics; i++)
		free(e->metrics[i]);
	for (int s = 0; s < e->nseries; s++) {
		for (int p = 0; p < e->npoints; p++)
			free(e->series[s].at[p].v);
		free(e->series[s].at);
	}
	free(e->params);
	free(e->coords);
	free(e->callpaths);
	free(e->metrics);
	free(e->series);
	strmap_release(&e->callpath_idx);
	strmap_release(&e->metric_idx);
	strmap_release(&e->series_idx);
	idmap_release(&e->point_idx);
	strmap_release(&e->better);
	strmap_release(&e->resolution_idx);
	free(e->resolutions);
	experiment_init(e);
}

int experiment_find_param(const struct experiment *e, const char *name)
{
	for (int i = 0; i < e->nparams; i++)
		if (!strcmp(e->params[i], name))
			return i;
	return -1;
}

int experiment_param(struct experiment *e, const char *name)
{
	int i = experiment_find_param(e, name);
	if (i >= 0)
		return i;
	if (e->npoints)
		return -1;
	XGROW(e->params, (size_t)e->nparams + 1, e->params_alloc);
	e->params[e->nparams] = xstrdup(name);
	return e->nparams++;
}

/* FNV-1a over a point's coordinates, as bytes (points are told apart by memcmp). */
static uint64_t coords_hash(const double *coords, int nparams)
{
	const unsigned char *b = (const unsigned char *)coords;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof(double) * (size_t)nparams; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static int same_coords(const struct experiment *e, int p, const double *coords)
{
	return !memcmp(&e->coords[(size_t)p * e->nparams], coords, sizeof(double) * e->nparams);
}

/* Index points [point_idx_n, npoints): loading a campaign adds a point per
   run, and a scan per run made it quadratic (10^5 runs over 10^4 points). */
static void index_points(struct experiment *e)
{
	for (; e->point_idx_n < e->npoints; e->point_idx_n++) {
		const double *c = &e->coords[(size_t)e->point_idx_n * e->nparams];
		uint64_t h = coords_hash(c, e->nparams);
		if (idmap_get(&e->point_idx, h) != IDMAP_NONE)
			e->point_idx_clash = 1;   /* the first keeps the slot; the rest are scanned */
		else
			idmap_put(&e->point_idx, h, (size_t)e->point_idx_n);
	}
}

int experiment_find_point(const struct experiment *e, const double *coords)
{
	if (e->point_idx_n == e->npoints && e->npoints > 0) {
		size_t p = idmap_get(&e->point_idx, coords_hash(coords, e->nparams));
		if (p != IDMAP_NONE && same_coords(e, (int)p, coords))
			return (int)p;
		if (!e->point_idx_clash)
			return -1;
	}
	for (int p = 0; p < e->npoints; p++)
		if (same_coords(e, p, coords))
			return p;
	return -1;
}

int experiment_point(struct experiment *e, const double *coords)
{
	index_points(e);
	int p = experiment_find_point(e, coords);
	if (p >= 0)
		return p;
	size_t old_alloc = e->points_alloc;
	XGROW(e->coords, ((size_t)e->npoints + 1) * e->nparams, e->points_alloc);
	memcpy(&e->coords[(size_t)e->npoints * e->nparams], coords, sizeof(double) * e->nparams);
	/* keep every series' per-point array as long as the points */
	(void)old_alloc;
	for (int s = 0; s < e->nseries; s++) {
		e->series[s].at = xrealloc(e->series[s].at, sizeof(struct exp_values) * (e->npoints + 1));
		memset(&e->series[s].at[e->npoints], 0, sizeof(struct exp_values));
	}
	int p_new = e->npoints++;
	index_points(e);
	return p_new;
}

/* The rows of coords (width w) compared but for column k. */
struct rows_but {
	const double *coords;
	int w, k;
};

static int cmp_rows_but(const void *pa, const void *pb, void *arg)
{
	const struct rows_but *r = arg;
	const double *x = r->coords + (size_t)*(const int *)pa * (size_t)r->w;
	const double *y = r->coords + (size_t)*(const int *)pb * (size_t)r->w;
	for (int j = 0; j < r->w; j++)
		if (j != r->k && x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return 0;
}

int experiment_drop_param(struct experiment *e, int k)
{
	int w = e->nparams;
	if (k < 0 || k >= w)
		return 1;
	struct rows_but r = { e->coords, w, k };
	int *order = xmalloc(sizeof(int) * (size_t)(e->npoints + 1)), distinct = 1;
	for (int p = 0; p < e->npoints; p++)
		order[p] = p;
	qsort_r(order, (size_t)e->npoints, sizeof(int), cmp_rows_but, &r);
	for (int p = 1; p < e->npoints && distinct; p++)
		distinct = cmp_rows_but(&order[p - 1], &order[p], &r) != 0;
	free(order);
	if (!distinct)
		return 1;
	for (int p = 0; p < e->npoints; p++)
		for (int j = 0, o = 0; j < w; j++)
			if (j != k)
				e->coords[(size_t)p * (size_t)(w - 1) + (size_t)o++] = e->coords[(size_t)p * (size_t)w + (size_t)j];
	free(e->params[k]);
	memmove(&e->params[k], &e->params[k + 1], sizeof(char *) * (size_t)(w - k - 1));
	e->nparams--;
	return 0;
}

static int find_or_add_name(char ***names, int *n, size_t *alloc, struct strmap *idx, const char *name)
{
	int i = strmap_get(idx, name);
	if (i >= 0)
		return i;
	XGROW(*names, (size_t)*n + 1, *alloc);
	(*names)[*n] = xstrdup(name);
	strmap_put(idx, name, *n);
	return (*n)++;
}

int experiment_callpath(struct experiment *e, const char *name)
{
	return find_or_add_name(&e->callpaths, &e->ncallpaths, &e->callpaths_alloc, &e->callpath_idx, name);
}

int experiment_find_callpath(const struct experiment *e, const char *name)
{
	return strmap_get(&e->callpath_idx, name);
}

int experiment_metric(struct experiment *e, const char *name)
{
	return find_or_add_name(&e->metrics, &e->nmetrics, &e->metrics_alloc, &e->metric_idx, name);
}

int experiment_find_metric(const struct experiment *e, const char *name)
{
	return strmap_get(&e->metric_idx, name);
}

void experiment_set_better(struct experiment *e, const char *metric, enum exp_better b)
{
	strmap_put(&e->better, metric, (int)b);
}

enum exp_better experiment_better(const struct experiment *e, int metric)
{
	int b = metric >= 0 && metric < e->nmetrics ? strmap_get(&e->better, e->metrics[metric]) : -1;
	return b == EXP_BETTER_LOWER || b == EXP_BETTER_HIGHER ? (enum exp_better)b : EXP_BETTER_UNSAID;
}

void experiment_set_resolution(struct experiment *e, const char *callpath, const char *metric, double resolution)
{
	char *key = xasprintf("%s\n%s", callpath, metric);
	int i = strmap_get(&e->resolution_idx, key);
	if (i < 0) {
		XGROW(e->resolutions, e->nresolutions + 1, e->resolutions_alloc);
		i = (int)e->nresolutions++;
		strmap_put(&e->resolution_idx, key, i);
	}
	e->resolutions[i] = resolution;
	free(key);
}

double experiment_resolution(const struct experiment *e, int callpath, int metric)
{
	if (!e->nresolutions || callpath < 0 || callpath >= e->ncallpaths || metric < 0 || metric >= e->nmetrics)
		return 0;
	char *key = xasprintf("%s\n%s", e->callpaths[callpath], e->metrics[metric]);
	int i = strmap_get(&e->resolution_idx, key);
	free(key);
	return i >= 0 ? e->resolutions[i] : 0;
}

static void series_key(char *buf, size_t n, int callpath, int metric)
{
	snprintf(buf, n, "%d:%d", callpath, metric);
}

const struct exp_series *experiment_series(const struct experiment *e, int callpath, int metric)
{
	char key[32];
	series_key(key, sizeof(key), callpath, metric);
	int s = strmap_get(&e->series_idx, key);
	return s < 0 ? NULL : &e->series[s];
}

void experiment_add(struct experiment *e, int callpath, int metric, int point, double v)
{
	char key[32];
	series_key(key, sizeof(key), callpath, metric);
	int s = strmap_get(&e->series_idx, key);
	if (s < 0) {
		XGROW(e->series, (size_t)e->nseries + 1, e->series_alloc);
		s = e->nseries++;
		e->series[s].callpath = callpath;
		e->series[s].metric = metric;
		e->series[s].at = xcalloc((size_t)(e->npoints ? e->npoints : 1), sizeof(struct exp_values));
		strmap_put(&e->series_idx, key, s);
	}
	struct exp_values *ev = &e->series[s].at[point];
	XGROW(ev->v, (size_t)ev->n + 1, ev->alloc);
	ev->v[ev->n++] = v;
}

const struct exp_values *experiment_values(const struct experiment *e, int callpath, int metric, int point)
{
	const struct exp_series *s = experiment_series(e, callpath, metric);
	return s ? &s->at[point] : NULL;
}
