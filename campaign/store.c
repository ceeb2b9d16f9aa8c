/*
 * The campaign store: SQLite in WAL mode.  Every write is one transaction
 * (BEGIN IMMEDIATE .. COMMIT), so readers see either the old or the new
 * state and a kill -9 loses nothing that was committed.  Each change to a
 * run bumps its `seq` above every other, which gives readers such as the
 * TUI an incremental "what changed since" query.
 */
#include "common/clock.h"
#include "campaign/store_priv.h"
#include "collectors/regex_collect.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Added after schema version 1: created on open by writers (migration). */
#define BINDINGS_TABLE "CREATE TABLE IF NOT EXISTS bindings(run INTEGER NOT NULL, rank INTEGER NOT NULL," \
	" node TEXT, cpuset TEXT, cores TEXT, PRIMARY KEY(run, rank));"

/* Added after schema version 1: what each rank (rank -1: the whole run) used. */
#define RESOURCES_TABLE "CREATE TABLE IF NOT EXISTS resources(run INTEGER NOT NULL, rank INTEGER NOT NULL," \
	" utime REAL, stime REAL, wall REAL, cpu_share REAL, allowed_share REAL, maxrss_kb INTEGER," \
	" nvcsw INTEGER, nivcsw INTEGER, load_start REAL, load_end REAL," CENSUS_COLUMNS_DEF " PRIMARY KEY(run, rank));"

/* Added to resources later (migrate_census): what a rank lost to other programs. */
#define CENSUS_COLUMNS_DEF " run_delay REAL, foreign_cpu REAL, steal REAL, pressure REAL, quiet_wait REAL,"
#define CENSUS_COLUMNS_ADD "ALTER TABLE resources ADD COLUMN run_delay REAL;" \
	"ALTER TABLE resources ADD COLUMN foreign_cpu REAL; ALTER TABLE resources ADD COLUMN steal REAL;" \
	"ALTER TABLE resources ADD COLUMN pressure REAL; ALTER TABLE resources ADD COLUMN quiet_wait REAL;"
/* Added with them: the foreign processes that had time on a rank's cores. */
#define CAUSES_TABLE "CREATE TABLE IF NOT EXISTS causes(run INTEGER NOT NULL, rank INTEGER NOT NULL," \
	" pid INTEGER NOT NULL, comm TEXT, core INTEGER NOT NULL, seconds REAL NOT NULL);" \
	"CREATE INDEX IF NOT EXISTS causes_run ON causes(run);"

/* Added for growing campaigns (store_grow.c): a run is its point, its
   repetition and its re-measurement, never two rows. */
#define RUNS_IDENTITY "CREATE UNIQUE INDEX IF NOT EXISTS runs_identity ON runs(point, repetition, remeasure);"

/* Added after schema version 1: the collectors that matched nothing in a
   run's last collection (names as collector_set.h gives them). */
#define MISSES_TABLE "CREATE TABLE IF NOT EXISTS collect_misses(run INTEGER NOT NULL," \
	" collector TEXT NOT NULL, PRIMARY KEY(run, collector));"

static const char *schema =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS params(idx INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" role TEXT, is_int INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS points(id INTEGER PRIMARY KEY, nodes INTEGER, ranks_per_node INTEGER,"
	" policy TEXT, repetitions INTEGER, core_hours REAL, reason TEXT, map TEXT, cores_per_rank TEXT);"
	"CREATE TABLE IF NOT EXISTS point_values(point INTEGER NOT NULL, param INTEGER NOT NULL,"
	" value REAL NOT NULL, PRIMARY KEY(point, param));"
	"CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, point INTEGER NOT NULL,"
	" repetition INTEGER NOT NULL, nodes INTEGER, ranks INTEGER, ranks_per_node INTEGER,"
	" policy TEXT, state INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, backend_id TEXT,"
	" submitted_at REAL, started_at REAL, ended_at REAL, exit_status INTEGER, wall REAL,"
	" reason TEXT, collect_error TEXT, core_hours REAL, seq INTEGER NOT NULL,"
	" remeasure INTEGER NOT NULL DEFAULT 0, origin TEXT, retired_from INTEGER);"
	"CREATE INDEX IF NOT EXISTS runs_seq ON runs(seq);"
	"CREATE INDEX IF NOT EXISTS runs_state ON runs(state);"
	"CREATE TABLE IF NOT EXISTS run_events(run INTEGER NOT NULL, t REAL, state INTEGER,"
	" detail TEXT);"
	"CREATE INDEX IF NOT EXISTS run_events_run ON run_events(run);"
	"CREATE TABLE IF NOT EXISTS measurements(run INTEGER NOT NULL, rank INTEGER NOT NULL,"
	" region TEXT NOT NULL, metric TEXT NOT NULL, value REAL NOT NULL);"
	"CREATE INDEX IF NOT EXISTS measurements_run ON measurements(run);"
	BINDINGS_TABLE RESOURCES_TABLE MISSES_TABLE RUNS_IDENTITY CAUSES_TABLE;

int sdb_err(struct store *st, struct perr *err, const char *what)
{
	return perr_set(err, "%s/campaign.db: %s: %s", st->dir, what, sqlite3_errmsg(st->db));
}

int sdb_exec(struct store *st, const char *sql, struct perr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		perr_set(err, "%s/campaign.db: %s", st->dir, msg ? msg : "sqlite error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

#define MAX_KEPT_STATEMENTS 64

struct cached_stmt {
	char *sql;
	sqlite3_stmt *s;
	int busy;
};

sqlite3_stmt *sdb_prepare(struct store *st, const char *sql, struct perr *err)
{
	int k;
	for (k = 0; k < st->nstmts && strcmp(st->stmts[k].sql, sql); k++)
		;
	if (k < st->nstmts && !st->stmts[k].busy) {
		st->stmts[k].busy = 1;
		return st->stmts[k].s;
	}
	int keep = k == st->nstmts && st->nstmts < MAX_KEPT_STATEMENTS;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v3(st->db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK) {
		sdb_err(st, err, "prepare");
		sqlite3_finalize(s);
		return NULL;
	}
	if (keep) {
		if (!st->stmts)
			st->stmts = xcalloc(MAX_KEPT_STATEMENTS, sizeof(*st->stmts));
		st->stmts[st->nstmts++] = (struct cached_stmt){ .sql = xstrdup(sql), .s = s, .busy = 1 };
	}
	return s;
}

void sdb_finish(struct store *st, sqlite3_stmt *s)
{
	if (!s)
		return;
	for (int k = 0; k < st->nstmts; k++)
		if (st->stmts[k].s == s) {
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			st->stmts[k].busy = 0;
			return;
		}
	sqlite3_finalize(s);
}

void sdb_forget_statements(struct store *st)
{
	for (int k = 0; k < st->nstmts; k++) {
		sqlite3_finalize(st->stmts[k].s);
		free(st->stmts[k].sql);
	}
	free(st->stmts);
	st->stmts = NULL;
	st->nstmts = 0;
}

/* A statement without results, through the kept statements; a statement
   with a ? (a run's id) gets id bound to it. */
static int run_kept_bound(struct store *st, const char *sql, long long id, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	if (!s)
		return -1;
	if (sqlite3_bind_parameter_count(s) > 0)
		sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : sdb_err(st, err, sql);
	sdb_finish(st, s);
	return rc;
}

static int run_kept(struct store *st, const char *sql, struct perr *err)
{
	return run_kept_bound(st, sql, 0, err);
}

int sdb_begin(struct store *st, struct perr *err)
{
	return run_kept(st, st->batch ? "SAVEPOINT change" : "BEGIN IMMEDIATE", err);
}

int sdb_commit(struct store *st, struct perr *err)
{
	return run_kept(st, st->batch ? "RELEASE change" : "COMMIT", err);
}

void sdb_rollback(struct store *st)
{
	struct perr ignored;
	if (st->batch) {   /* this change only: the batch's others stay */
		run_kept(st, "ROLLBACK TO change", &ignored);
		run_kept(st, "RELEASE change", &ignored);
		return;
	}
	run_kept(st, "ROLLBACK", &ignored);
}

int store_batch_begin(struct store *st, struct perr *err)
{
	if (st->batch)
		return perr_set(err, "store: a batch inside a batch");
	if (run_kept(st, "BEGIN IMMEDIATE", err))
		return -1;
	st->batch = 1;
	return 0;
}

int store_batch_end(struct store *st, struct perr *err)
{
	if (!st->batch)
		return 0;
	st->batch = 0;
	if (!run_kept(st, "COMMIT", err))
		return 0;
	sdb_rollback(st);
	return -1;
}


const char *store_dir(const struct store *st)
{
	return st->dir;
}

char *store_run_path(const struct store *st, long long id)
{
	return xasprintf("%s/runs/%lld", st->dir, id);
}


static void free_params(struct store *st)
{
	for (int k = 0; k < st->nparams; k++) {
		free(st->param_names[k]);
		free(st->param_roles[k]);
	}
	free(st->param_names);
	free(st->param_roles);
	free(st->point_values);
	free(st->point_cores);
	st->param_names = st->param_roles = NULL;
	st->point_values = NULL;
	st->point_cores = NULL;
	st->cores_vary = 0;
	st->nparams = st->npoints = 0;
}

static int has_column(struct store *st, const char *table, const char *column);

/* Each point's cores per rank ("N", "all" or unset), what its runs charge per rank. */
static int load_point_cores(struct store *st, struct perr *err)
{
	st->point_cores = xmalloc(sizeof(int) * (size_t)(st->npoints + 1));
	for (int p = 0; p < st->npoints; p++)
		st->point_cores[p] = 0;
	if (!has_column(st, "points", "cores_per_rank"))
		return 0;       /* a store before it: one core each */
	sqlite3_stmt *s = sdb_prepare(st, "SELECT id, cores_per_rank FROM points WHERE cores_per_rank IS NOT NULL", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int p = sqlite3_column_int(s, 0);
		const char *t = (const char *)sqlite3_column_text(s, 1);
		if (p < 0 || p >= st->npoints || !t)
			continue;
		st->point_cores[p] = !strcmp(t, "all") ? -1 : atoi(t) > 0 ? atoi(t) : 0;
		st->cores_vary |= st->point_cores[p] > 1;
	}
	sdb_finish(st, s);
	return 0;
}

int sdb_load_params(struct store *st, struct perr *err)
{
	free_params(st);
	sqlite3_stmt *s = sdb_prepare(st, "SELECT name, role FROM params ORDER BY idx", err);
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
	sdb_finish(st, s);

	s = sdb_prepare(st, "SELECT COALESCE(MAX(id), -1) + 1 FROM points", err);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		st->npoints = sqlite3_column_int(s, 0);
	sdb_finish(st, s);
	st->point_values = xcalloc((size_t)st->npoints * (size_t)(st->nparams ? st->nparams : 1),
				   sizeof(double));
	s = sdb_prepare(st, "SELECT point, param, value FROM point_values", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int p = sqlite3_column_int(s, 0), k = sqlite3_column_int(s, 1);
		if (p >= 0 && p < st->npoints && k >= 0 && k < st->nparams)
			st->point_values[(size_t)p * st->nparams + k] = sqlite3_column_double(s, 2);
	}
	sdb_finish(st, s);
	return load_point_cores(st, err);
}

static int set_wal(struct store *st, struct perr *err)
{
	if (st->readonly)
		return 0;
	return sdb_exec(st, "PRAGMA journal_mode=WAL", err) || sdb_exec(st, "PRAGMA synchronous=NORMAL", err)
		       ? -1 : 0;
}

/* The file a store is built in before it is renamed to campaign.db. */
#define STORE_NEW "campaign.db.new"

/* Open file (campaign.db, or STORE_NEW while a store is created) in dir. */
static int open_db_file(struct store **out, const char *dir, const char *file, int flags, int create,
			struct perr *err)
{
	struct store *st = xcalloc(1, sizeof(*st));
	st->dir = xstrdup(dir);
	size_t len = strlen(st->dir);
	while (len > 1 && st->dir[len - 1] == '/')
		st->dir[--len] = '\0';
	st->readonly = flags & STORE_READONLY;
	char *path = xasprintf("%s/%s", st->dir, file);
	int oflags = st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (create)
		oflags |= SQLITE_OPEN_CREATE;
	const char *why = NULL;
	int fd = create ? -1 : fs_open_regular(path, 0, &why);   /* SQLite would block on a FIFO */
	if (fd >= 0)
		close(fd);
	if (!create && fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			perr_set(err, "'%s' is not a campaign directory (no campaign.db)", dir);
		else
			perr_set(err, "%s/campaign.db: cannot open: %s", st->dir, why);
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

static int open_db(struct store **out, const char *dir, int flags, int create, struct perr *err)
{
	return open_db_file(out, dir, "campaign.db", flags, create, err);
}

/* The schema version (caller frees; NULL when the meta table has none);
   *rc the SQLite result of reading it. */
static char *read_schema(struct store *st, int *rc)
{
	sqlite3_stmt *s = NULL;
	char *v = NULL;
	*rc = sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &s, NULL);
	if (*rc == SQLITE_OK) {
		*rc = sqlite3_step(s);
		if (*rc == SQLITE_ROW)
			v = xstrdup(sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "");
		if (*rc == SQLITE_ROW || *rc == SQLITE_DONE)
			*rc = SQLITE_OK;
	}
	sdb_finish(st, s);
	return v;
}

/* The path as an SQLite URI path: everything but unreserved characters and
   '/' percent-encoded (caller frees). */
static char *uri_path(const char *path)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (isalnum(*p) || strchr("/-._~", *p))
			strbuf_addch(&sb, (char)*p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	return strbuf_detach(&sb);
}

/*
 * A store on read-only media: SQLite cannot create the -shm file that WAL
 * mode needs, so the first read fails.  Nothing can change the file there,
 * so it is opened again as immutable.  0 when reopened.
 */
static int reopen_immutable(struct store *st)
{
	if (!st->readonly || !access(st->dir, W_OK) || errno == ENOENT)
		return -1;
	char *path = xasprintf("%s/campaign.db", st->dir);
	char *enc = uri_path(path);
	char *uri = xasprintf("file:%s?immutable=1", enc);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	free(enc);
	free(path);
	if (rc != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	sdb_forget_statements(st);
	sqlite3_close(st->db);
	st->db = db;
	return 0;
}

/* What PRAGMA quick_check finds first, on one line ("ok" when nothing;
   caller frees), or NULL when it could not run. */
static char *quick_check(struct store *st)
{
	static const char head[] = "*** in database main ***\n";
	sqlite3_stmt *s = NULL;
	char *check = NULL;
	if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
		const char *t = (const char *)sqlite3_column_text(s, 0);
		check = xstrdup(strncmp(t, head, sizeof(head) - 1) ? t : t + sizeof(head) - 1);
		for (char *p = check; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	}
	sdb_finish(st, s);
	return check;
}

/* A file SQLite could not read as a database, or read with errors: corrupt
   when it has SQLite's header (or quick_check says so), else no store. */
static int bad_store(struct store *st, int rc, struct perr *err)
{
	char *path = xasprintf("%s/campaign.db", st->dir);
	char magic[16] = "";
	const char *why;
	int fd = fs_open_regular(path, 0, &why);
	ssize_t n = fd >= 0 ? read(fd, magic, sizeof(magic)) : 0;
	if (fd >= 0)
		close(fd);
	free(path);
	int sqlite = n == (ssize_t)sizeof(magic) && !memcmp(magic, "SQLite format 3", 16);
	if ((rc & 0xff) == SQLITE_NOTADB && !sqlite)
		return perr_set(err, "%s/campaign.db: not a perfsweep campaign store (not an SQLite database)",
				st->dir);
	char *check = NULL;
	if ((rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB) {
		check = quick_check(st);
		if (check && !strcmp(check, "ok")) {
			free(check);
			return -1;      /* not corrupt: the caller's own message */
		}
	}
	perr_set(err, "%s/campaign.db: the store is corrupt (%s); restore it from a copy",
		 st->dir, check ? check : sqlite3_errstr(rc));
	free(check);
	return -2;
}

/* A reader's check of the whole file (STORE_READONLY): 0 when SQLite's
   quick_check says ok, else -1 with err saying the store is corrupt. */
static int check_whole(struct store *st, struct perr *err)
{
	char *check = quick_check(st);
	if (check && !strcmp(check, "ok")) {
		free(check);
		return 0;
	}
	int rc = sqlite3_extended_errcode(st->db);
	if (!check && (rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB && (rc & 0xff) != SQLITE_IOERR) {
		perr_set(err, "%s/campaign.db: cannot read: %s", st->dir, sqlite3_errmsg(st->db));
		return -1;
	}
	perr_set(err, "%s/campaign.db: the store is corrupt (%s); restore it from a copy", st->dir,
		 check ? check : sqlite3_errstr(rc));
	free(check);
	return -1;
}

/* The first read of a store: its schema version, telling apart read-only
   media (reopened immutable), a corrupt file, and a database that is no
   store. */
static int check_schema(struct store *st, struct perr *err)
{
	int rc;
	char *v = read_schema(st, &rc);
	if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_ERROR && (rc & 0xff) != SQLITE_CORRUPT &&
	    (rc & 0xff) != SQLITE_NOTADB && !reopen_immutable(st))
		v = read_schema(st, &rc);
	if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_ERROR) {
		if (bad_store(st, sqlite3_extended_errcode(st->db), err) == -2)
			return -1;
		return perr_set(err, "%s/campaign.db: cannot read: %s", st->dir, sqlite3_errmsg(st->db));
	}
	if (!v) {
		if (bad_store(st, SQLITE_OK, err) == -2)
			return -1;
		return perr_set(err, "%s/campaign.db: not a perfsweep campaign store", st->dir);
	}
	int ver = atoi(v);
	free(v);
	if (ver != STORE_SCHEMA_VERSION)
		return perr_set(err, "%s/campaign.db: schema version %d, this perfsweep reads %d",
				st->dir, ver, STORE_SCHEMA_VERSION);
	return 0;
}

static int has_column(struct store *st, const char *table, const char *column)
{
	char *sql = xasprintf("SELECT 1 FROM pragma_table_info('%s') WHERE name = '%s'", table, column);
	sqlite3_stmt *s = NULL;
	int found = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW;
	sdb_finish(st, s);
	free(sql);
	return found;
}

/*
 * Migration: the columns a growing campaign needs, added to a store made
 * before them, in one transaction (a writer racing us finds them there).
 * Read-only, an old store reads them as their defaults.
 */
static int migrate_grown(struct store *st, struct perr *err)
{
	st->grown_columns = has_column(st, "runs", "remeasure");
	if (st->grown_columns || st->readonly)
		return 0;
	if (sdb_begin(st, err))
		return -1;
	if (!has_column(st, "runs", "remeasure") &&
	    sdb_exec(st, "ALTER TABLE runs ADD COLUMN remeasure INTEGER NOT NULL DEFAULT 0;"
		     "ALTER TABLE runs ADD COLUMN origin TEXT;"
		     "ALTER TABLE runs ADD COLUMN retired_from INTEGER;"
		     "ALTER TABLE points ADD COLUMN map TEXT;"
		     "ALTER TABLE points ADD COLUMN cores_per_rank TEXT;" RUNS_IDENTITY, err)) {
		sdb_rollback(st);
		return -1;
	}
	if (sdb_commit(st, err))
		return -1;
	st->grown_columns = 1;
	return 0;
}

/*
 * Migration: the census columns of resources and the causes table, added
 * to a store made before them in one transaction.  Read-only, an old store
 * reads them as unknown.
 */
static int migrate_census(struct store *st, struct perr *err)
{
	st->census_columns = has_column(st, "resources", "run_delay");
	if (st->census_columns || st->readonly)
		return 0;
	if (sdb_begin(st, err))
		return -1;
	if (!has_column(st, "resources", "run_delay") && sdb_exec(st, CENSUS_COLUMNS_ADD CAUSES_TABLE, err)) {
		sdb_rollback(st);
		return -1;
	}
	if (sdb_commit(st, err))
		return -1;
	st->census_columns = 1;
	return 0;
}

/* 32 hex digits from 128 random bits (getrandom, else /dev/urandom): 0 or -1. */
static int new_store_id(char out[STORE_ID_LEN + 1])
{
	unsigned char raw[STORE_ID_LEN / 2];
	size_t got = 0;
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(raw)) {
		FILE *f = fopen("/dev/urandom", "rb");
		got = f ? fread(raw, 1, sizeof(raw), f) : 0;
		if (f)
			fclose(f);
		if (got < sizeof(raw))
			return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/*
 * The store's id into st->id; a writable store made before store ids gets
 * one now (INSERT OR IGNORE: a writer racing us may have given it first).
 */
static int load_store_id(struct store *st, struct perr *err)
{
	st->id = store_get_meta(st, "store_id");
	if (st->id || st->readonly)
		return 0;
	char id[STORE_ID_LEN + 1];
	if (new_store_id(id))
		return perr_set(err, "%s/campaign.db: cannot make a store id: no random source", st->dir);
	sqlite3_stmt *s = sdb_prepare(st, "INSERT OR IGNORE INTO meta(key, value) VALUES('store_id', ?)", err);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sdb_finish(st, s);
	if (rc != SQLITE_DONE)
		return sdb_err(st, err, "write meta");
	st->id = store_get_meta(st, "store_id");
	return st->id ? 0 : perr_set(err, "%s/campaign.db: cannot read the store id back", st->dir);
}

const char *store_id(const struct store *st)
{
	return st->id;
}

int store_open(struct store **out, const char *dir, int flags, struct perr *err)
{
	struct store *st;
	if (open_db(&st, dir, flags, 0, err))
		return -1;
	/* migration: tables added since schema version 1 */
	if (check_schema(st, err) ||
	    ((flags & STORE_READONLY) && !(flags & STORE_NOCHECK) && check_whole(st, err)) ||
	    set_wal(st, err) || sdb_load_params(st, err) ||
	    (!(flags & STORE_READONLY) && sdb_exec(st, BINDINGS_TABLE RESOURCES_TABLE MISSES_TABLE, err)) ||
	    migrate_grown(st, err) || migrate_census(st, err) || load_store_id(st, err)) {
		int code = sqlite3_errcode(st->db);
		if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
			bad_store(st, code, err);
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
	sdb_forget_statements(st);
	sqlite3_close(st->db);
	free_params(st);
	free(st->id);
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
	sdb_finish(st, s);
	return v;
}

/* Set key (a NULL value removes it), inside the caller's transaction. */
int sdb_put_meta(struct store *st, const char *key, const char *value, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, value ? "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"
						: "DELETE FROM meta WHERE key = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (value)
		sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sdb_finish(st, s);
	return rc == SQLITE_DONE ? 0 : sdb_err(st, err, "write meta");
}

int store_set_metas(struct store *st, const char *const *keys, const char *const *values, int n,
		    struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	for (int i = 0; i < n; i++)
		if (sdb_put_meta(st, keys[i], values[i], err)) {
			sdb_rollback(st);
			return -1;
		}
	return sdb_commit(st, err);
}

int store_set_meta(struct store *st, const char *key, const char *value, struct perr *err)
{
	return store_set_metas(st, &key, &value, 1, err);
}

int sdb_same_plan(struct store *st, const struct plan *pl)
{
	char *old = store_get_meta(st, "plan");
	char *fp = sdb_plan_fingerprint(pl, 2), *fp1 = sdb_plan_fingerprint(pl, 1);
	int same = old && (!strcmp(old, fp) || !strcmp(old, fp1));
	free(old);
	free(fp);
	free(fp1);
	return same;
}

/*
 * A fingerprint of the plan, so a resumed campaign runs the plan it stored.
 * Since version 2 it covers each point's placement contract (policy, map,
 * cores per rank); version 1 (stores made before) did not, and is still
 * accepted on resume.
 */
char *sdb_plan_fingerprint(const struct plan *pl, int version)
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

int sdb_point_ranks(const struct plan *pl, const struct plan_point *pt)
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
		sqlite3_bind_int(sr, 4, sdb_point_ranks(pl, pt));
		sqlite3_bind_int(sr, 5, pt->ranks_per_node);
		if (pt->policy)
			sqlite3_bind_text(sr, 6, pt->policy, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(sr, 6);
		sqlite3_bind_double(sr, 7, per_run);
		sqlite3_bind_int64(sr, 8, k + 1);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			free(order);
			return sdb_err(st, err, "write runs");
		}
		sqlite3_reset(sr);
	}
	free(order);
	return 0;
}

/* The budget and its charge rule as meta keys (none: removed). */
int sdb_put_budget_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char budget[64], overrun[64];
	snprintf(budget, sizeof(budget), "%.17g", pl->budget_core_hours);
	snprintf(overrun, sizeof(overrun), "%.17g", pl->budget_overrun);
	if (pl->budget_core_hours <= 0)
		return sdb_exec(st, "DELETE FROM meta WHERE key IN ('budget_core_hours', 'budget_charge',"
			    " 'budget_overrun')", err);
	return sdb_put_meta(st, "budget_core_hours", budget, err) ||
	       sdb_put_meta(st, "budget_charge", pl->charge == CHARGE_NODE ? "node" : "core", err) ||
	       sdb_put_meta(st, "budget_overrun", overrun, err) ? -1 : 0;
}

/* The run order, its seed and the budget, as meta keys. */
int sdb_put_plan_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char seed[32];
	snprintf(seed, sizeof(seed), "%lu", pl->order_seed);
	if (sdb_put_meta(st, "order", plan_order_name(pl->order), err) || sdb_put_meta(st, "order_seed", seed, err))
		return -1;
	return sdb_put_budget_meta(st, pl, err);
}

static int insert_params(struct store *st, const struct plan *pl, struct perr *err)
{
	sqlite3_stmt *sp = sdb_prepare(st, "INSERT INTO params(idx, name, role, is_int) VALUES(?,?,?,?)", err);
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
			sdb_finish(st, sp);
			return sdb_err(st, err, "write parameters");
		}
		sqlite3_reset(sp);
	}
	sdb_finish(st, sp);
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

int sdb_insert_point(struct store *st, int id, const struct plan_point *pt, const double *values,
		     int nvalues, struct perr *err)
{
	sqlite3_stmt *spt = sdb_prepare(st, "INSERT INTO points(id, nodes, ranks_per_node, policy, repetitions,"
					" core_hours, reason, map, cores_per_rank) VALUES(?,?,?,?,?,?,?,?,?)", err);
	sqlite3_stmt *spv = sdb_prepare(st, "INSERT INTO point_values(point, param, value) VALUES(?,?,?)", err);
	int ok = spt && spv;
	if (ok) {
		sqlite3_bind_int(spt, 1, id);
		sqlite3_bind_int(spt, 2, pt->nodes);
		sqlite3_bind_int(spt, 3, pt->ranks_per_node);
		bind_text_or_null(spt, 4, pt->policy);
		sqlite3_bind_int(spt, 5, pt->repetitions);
		sqlite3_bind_double(spt, 6, pt->core_hours);
		sqlite3_bind_text(spt, 7, pt->reason ? pt->reason : "", -1, SQLITE_STATIC);
		bind_text_or_null(spt, 8, pt->map);
		bind_text_or_null(spt, 9, pt->cores_per_rank);
		ok = sqlite3_step(spt) == SQLITE_DONE;
	}
	for (int k = 0; ok && k < nvalues; k++) {
		sqlite3_bind_int(spv, 1, id);
		sqlite3_bind_int(spv, 2, k);
		sqlite3_bind_double(spv, 3, values[k]);
		ok = sqlite3_step(spv) == SQLITE_DONE;
		sqlite3_reset(spv);
	}
	if (!ok && spt && spv)
		sdb_err(st, err, "write plan");
	sdb_finish(st, spt);
	sdb_finish(st, spv);
	return ok ? 0 : -1;
}

static int insert_plan(struct store *st, const struct plan *pl, struct perr *err)
{
	if (insert_params(st, pl, err))
		return -1;
	for (int i = 0; i < pl->npoints; i++)
		if (sdb_insert_point(st, i, &pl->points[i], pl->points[i].values, pl->nparams, err))
			return -1;
	sqlite3_stmt *sr = sdb_prepare(st, "INSERT INTO runs(point, repetition, nodes, ranks, ranks_per_node,"
				   " policy, state, core_hours, seq, exit_status, wall)"
				   " VALUES(?,?,?,?,?,?,0,?,?,-1,-1)", err);
	int ret = sr ? insert_runs(st, pl, sr, err) : -1;
	sdb_finish(st, sr);
	return ret;
}

static void remove_db_file(const char *dir, const char *file)
{
	static const char *suffix[] = { "", "-wal", "-shm", "-journal" };
	for (int i = 0; i < 4; i++) {
		char *p = xasprintf("%s/%s%s", dir, file, suffix[i]);
		unlink(p);
		free(p);
	}
}

static void remove_db(const char *dir)
{
	remove_db_file(dir, "campaign.db");
}

/* campaign.db has no table: its creating transaction never committed (a
   store made before stores were built apart and renamed into place). */
int store_uncommitted(const char *dir)
{
	char *path = xasprintf("%s/campaign.db", dir);
	sqlite3 *db = NULL;
	int empty = 0;
	const char *why;
	int fd = fs_open_regular(path, 0, &why);   /* a FIFO is no store, and never waited for */
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
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
			const char *config_text, struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, 0, err))
		return -1;
	char *old_name = store_get_meta(st, "name");
	int same_name = old_name && !strcmp(old_name, name);
	int same_plan = sdb_same_plan(st, pl);
	free(old_name);
	if (!same_name) {
		perr_set(err, "'%s' holds a different campaign; give another --dir for this campaign", dir);
		store_close(st);
		return -1;
	}
	/* the same plan: the budget follows the config; another plan: the campaign grows */
	int rc = same_plan ? sdb_begin(st, err) || sdb_put_budget_meta(st, pl, err) || sdb_commit(st, err)
			   : store_grow(st, pl, config_text, NULL, err);
	if (rc) {
		if (same_plan)
			sdb_rollback(st);
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

/* The CPU model /proc/cpuinfo names ("model name"), or "unknown". */
static void cpu_model(char *buf, size_t n)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	snprintf(buf, n, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, n, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

/*
 * The machine the campaign is created on, as meta keys hostname, cpu_model
 * and ncores (online CPUs): compare says when two campaigns ran on
 * different machines.  An import's measurements come from elsewhere: none.
 */
static int put_machine_meta(struct store *st, const char *backend, struct perr *err)
{
	if (backend && !strcmp(backend, "import"))
		return 0;
	char host[256] = "", model[256], cores[32];
	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "unknown");
	cpu_model(model, sizeof(model));
	snprintf(cores, sizeof(cores), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	return sdb_put_meta(st, "hostname", host, err) || sdb_put_meta(st, "cpu_model", model, err) ||
	       sdb_put_meta(st, "ncores", cores, err) ? -1 : 0;
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
	} else if (exists && store_uncommitted(dir)) {
		remove_db(dir);
		exists = 0;
	}
	if (exists)
		return store_resume(out, dir, name, pl, config_text, err);
	/* built apart and renamed into place once its plan is committed: a
	   kill -9 at any moment leaves either no campaign.db or a whole one */
	remove_db_file(dir, STORE_NEW);
	char *fp = sdb_plan_fingerprint(pl, 2);
	if (open_db_file(&st, dir, STORE_NEW, 0, 1, err)) {
		free(fp);
		remove_db_file(dir, STORE_NEW);
		return -1;
	}
	char ver[16], created[32], id[STORE_ID_LEN + 1];
	snprintf(ver, sizeof(ver), "%d", STORE_SCHEMA_VERSION);
	snprintf(created, sizeof(created), "%.3f", wall_now());
	if (new_store_id(id)) {
		perr_set(err, "%s/campaign.db: cannot make a store id: no random source", st->dir);
		goto fail;
	}
	if (sdb_begin(st, err))
		goto fail;
	if (sdb_exec(st, schema, err) || sdb_put_meta(st, "schema_version", ver, err) ||
	    sdb_put_meta(st, "name", name, err) || sdb_put_meta(st, "backend", backend ? backend : "local", err) ||
	    sdb_put_meta(st, "config", config_text ? config_text : "", err) ||
	    sdb_put_meta(st, "created", created, err) || sdb_put_meta(st, "plan", fp, err) ||
	    sdb_put_meta(st, "store_id", id, err) ||
	    sdb_put_meta(st, "points_launch", "1", err) || put_machine_meta(st, backend, err) ||
	    sdb_put_plan_meta(st, pl, err) || insert_plan(st, pl, err)) {
		sdb_rollback(st);
		goto fail;
	}
	if (sdb_commit(st, err))
		goto fail;
	free(fp);
	store_close(st);        /* the last connection: its WAL is checkpointed into the file */
	char *from = xasprintf("%s/" STORE_NEW, dir), *to = xasprintf("%s/campaign.db", dir);
	int moved = rename(from, to);
	int rename_errno = errno;
	free(from);
	free(to);
	if (moved) {
		remove_db_file(dir, STORE_NEW);
		return perr_set(err, "cannot create '%s/campaign.db': %s", dir, strerror(rename_errno));
	}
	return store_open(out, dir, 0, err);
fail:
	free(fp);
	store_close(st);
	/* a store that never got its plan is not a campaign: leave nothing behind */
	remove_db_file(dir, STORE_NEW);
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
	return sdb_exec(st, "BEGIN", err);
}

void store_read_end(struct store *st)
{
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

int store_counts(struct store *st, struct store_counts *c, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	sqlite3_stmt *s = sdb_prepare(st, "SELECT state, COUNT(*), SUM(core_hours) FROM runs GROUP BY state", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long n = sqlite3_column_int64(s, 1);
		double ch = sqlite3_column_double(s, 2);
		if (sqlite3_column_int(s, 0) == RUN_RETIRED) {
			c->retired = n;     /* out of the plan: neither planned nor in flight */
			continue;
		}
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
	sdb_finish(st, s);
	/* spent: run_spent_core_hours summed over every run's last attempt; by
	   point when a point's ranks hold several cores each */
	s = sdb_prepare(st, st->cores_vary ? "SELECT point, SUM(wall * MAX(ranks, 1)) / 3600.0 FROM runs"
			" WHERE wall > 0 GROUP BY point"
		    : "SELECT -1, COALESCE(SUM(wall * MAX(ranks, 1)), 0) / 3600.0 FROM runs WHERE wall > 0", err);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int p = sqlite3_column_int(s, 0);
		int cores = p >= 0 && p < st->npoints && st->point_cores[p] > 1 ? st->point_cores[p] : 1;
		c->core_hours_spent += sqlite3_column_double(s, 1) * cores;
	}
	sdb_finish(st, s);
	s = sdb_prepare(st, "SELECT COUNT(*) FROM measurements", err);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		c->measurements = sqlite3_column_int64(s, 0);
	sdb_finish(st, s);
	return 0;
}

#define RUN_COLUMNS "id, point, repetition, nodes, ranks, ranks_per_node, policy, state, attempts," \
	" backend_id, submitted_at, started_at, ended_at, exit_status, wall, reason, collect_error," \
	" core_hours, seq, "
#define GROWN_COLUMNS "remeasure, origin, retired_from"
#define GROWN_DEFAULTS "0, NULL, NULL"

char *sdb_col_str(sqlite3_stmt *s, int i)
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
   one %s for the grown columns and binds ?1 to arg), by id. */
static int load_runs_sql(struct store *st, const char *fmt, long long arg, struct run **runs, int *n,
			 struct perr *err)
{
	*runs = NULL;
	*n = 0;
	char *sql = xasprintf(fmt, st->grown_columns ? GROWN_COLUMNS : GROWN_DEFAULTS);
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	free(sql);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, arg);
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*runs, (size_t)*n + 1, alloc);
		read_run(st, s, &(*runs)[(*n)++]);
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
			     since_seq, runs, n, err);
}

int store_load_problem_runs(struct store *st, struct run **runs, int *n, struct perr *err)
{
	return load_runs_sql(st, "SELECT " RUN_COLUMNS "%s FROM runs WHERE state = ?1"
			     " OR collect_error IS NOT NULL ORDER BY id", RUN_FAILED, runs, n, err);
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
		read_run(st, s, r);
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
	sqlite3_stmt *s = NULL;
	long long v = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT COALESCE(MAX(seq), 0) FROM runs", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sdb_finish(st, s);
	return v;
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

int store_load_measurements(struct store *st, long long id, struct measurement_list *ml,
			    struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "SELECT rank, region, metric, value FROM measurements"
				  " WHERE run = ? ORDER BY rowid", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW)
		measurement_list_add(ml, sqlite3_column_int(s, 0), (const char *)sqlite3_column_text(s, 1),
				     (const char *)sqlite3_column_text(s, 2), sqlite3_column_double(s, 3));
	sdb_finish(st, s);
	return 0;
}

/* Flush one run's aggregated (region, metric) value into the experiment
   (a run left out: only the region and metric's names). */
static void flush_group(struct experiment *e, int point, const char *region, const char *metric,
			double agg_value, double sum, int nranks, long long run, int left_out,
			struct exp_runs *runs)
{
	double v = !isnan(agg_value) ? agg_value : (nranks ? sum / nranks : NAN);
	if (isnan(v))
		return;
	int c = experiment_callpath(e, region), m = experiment_metric(e, metric);
	if (left_out)
		return;
	experiment_add(e, c, m, point, v);
	if (runs) {
		XGROW(runs->v, (size_t)runs->n + 1, runs->alloc);
		runs->v[runs->n++] = (struct exp_run){ c, m, point, run };
	}
}

/* The runs an analysis reads, as an SQL condition on runs r: done ones, and
   retired ones that were done when flags has STORE_INCLUDE_RETIRED. */
static const char *analysed_runs(const struct store *st, int flags)
{
	return st->grown_columns && (flags & STORE_INCLUDE_RETIRED)
		? "(r.state = 3 OR (r.state = 6 AND r.retired_from = 3))" : "r.state = 3";
}

int store_load_run_rpn(struct store *st, int flags, struct run_rpn **out, int *n, struct perr *err)
{
	const char *done = analysed_runs(st, flags);
	char *q = xasprintf("SELECT r.id, r.point, r.ranks_per_node, x.real FROM runs r LEFT JOIN"
			    " (SELECT run, MAX(c) AS real FROM (SELECT run, node, COUNT(*) AS c FROM bindings"
			    "  WHERE node IS NOT NULL AND node != '' GROUP BY run, node) GROUP BY run) x ON x.run = r.id"
			    " WHERE %s ORDER BY r.id", done);
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s;
	int bound = 1, rc = sqlite3_prepare_v2(st->db, q, -1, &s, NULL);
	free(q);
	if (rc != SQLITE_OK) {
		/* a store from before the bindings table, opened read-only: the plan's values */
		if (!strstr(sqlite3_errmsg(st->db), "no such table"))
			return sdb_err(st, err, "read runs");
		bound = 0;
		q = xasprintf("SELECT r.id, r.point, r.ranks_per_node FROM runs r WHERE %s ORDER BY r.id", done);
		s = sdb_prepare(st, q, err);
		free(q);
		if (!s)
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
	sdb_finish(st, s);
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

/*
 * The measurements an analysis reads: done runs (and retired ones that were
 * done, when asked), and of a repetition measured again only its latest
 * done measurement.
 */
/* Of a repetition measured again, only the latest done measurement counts:
   an SQL condition on runs r (empty for stores before re-measurements). */
static const char *latest_measurement(const struct store *st)
{
	return st->grown_columns ? " AND NOT EXISTS (SELECT 1 FROM runs n WHERE n.point = r.point"
				   " AND n.repetition = r.repetition AND n.remeasure > r.remeasure AND n.state = 3)" : "";
}

static sqlite3_stmt *experiment_query(struct store *st, const char *metric, int flags, struct perr *err)
{
	char *sql = xasprintf("SELECT r.id, r.point, r.ranks_per_node, m.rank, m.region, m.metric, m.value"
			      " FROM runs r JOIN measurements m ON m.run = r.id"
			      " WHERE %s AND (?1 IS NULL AND m.metric <> '" REGEX_CPU_SHARE_METRIC "' OR m.metric = ?1)%s"
			      " ORDER BY r.id, m.region, m.metric, m.rank",
			      analysed_runs(st, flags), latest_measurement(st));
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	free(sql);
	if (s && metric)
		sqlite3_bind_text(s, 1, metric, -1, SQLITE_STATIC);
	return s;
}

int store_load_experiment(struct store *st, const char *metric, struct experiment *e,
			  struct perr *err)
{
	return store_load_experiment_runs(st, metric, 0, e, NULL, err);
}

int store_load_experiment_with(struct store *st, const char *metric, int flags, struct experiment *e,
			       struct perr *err)
{
	return store_load_experiment_runs(st, metric, flags, e, NULL, err);
}

int store_load_experiment_runs(struct store *st, const char *metric, int flags, struct experiment *e,
			       struct exp_runs *runs, struct perr *err)
{
	return store_load_experiment_leaving_out(st, metric, flags, NULL, e, runs, err);
}

static int cmp_id(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The index of run id in lo, or -1. */
static int left_out(const struct store_leave_out *lo, long long id)
{
	if (!lo || !lo->n)
		return -1;
	const long long *hit = bsearch(&id, lo->runs, (size_t)lo->n, sizeof(*lo->runs), cmp_id);
	return hit ? (int)(hit - lo->runs) : -1;
}

int store_load_experiment_leaving_out(struct store *st, const char *metric, int flags,
				      const struct store_leave_out *lo, struct experiment *e,
				      struct exp_runs *runs, struct perr *err)
{
	for (int i = 0; lo && lo->point && i < lo->n; i++)
		lo->point[i] = -1;
	struct run_rpn *rr;
	int nrr;
	if (store_load_run_rpn(st, flags, &rr, &nrr, err) < 0)
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
	sqlite3_stmt *s = experiment_query(st, metric, flags, err);
	if (!s) {
		free(rr);
		return -1;
	}
	double *coords = xcalloc((size_t)e->nparams + 1, sizeof(double));
	long long cur_run = -1;
	int cur_point = -1;
	char *cur_region = NULL, *cur_metric = NULL;
	double agg = NAN, sum = 0;
	int nranks = 0, skip = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(s, 0);
		const char *region = (const char *)sqlite3_column_text(s, 4);
		const char *met = (const char *)sqlite3_column_text(s, 5);
		if (id != cur_run || strcmp(region, cur_region) || strcmp(met, cur_metric)) {
			if (cur_region)
				flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, skip,
					    runs);
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
				/* a run left out keeps its point in the experiment */
				cur_point = experiment_point(e, coords);
				int k = left_out(lo, id);
				skip = k >= 0;
				if (skip && lo->point)
					lo->point[k] = cur_point;
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
		flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, skip, runs);
	free(cur_region);
	free(cur_metric);
	free(coords);
	free(rr);
	sdb_finish(st, s);
	return 0;
}

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

int store_put_resources(struct store *st, long long id, const struct run_resource *r, int n,
			struct perr *err)
{
	if (sdb_begin(st, err))
		return -1;
	sqlite3_stmt *del = sdb_prepare(st, "DELETE FROM resources WHERE run = ?", err);
	sqlite3_stmt *ins = sdb_prepare(st, st->census_columns
		? "INSERT OR REPLACE INTO resources(run, rank, utime, stime, wall, cpu_share, allowed_share,"
		  " maxrss_kb, nvcsw, nivcsw, load_start, load_end, run_delay, foreign_cpu, steal, pressure, quiet_wait)"
		  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
		: "INSERT OR REPLACE INTO resources(run, rank, utime, stime, wall, cpu_share, allowed_share,"
		  " maxrss_kb, nvcsw, nivcsw, load_start, load_end) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", err);
	int ok = del && ins;
	if (ok) {
		sqlite3_bind_int64(del, 1, id);
		ok = sqlite3_step(del) == SQLITE_DONE;
	}
	for (int i = 0; ok && i < n; i++) {
		const struct run_resource *x = &r[i];
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
		for (int k = 0; st->census_columns && k < 5; k++)
			bind_real(ins, 13 + k, census[k]);
		ok = sqlite3_step(ins) == SQLITE_DONE;
		sqlite3_reset(ins);
	}
	if (!ok && del && ins)
		sdb_err(st, err, "write resources");
	sdb_finish(st, del);
	sdb_finish(st, ins);
	if (!ok) {
		sdb_rollback(st);
		return -1;
	}
	return sdb_commit(st, err);
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

#define RESOURCE_COLUMNS "s.rank, s.utime, s.stime, s.wall, s.cpu_share, s.allowed_share, s.maxrss_kb," \
	" s.nvcsw, s.nivcsw, s.load_start, s.load_end, "
#define RESOURCE_CENSUS "s.run_delay, s.foreign_cpu, s.steal, s.pressure, s.quiet_wait"
#define RESOURCE_NO_CENSUS "NULL, NULL, NULL, NULL, NULL"

/* The census columns of a resources query, or NULLs in a store made before them. */
static const char *census_columns(const struct store *st)
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
static void read_resource(sqlite3_stmt *s, int i, struct run_resource *x)
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
			      census_columns(st));
	sqlite3_stmt *s = resources_query(st, sql, &absent, err);
	free(sql);
	if (!s)
		return absent ? 0 : -1;
	sqlite3_bind_int64(s, 1, id);
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		read_resource(s, 0, &(*out)[(*n)++]);
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
			      census_columns(st), analysed_runs(st, flags), latest_measurement(st));
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
		read_resource(s, 4, &u->r);
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

void run_pass_add(const struct run *r, int *pass, int *passes)
{
	if (r->repetition > *passes)
		*passes = r->repetition;
	if (run_is_live(r->state) &&
	    (!*pass || r->repetition < *pass))
		*pass = r->repetition;
}
