/*
 * The campaign store: one SQLite file (campaign.db, WAL mode) in the
 * campaign directory, plus runs/<id>/ for each run's files.  It holds the
 * resolved config, the plan (one row per run), run states and measurements.
 * `perfsweep run` is the only writer; status, export, model, validate and
 * top read it concurrently.  Every write is one transaction, so a kill -9
 * at any moment leaves either the old or the new state, never a mix.
 *
 * Run states: pending -> submitted -> running -> done | failed | cancelled.
 * A run that fails and still has attempts left goes back to pending.
 */
#ifndef PS_STORE_H
#define PS_STORE_H
#include "collectors/experiment.h"
#include "collectors/measurement.h"
#include "common/error.h"
#include "designs/plan.h"

#define STORE_SCHEMA_VERSION 1

enum run_state {
	RUN_PENDING,
	RUN_SUBMITTED,
	RUN_RUNNING,
	RUN_DONE,
	RUN_FAILED,
	RUN_CANCELLED,
	RUN_NSTATES
};

const char *run_state_name(enum run_state s);
/* Returns the state, or -1 for an unknown name. */
int run_state_parse(const char *name);

struct run {
	long long id;           /* 1-based, the runs/<id>/ directory */
	int point;              /* index of the plan point */
	double *values;         /* one per campaign parameter */
	int nodes, ranks, ranks_per_node;
	char *policy;           /* NULL when unset */
	int repetition;         /* 1-based */
	enum run_state state;
	int attempts;           /* submissions so far */
	char *backend_id;       /* pid or SLURM job id of the last attempt, or NULL */
	double submitted_at, started_at, ended_at;  /* Unix seconds, 0 when unset */
	int exit_status;        /* exit code, 128+signal, or -1 when unknown */
	double wall;            /* seconds, or -1 when unknown */
	char *reason;           /* why it failed or was cancelled, or NULL */
	char *collect_error;    /* a collector that found nothing, or NULL */
	double core_hours;      /* planned cost of this run */
	long long seq;          /* change counter: higher = changed later */
};

struct store_counts {
	long long planned, pending, submitted, running, done, failed, cancelled;
	long long measurements;
	double core_hours_planned, core_hours_spent;
	double core_hours_inflight;     /* planned cost of the runs submitted or running */
};

struct store;

#define STORE_READONLY 1

/*
 * Create the campaign directory and store with its plan, or, when the
 * directory already holds a store for the same campaign name, open it
 * unchanged (resume).  config_text is kept verbatim.
 */
int store_create(struct store **st, const char *dir, const char *name, const char *backend,
		 const char *config_text, const struct plan *pl, struct perr *err);
int store_open(struct store **st, const char *dir, int flags, struct perr *err);
void store_close(struct store *st);

const char *store_dir(const struct store *st);
/* Directory of one run's files (created on demand); the caller frees it. */
char *store_run_dir(const struct store *st, long long id);

/* Key/value metadata ("name", "backend", "config", "budget_core_hours", ...). */
char *store_get_meta(struct store *st, const char *key);   /* caller frees; NULL if unset */
int store_set_meta(struct store *st, const char *key, const char *value, struct perr *err);

/* Campaign parameters, in plan order. */
int store_nparams(const struct store *st);
const char *store_param_name(const struct store *st, int k);
const char *store_param_role(const struct store *st, int k);   /* NULL if none */

int store_counts(struct store *st, struct store_counts *c, struct perr *err);

/* One snapshot for several reads: everything read between store_read_begin
   and store_read_end sees the store as it was at the first read, whatever
   writers do meanwhile.  Not around writes. */
int store_read_begin(struct store *st, struct perr *err);
void store_read_end(struct store *st);

/*
 * Runs whose change counter is above since_seq (0 for all), by id.  On
 * success *runs is an array of *n runs: free it with runs_free.
 */
int store_load_runs(struct store *st, long long since_seq, struct run **runs, int *n,
		    struct perr *err);
int store_load_run(struct store *st, long long id, struct run *r, struct perr *err);
void run_release(struct run *r);
/*
 * Fold run r into the repetition pass a campaign is in: *pass is the lowest
 * repetition of a run not yet finished (0 while none), *passes the highest
 * repetition.  Start both at 0.
 */
void run_pass_add(const struct run *r, int *pass, int *passes);
void runs_free(struct run *runs, int n);
/* The highest change counter so far (for incremental refresh). */
long long store_last_seq(struct store *st);

/* State history of a run: parallel arrays of times, states and details. */
struct run_event {
	double t;
	enum run_state state;
	char *detail;
};
int store_run_events(struct store *st, long long id, struct run_event **ev, int *n, struct perr *err);
void run_events_free(struct run_event *ev, int n);

/* Transitions.  Each is one transaction and records a run event. */
int store_mark_submitted(struct store *st, long long id, const char *backend_id, double t,
			 struct perr *err);   /* attempts += 1 */
int store_mark_running(struct store *st, long long id, double t, struct perr *err);
/* Done: replaces any measurements of earlier attempts with ml, atomically. */
int store_mark_done(struct store *st, long long id, double t, int exit_status, double wall,
		    const struct measurement_list *ml, const char *collect_error, struct perr *err);
/* Failed: back to pending when retry is set, else failed for good. */
int store_mark_failed(struct store *st, long long id, double t, int exit_status, double wall,
		      const char *reason, int retry, struct perr *err);
int store_mark_cancelled(struct store *st, long long id, double t, const char *reason,
			 struct perr *err);
/* Back to pending without counting an attempt (orchestrator died mid-run). */
int store_mark_pending(struct store *st, long long id, const char *reason, struct perr *err);

/*
 * Measurements of all done runs as an experiment: the campaign parameters,
 * one repetition value per run, averaged over ranks.  metric may be NULL
 * for all metrics.  Ranks per node is the one each run really had (its
 * stored bindings, else the plan, store_load_run_rpn): a parameter with
 * role "ranks_per_node" takes that value, and without one the experiment
 * gains a parameter "ranks_per_node" when runs with the same parameter
 * values had different ranks per node.
 */
int store_load_experiment(struct store *st, const char *metric, struct experiment *e,
			  struct perr *err);
/* Which run each value of the experiment came from, in the order the values were added. */
struct exp_run {
	int callpath, metric, point;
	long long run;
};
struct exp_runs {
	struct exp_run *v;
	int n;
	size_t alloc;
};
/* store_load_experiment, also recording each value's run in *runs (free runs->v). */
int store_load_experiment_runs(struct store *st, const char *metric, struct experiment *e,
			       struct exp_runs *runs, struct perr *err);
/* Raw measurements of one run. */
int store_load_measurements(struct store *st, long long id, struct measurement_list *ml,
			    struct perr *err);

/*
 * The binding each rank of a run really had (from its rank record): node
 * name, cpuset (OS PU list) and logical cores.  Replaces the run's earlier
 * bindings.  Stores made before this table get it when opened for writing;
 * read-only, they simply have none.
 */
struct run_binding {
	int rank;
	char *node, *cpuset, *cores;    /* NULL when unknown */
};
int store_put_bindings(struct store *st, long long id, const struct run_binding *b, int n,
		       struct perr *err);
/* A run's bindings by rank; free with run_bindings_free. */
int store_load_bindings(struct store *st, long long id, struct run_binding **b, int *n,
			struct perr *err);
void run_bindings_free(struct run_binding *b, int n);

/*
 * The ranks per node each done run really had: the most ranks its stored
 * bindings put on one node (real), or -1 when no binding names a node; and
 * the planned value.  In run id order; free *out with free().
 */
struct run_rpn {
	long long run;
	int point;
	int planned, real;
};
int store_load_run_rpn(struct store *st, struct run_rpn **out, int *n, struct perr *err);
/* The entry of run id in rr (as store_load_run_rpn returns it), or NULL. */
const struct run_rpn *run_rpn_find(const struct run_rpn *rr, int n, long long run);
/* The ranks per node a run had: real when known, else planned. */
static inline int run_rpn_effective(const struct run_rpn *r)
{
	return r->real > 0 ? r->real : r->planned;
}

#endif
