/* Growing campaigns: store_plan_diff, store_grow, store_append_runs, retired
   runs, re-measurements, and the migration of a store made before them. */
#include "campaign/store.h"
#include "tests/lib/tap.h"
#include <sqlite3.h>
#include <stdlib.h>

static void make_plan(struct plan *pl, int nn, const double *n, int reps)
{
	static double p[] = { 2 };
	struct plan_param params[] = { { "n", NULL, nn, (double *)n, 1 }, { "p", "ranks", 1, p, 1 } };
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = reps };
	struct perr err;
	plan_full_factorial(pl, &spec, &err);
	for (int i = 0; i < pl->npoints; i++)
		pl->points[i].core_hours = 0.5 * reps;      /* 0.5 per run */
}

static void done_all(struct store *st, double value)
{
	struct run *runs;
	int n;
	struct perr err;
	struct measurement_list ml;
	measurement_list_init(&ml);
	measurement_list_add(&ml, -1, "main", "time", value);
	store_load_runs(st, 0, &runs, &n, &err);
	for (int i = 0; i < n; i++)
		if (runs[i].state == RUN_PENDING) {
			store_mark_submitted(st, runs[i].id, "1", 1, &err);
			store_mark_done(st, runs[i].id, 2, 0, 1, &ml, NULL, &err);
		}
	runs_free(runs, n);
	measurement_list_release(&ml);
}

static long long count_state(struct store *st, enum run_state s)
{
	struct run *runs;
	int n;
	struct perr err;
	long long c = 0;
	store_load_runs(st, 0, &runs, &n, &err);
	for (int i = 0; i < n; i++)
		c += runs[i].state == s;
	runs_free(runs, n);
	return c;
}

/* How many values point (n, p=2) has in the experiment (-1: absent), and
   whether one of them is want. */
static int point_count(struct store *st, double n, int flags, double want, int *has)
{
	struct experiment e;
	struct perr err;
	experiment_init(&e);
	int count = -1;
	if (has)
		*has = 0;
	if (store_load_experiment_with(st, NULL, flags, &e, &err) == 0) {
		double coords[2] = { n, 2 };
		int pt = experiment_find_point(&e, coords);
		const struct exp_values *v = pt < 0 ? NULL : experiment_values(&e, 0, 0, pt);
		count = v ? v->n : -1;
		for (int i = 0; v && has && i < v->n; i++)
			*has |= v->v[i] == want;
	}
	experiment_release(&e);
	return count;
}

static void test_grow(const char *dir)
{
	double n3[] = { 10, 20, 30 }, n4[] = { 10, 20, 30, 40 }, n2[] = { 10, 20 };
	struct plan pl3, pl4, pl2, plbad;
	make_plan(&pl3, 3, n3, 2);
	make_plan(&pl4, 4, n4, 2);
	make_plan(&pl2, 2, n2, 2);
	struct store *st;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "g", "local", "name = \"g\";", &pl3, &err), 0, "campaign created");
	done_all(st, 1.0);
	struct store_diff d;
	is_int(store_plan_diff(st, &pl4, &d, &err), 0, "diff against a plan with one more value");
	ok(d.added == 2 && d.kept == 6 && d.kept_done == 6 && d.retired == 0, "2 added, 6 kept (done)");
	ok(d.added_core_hours > 0.99 && d.added_core_hours < 1.01, "the added runs cost 2 x 0.5 core-hours");
	is_int(d.added_points, 1, "one new point");
	is_int(store_grow(st, &pl4, "name = \"g\"; # 4", &d, &err), 0, "grown");
	is_int(count_state(st, RUN_DONE), 6, "every earlier run stays done");
	is_int(count_state(st, RUN_PENDING), 2, "only the new value's runs are pending");
	struct run r;
	store_load_run(st, 7, &r, &err);
	ok(r.values[0] == 40 && r.state == RUN_PENDING, "new runs come after the old ones");
	run_release(&r);
	char *cfg = store_get_meta(st, "config");
	is_str(cfg, "name = \"g\"; # 4", "the config is the grown one");
	free(cfg);
	done_all(st, 1.0);

	is_int(store_grow(st, &pl2, NULL, &d, &err), 0, "two values removed");
	ok(d.retired == 4 && d.kept == 4 && d.added == 0, "their 4 runs retired, 4 kept");
	is_int(count_state(st, RUN_RETIRED), 4, "retired, not deleted");
	struct store_counts c;
	store_counts(st, &c, &err);
	ok(c.planned == 4 && c.retired == 4, "counts: 4 planned, 4 retired");
	is_int(point_count(st, 30, 0, 0, NULL), -1, "analysis leaves the retired point out");
	is_int(point_count(st, 30, STORE_INCLUDE_RETIRED, 0, NULL), 2, "unless asked to include retired runs");
	struct measurement_list ml;
	measurement_list_init(&ml);
	store_load_measurements(st, 5, &ml, &err);
	is_int(ml.n, 1, "a retired run keeps its measurements");
	measurement_list_release(&ml);

	is_int(store_grow(st, &pl3, NULL, &d, &err), 0, "a value added back");
	ok(d.unretired == 2 && d.added == 0, "un-retires its runs, adds none");
	is_int(count_state(st, RUN_DONE), 6, "they are done again");

	double bad[] = { 10, 20, 30 };
	make_plan(&plbad, 3, bad, 2);
	free(plbad.params[0].name);
	plbad.params[0].name = strdup("m");
	ok(store_grow(st, &plbad, NULL, &d, &err) == -1, "another parameter is refused");
	contains(err.msg, "parameters: 'm'", "naming the key");
	plan_release(&plbad);
	make_plan(&plbad, 3, n3, 2);
	plbad.points[0].policy = strdup("spread");
	plbad.points[0].nodes = 1;
	ok(store_grow(st, &pl3, NULL, &d, &err) == 0 && store_plan_diff(st, &plbad, &d, &err) == -1,
	   "a changed placement of an existing point is refused");
	contains(err.msg, "placement", "naming the placement");
	contains(err.msg, "new campaign directory", "suggesting a new directory");
	plan_release(&plbad);
	store_close(st);
	plan_release(&pl2);
	plan_release(&pl3);
	plan_release(&pl4);
}

static void test_append(const char *dir)
{
	double n3[] = { 10, 20, 30 };
	struct plan pl;
	make_plan(&pl, 3, n3, 2);
	struct store *st;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "a", "local", "name = \"a\";", &pl, &err), 0, "campaign created");
	done_all(st, 1.0);
	double at20[] = { 20, 2 }, at25[] = { 25, 2 };
	struct store_new_run nr[3] = {
		{ .values = at20, .repetition = 0, .origin = "refine", .core_hours = 0.5 },
		{ .values = at20, .repetition = 1, .origin = "refine", .core_hours = 0.5 },
		{ .values = at25, .repetition = 0, .origin = "refine", .core_hours = 0.5, .reason = "between" },
	};
	long long ids[3];
	is_int(store_append_runs(st, nr, 3, ids, &err), 0, "three runs appended in one go");
	ok(ids[0] == 7 && ids[1] == 8 && ids[2] == 9, "with the next ids");
	struct run r;
	store_load_run(st, ids[0], &r, &err);
	ok(r.repetition == 3 && r.remeasure == 0 && r.ranks == 2, "repetition 0: the next free one (3)");
	is_str(r.origin, "refine", "origin kept");
	run_release(&r);
	store_load_run(st, ids[1], &r, &err);
	ok(r.repetition == 1 && r.remeasure == 1, "repetition 1 again: a new attempt of it");
	run_release(&r);
	store_load_run(st, ids[2], &r, &err);
	ok(r.values[0] == 25 && r.repetition == 1, "a new point gets repetition 1");
	run_release(&r);

	struct measurement_list ml;
	measurement_list_init(&ml);
	measurement_list_add(&ml, -1, "main", "time", 9.0);
	store_mark_submitted(st, ids[1], "1", 1, &err);
	store_mark_done(st, ids[1], 2, 0, 1, &ml, NULL, &err);
	measurement_list_release(&ml);
	int has9;
	is_int(point_count(st, 20, 0, 9.0, &has9), 2, "a re-measured repetition counts once");
	ok(has9, "with its latest measurement");

	double at10[] = { 10, 2 };
	struct store_new_run moved = { .values = at10, .nodes = 1, .policy = "spread" };
	ok(store_append_runs(st, &moved, 1, NULL, &err) == -1, "an append with another placement is refused");
	struct store_counts c;
	store_counts(st, &c, &err);
	is_int(c.planned, 9, "and writes nothing");
	/* the plan again: refine's extra repetition is kept, nothing retired */
	struct store_diff d;
	is_int(store_plan_diff(st, &pl, &d, &err), 0, "diff against the original plan");
	ok(d.retired == 0 && d.added == 0, "refine's point between two plan values (25) stays too");
	double n2[] = { 10, 20 };
	struct plan pl2;
	make_plan(&pl2, 2, n2, 2);
	is_int(store_plan_diff(st, &pl2, &d, &err), 0, "diff against a plan that ends at 20");
	ok(d.retired == 3 && d.added == 0, "retires 30's two runs and 25, now outside the plan's range");
	plan_release(&pl2);
	store_close(st);
	plan_release(&pl);
}

/* A store made before growing campaigns: no remeasure/origin/retired_from
   columns, no points.map; it opens, reads and grows. */
static void test_migration(const char *dir)
{
	double n3[] = { 10, 20, 30 }, n4[] = { 10, 20, 30, 40 };
	struct plan pl3, pl4;
	make_plan(&pl3, 3, n3, 2);
	make_plan(&pl4, 4, n4, 2);
	struct store *st;
	struct perr err = { 0 };
	is_int(store_create(&st, dir, "m", "local", "name = \"m\";", &pl3, &err), 0, "campaign created");
	done_all(st, 1.0);
	store_close(st);
	char path[700];
	snprintf(path, sizeof(path), "%s/campaign.db", dir);
	sqlite3 *db;
	sqlite3_open(path, &db);
	int rc = sqlite3_exec(db, "DROP INDEX runs_identity; ALTER TABLE runs DROP COLUMN remeasure;"
			      " ALTER TABLE runs DROP COLUMN origin; ALTER TABLE runs DROP COLUMN retired_from;"
			      " ALTER TABLE points DROP COLUMN map; ALTER TABLE points DROP COLUMN cores_per_rank;"
			      " DELETE FROM meta WHERE key = 'points_launch';", NULL, NULL, NULL);
	sqlite3_close(db);
	is_int(rc, SQLITE_OK, "store rolled back to the old schema");
	is_int(store_open(&st, dir, STORE_READONLY, &err), 0, "an old store opens read-only");
	is_int(count_state(st, RUN_DONE), 6, "and reads its runs");
	struct store_diff d;
	ok(store_plan_diff(st, &pl4, &d, &err) == 0 && d.added == 2, "and diffs against a grown plan");
	store_close(st);
	is_int(store_create(&st, dir, "m", "local", "", &pl4, &err), 0, "an old store grows (migrated)");
	ok(count_state(st, RUN_DONE) == 6 && count_state(st, RUN_PENDING) == 2, "keeping every done run");
	store_close(st);
	plan_release(&pl3);
	plan_release(&pl4);
}

int main(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/grow", tap_tmpdir());
	test_grow(dir);
	snprintf(dir, sizeof(dir), "%s/append", tap_tmpdir());
	test_append(dir);
	snprintf(dir, sizeof(dir), "%s/migrate", tap_tmpdir());
	test_migration(dir);
	return done_testing();
}
