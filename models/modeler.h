/*
 * The PMNF modeller: Extra-P's published method (hypothesis search over
 * the default exponent sets, linear least squares via GSL, selection by
 * leave-one-out cross-validated SMAPE, the multi-parameter combination of
 * single-parameter terms), optionally constrained by taint dependencies,
 * and the noise-aware selection (MODEL_SELECT_ROBUST): the simplest
 * hypothesis a lack-of-fit test against the repetitions' pure error does
 * not reject (models/lof.h), on point estimates without outliers.
 * docs/modelling.md describes the methods and their rules.
 *
 * Invariants: the library does not print and does not keep global state
 * (apart from switching GSL's error handler off); it is a pure function
 * of its input: equal input gives bit-identical models.  Inputs are only
 * read; the output model owns all its memory (pmnf_release()).
 */
#ifndef PS_MODELER_H
#define PS_MODELER_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"
#include "models/lof.h"
#include "models/pmnf.h"
#include "models/points.h"

/*
 * Measured data for one callpath and metric on plain arrays, so callers can
 * fit any subset of points (e.g. one line of a grid).  Points with no
 * values (values[p].n == 0) are skipped.  Parameters are named so that a
 * constraint can be mapped onto them by name.
 */
struct model_input {
	int nparams;
	char *const *params;                    /* nparams names */
	int npoints;
	const double *coords;                   /* npoints x nparams, row-major */
	const struct exp_values *values;        /* npoints: the repetitions of each point */
};

enum model_selection {
	MODEL_SELECT_EXTRAP = 0,                /* Extra-P's rule, exact */
	MODEL_SELECT_ROBUST,                    /* the simplest hypothesis the noise does not reject */
};

struct model_options {
	enum model_aggregate aggregate;
	enum model_selection selection;
	double min_contribution;                /* reject terms below this share everywhere (0.0005) */
	int allow_log;                          /* use log2 terms when all coordinates >= 1 (1) */
	double alpha;                           /* robust: lack-of-fit significance level (0.01) */
	int relative_fallback;                  /* robust, one parameter: when every hypothesis is
						   rejected, the best relative fit instead of
						   Extra-P's rule (0; the segment test sets it) */
	enum point_side outlier_side;           /* robust: where a disturbed repetition lies
						   (BOTH; modeler_fit_series() sets the metric's) */
};

/* Extra-P's defaults (mean, extrap). */
void model_options_init(struct model_options *opt);
/* The command-line defaults: robust selection on means without outliers. */
void model_options_robust(struct model_options *opt);

/* opt (NULL: Extra-P's defaults) for fitting series s of e: with its metric's
   outlier side (point_side_of_series()). */
struct model_options model_options_for_series(const struct model_options *opt, const struct experiment *e,
					      const struct exp_series *s);

/* "extrap", "robust"; parse returns 0, or -1 for another name. */
const char *model_selection_name(enum model_selection s);
int model_selection_parse(const char *s, enum model_selection *out);

/*
 * Taint constraint for one region: the dependency terms of func, whose
 * parameter indices refer to deps->params.  They are mapped onto the input
 * parameters by name; dependency parameters the input lacks are ignored.
 * Input parameters that occur in no term are not used at all; parameters
 * that only occur in separate terms are combined additively, parameters
 * sharing a term may multiply.  func->nterms == 0 gives the constant model.
 */
struct model_constraint {
	const struct deps *deps;
	const struct dep_function *func;
};

/*
 * Fit the best PMNF model to in.  constraint NULL fits a black-box model.
 * out is initialised by the call (release it with pmnf_release()), also
 * on error.  Returns 0, or -1 with err set (no parameters, no points with
 * values, non-finite values or coordinates).  Candidates that GSL cannot
 * fit (rank-deficient, non-finite terms) are skipped, never an error.
 * opt NULL means the defaults.
 */
int modeler_fit(const struct model_input *in, const struct model_options *opt,
		const struct model_constraint *constraint, struct pmnf_model *out,
		struct perr *err);

/* The same for one callpath and metric of an experiment (all its points),
   with the metric's outlier side (point_side_of_metric()). */
int modeler_fit_series(const struct experiment *e, int callpath, int metric,
		       const struct model_options *opt,
		       const struct model_constraint *constraint,
		       struct pmnf_model *out, struct perr *err);

/*
 * An optional context for fitting many callpaths: it caches the
 * factorisations of the single-parameter hypotheses per set of
 * coordinates (they do not depend on the measured values).  Results are
 * bit-identical with or without it.  Not thread-safe: use one per thread.
 */
struct modeler;
struct modeler *modeler_new(void);
void modeler_free(struct modeler *ctx);
/* modeler_fit() and modeler_fit_series() with a context (NULL: none). */
int modeler_fit_ctx(struct modeler *ctx, const struct model_input *in,
		    const struct model_options *opt,
		    const struct model_constraint *constraint, struct pmnf_model *out,
		    struct perr *err);
int modeler_fit_series_ctx(struct modeler *ctx, const struct experiment *e, int callpath,
			   int metric, const struct model_options *opt,
			   const struct model_constraint *constraint,
			   struct pmnf_model *out, struct perr *err);

/*
 * Fill m's quality figures (npoints, rss, ar2, smape, re) against in's
 * aggregated values, keeping its terms.  Parameters must match by position.
 */
int modeler_quality(struct pmnf_model *m, const struct model_input *in,
		    const struct model_options *opt, struct perr *err);

/*
 * The aggregate (mean, median or min) of one point's repetitions; NaN if
 * none.  (Robust selection leaves outliers out first: point_estimate().)
 */
double model_aggregate_values(const struct exp_values *v, enum model_aggregate how);

#endif
