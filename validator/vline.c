/* Finding the lines of points along one parameter. */
#include "validator/vline.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* qsort has no context argument: sort (key, point) pairs instead. */
struct keyed {
	double x;
	int point;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *ka = a, *kb = b;
	if (ka->x < kb->x)
		return -1;
	if (ka->x > kb->x)
		return 1;
	return ka->point - kb->point;
}

/* 1 when points p and q agree on every parameter but param. */
static int same_line(const struct experiment *e, int param, int p, int q)
{
	for (int k = 0; k < e->nparams; k++)
		if (k != param && experiment_coord(e, p, k) != experiment_coord(e, q, k))
			return 0;
	return 1;
}

int vlines_find(const struct experiment *e, int param, struct vline **lines)
{
	*lines = NULL;
	if (param < 0 || param >= e->nparams || e->npoints < 2)
		return 0;
	int *line_of = xmalloc(sizeof(int) * (size_t)e->npoints);
	int nlines = 0;
	int *first = xmalloc(sizeof(int) * (size_t)e->npoints);
	for (int p = 0; p < e->npoints; p++) {
		line_of[p] = -1;
		for (int l = 0; l < nlines; l++)
			if (same_line(e, param, first[l], p)) {
				line_of[p] = l;
				break;
			}
		if (line_of[p] < 0) {
			first[nlines] = p;
			line_of[p] = nlines++;
		}
	}
	struct vline *out = NULL;
	size_t alloc = 0;
	int n = 0;
	struct keyed *buf = xmalloc(sizeof(*buf) * (size_t)e->npoints);
	for (int l = 0; l < nlines; l++) {
		int m = 0;
		for (int p = 0; p < e->npoints; p++)
			if (line_of[p] == l) {
				buf[m].x = experiment_coord(e, p, param);
				buf[m].point = p;
				m++;
			}
		if (m < 2)
			continue;
		qsort(buf, (size_t)m, sizeof(*buf), cmp_keyed);
		XGROW(out, (size_t)n + 1, alloc);
		out[n].param = param;
		out[n].npoints = m;
		out[n].points = xmalloc(sizeof(int) * (size_t)m);
		for (int i = 0; i < m; i++)
			out[n].points[i] = buf[i].point;
		n++;
	}
	free(buf);
	free(first);
	free(line_of);
	*lines = out;
	return n;
}

void vlines_free(struct vline *lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i].points);
	free(lines);
}
