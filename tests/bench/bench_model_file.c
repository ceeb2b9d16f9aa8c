/*
 * Modelling throughput end to end, as a user meets it: `perfsweep model
 * FILE` on generated Extra-P text files of 1,000 and 100,000 one-parameter
 * call paths (5 points x 5 repetitions, 2% noise, random PMNF functions,
 * fixed seed), CPU time of the child (user + sys), best of three for the
 * small file.  Extra-P 4.2.5 is not a Debian package: where `extrap` is on
 * PATH it is timed on the same file, otherwise its figure measured for
 * issue 47 (9-14 s for 1,000 such call paths) is used, the fastest of it.
 * Targets (issue 47): at least 150x Extra-P, 100,000 call paths within 10 s.
 */
#include "common/run_command.h"
#include "common/xalloc.h"
#include "tests/lib/gen_truth.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EXTRAP_1K_S 9.0         /* Extra-P 4.2.5, 1,000 call paths: 9-14 s (issue 47) */

static void write_file(const char *path, int ncallpaths, unsigned long long seed)
{
	static const double xs[5] = { 4, 8, 16, 32, 64 };
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	struct gen_rng r;
	gen_rng_seed(&r, seed);
	fprintf(f, "PARAMETER p\nPOINTS 4 8 16 32 64\nMETRIC time\n");
	for (int cp = 0; cp < ncallpaths; cp++) {
		struct gen_function fn;
		gen_function_random(&r, 1, &fn);
		fprintf(f, "REGION main->f%d\n", cp);
		for (int i = 0; i < 5; i++) {
			double t = gen_function_eval(&fn, &xs[i]);
			fprintf(f, "DATA");
			for (int k = 0; k < 5; k++)
				fprintf(f, " %.9g", t * (1 + 0.02 * gen_normal(&r)));
			fprintf(f, "\n");
		}
	}
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* CPU seconds (user + sys) of argv run to completion, output discarded; -1 when it failed. */
static double child_cpu(char *const argv[])
{
	struct child_process cp = { .argv = argv, .out = "/dev/null" };
	if (start_command(&cp) < 0 || finish_command(&cp) != 0)
		return -1;
	return cp.ru.ru_utime.tv_sec + cp.ru.ru_utime.tv_usec * 1e-6 + cp.ru.ru_stime.tv_sec +
	       cp.ru.ru_stime.tv_usec * 1e-6;
}

static int on_path(const char *prog)
{
	char *cmd = xasprintf("command -v %s > /dev/null 2>&1", prog);
	int rc = system(cmd);
	free(cmd);
	return rc == 0;
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("PERFSWEEP_BIN") ? getenv("PERFSWEEP_BIN") : "bin";
	char *dir = xasprintf("%s/perfsweep-bench-model-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *small = xasprintf("%s/1k.txt", dir), *large = xasprintf("%s/100k.txt", dir);
	char *ps = xasprintf("%s/perfsweep", bin);
	write_file(small, 1000, 47);
	write_file(large, 100000, 4747);

	int failed = 0;
	double t1k = 1e30;
	for (int round = 0; round < 3; round++) {
		char *argv[] = { ps, "model", small, NULL };
		double t = child_cpu(argv);
		if (t < 0)
			failed = 1;
		else if (t < t1k)
			t1k = t;
	}
	double extrap = EXTRAP_1K_S;
	const char *source = "recorded (issue 47, fastest of 9-14 s)";
	if (on_path("extrap")) {
		char *argv[] = { "extrap", "--text", small, NULL };
		double t = child_cpu(argv);
		if (t > 0) {
			extrap = t;
			source = "measured in this run";
		}
	}
	char *argv[] = { ps, "model", large, NULL };
	double t100k = child_cpu(argv);
	if (t100k < 0)
		failed = 1;

	printf("bench_model_file: perfsweep model on Extra-P text, 1 parameter, 5 points x 5 reps, 2%% noise\n");
	printf("  1,000 call paths:   %7.3f s CPU (best of 3)  Extra-P %.1f s %s: %.0fx (target 150x)\n",
	       t1k, extrap, source, extrap / t1k);
	printf("  100,000 call paths: %7.2f s CPU (target 10 s)\n", t100k);
	if (failed)
		fprintf(stderr, "bench_model_file: perfsweep model failed\n");
	unlink(small);
	unlink(large);
	rmdir(dir);
	free(small);
	free(large);
	free(ps);
	free(dir);
	return failed;
}
