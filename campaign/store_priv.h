/*
 * Inside the campaign store: shared by store.c (schema, statements, open,
 * create), store_plan.c (writing the plan), store_runs.c (runs and their
 * transitions), store_analysis.c (what analysis reads), store_resources.c
 * (bindings, resources, causes), store_grow.c (appending runs, growing
 * a campaign's plan) and store_task.c (reads on a thread of their own).
 * Nothing outside those files includes it.
 */
#ifndef PS_STORE_PRIV_H
#define PS_STORE_PRIV_H
#include "campaign/store.h"
#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *dir;
	int readonly;
	int nparams;
	char **param_names;
	char **param_roles;
	/* point values, loaded once: npoints x nparams */
	int npoints;
	double *point_values;
	int *point_cores;           /* per point: its cores_per_rank N, -1 "all", 0 unset (one core) */
	int cores_vary;             /* some point's ranks hold more than one core each */
	/* runs has the columns added for growing campaigns (remeasure, origin,
	   retired_from); a read-only store made before them has not */
	int grown_columns;
	int census_columns;     /* resources has run_delay .. quiet_wait, and the causes table exists */
	char *id;                   /* meta store_id, NULL: a read-only store made before store ids */
	struct cached_stmt *stmts;  /* sdb_prepare's statements, kept by their SQL */
	int nstmts;
	int batch;                  /* inside store_batch_begin: writes are savepoints */
};

/*
 * One state change: update the run's columns given in `set` (an SQL
 * fragment with ?1.. bound by the caller through bind), bump its seq and
 * record an event.  Runs inside the caller's transaction.
 */
struct change {
	const char *set;            /* e.g. "state = 1, attempts = attempts + 1" */
	const char *text[4];        /* bound to ?2.. ?5 as text (NULL binds NULL) */
	double num[4];              /* bound to ?6.. ?9 */
	long long ival[2];          /* bound to ?10, ?11 */
};

int sdb_err(struct store *st, struct perr *err, const char *what);
int sdb_exec(struct store *st, const char *sql, struct perr *err);
/* BEGIN IMMEDIATE .. COMMIT, or ROLLBACK; inside a batch a savepoint of
   the batch's transaction, released or rolled back to on its own */
int sdb_begin(struct store *st, struct perr *err);
int sdb_commit(struct store *st, struct perr *err);
void sdb_rollback(struct store *st);
/* A prepared statement for sql: kept for the life of the store and handed
   out again once sdb_finish() gave it back (parsing SQL cost more than
   running it: a third of the orchestrator's CPU per run); one in use is
   prepared afresh for a nested user. */
sqlite3_stmt *sdb_prepare(struct store *st, const char *sql, struct perr *err);
/* Give back (reset) or finalize s, any statement of st's; NULL is no-op. */
void sdb_finish(struct store *st, sqlite3_stmt *s);
/* Finalize every kept statement (before the connection closes). */
void sdb_forget_statements(struct store *st);
char *sdb_col_str(sqlite3_stmt *s, int i);
/* a NULL value removes key */
int sdb_put_meta(struct store *st, const char *key, const char *value, struct perr *err);
int sdb_put_plan_meta(struct store *st, const struct plan *pl, struct perr *err);
int sdb_put_budget_meta(struct store *st, const struct plan *pl, struct perr *err);
/* The plan's fingerprint (version 2 covers placement; 1 is accepted on resume). */
char *sdb_plan_fingerprint(const struct plan *pl, int version);
/* pl is the plan the campaign stored (by fingerprint): resuming changes no run. */
int sdb_same_plan(struct store *st, const struct plan *pl);
/* The rank count of a plan point. */
int sdb_point_ranks(const struct plan *pl, const struct plan_point *pt);
/* Apply event act to run id inside the caller's transaction, as the
   run-state machine allows (run_state.h): 0, 1 when it refuses (err says
   why, nothing changed), -1 (err). */
int sdb_apply_change(struct store *st, long long id, enum run_action act, const char *detail,
		     const struct change *c, struct perr *err);
/* Insert one point (id, placement, repetitions, cost, reason) and its
   values, in the store's parameter order. */
int sdb_insert_point(struct store *st, int id, const struct plan_point *pt, const double *values,
		     int nvalues, struct perr *err);
/* Reload the parameters and point values after points were added. */
int sdb_load_params(struct store *st, struct perr *err);
/* A reader's check of the whole file (PRAGMA quick_check): 0, or -1 with
   err saying the store is corrupt or cannot be read. */
int sdb_check_whole(struct store *st, struct perr *err);

/* Shared between the files of the split store (store.c's own comments say more): */
/* store.c: a statement without results through the kept statements, id bound to its ? */
int run_kept_bound(struct store *st, const char *sql, long long id, struct perr *err);
/* store_plan.c: the plan's parameters, points and runs (store_create) */
int insert_plan(struct store *st, const struct plan *pl, struct perr *err);
/* store_analysis.c: the runs an analysis reads, an SQL condition on runs r
   (store_resources.c reads their resources and causes too) */
const char *analysed_runs(const struct store *st, int flags);
/* store_analysis.c: only a repetition's latest done measurement, on runs r */
const char *latest_measurement(const struct store *st);
/* store_runs.c: a run's columns (then GROWN_COLUMNS, or GROWN_DEFAULTS in a
   store made before them), read by sdb_read_run */
#define RUN_COLUMNS "id, point, repetition, nodes, ranks, ranks_per_node, policy, state, attempts," \
	" backend_id, submitted_at, started_at, ended_at, exit_status, wall, reason, collect_error," \
	" core_hours, seq, "
#define GROWN_COLUMNS "remeasure, origin, retired_from"
#define GROWN_DEFAULTS "0, NULL, NULL"
void sdb_read_run(struct store *st, sqlite3_stmt *s, struct run *r);
/* store_resources.c: a resource record's columns on resources s (then
   sdb_census_columns), read by sdb_read_resource from column i on */
#define RESOURCE_COLUMNS "s.rank, s.utime, s.stime, s.wall, s.cpu_share, s.allowed_share, s.maxrss_kb," \
	" s.nvcsw, s.nivcsw, s.load_start, s.load_end, "
const char *sdb_census_columns(const struct store *st);
void sdb_read_resource(sqlite3_stmt *s, int i, struct run_resource *x);

#endif
