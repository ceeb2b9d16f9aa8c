/* The extrapolation check: refit without the largest value of a parameter and predict it. */
#include "validator/extrapolate.h"
#include "common/xalloc.h"
#include "models/points.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Distinct values of param among the points with data; *xmax the largest. */
static int count_values(const struct experiment *e, const struct exp_series *s, int param, double *xmax)
{
	double *seen = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	int n = 0;
	*xmax = -INFINITY;
	for (int p = 0; p < e->npoints; p++) {
		if (!s->at[p].n)
			continue;
		double x = experiment_coord(e, p, param);
		int i = 0;
		while (i < n && seen[i] != x)
			i++;
		if (i == n)
			seen[n++] = x;
		if (x > *xmax)
			*xmax = x;
	}
	free(seen);
	return n;
}

/* Predict the points at xmax with r->model; fills error and noise. */
static void predict(const struct experiment *e, const struct exp_series *s, const struct model_options *opt,
		    struct extrap_result *r)
{
	double *errs = xmalloc(sizeof(double) * (size_t)e->npoints);
	double *noise = xmalloc(sizeof(double) * (size_t)e->npoints);
	int nn = 0;
	double scov = point_series_cov(s->at, e->npoints);
	for (int p = 0; p < e->npoints; p++) {
		if (!s->at[p].n || experiment_coord(e, p, r->param) != r->xmax)
			continue;
		struct point_estimate pe;
		point_estimate(&s->at[p], opt->aggregate, opt->selection == MODEL_SELECT_ROBUST, scov,
			       opt->outlier_side, &pe);
		double f = pmnf_eval(&r->model, &e->coords[(size_t)p * (size_t)e->nparams]);
		if (!(pe.value != 0))
			continue;
		double c = point_robust_cov(&s->at[p]);
		errs[r->npredicted] = fabs(f - pe.value) / fabs(pe.value);
		if (!isfinite(errs[r->npredicted]))
			errs[r->npredicted] = INFINITY;
		r->npredicted++;
		if (isfinite(c))
			noise[nn++] = c;
	}
	r->error = values_median(errs, r->npredicted);
	r->noise = nn ? values_median(noise, nn) : 0;
	r->unstable = r->npredicted > 0 && r->error > 2 * r->noise && r->error > EXTRAP_MIN_ERROR;
	free(errs);
	free(noise);
}

int extrapolate_test(const struct experiment *e, const struct exp_series *s, int param,
		     const struct model_options *opt, struct extrap_result *r, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->param = param;
	r->error = r->noise = r->xmax = NAN;
	pmnf_init(&r->model, e->nparams, e->params);
	if (!s)
		return 0;
	r->nvalues = count_values(e, s, param, &r->xmax);
	if (r->nvalues < EXTRAP_MIN_VALUES)
		return 0;
	/* every point below xmax, values borrowed */
	struct exp_values *vals = xcalloc((size_t)e->npoints, sizeof(*vals));
	for (int p = 0; p < e->npoints; p++)
		if (experiment_coord(e, p, param) < r->xmax)
			vals[p] = s->at[p];
	struct model_input in = {
		.nparams = e->nparams, .params = e->params, .npoints = e->npoints,
		.coords = e->coords, .values = vals,
	};
	struct model_options mo = model_options_for_series(opt, e, s);
	pmnf_release(&r->model);
	int rc = modeler_fit(&in, &mo, NULL, &r->model, err);
	free(vals);
	if (rc < 0)
		return -1;
	predict(e, s, &mo, r);
	return 1;
}

void extrap_result_release(struct extrap_result *r)
{
	pmnf_release(&r->model);
	memset(r, 0, sizeof(*r));
}
