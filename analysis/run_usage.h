/*
 * What a campaign's runs used, for analysis: which runs were disturbed
 * (validator/disturbed.h, under the campaign's analysis.min_cpu_share),
 * the measurements without them, and per point the CPU share its ranks
 * had (the contention check tells contention from oversubscription by it).
 * model, validate, refine and top read campaigns through this, so all of
 * them leave out the same runs.
 */
#ifndef PS_RUN_USAGE_H
#define PS_RUN_USAGE_H
#include "campaign/store.h"
#include "validator/disturbed.h"

/* The campaign's rule: the defaults, with its stored config's analysis.min_cpu_share. */
void run_usage_rule(struct store *st, struct disturbed_rule *rule);

/*
 * Judge the runs an analysis of st reads (flags as for
 * store_load_experiment_with) under the campaign's rule.  res's runs carry
 * store points.  res->njudged is 0 when no run has resource records.
 * Release res either way.
 */
int run_usage_judge(struct store *st, int flags, struct disturbed_result *res, struct perr *err);

/* What the analysed runs used, in one line (status). */
struct run_usage_summary {
	int runs;                       /* runs with resource records */
	double share_median, share_min; /* their ranks' CPU share (NaN unknown) */
	long long maxrss_kb;            /* the largest rank's, -1 unknown */
	double nivcsw_median;           /* involuntary context switches per second, NaN unknown */
	struct disturbed_result disturbed;
};
/* Summarise the runs an analysis of st reads (flags as for run_usage_judge); release s either way. */
int run_usage_summarise(struct store *st, int flags, struct run_usage_summary *s, struct perr *err);
void run_usage_summary_release(struct run_usage_summary *s);

/* An experiment without its disturbed runs. */
struct run_usage {
	struct disturbed_result disturbed;      /* its runs' points: experiment points (-1: none read) */
	double *point_share;    /* per experiment point: the median CPU share of its kept runs' ranks, NaN unknown */
	char *table;            /* per point: runs, disturbed, CPU share, max RSS, switches; NULL without records */
	struct exp_runs runs;   /* the run of each value kept, in the order the values were added */
};

/*
 * Load st's measurements into e (initialised, empty) as
 * store_load_experiment_with(st, metric, flags) does, leaving out the
 * disturbed runs (their points stay), and fill u.  Release u either way.
 */
int run_usage_load(struct store *st, const char *metric, int flags, struct experiment *e, struct run_usage *u,
		   struct perr *err);
void run_usage_release(struct run_usage *u);

#endif
