/* Aggregation for the CUBE4 reader: NumPy-exact sums over locations, and measurements per call path. */
#include "collectors/cubex.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------- aggregation ---------- */

/* NumPy's pairwise summation (numpy/core/src/umath/loops_utils.h). */
static double pairwise_sum(const double *a, size_t n)
{
	if (n < 8) {
		double r = 0.0;
		for (size_t i = 0; i < n; i++)
			r += a[i];
		return r;
	}
	if (n <= 128) {
		double r[8];
		size_t i;
		for (int j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - (n % 8); i += 8)
			for (int j = 0; j < 8; j++)
				r[j] += a[i + j];
		double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double cubex_aggregate(const double *v, int n, enum cubex_aggr a)
{
	if (n <= 0)
		return 0.0;
	switch (a) {
	case CUBEX_SUM:
		return pairwise_sum(v, (size_t)n);
	case CUBEX_MAX: {
		double m = v[0];
		for (int i = 1; i < n; i++)
			if (v[i] > m)
				m = v[i];
		return m;
	}
	case CUBEX_MIN: {
		double m = v[0];
		for (int i = 1; i < n; i++)
			if (v[i] < m)
				m = v[i];
		return m;
	}
	case CUBEX_MEAN:
	default:
		return pairwise_sum(v, (size_t)n) / n;
	}
}

static const char *const aggr_names[] = { "mean", "sum", "max", "min" };

int cubex_aggr_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, aggr_names[i]))
			return i;
	return -1;
}

const char *cubex_aggr_name(enum cubex_aggr a)
{
	return (unsigned)a < 4 ? aggr_names[a] : "?";
}

/* ---------- collection ---------- */

int cubex_collect(const struct cubex *c, char *const *metrics, int nmetrics, enum cubex_aggr aggr,
		  int per_rank, struct measurement_list *out, struct perr *err)
{
	static char *const dflt[] = { "time", "visits" };
	if (!metrics) {
		metrics = dflt;
		nmetrics = 2;
	}
	size_t L = (size_t)c->nlocations;
	/* distinct call paths, in first-seen order */
	struct strmap cp;
	strmap_init(&cp);
	int *cp_of = xmalloc(sizeof(int) * (size_t)c->ncnodes);
	int *first = xmalloc(sizeof(int) * (size_t)c->ncnodes);
	int ncp = 0;
	for (int i = 0; i < c->ncnodes; i++) {
		int k = strmap_get(&cp, c->cnodes[i].callpath);
		if (k < 0) {
			k = ncp;
			first[ncp++] = i;
			strmap_put(&cp, c->cnodes[i].callpath, k);
		}
		cp_of[i] = k;
	}
	strmap_release(&cp);
	double *acc = xmalloc(sizeof(double) * L * (size_t)(ncp ? ncp : 1));
	int rc = 0;
	for (int mi = 0; mi < nmetrics; mi++) {
		int m = cubex_find_metric(c, metrics[mi]);
		if (m < 0) {
			rc = perr_set(err, "%s: no metric '%s' in the profile", c->path, metrics[mi]);
			break;
		}
		double *v;
		if (cubex_read_metric(c, m, CUBEX_EXCL, &v, err) < 0) {
			rc = -1;
			break;
		}
		memset(acc, 0, sizeof(double) * L * (size_t)ncp);
		for (int i = 0; i < c->ncnodes; i++)
			for (size_t l = 0; l < L; l++)
				acc[(size_t)cp_of[i] * L + l] += v[(size_t)i * L + l];
		free(v);
		for (int k = 0; k < ncp; k++) {
			const char *name = c->cnodes[first[k]].callpath;
			measurement_list_add(out, -1, name, c->metrics[m].name,
					     cubex_aggregate(&acc[(size_t)k * L], (int)L, aggr));
			if (per_rank)
				for (size_t l = 0; l < L; l++)
					measurement_list_add(out, c->locations[l].rank, name, c->metrics[m].name,
							     acc[(size_t)k * L + l]);
		}
	}
	free(acc);
	free(first);
	free(cp_of);
	return rc;
}
