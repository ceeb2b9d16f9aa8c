/*
 * The campaign store: SQLite in WAL mode.  Every write is one transaction
 * (BEGIN IMMEDIATE .. COMMIT), so readers see either the old or the new
 * state and a kill -9 loses nothing that was committed.  Each change to a
 * run bumps its `seq` above every other, which gives readers such as the
 * TUI an incremental "what changed since" query.
 */
#include "common/clock.h"
#include "campaign/store_priv.h"
#include "common/strbuf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>


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
int run_kept_bound(struct store *st, const char *sql, long long id, struct perr *err)
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
int sdb_check_whole(struct store *st, struct perr *err)
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
	    ((flags & STORE_READONLY) && !(flags & STORE_NOCHECK) && sdb_check_whole(st, err)) ||
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
