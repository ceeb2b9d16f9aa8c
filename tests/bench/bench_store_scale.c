/*
 * A store of 10^6 runs: how long creating it takes, and how long the
 * commands that read it take to answer (status, status --json, top's first
 * screen with --once, export streamed to /dev/null), and the read a
 * resumed `run` starts with (every run, store_load_runs).  Targets (issue
 * "scale"): create < 20 s, status < 1 s, top first screen < 2 s, resume
 * start-up < 2 s.
 */
#include "common/xalloc.h"
#include "campaign/store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NA 1000
#define NB 100
#define REPS 10

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
		fprintf(stderr, "bench_store_scale: %s: %s\n", what, err.msg);
		exit(1);
	}
}

/* Time one command line (its output thrown away). */
static void timed(const char *what, const char *cmd)
{
	double t0 = mono();
	int rc = system(cmd);
	printf("  %-40s %7.2f s%s\n", what, mono() - t0, rc ? "  (failed)" : "");
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("PERFSWEEP_BIN") ? getenv("PERFSWEEP_BIN") : "bin";
	char *dir = xasprintf("%s/perfsweep-bench-store-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *camp = xasprintf("%s/c", dir);
	static double av[NA], bv[NB];
	for (int i = 0; i < NA; i++)
		av[i] = i + 1;
	for (int i = 0; i < NB; i++)
		bv[i] = 16.0 * (i + 1);
	struct plan_param params[2] = {
		{ .name = "n", .nvalues = NA, .values = av, .is_int = 1 },
		{ .name = "size", .nvalues = NB, .values = bv, .is_int = 1 },
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
	printf("bench_store_scale: %d runs\n", NA * NB * REPS);
	printf("  %-40s %7.2f s\n", "create the store", mono() - t0);
	store_close(st);

	char *cmd = xasprintf("%s/perfsweep status %s > /dev/null", bin, camp);
	timed("perfsweep status", cmd);
	free(cmd);
	cmd = xasprintf("%s/perfsweep status %s --json > /dev/null", bin, camp);
	timed("perfsweep status --json", cmd);
	free(cmd);
	cmd = xasprintf("%s/perfsweep top %s --once > /dev/null", bin, camp);
	timed("perfsweep top --once (first screen)", cmd);
	free(cmd);
	cmd = xasprintf("%s/perfsweep export %s --format csv > /dev/null", bin, camp);
	timed("perfsweep export --format csv", cmd);
	free(cmd);

	t0 = mono();
	must(store_open(&st, camp, 0, &err), "open");
	struct run *runs;
	int n;
	must(store_load_runs(st, 0, &runs, &n, &err), "load runs");
	printf("  %-40s %7.2f s\n", "resume start-up (open, read every run)", mono() - t0);
	runs_free(runs, n);
	store_close(st);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "bench_store_scale: could not remove %s\n", dir);
	free(cmd);
	free(camp);
	free(dir);
	return 0;
}
