/*
 * The campaign store: per-run rows beside the measurements: bindings,
 * resource use with its census, and the causes (foreign processes).
 */
#include "campaign/store_priv.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Replace run id's rows of a table in one transaction: delete_sql removes
 * them, insert_sql (n times, bind filling its parameters for row i) adds
 * the new ones; what names them in an error.  0, or -1 (err).
 */
static int replace_run_rows(struct store *st, long long id, const char *delete_sql, const char *insert_sql, int n,
			    void (*bind)(sqlite3_stmt *ins, long long id, int i, const void *rows), const void *rows,
			    const char *what, struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	sqlite3_stmt *del = sdb_prepare(st, delete_sql, err);
	sqlite3_stmt *ins = sdb_prepare(st, insert_sql, err);
	int ok = del && ins;
	if (ok) {
		sqlite3_bind_int64(del, 1, id);
		ok = sqlite3_step(del) == SQLITE_DONE;
	}
	for (int i = 0; ok && i < n; i++) {
		bind(ins, id, i, rows);
		ok = sqlite3_step(ins) == SQLITE_DONE;
		sqlite3_reset(ins);
	}
	if (!ok && del && ins)
		sdb_err(st, err, what);
	sdb_finish(st, del);
	sdb_finish(st, ins);
	if (!ok) {
		sdb_rollback(st);
		return -1;
	}
	return sdb_commit(st, err);
}

static void bind_binding(sqlite3_stmt *ins, long long id, int i, const void *rows)
{
	const struct run_binding *b = (const struct run_binding *)rows + i;
	sqlite3_bind_int64(ins, 1, id);
	sqlite3_bind_int(ins, 2, b->rank);
	const char *txt[3] = { b->node, b->cpuset, b->cores };
	for (int k = 0; k < 3; k++)
		if (txt[k])
			sqlite3_bind_text(ins, 3 + k, txt[k], -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 3 + k);
}

int store_put_bindings(struct store *st, long long id, const struct run_binding *b, int n,
		       struct perr *err)
{
	return replace_run_rows(st, id, "DELETE FROM bindings WHERE run = ?",
				"INSERT OR REPLACE INTO bindings(run, rank, node, cpuset, cores) VALUES(?,?,?,?,?)",
				n, bind_binding, b, "write bindings", err);
}

int store_load_bindings(struct store *st, long long id, struct run_binding **out, int *n,
			struct perr *err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = NULL;
	/* a store from before the bindings table, opened read-only, has none */
	if (sqlite3_prepare_v2(st->db, "SELECT rank, node, cpuset, cores FROM bindings WHERE run = ?"
			       " ORDER BY rank", -1, &s, NULL) != SQLITE_OK) {
		sdb_finish(st, s);
		return strstr(sqlite3_errmsg(st->db), "no such table") ? 0 : sdb_err(st, err, "read bindings");
	}
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_binding *b = &(*out)[(*n)++];
		b->rank = sqlite3_column_int(s, 0);
		b->node = sdb_col_str(s, 1);
		b->cpuset = sdb_col_str(s, 2);
		b->cores = sdb_col_str(s, 3);
	}
	sdb_finish(st, s);
	return 0;
}

void run_bindings_free(struct run_binding *b, int n)
{
	for (int i = 0; i < n; i++) {
		free(b[i].node);
		free(b[i].cpuset);
		free(b[i].cores);
	}
	free(b);
}

/* Bind x, or NULL when it is not finite (unknown). */
static void bind_real(sqlite3_stmt *s, int i, double x)
{
	if (isfinite(x))
		sqlite3_bind_double(s, i, x);
	else
		sqlite3_bind_null(s, i);
}

static void bind_count(sqlite3_stmt *s, int i, long long x)
{
	if (x >= 0)
		sqlite3_bind_int64(s, i, x);
	else
		sqlite3_bind_null(s, i);
}

/* One resources row; the census columns where the statement has them (a store made after them). */
static void bind_resource(sqlite3_stmt *ins, long long id, int i, const void *rows)
{
	const struct run_resource *x = (const struct run_resource *)rows + i;
	sqlite3_bind_int64(ins, 1, id);
	sqlite3_bind_int(ins, 2, x->rank);
	const double reals[5] = { x->utime, x->stime, x->wall, x->cpu_share, x->allowed_share };
	for (int k = 0; k < 5; k++)
		bind_real(ins, 3 + k, reals[k]);
	bind_count(ins, 8, x->maxrss_kb);
	bind_count(ins, 9, x->nvcsw);
	bind_count(ins, 10, x->nivcsw);
	bind_real(ins, 11, x->load_start);
	bind_real(ins, 12, x->load_end);
	const double census[5] = { x->run_delay, x->foreign, x->steal, x->pressure, x->quiet_wait };
	for (int k = 0; k < 5 && 13 + k <= sqlite3_bind_parameter_count(ins); k++)
		bind_real(ins, 13 + k, census[k]);
}

int store_put_resources(struct store *st, long long id, const struct run_resource *r, int n,
			struct perr *err)
{
	return replace_run_rows(st, id, "DELETE FROM resources WHERE run = ?", st->census_columns
		? "INSERT OR REPLACE INTO resources(run, rank, utime, stime, wall, cpu_share, allowed_share,"
		  " maxrss_kb, nvcsw, nivcsw, load_start, load_end, run_delay, foreign_cpu, steal, pressure, quiet_wait)"
		  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
		: "INSERT OR REPLACE INTO resources(run, rank, utime, stime, wall, cpu_share, allowed_share,"
		  " maxrss_kb, nvcsw, nivcsw, load_start, load_end) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
		n, bind_resource, r, "write resources", err);
}

static void bind_cause(sqlite3_stmt *ins, long long id, int i, const void *rows)
{
	const struct run_cause *c = (const struct run_cause *)rows + i;
	sqlite3_bind_int64(ins, 1, id);
	sqlite3_bind_int(ins, 2, c->rank);
	sqlite3_bind_int64(ins, 3, c->pid);
	sqlite3_bind_text(ins, 4, c->comm, -1, SQLITE_STATIC);
	sqlite3_bind_int(ins, 5, c->core);
	sqlite3_bind_double(ins, 6, c->seconds);
}

int store_put_causes(struct store *st, long long id, const struct run_cause *c, int n, struct perr *err)
{
	if (!st->census_columns)
		return 0;
	return replace_run_rows(st, id, "DELETE FROM causes WHERE run = ?",
				"INSERT INTO causes(run, rank, pid, comm, core, seconds) VALUES(?,?,?,?,?,?)", n,
				bind_cause, c, "write causes", err);
}

#define RESOURCE_CENSUS "s.run_delay, s.foreign_cpu, s.steal, s.pressure, s.quiet_wait"
#define RESOURCE_NO_CENSUS "NULL, NULL, NULL, NULL, NULL"

/* The census columns of a resources query, or NULLs in a store made before them. */
const char *sdb_census_columns(const struct store *st)
{
	return st->census_columns ? RESOURCE_CENSUS : RESOURCE_NO_CENSUS;
}

static double col_real(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static long long col_count(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, i);
}

/* One record from RESOURCE_COLUMNS starting at column i. */
void sdb_read_resource(sqlite3_stmt *s, int i, struct run_resource *x)
{
	x->rank = sqlite3_column_int(s, i);
	x->utime = col_real(s, i + 1);
	x->stime = col_real(s, i + 2);
	x->wall = col_real(s, i + 3);
	x->cpu_share = col_real(s, i + 4);
	x->allowed_share = col_real(s, i + 5);
	x->maxrss_kb = col_count(s, i + 6);
	x->nvcsw = col_count(s, i + 7);
	x->nivcsw = col_count(s, i + 8);
	x->load_start = col_real(s, i + 9);
	x->load_end = col_real(s, i + 10);
	x->run_delay = col_real(s, i + 11);
	x->foreign = col_real(s, i + 12);
	x->steal = col_real(s, i + 13);
	x->pressure = col_real(s, i + 14);
	x->quiet_wait = col_real(s, i + 15);
}

/* Prepare sql on the resources table; NULL with *absent set when a store
   from before it was opened read-only (it has none), NULL with err otherwise. */
static sqlite3_stmt *resources_query(struct store *st, const char *sql, int *absent, struct perr *err)
{
	sqlite3_stmt *s = NULL;
	*absent = 0;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK)
		return s;
	sdb_finish(st, s);
	if (strstr(sqlite3_errmsg(st->db), "no such table"))
		*absent = 1;
	else
		sdb_err(st, err, "read resources");
	return NULL;
}

int store_load_resources(struct store *st, long long id, struct run_resource **out, int *n,
			 struct perr *err)
{
	*out = NULL;
	*n = 0;
	int absent;
	char *sql = xasprintf("SELECT " RESOURCE_COLUMNS "%s FROM resources s WHERE s.run = ? ORDER BY s.rank",
			      sdb_census_columns(st));
	sqlite3_stmt *s = resources_query(st, sql, &absent, err);
	free(sql);
	if (!s)
		return absent ? 0 : -1;
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		sdb_read_resource(s, 0, &(*out)[(*n)++]);
	}
	sdb_finish(st, s);
	return 0;
}

int store_load_analysed_resources(struct store *st, int flags, struct run_usage_row **out, int *n,
				  struct perr *err)
{
	*out = NULL;
	*n = 0;
	char *sql = xasprintf("SELECT r.id, r.point, r.repetition, r.ranks, " RESOURCE_COLUMNS
			      "%s FROM runs r JOIN resources s ON s.run = r.id WHERE %s%s ORDER BY r.id, s.rank",
			      sdb_census_columns(st), analysed_runs(st, flags), latest_measurement(st));
	int absent;
	sqlite3_stmt *s = resources_query(st, sql, &absent, err);
	free(sql);
	if (!s)
		return absent ? 0 : -1;
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_usage_row *u = &(*out)[(*n)++];
		u->run = sqlite3_column_int64(s, 0);
		u->point = sqlite3_column_int(s, 1);
		u->repetition = sqlite3_column_int(s, 2);
		u->ranks = sqlite3_column_int(s, 3);
		sdb_read_resource(s, 4, &u->r);
	}
	sdb_finish(st, s);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return sdb_err(st, err, "read resources");
	}
	return 0;
}

int store_load_causes(struct store *st, long long id, int flags, struct run_cause_row **out, int *n,
		      struct perr *err)
{
	*out = NULL;
	*n = 0;
	if (!st->census_columns)
		return 0;
	char *sql = id > 0 ? xasprintf("SELECT c.run, c.rank, c.pid, c.comm, c.core, c.seconds FROM causes c"
				       " WHERE c.run = %lld ORDER BY c.rank, c.seconds DESC", id)
			   : xasprintf("SELECT c.run, c.rank, c.pid, c.comm, c.core, c.seconds FROM runs r"
				       " JOIN causes c ON c.run = r.id WHERE %s%s ORDER BY r.id, c.rank, c.seconds DESC",
				       analysed_runs(st, flags), latest_measurement(st));
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	size_t alloc = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_cause_row *x = &(*out)[(*n)++];
		x->run = sqlite3_column_int64(s, 0);
		x->c.rank = sqlite3_column_int(s, 1);
		x->c.pid = (long)sqlite3_column_int64(s, 2);
		const unsigned char *comm = sqlite3_column_text(s, 3);
		snprintf(x->c.comm, sizeof(x->c.comm), "%s", comm ? (const char *)comm : "");
		x->c.core = sqlite3_column_int(s, 4);
		x->c.seconds = sqlite3_column_double(s, 5);
		rc = SQLITE_OK;
	}
	sdb_finish(st, s);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return sdb_err(st, err, "read causes");
	}
	return 0;
}
