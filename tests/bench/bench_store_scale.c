/*
 * Analysis on a store of 10^6 done runs (RUNS overrides: 10^4, 10^5):
 * each command that reads the whole store timed in one run and printed
 * beside `perfsweep status` measured in the same run, as a ratio, so the
 * figures hold on a loaded machine.  Targets (issue 47): validate, model
 * and export --format csv within 10x status; top's first screen (--once)
 * within 1 s; compare of two such stores not quadratic.  The stores come
 * from tests/lib/gen_store.c (two parameters, ten repetitions, one run in
 * a hundred disturbed); NEW is BASE 10% slower.  Also the read a resumed
 * `run` starts with (store_load_runs).  KEEP=1 keeps the stores and prints
 * their paths (for perf); OUT=DIR also writes each command's output there.
 */
#include "common/xalloc.h"
#include "campaign/store.h"
#include "tests/lib/gen_store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

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

/* Run cmd (output to out, or thrown away) and return its wall time; ok
   lists the exit codes that mean it answered (validate's 3: a blocking
   flag; compare's 1..3: its verdicts). */
static double timed(const char *cmd, const char *out, int maxok, int *failed)
{
	char *full = xasprintf("%s > %s", cmd, out ? out : "/dev/null");
	double t0 = mono();
	int rc = system(full);
	double t = mono() - t0;
	int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	*failed = code < 0 || code > maxok;
	free(full);
	return t;
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("PERFSWEEP_BIN") ? getenv("PERFSWEEP_BIN") : "bin";
	const char *outdir = getenv("OUT");
	long runs = getenv("RUNS") ? atol(getenv("RUNS")) : 1000000;
	char *dir = xasprintf("%s/perfsweep-bench-store-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *camp = xasprintf("%s/base", dir), *camp2 = xasprintf("%s/new", dir);
	struct gen_store_spec spec = { .runs = runs, .reps = 10, .seed = 42, .factor = 1 };
	double t0 = mono();
	must(gen_store(camp, &spec, &err), "make the store");
	double made = mono() - t0;
	spec.seed = 4242;
	spec.factor = 1.1;
	must(gen_store(camp2, &spec, &err), "make the second store");

	struct store *st;
	struct store_counts c;
	must(store_open(&st, camp, STORE_READONLY, &err), "open");
	must(store_counts(st, &c, &err), "counts");
	store_close(st);
	printf("bench_store_scale: %lld runs done (%.1f s to make one store)\n", c.done, made);

	static const struct {
		const char *name, *fmt;
		int maxok;
	} cmds[] = {
		{ "status", "%s/perfsweep status %s", 0 },
		{ "validate", "%s/perfsweep validate %s", 3 },
		{ "model", "%s/perfsweep model %s", 0 },
		{ "export --format csv", "%s/perfsweep export %s --format csv", 0 },
		{ "top --once (first screen)", "%s/perfsweep top %s --once", 0 },
		{ "compare BASE NEW", "%s/perfsweep compare %s %s", 3 },
	};
	int ncmds = (int)(sizeof(cmds) / sizeof(cmds[0]));
	double status = 0;
	for (int i = 0; i < ncmds; i++) {
		char *cmd = xasprintf(cmds[i].fmt, bin, camp, camp2);
		char *out = outdir ? xasprintf("%s/%d.out", outdir, i) : NULL;
		int failed;
		double t = timed(cmd, out, cmds[i].maxok, &failed);
		if (i == 0)
			status = t;
		printf("  %-36s %7.2f s  %6.1fx status%s\n", cmds[i].name, t, status > 0 ? t / status : 0,
		       failed ? "  (failed)" : "");
		free(out);
		free(cmd);
	}

	t0 = mono();
	must(store_open(&st, camp, 0, &err), "open");
	struct run *rv;
	int n;
	must(store_load_runs(st, 0, &rv, &n, &err), "load runs");
	double t = mono() - t0;
	printf("  %-36s %7.2f s  %6.1fx status\n", "resume start-up (every run read)", t, t / status);
	runs_free(rv, n);
	store_close(st);

	/* the interactive monitor: its first screen, then its flags (tmux) */
	const char *root = getenv("PERFSWEEP_ROOT") ? getenv("PERFSWEEP_ROOT") : ".";
	char *probe = xasprintf("%s/tests/lib/top_first_screen.sh %s/perfsweep '%s'", root, bin, camp);
	FILE *p = popen(probe, "r");
	double first, flags;
	if (p && fscanf(p, "%lf %lf", &first, &flags) == 2)
		printf("  %-36s %7.2f s  %6.1fx status (flags at %.2f s; target 1 s)\n",
		       "top, interactive first screen", first, first / status, flags);
	else
		printf("  top, interactive first screen: not measured (no tmux)\n");
	if (p)
		pclose(p);
	free(probe);
	if (getenv("KEEP")) {
		printf("kept %s %s\n", camp, camp2);
	} else {
		char *cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "bench_store_scale: could not remove %s\n", dir);
		free(cmd);
	}
	free(camp);
	free(camp2);
	free(dir);
	return 0;
}
