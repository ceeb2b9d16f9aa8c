/*
 * The validator: runs every check on every region (callpath) and metric of
 * an experiment and builds the verdict that gates publishing.
 *
 *   noise             robust CoV (MAD-based) of a point's repetitions above
 *                     the threshold; a mostly noisy region is unreliable:
 *                     reported, not modelled.  Outlying repetitions are
 *                     notes (noise.outliers, report_outliers), never flags
 *   extrapolation     refitted without a parameter's largest value, the model
 *                     mispredicts it: "unstable", a warning in the checks
 *                     (vregion.extrap), never a flag
 *   false-dependency  the black-box model uses a parameter the region's
 *                     dependencies exclude (needs a dependency file)
 *   contention        the measurements grow with a parameter the dependencies
 *                     exclude, or with ranks per node, beyond noise; when the
 *                     ranks' CPU share falls along it and explains the growth
 *                     (the ranks' own time, each value times its share, grows
 *                     no further beyond noise), the flag is "oversubscribed"
 *                     instead (they waited for a core); the growth it leaves
 *                     is contention.  A check whose smallest detectable
 *                     growth is above max_detectable is not testable, never
 *                     passed
 *   disturbed         runs whose ranks got too little of their cores, or whose
 *                     cores the scheduler kept taking away
 *                     (validator/disturbed.h), left out of the input by its
 *                     reader; listed, and the points left with too few
 *                     undisturbed repetitions named for re-measurement
 *   segmented         a line of >= 8 points is better described by two models;
 *                     located (segment_located: one step apart, neither side's
 *                     model rejected) it is a result, not blocking
 *   volume            the hypothesis c0 + c1 * expect is rejected and
 *                     measured / expected volume drifts across the design
 *                     (needs `expect` expressions and an evaluator)
 *
 * Segmented and extrapolation look only along parameters the region's
 * dependencies allow, when a dependency file names them.
 *
 * Blocking: contention, oversubscribed, segmented (not located), and noise in a modelled
 * region; points with too few undisturbed repetitions, and a shared machine
 * (more than a quarter of the runs disturbed); with strict also
 * false-dependency and volume.  A region under min_share of its metric (its
 * point medians summed, over the top-level regions') never blocks: its
 * flags are warnings.  docs/validation.md has the rules.
 *
 * Invariants: flags are ordered by region, then in the order the checks
 * run (noise, contention, false-dependency, segmented, volume), then by parameter; checks likewise; regions by call path name then metric name, so the result is
 * a pure function of the data, whatever order the input lists it in.  The validation borrows the experiment and the dependencies: they
 * must outlive it.
 */
#ifndef PS_VALIDATE_H
#define PS_VALIDATE_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"
#include "validator/contention.h"
#include "validator/disturbed.h"
#include "validator/extrapolate.h"
#include "models/modeler.h"
#include "validator/noise.h"
#include "models/pmnf.h"
#include "validator/segment.h"
#include "validator/volume.h"

/* A region under this share of the time (analysis.min_share's default) is
   reported, never blocking: 0.2% of a run at 1 ms resolution is noise. */
#define VALIDATE_MIN_SHARE 0.01

/* The name of the placement parameter the store adds when it varies. */
#define VALIDATE_RPN_PARAM "ranks_per_node"

enum vflag_kind {
	VFLAG_NOISE,
	VFLAG_FALSE_DEPENDENCY,
	VFLAG_CONTENTION,
	VFLAG_SEGMENTED,
	VFLAG_VOLUME,
	VFLAG_OVERSUBSCRIBED,
	VFLAG_NKINDS
};

/* "noise", "false-dependency", "contention", "segmented", "volume", "oversubscribed". */
const char *vflag_kind_name(enum vflag_kind k);

struct vflag {
	int region;             /* index into validation.regions */
	enum vflag_kind kind;
	int param;              /* experiment parameter concerned, -1 for none */
	double growth;          /* relative change over the parameter's range, NaN if none */
	double p_value;         /* NaN if no test applies */
	int blocking;
	const char *cause;      /* false-dependency: "contention", "oversubscribed", "speedup" or "noise"; else NULL */
	double share_first, share_last;  /* contention, oversubscribed: the ranks' CPU share at the
					    parameter's smallest and largest value; NaN unknown */
	/* contention, oversubscribed, where the share fell by more than
	   CONTENTION_SHARE_FALL: the growth that fall explains (share_first /
	   share_last - 1), and the growth the ranks' own time still shows
	   (growth_test_unexplained) with its p-value; NaN otherwise */
	double share_explains, unexplained, unexplained_p;
	char *detail;           /* one line, for people */
};

/*
 * A parameter the black-box model uses although the region's dependencies
 * exclude it.  Only those whose effect reaches min_growth are flagged;
 * smaller terms are listed (cause "noise") so that every one is reported.
 */
struct vexcluded {
	int param;
	double effect;          /* largest relative change of the black-box model along it */
	const char *cause;      /* "contention", "oversubscribed", "speedup" or "noise" */
	int flagged;
};

enum vcheck_status { VCHECK_PASSED, VCHECK_FLAGGED, VCHECK_NOT_TESTABLE };

/* "passed", "flagged", "not-testable". */
const char *vcheck_status_name(enum vcheck_status s);

/* What was checked: one entry per region, check and parameter. */
struct vcheck {
	int region;
	const char *check;      /* noise, contention, false-dependency, segmented, volume, extrapolation */
	int param;              /* -1 for none */
	enum vcheck_status status;
	char *reason;           /* one line, for people */
};

/* The expected-volume hypothesis c0 + c1 * expect (models/lof.h). */
struct vexpect {
	int tested;
	int consistent;         /* not rejected by the lack-of-fit test */
	double c0, c1, p_value;
};

struct vregion {
	int callpath, metric;
	double share;           /* of its metric: its point medians summed over the top-level regions' */
	int small;              /* share under opt.min_share: its flags never block */
	const struct dep_function *func;        /* matched dependencies, NULL if none */
	int npoints;            /* points with values */
	struct noise_result noise;
	int modelled;           /* has data and is not unreliable */
	struct pmnf_model black_box;
	int has_constrained;
	struct pmnf_model constrained;
	int nflags, nblocking;
	/* per experiment parameter: growth test (tested[k] 1 when run) */
	struct growth_test *growth;
	int *growth_tested;
	/* per experiment parameter: strongest segmented line (tested[k] 1 when run) */
	struct segment_result *segment;
	int *segment_tested;
	int volume_tested;
	struct volume_result volume;
	struct vexpect expected;
	/* per experiment parameter: the extrapolation check (tested[k] 1 when run) */
	struct extrap_result *extrap;
	int *extrap_tested;
	/* every parameter the black-box model uses that the dependencies exclude */
	int nexcluded;
	struct vexcluded *excluded;
	size_t excluded_alloc;  /* private */
};

struct validate_options {
	const char *metric;             /* NULL: "time" when present, else every metric */
	double cov_threshold;           /* 0.1 */
	double unreliable_fraction;     /* 0.5 */
	double alpha;                   /* significance level of every test: 0.01 */
	double min_growth;              /* smallest relevant relative growth or drift: 0.05 */
	double power;                   /* power the detectable growth is stated at: 0.8 */
	double max_detectable;          /* a check that cannot see growth below this is not testable: 0.5 */
	int segment_points;             /* points a line needs for the segment test: 8 */
	double segment_improvement;     /* share of the one-model residual two models must remove: 0.5 */
	int strict;                     /* false-dependency and volume block too */
	double min_share;               /* a region under this share of its metric never blocks: VALIDATE_MIN_SHARE */
	struct model_options model;
};

void validate_options_init(struct validate_options *o);

/*
 * Evaluate an `expect` expression at one point of the experiment; the
 * validator calls it for the volume check.  Returns 0 with *value set, or
 * -1 with err set.
 */
typedef int (*validate_expect_fn)(void *ctx, const struct dep_function *f,
				  const struct experiment *e, int point, double *value,
				  struct perr *err);

/* The standard evaluator: the expression parsed with designs/expr over the
   experiment's parameter names (ctx unused). */
int validate_expect_expr(void *ctx, const struct dep_function *f, const struct experiment *e,
			 int point, double *value, struct perr *err);

struct validate_input {
	const struct experiment *e;
	const struct deps *deps;                        /* NULL: no dependency file */
	const struct dep_function *const *funcs;       /* per callpath, NULL entries unmatched */
	validate_expect_fn expect;                      /* NULL: no volume check */
	void *expect_ctx;
	const char *rpn_name;   /* the ranks-per-node parameter (NULL: VALIDATE_RPN_PARAM) */
	/* The disturbed check's verdict on the runs behind e (NULL: no resource
	   records), their points experiment points: its runs are already left
	   out of e, whose points they had stay there. */
	const struct disturbed_result *disturbed;
	/* Per experiment point, the median CPU share of the ranks of its runs in
	   e (NaN unknown); NULL when none is known. */
	const double *point_share;
};

/* The disturbed check over the whole input. */
struct vdisturbed {
	const struct disturbed_result *res;     /* borrowed; NULL: not checked */
	int *per_point;         /* per experiment point: its runs left out as disturbed */
	int *kept;              /* per experiment point: its undisturbed repetitions */
	unsigned char *remeasure;       /* per point: too few undisturbed repetitions left */
	int nremeasure;
	int shared;             /* more than DISTURBED_SHARED_FRACTION of the judged runs disturbed */
	int blocking;           /* nremeasure or shared */
};

/* The contention-study summary (only when ranks per node varies). */
struct contention_summary {
	int param;              /* ranks per node's index, -1 when it does not vary */
	int metric;             /* the metric summarised */
	int ntested;            /* regions with a growth test along it */
	int nincreasing;        /* of those: significant growth >= min_growth */
	int program_region;     /* the whole program (largest root), -1 if none */
	double program_growth, program_p;
	double program_first, program_last;     /* its model at the range's ends */
	double xmin, xmax;
};

struct validation {
	const struct experiment *e;
	const struct deps *deps;
	struct validate_options opt;
	int nregions;
	struct vregion *regions;
	int nflags;
	struct vflag *flags;
	int nblocking;
	int rpn_param;          /* -1 when the experiment has none */
	struct contention_summary study;
	int nchecks;
	struct vcheck *checks;
	struct vdisturbed disturbed;
	const double *point_share;      /* borrowed from the input, or NULL */
	/* private */
	size_t regions_alloc, flags_alloc, checks_alloc;
};

/*
 * Validate in.  v is initialised by the call (validation_release also on
 * error).  Returns 0, or -1 with err set (no such metric, modeller or
 * evaluator failure).
 */
int validate_run(struct validation *v, const struct validate_input *in,
		 const struct validate_options *opt, struct perr *err);
void validation_release(struct validation *v);

struct strbuf;
/* Append "size=30,p=64" for point p. */
void validate_point_name(struct strbuf *sb, const struct experiment *e, int p);

/*
 * The smallest growth the contention check flags at the noise growth test g
 * measured: growth_test_detectable at opt.alpha and opt.power, never below
 * opt.min_growth; NaN when g was not tested or no growth is detectable.
 */
double validation_flaggable_growth(const struct validation *v, const struct growth_test *g);

/*
 * Which region is unreliable (reported, not modelled), as validate_run
 * decides it: the noise check of series (callpath, metric) under o (NULL:
 * the defaults).  Returns 1 and *reason (caller frees: "7 of 8 points above
 * CoV 0.1 (...): re-measure n=4 (CoV 0.31), ...") when unreliable, 0 when
 * it is modelled.
 */
int validate_series_unreliable(const struct experiment *e, int callpath, int metric,
			       const struct validate_options *o, char **reason);

/* 1 when no flag blocks publishing. */
static inline int validation_publishable(const struct validation *v)
{
	return v->nblocking == 0;
}

#endif
