/* The noise check: coefficient of variation of each point's repetitions. */
#include "validator/noise.h"
#include "common/xalloc.h"
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

void noise_check(const struct experiment *e, const struct exp_series *s, double threshold,
		 double unreliable_fraction, struct noise_result *r)
{
	memset(r, 0, sizeof(*r));
	r->npoints = e->npoints;
	r->cov = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	r->max_cov = NAN;
	r->median_cov = NAN;
	r->worst_point = -1;
	double *known = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	for (int p = 0; p < e->npoints; p++) {
		double c = s ? noise_cov(&s->at[p]) : NAN;
		r->cov[p] = c;
		if (isnan(c))
			continue;
		known[r->nmeasured++] = c;
		if (c > threshold)
			r->nnoisy++;
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
	memset(r, 0, sizeof(*r));
}
