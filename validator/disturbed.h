/*
 * The disturbed check's rule: which runs other programs slowed down, from
 * what each of their ranks used and lost (the campaign store's resources
 * and causes tables: perfsweep-bind's rank records, the local backend's end
 * and census notes).  Disturbance is time taken by other programs, not
 * time spent waiting: a rank that sleeps, blocks on I/O or waits in MPI
 * start-up is not disturbed, and neither is one that takes turns with its
 * own run's ranks (that is by design).
 *
 * A record is judged when its wall time is at least min_wall (0.1 s: a
 * share over a few scheduler slices says nothing) and its CPU time is
 * known.  What a rank may have is its allowed share (the cores its binding
 * gives it, over its run's ranks bound to the same ones; 1 unknown) times
 * its wall time.  What other programs took from it:
 *   - with the census (local backend): the foreign tasks' CPU time on its
 *     cores, but no more than its threads waited for a CPU (run-queue
 *     delay): a foreign task that ran while the rank slept took nothing;
 *     without the run-queue delay (a kernel without schedstat), the foreign
 *     tasks' time when the rank was preempted more than nivcsw_floor times
 *     per CPU second, else nothing;
 *   - without it (SLURM), the run-queue delay of a rank that shares its
 *     cores with no other rank of its run.
 * A rank is disturbed when that is more than 1 - min_cpu_share (0.9: a
 * tenth) of what it may have (DISTURBED_BY_FOREIGN), or when steal time on
 * its cores (a hypervisor's other guests) is (DISTURBED_BY_STEAL).
 * min_cpu_share 0 turns both off.  A record with neither the census nor
 * the run-queue delay (stores from before them) is judged by its
 * involuntary context switches per CPU second: above both nivcsw_factor
 * (10) times the campaign's median and nivcsw_floor (50), for a rank that
 * shares its cores with no other rank of its run (DISTURBED_BY_SWITCHES).
 * A run is disturbed when one of its ranks is.  A run with no rank records
 * is judged by its whole-run record (rank -1), allowed one core per rank.
 *
 * Invariants: pure; the result lists runs by id, each once, with its most
 * disturbed rank (the largest part of its time taken) and the causes on
 * the cores of its disturbed ranks, the largest first.
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
	double min_cpu_share;           /* 0.9; 0 switches the time-taken tests off */
	double nivcsw_factor;           /* 10 */
	double nivcsw_floor;            /* 50 per CPU second */
	double min_wall;                /* 0.1 s */
};

void disturbed_rule_init(struct disturbed_rule *r);

/* The name a cause goes by when it is no one process (pid 0): tasks too
   short-lived for the census to see, whose time is what ran on the core
   beyond the run and the tasks seen. */
#define DISTURBED_SHORT_TASKS "short-lived tasks"

/* A foreign process that ran on a core of a run (who took its time). */
struct disturbed_cause {
	long pid;                       /* 0: DISTURBED_SHORT_TASKS */
	char comm[32];
	int core;                       /* the OS's CPU number */
	double share;                   /* of the run's wall time this process ran on that core */
};

/* One resource record, as the rule reads it. */
struct disturbed_usage {
	long long run;
	int point, repetition;          /* passed through to the result */
	int rank;                       /* -1: the whole run */
	int ranks;                      /* the run's ranks (for a whole-run record) */
	double cpu, wall;               /* seconds (utime + stime); NaN unknown */
	double allowed;                 /* the share the binding allows; NaN: 1 */
	long long nivcsw;               /* -1 unknown */
	double run_delay;               /* seconds its threads waited for a CPU; NaN unknown */
	double foreign;                 /* CPU seconds foreign tasks used on its cores; NaN: no census */
	double steal;                   /* seconds of steal time on its cores; NaN unknown */
	const struct disturbed_cause *causes;   /* on its cores (borrowed), or NULL */
	int ncauses;
};

enum { DISTURBED_BY_FOREIGN = 1, DISTURBED_BY_SWITCHES = 2, DISTURBED_BY_STEAL = 4 };

struct disturbed_run {
	long long run;
	int point, repetition;          /* as given in the usage (the caller's meaning) */
	int rank;                       /* its most disturbed rank (-1: the whole run) */
	double share, allowed;          /* that rank's CPU share and what its binding allowed */
	double taken;                   /* the part of what it may have that other programs took, NaN unknown */
	double steal;                   /* the part steal time took, NaN unknown */
	double rate;                    /* its involuntary context switches per second, NaN unknown */
	double cpu_rate;                /* ... per CPU second, NaN unknown */
	unsigned why;                   /* DISTURBED_BY_* */
	struct disturbed_cause *causes; /* sorted by share, largest first (owned) */
	int ncauses;
};

struct disturbed_result {
	struct disturbed_rule rule;
	int njudged;                    /* runs with a judged record */
	int ncensus;                    /* of them, runs whose records have the census */
	double median_rate;             /* involuntary switches per second, NaN when none */
	double median_cpu_rate;         /* ... per CPU second, NaN when none */
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

/* "rank 0 lost 48% of its core to other programs: pid 4242 (gmx) ran on
   core 0 for 61% of the run": why run d is disturbed. */
struct strbuf;
void disturbed_reason(struct strbuf *sb, const struct disturbed_result *res, const struct disturbed_run *d);
/* "pid 4242 (gmx) ran on core 0 for 61% of the run; ..." (at most max causes). */
void disturbed_causes_text(struct strbuf *sb, const struct disturbed_cause *c, int n, int max);

#endif
