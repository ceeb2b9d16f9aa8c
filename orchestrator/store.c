/*
 * The campaign store: SQLite in WAL mode.  Every write is one transaction
 * (BEGIN IMMEDIATE .. COMMIT), so readers see either the old or the new
 * state and a kill -9 loses nothing that was committed.  Each change to a
 * run bumps its `seq` above every other, which gives readers such as the
 * TUI an incremental "what changed since" query.
 */
#include "common/clock.h"
#include "orchestrator/store.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
};

static const char *state_names[RUN_NSTATES] = {
	"pending", "submitted", "running", "done", "failed", "cancelled",
};

const char *run_state_name(enum run_state s)
{
	return (s >= 0 && s < RUN_NSTATES) ? state_names[s] : "unknown";
}

int run_state_parse(const char *name)
{
	for (int i = 0; i < RUN_NSTATES; i++)
		if (!strcmp(state_names[i], name))
			return i;
	return -1;
}

/* Added after schema version 1: created on open by writers (migration). */
#define BINDINGS_TABLE "CREATE TABLE IF NOT EXISTS bindings(run INTEGER NOT NULL, rank INTEGER NOT NULL," \
	" node TEXT, cpuset TEXT, cores TEXT, PRIMARY KEY(run, rank));"

static const char *schema =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS params(idx INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" role TEXT, is_int INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS points(id INTEGER PRIMARY KEY, nodes INTEGER, ranks_per_node INTEGER,"
	" policy TEXT, repetitions INTEGER, core_hours REAL, reason TEXT);"
	"CREATE TABLE IF NOT EXISTS point_values(point INTEGER NOT NULL, param INTEGER NOT NULL,"
	" value REAL NOT NULL, PRIMARY KEY(point, param));"
	"CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, point INTEGER NOT NULL,"
	" repetition INTEGER NOT NULL, nodes INTEGER, ranks INTEGER, ranks_per_node INTEGER,"
	" policy TEXT, state INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, backend_id TEXT,"
	" submitted_at REAL, started_at REAL, ended_at REAL, exit_status INTEGER, wall REAL,"
	" reason TEXT, collect_error TEXT, core_hours REAL, seq INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS runs_seq ON runs(seq);"
	"CREATE INDEX IF NOT EXISTS runs_state ON runs(state);"
	"CREATE TABLE IF NOT EXISTS run_events(run INTEGER NOT NULL, t REAL, state INTEGER,"
	" detail TEXT);"
	"CREATE INDEX IF NOT EXISTS run_events_run ON run_events(run);"
	"CREATE TABLE IF NOT EXISTS measurements(run INTEGER NOT NULL, rank INTEGER NOT NULL,"
	" region TEXT NOT NULL, metric TEXT NOT NULL, value REAL NOT NULL);"
	"CREATE INDEX IF NOT EXISTS measurements_run ON measurements(run);"
	BINDINGS_TABLE;

static int db_err(struct store *st, struct perr *err, const char *what)
{
	return perr_set(err, "%s/campaign.db: %s: %s", st->dir, what, sqlite3_errmsg(st->db));
}

static int exec(struct store *st, const char *sql, struct perr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		perr_set(err, "%s/campaign.db: %s", st->dir, msg ? msg : "sqlite error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int begin(struct store *st, struct perr *err)
{
	return exec(st, "BEGIN IMMEDIATE", err);
}

static int commit(struct store *st, struct perr *err)
{
	return exec(st, "COMMIT", err);
}

static void rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static sqlite3_stmt *prepare(struct store *st, const char *sql, struct perr *err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		db_err(st, err, "prepare");
		return NULL;
	}
	return s;
}


const char *store_dir(const struct store *st)
{
	return st->dir;
}

char *store_run_dir(const struct store *st, long long id)
{
	char *d = xasprintf("%s/runs/%lld", st->dir, id);
	fs_mkdir_p(d);
	return d;
}

static int load_params(struct store *st, struct perr *err)
{
	sqlite3_stmt *s = prepare(st, "SELECT name, role FROM params ORDER BY idx", err);
	if (!s)
		return -1;
	size_t alloc = 0, ralloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(st->param_names, (size_t)st->nparams + 1, alloc);
		XGROW(st->param_roles, (size_t)st->nparams + 1, ralloc);
		const unsigned char *role = sqlite3_column_text(s, 1);
		st->param_names[st->nparams] = xstrdup((const char *)sqlite3_column_text(s, 0));
		st->param_roles[st->nparams] = role ? xstrdup((const char *)role) : NULL;
		st->nparams++;
	}
	sqlite3_finalize(s);

	s = prepare(st, "SELECT COALESCE(MAX(id), -1) + 1 FROM points", err);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		st->npoints = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	st->point_values = xcalloc((size_t)st->npoints * (size_t)(st->nparams ? st->nparams : 1),
				   sizeof(double));
	s = prepare(st, "SELECT point, param, value FROM point_values", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int p = sqlite3_column_int(s, 0), k = sqlite3_column_int(s, 1);
		if (p >= 0 && p < st->npoints && k >= 0 && k < st->nparams)
			st->point_values[(size_t)p * st->nparams + k] = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
	return 0;
}

static int set_wal(struct store *st, struct perr *err)
{
	if (st->readonly)
		return 0;
	return exec(st, "PRAGMA journal_mode=WAL", err) || exec(st, "PRAGMA synchronous=NORMAL", err)
		       ? -1 : 0;
}

static int open_db(struct store **out, const char *dir, int flags, int create, struct perr *err)
{
	struct store *st = xcalloc(1, sizeof(*st));
	st->dir = xstrdup(dir);
	size_t len = strlen(st->dir);
	while (len > 1 && st->dir[len - 1] == '/')
		st->dir[--len] = '\0';
	st->readonly = flags & STORE_READONLY;
	char *path = xasprintf("%s/campaign.db", st->dir);
	int oflags = st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (create)
		oflags |= SQLITE_OPEN_CREATE;
	if (!create && access(path, F_OK)) {
		perr_set(err, "'%s' is not a campaign directory (no campaign.db)", dir);
		free(path);
		free(st->dir);
		free(st);
		return -1;
	}
	int rc = sqlite3_open_v2(path, &st->db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	free(path);
	if (rc != SQLITE_OK) {
		perr_set(err, "%s/campaign.db: cannot open: %s", st->dir,
			 st->db ? sqlite3_errmsg(st->db) : "out of memory");
		store_close(st);
		return -1;
	}
	/* writers wait for each other; readers never block in WAL mode */
	sqlite3_busy_timeout(st->db, 10000);
	/* an existing file is changed only once it is known to be a store */
	if (create && set_wal(st, err)) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

static int check_schema(struct store *st, struct perr *err)
{
	char *v = store_get_meta(st, "schema_version");
	if (!v)
		return perr_set(err, "%s/campaign.db: not a perfsweep campaign store", st->dir);
	int ver = atoi(v);
	free(v);
	if (ver != STORE_SCHEMA_VERSION)
		return perr_set(err, "%s/campaign.db: schema version %d, this perfsweep reads %d",
				st->dir, ver, STORE_SCHEMA_VERSION);
	return 0;
}

int store_open(struct store **out, const char *dir, int flags, struct perr *err)
{
	struct store *st;
	if (open_db(&st, dir, flags, 0, err))
		return -1;
	/* migration: tables added since schema version 1 */
	if (check_schema(st, err) || set_wal(st, err) || load_params(st, err) ||
	    (!(flags & STORE_READONLY) && exec(st, BINDINGS_TABLE, err))) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	for (int k = 0; k < st->nparams; k++) {
		free(st->param_names[k]);
		free(st->param_roles[k]);
	}
	free(st->param_names);
	free(st->param_roles);
	free(st->point_values);
	free(st->dir);
	free(st);
}

char *store_get_meta(struct store *st, const char *key)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	char *v = NULL;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		v = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

static int put_meta(struct store *st, const char *key, const char *value, struct perr *err)
{
	sqlite3_stmt *s = prepare(st, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", err);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, err, "write meta");
}

int store_set_meta(struct store *st, const char *key, const char *value, struct perr *err)
{
	if (begin(st, err))
		return -1;
	if (put_meta(st, key, value, err)) {
		rollback(st);
		return -1;
	}
	return commit(st, err);
}

/*
 * A fingerprint of the plan, so a resumed campaign runs the plan it stored.
 * Since version 2 it covers each point's placement contract (policy, map,
 * cores per rank); version 1 (stores made before) did not, and is still
 * accepted on resume.
 */
static char *plan_fingerprint(const struct plan *pl, int version)
{
	uint64_t h = 1469598103934665603ULL;
#define MIX(ptr, n) do { const unsigned char *b_ = (const void *)(ptr); \
	for (size_t i_ = 0; i_ < (n); i_++) h = (h ^ b_[i_]) * 1099511628211ULL; } while (0)
	for (int k = 0; k < pl->nparams; k++)
		MIX(pl->params[k].name, strlen(pl->params[k].name) + 1);
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		MIX(pt->values, sizeof(double) * (size_t)pl->nparams);
		MIX(&pt->nodes, sizeof(int));
		MIX(&pt->ranks_per_node, sizeof(int));
		MIX(&pt->repetitions, sizeof(int));
		if (version >= 2 && (pt->policy || pt->map || pt->cores_per_rank)) {
			const char *parts[3] = { pt->policy, pt->map, pt->cores_per_rank };
			for (int j = 0; j < 3; j++)
				MIX(parts[j] ? parts[j] : "", strlen(parts[j] ? parts[j] : "") + 1);
		}
	}
#undef MIX
	return xasprintf("%016llx:%d", (unsigned long long)h, pl->npoints);
}

static int point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	if (pt->nodes > 0 && pt->ranks_per_node > 0)
		return pt->nodes * pt->ranks_per_node;
	return 1;
}

/* The runs, in the plan's order: run ids (and so execution) follow it. */
static int insert_runs(struct store *st, const struct plan *pl, sqlite3_stmt *sr, struct perr *err)
{
	struct plan_run *order;
	long long n;
	plan_run_order(pl, &order, &n);
	for (long long k = 0; k < n; k++) {
		const struct plan_point *pt = &pl->points[order[k].point];
		double per_run = pt->repetitions > 0 ? pt->core_hours / pt->repetitions : 0;
		sqlite3_bind_int(sr, 1, order[k].point);
		sqlite3_bind_int(sr, 2, order[k].repetition);
		sqlite3_bind_int(sr, 3, pt->nodes);
		sqlite3_bind_int(sr, 4, point_ranks(pl, pt));
		sqlite3_bind_int(sr, 5, pt->ranks_per_node);
		if (pt->policy)
			sqlite3_bind_text(sr, 6, pt->policy, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(sr, 6);
		sqlite3_bind_double(sr, 7, per_run);
		sqlite3_bind_int64(sr, 8, k + 1);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			free(order);
			return db_err(st, err, "write runs");
		}
		sqlite3_reset(sr);
	}
	free(order);
	return 0;
}

/* The budget and its charge rule as meta keys (none: removed). */
static int put_budget_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char budget[64], overrun[64];
	snprintf(budget, sizeof(budget), "%.17g", pl->budget_core_hours);
	snprintf(overrun, sizeof(overrun), "%.17g", pl->budget_overrun);
	if (pl->budget_core_hours <= 0)
		return exec(st, "DELETE FROM meta WHERE key IN ('budget_core_hours', 'budget_charge',"
			    " 'budget_overrun')", err);
	return put_meta(st, "budget_core_hours", budget, err) ||
	       put_meta(st, "budget_charge", pl->charge == CHARGE_NODE ? "node" : "core", err) ||
	       put_meta(st, "budget_overrun", overrun, err) ? -1 : 0;
}

/* The run order, its seed and the budget, as meta keys. */
static int put_plan_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char seed[32];
	snprintf(seed, sizeof(seed), "%lu", pl->order_seed);
	if (put_meta(st, "order", plan_order_name(pl->order), err) || put_meta(st, "order_seed", seed, err))
		return -1;
	return put_budget_meta(st, pl, err);
}

static int insert_params(struct store *st, const struct plan *pl, struct perr *err)
{
	sqlite3_stmt *sp = prepare(st, "INSERT INTO params(idx, name, role, is_int) VALUES(?,?,?,?)", err);
	if (!sp)
		return -1;
	for (int k = 0; k < pl->nparams; k++) {
		sqlite3_bind_int(sp, 1, k);
		sqlite3_bind_text(sp, 2, pl->params[k].name, -1, SQLITE_STATIC);
		if (pl->params[k].role)
			sqlite3_bind_text(sp, 3, pl->params[k].role, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(sp, 3);
		sqlite3_bind_int(sp, 4, pl->params[k].is_int);
		if (sqlite3_step(sp) != SQLITE_DONE) {
			sqlite3_finalize(sp);
			return db_err(st, err, "write parameters");
		}
		sqlite3_reset(sp);
	}
	sqlite3_finalize(sp);
	return 0;
}

static int insert_plan(struct store *st, const struct plan *pl, struct perr *err)
{
	if (insert_params(st, pl, err))
		return -1;
	sqlite3_stmt *spt = prepare(st, "INSERT INTO points(id, nodes, ranks_per_node, policy,"
				    " repetitions, core_hours, reason) VALUES(?,?,?,?,?,?,?)", err);
	sqlite3_stmt *spv = prepare(st, "INSERT INTO point_values(point, param, value) VALUES(?,?,?)", err);
	sqlite3_stmt *sr = prepare(st, "INSERT INTO runs(point, repetition, nodes, ranks, ranks_per_node,"
				   " policy, state, core_hours, seq, exit_status, wall)"
				   " VALUES(?,?,?,?,?,?,0,?,?,-1,-1)", err);
	int ret = -1;
	if (!spt || !spv || !sr)
		goto done;
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		sqlite3_bind_int(spt, 1, i);
		sqlite3_bind_int(spt, 2, pt->nodes);
		sqlite3_bind_int(spt, 3, pt->ranks_per_node);
		if (pt->policy)
			sqlite3_bind_text(spt, 4, pt->policy, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(spt, 4);
		sqlite3_bind_int(spt, 5, pt->repetitions);
		sqlite3_bind_double(spt, 6, pt->core_hours);
		sqlite3_bind_text(spt, 7, pt->reason ? pt->reason : "", -1, SQLITE_STATIC);
		if (sqlite3_step(spt) != SQLITE_DONE) {
			db_err(st, err, "write plan");
			goto done;
		}
		sqlite3_reset(spt);
		for (int k = 0; k < pl->nparams; k++) {
			sqlite3_bind_int(spv, 1, i);
			sqlite3_bind_int(spv, 2, k);
			sqlite3_bind_double(spv, 3, pt->values[k]);
			if (sqlite3_step(spv) != SQLITE_DONE) {
				db_err(st, err, "write plan");
				goto done;
			}
			sqlite3_reset(spv);
		}
	}
	if (insert_runs(st, pl, sr, err))
		goto done;
	ret = 0;
done:
	sqlite3_finalize(spt);
	sqlite3_finalize(spv);
	sqlite3_finalize(sr);
	return ret;
}

static void remove_db(const char *dir)
{
	static const char *suffix[] = { "", "-wal", "-shm", "-journal" };
	for (int i = 0; i < 4; i++) {
		char *p = xasprintf("%s/campaign.db%s", dir, suffix[i]);
		unlink(p);
		free(p);
	}
}

/* True when campaign.db has no table with anything in it: never committed. */
static int store_is_empty(const char *dir)
{
	char *path = xasprintf("%s/campaign.db", dir);
	sqlite3 *db = NULL;
	int empty = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_stmt *s = NULL;
		if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &s, NULL) == SQLITE_OK &&
		    sqlite3_step(s) == SQLITE_ROW)
			empty = sqlite3_column_int(s, 0) == 0;
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	free(path);
	return empty;
}

/*
 * Open the existing campaign in dir for the same campaign and plan: the run
 * order stays as stored, the budget follows the config.
 */
static int store_resume(struct store **out, const char *dir, const char *name, const struct plan *pl,
			struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, 0, err))
		return -1;
	char *old_name = store_get_meta(st, "name");
	char *old_fp = store_get_meta(st, "plan");
	char *fp = plan_fingerprint(pl, 2), *fp1 = plan_fingerprint(pl, 1);
	int same_name = old_name && !strcmp(old_name, name);
	int same_plan = old_fp && (!strcmp(old_fp, fp) || !strcmp(old_fp, fp1));
	free(old_name);
	free(old_fp);
	free(fp);
	free(fp1);
	if (!same_name || !same_plan) {
		perr_set(err, "'%s' holds %s; give another --dir for this campaign", dir,
			 same_name ? "the same campaign with a different plan" : "a different campaign");
		store_close(st);
		return -1;
	}
	if (begin(st, err) || put_budget_meta(st, pl, err) || commit(st, err)) {
		rollback(st);
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

int store_create(struct store **out, const char *dir, const char *name, const char *backend,
		 const char *config_text, const struct plan *pl, struct perr *err)
{
	if (fs_mkdir_p(dir))
		return perr_set(err, "cannot create campaign directory '%s': %s", dir, strerror(errno));
	char *runs = xasprintf("%s/runs", dir);
	int r = fs_mkdir_p(runs);
	free(runs);
	if (r)
		return perr_set(err, "cannot create '%s/runs': %s", dir, strerror(errno));

	char *dbpath = xasprintf("%s/campaign.db", dir);
	int exists = !access(dbpath, F_OK);
	free(dbpath);
	struct store *st;
	/* a store whose creating transaction never committed (killed right at
	   the start) holds nothing: create it afresh */
	if (exists && !store_open(&st, dir, 0, NULL)) {
		store_close(st);
	} else if (exists && store_is_empty(dir)) {
		remove_db(dir);
		exists = 0;
	}
	if (exists)
		return store_resume(out, dir, name, pl, err);
	char *fp = plan_fingerprint(pl, 2);

	if (open_db(&st, dir, 0, 1, err)) {
		free(fp);
		return -1;
	}
	char ver[16], created[32];
	snprintf(ver, sizeof(ver), "%d", STORE_SCHEMA_VERSION);
	snprintf(created, sizeof(created), "%.3f", wall_now());
	if (begin(st, err))
		goto fail;
	if (exec(st, schema, err) || put_meta(st, "schema_version", ver, err) ||
	    put_meta(st, "name", name, err) || put_meta(st, "backend", backend ? backend : "local", err) ||
	    put_meta(st, "config", config_text ? config_text : "", err) ||
	    put_meta(st, "created", created, err) || put_meta(st, "plan", fp, err) ||
	    put_plan_meta(st, pl, err) || insert_plan(st, pl, err)) {
		rollback(st);
		goto fail;
	}
	if (commit(st, err))
		goto fail;
	free(fp);
	if (load_params(st, err)) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
fail:
	free(fp);
	store_close(st);
	/* a store that never got its plan is not a campaign: leave nothing behind */
	remove_db(dir);
	return -1;
}

int store_nparams(const struct store *st)
{
	return st->nparams;
}

const char *store_param_name(const struct store *st, int k)
{
	return (k >= 0 && k < st->nparams) ? st->param_names[k] : NULL;
}

const char *store_param_role(const struct store *st, int k)
{
	return (k >= 0 && k < st->nparams) ? st->param_roles[k] : NULL;
}

int store_read_begin(struct store *st, struct perr *err)
{
	return exec(st, "BEGIN", err);
}

void store_read_end(struct store *st)
{
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

int store_counts(struct store *st, struct store_counts *c, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	sqlite3_stmt *s = prepare(st, "SELECT state, COUNT(*), SUM(core_hours) FROM runs GROUP BY state", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long n = sqlite3_column_int64(s, 1);
		double ch = sqlite3_column_double(s, 2);
		c->planned += n;
		c->core_hours_planned += ch;
		switch (sqlite3_column_int(s, 0)) {
		case RUN_PENDING: c->pending = n; break;
		case RUN_SUBMITTED: c->submitted = n; c->core_hours_inflight += ch; break;
		case RUN_RUNNING: c->running = n; c->core_hours_inflight += ch; break;
		case RUN_DONE: c->done = n; break;
		case RUN_FAILED: c->failed = n; break;
		case RUN_CANCELLED: c->cancelled = n; break;
		}
	}
	sqlite3_finalize(s);
	/* spent: measured wall x ranks of every finished attempt's last run */
	s = prepare(st, "SELECT COALESCE(SUM(wall * MAX(ranks, 1)), 0) / 3600.0 FROM runs"
		    " WHERE wall > 0", err);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		c->core_hours_spent = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	s = prepare(st, "SELECT COUNT(*) FROM measurements", err);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		c->measurements = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

#define RUN_COLUMNS "id, point, repetition, nodes, ranks, ranks_per_node, policy, state, attempts," \
	" backend_id, submitted_at, started_at, ended_at, exit_status, wall, reason, collect_error," \
	" core_hours, seq"

static char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static void read_run(struct store *st, sqlite3_stmt *s, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	r->point = sqlite3_column_int(s, 1);
	r->repetition = sqlite3_column_int(s, 2);
	r->nodes = sqlite3_column_int(s, 3);
	r->ranks = sqlite3_column_int(s, 4);
	r->ranks_per_node = sqlite3_column_int(s, 5);
	r->policy = col_str(s, 6);
	r->state = (enum run_state)sqlite3_column_int(s, 7);
	r->attempts = sqlite3_column_int(s, 8);
	r->backend_id = col_str(s, 9);
	r->submitted_at = sqlite3_column_double(s, 10);
	r->started_at = sqlite3_column_double(s, 11);
	r->ended_at = sqlite3_column_double(s, 12);
	r->exit_status = sqlite3_column_type(s, 13) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 13);
	r->wall = sqlite3_column_type(s, 14) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 14);
	r->reason = col_str(s, 15);
	r->collect_error = col_str(s, 16);
	r->core_hours = sqlite3_column_double(s, 17);
	r->seq = sqlite3_column_int64(s, 18);
	r->values = xcalloc((size_t)(st->nparams ? st->nparams : 1), sizeof(double));
	if (r->point >= 0 && r->point < st->npoints)
		memcpy(r->values, &st->point_values[(size_t)r->point * st->nparams],
		       sizeof(double) * (size_t)st->nparams);
}

int store_load_runs(struct store *st, long long since_seq, struct run **runs, int *n,
		    struct perr *err)
{
	*runs = NULL;
	*n = 0;
	/* an incremental read (since_seq > 0) must use the seq index: without
	   statistics SQLite would scan every run in id order (tens of ms at 100k) */
	sqlite3_stmt *s = prepare(st, since_seq > 0
				  ? "SELECT " RUN_COLUMNS " FROM runs INDEXED BY runs_seq WHERE seq > ? ORDER BY id"
				  : "SELECT " RUN_COLUMNS " FROM runs WHERE seq > ? ORDER BY id", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, since_seq);
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*runs, (size_t)*n + 1, alloc);
		read_run(st, s, &(*runs)[(*n)++]);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		runs_free(*runs, *n);
		*runs = NULL;
		*n = 0;
		return db_err(st, err, "read runs");
	}
	return 0;
}

int store_load_run(struct store *st, long long id, struct run *r, struct perr *err)
{
	sqlite3_stmt *s = prepare(st, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int found = sqlite3_step(s) == SQLITE_ROW;
	if (found)
		read_run(st, s, r);
	sqlite3_finalize(s);
	return found ? 0 : perr_set(err, "%s: no run %lld", st->dir, id);
}

void run_release(struct run *r)
{
	free(r->values);
	free(r->policy);
	free(r->backend_id);
	free(r->reason);
	free(r->collect_error);
	memset(r, 0, sizeof(*r));
}

void runs_free(struct run *runs, int n)
{
	for (int i = 0; i < n; i++)
		run_release(&runs[i]);
	free(runs);
}

long long store_last_seq(struct store *st)
{
	sqlite3_stmt *s = NULL;
	long long v = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT COALESCE(MAX(seq), 0) FROM runs", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int store_run_events(struct store *st, long long id, struct run_event **ev, int *n, struct perr *err)
{
	*ev = NULL;
	*n = 0;
	sqlite3_stmt *s = prepare(st, "SELECT t, state, detail FROM run_events WHERE run = ? ORDER BY rowid", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*ev, (size_t)*n + 1, alloc);
		struct run_event *e = &(*ev)[(*n)++];
		e->t = sqlite3_column_double(s, 0);
		e->state = (enum run_state)sqlite3_column_int(s, 1);
		e->detail = col_str(s, 2);
	}
	sqlite3_finalize(s);
	return 0;
}

void run_events_free(struct run_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		free(ev[i].detail);
	free(ev);
}

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

static int apply_change(struct store *st, long long id, enum run_state state, const char *detail,
			const struct change *c, struct perr *err)
{
	char *sql = xasprintf("UPDATE runs SET %s, state = %d,"
			      " seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs) WHERE id = ?1",
			      c->set, (int)state);
	sqlite3_stmt *s = prepare(st, sql, err);
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
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(st, err, "update run");
	if (sqlite3_changes(st->db) != 1)
		return perr_set(err, "%s: no run %lld", st->dir, id);
	s = prepare(st, "INSERT INTO run_events(run, t, state, detail) VALUES(?,?,?,?)", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_double(s, 2, wall_now());
	sqlite3_bind_int(s, 3, (int)state);
	if (detail)
		sqlite3_bind_text(s, 4, detail, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 4);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_err(st, err, "record event");
}

static int change(struct store *st, long long id, enum run_state state, const char *detail,
		  const struct change *c, struct perr *err)
{
	if (begin(st, err))
		return -1;
	if (apply_change(st, id, state, detail, c, err)) {
		rollback(st);
		return -1;
	}
	return commit(st, err);
}

int store_mark_submitted(struct store *st, long long id, const char *backend_id, double t,
			 struct perr *err)
{
	struct change c = { .set = "attempts = attempts + 1, backend_id = ?2, submitted_at = ?6,"
				   " started_at = NULL, ended_at = NULL, reason = NULL",
			    .text = { backend_id }, .num = { t } };
	return change(st, id, RUN_SUBMITTED, backend_id, &c, err);
}

int store_mark_running(struct store *st, long long id, double t, struct perr *err)
{
	struct change c = { .set = "started_at = ?6", .num = { t } };
	return change(st, id, RUN_RUNNING, NULL, &c, err);
}

int store_mark_done(struct store *st, long long id, double t, int exit_status, double wall,
		    const struct measurement_list *ml, const char *collect_error, struct perr *err)
{
	if (begin(st, err))
		return -1;
	sqlite3_stmt *del = prepare(st, "DELETE FROM measurements WHERE run = ?", err);
	sqlite3_stmt *ins = prepare(st, "INSERT INTO measurements(run, rank, region, metric, value)"
				    " VALUES(?,?,?,?,?)", err);
	if (!del || !ins)
		goto fail;
	/* measurements of an earlier, interrupted attempt are never counted twice */
	sqlite3_bind_int64(del, 1, id);
	if (sqlite3_step(del) != SQLITE_DONE) {
		db_err(st, err, "delete measurements");
		goto fail;
	}
	for (int i = 0; ml && i < ml->n; i++) {
		const struct measurement *m = &ml->m[i];
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int(ins, 2, m->rank);
		sqlite3_bind_text(ins, 3, m->region, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, m->metric, -1, SQLITE_STATIC);
		sqlite3_bind_double(ins, 5, m->value);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			db_err(st, err, "write measurements");
			goto fail;
		}
		sqlite3_reset(ins);
	}
	struct change c = { .set = "ended_at = ?6, wall = ?7, exit_status = ?10, collect_error = ?2,"
				   " reason = NULL, started_at = COALESCE(started_at, submitted_at)",
			    .text = { collect_error }, .num = { t, wall }, .ival = { exit_status } };
	if (apply_change(st, id, RUN_DONE, collect_error, &c, err))
		goto fail;
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return commit(st, err);
fail:
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	rollback(st);
	return -1;
}

int store_mark_failed(struct store *st, long long id, double t, int exit_status, double wall,
		      const char *reason, int retry, struct perr *err)
{
	struct change c = { .set = "ended_at = ?6, wall = ?7, exit_status = ?10, reason = ?2",
			    .text = { reason }, .num = { t, wall }, .ival = { exit_status } };
	return change(st, id, retry ? RUN_PENDING : RUN_FAILED, reason, &c, err);
}

int store_mark_cancelled(struct store *st, long long id, double t, const char *reason,
			 struct perr *err)
{
	struct change c = { .set = "ended_at = ?6, reason = ?2", .text = { reason }, .num = { t } };
	return change(st, id, RUN_CANCELLED, reason, &c, err);
}

int store_mark_pending(struct store *st, long long id, const char *reason, struct perr *err)
{
	struct change c = { .set = "reason = ?2", .text = { reason } };
	return change(st, id, RUN_PENDING, reason, &c, err);
}

int store_load_measurements(struct store *st, long long id, struct measurement_list *ml,
			    struct perr *err)
{
	sqlite3_stmt *s = prepare(st, "SELECT rank, region, metric, value FROM measurements"
				  " WHERE run = ? ORDER BY rowid", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW)
		measurement_list_add(ml, sqlite3_column_int(s, 0), (const char *)sqlite3_column_text(s, 1),
				     (const char *)sqlite3_column_text(s, 2), sqlite3_column_double(s, 3));
	sqlite3_finalize(s);
	return 0;
}

/* Flush one run's aggregated (region, metric) value into the experiment. */
static void flush_group(struct experiment *e, int point, const char *region, const char *metric,
			double agg_value, double sum, int nranks, long long run, struct exp_runs *runs)
{
	double v = !isnan(agg_value) ? agg_value : (nranks ? sum / nranks : NAN);
	if (isnan(v))
		return;
	int c = experiment_callpath(e, region), m = experiment_metric(e, metric);
	experiment_add(e, c, m, point, v);
	if (runs) {
		XGROW(runs->v, (size_t)runs->n + 1, runs->alloc);
		runs->v[runs->n++] = (struct exp_run){ c, m, point, run };
	}
}

int store_load_run_rpn(struct store *st, struct run_rpn **out, int *n, struct perr *err)
{
	static const char *const q =
		"SELECT r.id, r.point, r.ranks_per_node, x.real FROM runs r LEFT JOIN"
		" (SELECT run, MAX(c) AS real FROM (SELECT run, node, COUNT(*) AS c FROM bindings"
		"  WHERE node IS NOT NULL AND node != '' GROUP BY run, node) GROUP BY run) x ON x.run = r.id"
		" WHERE r.state = 3 ORDER BY r.id";
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s;
	int bound = 1;
	if (sqlite3_prepare_v2(st->db, q, -1, &s, NULL) != SQLITE_OK) {
		/* a store from before the bindings table, opened read-only: the plan's values */
		if (!strstr(sqlite3_errmsg(st->db), "no such table"))
			return db_err(st, err, "read runs");
		bound = 0;
		if (!(s = prepare(st, "SELECT id, point, ranks_per_node FROM runs WHERE state = 3 ORDER BY id", err)))
			return -1;
	}
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_rpn *r = &(*out)[(*n)++];
		r->run = sqlite3_column_int64(s, 0);
		r->point = sqlite3_column_int(s, 1);
		r->planned = sqlite3_column_int(s, 2);
		r->real = bound && sqlite3_column_type(s, 3) != SQLITE_NULL ? sqlite3_column_int(s, 3) : -1;
	}
	sqlite3_finalize(s);
	return 0;
}

static int cmp_run_rpn(const void *a, const void *b)
{
	long long x = ((const struct run_rpn *)a)->run, y = ((const struct run_rpn *)b)->run;
	return (x > y) - (x < y);
}

const struct run_rpn *run_rpn_find(const struct run_rpn *rr, int n, long long run)
{
	struct run_rpn key = { .run = run };
	return bsearch(&key, rr, (size_t)n, sizeof(*rr), cmp_run_rpn);
}

/* The first plan point with point p's values (placement axes repeat them). */
static int *same_values(const struct store *st)
{
	int *canon = xmalloc(sizeof(int) * (size_t)(st->npoints + 1));
	struct strmap m;
	strmap_init(&m);
	struct strbuf key;
	strbuf_init(&key);
	for (int p = 0; p < st->npoints; p++) {
		strbuf_reset(&key);
		for (int k = 0; k < st->nparams; k++)
			strbuf_addf(&key, "%.17g,", st->point_values[(size_t)p * st->nparams + k]);
		int q = strmap_get(&m, key.buf);
		if (q < 0)
			strmap_put(&m, key.buf, q = p);
		canon[p] = q;
	}
	strbuf_release(&key);
	strmap_release(&m);
	return canon;
}

/* Did runs with the same parameter values have different ranks per node? */
static int rpn_varies_at_same_values(const struct store *st, const struct run_rpn *r, int n)
{
	int *canon = same_values(st);
	int *first = xmalloc(sizeof(int) * (size_t)(st->npoints + 1));
	for (int p = 0; p < st->npoints; p++)
		first[p] = -1;
	int varies = 0;
	for (int i = 0; i < n && !varies; i++) {
		if (r[i].point < 0 || r[i].point >= st->npoints)
			continue;
		int v = run_rpn_effective(&r[i]), p = canon[r[i].point];
		if (first[p] < 0)
			first[p] = v;
		else
			varies = first[p] != v;
	}
	free(first);
	free(canon);
	return varies;
}

/* A run's coordinates: its plan point's values, ranks per node (index rpn_k) as really had. */
static void run_coords(const struct store *st, long long id, int point, const struct run_rpn *rr, int nrr,
		       int rpn_k, double *coords)
{
	for (int k = 0; k < st->nparams; k++)
		coords[k] = (point >= 0 && point < st->npoints) ? st->point_values[(size_t)point * st->nparams + k]
								 : 0;
	const struct run_rpn *r = run_rpn_find(rr, nrr, id);
	if (rpn_k >= 0 && r)
		coords[rpn_k] = run_rpn_effective(r);
}

int store_load_experiment(struct store *st, const char *metric, struct experiment *e,
			  struct perr *err)
{
	return store_load_experiment_runs(st, metric, e, NULL, err);
}

int store_load_experiment_runs(struct store *st, const char *metric, struct experiment *e,
			       struct exp_runs *runs, struct perr *err)
{
	struct run_rpn *rr;
	int nrr;
	if (store_load_run_rpn(st, &rr, &nrr, err) < 0)
		return -1;
	/* the ranks-per-node axis: a parameter with that role, else an added one when it varies */
	int rpn_k = -1;
	for (int k = 0; k < st->nparams; k++) {
		experiment_param(e, st->param_names[k]);
		if (st->param_roles[k] && !strcmp(st->param_roles[k], "ranks_per_node"))
			rpn_k = k;
	}
	if (rpn_k < 0 && rpn_varies_at_same_values(st, rr, nrr)) {
		if (experiment_find_param(e, "ranks_per_node") < 0)
			experiment_param(e, "ranks_per_node");
		rpn_k = e->nparams - 1;
	}
	sqlite3_stmt *s = prepare(st, "SELECT r.id, r.point, r.ranks_per_node, m.rank, m.region, m.metric, m.value"
		    " FROM runs r JOIN measurements m ON m.run = r.id"
		    " WHERE r.state = 3 AND (?1 IS NULL OR m.metric = ?1)"
		    " ORDER BY r.id, m.region, m.metric, m.rank", err);
	if (!s) {
		free(rr);
		return -1;
	}
	if (metric)
		sqlite3_bind_text(s, 1, metric, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 1);
	double *coords = xcalloc((size_t)e->nparams + 1, sizeof(double));
	long long cur_run = -1;
	int cur_point = -1;
	char *cur_region = NULL, *cur_metric = NULL;
	double agg = NAN, sum = 0;
	int nranks = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(s, 0);
		const char *region = (const char *)sqlite3_column_text(s, 4);
		const char *met = (const char *)sqlite3_column_text(s, 5);
		if (id != cur_run || strcmp(region, cur_region) || strcmp(met, cur_metric)) {
			if (cur_region)
				flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, runs);
			free(cur_region);
			free(cur_metric);
			cur_region = xstrdup(region);
			cur_metric = xstrdup(met);
			agg = NAN;
			sum = 0;
			nranks = 0;
			if (id != cur_run) {
				cur_run = id;
				run_coords(st, id, sqlite3_column_int(s, 1), rr, nrr, rpn_k, coords);
				cur_point = experiment_point(e, coords);
			}
		}
		double v = sqlite3_column_double(s, 6);
		if (sqlite3_column_int(s, 3) < 0)
			agg = v;
		else {
			sum += v;
			nranks++;
		}
	}
	if (cur_region)
		flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, runs);
	free(cur_region);
	free(cur_metric);
	free(coords);
	free(rr);
	sqlite3_finalize(s);
	return 0;
}

int store_put_bindings(struct store *st, long long id, const struct run_binding *b, int n,
		       struct perr *err)
{
	if (begin(st, err))
		return -1;
	sqlite3_stmt *del = prepare(st, "DELETE FROM bindings WHERE run = ?", err);
	sqlite3_stmt *ins = prepare(st, "INSERT OR REPLACE INTO bindings(run, rank, node, cpuset, cores)"
				    " VALUES(?,?,?,?,?)", err);
	int ok = del && ins;
	if (ok) {
		sqlite3_bind_int64(del, 1, id);
		ok = sqlite3_step(del) == SQLITE_DONE;
	}
	for (int i = 0; ok && i < n; i++) {
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int(ins, 2, b[i].rank);
		const char *txt[3] = { b[i].node, b[i].cpuset, b[i].cores };
		for (int k = 0; k < 3; k++)
			if (txt[k])
				sqlite3_bind_text(ins, 3 + k, txt[k], -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(ins, 3 + k);
		ok = sqlite3_step(ins) == SQLITE_DONE;
		sqlite3_reset(ins);
	}
	if (!ok && (del && ins))
		db_err(st, err, "write bindings");
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	if (!ok) {
		rollback(st);
		return -1;
	}
	return commit(st, err);
}

static char *col_dup(sqlite3_stmt *s, int c)
{
	const unsigned char *t = sqlite3_column_text(s, c);
	return t ? xstrdup((const char *)t) : NULL;
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
		sqlite3_finalize(s);
		return strstr(sqlite3_errmsg(st->db), "no such table") ? 0 : db_err(st, err, "read bindings");
	}
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_binding *b = &(*out)[(*n)++];
		b->rank = sqlite3_column_int(s, 0);
		b->node = col_dup(s, 1);
		b->cpuset = col_dup(s, 2);
		b->cores = col_dup(s, 3);
	}
	sqlite3_finalize(s);
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

void run_pass_add(const struct run *r, int *pass, int *passes)
{
	if (r->repetition > *passes)
		*passes = r->repetition;
	if ((r->state == RUN_PENDING || r->state == RUN_SUBMITTED || r->state == RUN_RUNNING) &&
	    (!*pass || r->repetition < *pass))
		*pass = r->repetition;
}
