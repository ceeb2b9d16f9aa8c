/* perfsweep import: LULESH profiles into a store, and lossless import -> export -> import round trips. */
#include "tests/lib/exp_compare.h"
#include "collectors/extrap_json.h"
#include "collectors/extrap_text.h"
#include "collectors/scorep_dir.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include "campaign/store.h"
#include "tests/lib/tap.h"

static int run_import(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5,
		      const char *a6)
{
	char *argv[8] = { "import", (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, (char *)a6, NULL };
	int argc = 1;
	while (argc < 7 && argv[argc])
		argc++;
	fflush(stdout);
	/* keep the command's summary out of the TAP stream */
	FILE *saved = stdout, *saved_err = stderr;
	stdout = fopen("/dev/null", "w");
	stderr = fopen("/dev/null", "w");
	int rc = cli_run(&cmd_import_entry, argc, argv);
	fclose(stdout);
	fclose(stderr);
	stdout = saved;
	stderr = saved_err;
	return rc;
}

static int load(const char *dir, struct experiment *e)
{
	struct store *st;
	struct perr err;
	experiment_init(e);
	if (store_open(&st, dir, STORE_READONLY, &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	int rc = store_load_experiment(st, NULL, e, &err);
	if (rc)
		diag("%s", err.msg);
	store_close(st);
	return rc;
}

typedef int (*writer)(FILE *, const struct experiment *, struct perr *);

static int write_text_all(FILE *f, const struct experiment *e, struct perr *err)
{
	return extrap_text_write(f, e, -1, err);
}

static void round_trip(const char *fmt, const char *ext, writer w, const struct experiment *first, const char *tmp)
{
	char *file = xasprintf("%s/export.%s", tmp, ext);
	char *dir = xasprintf("%s/again-%s", tmp, fmt);
	FILE *f = fopen(file, "w");
	struct perr err;
	ok(f && w(f, first, &err) == 0, "%s: export written", fmt);
	if (f)
		fclose(f);
	char opt[32];
	snprintf(opt, sizeof(opt), "--%s", fmt);
	is_int(run_import(opt, file, "--out", dir, "--quiet", NULL), 0, "%s: imported again", fmt);
	struct experiment again;
	if (load(dir, &again) == 0) {
		char why[512] = "";
		int d = experiment_compare(first, &again, why, sizeof(why));
		ok(!d, "%s: import -> export -> import is lossless", fmt);
		if (d)
			diag("%s", why);
	} else {
		ok(0, "%s: load the second import", fmt);
	}
	experiment_release(&again);
	free(file);
	free(dir);
}

int main(void)
{
	const char *tmp = tap_tmpdir();
	char *camp = xasprintf("%s/lulesh", tmp);
	is_int(run_import("--cube", tap_src("tests/data/lulesh"), "--out", camp, "--quiet", NULL), 0,
	       "import --cube of the 25 LULESH profiles");
	struct experiment e;
	if (load(camp, &e) == 0) {
		is_int(e.npoints, 25, "25 points");
		ok(e.nparams == 2 && !strcmp(e.params[0], "p") && !strcmp(e.params[1], "size"), "parameters p, size");
		is_int(e.ncallpaths, 12, "the full call tree: 12 call paths");
		ok(experiment_find_metric(&e, "time") >= 0 && experiment_find_metric(&e, "visits") >= 0,
		   "time and visits imported");
		/* the store holds exactly what the reader computes (Extra-P's values) */
		struct experiment direct;
		experiment_init(&direct);
		struct perr err;
		struct scorep_read_opts o = { .aggr = CUBEX_MEAN };
		ok(scorep_dir_read(&direct, tap_src("tests/data/lulesh"), &o, &err) == 0, "direct read");
		char why[512] = "";
		int d = experiment_compare(&direct, &e, why, sizeof(why));
		ok(!d, "the campaign store holds the reader's values bit for bit");
		if (d)
			diag("%s", why);
		experiment_release(&direct);
		round_trip("json", "json", extrap_json_write, &e, tmp);
		round_trip("jsonl", "jsonl", extrap_jsonl_write, &e, tmp);
		round_trip("text", "txt", write_text_all, &e, tmp);
	}
	experiment_release(&e);

	/* errors */
	is_int(run_import("--cube", tap_src("tests/data/lulesh"), "--out", camp, NULL, NULL), EXIT_USAGE,
	       "importing into an existing campaign is refused");
	char *camp2 = xasprintf("%s/sel", tmp);
	is_int(run_import("--cube", tap_src("tests/data/lulesh"), "--out", camp2, "--params", "p,nosuch"),
	       EXIT_USAGE, "an unknown --params name is an input error");
	is_int(run_import("--cube", tap_src("tests/data/lulesh"), "--json", "x.json", "--out", camp2), EXIT_USAGE,
	       "two sources are a usage error");
	is_int(run_import("--cube", tap_src("tests/data/lulesh"), NULL, NULL, NULL, NULL), EXIT_USAGE,
	       "a missing --out is a usage error");
	ok(access(camp2, F_OK) != 0, "failed imports create no campaign");
	free(camp2);
	free(camp);
	return done_testing();
}
