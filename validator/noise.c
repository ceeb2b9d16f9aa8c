/* The noise check: robust spread of each point's repetitions, and its outliers. */
#include "validator/noise.h"
#include "models/points.h"
#include "common/xalloc.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double noise_cov(const struct exp_values *v)
{
	if (!v || v->n < 2)
		return NAN;
	double mean = gsl_stats_mean(v->v, 1, (size_t)v->n);
	if (mean == 0 || !isfinite(mean))
		return NAN;
	double sd = gsl_stats_sd_m(v->v, 1, (size_t)v->n, mean);
	return sd / fabs(mean);
}

/* Append point p's outlying repetitions to r. */
static void find_outliers(const struct exp_values *v, int p, double scov, enum point_side side,
			  struct noise_result *r)
{
	unsigned char small[16], *is_out = v->n <= 16 ? small : xmalloc((size_t)v->n);
	if (point_outliers(v, scov, side, is_out) > 0) {
		double med = point_median(v);
		for (int i = 0; i < v->n; i++) {
			if (!is_out[i])
				continue;
			r->outliers = xrealloc(r->outliers, sizeof(*r->outliers) * (size_t)(r->noutliers + 1));
			r->outliers[r->noutliers++] = (struct noise_outlier){
				p, i, v->n, v->v[i], med != 0 ? v->v[i] / med : NAN, point_robust_z(v, v->v[i]),
			};
		}
	}
	if (is_out != small)
		free(is_out);
}

/* Is the spread (max - min) of v's repetitions, outliers left out, within
   one step of the printed value?  Then rounding alone may have made it. */
static int within_resolution(const struct exp_values *v, double scov, enum point_side side, double resolution)
{
	if (!(resolution > 0))
		return 0;
	unsigned char small[16], *is_out = v->n <= 16 ? small : xmalloc((size_t)v->n);
	memset(is_out, 0, (size_t)v->n);
	point_outliers(v, scov, side, is_out);
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < v->n; i++)
		if (!is_out[i]) {
			lo = fmin(lo, v->v[i]);
			hi = fmax(hi, v->v[i]);
		}
	if (is_out != small)
		free(is_out);
	/* the printed values are decimal: 0.003 - 0.002 is a hair above 0.001 in binary */
	return hi - lo <= resolution * (1 + 1e-9);
}

/* The 95% quantile of chi-square with dof degrees of freedom: one per point count, kept per thread. */
static double chisq_q95(int dof)
{
	static _Thread_local double q[64];
	if (dof < 1 || dof >= 64)
		return gsl_cdf_chisq_Pinv(0.95, dof);
	if (!(q[dof] > 0))
		q[dof] = gsl_cdf_chisq_Pinv(0.95, dof);
	return q[dof];
}

void noise_check(const struct experiment *e, const struct exp_series *s, double threshold,
		 double unreliable_fraction, struct noise_result *r)
{
	memset(r, 0, sizeof(*r));
	r->npoints = e->npoints;
	r->cov = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	r->noisy = xcalloc((size_t)(e->npoints ? e->npoints : 1), 1);
	r->max_cov = NAN;
	r->median_cov = NAN;
	r->worst_point = -1;
	double scov = s ? point_series_cov(s->at, e->npoints) : NAN;
	enum point_side side = point_side_of_series(e, s);
	r->resolution = s ? experiment_resolution(e, s->callpath, s->metric) : 0;
	double *known = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	for (int p = 0; p < e->npoints; p++) {
		struct point_estimate pe = { NAN, 0, 0, NAN };
		if (s)
			point_estimate(&s->at[p], MODEL_MEAN, 1, scov, side, &pe);
		double c = pe.rel_var >= 0 ? sqrt(pe.rel_var) : NAN;
		if (s)
			find_outliers(&s->at[p], p, scov, side, r);
		r->cov[p] = c;
		if (isnan(c))
			continue;
		known[r->nmeasured++] = c;
		/* noisy: even the 95% lower confidence bound of the CoV is above the threshold,
		   and the spread is more than the printed value's step */
		if (c * c * (pe.n - 1) > threshold * threshold * chisq_q95(pe.n - 1)) {
			if (within_resolution(&s->at[p], scov, side, r->resolution)) {
				r->nresolved++;
			} else {
				r->noisy[p] = 1;
				r->nnoisy++;
			}
		}
		if (r->worst_point < 0 || c > r->max_cov) {
			r->max_cov = c;
			r->worst_point = p;
		}
	}
	if (r->nmeasured) {
		gsl_sort(known, 1, (size_t)r->nmeasured);
		r->median_cov = gsl_stats_median_from_sorted_data(known, 1, (size_t)r->nmeasured);
		r->unreliable = r->nnoisy > unreliable_fraction * r->nmeasured;
	}
	free(known);
}

void noise_result_release(struct noise_result *r)
{
	free(r->cov);
	free(r->noisy);
	free(r->outliers);
	memset(r, 0, sizeof(*r));
}
