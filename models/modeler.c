/*
 * The PMNF modeller's entry points: options, the taint constraint's terms,
 * the expected volume as a hypothesis, and the fit of one input (its
 * aggregation in modeler_data.c, the single-parameter search in
 * fit_single.c, the multi-parameter combination in fit_combine.c).
 * Least squares go through GSL's Householder QR; nothing here prints.
 */
#include "models/modeler_impl.h"
#include "models/expected.h"
#include "common/xalloc.h"
#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONSTRAINT_TERMS 64

void model_options_init(struct model_options *opt)
{
	opt->aggregate = MODEL_MEAN;
	opt->selection = MODEL_SELECT_EXTRAP;
	opt->min_contribution = 0.0005;
	opt->allow_log = 1;
	opt->alpha = 0.01;
	opt->relative_fallback = 0;
	opt->outlier_side = POINT_SIDE_BOTH;
}

void model_options_robust(struct model_options *opt)
{
	model_options_init(opt);
	opt->selection = MODEL_SELECT_ROBUST;
}

struct model_options model_options_for_series(const struct model_options *opt, const struct experiment *e,
					      const struct exp_series *s)
{
	struct model_options mo;
	if (opt)
		mo = *opt;
	else
		model_options_init(&mo);
	mo.outlier_side = point_side_of_series(e, s);
	return mo;
}

static const char *const sel_names[] = { "extrap", "robust" };

const char *model_selection_name(enum model_selection s)
{
	return s >= MODEL_SELECT_EXTRAP && s <= MODEL_SELECT_ROBUST ? sel_names[s] : "?";
}

int model_selection_parse(const char *s, enum model_selection *out)
{
	int i = model_name_find(sel_names, MODEL_SELECT_ROBUST + 1, s);
	if (i >= 0)
		*out = (enum model_selection)i;
	return i >= 0 ? 0 : -1;
}

double model_aggregate_values(const struct exp_values *v, enum model_aggregate how)
{
	struct point_estimate pe;
	point_estimate(v, how, 0, NAN, POINT_SIDE_BOTH, &pe);
	return pe.value;
}

/* Map the constraint's terms onto input parameter bitmasks; returns the count. */
static int constraint_masks(const struct model_input *in, const struct model_constraint *c,
			    uint64_t *masks, int cap)
{
	int nm = 0;
	if (!c->func || !c->deps)
		return 0;
	for (int t = 0; t < c->func->nterms; t++) {
		uint64_t mask = 0;
		const struct dep_term *dt = &c->func->terms[t];
		for (int i = 0; i < dt->n; i++) {
			int dp = dt->params[i];
			if (dp < 0 || dp >= c->deps->nparams)
				continue;
			for (int k = 0; k < in->nparams && k < 64; k++)
				if (!strcmp(in->params[k], c->deps->params[dp]))
					mask |= (uint64_t)1 << k;
		}
		if (!mask)
			continue;
		int dup = 0;
		for (int j = 0; j < nm; j++)
			dup |= masks[j] == mask;
		if (!dup && nm < cap)
			masks[nm++] = mask;
	}
	return nm;
}

/*
 * Robust selection with a constraint whose function has an expected
 * volume that is one PMNF term: c0 + c1 * that term, tested first, is the
 * model when the data do not reject it (and c1 > 0).  When the lack-of-fit
 * test rejects it, it is still the model when its residuals follow no
 * coordinate (lof_trend_p at alpha): the points scatter about the expected
 * law by more than their repetitions show (a kernel's speed at particular
 * sizes, the host's level at the moment each point was measured), and no
 * other law would fit better but by following that scatter.  Returns 0
 * with out set, -1 otherwise (out untouched).
 */
static int fit_expected(const struct agg *a, const struct model_input *in,
			const struct model_constraint *c, const struct model_options *opt,
			struct pmnf_model *out)
{
	struct pmnf_factor f[64];
	if (opt->selection != MODEL_SELECT_ROBUST || !c || !c->func || !c->func->expect ||
	    a->nz.dof <= 0 || a->n < 3 || a->m > 64)
		return -1;
	int nf = expected_term(c->func, c->deps, a->m, in->params, a->x, a->n,
			       logs_allowed(opt, a->x, (size_t)a->n * (size_t)a->m), f);
	if (nf <= 0)
		return -1;
	struct pmnf_term t = { 1, nf, f };
	double *tv = xmalloc(sizeof(double) * (size_t)a->n), c0, c1, chi2, p = 0, trend = NAN;
	for (int i = 0; i < a->n; i++)
		tv[i] = pmnf_term_eval(&t, &a->x[(size_t)i * (size_t)a->m]);
	int fitted = lof_fit_line(tv, a->y, a->r, a->n, &a->nz, &c0, &c1, &chi2) == 0 && c1 > 0;
	int ok = fitted && (p = lof_p(chi2, a->n, 2, &a->nz)) >= opt->alpha;
	if (fitted && !ok) {
		double *e = xmalloc(sizeof(double) * (size_t)a->n);
		for (int i = 0; i < a->n; i++)
			e[i] = (a->y[i] - c0 - c1 * tv[i]) / a->y[i];
		ok = lof_trend_p(e, a->r, a->x, a->n, a->m, &trend) == 0 && trend >= opt->alpha;
		free(e);
	}
	free(tv);
	if (!ok)
		return -1;
	out->constant = c0;
	pmnf_add_term(out, c1, nf, f);
	out->lof_p = p;
	out->trend_p = trend;
	out->expected = 1;
	return 0;
}

int modeler_fit(const struct model_input *in, const struct model_options *opt,
		const struct model_constraint *constraint, struct pmnf_model *out,
		struct perr *err)
{
	return modeler_fit_ctx(NULL, in, opt, constraint, out, err);
}

int modeler_fit_ctx(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
		    const struct model_constraint *constraint, struct pmnf_model *out,
		    struct perr *err)
{
	return modeler_fit_alts(ctx, in, opt, constraint, out, NULL, err);
}

int modeler_fit_alts(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
		     const struct model_constraint *constraint, struct pmnf_model *out,
		     struct model_ensemble *alts, struct perr *err)
{
	struct model_options def;
	struct agg a;
	struct ws w;
	uint64_t cm[MAX_CONSTRAINT_TERMS];
	int ncm = 0;
	struct modeler *own = NULL;

	gsl_set_error_handler_off();
	pmnf_init(out, in->nparams, in->params);
	if (!opt) {
		model_options_init(&def);
		opt = &def;
	}
	if (in->nparams < 1)
		return perr_set(err, "no parameters");
	if (constraint && in->nparams > 64)
		return perr_set(err, "too many parameters for a constrained model (%d, at most 64)", in->nparams);
	if (agg_build(&a, in, opt, err) < 0) {
		agg_release(&a);
		return -1;
	}
	if (!ctx)
		ctx = own = modeler_new();
	if (constraint)
		ncm = constraint_masks(in, constraint, cm, MAX_CONSTRAINT_TERMS);
	/* columns: the constant plus at most max(3, parameters) terms, or the dependency terms */
	ws_init(&w, a.n, 1 + (in->nparams > 3 ? in->nparams : 3) + (constraint ? ncm : 0));
	w.alts = alts;
	if (constraint && ncm == 0)
		agg_set_constant(out, &a);
	else if (fit_expected(&a, in, constraint, opt, out) == 0)
		;
	else
		fit_multi(&w, ctx, &a, in, opt, cm, ncm, constraint != NULL, out);
	agg_quality(out, &a);
	ws_release(&w);
	agg_release(&a);
	modeler_free(own);
	return 0;
}

int modeler_fit_series(const struct experiment *e, int callpath, int metric,
		       const struct model_options *opt,
		       const struct model_constraint *constraint,
		       struct pmnf_model *out, struct perr *err)
{
	return modeler_fit_series_ctx(NULL, e, callpath, metric, opt, constraint, out, err);
}

int modeler_fit_series_ctx(struct modeler *ctx, const struct experiment *e, int callpath, int metric,
			   const struct model_options *opt,
			   const struct model_constraint *constraint,
			   struct pmnf_model *out, struct perr *err)
{
	const struct exp_series *s = experiment_series(e, callpath, metric);
	if (!s) {
		pmnf_init(out, e->nparams, e->params);
		return perr_set(err, "no values for callpath '%s' and metric '%s'",
				callpath >= 0 && callpath < e->ncallpaths ? e->callpaths[callpath] : "?",
				metric >= 0 && metric < e->nmetrics ? e->metrics[metric] : "?");
	}
	struct model_input in = {
		.nparams = e->nparams, .params = e->params, .npoints = e->npoints,
		.coords = e->coords, .values = s->at,
	};
	struct model_options mo = model_options_for_series(opt, e, s);
	return modeler_fit_ctx(ctx, &in, &mo, constraint, out, err);
}
