/*
 * Bootstrap ensembles of a fitted model: how far the measurements let the
 * model move, as the spread of the models fitted to resampled data.
 * `plan --evaluate`'s own strategy measures where the ensemble disagrees
 * most; `refine --for accuracy` measures where that most narrows the
 * spread at a target (docs/designs.md, docs/refine.md).
 *
 * The resampling is a residual bootstrap in relative terms, which keeps
 * the design (the points and their repetitions) fixed: each point's
 * relative residual about the fitted model (centred, and inflated by
 * sqrt(n / (n - k)) for the k coefficients fitted) is redrawn among all
 * points' residuals, and each repetition's relative deviation from its
 * point's estimate among all points' deviations (centred per point, so
 * that the point estimate is the redrawn one).  Each replicate is fitted
 * with the same options and constraint as the model, so the ensemble
 * holds the model selection's uncertainty (another exponent, another
 * structure) as well as the coefficients'.
 *
 * The alternatives are the other kind of ensemble: the competing
 * hypotheses robust selection weighed on all points and did not reject
 * (each combination of the lines' alternatives on its best structure,
 * models/fit_combine.c), which a bootstrap centred on the chosen model
 * sees only through its residuals: a wrong exponent the data do not yet
 * rule out is one of them.
 *
 * Invariants: a pure function of its input and seed (GSL's mt19937);
 * replicates whose fit fails are left out (n counts those kept).  The
 * ensemble owns its models.
 */
#ifndef PS_ENSEMBLE_H
#define PS_ENSEMBLE_H
#include "models/modeler.h"

struct model_ensemble {
	int n;                          /* replicates fitted */
	struct pmnf_model *m;
};

/*
 * nboot replicates of fitted (the model of in under opt and con), fitted
 * with ctx (may be NULL).  Returns 0 (en->n may be 0 when no replicate
 * fits), or -1 with err when in has no usable points.
 */
int model_ensemble_fit(struct model_ensemble *en, struct modeler *ctx, const struct model_input *in,
		       const struct model_options *opt, const struct model_constraint *con,
		       const struct pmnf_model *fitted, int nboot, unsigned long seed, struct perr *err);
void model_ensemble_release(struct model_ensemble *en);

/*
 * The alternatives of in's model under opt and con (the chosen one among
 * them).  Returns 0, or -1 with err as modeler_fit(); en->n is 0 where no
 * joint choice was made: Extra-P's selection, one parameter, no
 * repetitions, the dependency file's expected model, or every combination
 * rejected.
 */
int model_ensemble_alternatives(struct model_ensemble *en, struct modeler *ctx, const struct model_input *in,
				const struct model_options *opt, const struct model_constraint *con,
				struct perr *err);

/*
 * Each replicate's prediction at x relative to center (the model's own
 * prediction there), as a logarithm: out[b] = ln(pred_b / center), floored
 * at ln(1e-3) for predictions at or below zero.  out has en->n entries.
 */
void model_ensemble_log_ratios(const struct model_ensemble *en, const double *x, double center,
			       double *out);

/* The variance of those logarithms (0 with fewer than 2 replicates). */
double model_ensemble_log_var(const struct model_ensemble *en, const double *x, double center);

#endif
