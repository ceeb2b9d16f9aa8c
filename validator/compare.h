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
 * Per region and metric, all common points together (compare_trend.h):
 * the constant part of the change (the weighted mean log ratio of a
 * random-effects meta-regression) with one-sided t bounds, and per
 * parameter the trend of the log ratio along it.  The region regressed
 * when the constant part is significantly positive (one-sided p < alpha)
 * and above +tolerance, so a region whose every point moved by 38% is a
 * regression even when no single point can reach alpha.  It is resolved
 * when the upper bound excludes a slowdown beyond the tolerance; a region
 * that neither regressed nor is resolved is inconclusive, with the
 * smallest slowdown its test could have found (trend.detectable).  A
 * parameter shows a scaling regression when its trend is significantly
 * positive (one-sided p < alpha) and, at the low end of its interval,
 * predicts at twice the parameter's largest common value a ratio more
 * than tolerance above the constant part.
 *
 * The verdict (compare_verdict, the exit status): a regression (3) when a
 * point, a region or a region's trend regressed; inconclusive (4) when a
 * region is not resolved, or the inputs lost too many runs to disturbance
 * (the machine was shared); ok (0) only when every region was resolved.
 * Regions under min_share of their metric's total (summed medians over the
 * top-level regions, as refine counts them) are reported but decide
 * nothing.
 *
 * A region noisy on either side (noise.h: mostly noisy points, what
 * validate calls unreliable) is still compared by the pooled test, which
 * weighs each point by its noise; it is marked, with the noisy points to
 * re-measure.
 *
 * Both sides' PMNF models (models/modeler.h, fitted in one place:
 * compare_options.fit) are shown side by side, with their leading terms
 * (the term of highest order: summed polynomial exponents, then summed
 * log exponents), whether it changed or grew, and the predicted ratio
 * NEW/BASE at the largest common point and at twice every coordinate of
 * it.  They explain; the verdict comes from the data: two different
 * leading terms without a trend are "models differ, data do not show a
 * trend".
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
#include "validator/compare_fixed.h"

/*
 * Fit one side's model of a region (callpath, metric of e) into out
 * (initialised by the call).  Returns 0, or -1 with err set.  The one place
 * compare fits models: the default is the modeller on the medians.
 */
typedef int (*compare_fit_fn)(void *ctx, const struct experiment *e, int callpath, int metric,
			      struct pmnf_model *out, struct perr *err);

struct compare_options {
	double tolerance;       /* relative, 0.05 */
	double alpha;           /* 0.01 */
	const char *metric;     /* compare one metric only; NULL: every common one */
	double cov_threshold;           /* the noise check's, as validate's (0.1) */
	double unreliable_fraction;     /* likewise (0.5) */
	compare_fit_fn fit;     /* NULL: the modeller on the medians */
	void *fit_ctx;
	double min_share;       /* regions under this share of their metric's total decide nothing (0) */
	int paired;             /* both sides' j-th values at a point ran next to each other (compare
				   --run): each point's log ratio is the mean of its pairs' */
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

/* Which side a region is noisy on (reported; the pooled test weighs it). */
enum { CMP_NOISY_BASE = 1, CMP_NOISY_NEW = 2 };

/* What a region says for the verdict. */
enum compare_outcome { CMP_OK = 0, CMP_REGRESSED, CMP_INCONCLUSIVE };

struct compare_region {
	char *callpath, *metric;
	int noisy;                      /* CMP_NOISY_* bits */
	int nremeasure[2];              /* base, new: the noisy points to re-measure */
	double *remeasure[2];           /* nremeasure x nparams coordinates, in compare.params order */
	int modelled;                   /* both models fitted */
	struct pmnf_model base, new;    /* over each side's own points */
	int base_lead, new_lead;        /* leading term index, -1 for a constant model */
	int leading_changed, leading_grew;
	double ratio, ratio_2x;         /* NEW/BASE predicted by the models at largest and 2x */
	struct compare_trend trend;     /* all common points together; trend.tested 0 if none */
	struct fixed_part fixed;        /* fitted where the trend would be a scaling change (compare_fixed.h) */
	enum compare_status status;     /* the region-level test of trend.level */
	int *scaling;                   /* per parameter: +1 scaling regression, -1 improvement, 0 */
	int regression;                 /* a scaling regression in some parameter */
	char *fit_error;                /* why a side was not modelled, or NULL */
	int point_regressions;          /* its points that regressed */
	double share;                   /* of its metric's total in base (summed medians), NaN unknown */
	int decides;                    /* share >= min_share: its outcome counts for the verdict */
	int resolved;                   /* the level's upper bound excludes a slowdown beyond tolerance */
	enum compare_outcome outcome;
};

/* A setting of the stored configs that differs; base or new NULL where absent. */
struct compare_diff {
	char *key, *base, *new;
};

/* The machine a campaign recorded (store meta); NULL fields were not recorded. */
struct compare_machine {
	char *hostname, *cpu_model, *ncores;
};

/* What the caller knows about the inputs beyond their measurements. */
struct compare_inputs {
	int campaigns;                  /* both are campaign directories: the fields below are set */
	int ndiffs;
	struct compare_diff *diffs;     /* the stored configs' differences ("name" left out) */
	char *config_note;              /* why the configs could not be compared, or NULL */
	struct compare_machine machine[2];      /* base, new */
	/* campaigns: their runs judged for disturbance and those left out (analysis/run_usage.h) */
	int judged[2], disturbed[2];
	/* paired campaigns (compare --run): the pairs both sides measured and those lost because
	   one of the two runs was disturbed (both are left out) */
	int paired, pairs, pairs_lost;
	int shared;                     /* more than DISTURBED_SHARED_FRACTION lost: the machine was shared */
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
	int nregion_regressions, nregion_improvements;
	int nmodel_regressions;         /* regions with a scaling regression */
	int nnot_compared;              /* regions that decide and are inconclusive (not resolved) */
	int nsmall;                     /* regions under min_share: reported, deciding nothing */
	int only_base, only_new;        /* (region, metric) pairs on one side only */
	struct compare_inputs inputs;   /* filled by the caller (compare_add_diff, ...) */
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
/* An empty comparison under opt (no common point): for a report of inputs whose every run was lost. */
void compare_init(struct compare *c, const struct compare_options *opt);

/* Record one config difference (copies the strings; base or new may be NULL). */
void compare_add_diff(struct compare *c, const char *key, const char *base, const char *new);

/* Note a side's disturbed runs (judged, left out), or the pairs of paired campaigns; sets shared. */
void compare_note_disturbed(struct compare *c, int side, int judged, int disturbed);
void compare_note_pairs(struct compare *c, int pairs, int lost);

/* The verdict and exit status: a regression in a region that decides, else inconclusive, else ok. */
enum { COMPARE_OK = 0, COMPARE_REGRESSION = 3, COMPARE_INCONCLUSIVE = 4 };
int compare_verdict(const struct compare *c);
/* "ok", "regression" or "inconclusive". */
const char *compare_verdict_name(int verdict);

/* The leading term of m (see above), or -1 for a constant model; x breaks ties by contribution. */
int compare_leading_term(const struct pmnf_model *m, const double *x);

/* 1 when b's leading term has a higher (poly, log) order than a's in some parameter (by name). */
int compare_term_grew(const struct pmnf_model *a, int ta, const struct pmnf_model *b, int tb);

#endif
