/* Dependency readers and analysis: every Perf-Taint unit file, LULESH, the native form, bad files. */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/analysis.h"
#include "designs/deps.h"
#include "tests/lib/tap.h"

/* "a*b|c*d": the analysis groups as a string, parameters joined by '*'. */
static char *groups_str(const struct deps_analysis *a)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int g = 0; g < a->ngroups; g++) {
		if (g)
			strbuf_addch(&sb, '|');
		for (int i = 0; i < a->groups[g].n; i++)
			strbuf_addf(&sb, "%s%s", i ? "*" : "", a->d->params[a->groups[g].params[i]]);
	}
	return strbuf_detach(&sb);
}

static char *flags_str(const struct deps_analysis *a, const char *flags)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int k = 0; k < a->d->nparams; k++)
		if (flags[k])
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", a->d->params[k]);
	return strbuf_detach(&sb);
}

/* functions behind group g, sorted by name, comma-separated (short names, before '(') */
static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *group_funcs(const struct deps_analysis *a, int g)
{
	const struct deps_group *gr = &a->groups[g];
	char **names = xcalloc((size_t)gr->nfuncs + 1, sizeof(char *));
	for (int i = 0; i < gr->nfuncs; i++) {
		const char *n = a->d->funcs[gr->funcs[i]].name;
		names[i] = xstrndup(n, strcspn(n, "("));
	}
	qsort(names, (size_t)gr->nfuncs, sizeof(char *), cmp_str);
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < gr->nfuncs; i++) {
		strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]);
		free(names[i]);
	}
	free(names);
	return strbuf_detach(&sb);
}

static char *const_funcs(const struct deps_analysis *a)
{
	char **names = xcalloc((size_t)a->nconst + 1, sizeof(char *));
	for (int i = 0; i < a->nconst; i++) {
		const char *n = a->d->funcs[a->consts[i]].name;
		names[i] = xstrndup(n, strcspn(n, "("));
	}
	qsort(names, (size_t)a->nconst, sizeof(char *), cmp_str);
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < a->nconst; i++) {
		strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]);
		free(names[i]);
	}
	free(names);
	return strbuf_detach(&sb);
}

struct expect {
	const char *file, *params, *groups, *funcs0, *pruned, *additive, *consts;
};

static const struct expect unit[] = {
	{ "dataflow_cf_branches.cpp", "x1,x2", "x1*x2", "f,g,h", "", "", "atoi,main" },
	{ "dataflow_matmul.c", "m,n,k", "m*n*k", "mat_mul", "", "", "atoi,main" },
	{ "dataflow_multiple_deps.cpp", "x1,x2,global", "x1*x2", "f,g,h", "global", "",
	  "atoi,main,mul,test::length,test::test" },
	{ "dataflow_nested_loop.cpp", "x1,x2", "x1*x2", "perf_nest_multiple_quadr,perf_nest_quadr", "",
	  "", "atoi,main,perf_nest_unknown" },
	{ "dataflow_prune.cpp", "x1,x2,global,global2", "x1*x2*global|x1*global2", "f_not_prune,g_not_prune,h",
	  "", "", "atoi,f_prune,g_prune,main" },
	{ "mpi_taint_collectives.cpp", "param,param2,p", "param*param2*p",
	  "MPI_Allgather,MPI_Alltoall,MPI_Gather,MPI_Scatter,allgather,alltoall,gather,scatter", "", "",
	  "main" },
	{ "mpi_taint_communication_size_p2p.cpp", "param,p", "param*p", "MPI_Recv,MPI_Send,rcv,send",
	  "", "", "main" },
};

static void test_unit_files(void)
{
	for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++) {
		const struct expect *x = &unit[i];
		char rel[256];
		snprintf(rel, sizeof(rel), "tests/data/perf-taint-unit/%s.processed.json", x->file);
		struct deps d;
		struct perr err;
		if (!ok(deps_read(&d, tap_src(rel), &err) == 0, "%s: reads", x->file)) {
			diag("%s", err.msg);
			continue;
		}
		char *params = NULL;
		struct strbuf sb;
		strbuf_init(&sb);
		for (int k = 0; k < d.nparams; k++)
			strbuf_addf(&sb, "%s%s", k ? "," : "", d.params[k]);
		params = strbuf_detach(&sb);
		is_str(params, x->params, "%s: parameters", x->file);
		struct deps_analysis a;
		ok(deps_analyze(&a, &d, NULL, 0, &err) == 0, "%s: analyses", x->file);
		char *g = groups_str(&a), *pr = flags_str(&a, a.pruned), *ad = flags_str(&a, a.additive);
		char *gf = a.ngroups ? group_funcs(&a, 0) : xstrdup("");
		char *cf = const_funcs(&a);
		is_str(g, x->groups, "%s: multiplicative groups", x->file);
		is_str(gf, x->funcs0, "%s: functions behind the first group", x->file);
		is_str(pr, x->pruned, "%s: pruned parameters", x->file);
		is_str(ad, x->additive, "%s: additive-only parameters", x->file);
		is_str(cf, x->consts, "%s: constant functions", x->file);
		free(g); free(pr); free(ad); free(gf); free(cf); free(params);
		deps_analysis_release(&a);
		deps_release(&d);
	}
}

static void test_terms(void)
{
	struct deps d;
	struct perr err;
	ok(deps_read(&d, tap_src("tests/data/perf-taint-unit/dataflow_cf_branches.cpp.processed.json"),
		     &err) == 0, "cf_branches reads");
	const struct dep_function *f = deps_find_function(&d, "f");
	ok(f != NULL, "f is found by its short name");
	if (f) {
		is_str(f->mangled, "_Z1fiii", "f's mangled name");
		is_str(f->name, "f(int, int, int)", "f's name is the demangled one");
		is_int(f->nterms, 3, "f has [[x1],[x2],[x1,x2]]");
		int x1 = deps_find_param(&d, "x1"), x2 = deps_find_param(&d, "x2");
		int seen = 0;
		for (int t = 0; t < f->nterms; t++) {
			const struct dep_term *tm = &f->terms[t];
			if (tm->n == 1 && tm->params[0] == x1) seen |= 1;
			if (tm->n == 1 && tm->params[0] == x2) seen |= 2;
			if (tm->n == 2 && tm->params[0] == x1 && tm->params[1] == x2) seen |= 4;
		}
		is_int(seen, 7, "f's three terms are {x1}, {x2}, {x1,x2}");
	}
	ok(deps_find_function(&d, "_Z1giii") != NULL, "g is found by its mangled name");
	ok(deps_find_function(&d, "nosuch") == NULL, "an absent function is not found");
	deps_release(&d);

	ok(deps_read(&d, tap_src("tests/data/perf-taint-unit/dataflow_matmul.c.processed.json"), &err) == 0,
	   "matmul reads");
	f = deps_find_function(&d, "mat_mul");
	ok(f && f->nterms == 1 && f->terms[0].n == 3, "mat_mul has the one term [m,n,k]");
	deps_release(&d);

	ok(deps_read(&d, tap_src("tests/data/perf-taint-unit/dataflow_prune.cpp.processed.json"), &err) == 0,
	   "prune reads");
	f = deps_find_function(&d, "h");
	ok(f && f->nloops == 2 && f->nterms == 5, "h: two loops whose terms merge into five");
	deps_release(&d);
}

static void test_lulesh(void)
{
	struct deps d;
	struct perr err;
	if (!ok(deps_read(&d, tap_src("tests/data/lulesh/lulesh.ll.json"), &err) == 0, "lulesh reads"))
		diag("%s", err.msg);
	is_int(d.nfuncs, 356, "lulesh: 356 functions (52 with dependencies)");
	struct deps_analysis a;
	deps_analyze(&a, &d, NULL, 0, &err);
	int size = deps_find_param(&d, "size"), regions = deps_find_param(&d, "regions"),
	    p = deps_find_param(&d, "p");
	is_int(a.nfuncs[size], 46, "size affects 46 functions");
	is_int(a.nloops[size], 48, "size affects 48 loops");
	is_int(a.nfuncs[regions], 15, "regions affects 15 functions");
	is_int(a.nloops[regions], 15, "regions affects 15 loops");
	is_int(a.nfuncs[p], 15, "p affects 15 functions");
	is_int(a.nloops[p], 17, "p affects 17 loops");
	is_int(a.nconst, 356 - 52, "304 constant functions");
	char *g = groups_str(&a), *gf = group_funcs(&a, 0);
	is_str(g, "size*regions*p", "lulesh: one group of all three");
	is_str(gf, "CalcQForElems,main", "behind it: main and CalcQForElems");
	is_int(a.groups[0].nrelated, 16, "16 functions multiply two or more of them");
	free(g);
	free(gf);
	deps_analysis_release(&a);

	char *sel[] = { "size", "p" };
	ok(deps_analyze(&a, &d, sel, 2, &err) == 0, "analyse size and p only");
	g = groups_str(&a);
	is_str(g, "size*p", "regions held fixed: group size*p");
	free(g);
	deps_analysis_release(&a);
	char *bad[] = { "size", "iters" };
	ok(deps_analyze(&a, &d, bad, 2, &err) < 0, "an unknown selected parameter fails");
	contains(err.msg, "parameter 'iters' is not in dependency file", "and says which");
	deps_release(&d);
}

static const char *write_tmp(const char *name, const char *text)
{
	static char path[4][512];
	static int k;
	char *p = path[k++ & 3];
	snprintf(p, sizeof(path[0]), "%s/%s", tap_tmpdir(), name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

static void test_native(void)
{
	const char *p = write_tmp("mini.deps",
		"# a hand-written dependency file\n"
		"parameters = [\"size\", \"p\", \"iters\"];\n"
		"functions = (\n"
		"  { name = \"solve\"; deps = ([\"size\", \"iters\"], [\"p\"]); expect = \"size^3 * iters\"; },\n"
		"  { name = \"exchange\"; deps = ([\"p\"], [\"size\", \"p\"], [\"p\"]); },\n"
		"  { name = \"setup\"; deps = (); }\n"
		");\n");
	struct deps d;
	struct perr err;
	if (!ok(deps_read(&d, p, &err) == 0, "native form reads"))
		diag("%s", err.msg);
	is_int(d.nparams, 3, "three parameters");
	is_int(d.nfuncs, 3, "three functions");
	const struct dep_function *f = deps_find_function(&d, "solve");
	is_str(f ? f->expect : NULL, "size^3 * iters", "solve keeps its expect expression");
	f = deps_find_function(&d, "exchange");
	is_int(f ? f->nterms : -1, 2, "a repeated set is merged");
	struct deps_analysis a;
	deps_analyze(&a, &d, NULL, 0, &err);
	char *g = groups_str(&a);
	is_str(g, "size*p|size*iters", "two separate groups");
	is_int(a.nconst, 1, "setup is constant");
	free(g);
	deps_analysis_release(&a);
	deps_release(&d);
}

struct bad {
	const char *name, *text, *want;
};

static const struct bad bads[] = {
	{ "empty.json", "", "empty.json: file is empty" },
	{ "blank.deps", "  \n\t\n", "blank.deps: file is empty" },
	{ "truncated.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [",
	  "truncated.json:1:" },
	{ "types.json", "{\"parameters\": \"m\", \"functions\": {}}",
	  "types.json: .parameters: expected array, got string" },
	{ "types2.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [\"m\"]}]}}}",
	  "types2.json: .functions[\"f\"].loops[0].deps[0]: expected array, got string" },
	{ "types3.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [[1]]}]}}}",
	  "types3.json: .functions[\"f\"].loops[0].deps[0][0]: expected string, got integer" },
	{ "unknown.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [[\"m\", \"q\"]]}]}}}",
	  "unknown.json: .functions[\"f\"].loops[0].deps[0][1]: unknown parameter 'q' (not in \"parameters\")" },
	{ "unknown2.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [[\"m\"]], "
	  "\"data\": [{\"dependency\": \"additive\", \"operands\": [\"z\"]}]}]}}}",
	  "unknown2.json: .functions[\"f\"].loops[0].data[0].operands[0]: unknown parameter 'z'" },
	{ "emptyset.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [[]]}]}}}",
	  "emptyset.json: .functions[\"f\"].loops[0].deps[0]: empty parameter set" },
	{ "noparams.json", "{\"parameters\": [], \"functions\": {}}", "noparams.json: .parameters: no parameters" },
	{ "nofuncs.json", "{\"parameters\": [\"m\"]}", "nofuncs.json: .functions: missing (expected object)" },
	{ "dupkey.json", "{\"parameters\": [\"m\"], \"parameters\": [\"n\"], \"functions\": {}}",
	  "dupkey.json:1:" },
	{ "kind.json", "{\"parameters\": [\"m\"], \"functions\": {\"f\": {\"loops\": [{\"deps\": [[\"m\"]], "
	  "\"data\": [{\"dependency\": \"exponential\", \"operands\": []}]}]}}}",
	  "unknown dependency kind 'exponential'" },
	{ "truncated.deps", "parameters = [\"a\"];\nfunctions = (\n { name = \"f\"; deps = ([\"a\"]",
	  "truncated.deps:3: syntax error" },
	{ "types.deps", "parameters = [\"a\"];\nfunctions = (\n { name = \"f\"; deps = 3; }\n);\n",
	  "types.deps:3: 'deps' must be a list of parameter sets" },
	{ "unknown.deps", "parameters = [\"a\"];\nfunctions = (\n { name = \"f\";\n   deps = ([\"a\", \"b\"]); }\n);\n",
	  "unknown.deps:4: unknown parameter 'b' (not in \"parameters\")" },
	{ "emptyset.deps", "parameters = [\"a\"];\nfunctions = ( { name = \"f\"; deps = ([]); } );\n",
	  "emptyset.deps:2: empty parameter set" },
	{ "expect.deps", "parameters = [\"a\"];\nfunctions = ( { name = \"f\"; deps = ([\"a\"]);\n expect = \"a^2 * b\"; } );\n",
	  "expect.deps:3: bad 'expect' expression: column 7: unknown parameter 'b'" },
	{ "typo.deps", "parameters = [\"a\"];\nfunctions = ( { name = \"f\";\n dep = ([\"a\"]); } );\n",
	  "typo.deps:3: unknown setting 'dep' in a function" },
};

static void test_bad_files(void)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		const char *p = write_tmp(b->name, b->text);
		struct deps d;
		struct perr err;
		err.msg[0] = 0;
		ok(deps_read(&d, p, &err) < 0, "%s is refused", b->name);
		contains(err.msg, b->want, "%s: the error names the position", b->name);
		ok(!strchr(err.msg, '\n'), "%s: one line", b->name);
	}
	struct deps d;
	struct perr err;
	ok(deps_read(&d, "/nonexistent/x.json", &err) < 0, "a missing file is refused");
	contains(err.msg, "cannot read dependency file '/nonexistent/x.json'", "and named");
}

int main(void)
{
	test_unit_files();
	test_terms();
	test_lulesh();
	test_native();
	test_bad_files();
	return done_testing();
}
