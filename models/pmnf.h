/*
 * A model in the performance model normal form (PMNF), as Extra-P prints it:
 *
 *   f(x_1..x_m) = c_0 + sum_k c_k * prod_l x_l^(i_kl) * log2(x_l)^(j_kl)
 *
 * Invariants: params is NULL or holds nparams names (the model owns copies),
 * and coordinates passed to pmnf_eval() follow that order; every factor's
 * param is < nparams; a term has at least one factor and no two factors of
 * one term name the same parameter; poly_exp and log_exp are not both 0.
 * A model with nterms == 0 is the constant c_0.  Quality figures describe
 * the fit on the aggregated points the model was fitted to (npoints of
 * them); they are NaN for a model that was not fitted.
 */
#ifndef PS_PMNF_H
#define PS_PMNF_H

struct pmnf_factor {
	int param;              /* index into pmnf_model.params */
	double poly_exp;        /* i: exponent of x (e.g. 0.25, 2) */
	double log_exp;         /* j: exponent of log2(x) (0, 1, 2) */
};

struct pmnf_term {
	double coef;            /* c_k */
	int nfactors;
	struct pmnf_factor *factors;    /* ascending param */
};

struct pmnf_model {
	int nparams;
	char **params;
	double constant;        /* c_0 */
	int nterms;
	struct pmnf_term *terms;
	/* quality of the fit */
	int npoints;            /* aggregated points it was fitted on */
	double rss;             /* residual sum of squares */
	double ar2;             /* adjusted R^2 (1 for a perfect fit) */
	double smape;           /* mean of 2|f-y|/(|f|+|y|) * 100, in percent */
	double re;              /* mean of |f-y|/|y| (a fraction, not percent) */
	double cv_smape;        /* leave-one-out SMAPE used to select it, NaN if none */
	double lof_p;           /* robust selection: its lack-of-fit p-value, NaN if not tested */
	int expected;           /* 1: c0 + c1 * the dependency file's expected volume, not
				   rejected by the data (models/expected.h) */
	double trend_p;         /* expected, though lof_p rejects it: the trend test of its
				   residuals (lof_trend_p), which found none; NaN otherwise */
};

/* An empty constant model (0) over nparams copies of params (may be 0/NULL). */
void pmnf_init(struct pmnf_model *m, int nparams, char *const *params);
void pmnf_release(struct pmnf_model *m);
/* Deep copy; dst is overwritten (not released first). */
void pmnf_copy(struct pmnf_model *dst, const struct pmnf_model *src);
/* Append a term with the given factors (copied); returns its index. */
int pmnf_add_term(struct pmnf_model *m, double coef, int nfactors, const struct pmnf_factor *f);

/* Value of the model at coords[nparams].  log2 of a coordinate < 1 is 0 by convention. */
double pmnf_eval(const struct pmnf_model *m, const double *coords);
/* Value of one term without its coefficient (the product of its factors). */
double pmnf_term_eval(const struct pmnf_term *t, const double *coords);

/*
 * The Extra-P-style string, e.g. "-0.889 + 0.2017 * x^(2)" or
 * "2 + 0.884 * log2(p)^(1) * s^(1)": coefficients with %.*g of the given
 * significant digits (0 = 17, round-trip exact), fractional exponents as
 * fractions ("x^(3/4)").  Locale-independent.  The caller frees the result.
 */
char *pmnf_format(const struct pmnf_model *m, int digits);

/*
 * Term t without its coefficient, e.g. "n^(3/2) * log2(n)^(1)"; t < 0 gives "1"
 * (a constant model's leading term).  The caller frees the result.
 */
char *pmnf_format_term(const struct pmnf_model *m, int t);

/* 1 when both models have the same terms (parameters and exponents), ignoring coefficients. */
int pmnf_same_shape(const struct pmnf_model *a, const struct pmnf_model *b);

#endif
