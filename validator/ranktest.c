/*
 * Mann-Whitney U and Hodges-Lehmann (see ranktest.h).  The exact null
 * distribution of U is the coefficient list of the Gaussian binomial
 * [na+nb choose na]_q, built by multiplying by (1 - q^(nb+i)) / (1 - q^i)
 * for i = 1..na; every intermediate value is an integer below
 * C(na+nb, na), so doubles hold it exactly while that is <= 2^53.
 */
#include "common/xalloc.h"
#include "validator/ranktest.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

/* cdf[u] = P(U <= u) for u = 0..na*nb under the null; the caller frees it. */
static double *exact_cdf(int na, int nb)
{
	int nm = na * nb;
	double *c = xcalloc((size_t)nm + 1, sizeof(*c));
	c[0] = 1;
	for (int i = 1; i <= na; i++) {
		int up = nb + i, top = (i - 1) * nb + up;  /* degree after multiplying */
		for (int u = top > nm ? nm : top; u >= up; u--)
			c[u] -= c[u - up];
		for (int u = i; u <= nm; u++)
			c[u] += c[u - i];
	}
	double total = 0;
	for (int u = 0; u <= nm; u++)
		total += c[u];
	double acc = 0;
	for (int u = 0; u <= nm; u++) {
		acc += c[u];
		c[u] = acc / total;
	}
	return c;
}

/* Sum over tie groups of t^3 - t in the pooled sample; 0 when no ties. */
static double tie_term(const double *a, int na, const double *b, int nb)
{
	int n = na + nb;
	double *all = xmalloc(sizeof(*all) * (size_t)n), s = 0;
	for (int i = 0; i < na; i++)
		all[i] = a[i];
	for (int j = 0; j < nb; j++)
		all[na + j] = b[j];
	gsl_sort(all, 1, (size_t)n);
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && all[j] == all[i])
			j++;
		double t = j - i;
		s += t * t * t - t;
		i = j;
	}
	free(all);
	return s;
}

/* Twice the midranks of the pooled sample a then b (integers, so sums are exact). */
static double *midranks2(const double *a, int na, const double *b, int nb)
{
	int n = na + nb;
	double *all = xmalloc(sizeof(*all) * (size_t)n), *r = xmalloc(sizeof(*r) * (size_t)n);
	size_t *idx = xmalloc(sizeof(*idx) * (size_t)n);
	for (int i = 0; i < n; i++)
		all[i] = i < na ? a[i] : b[i - na];
	gsl_sort_index(idx, all, 1, (size_t)n);
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && all[idx[j]] == all[idx[i]])
			j++;
		for (int k = i; k < j; k++)
			r[idx[k]] = i + j + 1;  /* 2 * mean of ranks i+1..j */
		i = j;
	}
	free(all);
	free(idx);
	return r;
}

/*
 * The exact permutation test of U given the ties: every way to choose nb of
 * the pooled values as "b" (C(na+nb, nb) <= PERM_MAX and na + nb <= 62).
 */
#define PERM_MAX 200000
static void permutation_p(const double *a, int na, const double *b, int nb, struct rank_test *out)
{
	int n = na + nb;
	double *r2 = midranks2(a, na, b, nb), nm = (double)na * nb, off = nb * (nb + 1.0);
	double dobs = fabs(out->u - nm / 2), dmax = -1;
	long total = 0, as_far = 0, at_max = 0;
	for (unsigned long long m = (1ULL << nb) - 1; m < (1ULL << n);) {
		double s = 0;
		for (int i = 0; i < n; i++)
			if (m >> i & 1)
				s += r2[i];
		double d = fabs((s - off) / 2 - nm / 2);
		total++;
		as_far += d >= dobs - 1e-9;
		if (d > dmax + 1e-9) {
			dmax = d;
			at_max = 0;
		}
		at_max += d >= dmax - 1e-9;
		unsigned long long c = m & -m, rr = m + c;   /* Gosper's hack: next mask with nb bits */
		m = (((rr ^ m) >> 2) / c) | rr;
	}
	free(r2);
	out->p = (double)as_far / total;
	out->p_min = (double)at_max / total;
	out->exact = 1;
}

/* Two-sided normal-approximation p of U (continuity corrected); 1 if no variance. */
static double normal_p(double u, double nm, double sd)
{
	if (!(sd > 0))
		return 1;
	double z = (fabs(u - nm / 2) - 0.5) / sd;
	if (z < 0)
		z = 0;
	double p = 2 * gsl_cdf_ugaussian_Q(z);
	return p > 1 ? 1 : p;
}

/* Fill p, p_min and k (the interval's order statistic, 1-based; 0: unbounded). */
static void test_p(const double *a, int na, const double *b, int nb, double alpha,
		   struct rank_test *out, int *k)
{
	int nm = na * nb;
	double ties = tie_term(a, na, b, nb);
	double lchoose = lgamma(na + nb + 1.0) - lgamma(na + 1.0) - lgamma(nb + 1.0);
	if (lchoose <= 53 * log(2.0)) {
		/* the interval's order statistic comes from the untied distribution, also with ties */
		double *c = exact_cdf(na, nb);
		*k = 0;
		while (*k <= nm && c[*k] <= alpha / 2)
			(*k)++;
		if (ties == 0) {
			/* by symmetry P(U >= u) = P(U <= nm - u) */
			int u = (int)lrint(out->u);
			double p = 2 * (c[u] < c[nm - u] ? c[u] : c[nm - u]);
			out->p = p > 1 ? 1 : p;
			out->p_min = 2 * c[0] > 1 ? 1 : 2 * c[0];
			out->exact = 1;
		}
		free(c);
		if (ties == 0)
			return;
		if (na + nb <= 62 && lchoose <= log((double)PERM_MAX)) {
			permutation_p(a, na, b, nb, out);
			return;
		}
	}
	double n = na + nb;
	double var = nm / 12.0 * ((n + 1) - ties / (n * (n - 1)));
	double sd = var > 0 ? sqrt(var) : 0;
	out->exact = 0;
	out->p = normal_p(out->u, nm, sd);
	out->p_min = normal_p(0, nm, sqrt(nm / 12.0 * (n + 1)));
	if (lchoose > 53 * log(2.0)) {
		double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
		double kk = floor(nm / 2.0 - z * sd);
		*k = kk < 1 ? 0 : (int)kk;
	}
}

int rank_test(const double *a, int na, const double *b, int nb, double alpha,
	      struct rank_test *out, struct perr *err)
{
	if (na < 1 || nb < 1)
		return perr_set(err, "a rank test needs at least one value on each side");
	if (!(alpha > 0 && alpha < 1))
		return perr_set(err, "alpha %g is not between 0 and 1", alpha);
	int nm = na * nb;
	double *d = xmalloc(sizeof(*d) * (size_t)nm);
	out->u = 0;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			double x = b[j] - a[i];
			if (!isfinite(x)) {
				free(d);
				return perr_set(err, "a rank test needs finite values");
			}
			d[i * nb + j] = x;
			out->u += x > 0 ? 1 : x == 0 ? 0.5 : 0;
		}
	int k = 0;
	test_p(a, na, b, nb, alpha, out, &k);
	gsl_sort(d, 1, (size_t)nm);
	out->shift = gsl_stats_median_from_sorted_data(d, 1, (size_t)nm);
	out->lo = k >= 1 ? d[k - 1] : -INFINITY;
	out->hi = k >= 1 ? d[nm - k] : INFINITY;
	free(d);
	return 0;
}
