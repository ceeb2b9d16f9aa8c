/*
 * The pieces of perfsweep-bind: find this process's rank from the launcher's
 * environment, bind it on the real topology and verify the binding, run the
 * application, and record what happened in `<run dir>/rank-<rank>.json`
 * (format: docs/placement.md).
 */
#ifndef PS_BIND_H
#define PS_BIND_H
#include "common/error.h"
#include "placement/topology.h"
#include <hwloc.h>
#include <sys/types.h>

/*
 * Ranks as the launcher set them.  Each value comes from the first variable
 * set in this order (innermost launcher first, so a local-backend rank inside
 * an srun step or an mpirun inside a batch job sees its own launcher):
 *   local rank      PERFSWEEP_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 *                   MPI_LOCALRANKID, SLURM_LOCALID
 *   rank            PERFSWEEP_RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID
 *                   (default: the local rank)
 *   ranks per node  PERFSWEEP_RANKS_PER_NODE, OMPI_COMM_WORLD_LOCAL_SIZE,
 *                   MPI_LOCALNRANKS, SLURM_NTASKS_PER_NODE, SLURM_TASKS_PER_NODE
 *                   ("4(x2),3": the entry of SLURM_NODEID)  (default: 0, unknown)
 */
struct bind_ranks {
	int local_rank, rank, ranks_per_node;
	const char *local_from, *rank_from, *rpn_from;   /* variable names, or NULL */
};

int bind_ranks_from_env(struct bind_ranks *r, struct perr *err);
/* The node count of SLURM_TASKS_PER_NODE's syntax ("2(x3),1") for node index node. */
int bind_parse_tasks_per_node(const char *s, int node, int *tasks);

/*
 * Bind the whole process to set (PUs) on t, which must be this machine's
 * topology, then read the binding back into actual.  Fails, with actual
 * holding what was read, when the binding differs from set.
 */
int bind_apply(const struct topology *t, hwloc_const_bitmap_t set, hwloc_bitmap_t actual,
	       struct perr *err);

/*
 * What one rank used, from wait4 (the application and the children it
 * waited for) and getloadavg.  cpu_share is (utime + stime) / wall: about 1
 * for a rank that computed all the time on a core of its own, lower when it
 * waited for a core (or for I/O), above 1 for a threaded rank.
 */
struct bind_usage {
	double utime, stime;        /* seconds of user and system CPU time */
	double cpu_share;           /* (utime + stime) / wall; NaN when wall is 0 */
	long long maxrss_kb;        /* maximum resident set size */
	long long nvcsw, nivcsw;    /* voluntary and involuntary context switches */
	double load_start, load_end;    /* 1-minute load average; NaN when unknown */
	double run_delay;           /* seconds the application's main thread waited for a
	                               CPU (/proc/PID/schedstat, read as it exited); NaN unknown */
	double main_cpu;            /* and the seconds it ran: how much of the rank's CPU time
	                               run_delay speaks for (a launcher's shell runs little); NaN unknown */
};

struct bind_result {
	double start, end, wall;    /* Unix seconds; wall from a monotonic clock */
	int exit_status;            /* exit code, 128+signal, 126/127 when exec failed */
	int signal;                 /* terminating signal, 0 if none */
	pid_t pid;
	int have_usage;             /* usage is set: the application ran and was waited for */
	struct bind_usage usage;
};

/*
 * Run argv (PATH lookup, no shell) and wait for it.  While it runs, SIGTERM,
 * SIGHUP, SIGUSR1 and SIGUSR2 sent to this process are forwarded to it, and
 * so are SIGINT and SIGQUIT when a process (not the terminal) sent them.
 * Inside a SLURM step (SLURM_STEP_ID set), signals from slurmstepd (our
 * parent) are not forwarded: SLURM signals every process of the step
 * itself.  Outside a SLURM step and a terminal's foreground, the child gets
 * a process group of its own, so a signal to this process's group reaches
 * it exactly once.  The child dies with this process (SIGKILL).  The
 * handlers are installed for the call only.
 * Returns -1 (err, res->exit_status 126 or 127) when argv cannot be started.
 */
int bind_run(char *const *argv, struct bind_result *res, struct perr *err);

struct bind_record {
	int rank, local_rank, ranks_per_node;
	const char *node;           /* SLURMD_NODENAME or the host name */
	const char *policy;
	int cores_per_rank;         /* 0: all cores shared; -1: explicit */
	hwloc_const_bitmap_t cpuset;   /* binding read back, or NULL */
	hwloc_const_bitmap_t cores;    /* logical cores of the binding, or NULL */
	const struct bind_result *result;   /* NULL when the app did not run */
	int exit_status;            /* used when result is NULL */
	const char *error;          /* why perfsweep-bind failed, or NULL */
	char *const *argv;
};

/* The node name recorded: SLURMD_NODENAME, else the host name (static buffer). */
const char *bind_node_name(void);
/* Write DIR/rank-<rank>.json atomically (temporary file, then rename), with
   termination signals held back until it is in place. */
int bind_record_write(const struct bind_record *rec, const char *dir, struct perr *err);

/* A rank record as read back (strings owned; NULL where the record has null). */
struct bind_info {
	int rank, local_rank, ranks_per_node;   /* ranks_per_node 0: null */
	char *node, *policy;
	char *cpuset;               /* the binding read back (OS PU list), or NULL */
	char *cores;                /* its logical cores, or NULL */
	double start, end, wall;    /* < 0: null */
	int exit_status;
	char *error;
	int have_usage;             /* the record has utime and stime (records before them have not) */
	struct bind_usage usage;    /* numbers null in the record: NaN, counts -1 */
};

/*
 * Read one rank record (perfsweep-rank/1).  Fails, naming the file, when it
 * does not parse or is not such a record.  Free with bind_info_release.
 */
int bind_record_read(const char *path, struct bind_info *out, struct perr *err);
void bind_info_release(struct bind_info *bi);
/*
 * Every readable rank record rank-<r>.json in dir (others are skipped), in
 * no particular order.  *out is NULL when there is none.  Free with
 * bind_infos_free.
 */
void bind_records_in(const char *dir, struct bind_info **out, int *n);
void bind_infos_free(struct bind_info *bi, int n);

/*
 * The CPU share each rank's binding allows, into allowed[0..n): the cores
 * of its binding (its PUs when the record names no cores), over the ranks
 * of its run on the same node whose PUs meet its own: 2 for a rank given
 * two cores (a threaded rank may use both), 0.5 for two ranks an explicit
 * map gives one core.  NaN where the record has no cpuset.
 */
void bind_allowed_shares(const struct bind_info *bi, int n, double *allowed);

#endif
