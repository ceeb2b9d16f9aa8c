/*
 * The disturbed check's rule: which runs other work on their cores slowed
 * down, from what each of their ranks used (the campaign store's resources
 * table: perfsweep-bind's rank records, the local backend's end note).
 *
 * A record is judged when its wall time is at least min_wall (0.1 s: a
 * share over a few scheduler slices says nothing) and its CPU time is
 * known.  A rank is disturbed when
 *   - its CPU share, (utime + stime) / wall, is below min_cpu_share (0.9)
 *     times the share its binding allows (1, or the PUs over the ranks of
 *     its run bound to them: two ranks given one core may each have 0.5);
 *     min_cpu_share 0 turns this test off, for programs that wait on I/O
 *     or the network; or
 *   - its involuntary context switches per second are above both
 *     nivcsw_factor (10) times the campaign's median rate and nivcsw_floor
 *     (50 per second): the scheduler kept taking its core away.  Ranks that
 *     share their cores with their own run's ranks are not judged by this
 *     test (they take turns by design), nor counted in the median.
 * A run is disturbed when one of its ranks is.  A run with no rank records
 * is judged by its whole-run record (rank -1): CPU share over its ranks,
 * allowed 1.
 *
 * Invariants: pure; the result lists runs by id, each once, with its most
 * disturbed rank (the lowest share relative to what was allowed).
 */
#ifndef PS_DISTURBED_H
#define PS_DISTURBED_H

#define DISTURBED_MIN_CPU_SHARE 0.9
#define DISTURBED_NIVCSW_FACTOR 10.0
#define DISTURBED_NIVCSW_FLOOR 50.0
#define DISTURBED_MIN_WALL 0.1
/* More than this share of a campaign's judged runs disturbed: the machine was shared. */
#define DISTURBED_SHARED_FRACTION 0.25

struct disturbed_rule {
	double min_cpu_share;           /* 0.9; 0 switches the share test off */
	double nivcsw_factor;           /* 10 */
	double nivcsw_floor;            /* 50 per second */
	double min_wall;                /* 0.1 s */
};

void disturbed_rule_init(struct disturbed_rule *r);

/* One resource record, as the rule reads it. */
struct disturbed_usage {
	long long run;
	int point, repetition;          /* passed through to the result */
	int rank;                       /* -1: the whole run */
	int ranks;                      /* the run's ranks (for a whole-run record) */
	double cpu, wall;               /* seconds (utime + stime); NaN unknown */
	double allowed;                 /* the share the binding allows; NaN: 1 */
	long long nivcsw;               /* -1 unknown */
};

enum { DISTURBED_BY_SHARE = 1, DISTURBED_BY_SWITCHES = 2 };

struct disturbed_run {
	long long run;
	int point, repetition;          /* as given in the usage (the caller's meaning) */
	int rank;                       /* its most disturbed rank (-1: the whole run) */
	double share, allowed;          /* that rank's CPU share and what its binding allowed */
	double rate;                    /* its involuntary context switches per second, NaN unknown */
	unsigned why;                   /* DISTURBED_BY_* */
};

struct disturbed_result {
	struct disturbed_rule rule;
	int njudged;                    /* runs with a judged record */
	double median_rate;             /* involuntary switches per second, NaN when none */
	int n;
	struct disturbed_run *runs;     /* by run id */
};

/*
 * Judge the records u[0..n) (sorted by run) under rule.  res is
 * initialised by the call; release it with disturbed_result_release.
 */
void disturbed_judge(const struct disturbed_rule *rule, const struct disturbed_usage *u, int n,
		     struct disturbed_result *res);
void disturbed_result_release(struct disturbed_result *res);

/* "CPU share 0.49 of 1" / "812 involuntary switches/s (median 3)": why run d is disturbed. */
struct strbuf;
void disturbed_reason(struct strbuf *sb, const struct disturbed_result *res, const struct disturbed_run *d);

#endif
