/*
 * Comparing two measurements of the same program, BASE and NEW: did it get
 * slower, and did its scaling change?
 *
 * Per region (call path), metric and point the two experiments share: the
 * medians of the repetitions, the relative difference NEW/BASE - 1 as the
 * Hodges-Lehmann estimate on log values with its distribution-free
 * interval at 1 - alpha, and the two-sided Mann-Whitney p value
 * (ranktest.h).  A point is a regression when p < alpha and the estimate
 * exceeds +tolerance, an improvement when p < alpha and it is below
 * -tolerance; higher is worse for every metric.  alpha holds per point (no
 * family-wise correction).  Points whose sample sizes cannot reach p < alpha
 * (5 + 5 repetitions are the fewest for 0.01) are marked unreachable.
 *
 * Per region and metric: the PMNF models of both sides (models/modeler.h)
 * side by side, their leading terms (the term of highest order: summed
 * polynomial exponents, then summed log exponents), whether it changed,
 * whether it grew (a higher (poly, log) order in some parameter), and the
 * predicted ratio NEW/BASE at the largest common point and at twice every
 * coordinate of it.  A grown leading term is a regression when the ratio
 * at 2x exceeds 1 + tolerance.
 *
 * Invariants: library code, no printing; inputs are only read; the result
 * owns all its memory (compare_release).  Deterministic: equal inputs give
 * equal results.
 */
#ifndef PS_COMPARE_H
#define PS_COMPARE_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "models/modeler.h"
#include "models/pmnf.h"

struct compare_options {
	double tolerance;       /* relative, 0.05 */
	double alpha;           /* 0.01 */
	const char *metric;     /* compare one metric only; NULL: every common one */
};

void compare_options_init(struct compare_options *o);

enum compare_status { CMP_UNCHANGED = 0, CMP_REGRESSION, CMP_IMPROVEMENT };

struct compare_point {
	int region;             /* index into compare.regions */
	double *coords;         /* nparams, in compare.params order */
	int nbase, nnew;        /* repetitions */
	double base_median, new_median;
	double rel, rel_lo, rel_hi;     /* NEW/BASE - 1 and its interval (may be -1/inf) */
	double p, p_min;
	int exact;              /* exact Mann-Whitney distribution */
	int reachable;          /* p_min < alpha */
	enum compare_status status;
};

struct compare_region {
	char *callpath, *metric;
	int modelled;                   /* both models fitted */
	struct pmnf_model base, new;    /* over each side's own points */
	int base_lead, new_lead;        /* leading term index, -1 for a constant model */
	int leading_changed, leading_grew;
	double ratio, ratio_2x;         /* NEW/BASE predicted at largest and 2x */
	int regression;                 /* a scaling regression (see above) */
	int top;                        /* index into compare.points of the largest common point, or -1 */
	char *fit_error;                /* why a side was not modelled, or NULL */
};

struct compare {
	struct compare_options opt;
	int nparams;
	char **params;
	double *largest;                /* nparams: the largest common point */
	int npoints;                    /* common points */
	int nregions;
	struct compare_region *regions;
	int ncmp;
	struct compare_point *points;
	int nregressions, nimprovements, nunchanged, nunreachable;
	int nmodel_regressions;
	int only_base, only_new;        /* (region, metric) pairs on one side only */
};

/*
 * Compare new against base.  Their parameters must be the same names (any
 * order) and they must share at least one point and one (region, metric)
 * with values.  Returns 0, or -1 with err set.  out is initialised by the
 * call, also on error.
 */
int compare_experiments(const struct experiment *base, const struct experiment *new,
			const struct compare_options *opt, struct compare *out, struct perr *err);
void compare_release(struct compare *c);

/* 3 (regression) when any point or model regressed, else 0: the command's exit status. */
int compare_verdict(const struct compare *c);

/* The leading term of m (see above), or -1 for a constant model; x breaks ties by contribution. */
int compare_leading_term(const struct pmnf_model *m, const double *x);

/* 1 when b's leading term has a higher (poly, log) order than a's in some parameter (by name). */
int compare_term_grew(const struct pmnf_model *a, int ta, const struct pmnf_model *b, int tb);

#endif
