/*
 * The modeller's private parts, shared by its files: the aggregated data
 * of one fit (modeler_data.c), the single-parameter search on one line of
 * points (fit_single.c) and the multi-parameter combination (fit_combine.c);
 * modeler.c holds the entry points.  Not for use outside models/.
 */
#ifndef PS_MODELER_IMPL_H
#define PS_MODELER_IMPL_H
#include "models/hypothesis.h"
#include "models/modeler.h"
#include <math.h>
#include <stdint.h>

#define MAX_COLS (HYP_MAX_TERMS + 1)
#define RANK_TOL 1e-11

struct model_ensemble;

/* Robust selection's joint fit tries at most this many combinations of the lines' alternatives. */
#define JOINT_MAX 27

/* Scratch space for the least-squares solves of one fit, and where it leaves its alternatives. */
struct ws {
	int rows, cols;
	double *X, *y, *res, *t;        /* rows x cols, rows, rows, rows */
	double tau[MAX_COLS], c[MAX_COLS], norm[MAX_COLS];
	struct model_ensemble *alts;    /* NULL, or room for JOINT_MAX models: the joint fit's
					   hypotheses not rejected (ensemble.h) */
};

void ws_init(struct ws *w, int rows, int cols);
void ws_release(struct ws *w);
/*
 * Least squares for the n x k system in w->X (row-major) and w->y; the
 * coefficients land in w->c.  Returns -1 when GSL fails or the columns are
 * (numerically) linearly dependent, so the hypothesis cannot be fitted.
 */
int ws_lsq(struct ws *w, int n, int k);

static inline double hyp_term(const struct hyp_exponent *h, double x)
{
	struct pmnf_factor f = { 0, hyp_poly(h), h->log };
	struct pmnf_term t = { 1, 1, &f };
	return pmnf_term_eval(&t, &x);
}

/* May building blocks with log2 be used on these coordinates (all >= 1)? */
static inline int logs_allowed(const struct model_options *opt, const double *x, size_t n)
{
	int ok = opt->allow_log;
	for (size_t i = 0; i < n && ok; i++)
		ok = x[i] >= 1;
	return ok;
}

/* SMAPE contribution of one point: 2|f-y|/(|f|+|y|), 0 when both are 0. */
static inline double smape_term(double f, double y)
{
	double s = fabs(f) + fabs(y);
	return s != 0 ? fabs(f - y) / s * 2 : 0;
}

/* 1 when the term c1 * t reaches min_contribution of the measured value somewhere. */
int term_contributes(double c1, const double *t, const double *y, int n, const struct model_options *opt);

/* Robust selection: how many of a line's hypotheses the data do not reject go on to the joint fit. */
#define SP_ALT 3

/* The result of the single-parameter search on one line of points. */
struct sp_fit {
	int hyp;                /* index into the defaults, -1 for the constant */
	double c0, c1;
	double cv_smape;        /* LOO SMAPE of the chosen candidate (full SMAPE for the constant) */
	double lof_p;           /* robust: its lack-of-fit p-value; NaN for Extra-P's rule */
	int nalt;               /* robust: alt[0..nalt) the best-fitting hypotheses not rejected, */
	int alt[SP_ALT];        /* best first (alt[0] == hyp); 0 otherwise */
};

/*
 * The ranking key of a hypothesis not rejected: those whose chi-square is
 * within LOF_TIE_CHI2 of the best are equally supported by the data and
 * rank by their complexity first, the rest after them by their fit.
 */
static inline double tie_key(double chi2, double best, int complexity)
{
	return chi2 <= best + LOF_TIE_CHI2 ? complexity * 1e6 + (chi2 - best) : 1e12 + chi2;
}

/* The aggregated data of one fit. */
struct agg {
	int n, m;               /* points, parameters */
	double *x;              /* n x m */
	double *y;              /* n */
	double *r;              /* n: repetitions behind each point estimate */
	struct lof_noise nz;    /* their pooled pure error (robust selection) */
};

/* Aggregate in's points (point estimates, pooled noise); release a also on error. */
int agg_build(struct agg *a, const struct model_input *in, const struct model_options *opt,
	      struct perr *err);
void agg_release(struct agg *a);
/* Fill the quality figures of m against the aggregated points. */
void agg_quality(struct pmnf_model *m, const struct agg *a);
/* The constant model: the mean of the points. */
void agg_set_constant(struct pmnf_model *out, const struct agg *a);

/* The single-parameter modeller on n points (x[i], y[i]), r[i] repetitions each. */
void fit_single(struct ws *w, struct modeler *ctx, const double *x, const double *y,
		const double *r, int n, const struct model_options *opt,
		const struct lof_noise *nz, struct sp_fit *out);

/* modeler_fit_ctx(), leaving the joint fit's hypotheses not rejected in alts (NULL: none). */
int modeler_fit_alts(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
		     const struct model_constraint *constraint, struct pmnf_model *out,
		     struct model_ensemble *alts, struct perr *err);

/*
 * The model of the aggregated points a over every parameter (the lines'
 * single-parameter models and their best combination); with a constraint,
 * cm[0..ncm) are its terms as parameter masks.
 */
int fit_multi(struct ws *w, struct modeler *ctx, const struct agg *a, const struct model_input *in,
	      const struct model_options *opt, const uint64_t *cm, int ncm, int constrained,
	      struct pmnf_model *out);

#endif
