/*
 * Refinement: turn a validation's actionable findings into the runs that
 * would resolve them, within a budget.  Pure functions, no I/O: the
 * campaign side (refine_campaign.h) reads the store into a refine_space,
 * and writes the accepted proposals back.
 *
 *   disturbed      rerun that run's repetition (a new attempt), before anything
 *                  else; a point with a disturbed run gets no noise
 *                  repetitions until its disturbed runs are measured again
 *   outlier        rerun that repetition (a new attempt; the old value stays
 *                  as an outlier)
 *   noise          more repetitions at the named point (doubling them, up to
 *                  the space's max_repetitions)
 *   segmented      points between the two values where the regime changes,
 *                  so that the change is then located to one step (every
 *                  integer between them when there are at most
 *                  SEGMENT_BETWEEN_POINTS, else that many evenly spaced, in
 *                  the spacing of the line: geometric for log-spaced values;
 *                  validator/segment.h); none once it is located
 *   extrapolation  one larger value along the parameter (one step beyond its
 *                  largest, in the line's spacing) at every point at the
 *                  largest value; none while an earlier extension of that
 *                  parameter has no result (refine_space.extending)
 *   contention     (not-testable) the missing line points: every value of the
 *                  parameter at the fixed other coordinates of the baseline
 *
 * Value (what is dropped first when the budget is short): disturbed runs
 * first, then blocking findings (noise, segmented) before notes (outlier),
 * before the not-testable contention line, before extrapolation; within a
 * kind, the more severe first.  Going from the most valuable down, a proposal is kept when it
 * still fits the remaining budget and dropped otherwise, so the least
 * valuable go first and a cheap valuable one is never dropped for a dear
 * one below it.
 *
 * Invariants: proposals and dropped are ordered by value (most valuable
 * first, ties by kind, then coordinates), so the result is a pure function
 * of the input; no two proposals share coordinates and kind; every
 * proposal's core_hours is repetitions x the per-run cost.
 */
#ifndef PS_REFINE_H
#define PS_REFINE_H

/* An outlier this many times its point's noise from the median is measured
   again even when it moves no model (refine_findings). */
#define REFINE_OUTLIER_NOISE 10

enum refine_kind {
	REFINE_OUTLIER,
	REFINE_NOISE,
	REFINE_SEGMENTED,
	REFINE_EXTRAPOLATION,
	REFINE_CONTENTION,
	REFINE_DISTURBED,
	REFINE_ACCURACY,        /* no finding: refine --for accuracy (refine_accuracy.h) */
	REFINE_NKINDS
};

/* "outlier", "noise", "segmented", "extrapolation", "contention", "disturbed", "accuracy". */
const char *refine_kind_name(enum refine_kind k);

/* One measured point of the campaign, in the experiment's parameters. */
struct refine_point {
	const double *coords;   /* one per space parameter */
	int nreps;              /* repetitions measured */
	double run_core_hours;  /* cost of one run there (measured or planned) */
};

struct refine_space {
	int nparams;
	char *const *params;    /* names */
	const int *is_int;      /* per parameter: integer values only */
	int npoints;
	const struct refine_point *points;
	int repetitions;        /* repetitions of a new point */
	int max_repetitions;    /* cap on a point's repetitions for noise (0: none) */
	double budget;          /* remaining core-hours; < 0: no budget */
	/* per parameter: 1 while a run beyond its measured range has no result
	   (an extension not measured yet): no further extension (may be NULL) */
	const unsigned char *extending;
};

/* One actionable finding of a validation (refine_findings). */
struct refine_finding {
	enum refine_kind kind;
	const char *region;     /* call path, for the reason */
	int point;              /* outlier, noise: the point; segmented, contention: a
				   point of the line; extrapolation: a point at the largest value */
	int rep;                /* outlier: the repetition (0-based, in measured order);
				   disturbed: the run's repetition number (1-based, the store's) */
	int param;              /* segmented, extrapolation, contention; -1 otherwise */
	double lo, hi;          /* segmented: the values either side of the change */
	double severity;        /* ratio, CoV, improvement, error: larger is worse */
	long long run;          /* disturbed: the run; 0 otherwise */
};

struct refine_proposal {
	double *coords;         /* one per space parameter */
	int ncoords;            /* the space's nparams */
	int point;              /* the existing point, or -1 for a new one */
	int from;               /* the existing point it derives from (its placement) */
	int rep;                /* outlier: the repetition to rerun (index in measured order);
				   disturbed: its repetition number; -1 otherwise */
	int repetitions;        /* runs to add (outlier: 1, a new attempt) */
	double core_hours;
	enum refine_kind kind;
	char *reason;           /* one line, for people */
	double value;           /* priority; larger is kept longer */
};

struct refine_result {
	int nproposals;
	struct refine_proposal *proposals;
	int ndropped;
	struct refine_proposal *dropped;
	double used;            /* core-hours of the proposals */
	double remaining;       /* the space's budget (< 0: none) */
};

/* Propose runs for findings f[0..nf) in space s.  r is initialised by the call. */
void refine_propose(const struct refine_space *s, const struct refine_finding *f, int nf,
		    struct refine_result *r);
void refine_result_release(struct refine_result *r);

struct validation;
/*
 * The actionable findings of a validation: disturbed runs, outliers that
 * matter (keeping one in moves its point's estimate by min_growth, or it
 * lies REFINE_OUTLIER_NOISE times its point's noise, and at least the noise
 * threshold, from the median),
 * noisy points of noise-flagged regions, blocking segmented flags (not a
 * located change), unstable extrapolations (not along a parameter the
 * region is flagged segmented on: one model of two regimes mispredicts
 * beyond them, and more range does not change that) and not-testable contention
 * checks.  Regions under min_share of their metric's total (summed point
 * medians over those of the top-level regions) give none but disturbed
 * runs.  *f is malloc'ed (*nf entries); region names point into v's
 * experiment.
 */
void refine_findings(const struct validation *v, double min_share, struct refine_finding **f, int *nf);

struct vregion;
/*
 * A region's share of its metric's total: its values summed over the
 * points (each point's median), over the same sum of the top-level regions
 * (call paths without "->"); 1 when there is nothing to compare with.
 */
double refine_region_share(const struct validation *v, const struct vregion *r);

#endif
