/* Finding the lines of points along one parameter: sort by the other coordinates, then group. */
#include "validator/vline.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

struct line_ctx {
	const struct experiment *e;
	int param;
};

/* Order points by their other coordinates, then by the line's coordinate, then by index. */
static int cmp_points(const void *a, const void *b, void *arg)
{
	const struct line_ctx *c = arg;
	int p = *(const int *)a, q = *(const int *)b;
	for (int k = 0; k < c->e->nparams; k++) {
		if (k == c->param)
			continue;
		double x = experiment_coord(c->e, p, k), y = experiment_coord(c->e, q, k);
		if (x != y)
			return x < y ? -1 : 1;
	}
	double x = experiment_coord(c->e, p, c->param), y = experiment_coord(c->e, q, c->param);
	if (x != y)
		return x < y ? -1 : 1;
	return (p > q) - (p < q);
}

/* 1 when points p and q agree on every parameter but param. */
static int same_line(const struct experiment *e, int param, int p, int q)
{
	for (int k = 0; k < e->nparams; k++)
		if (k != param && experiment_coord(e, p, k) != experiment_coord(e, q, k))
			return 0;
	return 1;
}

static int min_point(const struct vline *l)
{
	int m = l->points[0];
	for (int i = 1; i < l->npoints; i++)
		if (l->points[i] < m)
			m = l->points[i];
	return m;
}

static int cmp_lines(const void *a, const void *b)
{
	int x = min_point(a), y = min_point(b);
	return (x > y) - (x < y);
}

int vlines_find(const struct experiment *e, int param, struct vline **lines)
{
	*lines = NULL;
	if (param < 0 || param >= e->nparams || e->npoints < 2)
		return 0;
	int *order = xmalloc(sizeof(int) * (size_t)e->npoints);
	for (int p = 0; p < e->npoints; p++)
		order[p] = p;
	struct line_ctx ctx = { e, param };
	qsort_r(order, (size_t)e->npoints, sizeof(int), cmp_points, &ctx);
	struct vline *out = NULL;
	size_t alloc = 0;
	int n = 0;
	for (int i = 0; i < e->npoints;) {
		int j = i + 1;
		while (j < e->npoints && same_line(e, param, order[i], order[j]))
			j++;
		if (j - i >= 2) {
			XGROW(out, (size_t)n + 1, alloc);
			out[n].param = param;
			out[n].npoints = j - i;
			out[n].points = xmalloc(sizeof(int) * (size_t)(j - i));
			memcpy(out[n].points, &order[i], sizeof(int) * (size_t)(j - i));
			n++;
		}
		i = j;
	}
	free(order);
	if (n > 1)
		qsort(out, (size_t)n, sizeof(*out), cmp_lines);
	*lines = out;
	return n;
}

void vlines_free(struct vline *lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i].points);
	free(lines);
}
