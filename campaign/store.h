/*
 * The campaign store: one SQLite file (campaign.db, WAL mode) in the
 * campaign directory, plus runs/<id>/ for each run's files.  It holds the
 * resolved config, the plan (one row per run), run states and measurements.
 * Its writers are run (the run engine), cancel and retry (also top's c and
 * r keys), collect, refine, import and run --until (docs/architecture.md);
 * status, export, model, validate and top read it concurrently.  Every write is one transaction, so a kill -9
 * at any moment leaves either the old or the new state, never a mix.
 *
 * Run states: pending -> submitted -> running -> done | failed | cancelled,
 * as the one run-state machine allows (campaign/run_state.h): a run that
 * fails and still has attempts left goes back to pending; done, failed and
 * cancelled are final; any run whose point or repetition leaves the plan
 * becomes retired (and goes back to its earlier state when it returns to
 * the plan): see store_grow.
 *
 * A run is identified by its point (parameter values and ranks per node;
 * the point fixes its placement), its repetition and its re-measurement
 * (0 for the first), never by the whole plan: a campaign grows by appending
 * runs (store_append_runs) and by growing its plan (store_grow).
 */
#ifndef PS_STORE_H
#define PS_STORE_H
#include "collectors/collector_set.h"
#include "collectors/experiment.h"
#include "collectors/measurement.h"
#include "campaign/run_state.h"
#include "common/error.h"
#include "designs/plan.h"

#define STORE_SCHEMA_VERSION 1

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
	int cores_per_rank;     /* its point's: the cores each rank holds (threads), -1 "all",
	                           0 unset (one core each) */
	long long seq;          /* change counter: higher = changed later */
	int remeasure;          /* 0: the repetition's first measurement; k: its k-th re-measurement */
	char *origin;           /* why the run exists: NULL (the plan), "refine", ...; see store_append_runs */
	enum run_state retired_from;    /* RUN_RETIRED: the state it goes back to when un-retired */
};

struct store_counts {
	long long planned, pending, submitted, running, done, failed, cancelled;
	long long retired;      /* not in planned, nor in core_hours_planned */
	long long measurements;
	double core_hours_planned, core_hours_spent;
	double core_hours_inflight;     /* planned cost of the runs submitted or running */
};

struct store;

/*
 * store_open's flags.  STORE_READONLY: a reader (status, export, model,
 * validate, top, compare, ...): its open runs SQLite's PRAGMA quick_check,
 * so a corrupt store is refused in one line ("the store is corrupt (...);
 * restore it from a copy") before anything is read from it, not analysed
 * silently.  quick_check reads the whole file (about 0.35 s of CPU for a
 * store of 10^6 runs); STORE_NOCHECK leaves it out for an open that reads
 * a meta key or two and is followed by a checked one.
 */
#define STORE_READONLY 1
#define STORE_NOCHECK 2

/*
 * A read of dir's whole store on a thread and a connection of its own, for
 * a reader that must show something at once and cannot wait for the whole
 * file to be read (interactive top: its check, its flags).  fn runs on the
 * store opened STORE_READONLY | STORE_NOCHECK and writes its answer into
 * state, which the task takes over (malloc'd, freed with the task; NULL
 * for none).  store_task_poll says 1 while fn runs, 0 once it returned 0
 * (store_task_state then holds the answer), -1 with fn's err.
 * store_task_stop interrupts its reading, waits a moment for it and frees
 * it; one still computing then is left to end and free itself.  Where
 * SQLite is not built thread-safe, fn runs at start.
 */
struct store_task;
typedef int (*store_task_fn)(struct store *st, void *state, struct perr *err);
struct store_task *store_task_start(const char *dir, store_task_fn fn, void *state, struct perr *err);
int store_task_poll(struct store_task *t, struct perr *err);
void *store_task_state(const struct store_task *t);
void store_task_stop(struct store_task *t);
/* The check a STORE_READONLY open runs (quick_check), as a task's fn:
   err as store_open words a corrupt store. */
int store_check_task(struct store *st, void *state, struct perr *err);

/*
 * Create the campaign directory and store with its plan, or, when the
 * directory already holds a store for the same campaign name, open it: with
 * the same plan unchanged (resume), with another plan grown to it
 * (store_grow).  config_text is kept verbatim.
 */
int store_create(struct store **st, const char *dir, const char *name, const char *backend,
		 const char *config_text, const struct plan *pl, struct perr *err);
int store_open(struct store **st, const char *dir, int flags, struct perr *err);
void store_close(struct store *st);
/* dir/campaign.db exists but its creating transaction never committed (a
   kill -9 right at the start): no campaign yet, store_create makes it afresh. */
int store_uncommitted(const char *dir);

const char *store_dir(const struct store *st);
/*
 * The store's id: 32 random hex digits made with the store (meta key
 * store_id), so that two stores made one after the other at the same path
 * are told apart (a SLURM job carries the id of the store that submitted
 * it, backend_slurm.c).  A store made before store ids gets one when it is
 * first opened for writing; opened read-only, it has none (NULL).  Owned by
 * st.
 */
#define STORE_ID_LEN 32
const char *store_id(const struct store *st);
/* Directory of one run's files, runs/<id> (the caller frees it); the
   runner makes it when the run starts (orchestrator/runner.c, clean_run_dir). */
char *store_run_path(const struct store *st, long long id);

/* Key/value metadata ("name", "backend", "config", "budget_core_hours", ...; the machine a
   campaign was created on: "hostname", "cpu_model", "ncores", unless it is an import). */
char *store_get_meta(struct store *st, const char *key);   /* caller frees; NULL if unset */
int store_set_meta(struct store *st, const char *key, const char *value, struct perr *err);
/* Set several meta keys in one transaction (a NULL value removes its key). */
int store_set_metas(struct store *st, const char *const *keys, const char *const *values, int n,
		    struct perr *err);

/* Campaign parameters, in plan order. */
int store_nparams(const struct store *st);
const char *store_param_name(const struct store *st, int k);
const char *store_param_role(const struct store *st, int k);   /* NULL if none */

int store_counts(struct store *st, struct store_counts *c, struct perr *err);

/*
 * One transaction for several state changes (the results one wait of the
 * backend reported): each change still applies or is refused on its own,
 * as a savepoint, and the store sees all of them at store_batch_end, or
 * none when the orchestrator dies before it.  What a change tells the
 * caller (applied, refused) holds once the batch ends.  Saves a commit
 * per change: the WAL frames of the runs table and its indexes.
 * 0 or -1 (err); store_batch_end of no batch does nothing.
 */
int store_batch_begin(struct store *st, struct perr *err);
int store_batch_end(struct store *st, struct perr *err);

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
/*
 * A page of runs: the first limit runs with ids above after_id, by id (a
 * big store read a page at a time; each page as it is when read, so a
 * reader pages under store_last_seq taken first and then reads what
 * changed since).  Free with runs_free.
 */
int store_load_runs_after(struct store *st, long long after_id, int limit, struct run **runs, int *n,
			  struct perr *err);
/* How many runs the store holds (retired ones too); 0 when it cannot say. */
long long store_nruns(struct store *st);
int store_load_run(struct store *st, long long id, struct run *r, struct perr *err);
/* Only the runs with a problem: failed, or a collection error (free with runs_free). */
int store_load_problem_runs(struct store *st, struct run **runs, int *n, struct perr *err);
/* run_pass_add over every run, and how many runs have a collection error,
   answered by the store without reading the runs. */
int store_pass(struct store *st, int *pass, int *passes, long long *collect_errors, struct perr *err);
void run_release(struct run *r);
/* The cores a run reserves: its ranks (at least 1) times the cores each
   holds (its point's cores per rank, threads per rank; "all" counts one). */
int run_cores(const struct run *r);
/* Its point's cores per rank as the config writes it ("2", "all") in buf
   (RUN_CORES_TEXT bytes), or NULL when the store has none for it. */
#define RUN_CORES_TEXT 24
const char *run_cores_per_rank(const struct run *r, char *buf);
/* Core-hours a run's last attempt used: its measured wall time (0 when
   unknown) times its cores.  The store's counts sum the same. */
double run_spent_core_hours(const struct run *r);
/* Seconds a run is planned to take: its planned core-hours over its cores. */
double run_planned_seconds(const struct run *r);
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
int store_run_events(struct store *st, long long id, struct run_event **act, int *n, struct perr *err);
void run_events_free(struct run_event *act, int n);

/*
 * Transitions.  Each is one transaction, goes through the run-state machine
 * (run_state.h) and records a run event.  Each returns 0 when applied, 1
 * when the machine refuses it in the run's current state (err says so and
 * nothing changed: a report that arrived after a cancel, say), -1 (err).
 */
int store_mark_submitted(struct store *st, long long id, const char *backend_id, double t,
			 struct perr *err);   /* pending -> submitted, attempts += 1 */
int store_mark_running(struct store *st, long long id, double t, struct perr *err);
/* Done: replaces any measurements of earlier attempts with ml, atomically. */
int store_mark_done(struct store *st, long long id, double t, int exit_status, double wall,
		    const struct measurement_list *ml, const char *collect_error, struct perr *err);
/* Done with a collection's result (collector_set.h): its measurements, its
   error as collect_error and the collectors that matched nothing, atomically. */
int store_mark_collected(struct store *st, long long id, double t, int exit_status, double wall,
			 const struct collect_result *cr, struct perr *err);
/*
 * Re-collection of a done run: in one transaction, move its measurements
 * into old (appended), store cr's in their place with its collect_error and
 * misses, bump seq and record a "re-collected" event.  0; 1 when the run is
 * not done (nothing changed); -1 (err).
 */
int store_recollect(struct store *st, long long id, const struct collect_result *cr,
		    struct measurement_list *old, struct perr *err);
/* Per collector, the done runs where it matched nothing at their last collection. */
struct store_miss {
	char *collector;        /* "regex REGION/METRIC", "cubex" */
	long long runs;
};
int store_collect_misses(struct store *st, struct store_miss **m, int *n, struct perr *err);
void store_misses_free(struct store_miss *m, int n);
/* An attempt ended in failure: back to pending when retry is set (attempts
   left), else failed for good. */
int store_mark_failed(struct store *st, long long id, double t, int exit_status, double wall,
		      const char *reason, int retry, struct perr *err);
/*
 * Cancel a live run.  *was (may be NULL) gets the state it was cancelled
 * from and *backend_id (may be NULL; caller frees) its job or process, both
 * read in the same transaction, so the caller kills exactly what was in
 * flight when the mark was made.
 */
int store_cancel_run(struct store *st, long long id, double t, const char *reason, int *was,
		     char **backend_id, struct perr *err);
int store_mark_cancelled(struct store *st, long long id, double t, const char *reason,
			 struct perr *err);
/* In flight back to pending without a verdict on the attempt (its
   orchestrator died or was interrupted): it runs again. */
int store_mark_pending(struct store *st, long long id, const char *reason, struct perr *err);
/* An explicit retry (perfsweep retry, top's r key): a failed run back to pending. */
int store_retry_run(struct store *st, long long id, const char *reason, struct perr *err);

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
/*
 * The same with flags: STORE_INCLUDE_RETIRED adds the retired runs that were
 * done.  Either way a repetition measured again (store_append_runs) counts
 * once, with its latest done measurement.
 */
#define STORE_INCLUDE_RETIRED 1
int store_load_experiment_with(struct store *st, const char *metric, int flags, struct experiment *e,
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
/* store_load_experiment_with, also recording each value's run in *runs (free runs->v). */
int store_load_experiment_runs(struct store *st, const char *metric, int flags, struct experiment *e,
			       struct exp_runs *runs, struct perr *err);
/* Whether some measurement has this metric (1 also when the store cannot
   say: the caller then reads it and meets the error): one scan of the
   measurements, no join. */
int store_has_metric(struct store *st, const char *metric);
/*
 * The same, leaving out the values of the runs in leave_out[0..nleave)
 * (ids in increasing order: the disturbed runs an analysis leaves out).
 * Their points stay in the experiment (a point whose every run is left out
 * has no values), and point[i] (may be NULL) gets leave_out[i]'s point, or
 * -1 when the run has no measurement read.
 */
struct store_leave_out {
	const long long *runs;
	int n;
	int *point;
};
int store_load_experiment_leaving_out(struct store *st, const char *metric, int flags,
				      const struct store_leave_out *lo, struct experiment *e,
				      struct exp_runs *runs, struct perr *err);
/* Raw measurements of one run. */
int store_load_measurements(struct store *st, long long id, struct measurement_list *ml,
			    struct perr *err);

/*
 * One run's data as store_each_run_data hands it out, borrowed for the
 * call: the run, its measurements in stored order, its bindings and its
 * resource records by rank (none where the store has none).
 */
struct store_run_data {
	const struct run *run;
	const struct measurement_list *ml;
	const struct run_binding *bindings;
	int nbindings;
	const struct run_resource *resources;
	int nresources;
};
/*
 * Every done run (with STORE_INCLUDE_RETIRED also the retired runs that
 * were done; every re-measurement, not only the latest), by id, with its
 * data, in one pass over the store: four queries ordered by run id read
 * side by side (a merge join), never a query per run.  fn returns 0 to go
 * on; anything else stops the walk, which returns it.  0, or -1 (err).
 */
int store_each_run_data(struct store *st, int flags, int (*fn)(void *ctx, const struct store_run_data *d),
			void *ctx, struct perr *err);
/* Did any done run record its ranks' bindings (*bound), what it used (*recorded)? */
int store_runs_recorded(struct store *st, int *bound, int *recorded, struct perr *err);

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
 * What a run used, per rank (perfsweep-bind's rank records) and for the
 * whole run (rank -1: the local backend's end note, CPU times summed over
 * the ranks, maxrss the largest rank's).  Replaces the run's earlier
 * records, also for failed runs.  Stores made before this table get it
 * when opened for writing; read-only, they simply have none.
 */
struct run_resource {
	int rank;                       /* -1: the whole run */
	double utime, stime, wall;      /* seconds; NaN when unknown */
	double cpu_share;               /* (utime + stime) / wall; NaN when unknown */
	double allowed_share;           /* the share the rank's binding allows (bind_allowed_shares); NaN unknown */
	long long maxrss_kb, nvcsw, nivcsw;     /* -1 when unknown */
	double load_start, load_end;    /* 1-minute load average; NaN when unknown */
	/* what other programs took (the local backend's census, placement/census.h); NaN unknown */
	double run_delay;               /* seconds its threads waited for a CPU */
	double foreign;                 /* CPU seconds foreign tasks used on its cores */
	double steal;                   /* seconds of steal time on its cores */
	double pressure;                /* seconds the kernel's CPU pressure counted (the whole machine) */
	double quiet_wait;              /* whole run: seconds the quiet gate waited before it */
};
/*
 * A foreign process's CPU time on one core of a rank (rank -1: of the run),
 * from the census: who disturbed it.
 */
struct run_cause {
	int rank;
	long pid;
	char comm[32];
	int core;                       /* the OS's CPU number */
	double seconds;
};
/* Replace run id's causes (also none).  Stores made before causes take none. */
int store_put_causes(struct store *st, long long id, const struct run_cause *c, int n, struct perr *err);
/*
 * The causes of the runs an analysis reads (flags as for
 * store_load_analysed_resources), by run, rank, then seconds (largest
 * first); of one run with id > 0.  Free *out with free().
 */
struct run_cause_row {
	long long run;
	struct run_cause c;
};
int store_load_causes(struct store *st, long long id, int flags, struct run_cause_row **out, int *n,
		      struct perr *err);
int store_put_resources(struct store *st, long long id, const struct run_resource *r, int n,
			struct perr *err);
/* A run's resource records by rank (the whole run first); free with free(). */
int store_load_resources(struct store *st, long long id, struct run_resource **r, int *n,
			 struct perr *err);
/*
 * The resource records of the runs an analysis reads (flags as for
 * store_load_experiment_with: done runs, of a repetition measured again
 * the latest), by run id then rank, with each run's point, repetition and
 * ranks.  Free *out with free().
 */
struct run_usage_row {
	long long run;
	int point, repetition, ranks;
	struct run_resource r;
};
int store_load_analysed_resources(struct store *st, int flags, struct run_usage_row **out, int *n,
				  struct perr *err);

/*
 * Growing a campaign.
 *
 * store_append_runs appends n runs as pending, in one transaction (all or
 * none), and returns their ids in ids[] (n entries, may be NULL).  Each run
 * names its point by values (one per store parameter, in store_param_name
 * order) and ranks_per_node; a point the store lacks is added with the
 * placement given.  An existing point's placement (nodes, policy, and map
 * and cores_per_rank where the store recorded them) must be the one given,
 * else nothing is written and err names the difference: a run's placement
 * is part of what it means.
 *   repetition = 0   the point's next free repetition (1 + its highest):
 *                    one more repetition, for adaptive repetitions;
 *   repetition = k   repetition k; when the point has it already, a new
 *                    attempt of it: a new run with remeasure = 1 + the
 *                    highest so far.  The earlier runs are kept unchanged
 *                    (their measurements too); analysis
 *                    (store_load_experiment) counts the repetition once,
 *                    with its latest done measurement.
 * origin is stored with the run (NULL means the plan).  A run whose origin
 * is not the plan survives store_grow while its point stays in the plan;
 * plan runs beyond the plan's repetitions are retired.  core_hours is the
 * run's planned cost; ranks 0 takes the "ranks" parameter's value, else
 * nodes x ranks_per_node, else 1.
 */
struct store_new_run {
	const double *values;
	int nodes, ranks_per_node;              /* 0 when unset */
	const char *policy, *map, *cores_per_rank;  /* NULL when unset */
	int ranks;
	double core_hours;
	int repetition;
	const char *origin;                     /* "refine", ...; NULL: the plan */
	const char *reason;                     /* why a new point is in the campaign (or NULL) */
};
int store_append_runs(struct store *st, const struct store_new_run *nr, int n, long long *ids,
		      struct perr *err);
/* Point point's map and cores_per_rank as stored (each NULL when unset or
   not recorded; caller frees): what a run added to it, or to a point
   derived from it, must launch with. */
int store_point_launch(struct store *st, int point, char **map, char **cores_per_rank, struct perr *err);

/*
 * The difference between the campaign's runs and plan pl.  A run is kept
 * while its point (parameter values and ranks per node) is in pl and its
 * repetition within the point's repetitions, or it was appended by another
 * origin (refine) at a point inside the range pl covers; otherwise it is
 * retired.  Under the plan the campaign stored (resuming) no run is retired
 * or un-retired.  Missing repetitions of pl's points are added.  Refused
 * (-1, err names the key, suggests a new directory) when pl's parameters
 * differ from the store's or an existing point's placement changed.  Only
 * reads.
 */
struct store_diff {
	long long added, kept, kept_done, retired, unretired;  /* runs; retired counts all retired */
	long long retiring;                     /* of retired: still in the plan until now */
	double added_core_hours;                /* planned cost of the added runs */
	int added_points;                       /* points new to the store */
	int retired_points;                     /* points outside pl whose runs are all retired */
	int kept_outside_points;                /* points outside pl whose runs stay (added by refine) */
	long long kept_outside;                 /* of kept: the runs at those points */
};
int store_plan_diff(struct store *st, const struct plan *pl, struct store_diff *d, struct perr *err);
/*
 * Apply that difference in one transaction: add the new points and runs
 * (pending, in pl's run order, after every existing run), retire the runs
 * that left the plan (never deleted, measurements kept), un-retire the ones
 * back in it (to the state they had), and record pl's fingerprint, order,
 * budget and config_text as the campaign's.  d (may be NULL) gets the
 * difference applied.  A kill -9 leaves the old or the grown campaign.
 */
int store_grow(struct store *st, const struct plan *pl, const char *config_text, struct store_diff *d,
	       struct perr *err);
/*
 * A run retired while in flight (retired_from submitted or running: an
 * orchestrator died, then the plan changed) keeps its job or process until
 * the run engine stops it through its backend; then this records it as
 * retired from pending (un-retired, it runs afresh).
 */
int store_settle_retired(struct store *st, long long id, struct perr *err);

/*
 * The ranks per node each done run really had: the most ranks its stored
 * bindings put on one node (real), or -1 when no binding names a node; and
 * the planned value.  In run id order; free *out with free().  flags as for
 * store_load_experiment_with (STORE_INCLUDE_RETIRED).
 */
struct run_rpn {
	long long run;
	int point;
	int planned, real;
};
int store_load_run_rpn(struct store *st, int flags, struct run_rpn **out, int *n, struct perr *err);
/* The entry of run id in rr (as store_load_run_rpn returns it), or NULL. */
const struct run_rpn *run_rpn_find(const struct run_rpn *rr, int n, long long run);
/* The ranks per node a run had: real when known, else planned. */
static inline int run_rpn_effective(const struct run_rpn *r)
{
	return r->real > 0 ? r->real : r->planned;
}

#endif
