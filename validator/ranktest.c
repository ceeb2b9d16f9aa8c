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
	out->exact = ties == 0 && lchoose <= 53 * log(2.0);
	if (out->exact) {
		double *c = exact_cdf(na, nb);
		int u = (int)lrint(out->u);
		/* by symmetry P(U >= u) = P(U <= nm - u) */
		double lower = c[u], upper = c[nm - u];
		double p = 2 * (lower < upper ? lower : upper);
		out->p = p > 1 ? 1 : p;
		out->p_min = 2 * c[0] > 1 ? 1 : 2 * c[0];
		*k = 0;
		while (*k <= nm && c[*k] <= alpha / 2)
			(*k)++;
		free(c);
		return;
	}
	double n = na + nb;
	double var = nm / 12.0 * ((n + 1) - ties / (n * (n - 1)));
	double sd = var > 0 ? sqrt(var) : 0;
	out->p = normal_p(out->u, nm, sd);
	out->p_min = normal_p(0, nm, sqrt(nm / 12.0 * (n + 1)));
	double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
	double kk = floor(nm / 2.0 - z * sd);
	*k = kk < 1 ? 0 : (int)kk;
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
	int k;
	test_p(a, na, b, nb, alpha, out, &k);
	gsl_sort(d, 1, (size_t)nm);
	out->shift = gsl_stats_median_from_sorted_data(d, 1, (size_t)nm);
	out->lo = k >= 1 ? d[k - 1] : -INFINITY;
	out->hi = k >= 1 ? d[nm - k] : INFINITY;
	free(d);
	return 0;
}
