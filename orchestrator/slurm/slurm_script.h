/*
 * The batch script of a SLURM run (runs/<id>/job.sh), its job name and its
 * comment.  Pure: no I/O, no libslurm; backend_slurm.c submits what this
 * renders.
 *
 * A run's job is named "ps:<campaign>:<run id>.<attempt>" and its comment is
 * "perfsweep <store id> <campaign dir> run <run id> attempt <attempt>": the
 * comment says whose job it is, the store id telling apart two stores made
 * one after the other at the same path.  The script names its attempt in
 * an owner line of its own ("# perfsweep job: store <id> run <run id>
 * attempt <attempt>") and touches the run directory only while the job.sh
 * there has that line: a job whose run directory has since been taken by
 * another attempt or another store does nothing.
 */
#ifndef PS_SLURM_SCRIPT_H
#define PS_SLURM_SCRIPT_H
#include "campaign/store.h"
#include "common/error.h"
#include "orchestrator/backend.h"

#define SLURM_STEP_TRIES 12   /* srun attempts in the job when the step cannot start */
#define SLURM_STEP_PAUSE 5    /* seconds between them */

/* The job settings the script's #SBATCH lines repeat. */
struct slurm_script_opts {
	const char *partition, *account, *qos;   /* NULL: unset */
	const char *mpi;                         /* srun --mpi= plugin, or NULL */
	int nextra;
	char *const *extra;                      /* verbatim long options */
	int nodes;                               /* 0: SLURM decides */
	unsigned time_limit;                     /* minutes, 0: none */
};

#define SLURM_ARRAY_TAG_LEN 16   /* hex digits naming one job array's map */

/* "ps:<campaign>:<run>.<attempt>" (caller frees). */
char *slurm_job_name(const char *campaign, long long id, int attempt);
/* "perfsweep <store id> <campaign dir> run <run id> attempt <attempt>" (caller
   frees; a missing store id is written "-"). */
char *slurm_job_comment(const struct run_spec *rs);
/* A job comment, parsed; dir points into the comment. */
struct slurm_comment {
	char store[STORE_ID_LEN + 1];   /* "" in the comment of perfsweep before store ids */
	const char *dir;
	size_t dir_len;
	long long run;
	int attempt;                    /* 0 in the comment of perfsweep before store ids */
	char array[SLURM_ARRAY_TAG_LEN + 1];   /* a job array's tag ("" for one run's job):
	                                   its map says which run each task is (run 0) */
};
/* 0 with c filled, or -1 when comment is not a perfsweep job comment (also
   the older "perfsweep <campaign dir> run <run id>"). */
int slurm_comment_parse(const char *comment, struct slurm_comment *c);
/* Whether c is the comment of a job of run run of store store_id in dir. */
int slurm_comment_is(const struct slurm_comment *c, const char *store_id, const char *dir, long long run);
/* Whether c is the comment of a job (or array) of store store_id in dir. */
int slurm_comment_is_dir(const struct slurm_comment *c, const char *store_id, const char *dir);
/* The nodes of a run's job: rs->nodes, else ceil(ranks / ranks per node), else 0. */
int slurm_job_nodes(const struct run_spec *rs);
/* A path as a SLURM file name pattern: '%' doubled (caller frees). */
char *slurm_file_pattern(const char *path);
/*
 * The batch script of rs in *out (caller frees): 0, or -1 with err saying
 * which value cannot be written safely (a control character outside an
 * argument or environment value, an environment name sh cannot assign).
 */
int slurm_script_render(const struct slurm_script_opts *o, const struct run_spec *rs, char **out,
			struct perr *err);

/* The directory of the notes job scripts leave: runs/.events beside the
   run directory runs/<id> (caller frees). */
char *slurm_events_dir(const char *run_dir);

/*
 * Job arrays.  Runs of one shape go out as one array job whose script is a
 * dispatcher, saved before submission as runs/.arrays/<tag>.sh (the map): a
 * line "# task T run R attempt A" per task, then a case on
 * SLURM_ARRAY_TASK_ID that runs that run's own runs/<id>/job.sh (if its
 * owner line still names that attempt) with job.out/job.err in the run
 * directory.  The array's comment is "perfsweep <store id> <campaign dir>
 * array <tag>": a restarted orchestrator reads the map to know its tasks.
 * A task's id in notes, records and the store is "ARRAYJOB_TASK".
 */
struct slurm_array_task {
	long long run;
	int attempt;
	const char *run_dir;
};
/* <campaign dir>/runs/.arrays (caller frees). */
char *slurm_arrays_dir(const char *campaign_dir);
/* "perfsweep <store id> <campaign dir> array <tag>" (caller frees). */
char *slurm_array_comment(const char *store_id, const char *campaign_dir, const char *tag);
/* The dispatcher of tasks 0..n-1 in *out (caller frees): 0, or -1 (err). */
int slurm_array_render(const char *store_id, const struct slurm_array_task *t, int n, char **out,
		       struct perr *err);
/* The run and attempt of task in a dispatcher's text: 0, or -1 when it has none. */
int slurm_array_lookup(const char *text, unsigned long task, long long *run, int *attempt);

/* The completion record job.done a job script leaves in its run directory. */
struct slurm_done {
	unsigned job;               /* SLURM job id (0 when run without SLURM); of an array task:
	                               the array's */
	long task;                  /* the array task ("job=JOB_TASK"), -1: not an array task */
	int attempt;                /* the attempt the script was rendered for */
	char store[STORE_ID_LEN + 1];   /* ... and its store ("" in records of perfsweep before store ids) */
	int exit_status;            /* srun's (or timeout's) exit status; 125: no working dir */
	long long start, end;       /* Unix seconds */
};
/* Parse a job.done text: 0, or -1 when it is not one. */
int slurm_done_parse(const char *text, struct slurm_done *d);

#endif
