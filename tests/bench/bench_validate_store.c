/*
 * A campaign store of 10^5 done runs (RUNS overrides: 10^4, 10^6, ...),
 * each with a measured time of a known truth, and how long the commands
 * that read all of it take: validate (target: within 5 s at 10^5, issue
 * 43), model, status, export.  Two parameters (n, p) on a grid, ten
 * repetitions; the values follow 0.5 + 0.01 n p^0.5 with 2% noise from a
 * fixed seed.  KEEP=1 keeps the store and prints its path (for perf or
 * callgrind).
 */
#include "common/xalloc.h"
#include "campaign/store.h"
#include "tests/lib/gen_store.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		fprintf(stderr, "bench_validate_store: %s: %s\n", what, err.msg);
		exit(1);
	}
}

static void timed(const char *what, const char *cmd)
{
	double t0 = mono();
	int rc = system(cmd);
	/* validate exits 3 for a blocking flag: it answered all the same */
	int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	printf("  %-40s %7.2f s%s\n", what, mono() - t0, code == 0 || code == 3 ? "" : "  (failed)");
}

/* A uniform number in [0, 1) from a fixed seed (xorshift). */
static double uniform(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / 9007199254740992.0;
}

/* Mark every run done with its value, a batch of runs per commit. */
static void fill(struct store *st, const struct plan *pl)
{
	unsigned long long seed = 42;
	long long id = 0;
	struct measurement_list ml;
	measurement_list_init(&ml);
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		if (i % 100 == 0)
			must(store_batch_begin(st, &err), "batch");
		for (int r = 0; r < pt->repetitions; r++) {
			double n = pt->values[0], p = pt->values[1];
			double t = (0.5 + 0.01 * n * sqrt(p)) * (1 + 0.02 * (2 * uniform(&seed) - 1));
			ml.n = 0;
			measurement_list_add(&ml, -1, "main", "time", t);
			id++;
			must(store_mark_submitted(st, id, "1:1", 1, &err), "submit");
			must(store_mark_done(st, id, 2, 0, t, &ml, NULL, &err), "done");
		}
		if (i % 100 == 99 || i + 1 == pl->npoints)
			must(store_batch_end(st, &err), "commit");
	}
	measurement_list_release(&ml);
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("PERFSWEEP_BIN") ? getenv("PERFSWEEP_BIN") : "bin";
	long runs = getenv("RUNS") ? atol(getenv("RUNS")) : 100000;
	int np = 10, nn = (int)(runs / REPS / np);
	if (nn < 1)
		nn = 1;
	char *dir = xasprintf("%s/perfsweep-bench-validate-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *camp = xasprintf("%s/c", dir);
	double *nv = xcalloc((size_t)nn, sizeof(double)), pv[10];
	for (int i = 0; i < nn; i++)
		nv[i] = i + 1;
	for (int i = 0; i < np; i++)
		pv[i] = 1 << i;
	struct plan_param params[2] = {
		{ .name = "n", .nvalues = nn, .values = nv, .is_int = 1 },
		{ .name = "p", .nvalues = np, .values = pv, .is_int = 1 },
	};
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = REPS };
	struct plan pl;
	struct store *st;
	must(plan_full_factorial(&pl, &spec, &err), "plan");
	double t0 = mono();
	char *cfg = gen_store_config(nn, np, REPS);   /* the config a campaign of this plan was made from */
	must(store_create(&st, camp, "bench", "local", cfg, &pl, &err), "create");
	free(cfg);
	fill(st, &pl);
	printf("bench_validate_store: %lld runs done (%d x %d points, %d repetitions)\n", (long long)pl.runs, nn, np, REPS);
	printf("  %-40s %7.2f s\n", "create and fill the store", mono() - t0);
	plan_release(&pl);
	store_close(st);
	free(nv);

	static const char *const cmds[][2] = {
		{ "perfsweep validate", "%s/perfsweep validate %s > /dev/null" },
		{ "perfsweep validate --json", "%s/perfsweep validate %s --json > /dev/null" },
		{ "perfsweep model", "%s/perfsweep model %s > /dev/null" },
		{ "perfsweep status", "%s/perfsweep status %s > /dev/null" },
		{ "perfsweep export --format csv", "%s/perfsweep export %s --format csv > /dev/null" },
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *cmd = xasprintf(cmds[i][1], bin, camp);
		timed(cmds[i][0], cmd);
		free(cmd);
	}
	if (getenv("KEEP")) {
		printf("kept %s\n", camp);
	} else {
		char *cmd = xasprintf("rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "bench_validate_store: could not remove %s\n", dir);
		free(cmd);
	}
	free(camp);
	free(dir);
	return 0;
}
