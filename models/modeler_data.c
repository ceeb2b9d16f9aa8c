/* The modeller's aggregated data, its least-squares scratch and the quality figures. */
#include "models/modeler_impl.h"
#include "common/xalloc.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <stdlib.h>
#include <string.h>

void ws_init(struct ws *w, int rows, int cols)
{
	w->rows = rows > 0 ? rows : 1;
	w->cols = cols < 2 ? 2 : cols > MAX_COLS ? MAX_COLS : cols;
	w->X = xmalloc((size_t)w->rows * (size_t)w->cols * sizeof(double));
	w->y = xmalloc((size_t)w->rows * sizeof(double));
	w->res = xmalloc((size_t)w->rows * sizeof(double));
	w->t = xmalloc((size_t)w->rows * sizeof(double));
	w->alts = NULL;
}

void ws_release(struct ws *w)
{
	free(w->X);
	free(w->y);
	free(w->res);
	free(w->t);
}

/*
 * Least squares for the n x k system in w->X (row-major) and w->y; the
 * coefficients land in w->c.  Returns -1 when GSL fails or the columns are
 * (numerically) linearly dependent, so the hypothesis cannot be fitted.
 */
int ws_lsq(struct ws *w, int n, int k)
{
	if (n < k || k > w->cols || n > w->rows)
		return -1;
	for (int j = 0; j < k; j++) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += w->X[i * k + j] * w->X[i * k + j];
		w->norm[j] = sqrt(s);
		if (!isfinite(w->norm[j]) || w->norm[j] == 0)
			return -1;
	}
	gsl_matrix_view A = gsl_matrix_view_array(w->X, (size_t)n, (size_t)k);
	gsl_vector_view tau = gsl_vector_view_array(w->tau, (size_t)k);
	gsl_vector_view b = gsl_vector_view_array(w->y, (size_t)n);
	gsl_vector_view x = gsl_vector_view_array(w->c, (size_t)k);
	gsl_vector_view r = gsl_vector_view_array(w->res, (size_t)n);
	if (gsl_linalg_QR_decomp(&A.matrix, &tau.vector) != GSL_SUCCESS)
		return -1;
	for (int j = 0; j < k; j++)
		if (!(fabs(w->X[j * k + j]) > RANK_TOL * w->norm[j]))
			return -1;
	if (gsl_linalg_QR_lssolve(&A.matrix, &tau.vector, &b.vector, &x.vector, &r.vector) != GSL_SUCCESS)
		return -1;
	for (int j = 0; j < k; j++)
		if (!isfinite(w->c[j]))
			return -1;
	return 0;
}

/* 1 when the term c1 * t reaches min_contribution of the measured value somewhere. */
int term_contributes(double c1, const double *t, const double *y, int n,
			    const struct model_options *opt)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		double c = fabs(c1 * t[i] / y[i]);
		if (isnan(c) || c > m)
			m = isnan(c) ? INFINITY : c;
	}
	return c1 != 0 && !(m < opt->min_contribution);
}

/* Check point p's values and coordinates and append its estimate to a. */
static int agg_point(struct agg *a, const struct model_input *in, int p, const struct model_options *opt,
		     double series_cov, struct point_estimate *pe, struct perr *err)
{
	const struct exp_values *v = &in->values[p];
	for (int i = 0; i < v->n; i++)
		if (!isfinite(v->v[i]))
			return perr_set(err, "non-finite value at point %d", p + 1);
	for (int k = 0; k < a->m; k++) {
		double c = in->coords[(size_t)p * (size_t)a->m + (size_t)k];
		if (!isfinite(c))
			return perr_set(err, "non-finite coordinate of parameter '%s' at point %d",
					in->params[k], p + 1);
		a->x[(size_t)a->n * (size_t)a->m + (size_t)k] = c;
	}
	point_estimate(v, opt->aggregate, opt->selection == MODEL_SELECT_ROBUST, series_cov,
		       opt->outlier_side, &pe[a->n]);
	a->y[a->n] = pe[a->n].value;
	a->r[a->n] = pe[a->n].n;
	a->n++;
	return 0;
}

int agg_build(struct agg *a, const struct model_input *in, const struct model_options *opt,
		     struct perr *err)
{
	size_t np = (size_t)(in->npoints > 0 ? in->npoints : 1);
	a->m = in->nparams;
	a->n = 0;
	a->x = xmalloc(np * (size_t)(a->m > 0 ? a->m : 1) * sizeof(double));
	a->y = xmalloc(np * sizeof(double));
	a->r = xmalloc(np * sizeof(double));
	struct point_estimate *pe = xmalloc(np * sizeof(*pe));
	int ret = 0;
	double series_cov = opt->selection == MODEL_SELECT_ROBUST ? point_series_cov(in->values, in->npoints) : NAN;
	for (int p = 0; p < in->npoints && !ret; p++)
		if (in->values[p].n > 0)
			ret = agg_point(a, in, p, opt, series_cov, pe, err);
	if (!ret && a->n == 0)
		ret = perr_set(err, "no measured points");
	if (!ret)
		lof_noise_pool(pe, a->n, opt->aggregate, &a->nz);
	free(pe);
	return ret;
}

void agg_release(struct agg *a)
{
	free(a->x);
	free(a->y);
	free(a->r);
}

/* Fill the quality figures of m against the aggregated points. */
void agg_quality(struct pmnf_model *m, const struct agg *a)
{
	double mean = 0, tss = 0, rss = 0, sm = 0, re = 0;
	int nre = 0, nfac = 0;
	for (int i = 0; i < a->n; i++)
		mean += a->y[i] / a->n;
	for (int i = 0; i < a->n; i++) {
		double y = a->y[i], f = pmnf_eval(m, &a->x[(size_t)i * (size_t)a->m]), d = f - y;
		tss += (y - mean) * (y - mean);
		rss += d * d;
		sm += smape_term(f, y);
		if (y != 0) {
			re += fabs(d / y);
			nre++;
		}
	}
	for (int k = 0; k < m->nterms; k++)
		nfac += m->terms[k].nfactors;
	m->npoints = a->n;
	m->rss = rss;
	m->smape = sm / a->n * 100;
	m->re = nre ? re / nre : 0;
	if (m->nterms == 0 || tss == 0) {
		m->ar2 = 1;
	} else {
		int dof = a->n - nfac - 1;
		m->ar2 = dof > 0 ? 1.0 - (rss / tss) * (a->n - 1.0) / dof : NAN;
	}
}

int modeler_quality(struct pmnf_model *m, const struct model_input *in,
		    const struct model_options *opt, struct perr *err)
{
	struct model_options def;
	struct agg a;
	if (!opt) {
		model_options_init(&def);
		opt = &def;
	}
	if (m->nparams != in->nparams)
		return perr_set(err, "model has %d parameters, data has %d", m->nparams, in->nparams);
	int ret = agg_build(&a, in, opt, err);
	if (!ret)
		agg_quality(m, &a);
	agg_release(&a);
	return ret;
}

void agg_set_constant(struct pmnf_model *out, const struct agg *a)
{
	double mean = 0;
	for (int i = 0; i < a->n; i++)
		mean += a->y[i] / a->n;
	out->constant = mean;
}
