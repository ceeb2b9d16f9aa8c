/*
 * The monitor's model layer on real campaign stores: a generated
 * 100,000-run store for filtering, sorting, incremental refresh, progress
 * and budget arithmetic; small stores for ETA, flags and actions.
 */
#include "tests/lib/tap.h"
#include "common/xalloc.h"
#include "campaign/store.h"
#include "orchestrator/control.h"
#include "tui/details.h"
#include "tui/flags.h"
#include "tui/model.h"
#include <sys/stat.h>

#define T0 1700000000.0

static struct perr err;

/* A full factorial a x b x reps, each run planned at ch_per_run core hours. */
static struct store *make_store(const char *dir, int na, int nb, int reps, double ch_per_run)
{
	struct plan_param params[2] = { { 0 } };
	double *av = xmalloc(sizeof(double) * (size_t)na), *bv = xmalloc(sizeof(double) * (size_t)nb);
	for (int i = 0; i < na; i++)
		av[i] = i + 1;
	for (int i = 0; i < nb; i++)
		bv[i] = 10.0 * (i + 1);
	params[0] = (struct plan_param){ .name = "a", .nvalues = na, .values = av, .is_int = 1 };
	params[1] = (struct plan_param){ .name = "b", .nvalues = nb, .values = bv, .is_int = 1 };
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = reps };
	struct plan pl;
	struct store *st = NULL;
	if (plan_full_factorial(&pl, &spec, &err) < 0) {
		diag("plan: %s", err.msg);
		exit(2);
	}
	for (int i = 0; i < pl.npoints; i++)
		pl.points[i].core_hours = ch_per_run * reps;
	if (store_create(&st, dir, "big", "local", "name = \"big\";", &pl, &err) < 0) {
		diag("store_create: %s", err.msg);
		exit(2);
	}
	plan_release(&pl);
	free(av);
	free(bv);
	return st;
}

static void must(int rc, const char *what)
{
	if (rc < 0) {
		diag("%s: %s", what, err.msg);
		exit(2);
	}
}

static FILE *open_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f) {
		diag("cannot write %s", p);
		exit(2);
	}
	free(p);
	return f;
}

static void run_done(struct store *st, long long id, double start, double wall)
{
	must(store_mark_submitted(st, id, "100:1", start, &err), "submitted");
	must(store_mark_running(st, id, start, &err), "running");
	must(store_mark_done(st, id, start + wall, 0, wall, NULL, NULL, &err), "done");
}

/* Is the view ordered by cmp (non-decreasing), ties by id ascending? */
static int view_ordered(const struct top_model *m, double (*key)(const struct top_model *, const struct run *),
			int desc)
{
	for (size_t i = 1; i < m->nview; i++) {
		const struct run *a = &top_model_at(m, i - 1)->run, *b = &top_model_at(m, i)->run;
		double ka = key(m, a), kb = key(m, b);
		if (desc ? ka < kb : ka > kb)
			return 0;
		if (ka == kb && a->id > b->id)
			return 0;
	}
	return 1;
}

static double key_state(const struct top_model *m, const struct run *r) { (void)m; return r->state; }
static double key_elapsed(const struct top_model *m, const struct run *r) { return top_run_elapsed(r, m->now); }
static double key_point(const struct top_model *m, const struct run *r) { (void)m; return r->values[0] * 1e6 + r->values[1]; }
static double key_attempts(const struct top_model *m, const struct run *r) { (void)m; return r->attempts; }

static void test_big(void)
{
	char *dir = xasprintf("%s/big", tap_tmpdir());
	struct store *st = make_store(dir, 100, 100, 10, 0.5);
	must(store_set_meta(st, "budget_core_hours", "40000", &err), "meta");
	/* 1000 done, 100 failed, 50 cancelled, 10 running, 5 submitted */
	double spent_s = 0;
	for (long long id = 1; id <= 1000; id++) {
		double wall = 10 + (double)(id % 7);
		run_done(st, id, T0 - 5000 + (double)id, wall);
		spent_s += wall;
	}
	for (long long id = 1001; id <= 1100; id++) {
		must(store_mark_submitted(st, id, "200:1", T0 - 3000, &err), "submitted");
		must(store_mark_running(st, id, T0 - 3000, &err), "running");
		must(store_mark_failed(st, id, T0 - 2995, 3, 5, "exit 3", 0, &err), "failed");
		spent_s += 5;
	}
	for (long long id = 1101; id <= 1150; id++)
		must(store_mark_cancelled(st, id, T0 - 2000, "test", &err), "cancelled");
	for (long long id = 1151; id <= 1160; id++) {
		char bid[32];
		snprintf(bid, sizeof(bid), "%lld:7", 90000 - id);
		must(store_mark_submitted(st, id, bid, T0 - 200, &err), "submitted");
		must(store_mark_running(st, id, T0 - 100 - (double)(id - 1151), &err), "running");
	}
	for (long long id = 1161; id <= 1165; id++)
		must(store_mark_submitted(st, id, "300:1", T0 - 50, &err), "submitted");

	struct top_model m;
	ok(top_model_open(&m, dir, T0, &err) == 0, "open the 100,000-run store read-only");
	is_int(m.nrows, 100000, "every run loaded");
	is_int(m.nview, 100000, "no filter: every run in the view");
	is_int(m.nparams, 2, "two parameters");
	is_str(m.params[1], "b", "parameter names from the store");

	struct top_progress p;
	top_model_progress(&m, &p);
	is_int(p.planned, 100000, "planned");
	is_int(p.done, 1000, "done");
	is_int(p.failed, 100, "failed");
	is_int(p.cancelled, 50, "cancelled");
	is_int(p.running, 10, "running");
	is_int(p.submitted, 5, "submitted");
	is_int(p.inflight, 15, "in flight = submitted + running");
	is_int(p.pending, 100000 - 1165, "pending");
	is_rel(p.fraction, 1150.0 / 100000, 1e-12, "finished fraction");

	struct top_budget b;
	top_model_budget(&m, &b);
	is_rel(b.budget, 40000, 1e-12, "budget from the store's meta");
	is_rel(b.committed, 15 * 0.5, 1e-9, "committed: planned cost of the runs in flight");
	is_rel(b.pending, (100000 - 1165) * 0.5, 1e-9, "pending core hours");
	is_rel(b.planned, 100000 * 0.5, 1e-9, "planned core hours");
	is_rel(b.spent, spent_s / 3600, 1e-9, "spent: measured wall x ranks");
	is_rel(b.over, spent_s / 3600 + 7.5 + (100000 - 1165) * 0.5 - 40000, 1e-9,
	       "over budget by spent + committed + pending - budget");

	/* filters */
	ok(top_model_set_filter(&m, "state=done", &err) == 0, "filter state=done");
	is_int(m.nview, 1000, "state=done matches the done runs");
	top_model_set_filter(&m, "state!=pending", &err);
	is_int(m.nview, 1165, "state!=pending");
	top_model_set_filter(&m, "a=3", &err);
	is_int(m.nview, 1000, "a=3: 100 values of b x 10 repetitions");
	top_model_set_filter(&m, "a=3 b>=500", &err);
	is_int(m.nview, 510, "a=3 b>=500: two conditions, both must hold");
	top_model_set_filter(&m, "a=3,b<20", &err);
	is_int(m.nview, 10, "comma-separated conditions");
	top_model_set_filter(&m, "rep=10 a<=2", &err);
	is_int(m.nview, 200, "rep=10 a<=2");
	top_model_set_filter(&m, "^77 ", &err);
	is_int(m.nview, 1, "regex anchored on the id");
	is_int(top_model_at(&m, 0)->run.id, 77, "regex found run 77");
	top_model_set_filter(&m, "FAILED", &err);
	is_int(m.nview, 100, "regex is case-insensitive");
	top_model_set_filter(&m, "a=10 b=1000 ", &err);
	is_int(m.nview, 10, "a=10 b=1000 as conditions");
	top_model_set_filter(&m, "a=10 b=1000 +", &err);
	ok(m.filter.is_regex, "text with a regex operator is a regex");
	is_int(m.nview, 10, "regex 'a=10 b=1000 +' matches the same rows");
	ok(top_model_set_filter(&m, "zz=1", &err) < 0, "unknown name is an error");
	contains(err.msg, "'zz'", "the error names it");
	is_int(m.nview, 10, "a bad filter keeps the old one");
	ok(top_model_set_filter(&m, "state=bogus", &err) < 0, "unknown state is an error");
	contains(err.msg, "unknown state 'bogus'", "and says so");
	ok(top_model_set_filter(&m, "a(", &err) < 0, "bad regex is an error");
	contains(err.msg, "bad regex", "and says so");
	ok(top_model_set_filter(&m, "job=88845", &err) == 0, "job= matches the shown process group");
	is_int(m.nview, 1, "one run has job 88845");
	top_model_set_filter(&m, "", &err);
	is_int(m.nview, 100000, "empty filter clears");

	/* sorting */
	top_model_set_sort(&m, TOP_COL_ELAPSED, 1);
	is_int(top_model_at(&m, 0)->run.id, 1160, "longest-running run first (elapsed desc)");
	ok(view_ordered(&m, key_elapsed, 1), "elapsed descending over all 100,000 rows");
	top_model_set_sort(&m, TOP_COL_STATE, 0);
	ok(view_ordered(&m, key_state, 0), "state ascending, ties by id");
	is_int(top_model_at(&m, 0)->run.id, 1166, "first pending run first");
	top_model_set_sort(&m, TOP_COL_POINT, 1);
	ok(view_ordered(&m, key_point, 1), "point descending, ties by id");
	{
		char buf[64];
		top_model_point_text(&m, &top_model_at(&m, 0)->run, buf, sizeof(buf));
		is_str(buf, "a=100 b=1000", "last design point first");
	}
	top_model_set_sort(&m, TOP_COL_ATTEMPTS, 1);
	ok(view_ordered(&m, key_attempts, 1), "attempts descending");
	top_model_set_sort(&m, TOP_COL_JOB, 0);
	{
		char buf[64];
		top_model_cell(&m, top_model_at(&m, m.nview - 1), TOP_COL_JOB, buf, sizeof(buf));
		is_str(buf, "88849", "job ids sort as numbers: the largest last");
	}
	top_model_set_sort(&m, TOP_COL_ID, 1);
	is_int(top_model_at(&m, 0)->run.id, 100000, "id descending");
	top_model_set_sort(&m, TOP_COL_ID, 0);

	/* cursor, virtual scrolling window, marks */
	top_model_move(&m, 1 << 30, 18);
	is_int(m.cursor, 99999, "End: cursor on the last row");
	is_int(m.scroll, 100000 - 18, "window shows the last 18 rows");
	top_model_move(&m, -(1 << 30), 18);
	is_int(m.cursor, 0, "Home");
	is_int(m.scroll, 0, "Home scrolls to the top");
	ok(top_model_goto(&m, 1155, 18) == 0, "go to run 1155");
	top_model_mark(&m, top_model_find(&m, 9), 1);
	top_model_mark(&m, top_model_find(&m, 3), 1);
	top_model_mark(&m, top_model_find(&m, 5), 1);
	long long *ids;
	size_t n = top_model_selection(&m, &ids);
	ok(n == 3 && ids[0] == 3 && ids[1] == 5 && ids[2] == 9, "marked runs are the selection, by id");
	free(ids);
	top_model_mark_view(&m, 0);
	n = top_model_selection(&m, &ids);
	ok(n == 1 && ids[0] == 1155, "no mark: the cursor run is the selection");
	free(ids);

	/* incremental refresh */
	top_model_set_sort(&m, TOP_COL_STATE, 0);
	top_model_goto(&m, 1155, 18);
	is_int(top_model_refresh(&m, T0, &err), 0, "nothing changed: nothing reloaded");
	must(store_mark_done(st, 1155, T0, 0, 99, NULL, NULL, &err), "done");
	is_int(top_model_refresh(&m, T0 + 1, &err), 1, "one change: one row reloaded");
	is_int(top_model_current(&m)->run.id, 1155, "the cursor stays on its run when it moves in the sort");
	is_int(top_model_current(&m)->run.state, RUN_DONE, "and shows its new state");
	top_model_progress(&m, &p);
	is_int(p.done, 1001, "progress follows");
	is_int(p.running, 9, "one fewer running");

	/* the incremental view equals a full rebuild, for several sorts and a filter */
	static const int sorts[][2] = { { TOP_COL_STATE, 0 }, { TOP_COL_ELAPSED, 1 }, { TOP_COL_JOB, 1 },
					{ TOP_COL_ID, 1 } };
	long long next = 2000;
	for (size_t k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++) {
		top_model_set_filter(&m, k == 3 ? "a<=30" : "", &err);
		top_model_set_sort(&m, sorts[k][0], sorts[k][1]);
		for (int round = 0; round < 3; round++) {
			for (int j = 0; j < 20; j++, next += 7) {
				char bid[32];
				snprintf(bid, sizeof(bid), "%lld:3", 500 + next % 97);
				must(store_mark_submitted(st, next, bid, T0 + round, &err), "s");
				if (j % 2)
					must(store_mark_running(st, next, T0 + round - j, &err), "r");
			}
			top_model_refresh(&m, T0 + 10 + round, &err);
		}
		size_t nv = m.nview;
		long long *inc = xmalloc(sizeof(*inc) * (nv ? nv : 1));
		for (size_t i = 0; i < nv; i++)
			inc[i] = top_model_at(&m, i)->run.id;
		top_model_set_sort(&m, sorts[k][0], sorts[k][1]);   /* full rebuild */
		int same = m.nview == nv;
		for (size_t i = 0; same && i < nv; i++)
			same = inc[i] == top_model_at(&m, i)->run.id;
		ok(same, "incremental view = full rebuild (sort %s %s%s)", top_col_name(sorts[k][0]),
		   sorts[k][1] ? "desc" : "asc", k == 3 ? ", filter a<=30" : "");
		free(inc);
	}

	top_model_release(&m);

	/* read a page at a time (top's first screen): a run changed on a page
	   already read, while later pages are read, is not lost */
	struct top_model pm, fm;
	ok(top_model_open_paged(&pm, dir, T0, &err) == 0, "open the store a page at a time");
	ok(pm.loading && pm.nrows == TOP_FIRST_PAGE, "the first page only: %zu runs, still reading",
	   pm.nrows);
	is_int(pm.load_total, 100000, "it knows how many runs there are to read");
	must(store_mark_cancelled(st, 9000, T0, "after the first page", &err), "cancel 9000");
	int reads = 0;
	while (pm.loading && reads < 100) {
		if (reads == 1)
			must(store_mark_cancelled(st, 99999, T0, "on a later page", &err), "cancel 99999");
		must((int)top_model_refresh(&pm, T0 + 1, &err), "page");
		reads++;
	}
	ok(!pm.loading && reads <= 6, "the rest in %d reads (pages that double)", reads);
	is_int(pm.nrows, 100000, "every run read");
	is_int(top_model_find(&pm, 9000)->run.state, RUN_PENDING, "run 9000 as its page read it");
	must((int)top_model_refresh(&pm, T0 + 2, &err), "refresh");
	is_int(top_model_find(&pm, 9000)->run.state, RUN_CANCELLED,
	       "the next refresh reads run 9000's change, made after its page was read");
	must(top_model_open(&fm, dir, T0 + 2, &err), "open whole");
	int same = fm.nrows == pm.nrows && fm.stats.n[RUN_CANCELLED] == pm.stats.n[RUN_CANCELLED] &&
		   fm.stats.n[RUN_DONE] == pm.stats.n[RUN_DONE] && fm.nview == pm.nview;
	for (size_t i = 0; same && i < fm.nrows; i++)
		same = fm.rows[i].run.id == pm.rows[i].run.id && fm.rows[i].run.state == pm.rows[i].run.state &&
		       fm.rows[i].run.seq == pm.rows[i].run.seq;
	ok(same, "read a page at a time, the model is the one read whole (%lld cancelled)",
	   fm.stats.n[RUN_CANCELLED]);
	is_int(top_model_refresh(&pm, T0 + 3, &err), 0, "and nothing is read again after");
	top_model_release(&fm);
	top_model_release(&pm);
	store_close(st);
	free(dir);
}

static void test_eta(void)
{
	char *dir = xasprintf("%s/eta", tap_tmpdir());
	struct store *st = make_store(dir, 2, 1, 3, 0);
	/* ids 1-3: a=1, ids 4-6: a=2 */
	struct top_model m;
	must(top_model_open(&m, dir, T0, &err), "open");
	is_rel(top_model_eta(&m), -1, 0, "nothing measured: ETA unknown");
	is_rel(top_model_elapsed(&m), 0, 0, "nothing ran: elapsed 0");
	top_model_release(&m);

	run_done(st, 1, T0 - 100, 10);
	run_done(st, 4, T0 - 90, 30);
	must(store_mark_submitted(st, 2, "1:1", T0 - 4, &err), "s");
	must(store_mark_running(st, 2, T0 - 4, &err), "r");
	must(store_mark_submitted(st, 5, "1:1", T0 - 40, &err), "s");
	must(store_mark_running(st, 5, T0 - 40, &err), "r");
	must(top_model_open(&m, dir, T0, &err), "open");
	/* remaining: run 2 (10 - 4 = 6), run 5 (30 - 40 -> 0), run 3 (10), run 6 (30); 2 in flight */
	is_rel(top_model_eta(&m), 23, 1e-9, "ETA = remaining work per point / runs in flight");
	is_rel(top_model_elapsed(&m), 100, 1e-9, "elapsed since the first submission");
	top_model_release(&m);

	must(store_mark_done(st, 2, T0 + 1, 0, 5, NULL, NULL, &err), "d");
	must(store_mark_failed(st, 5, T0 + 2, 1, 42, "x", 0, &err), "f");
	must(top_model_open(&m, dir, T0 + 10, &err), "open");
	is_rel(top_model_eta(&m), -1, 0, "pending runs but nothing in flight: ETA unknown (idle)");
	is_rel(top_model_elapsed(&m), 102, 1e-9, "idle: elapsed stops at the last end");
	top_model_release(&m);

	must(store_mark_cancelled(st, 3, T0 + 3, "x", &err), "c");
	must(store_mark_cancelled(st, 6, T0 + 3, "x", &err), "c");
	must(top_model_open(&m, dir, T0 + 10, &err), "open");
	is_rel(top_model_eta(&m), 0, 0, "nothing left: ETA 0");
	top_model_release(&m);
	store_close(st);
	free(dir);
}

/* Unmeasured points: their planned time scaled by measured / planned. */
static void test_eta_planned(void)
{
	char *dir = xasprintf("%s/eta2", tap_tmpdir());
	double av[2] = { 1, 2 };
	struct plan_param params[1] = { { .name = "a", .nvalues = 2, .values = av, .is_int = 1 } };
	struct design_spec spec = { .nparams = 1, .params = params, .repetitions = 3 };
	struct plan pl;
	struct store *st;
	must(plan_full_factorial(&pl, &spec, &err), "plan");
	pl.points[0].core_hours = 3 * 10 / 3600.0;     /* 10 s per run planned */
	pl.points[1].core_hours = 3 * 40 / 3600.0;     /* 40 s per run planned */
	must(store_create(&st, dir, "eta2", "local", "x", &pl, &err), "create");
	plan_release(&pl);
	run_done(st, 1, T0 - 100, 20);                  /* twice as long as planned */
	must(store_mark_submitted(st, 2, "1:1", T0 - 5, &err), "s");
	must(store_mark_running(st, 2, T0 - 5, &err), "r");
	struct top_model m;
	must(top_model_open(&m, dir, T0, &err), "open");
	/* run 2: 20 - 5; run 3: 20; runs 4-6: 40 x 2 each; one run in flight */
	is_rel(top_model_eta(&m), 15 + 20 + 3 * 80, 1e-9, "ETA uses the plan, scaled by measured / planned");
	top_model_release(&m);
	store_close(st);
	free(dir);
}

static void test_flags_and_actions(void)
{
	char *dir = xasprintf("%s/flags", tap_tmpdir());
	struct store *st = make_store(dir, 2, 1, 3, 0.25);
	static const double vals[6] = { 10, 10.1, 9.9, 10, 15, 5 };
	for (long long id = 1; id <= 6; id++) {
		struct measurement_list ml;
		measurement_list_init(&ml);
		measurement_list_add(&ml, 0, "main", "time", vals[id - 1]);
		must(store_mark_submitted(st, id, "1:1", T0, &err), "s");
		must(store_mark_done(st, id, T0 + 1, 0, 1, &ml, NULL, &err), "d");
		measurement_list_release(&ml);
	}
	struct top_flags f;
	char buf[256];
	ok(top_flags_compute(st, TOP_FLAGS_COV, TOP_FLAGS_MIN_REPS, &f, &err) == 0, "flags computed");
	is_int(f.npoints, 2, "two points with 3 repetitions");
	is_int(f.nnoisy, 1, "one point above CoV 0.1");
	is_rel(f.lines[0].cov, 0.5, 1e-9, "its CoV (sd 5 / mean 10)");
	contains(f.lines[0].where, "a=2 b=10: main time", "where it is");
	top_flags_summary(&f, buf, sizeof(buf));
	contains(buf, "1 of 2 points above CoV 0.1", "summary line");
	/* what the runs used: run 5 got 40% of its core, a busy loop (pid 4242) most of the rest */
	for (long long id = 1; id <= 6; id++) {
		double share = id == 5 ? 0.4 : 0.99;
		struct run_resource r = { .rank = 0, .utime = share, .stime = 0, .wall = 1, .cpu_share = share,
					  .allowed_share = 1, .maxrss_kb = 2048, .nvcsw = 2, .nivcsw = 3,
					  .load_start = 0.5, .load_end = 1.25, .run_delay = 1 - share,
					  .foreign = 1 - share, .steal = 0, .pressure = NAN, .quiet_wait = NAN };
		struct run_cause c = { .rank = 0, .pid = 4242, .comm = "busy", .core = 0, .seconds = 0.55 };
		must(store_put_resources(st, id, &r, 1, &err), "resources");
		must(store_put_causes(st, id, &c, id == 5, &err), "causes");
	}
	store_close(st);
	struct top_model fm;
	must(top_model_open(&fm, dir, T0, &err), "open");
	struct top_details fd = { 0 };
	ok(top_details_load(&fd, &fm, 5, 5, &err) == 0, "details of run 5");
	is_int(fd.res.n, 1, "one resource line per record");
	if (fd.res.n == 1)
		is_str(fd.res.v[0], "rank 0: CPU share 0.40 (user 0.4 s, sys 0 s, wall 1 s)  max RSS 2.0 MB  "
		       "switches 2 vol, 3 invol  load 0.50 -> 1.25  waited for a CPU 0.6 s  others on its cores 0.6 s",
		       "what rank 0 used");
	is_str(fd.disturbed, "rank 0 lost 60% of its core to other programs, CPU share 0.40: pid 4242 (busy) ran on "
	       "core 0 for 55% of the run", "run 5 is disturbed, and why");
	ok(fd.ncauses == 1 && fd.causes[0].pid == 4242 && !strcmp(fd.causes[0].comm, "busy") && fd.causes[0].core == 0 &&
	   fabs(fd.causes[0].share - 0.55) < 1e-12, "and who took its time");
	top_details_release(&fd);
	ok(top_details_load(&fd, &fm, 1, 5, &err) == 0, "details of run 1");
	ok(fd.res.n == 1 && fd.disturbed == NULL, "run 1 used its core: not disturbed");
	top_details_release(&fd);
	top_model_release(&fm);

	/* actions on a second store: cancel pending and in-flight, retry failed */
	char *dir2 = xasprintf("%s/act", tap_tmpdir());
	st = make_store(dir2, 2, 1, 3, 0.25);
	must(store_mark_submitted(st, 2, "1:1", T0, &err), "s");
	must(store_mark_running(st, 2, T0, &err), "r");
	run_done(st, 3, T0, 1);
	must(store_mark_submitted(st, 4, "1:1", T0, &err), "s");
	must(store_mark_failed(st, 4, T0 + 1, 2, 1, "exit 2", 0, &err), "f");
	store_close(st);
	long long ids[3] = { 1, 2, 3 };
	int nc = -1;
	struct cancel_options co = { .ids = ids, .nids = 3, .reason = "test" };
	struct cancel_result cr;
	ok(campaign_cancel(dir2, &co, &cr, &err) == 0, "cancel runs 1-3");
	nc = cr.ncancelled;
	is_int(cr.nnotes, 1, "the done run gets a note");
	is_int(cr.nerrors, 0, "no errors");
	cancel_result_release(&cr);
	long long nosuch = 99;
	co.ids = &nosuch;
	co.nids = 1;
	ok(campaign_cancel(dir2, &co, &cr, &err) == 0, "cancel a run that does not exist");
	is_int(cr.nmissing, 1, "it is counted as missing");
	is_int(cr.first_missing, 99, "by its id");
	is_int(cr.ncancelled, 0, "and nothing is cancelled");
	cancel_result_release(&cr);
	is_int(nc, 2, "the pending and the running run are cancelled, the done one is not");
	long long rid[2] = { 4, 5 };
	int nr = -1;
	ok(campaign_retry(dir2, rid, 2, "test", &nr, &err) == 0, "retry runs 4-5");
	is_int(nr, 1, "only the failed run goes back to pending");
	struct top_model m;
	must(top_model_open(&m, dir2, T0, &err), "open");
	is_int(top_model_find(&m, 1)->run.state, RUN_CANCELLED, "run 1 cancelled");
	is_int(top_model_find(&m, 2)->run.state, RUN_CANCELLED, "run 2 cancelled");
	is_int(top_model_find(&m, 3)->run.state, RUN_DONE, "run 3 still done");
	is_int(top_model_find(&m, 4)->run.state, RUN_PENDING, "run 4 pending again");
	is_int(top_model_find(&m, 5)->run.state, RUN_PENDING, "run 5 untouched");
	/* details of run 2: files as the run engine and perfsweep-bind write them */
	char *rd = xasprintf("%s/runs", dir2);
	mkdir(rd, 0777);
	free(rd);
	rd = xasprintf("%s/runs/2", dir2);
	mkdir(rd, 0777);
	FILE *f1 = open_in(rd, "argv.json");
	fputs("[\"/bin/prog\", \"-n\", \"a b\", \"it's\"]", f1);
	fclose(f1);
	f1 = open_in(rd, "rank-0.json");
	fputs("{\"format\": \"perfsweep-rank/1\", \"rank\": 0, \"local_rank\": 0, \"node\": \"n1\","
	      " \"policy\": \"compact\", \"cpuset\": \"0-7\", \"cores\": \"0-3\", \"pid\": 77,"
	      " \"exit_status\": 0, \"signal\": null, \"error\": null}", f1);
	fclose(f1);
	f1 = open_in(rd, "rank-1.json");
	fputs("{\"rank\": 1, \"cpus\": [4, 5]}", f1);
	fclose(f1);
	f1 = open_in(rd, "stdout");
	for (int i = 1; i <= 300; i++)
		fprintf(f1, "line %d\n", i);
	fclose(f1);
	f1 = open_in(rd, "stderr");
	fputs("warn: a\r\nwarn: b", f1);
	fclose(f1);
	struct top_details d = { 0 };
	ok(top_details_load(&d, &m, 2, 5, &err) == 0, "details of run 2");
	is_str(d.argv, "/bin/prog -n 'a b' 'it'\\''s'", "argv from argv.json, quoted where needed");
	is_int(d.bind.n, 2, "one binding line per rank-<r>.json");
	if (d.bind.n == 2) {
		is_str(d.bind.v[0], "rank 0: node n1  local 0  cores 0-3  cpus 0-7  policy compact  pid 77  exit 0",
		       "perfsweep-bind's record, the fields that matter");
		is_str(d.bind.v[1], "rank 1: cpus=[4,5]", "another format, flattened");
	}
	is_int(d.out.n, 5, "stdout tail: the last 5 lines");
	if (d.out.n == 5) {
		is_str(d.out.v[0], "line 296", "from line 296");
		is_str(d.out.v[4], "line 300", "to the last");
	}
	is_int(d.err.n, 2, "stderr without a final newline");
	if (d.err.n == 2)
		is_str(d.err.v[0], "warn: a", "CR LF lines lose the CR");
	ok(d.nev >= 3, "history: submitted, running, cancelled (%d events)", d.nev);
	is_int(d.ev[d.nev - 1].state, RUN_CANCELLED, "the last event is the cancel");
	is_int(d.live, 0, "a cancelled run is not live");
	top_details_release(&d);
	ok(top_details_load(&d, &m, 1, 5, &err) == 0, "details of a run that never started");
	ok(d.argv == NULL && d.bind.n == 0 && d.out.n == 0, "nothing recorded: no argv, binding or output");
	top_details_release(&d);
	free(rd);

	top_model_release(&m);
	free(dir);
	free(dir2);
}

/* One parameter a, and ranks per node 1, 2, 4, 8 at each value: time grows with it. */
static void test_contention(void)
{
	char *dir = xasprintf("%s/rpn", tap_tmpdir());
	double av[2] = { 1, 2 };
	struct plan pl = { 0 };
	pl.nparams = 1;
	pl.params = xcalloc(1, sizeof(*pl.params));
	pl.params[0].name = xstrdup("a");
	pl.params[0].nvalues = 2;
	pl.params[0].values = xmalloc(sizeof(av));
	memcpy(pl.params[0].values, av, sizeof(av));
	pl.params[0].is_int = 1;
	pl.npoints = 8;
	pl.points = xcalloc(8, sizeof(*pl.points));
	for (int i = 0; i < 8; i++) {
		pl.points[i].values = xmalloc(sizeof(double));
		pl.points[i].values[0] = av[i / 4];
		pl.points[i].nodes = 1;
		pl.points[i].ranks_per_node = 1 << (i % 4);
		pl.points[i].repetitions = 3;
		pl.runs += 3;
	}
	struct store *st;
	must(store_create(&st, dir, "rpn", "local", "", &pl, &err), "create");
	plan_release(&pl);
	struct top_model m;
	must(top_model_open(&m, dir, T0, &err), "open");
	for (size_t i = 0; i < m.nrows; i++) {
		const struct run *r = &m.rows[i].run;
		struct measurement_list ml;
		measurement_list_init(&ml);
		/* +10% per rank per node, a little noise between repetitions */
		double v = 10 * r->values[0] * (1 + 0.1 * r->ranks_per_node) * (1 + 0.002 * r->repetition);
		measurement_list_add(&ml, 0, "main", "time", v);
		must(store_mark_submitted(st, r->id, "1:1", T0, &err), "s");
		must(store_mark_done(st, r->id, T0 + 1, 0, 1, &ml, NULL, &err), "d");
		measurement_list_release(&ml);
	}
	top_model_release(&m);
	struct top_flags f;
	char buf[512];
	ok(top_flags_compute(st, TOP_FLAGS_COV, TOP_FLAGS_MIN_REPS, &f, &err) == 0, "flags with ranks per node");
	ok(f.rpn_varies, "ranks per node varies");
	is_int(f.ngrowth, 1, "one region grows with ranks per node");
	contains(f.growth[0].region, "main time", "the region");
	is_rel(f.growth[0].growth, 1.8 / 1.1 - 1, 0.05, "by about +64%% from 1 to 8 ranks per node");
	top_flags_summary(&f, buf, sizeof(buf));
	contains(buf, "main time grows +6", "the summary says so");
	is_int(f.nnoisy, 0, "and the repetitions are not noisy");
	store_close(st);

	struct top_lines lines = { 0 };
	char title[256];
	ok(top_validate(dir, &lines, title, sizeof(title), &err) == 0, "the validator runs on the campaign");
	contains(title, "validate: blocked", "contention blocks publishing");
	contains(title, "no dependency file", "no dependency file is named");
	int seen = 0;
	for (int i = 0; i < lines.n; i++)
		seen |= strstr(lines.v[i], "contention") != NULL;
	ok(seen, "the report has a contention line");
	top_lines_release(&lines);
	free(dir);
}

static void test_arithmetic(void)
{
	int c[4];
	double p1[3] = { 1, 1, 1 };
	top_bar_split(p1, 3, 3, 10, c);
	ok(c[0] + c[1] + c[2] == 10 && c[0] >= 3 && c[1] >= 3 && c[2] >= 3, "thirds of 10 cells: %d %d %d",
	   c[0], c[1], c[2]);
	double p2[3] = { 1, 0, 999 };
	top_bar_split(p2, 3, 1000, 10, c);
	ok(c[0] == 1 && c[1] == 0 && c[2] == 9, "a tiny part still gets a cell: %d %d %d", c[0], c[1], c[2]);
	double p3[1] = { 5 };
	top_bar_split(p3, 1, 10, 10, c);
	is_int(c[0], 5, "half of the total is half of the bar");
	double p4[2] = { 30, 30 };
	top_bar_split(p4, 2, 40, 10, c);
	is_int(c[0] + c[1], 10, "parts above the total never overflow the bar");
	top_bar_split(p3, 1, 10, 0, c);
	is_int(c[0], 0, "zero width");
	char buf[32];
	top_format_duration(3725, buf, sizeof(buf));
	is_str(buf, "1:02:05", "h:mm:ss");
	top_format_duration(125, buf, sizeof(buf));
	is_str(buf, "2:05", "m:ss");
	top_format_duration(2.46, buf, sizeof(buf));
	is_str(buf, "2.5s", "seconds");
	top_format_duration(-1, buf, sizeof(buf));
	is_str(buf, "-", "unknown");
	is_int(top_col_parse("state"), TOP_COL_STATE, "column names parse");
}

int main(void)
{
	test_arithmetic();
	test_eta();
	test_eta_planned();
	test_flags_and_actions();
	test_contention();
	test_big();
	return done_testing();
}
