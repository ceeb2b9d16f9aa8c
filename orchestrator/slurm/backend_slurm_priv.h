/*
 * Inside the SLURM backend: shared by backend_slurm.c (the backend, its
 * tracking of jobs, new/free, the partition query), slurm_poll.c,
 * slurm_submit.c and slurm_recover.c.  Nothing else includes it.
 */
#ifndef PS_BACKEND_SLURM_PRIV_H
#define PS_BACKEND_SLURM_PRIV_H
#include "orchestrator/slurm/backend_slurm.h"
#include "orchestrator/slurm/slurm_compat.h"
#include "orchestrator/slurm/slurm_extra.h"
#include "orchestrator/slurm/slurm_script.h"
#include "common/idmap.h"
#include "common/strmap.h"
#include <time.h>

#define POLL_MIN 0.1          /* seconds between polls right after a change */
#define POLL_MAX 5.0          /* ... growing to this while nothing changes */
#define POLL_FACTOR 1.5       /* ... by this factor per quiet poll (backend.poll) */
#define OUTAGE_POLL 1.0       /* first retry interval while the controller is down */
#define POLL_PER_RECORD 0.001 /* seconds between polls per listed job we do not track */
#define POLL_CPU_SHARE 0.005  /* polling may take this share of a CPU (0.5%) */
#define POLL_SAFETY 30.0      /* seconds between polls while job notes tell us (poll.safety) */
/* seconds between reads of the job notes (poll.notes): each read is a
   wakeup, and at 0.1 s the wakeups, not the notes, were 40% of the
   orchestrator's CPU per run (docs/architecture.md).  A start or end is
   then seen up to this much later: its times come from the job's own
   record, and an array's throttle is the controller's; with arrays off,
   a freed slot's next job goes out that much later */
#define NOTES_SWEEP 0.5
#define SUBMIT_BACKOFF_MIN 0.2
#define SUBMIT_BACKOFF_MAX 30.0
#define ADOPT_PATIENCE 600.0  /* seconds adopt() waits for a down controller */
#define ARRAY_WINDOW 10000    /* runs queued in SLURM at once with job arrays */
#define POLL_ARRAYS 4         /* tracked tasks of at most this many arrays: ask for those */
#define ADOPT_REUSE 2.0       /* seconds adopt() reuses an array's records for its other tasks */

#define NO_TASK NO_VAL           /* sjob.task of a job of its own, not an array task */

struct sjob {
	long long run;
	uint32_t job;         /* its job id; of an array task: the array's */
	uint32_t task;        /* its array task id, or NO_TASK */
	int missing;          /* full job lists in a row that did not show it */
	int left_pending;     /* an array task its array's pending record no longer lists,
	                         before it started: cancelled (scancel) while pending */
	double timeout;       /* the run's own timeout (exit 124 of timeout(1)), 0 none */
	int running;          /* its start was reported ... */
	double started_at;    /* ... as this time, which its result repeats */
	char *run_dir;
	char *store;          /* the store whose job it is (its records must say so) */
};


struct slurm_backend {
	char *partition, *account, *qos;
	char *mpi;                        /* srun --mpi=, or NULL */
	int time_limit, max_inflight;
	int nextra;
	char **extra;
	struct slurm_extra xo;
	char *tres_per_node;               /* xo.gres with SLURM's prefix per item */

	struct sjob *jobs;
	size_t njobs, ajobs;
	struct idmap job_ix;              /* key_of(job, task) -> its index in jobs */
	struct run_result *ready;         /* finished, not yet returned by wait() */
	size_t nready, aready;

	double poll_min, poll_max, poll_factor, poll_safety;
	double notes_sweep;               /* seconds between reads of the notes */
	time_t last_update;               /* of the last job list we got */
	double next_poll, poll_interval;
	double poll_floor;                /* no sooner than this: the list's untracked jobs */
	int outage;                       /* the controller did not answer */
	int notes_live;                   /* job notes arrive: the controller is the safety net */
	double next_sweep;                /* of the events directories */
	struct events_dir { char *path; double seen; } *evdirs;   /* seen: its mtime when last read */
	size_t nevdirs, aevdirs;
	int had_outage;                   /* ... at some time since we started */
	/* the array adopt() loaded last, reused for its other tasks while
	   fresh: a resumed campaign adopts each task of an array in turn */
	job_info_msg_t *adopt_msg;
	uint32_t adopt_job;
	double adopt_at;

	/* Job arrays (backend.arrays): start() queues runs, flush() submits
	   runs of one shape as one array each; arrays counts each array's
	   unfinished tasks against its throttle ("%N"), which together with
	   single jobs stay within max_inflight. */
	int arrays;                       /* 1: on; 0: off (config, or refused by the controller) */
	int arrays_told;                  /* that they are refused was said (note) */
	uint32_t max_array;               /* the controller's MaxArraySize (0: not asked yet) */
	struct queued *queue;
	size_t nqueue, aqueue;
	struct qgroup { size_t rep, n; } *groups;   /* the queue's shapes: a run of each, how many */
	size_t ngroups, agroups;
	struct sarray { uint32_t job; int throttle, left; } *arr;
	size_t narr, aarr;
	unsigned long tag_seq;

	double submit_after;              /* back-off after a transient submit error */
	double submit_backoff;

	/* Jobs of this store found in SLURM that nobody tracks yet
	   ("ps:<campaign>:<id>.<attempt>" -> index into orphan_ids). */
	int scanned;
	char *scan_key;                   /* whose jobs: campaign, store id and directory */
	struct strmap orphans;
	struct orphan { uint32_t job, task; } *orphan_ids;   /* job 0: taken */
	size_t norphans, aorphans;
	/* Live jobs of other stores at the same path, left alone: told once. */
	uint32_t *foreign;
	size_t nforeign, aforeign;
	char *note;                       /* the next thing recover() tells, or NULL */
};

/* A run start() queued for the next array: what flush() needs of it. */
struct queued {
	long long run;
	int attempt, nodes, ranks, rpn;
	uint32_t tl;
	double timeout;
	char *run_dir, *store, *campaign, *campaign_dir, *point, *policy;
};

/* Shared between the files of the backend (made non-static when
   backend_slurm.c was split; each definition's own comment says more). */

/* backend_slurm.c: errors, job descriptions, tracking */
void sleep_for(double s);                        /* sleep s seconds (none if s <= 0) */
int slurm_transient(int e);                      /* errno e may pass by itself */
const char *slurm_errstr(int e);                 /* SLURM's message for errno e */
uint32_t job_time_limit(const struct slurm_backend *sb, const struct run_spec *rs);   /* minutes */
char **job_env(const struct run_spec *rs, uint32_t *n);   /* the job's environment */
void env_free(char **env);
int write_executable(const char *path, const char *text, struct perr *err);   /* a script, 0755 */
uint64_t key_of(uint32_t job, uint32_t task);    /* a job's key in job_ix */
size_t tracked(const struct slurm_backend *sb, uint32_t job, uint32_t task);   /* index, or njobs */
char *job_text(uint32_t job, uint32_t task);     /* "JOB" or "JOB_TASK" (caller frees) */
size_t tasks_in_arrays(const struct slurm_backend *sb);   /* tracked array tasks */
void track_job(struct slurm_backend *sb, long long run, double timeout, const char *run_dir,
	       const char *store, uint32_t job, uint32_t task);   /* track job (task) as run's */
void track(struct slurm_backend *sb, const struct run_spec *rs, uint32_t job, uint32_t task);
void untrack(struct slurm_backend *sb, size_t i);   /* forget tracked job i */

/* slurm_poll.c: results and wait() */
int job_finished(uint32_t state);                /* its script ended, exit code set */
void job_result(const slurm_job_info_t *j, long long run, double timeout, const char *run_dir,
		struct run_result *r);               /* the run result of a finished job */
void push_ready(struct slurm_backend *sb, const struct run_result *r);   /* for wait() to return */
int result_from_record(const char *run_dir, const char *store, uint32_t job, uint32_t task,
		       int attempt, long long run, double timeout, int live,
		       struct run_result *r);        /* from the job's completion record */
int task_in_str(const char *str, uint32_t task);   /* task is in array_task_str */
int sl_wait(struct backend *b, double timeout, struct run_result *res, int max,
	    struct perr *err);                   /* backend.wait */

/* slurm_submit.c: capacity, the array queue, flush() and start() */
int sl_inflight(struct backend *b);              /* backend.inflight */
int sl_capacity(struct backend *b);              /* backend.capacity */
void submit_backoff(struct slurm_backend *sb);   /* hold submissions back, longer each time */
void queue_release(struct queued *q);            /* free a queued run's strings */
void arrays_refused(struct slurm_backend *sb, const char *why);   /* jobs of their own from now on */
int sl_flush(struct backend *b, struct backend_flushed **out, struct perr *err);   /* backend.flush */
int sl_start(struct backend *b, const struct run_spec *rs, char **backend_id,
	     struct perr *err);                  /* backend.start */

/* slurm_recover.c: whose job a record is, recover(), cancel(), adopt() */
int job_task_is_runs(const slurm_job_info_t *j, uint32_t task, const struct run_spec *rs,
		     int legacy);                /* job j (task) is for run spec rs */
char *array_map(const struct slurm_comment *c);   /* an array's map text (caller frees) */
int sl_recover(struct backend *b, const struct run_spec *rs, char **backend_id,
	       enum attempt_fate *fate, struct perr *err);   /* backend.recover */
int sl_cancel(struct backend *b, const struct run_spec *rs, const char *backend_id,
	      struct perr *err);                 /* backend.cancel */
int sl_adopt(struct backend *b, const struct run_spec *rs, const char *backend_id,
	     enum attempt_fate *fate, struct perr *err);   /* backend.adopt */

#endif
