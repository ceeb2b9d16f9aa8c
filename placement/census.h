/*
 * Who else runs on a run's cores: a census of this machine's tasks from
 * /proc, for judging whether a run was disturbed (and by whom) and for
 * waiting until its cores are quiet.
 *
 * A task is one of three kinds:
 *   own       a member of the run's session (its ranks, their threads and
 *             children): their run-queue delay (/proc/PID/task/TID/schedstat)
 *             is summed per rank (PERFSWEEP_RANK or OMPI_COMM_WORLD_RANK in
 *             the process's environment; -1 without one);
 *   excluded  the census's own process, perfsweep's orchestrator, the
 *             sessions of its other runs' supervisors, and the run's
 *             perfsweep-bind processes (they wait before and after the
 *             rank's program, whose time the rank records hold);
 *   foreign   everything else, kernel threads included: the CPU time each
 *             used (utime + stime, clock ticks) between two samples is put
 *             on the CPU it last ran on (field 39 of its stat).
 * A sample reads /proc/PID/stat of every process and descends into
 * /proc/PID/task only for own processes and for foreign multi-threaded
 * ones whose CPU time grew, so a quiet machine costs one read per process.
 * Tasks that start after the census started count from zero; tasks that
 * end between two samples lose their last interval, and one that lives
 * less than a sample is never seen: what ran on a CPU in all (busy, from
 * /proc/stat) less the foreign tasks seen, perfsweep's own processes and
 * the run's own CPU time (which its caller knows exactly, from wait4) is
 * the time of such short-lived tasks (run_bindings.c).
 *
 * Invariants: nothing here prints, exits or writes a file; CPUs are the
 * OS's numbers (hwloc's OS indexes), 0..ncpus-1.
 */
#ifndef PS_CENSUS_H
#define PS_CENSUS_H
#include "common/idmap.h"
#include "common/strbuf.h"
#include <stddef.h>
#include <sys/types.h>

/* Seconds between two samples while a run runs: five a second at most. */
#define CENSUS_INTERVAL 0.2
/* The quiet gate's window: its cores are quiet when foreign tasks used
   less than CENSUS_QUIET_SHARE of each over one window. */
#define CENSUS_QUIET_WINDOW 0.25
#define CENSUS_QUIET_SHARE 0.05

/* What this machine's kernel offers (census_signals_probe). */
struct census_signals {
	int last_cpu;           /* /proc/PID/task/TID/stat: a task's last CPU (the census) */
	int schedstat;          /* /proc/PID/schedstat: run-queue delay per thread */
	int pressure;           /* /proc/pressure/cpu: CPU pressure (PSI) */
	int steal;              /* /proc/stat: steal time per CPU (a hypervisor's) */
};
void census_signals_probe(struct census_signals *s);
/* "foreign-task census, run-queue delay, CPU pressure; no steal time" */
void census_signals_describe(const struct census_signals *s, struct strbuf *sb);

/* A foreign process's time on one CPU. */
struct census_cause {
	long pid;
	char comm[32];
	int cpu;
	double seconds;         /* CPU time it used there */
};

/* The run-queue delay of one rank's tasks. */
struct census_rank {
	int rank;               /* -1: own tasks of no rank (mpirun, a launcher) */
	double run_delay;       /* seconds its tasks waited for a CPU, as last sampled */
	double cpu;             /* seconds they ran, as last sampled */
};

struct census_task;

struct census {
	int ncpus;
	pid_t self, session, orchestrator;      /* session 0: no own tasks */
	long hz;                                /* clock ticks per second */
	unsigned long long t0;                  /* boot ticks when it started */
	double mono0, mono_last;
	int samples;
	int late;                               /* census_begin: the first sample is not at t0 */
	int schedstat;                          /* own tasks' run-queue delays can be read */
	double cost;                            /* CPU seconds the census took itself */
	double *foreign;                        /* per CPU: foreign CPU seconds, by the tasks seen */
	double *ours;                           /* per CPU: perfsweep's excluded processes and the census */
	double *bind;                           /* per CPU: the run's perfsweep-bind processes */
	double *busy;                           /* per CPU over the census (census_finish): what ran
	                                           there, from /proc/stat; NULL unknown */
	struct census_cause *causes;            /* per foreign process and CPU */
	int ncauses;
	size_t causes_alloc;
	struct census_rank *ranks;
	int nranks;
	size_t ranks_alloc;
	/* the tasks seen (by tid) and the processes' ranks (by pid) */
	struct census_task *tasks;
	size_t ntasks, tasks_alloc;
	struct idmap task_index;
	unsigned gen;
	double *steal0, *busy0;                 /* per CPU at the start, seconds; NULL unknown */
	double pressure0;                       /* PSI cpu some total at the start, seconds; NaN unknown */
	double steal_s, pressure_s;             /* filled by census_finish */
	double *steal;                          /* per CPU during the census (census_finish); NULL unknown */
};

/*
 * Start a census: read every task once (the baseline).  session: the
 * run's session id (0: none yet); orchestrator: a pid whose process and
 * whose children's sessions are perfsweep's own (0: none).
 */
void census_start(struct census *c, pid_t session, pid_t orchestrator);
/*
 * Start a census without reading the tasks: the first census_sample is its
 * baseline, and a task it finds that started after census_begin counts
 * from zero.  What a task that was there before used until that first
 * sample is not seen.  A run's census (supervisor.c) begins so and takes
 * its first sample CENSUS_FIRST_SAMPLE seconds in: a run shorter than
 * that costs no reading of /proc at all.
 */
void census_begin(struct census *c, pid_t session, pid_t orchestrator);
/* Seconds into a run before its census's first sample: two clock ticks. */
#define CENSUS_FIRST_SAMPLE 0.02
/* One sample: every task again. */
void census_sample(struct census *c);
/* The last sample (none when it never had a first), and steal and pressure
   over the census. */
void census_finish(struct census *c);
void census_release(struct census *c);

/* Foreign CPU seconds so far on the CPUs cpus[0..n). */
double census_foreign_on(const struct census *c, const int *cpus, int n);
/* The foreign process with the most time so far on cpus[0..n), or NULL. */
const struct census_cause *census_top_cause(const struct census *c, const int *cpus, int n);

/* The CPUs of an OS CPU list ("0-3,8", hwloc's syntax) into *cpus (caller
   frees): their count, or -1 (*cpus NULL) when s is not such a list. */
int census_cpus_of(const char *list, int **cpus);

#endif
