/*
 * Benchmark: import the 25 LULESH Score-P profiles into a campaign store
 * (perfsweep import --cube) and export the campaign as Extra-P JSON, JSON
 * Lines and text.  Extra-P needs about 2 s to read these profiles; this
 * prints the median of several repetitions of import + export.
 */
#include "collectors/extrap_json.h"
#include "collectors/extrap_text.h"
#include "collectors/scorep_dir.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include "campaign/store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	const char *root = getenv("PERFSWEEP_ROOT");
	char *src = xasprintf("%s/tests/data/lulesh", root ? root : ".");
	char tmpl[] = "/tmp/perfsweep-bench-XXXXXX";
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	enum { REPS = 7 };
	double t_imp[REPS], t_exp[REPS], t_read[REPS];
	for (int r = 0; r < REPS; r++) {
		char *out = xasprintf("%s/c%d", tmpl, r);
		char *argv[] = { "import", "--cube", src, "--out", out, "--quiet", NULL };
		double t0 = now();
		if (cli_run(&cmd_import_entry, 6, argv) != 0) {
			fprintf(stderr, "import failed\n");
			return 1;
		}
		double t1 = now();
		struct store *st;
		struct perr err;
		struct experiment e;
		experiment_init(&e);
		if (store_open(&st, out, STORE_READONLY, &err) || store_load_experiment(st, NULL, &e, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		store_close(st);
		static const char *ext[] = { "json", "jsonl", "txt" };
		for (int k = 0; k < 3; k++) {
			char *p = xasprintf("%s/export.%s", out, ext[k]);
			FILE *f = fopen(p, "w");
			int rc = k == 0 ? extrap_json_write(f, &e, &err)
				 : k == 1 ? extrap_jsonl_write(f, &e, &err) : extrap_text_write(f, &e, -1, &err);
			fclose(f);
			free(p);
			if (rc) {
				fprintf(stderr, "%s\n", err.msg);
				return 1;
			}
		}
		experiment_release(&e);
		double t2 = now();
		/* the reader alone: profiles -> experiment, as Extra-P's cube reader */
		struct scorep_read_opts o = { .aggr = CUBEX_MEAN };
		experiment_init(&e);
		if (scorep_dir_read(&e, src, &o, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		experiment_release(&e);
		double t3 = now();
		t_imp[r] = t1 - t0;
		t_exp[r] = t2 - t1;
		t_read[r] = t3 - t2;
		free(out);
	}
	qsort(t_imp, REPS, sizeof(double), cmp);
	qsort(t_exp, REPS, sizeof(double), cmp);
	qsort(t_read, REPS, sizeof(double), cmp);
	printf("read 25 LULESH profiles (reader only):          %7.1f ms (median of %d)\n", t_read[REPS / 2] * 1e3, REPS);
	printf("import --cube into a campaign store:            %7.1f ms\n", t_imp[REPS / 2] * 1e3);
	printf("export as Extra-P JSON + JSONL + text:          %7.1f ms\n", t_exp[REPS / 2] * 1e3);
	printf("import + export:                                %7.1f ms (Extra-P: ~2000 ms to read them)\n",
	       (t_imp[REPS / 2] + t_exp[REPS / 2]) * 1e3);
	char *rm = xasprintf("rm -rf '%s'", tmpl);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", tmpl);
	free(rm);
	free(src);
	return 0;
}
