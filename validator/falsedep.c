/* Partial F-test of a black-box model's extra-parameter terms over the constrained model. */
#include "validator/falsedep.h"
#include "common/xalloc.h"
#include "models/lsq.h"
#include <gsl/gsl_errno.h>
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
	int st = lsq_rss(x, nbase, NULL, y, NULL, &r->rss_base);
	if (!st)
		st = lsq_rss(x, ncols, NULL, y, NULL, &r->rss_full);
	gsl_matrix_free(x);
	gsl_vector_free(y);
	if (st)
		return perr_set(err, "least squares failed: %s", gsl_strerror(st));
	r->df1 = r->nadded;
	r->df2 = npts - (int)ncols;
	/* the test clamps rss_full; its f and p mean something only with df2 >= 1 */
	double f, p = lsq_partial_f(r->rss_base, &r->rss_full, r->df1, r->df2 >= 1 ? r->df2 : 1, &f);
	r->bought = r->rss_base > 0 ? 1 - r->rss_full / r->rss_base : 0;
	if (r->df2 >= 1) {
		r->f = f;
		r->p_value = p;
	}
	return 0;
}
