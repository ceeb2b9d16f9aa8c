/*
 * A store of many done runs for the benchmarks (gen_store.h).
 */
#include "tests/lib/gen_store.h"
#include "campaign/store.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_NP 10

/* A uniform number in [0, 1) (xorshift). */
static double uniform(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / 9007199254740992.0;
}

char *gen_store_config(int nn, int np, int reps)
{
	struct strbuf cfg;
	strbuf_init(&cfg);
	strbuf_addf(&cfg, "name = \"bench\";\napp = { command = [ \"/bin/true\" ]; };\n"
		    "parameters = ( { name = \"n\"; values = [ ");
	for (int i = 0; i < nn; i++)
		strbuf_addf(&cfg, "%s%d", i ? ", " : "", i + 1);
	strbuf_addf(&cfg, " ]; }, { name = \"p\"; values = [ ");
	for (int i = 0; i < np; i++)
		strbuf_addf(&cfg, "%s%d", i ? ", " : "", 1 << i);
	strbuf_addf(&cfg, " ]; } );\nrepetitions = %d;\ncollect = { wall = false; regex = ( { region = \"main\"; "
		    "metric = \"time\"; pattern = \"t: ([0-9.]+)\"; } ); };\n", reps);
	return strbuf_detach(&cfg);
}

static int sql_fail(sqlite3 *db, const char *what, struct perr *err)
{
	return perr_set(err, "%s: %s", what, sqlite3_errmsg(db));
}

/* Every run done with its value, resources and binding, in one transaction. */
static int fill(sqlite3 *db, const struct plan *pl, const struct gen_store_spec *spec, struct perr *err)
{
	static const char *const sql[] = {
		"UPDATE runs SET state = 3, attempts = 1, backend_id = ?2, submitted_at = ?3, started_at = ?3,"
		" ended_at = ?3 + ?4, exit_status = 0, wall = ?4, seq = ?5 WHERE id = ?1",
		"INSERT INTO measurements(run, rank, region, metric, value) VALUES(?1, -1, 'main', 'time', ?2)",
		"INSERT INTO resources(run, rank, utime, stime, wall, cpu_share, allowed_share, maxrss_kb,"
		" nvcsw, nivcsw, load_start, load_end, run_delay, foreign_cpu, steal, pressure, quiet_wait)"
		" VALUES(?1, ?2, ?3 * ?4, 0.01 * ?3, ?3, ?4, 1, 20480, 3, 1, 0.5, 0.5, ?3 * (1 - ?4),"
		" ?3 * (1 - ?4), 0, 0, CASE WHEN ?2 < 0 THEN 0 END)",
		"INSERT INTO causes(run, rank, pid, comm, core, seconds) VALUES(?1, 0, 4321, 'stress', ?2, ?3)",
		"INSERT INTO bindings(run, rank, node, cpuset, cores) VALUES(?1, 0, 'node1', ?2, ?2)",
		"SELECT id, point FROM runs ORDER BY id",
		"SELECT MAX(seq) FROM runs",
	};
	enum { UPD, MEAS, RES, CAUSE, BIND, RUNS, SEQ, NSQL };
	sqlite3_stmt *s[NSQL] = { 0 };
	int ret = -1;
	for (int i = 0; i < NSQL; i++)
		if (sqlite3_prepare_v2(db, sql[i], -1, &s[i], NULL) != SQLITE_OK) {
			sql_fail(db, "prepare", err);
			goto done;
		}
	long long seq = sqlite3_step(s[SEQ]) == SQLITE_ROW ? sqlite3_column_int64(s[SEQ], 0) : 0;
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		sql_fail(db, "begin", err);
		goto done;
	}
	unsigned long long seed = spec->seed ? spec->seed : 42;
	double t0 = 1.7e9;
	int rc;
	while ((rc = sqlite3_step(s[RUNS])) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(s[RUNS], 0);
		int pt = sqlite3_column_int(s[RUNS], 1);
		double n = pl->points[pt].values[0], p = pl->points[pt].values[1];
		double t = spec->factor * (0.5 + 0.01 * n * sqrt(p)) * (1 + 0.02 * (2 * uniform(&seed) - 1));
		double share = id % 100 == 37 ? 0.5 : 0.99;
		char job[32], cpu[16];
		snprintf(job, sizeof(job), "%lld", 1000 + id);
		snprintf(cpu, sizeof(cpu), "%lld", id % 2);
		sqlite3_bind_int64(s[UPD], 1, id);
		sqlite3_bind_text(s[UPD], 2, job, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(s[UPD], 3, t0 + (double)id);
		sqlite3_bind_double(s[UPD], 4, t);
		sqlite3_bind_int64(s[UPD], 5, seq + id);
		sqlite3_bind_int64(s[MEAS], 1, id);
		sqlite3_bind_double(s[MEAS], 2, t);
		sqlite3_bind_int64(s[BIND], 1, id);
		sqlite3_bind_text(s[BIND], 2, cpu, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(s[UPD]) != SQLITE_DONE || sqlite3_step(s[MEAS]) != SQLITE_DONE ||
		    sqlite3_step(s[BIND]) != SQLITE_DONE) {
			sql_fail(db, "write a run", err);
			goto rollback;
		}
		if (share < 0.9) {
			sqlite3_bind_int64(s[CAUSE], 1, id);
			sqlite3_bind_int64(s[CAUSE], 2, id % 2);
			sqlite3_bind_double(s[CAUSE], 3, t * (1 - share));
			if (sqlite3_step(s[CAUSE]) != SQLITE_DONE) {
				sql_fail(db, "write causes", err);
				goto rollback;
			}
			sqlite3_reset(s[CAUSE]);
		}
		for (int rank = -1; rank <= 0; rank++) {
			sqlite3_bind_int64(s[RES], 1, id);
			sqlite3_bind_int(s[RES], 2, rank);
			sqlite3_bind_double(s[RES], 3, t);
			sqlite3_bind_double(s[RES], 4, share);
			if (sqlite3_step(s[RES]) != SQLITE_DONE) {
				sql_fail(db, "write resources", err);
				goto rollback;
			}
			sqlite3_reset(s[RES]);
		}
		sqlite3_reset(s[UPD]);
		sqlite3_reset(s[MEAS]);
		sqlite3_reset(s[BIND]);
	}
	if (rc != SQLITE_DONE) {
		sql_fail(db, "read runs", err);
		goto rollback;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sql_fail(db, "commit", err);
		goto rollback;
	}
	ret = 0;
	goto done;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
done:
	for (int i = 0; i < NSQL; i++)
		sqlite3_finalize(s[i]);
	return ret;
}

int gen_store(const char *dir, const struct gen_store_spec *spec, struct perr *err)
{
	int reps = spec->reps > 0 ? spec->reps : 1;
	int nn = (int)(spec->runs / reps / GEN_NP);
	if (nn < 1)
		nn = 1;
	double *nv = xcalloc((size_t)nn, sizeof(double)), pv[GEN_NP];
	for (int i = 0; i < nn; i++)
		nv[i] = i + 1;
	for (int i = 0; i < GEN_NP; i++)
		pv[i] = 1 << i;
	struct plan_param params[2] = {
		{ .name = "n", .nvalues = nn, .values = nv, .is_int = 1 },
		{ .name = "p", .nvalues = GEN_NP, .values = pv, .is_int = 1 },
	};
	struct design_spec ds = { .nparams = 2, .params = params, .repetitions = reps };
	struct plan pl;
	struct store *st = NULL;
	char *cfg = gen_store_config(nn, GEN_NP, reps);
	int ret = -1;
	if (plan_full_factorial(&pl, &ds, err) < 0)
		goto done;
	for (int i = 0; i < pl.npoints; i++)
		pl.points[i].core_hours = 0.01 * reps;
	if (store_create(&st, dir, "bench", "local", cfg, &pl, err) == 0) {
		store_close(st);
		char *path = xasprintf("%s/campaign.db", dir);
		sqlite3 *db;
		if (sqlite3_open(path, &db) != SQLITE_OK)
			sql_fail(db, path, err);
		else
			ret = fill(db, &pl, spec, err);
		sqlite3_close(db);
		free(path);
	}
	plan_release(&pl);
done:
	free(cfg);
	free(nv);
	return ret;
}
