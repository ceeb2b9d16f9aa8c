/*
 * How long `perfsweep top` takes to refresh its screen on a 100,000-run
 * store: read the changed runs, rebuild the view, and draw an 80x24
 * screen, while another connection writes run transitions (as
 * `perfsweep run` does).  Prints the median and the worst of each case.
 * Aim: under 50 ms per refresh.
 */
#include "common/xalloc.h"
#include "campaign/store.h"
#include "tui/app.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NRUNS_A 100
#define NRUNS_B 100
#define REPS 10
#define ITER 30

static struct perr err;

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void must(int rc, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "bench_top: %s: %s\n", what, err.msg);
		exit(1);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(double), cmp_d);
	printf("  %-58s median %7.2f ms  max %7.2f ms\n", what, t[n / 2] * 1e3, t[n - 1] * 1e3);
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/perfsweep-bench-top-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *camp = xasprintf("%s/c", dir);
	double av[NRUNS_A], bv[NRUNS_B];
	for (int i = 0; i < NRUNS_A; i++)
		av[i] = i + 1;
	for (int i = 0; i < NRUNS_B; i++)
		bv[i] = 16.0 * (i + 1);
	struct plan_param params[2] = {
		{ .name = "p", .nvalues = NRUNS_A, .values = av, .is_int = 1 },
		{ .name = "size", .nvalues = NRUNS_B, .values = bv, .is_int = 1 },
	};
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = REPS };
	struct plan pl;
	struct store *st;
	must(plan_full_factorial(&pl, &spec, &err), "plan");
	for (int i = 0; i < pl.npoints; i++)
		pl.points[i].core_hours = 0.01 * REPS;
	double t0 = mono();
	must(store_create(&st, camp, "bench", "local", "name = \"bench\";", &pl, &err), "create");
	plan_release(&pl);
	printf("bench_top: %d runs (store created in %.1f s)\n", NRUNS_A * NRUNS_B * REPS, mono() - t0);

	/* some history: 2000 done runs with measurements, 200 running */
	double now = 1.7e9;
	for (long long id = 1; id <= 2000; id++) {
		struct measurement_list ml;
		measurement_list_init(&ml);
		measurement_list_add(&ml, 0, "main", "time", 1.0 + (double)(id % 13) / 10);
		measurement_list_add(&ml, 0, "main->solve", "time", 0.5 + (double)(id % 5) / 10);
		must(store_mark_submitted(st, id, "1234:5", now - 100, &err), "submitted");
		must(store_mark_done(st, id, now - 50, 0, 50, &ml, NULL, &err), "done");
		measurement_list_release(&ml);
	}

	for (long long id = 2001; id <= 2200; id++) {
		must(store_mark_submitted(st, id, "2222:5", now - 30, &err), "submitted");
		must(store_mark_running(st, id, now - 30 + (double)(id % 17), &err), "running");
	}

	struct top_model m;
	struct top_app a;
	struct screen scr;
	memset(&a, 0, sizeof(a));
	double t[ITER];
	t0 = mono();
	must(top_model_open(&m, camp, now, &err), "open");
	printf("  %-58s %7.2f ms\n", "initial load of every run", (mono() - t0) * 1e3);
	a.models = &m;
	a.nmodels = 1;
	a.flags = xcalloc(1, sizeof(*a.flags));
	a.flags_at = xcalloc(1, sizeof(double));
	strbuf_init(&a.input);
	t0 = mono();
	must(top_flags_compute(m.st, TOP_FLAGS_COV, TOP_FLAGS_MIN_REPS, a.flags, &err), "flags");
	printf("  %-58s %7.2f ms\n", "noise flags from 4000 measurements (only when runs finish)",
	       (mono() - t0) * 1e3);
	screen_init(&scr, 80, 24);

	/* idle: nothing changed */
	for (int i = 0; i < ITER; i++) {
		double s = mono();
		must((int)top_model_refresh(&m, now, &err), "refresh");
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("refresh + draw, nothing changed", t, ITER);

	/* busy: 50 transitions between refreshes */
	long long next = 2201;
	for (int i = 0; i < ITER; i++) {
		for (int k = 0; k < 50; k++, next++)
			must(store_mark_submitted(st, next, "4321:9", now, &err), "submitted");
		double s = mono();
		must((int)top_model_refresh(&m, now + i, &err), "refresh");
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("refresh + draw, 50 runs changed, sorted by id", t, ITER);

	top_model_set_sort(&m, TOP_COL_STATE, 1);
	for (int i = 0; i < ITER; i++) {
		for (int k = 0; k < 50; k++, next++)
			must(store_mark_submitted(st, next, "4321:9", now, &err), "submitted");
		double s = mono();
		must((int)top_model_refresh(&m, now + i, &err), "refresh");
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("refresh + draw, 50 runs changed, sorted by state", t, ITER);

	top_model_set_sort(&m, TOP_COL_ELAPSED, 1);
	for (int i = 0; i < ITER; i++) {
		double s = mono();
		must((int)top_model_refresh(&m, now + i, &err), "refresh");
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("refresh + draw, sorted by elapsed (200 running re-sorted)", t, ITER);
	top_model_set_sort(&m, TOP_COL_ID, 0);

	must(top_model_set_filter(&m, "p=7 size>=800", &err), "filter");
	for (int i = 0; i < ITER; i++) {
		for (int k = 0; k < 50; k++, next++)
			must(store_mark_submitted(st, next, "4321:9", now, &err), "submitted");
		double s = mono();
		must((int)top_model_refresh(&m, now + i, &err), "refresh");
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("refresh + draw, 50 changed, filter 'p=7 size>=800'", t, ITER);

	for (int i = 0; i < ITER; i++) {
		double s = mono();
		must(top_model_set_filter(&m, i & 1 ? "running|fail" : "p=3[0-9] ", &err), "filter");
		t[i] = mono() - s;
	}
	report("typing a regex filter: match all 100,000 rows", t, ITER);
	must(top_model_set_filter(&m, NULL, &err), "filter");

	for (int i = 0; i < ITER; i++) {
		double s = mono();
		top_model_move(&m, 4001, 18);
		view_draw(&scr, &a);
		t[i] = mono() - s;
	}
	report("scroll 4001 rows and draw (virtual scrolling)", t, ITER);

	screen_release(&scr);
	free(a.flags);
	free(a.flags_at);
	strbuf_release(&a.input);
	top_model_release(&m);
	store_close(st);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "bench_top: could not remove %s\n", dir);
	free(rm);
	free(camp);
	free(dir);
	return 0;
}
