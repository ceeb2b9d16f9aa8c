/*
 * Submission throughput of the SLURM backend (start() through libslurm) and
 * the orchestrator's CPU time per run (submit, poll, results).  Needs a
 * cluster: tests/bench/bench_slurm.sh starts one and runs this with
 * SLURM_CONF set; without it this prints a skip line.
 *
 *   bench_slurm [RUNS]      (default 200)
 */
#include "orchestrator/slurm/backend_slurm.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	if (!getenv("SLURM_CONF") || !getenv("PERFSWEEP_TEST_CLUSTER") || n < 1) {
		puts("bench_slurm: skipped (no cluster; run tests/bench/bench_slurm.sh)");
		return 0;
	}
	char base[] = "/tmp/perfsweep-bench-XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	struct backend_config cfg = { .type = "slurm", .partition = "emu", .max_inflight = n,
				      .no_arrays = 1 };   /* start() submits each run at once */
	struct backend *b;
	struct perr err;
	if (backend_slurm_new(&b, &cfg, &err)) {
		fprintf(stderr, "bench_slurm: %s\n", err.msg);
		return 1;
	}
	char *args[] = { "/bin/true", NULL };
	char **dirs = xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		dirs[i] = xasprintf("%s/%d", base, i + 1);
		mkdir(dirs[i], 0755);
	}
	double c0 = cpu(), t0 = now();
	for (int i = 0; i < n; i++) {
		struct run_spec rs = { .id = i + 1, .campaign = "bench", .campaign_dir = base,
				       .argv = args, .run_dir = dirs[i], .ranks = 1 };
		char *id = NULL;
		int rc = b->ops->start(b, &rs, &id, &err);
		if (rc) {
			fprintf(stderr, "bench_slurm: start %d: %s\n", i + 1, err.msg);
			return 1;
		}
		free(id);
	}
	double t_submit = now() - t0;
	int finished = 0, failed = 0;
	struct run_result res[64];
	double limit = now() + 300;
	while (finished < n && now() < limit) {
		int k = b->ops->wait(b, 1.0, res, 64, &err);
		if (k < 0) {
			fprintf(stderr, "bench_slurm: wait: %s\n", err.msg);
			return 1;
		}
		for (int i = 0; i < k; i++)
			if (!res[i].running) {
				finished++;
				failed += res[i].failed;
			}
	}
	double t_all = now() - t0, c_all = cpu() - c0;
	printf("libslurm: %d submissions in %.3f s = %.2f ms per job (%.0f jobs/s)\n", n, t_submit,
	       1e3 * t_submit / n, n / t_submit);
	printf("orchestrator: %d runs finished (%d failed) in %.1f s; CPU %.3f s = %.2f ms per run "
	       "(submit, poll, results)\n", finished, failed, t_all, c_all, 1e3 * c_all / n);
	printf("submit_ms_per_job=%.4f\ncpu_ms_per_run=%.4f\n", 1e3 * t_submit / n, 1e3 * c_all / n);
	b->ops->free(b);
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd))
		return 1;
	return finished == n ? 0 : 1;
}
