/*
 * Adaptive repetitions: repetitions = { min = 3; max = 10; target = 0.05; }.
 * The plan gives each point min repetitions (run in interleaved passes);
 * then, one pass at a time, every point whose median is not yet known to
 * within target gets one more repetition, until it is or has max.  The run
 * engine's budget watch caps it (a pass that would overrun is not started).
 *
 * A point's precision is the relative half-width of the distribution-free
 * 95% confidence interval of its median: the order statistics x_(l) and
 * x_(n+1-l) with the largest l whose binomial coverage is at least 95%
 * (up to 8 repetitions that is min..max, whose coverage with 5 is 94%;
 * from 9 the extremes drop out, so one outlier no longer counts), half
 * their distance over the median.  Over several regions (the metric "time"
 * when measured, else every metric) the widest
 * counts.  Extra repetitions are appended to the store (origin "adaptive",
 * the point's next free repetition), so a kill -9 between passes loses and
 * duplicates nothing: the next `run` finds the pass pending.
 *
 * Disturbed runs (analysis/run_usage.h: other work had their cores) are left
 * out of a point's precision, as the analysis leaves them out.  A point
 * with disturbed runs gets those repetitions measured again (new attempts,
 * origin "adaptive") instead of more repetitions: their noise is the
 * machine's, not the program's, and may be all of the point's.  max bounds
 * the runs a point gets, disturbed ones included, so a machine that stays
 * busy cannot keep the passes going.
 */
#ifndef PS_ADAPTIVE_H
#define PS_ADAPTIVE_H
#include "collectors/experiment.h"
#include "orchestrator/runner.h"
#include "campaign/store.h"

struct adaptive_spec {
	int min, max;
	double target;          /* 0: repetitions are fixed */
};

/* Half the width of the median's 95% interval over the median; NaN for fewer than 2 values or a zero median. */
double adaptive_median_ci(const struct exp_values *v);

/* The spec stored with a campaign (meta "adaptive"); target 0 when none. */
void adaptive_spec_load(struct store *st, struct adaptive_spec *a);
int adaptive_spec_store(struct store *st, const struct adaptive_spec *a, struct perr *err);

/* One measured point of a campaign and its precision. */
struct adaptive_point {
	long long run;          /* a done run there (its point and placement) */
	int nreps;              /* undisturbed done repetitions (the fewest over the regions) */
	int nruns;              /* done runs, every attempt and disturbed ones included */
	int ndisturbed;         /* repetitions whose latest measurement was disturbed */
	long long *disturbed;   /* those runs, by id */
	double ci;              /* the widest relative half-width over the regions (undisturbed), NaN if unknown */
	int converging;         /* runs below max, and disturbed runs to measure again, or ci above target
				   (or unknown) with nreps below max */
	char *name;             /* "n=6,p=2" */
};

/* The campaign's points and their precision (*pts malloc'ed; adaptive_points_free). */
int adaptive_points(struct store *st, const struct adaptive_spec *a, struct adaptive_point **pts, int *n,
		    struct perr *err);
void adaptive_points_free(struct adaptive_point *pts, int n);

/* The experiment point of run r (store parameters, then ranks_per_node when e has it), or -1. */
int adaptive_run_point(const struct experiment *e, int store_params, const struct run *r);
/* 1 when a later done measurement of r's repetition replaces it (runs[0..n) hold r's point). */
int adaptive_superseded(const struct run *runs, int n, int i);

/*
 * Execute the campaign's pending runs (runner_execute), then, for an
 * adaptive spec, add and run one pass at a time for the converging points.
 * map and cores_per_rank are the campaign's launch settings (or NULL).
 * stats sum over the passes; *passes gets the extra passes run.
 */
int campaign_execute(struct store *st, const struct campaign_config *c, struct backend *b,
		     const struct runner_options *o, struct runner_stats *stats, int *passes,
		     struct perr *err);

#endif
