/* Tests of matching dependency-file functions to Score-P call-path regions. */
#include "collectors/region_match.h"
#include "collectors/scorep_dir.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <jansson.h>

/* A struct deps built by hand (the dependency reader lives in designs/). */
static void deps_add(struct deps *d, const char *name, const char *mangled, const char *demangled)
{
	d->funcs = xrealloc(d->funcs, sizeof(*d->funcs) * (size_t)(d->nfuncs + 1));
	struct dep_function *f = &d->funcs[d->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->mangled = mangled ? xstrdup(mangled) : NULL;
	f->demangled = demangled ? xstrdup(demangled) : NULL;
}

static void deps_free(struct deps *d)
{
	for (int i = 0; i < d->nfuncs; i++) {
		free(d->funcs[i].name);
		free(d->funcs[i].mangled);
		free(d->funcs[i].demangled);
	}
	free(d->funcs);
	memset(d, 0, sizeof(*d));
}

/* Minimal parse of Perf-Taint's processed JSON: the three name lists. */
static int load_lulesh_deps(struct deps *d)
{
	memset(d, 0, sizeof(*d));
	json_error_t je;
	json_t *root = json_load_file(tap_src("tests/data/lulesh/lulesh.ll.json"), 0, &je);
	if (!root)
		return -1;
	json_t *names = json_object_get(root, "functions_names"),
	       *mangled = json_object_get(root, "functions_mangled_names"),
	       *demangled = json_object_get(root, "functions_demangled_names");
	for (size_t i = 0; i < json_array_size(names); i++)
		deps_add(d, json_string_value(json_array_get(names, i)), json_string_value(json_array_get(mangled, i)),
			 json_string_value(json_array_get(demangled, i)));
	json_decref(root);
	return 0;
}

static void test_names(void)
{
	static const struct { const char *sig, *name; int np; } t[] = {
		{ "void CalcAccelerationForNodes(Domain&, Index_t)", "CalcAccelerationForNodes", 2 },
		{ "CalcAccelerationForNodes(Domain&, int)", "CalcAccelerationForNodes", 2 },
		{ "void CommSend(Domain&, int, Index_t, Real_t& (Domain::**)(Index_t), Index_t, Index_t, Index_t, bool, bool)",
		  "CommSend", 9 },
		{ "SumElemStressesToNodeForces(double const (*) [8], double, double, double, double*, double*, double*)",
		  "SumElemStressesToNodeForces", 7 },
		{ "int main(int, char**)", "main", 2 },
		{ "main", "main", -1 },
		{ "MPI_Allreduce", "MPI_Allreduce", -1 },
		{ "Domain::~Domain()", "Domain::~Domain", 0 },
		{ "void f(void)", "f", 0 },
		{ "double ns::Foo::bar(int) const", "ns::Foo::bar", 1 },
		{ "std::__1::vector<double, std::__1::allocator<double> >::__construct_at_end(unsigned long)",
		  "std::__1::vector<double,std::__1::allocator<double>>::__construct_at_end", 1 },
		{ "Vec Vec::operator+(Vec const&) const", "Vec::operator+", 1 },
		{ "bool operator==(A const&, B const&)", "operator==", 2 },
		{ "void register_variable<int>(int*, char const*)", "register_variable<int>", 2 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int np = -7;
		char *n = region_function_name(t[i].sig, &np);
		is_str(n, t[i].name, "function name of '%s'", t[i].sig);
		is_int(np, t[i].np, "parameter count of '%s'", t[i].sig);
		free(n);
	}
	is_str(region_callpath_leaf("a->b->void c(int)"), "void c(int)", "leaf of a call path");
	is_str(region_callpath_leaf("main"), "main", "leaf of a root");
	is_str(region_callpath_leaf("main->Foo::operator->()"), "Foo::operator->()", "'->' of operator-> is no separator");
	is_str(region_callpath_leaf("main->void f(int (*)(a->b))"), "void f(int (*)(a->b))",
	       "'->' inside parentheses is no separator");
}

static void test_overloads(void)
{
	struct deps d;
	memset(&d, 0, sizeof(d));
	deps_add(&d, "f", NULL, "f(int)");
	deps_add(&d, "f", NULL, "f(int, int)");
	deps_add(&d, "g", NULL, "g(int)");
	deps_add(&d, "g", NULL, "g(double)");
	deps_add(&d, "h", "_Z1hv", "h()");
	deps_add(&d, "push_back", NULL, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	deps_add(&d, "unused", NULL, "unused(int)");
	struct experiment e;
	experiment_init(&e);
	const char *cps[] = { "main", "main->void f(Index_t)", "main->void f(Index_t, Index_t)", "main->void f(a, b, c)",
			      "main->void g(Real_t)", "main->_Z1hv", "main->void std::vector<int>::push_back(int const&)",
			      "main->void f(Index_t)->void f(Index_t, Index_t)" };
	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++)
		experiment_callpath(&e, cps[i]);
	struct region_match m;
	struct perr err;
	ok(region_match(&m, &e, &d, &err) == 0, "matching runs");
	is_int(m.ncallpaths, 8, "one entry per call path");
	ok(m.func[1] == &d.funcs[0], "overload by parameter count: f(Index_t) -> f(int)");
	ok(m.func[2] == &d.funcs[1], "f(Index_t, Index_t) -> f(int, int)");
	ok(m.func[3] == NULL, "f with three parameters matches nothing");
	ok(m.func[4] == NULL, "g(Real_t) is ambiguous between g(int) and g(double)");
	ok(m.func[5] == &d.funcs[4], "a mangled region name matches the function's mangled name");
	ok(m.func[6] == &d.funcs[5], "template arguments are ignored in qualified names");
	ok(m.func[7] == &d.funcs[1], "the region is the last element of the call path");
	is_int(m.nunmatched_regions, 3, "unmatched regions: main, f with 3 parameters, g (each once)");
	int saw_amb = 0, saw_count = 0;
	for (int i = 0; i < m.nunmatched_regions; i++) {
		if (!strcmp(m.unmatched_regions[i], "void g(Real_t)"))
			saw_amb = strstr(m.unmatched_reasons[i], "ambiguous") != NULL;
		if (!strcmp(m.unmatched_regions[i], "void f(a, b, c)"))
			saw_count = strstr(m.unmatched_reasons[i], "parameter count") != NULL;
	}
	ok(saw_amb, "the ambiguous region says so");
	ok(saw_count, "the parameter-count mismatch says so");
	is_int(m.nunmatched_funcs, 3, "unmatched functions: g(int), g(double), unused");
	region_match_release(&m);
	experiment_release(&e);
	deps_free(&d);
}

static void test_lulesh(void)
{
	struct deps d;
	int lrc = load_lulesh_deps(&d);
	if (!ok(lrc == 0 && d.nfuncs == 356, "LULESH dependency file: 356 functions (got %d)", d.nfuncs)) {
		deps_free(&d);
		return;
	}
	struct experiment e;
	experiment_init(&e);
	char *mets[] = { "time" };
	struct scorep_read_opts o = { .metrics = mets, .nmetrics = 1 };
	struct perr err;
	if (!ok(scorep_dir_read(&e, tap_src("tests/data/lulesh"), &o, &err) == 0, "LULESH profiles read")) {
		diag("%s", err.msg);
		deps_free(&d);
		experiment_release(&e);
		return;
	}
	struct region_match m;
	ok(region_match(&m, &e, &d, &err) == 0, "LULESH matching runs");
	static const struct { const char *leaf, *mangled; } want[] = {
		{ "int main(int, char**)", "main" },
		{ "void CommSend(Domain&, int, Index_t, Real_t& (Domain::**)(Index_t), Index_t, Index_t, Index_t, bool, bool)",
		  "_Z8CommSendR6DomainiiPMS_FRdiEiiibb" },
		{ "MPI_Waitall", "MPI_Waitall" },
		{ "void TimeIncrement(Domain&)", "_ZL13TimeIncrementR6Domain" },
		{ "MPI_Allreduce", "MPI_Allreduce" },
		{ "void CalcAccelerationForNodes(Domain&, Index_t)", "_ZL24CalcAccelerationForNodesR6Domaini" },
		{ "void CommSyncPosVel(Domain&)", "_Z14CommSyncPosVelR6Domain" },
		{ "void CalcTimeConstraintsForElems(Domain&)", "_ZL27CalcTimeConstraintsForElemsR6Domain" },
		{ "void CalcHydroConstraintForElems(Domain&, Index_t, Index_t*, Real_t, Real_t&)",
		  "_ZL27CalcHydroConstraintForElemsR6DomainiPidRd" },
	};
	int matched = 0;
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		const char *got = NULL;
		for (int c = 0; c < e.ncallpaths; c++)
			if (!strcmp(region_callpath_leaf(e.callpaths[c]), want[w].leaf) && m.func[c])
				got = m.func[c]->mangled;
		is_str(got, want[w].mangled, "'%s' matches its Perf-Taint function", want[w].leaf);
		matched += got && !strcmp(got, want[w].mangled);
	}
	is_int(matched, 9, "every instrumented region the dependency file covers is matched");
	is_int(m.nmatched_regions, 9, "nine distinct regions matched");
	char list[1024] = "";
	for (int i = 0; i < m.nunmatched_regions; i++) {
		strcat(list, m.unmatched_regions[i]);
		strcat(list, ";");
	}
	is_str(list, "lulesh2.0;MPI_Init;MPI_Finalize;", "unmatched regions are listed (not in the dependency file)");
	is_int(m.nunmatched_funcs, d.nfuncs - 9, "dependency functions not instrumented are listed");
	region_match_release(&m);
	experiment_release(&e);
	deps_free(&d);
}

int main(void)
{
	test_names();
	test_overloads();
	test_lulesh();
	return done_testing();
}
