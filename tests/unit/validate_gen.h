/*
 * Generated experiments with known truth for the validator's tests:
 * deterministic (GSL's MT19937 with fixed seeds), built through the public
 * experiment API, with an in-memory dependency description.
 */
#ifndef PS_TEST_VALIDATE_GEN_H
#define PS_TEST_VALIDATE_GEN_H
#include "collectors/experiment.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

/* The truth at one point: coords in experiment parameter order. */
typedef double (*gen_truth_fn)(const double *x, void *ctx);

/*
 * Add every point of the grid vals[k][0..nvals[k]) (parameters already added
 * to e) with reps values truth(x) * (1 + noise * N(0,1)) for callpath cp.
 */
static inline void gen_grid(struct experiment *e, const char *cp, int reps, double noise,
			    gen_truth_fn truth, void *ctx, const double *const *vals,
			    const int *nvals, gsl_rng *rng)
{
	int np = e->nparams;
	int idx[8] = { 0 };
	int c = experiment_callpath(e, cp), m = experiment_metric(e, "time");
	for (;;) {
		double x[8];
		for (int k = 0; k < np; k++)
			x[k] = vals[k][idx[k]];
		int p = experiment_point(e, x);
		double t = truth(x, ctx);
		for (int r = 0; r < reps; r++)
			experiment_add(e, c, m, p, t * (1 + noise * gsl_ran_gaussian(rng, 1.0)));
		int k = np - 1;
		while (k >= 0 && ++idx[k] == nvals[k])
			idx[k--] = 0;
		if (k < 0)
			break;
	}
}

/* An in-memory dependency table (what deps_read would produce). */
static inline void gen_deps_init(struct deps *d, int nparams, const char *const *params)
{
	memset(d, 0, sizeof(*d));
	d->path = xstrdup("generated");
	d->nparams = nparams;
	d->params = xmalloc(sizeof(char *) * (size_t)nparams);
	for (int i = 0; i < nparams; i++)
		d->params[i] = xstrdup(params[i]);
}

/* Add a function with one product term over the given params (n may be 0); returns its index. */
static inline int gen_deps_func(struct deps *d, const char *name, int n,
							const int *params, const char *expect)
{
	d->funcs = xrealloc(d->funcs, sizeof(*d->funcs) * (size_t)(d->nfuncs + 1));
	struct dep_function *f = &d->funcs[d->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->expect = expect ? xstrdup(expect) : NULL;
	if (n) {
		f->nterms = 1;
		f->terms = xcalloc(1, sizeof(*f->terms));
		f->terms[0].n = n;
		f->terms[0].params = xmalloc(sizeof(int) * (size_t)n);
		memcpy(f->terms[0].params, params, sizeof(int) * (size_t)n);
	}
	return d->nfuncs - 1;
}

static inline void gen_deps_release(struct deps *d)
{
	for (int i = 0; i < d->nfuncs; i++) {
		struct dep_function *f = &d->funcs[i];
		for (int t = 0; t < f->nterms; t++)
			free(f->terms[t].params);
		free(f->terms);
		free(f->name);
		free(f->expect);
	}
	free(d->funcs);
	for (int i = 0; i < d->nparams; i++)
		free(d->params[i]);
	free(d->params);
	free(d->path);
	memset(d, 0, sizeof(*d));
}

#endif
