/*
 * Backends execute runs: `local` (fork/exec on this machine,
 * orchestrator/local/) and `slurm` (libslurm, orchestrator/slurm/).  This
 * header holds only what every backend offers: the operations on an open
 * backend (struct backend_ops) and its entry in the registry (struct
 * backend_entry, the table in backend.c, in the style of hwloc's
 * components), through which the rest of perfsweep knows backends; nothing
 * outside a backend's folder compares its name.  The run engine (runner.c)
 * owns all state changes in the store; a backend only starts runs, reports
 * finished ones, cancels, and re-adopts runs that were in flight when an
 * earlier orchestrator died.
 *
 * A new backend: a folder orchestrator/<name>/ with its operations and its
 * `const struct backend_entry backend_<name>_entry`, a row in backend.c's
 * table, and <name> in the Makefile's BACKENDS.
 *
 * Files: every run writes into spec->run_dir: `stdout`, `stderr` (rank 0 or
 * the only process; a local MPI world: mpirun's, with every rank's output),
 * `rank-<r>.stdout`/`rank-<r>.stderr` for other ranks,
 * and, when launched through perfsweep-bind, `rank-<r>.json` with the
 * binding each rank really got (see placement/bind.h).
 */
#ifndef PS_BACKEND_H
#define PS_BACKEND_H
#include "campaign/config.h"
#include "common/error.h"

/* One run, fully resolved: nothing left to substitute. */
struct run_spec {
	long long id;
	const char *campaign;       /* campaign name: job names and comments */
	const char *campaign_dir;
	const char *store_id;       /* the campaign store's id (store_id()): whose job this is */
	char *const *argv;          /* NULL-terminated, placeholders substituted */
	char *const *env;           /* NULL-terminated "KEY=VALUE" additions */
	const char *workdir;        /* NULL: the run directory */
	const char *run_dir;        /* absolute path of runs/<id>/ */
	double timeout;             /* seconds, 0 = none */
	int ranks;                  /* processes to start (>= 1) */
	int nodes;                  /* 0 = backend decides (ceil(ranks/ranks_per_node)) */
	int ranks_per_node;         /* 0 = unset */
	const char *policy;         /* placement policy for perfsweep-bind, or NULL: no binding */
	const char *cores_per_rank; /* placement.cores_per_rank ("N" or "all"), or NULL: 1 */
	const char *map;            /* explicit policy: the map file, or NULL */
	const char *bind_path;      /* absolute path of perfsweep-bind */
	double est_seconds;         /* estimated runtime (time limits), 0 = unknown */
	int attempt;                /* which attempt of the run this is (1-based; 0 means 1):
	                               backends that name jobs name each attempt apart */
	const char *point;          /* "np=4, n=10": the run's parameter values, for messages (or NULL) */
	const char *mpi;            /* backend.mpi, or NULL (the local backend: "openmpi", the
	                               ranks are one mpirun world; slurm reads its own config) */
};

struct run_result {
	long long id;
	int exit_status;            /* exit code, 128+signal, or -1 unknown */
	double started_at, ended_at, wall;   /* Unix seconds; wall in seconds */
	int failed;                 /* non-zero exit, signal, timeout, job failure */
	int retry_free;             /* not the program's fault (node failure, preemption):
	                               retried without using up an attempt */
	char reason[256];           /* why it failed, "" if it did not */
	int running;                /* not finished: only reports that the run has started
	                               (optional; then started_at is set) */
	int rerun;                  /* the attempt was killed mid-way without a word on how it
	                               ended (its supervisor died): run it again; reason says so */
	int unstartable;            /* failed: its program could not be started (cannot execute,
	                               no working directory): not tried again */
};

/*
 * What adopt() and recover() found of an attempt an earlier orchestrator
 * started, for the run engine to say (runner.c has the words); a backend
 * that cannot tell leaves FATE_UNKNOWN.
 */
enum attempt_fate {
	FATE_UNKNOWN,
	FATE_RUNNING,           /* still running: adopted, its result comes through wait */
	FATE_FINISHED,          /* finished while no orchestrator ran: its result comes through wait */
	FATE_NEVER_STARTED,     /* never started: run it (again) */
	FATE_KILLED,            /* killed mid-way, its leftovers killed now: run it again */
};


/* How a queued run's submission went (flush). */
struct backend_flushed {
	long long id;
	int rc;                     /* 0 submitted, 1 transient (start it again later),
	                               -1 failed for good (why says why) */
	char *backend_id;           /* rc 0: its job */
	char why[512];
};
void backend_flushed_free(struct backend_flushed *f, int n);

struct backend;

struct backend_ops {
	const char *name;           /* its entry's name in the registry */
	/* How many more runs may start now. */
	int (*capacity)(struct backend *b);
	/* Start a run.  0: started, *backend_id set (caller frees); 1: transient
	   failure, try later; -1: permanent failure, err says why; 2: queued
	   for flush (backends with flush only), no backend id yet. */
	int (*start)(struct backend *b, const struct run_spec *rs, char **backend_id,
		     struct perr *err);
	/* Wait up to timeout seconds for finished runs; fills up to max results and
	   returns their count, or -1 (err) for a backend failure.  A transient
	   outage (controller down) is not a failure: it returns 0 and retries. */
	int (*wait)(struct backend *b, double timeout, struct run_result *res, int max,
		    struct perr *err);
	/* Cancel one in-flight run (rs: at least id, store_id and campaign_dir)
	   whose attempt has backend_id.  A job that is not this store's run
	   (another store's at the same path, an id reused) is left alone.  0 or
	   -1. */
	int (*cancel)(struct backend *b, const struct run_spec *rs, const char *backend_id,
		      struct perr *err);
	/* After a restart: take over a run an earlier orchestrator of this store
	   started.  1: adopted (it will finish through wait), 0: it is gone or
	   not this store's (re-run it), -1 err.  *fate (set to FATE_UNKNOWN by
	   the caller) says more when it can. */
	int (*adopt)(struct backend *b, const struct run_spec *rs, const char *backend_id,
		     enum attempt_fate *fate, struct perr *err);
	/* Optional (NULL when a backend cannot outlive its orchestrator).  Before
	   a fresh attempt: take over this attempt's job if an earlier orchestrator
	   submitted it but died before recording it, even one that has finished
	   since.  1: taken over, *backend_id set, its result comes through wait;
	   0: there is none, start the run; 2: cannot tell now (controller down),
	   try later; -1: err.  *fate as for adopt (0 with FATE_KILLED: there was
	   one, killed mid-way; start the run afresh).  Returning 0, 1 or 2 it may
	   leave a note for the user in err->msg (jobs of another store left
	   alone), each told once. */
	int (*recover)(struct backend *b, const struct run_spec *rs, char **backend_id,
		       enum attempt_fate *fate, struct perr *err);
	/* Optional (NULL: start() never returns 2).  start() may queue a run
	   (returns 2, no backend id yet) to submit it with others (SLURM job
	   arrays); flush submits what is queued and says of each run how it
	   went: *out (caller frees with backend_flushed_free) gets the count
	   returned, or -1 (err) with nothing submitted.  Returning >= 0 it may
	   leave a note for the user in err->msg (arrays refused), told once. */
	int (*flush)(struct backend *b, struct backend_flushed **out, struct perr *err);
	/* Runs in flight right now. */
	int (*inflight)(struct backend *b);
	void (*free)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
};

struct plan;

/*
 * A backend as the registry knows it, before one is opened.  name and open
 * are required, the rest optional (NULL: nothing to check or say).
 */
struct backend_entry {
	const char *name;           /* backend.type in a config, "backend" in a store's meta */
	const char *job_words[2];   /* what a run in flight is to it, one and several:
	                               "process group", "process groups" */
	int starts_running;         /* a started run runs at once, here, on the cores the
	                               backend gave it (no queue in between): the run engine
	                               marks it running, a two-arm run (ab_run.h) needs it */
	/* The settings of the backend section only this backend reads: 0, or
	   -1 with err "FILE:LINE: ..." at the setting. */
	int (*check_config)(const struct campaign_config *c, struct perr *err);
	/* A campaign directory (absolute) its runs can write into: 0 or -1. */
	int (*check_dir)(const char *dir, struct perr *err);
	/* Every point of the plan against what the backend offers (its nodes,
	   cores, partitions): 0, or -1 with err naming the point, of kind
	   PERR_BACKEND when the backend's own settings are at fault. */
	int (*plan_check)(const struct plan *pl, const struct campaign_config *c, struct perr *err);
	/* What a run of several ranks is on this backend, for plan to say, or
	   NULL (caller frees). */
	char *(*plan_note)(const struct plan *pl, const struct campaign_config *c);
	/* Open it to run c's runs, at most jobs at once where the backend
	   decides that (0: its default).  0, or -1 with err. */
	int (*open)(struct backend **b, const struct campaign_config *c, int jobs, struct perr *err);
	/* Stop the attempt rs (at least id, store_id, campaign_dir and attempt)
	   that has backend_id, knowing only the store (perfsweep cancel, top):
	   *b is NULL on the first call and may be set to an open backend the
	   later calls reuse; the caller frees it.  1: stopped, 0: nothing left
	   to stop, -1: err. */
	int (*cancel_id)(struct backend **b, const struct run_spec *rs, const char *backend_id,
			 struct perr *err);
};

/* The backend called name, or NULL when there is none. */
const struct backend_entry *backend_find(const char *name);
/*
 * The backend of config c with its settings checked: NULL with err
 * "FILE:LINE: unknown backend ...; write ..." or the backend's own
 * complaint.
 */
const struct backend_entry *backend_for_config(const struct campaign_config *c, struct perr *err);

#endif
