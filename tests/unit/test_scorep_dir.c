/* Tests of Score-P experiment-directory names, folder import and the cubex campaign collector. */
#include "collectors/cubex_collect.h"
#include "collectors/scorep_dir.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <sys/stat.h>
#include <unistd.h>

static void test_names(void)
{
	static const struct {
		const char *name, *prefix, *params;
		double v[3];
		int rep;
	} t[] = {
		{ "lulesh.p64.size30.r1", "lulesh", "p,size", { 64, 30 }, 1 },
		{ "mm.a1.1b1.1c1.1", "mm", "a,b,c", { 1.1, 1.1, 1.1 }, 0 },
		{ "mm.x1y1z1", "mm", "x,y,z", { 1, 1, 1 }, 0 },
		{ "mm.x1y1z1.r1", "mm", "x,y,z", { 1, 1, 1 }, 1 },
		{ "mm.a1,1.b1,1.c1,1.r1", "mm", "a,b,c", { 1.1, 1.1, 1.1 }, 1 },
		{ "mm.x1.1,y1,1,z1.1.r1", "mm", "x,y,z", { 1.1, 1.1, 1.1 }, 1 },
		{ "mm.x1.1.y1.1.z1.1.r1", "mm", "x,y,z", { 1.1, 1.1, 1.1 }, 1 },
		{ "mm.x1.y1.z1.r12", "mm", "x,y,z", { 1, 1, 1 }, 12 },
		{ "x1y1z1", NULL, "x,y,z", { 1, 1, 1 }, 0 },
		{ "p64.size30.r2", NULL, "p,size", { 64, 30 }, 2 },
		{ "app.ranks0.5.n1000", "app", "ranks,n", { 0.5, 1000 }, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct scorep_name n;
		struct perr err;
		if (!ok(scorep_name_parse(&n, t[i].name, &err) == 0, "'%s' parses", t[i].name)) {
			diag("%s", err.msg);
			continue;
		}
		char params[128] = "";
		int vals_ok = 1;
		for (int k = 0; k < n.nparams; k++) {
			if (k)
				strcat(params, ",");
			strcat(params, n.params[k]);
			vals_ok &= k < 3 && n.values[k] == t[i].v[k];
		}
		is_str(params, t[i].params, "'%s': parameters", t[i].name);
		ok(vals_ok, "'%s': values", t[i].name);
		ok(t[i].prefix ? n.prefix && !strcmp(n.prefix, t[i].prefix) : !n.prefix, "'%s': prefix %s", t[i].name,
		   n.prefix ? n.prefix : "(none)");
		is_int(n.repetition, t[i].rep, "'%s': repetition", t[i].name);
		scorep_name_release(&n);
	}
	static const struct { const char *name, *want; } bad[] = {
		{ "lulesh.pXX.r1", "'lulesh.pXX.r1': parameter 'pXX' has no value" },
		{ "lulesh", "parameter 'lulesh' has no value" },
		{ "lulesh.p1.2.3", "value of 'p' has two decimal points" },
		{ "lulesh.p1.p2", "parameter 'p' appears twice" },
		{ "lulesh.12", "a value without a parameter name" },
		{ "", "empty experiment directory name" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scorep_name n;
		struct perr err = { 0 };
		ok(scorep_name_parse(&n, bad[i].name, &err) < 0, "'%s' is rejected", bad[i].name);
		contains(err.msg, bad[i].want, "'%s': clear error", bad[i].name);
	}
}

static void copy_file(const char *from, const char *to)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_read_file(&sb, from);
	FILE *f = fopen(to, "wb");
	if (f) {
		fwrite(sb.buf, 1, sb.len, f);
		fclose(f);
	}
	strbuf_release(&sb);
}

static void make_exp(const char *root, const char *name, const char *src)
{
	char *d = xasprintf("%s/%s", root, name);
	mkdir(d, 0755);
	char *p = xasprintf("%s/profile.cubex", d);
	copy_file(tap_src(src), p);
	free(p);
	free(d);
}

static void test_scan(void)
{
	const char *base = tap_tmpdir();
	char *root = xasprintf("%s/scan", base);
	mkdir(root, 0755);
	const char *a = "tests/data/lulesh/lulesh.p27.size25.r1/profile.cubex";
	const char *b = "tests/data/lulesh/lulesh.p64.size25.r1/profile.cubex";
	make_exp(root, "app.p27.n1.5.r1", a);
	make_exp(root, "app.p27.n1.5.r2", b);
	make_exp(root, "app.p64.n1.5.r1", b);
	make_exp(root, "app.p64.n2,5.r1", a);
	char *junk = xasprintf("%s/notes", root);
	mkdir(junk, 0755);       /* no .cubex: ignored */
	free(junk);
	struct scorep_scan s;
	struct perr err;
	if (ok(scorep_dir_scan(&s, root, NULL, 0, &err) == 0, "scan a folder of experiment directories")) {
		is_int(s.nparams, 2, "two varying parameters");
		is_int(s.nruns, 4, "four runs");
		ok(s.runs[0].values[0] == 27 && s.runs[0].values[1] == 1.5 && s.runs[0].repetition == 1 &&
		   s.runs[1].repetition == 2, "runs sorted by point, repetitions numbered");
		ok(s.runs[3].values[1] == 2.5, "decimal comma value");
		scorep_scan_release(&s);
	} else {
		diag("%s", err.msg);
	}
	char *sel[] = { "n" };
	if (ok(scorep_dir_scan(&s, root, sel, 1, &err) == 0, "scan with a parameter selection")) {
		ok(s.nparams == 1 && !strcmp(s.params[0], "n"), "only the selected parameter");
		scorep_scan_release(&s);
	}
	char *nosel[] = { "size" };
	ok(scorep_dir_scan(&s, root, nosel, 1, &err) < 0, "selecting an unknown parameter fails");
	contains(err.msg, "parameter 'size' is not in the directory names", "and says so");

	struct experiment e;
	experiment_init(&e);
	char *mets[] = { "visits" };
	struct scorep_read_opts o = { .metrics = mets, .nmetrics = 1, .aggr = CUBEX_SUM };
	if (ok(scorep_dir_read(&e, root, &o, &err) == 0, "read the folder into an experiment")) {
		is_int(e.npoints, 3, "three points");
		double pt[2] = { 27, 1.5 };
		int c = experiment_find_callpath(&e, "lulesh2.0->int main(int, char**)->MPI_Init");
		const struct exp_values *v = c >= 0 ? experiment_values(&e, c, 0, experiment_find_point(&e, pt)) : NULL;
		ok(v && v->n == 2 && v->v[0] == 27 && v->v[1] == 64,
		   "two repetitions at (27, 1.5), summed visits of MPI_Init = ranks of each profile");
	} else {
		diag("%s", err.msg);
	}
	experiment_release(&e);

	make_exp(root, "app.p64.q2.r1", a);
	ok(scorep_dir_scan(&s, root, NULL, 0, &err) < 0, "mixed parameter names fail");
	contains(err.msg, "name different parameters", "and name both directories");
	char *bad = xasprintf("%s/app.p64.q2.r1", root);
	char *badp = xasprintf("%s/profile.cubex", bad);
	unlink(badp);
	rmdir(bad);
	free(badp);
	free(bad);
	make_exp(root, "app.pXX.r1", a);
	ok(scorep_dir_scan(&s, root, NULL, 0, &err) < 0, "an unparsable name fails the scan");
	contains(err.msg, "'app.pXX.r1': parameter 'pXX' has no value", "with the name and the reason");

	char *empty = xasprintf("%s/empty", base);
	mkdir(empty, 0755);
	ok(scorep_dir_scan(&s, empty, NULL, 0, &err) < 0, "a folder without experiments fails");
	contains(err.msg, "no Score-P experiment directories", "and says so");
	free(empty);
	free(root);
}

static void test_collector(void)
{
	const char *base = tap_tmpdir();
	char *run = xasprintf("%s/run1", base);
	char *sc = xasprintf("%s/scorep", run);
	mkdir(run, 0755);
	mkdir(sc, 0755);
	struct measurement_list ml;
	measurement_list_init(&ml);
	struct perr err;
	ok(collect_cubex(run, NULL, 0, &ml, &err) < 0, "no profile: error");
	contains(err.msg, "no Score-P profile in", "names the directory");
	char *p = xasprintf("%s/profile.cubex", sc);
	copy_file(tap_src("tests/data/lulesh/lulesh.p64.size30.r1/profile.cubex"), p);
	ok(collect_cubex(run, NULL, 0, &ml, &err) == 0, "collect the run's profile");
	is_int(ml.n, 24, "time and visits for 12 call paths");
	int allagg = 1;
	for (int i = 0; i < ml.n; i++)
		allagg &= ml.m[i].rank == -1;
	ok(allagg, "all stored with rank -1 (aggregated)");
	measurement_list_release(&ml);
	char *m[] = { "max_time" };
	ok(collect_cubex(run, m, 1, &ml, &err) == 0 && ml.n == 12, "a selected metric");
	measurement_list_release(&ml);
	ok(truncate(p, 30000) == 0, "truncate the profile");
	ok(collect_cubex(run, NULL, 0, &ml, &err) < 0, "a truncated profile fails");
	contains(err.msg, "profile.cubex: truncated tar archive", "naming the file and the problem");
	measurement_list_release(&ml);
	free(p);
	free(sc);
	free(run);
}

int main(void)
{
	test_names();
	test_scan();
	test_collector();
	return done_testing();
}
