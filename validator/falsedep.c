/* Partial F-test of a black-box model's extra-parameter terms over the constrained model. */
#include "validator/falsedep.h"
#include "common/xalloc.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pmnf_uses_param(const struct pmnf_model *m, int param)
{
	for (int t = 0; t < m->nterms; t++)
		for (int f = 0; f < m->terms[t].nfactors; f++)
			if (m->terms[t].factors[f].param == param)
				return 1;
	return 0;
}

static int term_uses(const struct pmnf_term *t, int param)
{
	for (int f = 0; f < t->nfactors; f++)
		if (t->factors[f].param == param)
			return 1;
	return 0;
}

/* Least-squares RSS of y on the given columns (ncols of X). */
static int ols_rss(const gsl_matrix *xfull, size_t ncols, const gsl_vector *y, double *rss,
		   struct perr *err)
{
	size_t n = y->size;
	gsl_matrix_const_view xv = gsl_matrix_const_submatrix(xfull, 0, 0, n, ncols);
	gsl_vector *c = gsl_vector_alloc(ncols);
	gsl_matrix *cov = gsl_matrix_alloc(ncols, ncols);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, ncols);
	double chisq;
	int st = gsl_multifit_linear(&xv.matrix, y, c, cov, &chisq, w);
	gsl_multifit_linear_free(w);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
	if (st)
		return perr_set(err, "least squares failed: %s", gsl_strerror(st));
	*rss = chisq;
	return 0;
}

int falsedep_measure(const struct experiment *e, const struct exp_series *s,
		     const struct pmnf_model *bb, const struct pmnf_model *cm, int param,
		     struct falsedep_result *r, struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->param = param;
	r->rss_base = r->rss_full = r->bought = r->f = r->p_value = NAN;
	gsl_set_error_handler_off();
	int npts = 0;
	for (int p = 0; p < e->npoints; p++)
		if (s && s->at[p].n)
			npts++;
	size_t nbase = 1 + (size_t)cm->nterms;
	size_t ncols = nbase;
	for (int t = 0; t < bb->nterms; t++)
		if (term_uses(&bb->terms[t], param))
			ncols++;
	r->nadded = (int)(ncols - nbase);
	if (npts < (int)ncols || r->nadded == 0)
		return 0;
	gsl_matrix *x = gsl_matrix_alloc((size_t)npts, ncols);
	gsl_vector *y = gsl_vector_alloc((size_t)npts);
	int i = 0;
	for (int p = 0; p < e->npoints; p++) {
		const struct exp_values *v = &s->at[p];
		if (!v->n)
			continue;
		const double *c = &e->coords[(size_t)p * (size_t)e->nparams];
		double mean = 0;
		for (int k = 0; k < v->n; k++)
			mean += v->v[k];
		gsl_vector_set(y, (size_t)i, mean / v->n);
		size_t col = 0;
		gsl_matrix_set(x, (size_t)i, col++, 1.0);
		for (int t = 0; t < cm->nterms; t++)
			gsl_matrix_set(x, (size_t)i, col++, pmnf_term_eval(&cm->terms[t], c));
		for (int t = 0; t < bb->nterms; t++)
			if (term_uses(&bb->terms[t], param))
				gsl_matrix_set(x, (size_t)i, col++, pmnf_term_eval(&bb->terms[t], c));
		i++;
	}
	int rc = ols_rss(x, nbase, y, &r->rss_base, err);
	if (!rc)
		rc = ols_rss(x, ncols, y, &r->rss_full, err);
	gsl_matrix_free(x);
	gsl_vector_free(y);
	if (rc)
		return -1;
	if (r->rss_full > r->rss_base)
		r->rss_full = r->rss_base;      /* rounding: the larger basis never fits worse */
	r->bought = r->rss_base > 0 ? 1 - r->rss_full / r->rss_base : 0;
	r->df1 = r->nadded;
	r->df2 = npts - (int)ncols;
	if (r->df2 >= 1) {
		if (r->rss_full > 0) {
			r->f = ((r->rss_base - r->rss_full) / r->df1) / (r->rss_full / r->df2);
			r->p_value = gsl_cdf_fdist_Q(r->f, r->df1, r->df2);
		} else {
			r->f = r->rss_base > 0 ? INFINITY : 0;
			r->p_value = r->rss_base > 0 ? 0 : 1;
		}
	}
	return 0;
}
