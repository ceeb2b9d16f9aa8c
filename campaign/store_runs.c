/*
 * The campaign store: runs read back (one, all, those changed since a seq,
 * the problem ones, their events) and every state change written through
 * the run-state machine (submitted .. collected, cancelled, retried).
 */
#include "common/clock.h"
#include "campaign/store_priv.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

char *sdb_col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

void sdb_read_run(struct store *st, sqlite3_stmt *s, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	r->point = sqlite3_column_int(s, 1);
	r->repetition = sqlite3_column_int(s, 2);
	r->nodes = sqlite3_column_int(s, 3);
	r->ranks = sqlite3_column_int(s, 4);
	r->ranks_per_node = sqlite3_column_int(s, 5);
	r->policy = sdb_col_str(s, 6);
	r->state = (enum run_state)sqlite3_column_int(s, 7);
	r->attempts = sqlite3_column_int(s, 8);
	r->backend_id = sdb_col_str(s, 9);
	r->submitted_at = sqlite3_column_double(s, 10);
	r->started_at = sqlite3_column_double(s, 11);
	r->ended_at = sqlite3_column_double(s, 12);
	r->exit_status = sqlite3_column_type(s, 13) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 13);
	r->wall = sqlite3_column_type(s, 14) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 14);
	r->reason = sdb_col_str(s, 15);
	r->collect_error = sdb_col_str(s, 16);
	r->core_hours = sqlite3_column_double(s, 17);
	r->seq = sqlite3_column_int64(s, 18);
	r->remeasure = sqlite3_column_int(s, 19);
	r->origin = sdb_col_str(s, 20);
	r->retired_from = sqlite3_column_type(s, 21) == SQLITE_NULL ? RUN_PENDING
			  : (enum run_state)sqlite3_column_int(s, 21);
	r->cores_per_rank = r->point >= 0 && r->point < st->npoints ? st->point_cores[r->point] : 0;
	r->values = xcalloc((size_t)(st->nparams ? st->nparams : 1), sizeof(double));
	if (r->point >= 0 && r->point < st->npoints)
		memcpy(r->values, &st->point_values[(size_t)r->point * st->nparams],
		       sizeof(double) * (size_t)st->nparams);
}

/* The runs a SELECT of RUN_COLUMNS and the grown columns returns (fmt has
   one %s for the grown columns and binds ?1 to arg, ?2 to arg2 where it has
   one), by id. */
static int load_runs_sql(struct store *st, const char *fmt, long long arg, long long arg2,
			 struct run **runs, int *n, struct perr *err)
{
	*runs = NULL;
	*n = 0;
	char *sql = xasprintf(fmt, st->grown_columns ? GROWN_COLUMNS : GROWN_DEFAULTS);
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	free(sql);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, arg);
	if (sqlite3_bind_parameter_count(s) > 1)
		sqlite3_bind_int64(s, 2, arg2);
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*runs, (size_t)*n + 1, alloc);
		sdb_read_run(st, s, &(*runs)[(*n)++]);
	}
	sdb_finish(st, s);
	if (rc != SQLITE_DONE) {
		runs_free(*runs, *n);
		*runs = NULL;
		*n = 0;
		return sdb_err(st, err, "read runs");
	}
	return 0;
}

int store_load_runs(struct store *st, long long since_seq, struct run **runs, int *n,
		    struct perr *err)
{
	/* an incremental read (since_seq > 0) must use the seq index: without
	   statistics SQLite would scan every run in id order (tens of ms at 100k) */
	return load_runs_sql(st, since_seq > 0
			     ? "SELECT " RUN_COLUMNS "%s FROM runs INDEXED BY runs_seq WHERE seq > ?1 ORDER BY id"
			     : "SELECT " RUN_COLUMNS "%s FROM runs WHERE seq > ?1 ORDER BY id",
			     since_seq, 0, runs, n, err);
}

int store_load_runs_after(struct store *st, long long after_id, int limit, struct run **runs, int *n,
			  struct perr *err)
{
	return load_runs_sql(st, "SELECT " RUN_COLUMNS "%s FROM runs WHERE id > ?1 ORDER BY id LIMIT ?2",
			     after_id, limit > 0 ? limit : 1, runs, n, err);
}

/* The one integer a query of the runs answers, 0 when it cannot. */
static long long runs_scalar(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v = 0;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sdb_finish(st, s);
	return v;
}

long long store_nruns(struct store *st)
{
	return runs_scalar(st, "SELECT COUNT(*) FROM runs");
}

int store_load_problem_runs(struct store *st, struct run **runs, int *n, struct perr *err)
{
	return load_runs_sql(st, "SELECT " RUN_COLUMNS "%s FROM runs WHERE state = ?1"
			     " OR collect_error IS NOT NULL ORDER BY id", RUN_FAILED, 0, runs, n, err);
}

int store_pass(struct store *st, int *pass, int *passes, long long *collect_errors, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "SELECT COALESCE(MAX(repetition), 0),"
				      " COALESCE(MIN(CASE WHEN state IN (?1, ?2, ?3) THEN repetition END), 0),"
				      " COUNT(collect_error) FROM runs", err);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, RUN_PENDING);
	sqlite3_bind_int(s, 2, RUN_SUBMITTED);
	sqlite3_bind_int(s, 3, RUN_RUNNING);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*passes = sqlite3_column_int(s, 0);
		*pass = sqlite3_column_int(s, 1);
		*collect_errors = sqlite3_column_int64(s, 2);
	}
	sdb_finish(st, s);
	return rc == SQLITE_ROW ? 0 : sdb_err(st, err, "read the repetition pass");
}

int store_load_run(struct store *st, long long id, struct run *r, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, st->grown_columns ? "SELECT " RUN_COLUMNS GROWN_COLUMNS " FROM runs WHERE id = ?"
				      : "SELECT " RUN_COLUMNS GROWN_DEFAULTS " FROM runs WHERE id = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int found = sqlite3_step(s) == SQLITE_ROW;
	if (found)
		sdb_read_run(st, s, r);
	sdb_finish(st, s);
	return found ? 0 : perr_set(err, "%s: no run %lld", st->dir, id);
}

void run_release(struct run *r)
{
	free(r->values);
	free(r->policy);
	free(r->backend_id);
	free(r->reason);
	free(r->collect_error);
	free(r->origin);
	memset(r, 0, sizeof(*r));
}

int run_cores(const struct run *r)
{
	return (r->ranks > 1 ? r->ranks : 1) * (r->cores_per_rank > 1 ? r->cores_per_rank : 1);
}

const char *run_cores_per_rank(const struct run *r, char *buf)
{
	if (!r->cores_per_rank)
		return NULL;
	snprintf(buf, RUN_CORES_TEXT, r->cores_per_rank < 0 ? "all" : "%d", r->cores_per_rank);
	return buf;
}

double run_spent_core_hours(const struct run *r)
{
	return (r->wall > 0 ? r->wall : 0) * run_cores(r) / 3600.0;
}

double run_planned_seconds(const struct run *r)
{
	return r->core_hours > 0 ? r->core_hours * 3600.0 / run_cores(r) : 0;
}

void runs_free(struct run *runs, int n)
{
	for (int i = 0; i < n; i++)
		run_release(&runs[i]);
	free(runs);
}

long long store_last_seq(struct store *st)
{
	return runs_scalar(st, "SELECT COALESCE(MAX(seq), 0) FROM runs");
}

int store_run_events(struct store *st, long long id, struct run_event **act, int *n, struct perr *err)
{
	*act = NULL;
	*n = 0;
	sqlite3_stmt *s = sdb_prepare(st, "SELECT t, state, detail FROM run_events WHERE run = ? ORDER BY rowid", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*act, (size_t)*n + 1, alloc);
		struct run_event *e = &(*act)[(*n)++];
		e->t = sqlite3_column_double(s, 0);
		e->state = (enum run_state)sqlite3_column_int(s, 1);
		e->detail = sdb_col_str(s, 2);
	}
	sdb_finish(st, s);
	return 0;
}

void run_events_free(struct run_event *act, int n)
{
	for (int i = 0; i < n; i++)
		free(act[i].detail);
	free(act);
}


/* Where act takes run id (inside the caller's transaction): its new state,
   or 1 with err saying why the machine refuses it, or -1 (err).  *was gets
   the state it is in, *backend_id (may be NULL) its job or process. */
static int run_guard(struct store *st, long long id, enum run_action act, int *to, int *was,
		     char **backend_id, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "SELECT state, retired_from, backend_id FROM runs WHERE id = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sdb_finish(st, s);
		return perr_set(err, "%s: no run %lld", st->dir, id);
	}
	enum run_state from = (enum run_state)sqlite3_column_int(s, 0);
	enum run_state retired_from = sqlite3_column_type(s, 1) == SQLITE_NULL
		? RUN_PENDING : (enum run_state)sqlite3_column_int(s, 1);   /* as store_load_run reads it */
	if (was)
		*was = (int)from;
	if (backend_id)
		*backend_id = sdb_col_str(s, 2);
	sdb_finish(st, s);
	*to = run_transition(from, act, retired_from);
	if (*to < 0) {
		perr_set(err, "run %lld is %s: cannot %s it", id, run_state_name(from), run_action_name(act));
		return 1;
	}
	return 0;
}

/* The UPDATE of one transition, to state to, with its event record. */
static int apply_to(struct store *st, long long id, int to, const char *detail, const struct change *c,
		    struct perr *err)
{
	char *sql = xasprintf("UPDATE runs SET %s, state = %d,"
			      " seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs) WHERE id = ?1",
			      c->set, to);
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	free(sql);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	for (int i = 0; i < 4; i++) {
		if (c->text[i])
			sqlite3_bind_text(s, 2 + i, c->text[i], -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(s, 2 + i);
		sqlite3_bind_double(s, 6 + i, c->num[i]);
	}
	sqlite3_bind_int64(s, 10, c->ival[0]);
	sqlite3_bind_int64(s, 11, c->ival[1]);
	int rc = sqlite3_step(s);
	sdb_finish(st, s);
	if (rc != SQLITE_DONE)
		return sdb_err(st, err, "update run");
	if (sqlite3_changes(st->db) != 1)
		return perr_set(err, "%s: no run %lld", st->dir, id);
	s = sdb_prepare(st, "INSERT INTO run_events(run, t, state, detail) VALUES(?,?,?,?)", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_double(s, 2, wall_now());
	sqlite3_bind_int(s, 3, to);
	if (detail)
		sqlite3_bind_text(s, 4, detail, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 4);
	rc = sqlite3_step(s);
	sdb_finish(st, s);
	return rc == SQLITE_DONE ? 0 : sdb_err(st, err, "record event");
}

int sdb_apply_change(struct store *st, long long id, enum run_action act, const char *detail,
		     const struct change *c, struct perr *err)
{
	int to;
	int rc = run_guard(st, id, act, &to, NULL, NULL, err);
	return rc ? rc : apply_to(st, id, to, detail, c, err);
}

/* One transition in a transaction of its own: 0, 1 refused (err), -1 (err). */
static int change(struct store *st, long long id, enum run_action act, const char *detail,
		  const struct change *c, struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	int rc = sdb_apply_change(st, id, act, detail, c, err);
	if (rc) {
		sdb_rollback(st);
		return rc;
	}
	return sdb_commit(st, err);
}

int store_mark_submitted(struct store *st, long long id, const char *backend_id, double t,
			 struct perr *err)
{
	struct change c = { .set = "attempts = attempts + 1, backend_id = ?2, submitted_at = ?6,"
				   " started_at = NULL, ended_at = NULL, reason = NULL",
			    .text = { backend_id }, .num = { t } };
	return change(st, id, RUN_ACT_SUBMIT, backend_id, &c, err);
}

int store_mark_running(struct store *st, long long id, double t, struct perr *err)
{
	struct change c = { .set = "started_at = ?6", .num = { t } };
	return change(st, id, RUN_ACT_START, NULL, &c, err);
}

/* Replace run id's measurements and collector misses (inside the caller's
   transaction): earlier attempts' values are never counted twice. */
static int replace_collected(struct store *st, long long id, const struct measurement_list *ml,
			     char *const *missed, int nmissed, struct perr *err)
{
	int ret = -1;
	sqlite3_stmt *ins = NULL, *miss = NULL;
	/* kept statements with the run bound: a DELETE parsed for every run
	   was a twentieth of the orchestrator's CPU per run */
	if (run_kept_bound(st, "DELETE FROM measurements WHERE run = ?", id, err) ||
	    run_kept_bound(st, "DELETE FROM collect_misses WHERE run = ?", id, err))
		goto out;
	ins = sdb_prepare(st, "INSERT INTO measurements(run, rank, region, metric, value) VALUES(?,?,?,?,?)", err);
	miss = sdb_prepare(st, "INSERT OR IGNORE INTO collect_misses(run, collector) VALUES(?,?)", err);
	if (!ins || !miss)
		goto out;
	for (int i = 0; ml && i < ml->n; i++) {
		const struct measurement *m = &ml->m[i];
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int(ins, 2, m->rank);
		sqlite3_bind_text(ins, 3, m->region, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, m->metric, -1, SQLITE_STATIC);
		sqlite3_bind_double(ins, 5, m->value);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			sdb_err(st, err, "write measurements");
			goto out;
		}
		sqlite3_reset(ins);
	}
	for (int i = 0; i < nmissed; i++) {
		sqlite3_bind_int64(miss, 1, id);
		sqlite3_bind_text(miss, 2, missed[i], -1, SQLITE_STATIC);
		if (sqlite3_step(miss) != SQLITE_DONE) {
			sdb_err(st, err, "write collector misses");
			goto out;
		}
		sqlite3_reset(miss);
	}
	ret = 0;
out:
	sdb_finish(st, ins);
	sdb_finish(st, miss);
	return ret;
}

static int mark_done(struct store *st, long long id, double t, int exit_status, double wall,
		     const struct measurement_list *ml, const char *collect_error, char *const *missed,
		     int nmissed, struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	struct change c = { .set = "ended_at = ?6, wall = ?7, exit_status = ?10, collect_error = ?2,"
				   " reason = NULL, started_at = COALESCE(started_at, submitted_at)",
			    .text = { collect_error }, .num = { t, wall }, .ival = { exit_status } };
	int rc = sdb_apply_change(st, id, RUN_ACT_DONE, collect_error, &c, err);
	if (!rc)
		rc = replace_collected(st, id, ml, missed, nmissed, err);
	if (rc) {
		sdb_rollback(st);
		return rc;
	}
	return sdb_commit(st, err);
}

int store_mark_done(struct store *st, long long id, double t, int exit_status, double wall,
		    const struct measurement_list *ml, const char *collect_error, struct perr *err)
{
	return mark_done(st, id, t, exit_status, wall, ml, collect_error, NULL, 0, err);
}

int store_mark_collected(struct store *st, long long id, double t, int exit_status, double wall,
			 const struct collect_result *cr, struct perr *err)
{
	return mark_done(st, id, t, exit_status, wall, &cr->ml, cr->error, cr->missed, cr->nmissed, err);
}

/* The state of run id, or -1 (err). */
static int run_state_of(struct store *st, long long id, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "SELECT state FROM runs WHERE id = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int state = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	sdb_finish(st, s);
	return state < 0 ? perr_set(err, "%s: no run %lld", st->dir, id) : state;
}

int store_recollect(struct store *st, long long id, const struct collect_result *cr,
		    struct measurement_list *old, struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	int state = run_state_of(st, id, err);
	if (state != RUN_DONE) {
		sdb_rollback(st);
		return state < 0 ? -1 : 1;
	}
	char *detail = xasprintf("re-collected%s%s", cr->error ? ": " : "", cr->error ? cr->error : "");
	struct change c = { .set = "collect_error = ?2", .text = { cr->error } };
	int rc = store_load_measurements(st, id, old, err) ||
		 replace_collected(st, id, &cr->ml, cr->missed, cr->nmissed, err) ||
		 sdb_apply_change(st, id, RUN_ACT_RECOLLECT, detail, &c, err);
	free(detail);
	if (rc) {
		sdb_rollback(st);
		return -1;
	}
	return sdb_commit(st, err);
}

int store_collect_misses(struct store *st, struct store_miss **out, int *n, struct perr *err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = NULL;
	/* a store made before the table and opened read-only has none */
	if (sqlite3_prepare_v2(st->db, "SELECT m.collector, COUNT(*) FROM collect_misses m"
			       " JOIN runs r ON r.id = m.run WHERE r.state = ?"
			       " GROUP BY m.collector ORDER BY m.collector", -1, &s, NULL) != SQLITE_OK) {
		sdb_finish(st, s);
		return st->readonly ? 0 : sdb_err(st, err, "read collector misses");
	}
	sqlite3_bind_int(s, 1, RUN_DONE);
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		(*out)[*n].collector = sdb_col_str(s, 0);
		(*out)[(*n)++].runs = sqlite3_column_int64(s, 1);
	}
	sdb_finish(st, s);
	if (rc != SQLITE_DONE) {
		store_misses_free(*out, *n);
		*out = NULL;
		*n = 0;
		return sdb_err(st, err, "read collector misses");
	}
	return 0;
}

void store_misses_free(struct store_miss *m, int n)
{
	for (int i = 0; i < n; i++)
		free(m[i].collector);
	free(m);
}

int store_mark_failed(struct store *st, long long id, double t, int exit_status, double wall,
		      const char *reason, int retry, struct perr *err)
{
	struct change c = { .set = "ended_at = ?6, wall = ?7, exit_status = ?10, reason = ?2",
			    .text = { reason }, .num = { t, wall }, .ival = { exit_status } };
	return change(st, id, retry ? RUN_ACT_REQUEUE : RUN_ACT_FAIL, reason, &c, err);
}

int store_cancel_run(struct store *st, long long id, double t, const char *reason, int *was,
		     char **backend_id, struct perr *err)
{
	struct change c = { .set = "ended_at = ?6, reason = ?2", .text = { reason }, .num = { t } };
	int to;
	if (backend_id)
		*backend_id = NULL;
	if (sdb_begin(st, err))
		return -1;
	int rc = run_guard(st, id, RUN_ACT_CANCEL, &to, was, backend_id, err);
	if (!rc)
		rc = apply_to(st, id, to, reason, &c, err);
	if (!rc)
		rc = sdb_commit(st, err);
	else
		sdb_rollback(st);
	if (rc && backend_id) {
		free(*backend_id);
		*backend_id = NULL;
	}
	return rc;
}

int store_mark_cancelled(struct store *st, long long id, double t, const char *reason,
			 struct perr *err)
{
	return store_cancel_run(st, id, t, reason, NULL, NULL, err);
}

int store_mark_pending(struct store *st, long long id, const char *reason, struct perr *err)
{
	struct change c = { .set = "reason = ?2", .text = { reason } };
	return change(st, id, RUN_ACT_REQUEUE, reason, &c, err);
}

int store_retry_run(struct store *st, long long id, const char *reason, struct perr *err)
{
	struct change c = { .set = "reason = ?2", .text = { reason } };
	return change(st, id, RUN_ACT_REOPEN, reason, &c, err);
}

void run_pass_add(const struct run *r, int *pass, int *passes)
{
	if (r->repetition > *passes)
		*passes = r->repetition;
	if (run_is_live(r->state) &&
	    (!*pass || r->repetition < *pass))
		*pass = r->repetition;
}
