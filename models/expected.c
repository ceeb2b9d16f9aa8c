/* A dependency function's expected volume as one PMNF term (see expected.h). */
#include "models/expected.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include "models/hypothesis.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPECTED_REL_TOL 1e-9

/* The expression at coordinates x (input order), mapped onto the dependency parameters. */
static double eval_at(const struct expr *ex, const int *dep_of, int nparams, int ndeps, double *vals,
		      const double *x)
{
	for (int j = 0; j < ndeps; j++)
		vals[j] = NAN;
	for (int k = 0; k < nparams; k++)
		if (dep_of[k] >= 0)
			vals[dep_of[k]] = x[k];
	return expr_eval(ex, vals);
}

static double block(const struct hyp_exponent *h, double x)
{
	return h ? pow(x, hyp_poly(h)) * pow(log2(x), h->log) : 1;
}

/* Are g[i] / block(h, v[i]) equal for all i (n >= 1), finite and positive?
   (v may be NULL when h is: then the g[i] themselves.) */
static int proportional(const double *g, const double *v, int n, const struct hyp_exponent *h)
{
	double r0 = g[0] / block(h, v ? v[0] : 1);
	if (!isfinite(r0) || !(r0 > 0))
		return 0;
	for (int i = 1; i < n; i++) {
		double r = g[i] / block(h, v ? v[i] : 1);
		if (!isfinite(r) || fabs(r / r0 - 1) > EXPECTED_REL_TOL)
			return 0;
	}
	return 1;
}

/*
 * Parameter k's building block: the expression with every other coordinate
 * at base[] and k at each of its distinct values.  NULL for none (the
 * expression does not vary with k), *found 0 when no block fits.
 */
static const struct hyp_exponent *param_block(const struct expr *ex, const int *dep_of, int nparams,
					      int ndeps, double *vals, const double *coords, int npoints,
					      int k, int log_ok, int *found)
{
	const struct hyp_exponent *hyps, *best = NULL;
	int nh = hypothesis_defaults(&hyps), nv = 0;
	double *x = xmalloc(sizeof(double) * (size_t)nparams);
	double *v = xmalloc(sizeof(double) * (size_t)npoints), *g = xmalloc(sizeof(double) * (size_t)npoints);
	memcpy(x, coords, sizeof(double) * (size_t)nparams);
	for (int p = 0; p < npoints; p++) {
		double c = coords[(size_t)p * (size_t)nparams + (size_t)k];
		int seen = 0;
		for (int i = 0; i < nv && !seen; i++)
			seen = v[i] == c;
		if (!seen) {
			x[k] = v[nv] = c;
			g[nv++] = eval_at(ex, dep_of, nparams, ndeps, vals, x);
		}
	}
	*found = proportional(g, v, nv, NULL);
	for (int h = 0; h < nh && !*found && nv >= 2; h++)
		if ((log_ok || !hyps[h].log) && proportional(g, v, nv, &hyps[h]) &&
		    (!best || hyp_complexity(&hyps[h]) < hyp_complexity(best)))
			best = &hyps[h];
	if (best)
		*found = 1;
	free(x);
	free(v);
	free(g);
	return best;
}

int expected_term(const struct dep_function *f, const struct deps *d, int nparams, char *const *params,
		  const double *coords, int npoints, int log_ok, struct pmnf_factor *factors)
{
	if (!f || !f->expect || !d || nparams < 1 || npoints < 1)
		return -1;
	struct perr err;
	struct expr *ex = expr_parse(f->expect, d->nparams, d->params, &err);
	if (!ex)
		return -1;
	int *dep_of = xmalloc(sizeof(int) * (size_t)nparams), nf = 0, ok = 1;
	double *vals = xmalloc(sizeof(double) * (size_t)(d->nparams > 0 ? d->nparams : 1));
	const struct hyp_exponent **blocks = xcalloc((size_t)nparams, sizeof(*blocks));
	for (int k = 0; k < nparams; k++)
		dep_of[k] = deps_find_param(d, params[k]);
	for (int k = 0; k < nparams && ok; k++)
		blocks[k] = param_block(ex, dep_of, nparams, d->nparams, vals, coords, npoints, k, log_ok, &ok);
	/* the product of the blocks must follow the expression at every point */
	double *g = xmalloc(sizeof(double) * (size_t)npoints);
	for (int p = 0; p < npoints && ok; p++) {
		const double *x = &coords[(size_t)p * (size_t)nparams];
		double t = 1;
		for (int k = 0; k < nparams; k++)
			t *= block(blocks[k], x[k]);
		g[p] = eval_at(ex, dep_of, nparams, d->nparams, vals, x) / t;
	}
	ok = ok && proportional(g, NULL, npoints, NULL);
	for (int k = 0; k < nparams && ok; k++)
		if (blocks[k])
			factors[nf++] = (struct pmnf_factor){ k, hyp_poly(blocks[k]), blocks[k]->log };
	free(g);
	free(blocks);
	free(vals);
	free(dep_of);
	expr_free(ex);
	return ok && nf > 0 ? nf : -1;
}
