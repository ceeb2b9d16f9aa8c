/* Designs: strategies on the Perf-Taint files and LULESH, cost, placement, contention, budget. */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/deps.h"
#include "designs/expr.h"
#include "designs/plan.h"
#include "tests/lib/tap.h"

static double V5a[] = { 25, 30, 35, 40, 45 }, V5p[] = { 27, 64, 125, 216, 343 },
	      V5r[] = { 1, 2, 4, 8, 16 }, V5[] = { 1, 2, 3, 4, 5 };

static struct plan_param lulesh_params[] = {
	{ "size", NULL, 5, V5a, 1 },
	{ "p", "ranks", 5, V5p, 1 },
	{ "regions", NULL, 5, V5r, 1 },
};

static int read_deps(struct deps *d, const char *rel)
{
	struct perr err;
	if (deps_read(d, tap_src(rel), &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	return 0;
}

static int count_reason(const struct plan *pl, const char *what)
{
	int n = 0;
	for (int i = 0; i < pl->npoints; i++)
		n += strstr(pl->points[i].reason, what) != NULL;
	return n;
}

/* rank of the matrix whose columns are prod_{k in S} (x_k - b_k) for every subset S of the params */
static int identif_rank(const struct plan *pl, const int *gp, int g)
{
	int ncol = 1 << g, nrow = pl->npoints;
	double *m = xcalloc((size_t)(nrow * ncol), sizeof(double));
	for (int i = 0; i < nrow; i++)
		for (int s = 0; s < ncol; s++) {
			double v = 1;
			for (int j = 0; j < g; j++)
				if (s >> j & 1) {
					const struct plan_param *pp = &pl->params[gp[j]];
					v *= log(pl->points[i].values[gp[j]] / pp->values[0]);
				}
			m[i * ncol + s] = v;
		}
	int rank = 0;
	for (int c = 0; c < ncol && rank < nrow; c++) {
		int piv = -1;
		double best = 1e-9;
		for (int r = rank; r < nrow; r++)
			if (fabs(m[r * ncol + c]) > best) {
				best = fabs(m[r * ncol + c]);
				piv = r;
			}
		if (piv < 0)
			continue;
		for (int k = 0; k < ncol; k++) {
			double t = m[piv * ncol + k];
			m[piv * ncol + k] = m[rank * ncol + k];
			m[rank * ncol + k] = t;
		}
		for (int r = 0; r < nrow; r++)
			if (r != rank) {
				double f = m[r * ncol + c] / m[rank * ncol + c];
				for (int k = 0; k < ncol; k++)
					m[r * ncol + k] -= f * m[rank * ncol + k];
			}
		rank++;
	}
	free(m);
	return rank;
}

static void test_lulesh(void)
{
	struct deps d;
	if (read_deps(&d, "tests/data/lulesh/lulesh.ll.json") < 0)
		return;
	struct design_spec s = { .nparams = 3, .params = lulesh_params, .repetitions = 5, .deps = &d,
				 .cost_model = "2e-3 * size^3 / p + 1" };
	struct plan pl;
	struct perr err;
	s.strategy = DESIGN_TAINT;
	if (!ok(plan_design(&pl, &s, &err) == 0, "lulesh taint plans"))
		diag("%s", err.msg);
	is_int(pl.npoints, 125, "taint: size, p and regions multiply in main and CalcQForElems: 125 points");
	is_int(pl.full_points, 125, "full factorial: 125 points");
	is_int(pl.full_runs, 625, "full factorial: 625 runs");
	is_int(pl.ngroups, 1, "one group");
	is_int(pl.groups[0].nparams, 3, "of three parameters");
	is_int(pl.npruned, 0, "nothing pruned");
	is_rel(pl.core_hours, pl.full_core_hours, 1e-12, "taint costs what the factorial costs");
	plan_release(&pl);

	s.strategy = DESIGN_SPARSE;
	if (!ok(plan_design(&pl, &s, &err) == 0, "lulesh sparse plans"))
		diag("%s", err.msg);
	is_int(pl.npoints, 18, "sparse: 13 line points + 4 subset points + 1 extra");
	is_int(count_reason(&pl, "line "), 12, "12 off-baseline line points");
	is_int(count_reason(&pl, "baseline"), 1, "one baseline");
	is_int(count_reason(&pl, "separates"), 4, "one point per interaction subset");
	is_int(count_reason(&pl, "extra point"), 1, "one extra check point");
	is_int(pl.runs, 90, "90 runs");
	int gp[] = { 0, 1, 2 };
	is_int(identif_rank(&pl, gp, 3), 8, "all 8 subset coefficients are identifiable");
	ok(pl.core_hours < pl.full_core_hours / 3, "sparse costs less than a third of the factorial");
	/* the separating points are the cheapest with their support */
	int found = 0;
	for (int i = 0; i < pl.npoints; i++) {
		const double *v = pl.points[i].values;
		if (strstr(pl.points[i].reason, "sparse size*p:") && v[0] == 30 && v[1] == 64 && v[2] == 1)
			found = 1;
	}
	ok(found, "size*p is separated at size=30, p=64: the cheapest off-line point in core-hours");
	plan_release(&pl);

	/* regions held at one value: group size*p */
	struct plan_param two[] = { lulesh_params[0], lulesh_params[1], { "regions", NULL, 1, V5r, 1 } };
	s.params = two;
	s.strategy = DESIGN_TAINT;
	plan_design(&pl, &s, &err);
	is_int(pl.npoints, 25, "size x p taint: 25 points");
	plan_release(&pl);
	s.strategy = DESIGN_SPARSE;
	plan_design(&pl, &s, &err);
	is_int(pl.npoints, 11, "size x p sparse: 9 + 1 + 1 points");
	is_int(identif_rank(&pl, gp, 2), 4, "size x p: 4 coefficients identifiable");
	plan_release(&pl);
	s.sparse_extra = -1;
	plan_design(&pl, &s, &err);
	is_int(pl.npoints, 10, "sparse_extra = -1 (none): 10 points");
	is_int(identif_rank(&pl, gp, 2), 4, "still identifiable with no extra point");
	plan_release(&pl);
	deps_release(&d);
}

static void test_unit_designs(void)
{
	struct deps d;
	struct perr err;
	struct plan pl;
	/* multiple_deps: global affects nothing */
	if (read_deps(&d, "tests/data/perf-taint-unit/dataflow_multiple_deps.cpp.processed.json") == 0) {
		struct plan_param pp[] = { { "x1", NULL, 5, V5, 1 }, { "x2", NULL, 5, V5, 1 },
					   { "global", NULL, 5, V5, 1 } };
		struct design_spec s = { .nparams = 3, .params = pp, .repetitions = 5, .deps = &d,
					 .strategy = DESIGN_FULL };
		ok(plan_design(&pl, &s, &err) == 0, "multiple_deps full plans");
		is_int(pl.npoints, 25, "full over non-pruned x1, x2: 25 points");
		is_int(pl.full_points, 125, "against a 125-point naive factorial");
		is_int(pl.npruned, 1, "one pruned parameter");
		is_str(pl.npruned ? pl.pruned[0] : NULL, "global", "global is pruned");
		contains(pl.npruned ? pl.pruned_why[0] : NULL, "affects no loop", "with the reason");
		int fixed = 1;
		for (int i = 0; i < pl.npoints; i++)
			fixed &= pl.points[i].values[2] == 1;
		ok(fixed, "global stays at its baseline 1");
		plan_release(&pl);
		s.strategy = DESIGN_SPARSE;
		plan_design(&pl, &s, &err);
		is_int(pl.npoints, 11, "multiple_deps sparse: 11 points");
		plan_release(&pl);
		deps_release(&d);
	}
	/* prune: two overlapping groups */
	if (read_deps(&d, "tests/data/perf-taint-unit/dataflow_prune.cpp.processed.json") == 0) {
		struct plan_param pp[] = { { "x1", NULL, 5, V5, 1 }, { "x2", NULL, 5, V5, 1 },
					   { "global", NULL, 5, V5, 1 }, { "global2", NULL, 5, V5, 1 } };
		struct design_spec s = { .nparams = 4, .params = pp, .repetitions = 5, .deps = &d,
					 .strategy = DESIGN_TAINT };
		ok(plan_design(&pl, &s, &err) == 0, "prune taint plans");
		is_int(pl.ngroups, 2, "two groups");
		is_int(pl.npoints, 125 + 25 - 5, "125-point grid + 25-point grid sharing the x1 line");
		is_int(pl.full_points, 625, "naive factorial 625");
		plan_release(&pl);
		s.strategy = DESIGN_SPARSE;
		plan_design(&pl, &s, &err);
		is_int(pl.npoints, 17 + 5 + 2, "sparse: 17 line points, 4+1 and 1+1 group points");
		plan_release(&pl);
		deps_release(&d);
	}
	/* matmul */
	if (read_deps(&d, "tests/data/perf-taint-unit/dataflow_matmul.c.processed.json") == 0) {
		struct plan_param pp[] = { { "m", NULL, 5, V5, 1 }, { "n", NULL, 5, V5, 1 },
					   { "k", NULL, 3, V5, 1 } };
		struct design_spec s = { .nparams = 3, .params = pp, .repetitions = 5, .deps = &d,
					 .strategy = DESIGN_SPARSE };
		ok(plan_design(&pl, &s, &err) == 0, "matmul sparse plans");
		is_int(pl.npoints, 11 + 5, "11 line points + 5 group points");
		int warned = 0;
		for (int i = 0; i < pl.nnotes; i++)
			warned |= strstr(pl.notes[i], "parameter 'k' has 3 values") != NULL;
		ok(warned, "k with 3 values is warned about");
		plan_release(&pl);
		struct plan_param bad[] = { { "m", NULL, 5, V5, 1 }, { "q", NULL, 5, V5, 1 } };
		s.params = bad;
		s.nparams = 2;
		ok(plan_design(&pl, &s, &err) < 0, "a varied parameter missing from the file is refused");
		contains(err.msg, "parameter 'q' is not in dependency file", "and named");
		s.strategy = DESIGN_FULL;
		ok(plan_design(&pl, &s, &err) == 0, "full sweeps a parameter the file does not know");
		is_int(pl.npoints, 25, "full: 5 x 5 points");
		plan_release(&pl);
		s.strategy = DESIGN_SPARSE;
		s.deps = NULL;
		ok(plan_design(&pl, &s, &err) < 0, "sparse without a dependency file is refused");
		contains(err.msg, "strategy 'sparse' needs a dependency file", "and says so");
		deps_release(&d);
	}
}

static void test_expr(void)
{
	char *names[] = { "size", "p", "iters" };
	struct perr err;
	struct { const char *t; double want; } cases[] = {
		{ "1 + 2 * 3", 7 }, { "2^3^2", 512 }, { "-2^2", -4 }, { "(1+2)*3", 9 },
		{ "2e-3 * size^3 / p + 1", 2e-3 * 8000 / 4 + 1 }, { "log2(p) * size", 40 },
		{ "size - p - 1", 15 }, { "ceil(size / 3)", 7 }, { "sqrt(p)", 2 }, { "iters", 10 },
	};
	double v[] = { 20, 4, 10 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct expr *e = expr_parse(cases[i].t, 3, names, &err);
		if (!ok(e != NULL, "parses '%s'", cases[i].t)) {
			diag("%s", err.msg);
			continue;
		}
		is_rel(expr_eval(e, v), cases[i].want, 1e-12, "'%s' evaluates", cases[i].t);
		expr_free(e);
	}
	struct { const char *t, *msg; } bad[] = {
		{ "size +", "column 7: unexpected end of expression" },
		{ "size * q", "column 8: unknown parameter 'q'" },
		{ "exp(size)", "column 1: unknown function 'exp' (known: log2, sqrt, ceil)" },
		{ "(size", "column 6: expected ')'" },
		{ "size)", "column 5: unbalanced ')'" },
		{ "2x", "column 1: malformed number" },
		{ "size $ 2", "column 6: unexpected '$'" },
		{ "", "column 1: unexpected end of expression" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(expr_parse(bad[i].t, 3, names, &err) == NULL, "'%s' is refused", bad[i].t);
		is_str(err.msg, bad[i].msg, "'%s': error", bad[i].t);
	}
	/* grid sums agree with enumeration */
	double a[] = { 1, 2, 3, 5 }, b[] = { 2, 4, 8 }, c[] = { 1, 10 };
	double *vals[] = { a, b, c };
	int nv[] = { 4, 3, 2 };
	const char *sums[] = { "2e-3 * size^3 / p + 1", "(size + p)^2 * iters", "size / (p + iters)",
			       "log2(size * p) + iters^0.5", "7", "(size*p - iters)^3 / (size + 1)",
			       "ceil(p / 3) * size * iters" };
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		struct expr *e = expr_parse(sums[i], 3, names, &err);
		double want = 0, got = -1;
		for (int x = 0; x < 4; x++)
			for (int y = 0; y < 3; y++)
				for (int z = 0; z < 2; z++) {
					double w[] = { a[x], b[y], c[z] };
					want += expr_eval(e, w);
				}
		ok(expr_grid_sum(e, nv, vals, 1e6, &got, NULL, &err) == 0, "grid sum of '%s'", sums[i]);
		is_rel(got, want, 1e-12, "'%s': grid sum equals enumeration", sums[i]);
		expr_free(e);
	}
	/* a chain of terms as long as a generated model: refused at a bound,
	   never a stack overflow; a long one within it parses */
	for (int n = 1000; n <= 60000; n += 59000)
		for (int op = 0; op < 2; op++) {
			struct strbuf sb;
			strbuf_init(&sb);
			for (int i = 0; i < n; i++)
				strbuf_addf(&sb, "%ssize", i ? (op ? " * " : " + ") : "");
			struct expr *x = expr_parse(sb.buf, 3, names, &err);
			if (n > 2000) {
				ok(!x, "a %d-term %s is refused", n, op ? "product" : "sum");
				contains(err.msg, "expression too long: more than 2000 operations in a chain", "saying why");
			} else {
				double w[] = { 1.5, 1, 1 };
				ok(x && (op || expr_eval(x, w) == 1.5 * n), "a %d-term %s parses and evaluates", n,
				   op ? "product" : "sum");
			}
			expr_free(x);
			strbuf_release(&sb);
		}
	struct expr *e = expr_parse("log2(size * p * iters)", 3, names, &err);
	double got;
	ok(expr_grid_sum(e, nv, vals, 10, &got, NULL, &err) < 0, "an entangled model over the limit fails");
	contains(err.msg, "couples 3 parameters into a 24-point sub-grid", "and says why");
	expr_free(e);
}

static void test_shared_subsets(void)
{
	/* groups a*b*c and a*b*d share the subset a*b: one separating point serves both */
	const char *p = "tests/data/designs/shared.deps";
	struct deps d;
	if (read_deps(&d, p) < 0)
		return;
	struct plan_param pp[] = { { "a", NULL, 5, V5, 1 }, { "b", NULL, 5, V5, 1 },
				   { "c", NULL, 5, V5, 1 }, { "d", NULL, 5, V5, 1 } };
	struct design_spec s = { .nparams = 4, .params = pp, .repetitions = 5, .deps = &d,
				 .strategy = DESIGN_SPARSE, .sparse_extra = -1 };
	struct plan pl;
	struct perr err;
	ok(plan_design(&pl, &s, &err) == 0, "two groups sharing a*b plan");
	is_int(pl.ngroups, 2, "two groups");
	is_int(pl.npoints, 17 + 4 + 3, "17 line points, 4 subsets of a*b*c, 3 new subsets of a*b*d");
	int shared = 0;
	for (int i = 0; i < pl.npoints; i++)
		shared += strstr(pl.points[i].reason, "sparse a*b:") != NULL;
	is_int(shared, 1, "one point separates a*b");
	int gp1[] = { 0, 1, 2 }, gp2[] = { 0, 1, 3 };
	is_int(identif_rank(&pl, gp1, 3), 8, "a*b*c identifiable");
	is_int(identif_rank(&pl, gp2, 3), 8, "a*b*d identifiable");
	plan_release(&pl);
	deps_release(&d);
}

static void test_cost_placement(void)
{
	double P[] = { 64, 128 }, S[] = { 10, 20 };
	struct plan_param pp[] = { { "size", NULL, 2, S, 1 }, { "p", "ranks", 2, P, 1 } };
	int rpn[] = { 16, 32 };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 3, .strategy = DESIGN_FULL,
				 .cost_model = "size * 36" };
	struct plan pl;
	struct perr err;
	ok(plan_design(&pl, &s, &err) == 0, "full with a cost model plans");
	/* size=10, p=64: 360 s x 64 cores x 3 reps = 19.2 core-hours */
	is_rel(pl.points[0].core_hours, 19.2, 1e-12, "charge core: ranks x time x repetitions");
	is_rel(pl.core_hours, 3 * (360 * 64 + 360 * 128 + 720 * 64 + 720 * 128) / 3600.0, 1e-12,
	       "total core-hours");
	is_rel(pl.full_core_hours, pl.core_hours, 1e-12, "full factorial cost matches");
	is_int(pl.points[0].nodes, 0, "no placement axis: nodes 0");
	plan_release(&pl);
	s.charge = CHARGE_NODE;
	s.cores_per_node = 36;
	s.nrpn = 2;
	s.rpn = rpn;
	s.policy = "compact";
	ok(plan_design(&pl, &s, &err) == 0, "charge node with a placement axis plans");
	is_int(pl.npoints, 8, "4 points x 2 ranks-per-node values");
	is_int(pl.points[0].ranks_per_node, 16, "first placement 16 ranks/node");
	is_int(pl.points[0].nodes, 4, "64 ranks at 16/node: 4 nodes");
	is_str(pl.points[0].policy, "compact", "policy stored");
	/* size=10, p=64, 16 rpn: 4 nodes x 36 cores x 360 s x 3 */
	is_rel(pl.points[0].core_hours, 4 * 36 * 360 * 3 / 3600.0, 1e-12, "charge node: nodes x cores x time");
	is_int(pl.full_points, 8, "full factorial counts the placement axis");
	is_rel(pl.full_core_hours, pl.core_hours, 1e-12, "and costs it");
	int last = pl.npoints - 1;
	is_int(pl.points[last].nodes, 4, "128 ranks at 32/node: 4 nodes");
	contains(pl.points[last].reason, "placement 32 ranks/node", "reason names the placement");
	plan_release(&pl);
	char *att[] = { "p" };
	s.nattach = 1;
	s.attach = att;
	plan_design(&pl, &s, &err);
	is_int(pl.npoints, 6, "attached to the line of p: 4 + 2 points");
	plan_release(&pl);
	char *badatt[] = { "q" };
	s.attach = badatt;
	ok(plan_design(&pl, &s, &err) < 0, "attaching to an unknown parameter fails");
	contains(err.msg, "placement attaches to 'q'", "and names it");
}

/* Threads per rank: every core a rank holds is charged, in the points and the full factorial. */
static void test_threads_charge(void)
{
	double T[] = { 1, 2 }, N[] = { 10, 20 }, P[] = { 3 };
	struct plan_param pp[] = { { "n", NULL, 2, N, 1 }, { "t", "threads", 2, T, 1 } };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 2, .strategy = DESIGN_FULL,
				 .cost_model = "n * 36", .policy = "compact" };
	struct plan pl;
	struct perr err;
	ok(plan_design(&pl, &s, &err) == 0, "a threads parameter plans");
	/* n=10, t=2: 360 s x 1 rank x 2 cores x 2 reps = 0.4 core-hours (0.2 before) */
	is_rel(pl.points[1].core_hours, 0.4, 1e-12, "charge core: a 2-thread rank is charged 2 cores");
	is_rel(pl.points[0].core_hours, 0.2, 1e-12, "and a 1-thread rank 1");
	is_rel(pl.full_core_hours, pl.core_hours, 1e-12, "the full factorial's cost counts the threads too");
	is_str(pl.points[1].cores_per_rank, "2", "the point's cores per rank is its thread count");
	ok(plan_param_is_study_axis(&pp[1]), "threads are a study axis");
	plan_release(&pl);
	/* threads_per_rank = 4 without a parameter: the campaign's cores per rank */
	struct plan_param pq[] = { { "n", NULL, 2, N, 1 }, { "p", "ranks", 1, P, 1 } };
	s.params = pq;
	s.cores_per_rank = "4";
	ok(plan_design(&pl, &s, &err) == 0, "cores per rank plans");
	is_rel(pl.points[0].core_hours, 360 * 3 * 4 * 2 / 3600.0, 1e-12, "3 ranks x 4 cores x 360 s x 2 reps");
	is_rel(pl.full_core_hours, pl.core_hours, 1e-12, "in the full factorial too");
	plan_release(&pl);
	s.charge = CHARGE_NODE;     /* 36 cores a node hold 9 ranks of 4: one node */
	s.cores_per_node = 36;
	ok(plan_design(&pl, &s, &err) == 0, "charge node with cores per rank plans");
	is_rel(pl.points[0].core_hours, 36 * 360 * 2 / 3600.0, 1e-12, "one node of 36 cores");
	plan_release(&pl);
}

static void test_contention(void)
{
	struct plan_param pp[] = { lulesh_params[0], lulesh_params[1] };
	int rpn[] = { 2, 4, 6, 8, 10, 12, 14, 16, 18 };
	double point[] = { 30, 64 };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 5, .strategy = DESIGN_FULL,
				 .ncontention = 9, .contention_rpn = rpn, .contention_point = point };
	struct plan pl;
	struct perr err;
	ok(plan_design(&pl, &s, &err) == 0, "contention plans");
	is_int(pl.npoints, 25 + 9, "25 factorial points + 9 contention points");
	int good = 1, n = 0;
	for (int i = 0; i < pl.npoints; i++) {
		const struct plan_point *pt = &pl.points[i];
		if (!strstr(pt->reason, "contention"))
			continue;
		n++;
		good &= pt->values[0] == 30 && pt->values[1] == 64 &&
			pt->nodes == (64 + pt->ranks_per_node - 1) / pt->ranks_per_node;
	}
	is_int(n, 9, "nine contention points");
	ok(good, "each at p=64, size=30 with nodes = ceil(64 / rpn)");
	is_int(pl.full_points, 25, "the factorial does not count the contention points");
	plan_release(&pl);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Point i of a and b: the same values, placement, repetitions, cost and reason. */
static int same_point(const struct plan *a, const struct plan *b, int i)
{
	struct plan_point ba, bb;
	double va[8], vb[8];
	const struct plan_point *p = plan_point_at(a, i, &ba, va), *q = plan_point_at(b, i, &bb, vb);
	int same = p->nodes == q->nodes && p->ranks_per_node == q->ranks_per_node &&
		   p->repetitions == q->repetitions && p->core_hours == q->core_hours &&
		   same_str(p->policy, q->policy) && same_str(p->map, q->map) &&
		   same_str(p->cores_per_rank, q->cores_per_rank) && same_str(p->reason, q->reason);
	for (int k = 0; k < a->nparams; k++)
		same &= p->values[k] == q->values[k];
	return same;
}

/* A plan kept compactly has the points of the plan with a points array, one at a time and materialised. */
static void test_compact(void)
{
	double A[] = { 1, 2, 3, 4, 5 }, P[] = { 2, 4, 8 }, point[] = { 2.5, 2 };
	struct plan_param pp[] = { { "a", NULL, 5, A, 1 }, { "p", "ranks", 3, P, 1 } };
	int rpn[] = { 2, 4 }, crpn[] = { 1, 2, 4 };
	char *att[] = { "p" };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 4, .strategy = DESIGN_FULL,
				 .cost_model = "a * 60", .nrpn = 2, .rpn = rpn, .policy = "spread",
				 .map = "cores.map", .cores_per_rank = "2", .nattach = 1, .attach = att,
				 .ncontention = 3, .contention_rpn = crpn, .contention_point = point,
				 .contention_repetitions = 2, .budget_core_hours = 8 };   /* 2 cores a rank */
	struct plan whole, compact;
	struct perr err;
	if (!ok(plan_design(&whole, &s, &err) == 0, "placed, contended and trimmed design plans"))
		diag("%s", err.msg);
	ok(whole.dropped > 0, "the budget drops points (%d)", whole.dropped);
	ok(plan_design_compact(&compact, &s, &err) == 0, "and plans compactly");
	ok(compact.points == NULL && compact.compact != NULL, "without a points array");
	is_int(compact.npoints, whole.npoints, "the same number of points");
	ok(compact.runs == whole.runs && compact.core_hours == whole.core_hours, "the same runs and core-hours");
	is_int(compact.dropped, whole.dropped, "the same points dropped");
	int same = 1, contention = 0;
	for (int i = 0; i < whole.npoints; i++) {
		same &= same_point(&whole, &compact, i);
		if (strstr(whole.points[i].reason, "contention")) {
			contention++;
			same &= whole.points[i].values[0] == 2.5;
		}
	}
	ok(same, "point by point the same, the contention points at a = 2.5 (not one of a's values)");
	is_int(contention, 3, "three contention points");
	is_str(whole.points[0].cores_per_rank, "2", "cores per rank go with policy spread");
	ok(whole.points[0].map == NULL, "a map does not");
	plan_materialize(&compact);
	ok(compact.points != NULL && compact.compact == NULL, "materialised: a points array");
	same = 1;
	for (int i = 0; i < whole.npoints; i++)
		same &= same_point(&whole, &compact, i);
	ok(same, "with the same points");
	plan_release(&compact);
	plan_release(&whole);
	s.policy = "explicit";
	ok(plan_design(&whole, &s, &err) == 0, "policy explicit plans");
	is_str(whole.points[0].map, "cores.map", "the map goes with policy explicit");
	ok(whole.points[0].cores_per_rank == NULL, "cores per rank do not");
	plan_release(&whole);
}

static void test_budget(void)
{
	struct deps d;
	if (read_deps(&d, "tests/data/lulesh/lulesh.ll.json") < 0)
		return;
	struct design_spec s = { .nparams = 3, .params = lulesh_params, .repetitions = 5, .deps = &d,
				 .cost_model = "2e-3 * size^3 / p + 1", .strategy = DESIGN_SPARSE };
	struct plan pl;
	struct perr err;
	plan_design(&pl, &s, &err);
	double total = pl.core_hours;
	plan_release(&pl);

	s.budget_core_hours = total;
	ok(plan_design(&pl, &s, &err) == 0, "exactly at budget: accepted");
	is_int(pl.repetitions, 5, "exactly at budget: 5 repetitions kept");
	is_int(pl.npoints, 18, "exactly at budget: all 18 points");
	is_int(pl.nnotes, 0, "exactly at budget: no budget action");
	plan_release(&pl);

	s.budget_core_hours = total - 1.0 / 3600;
	ok(plan_design(&pl, &s, &err) == 0, "one core-second over: trimmed");
	is_int(pl.repetitions, 4, "one core-second over: 4 repetitions");
	is_int(pl.npoints, 18, "one core-second over: no point dropped");
	ok(pl.core_hours <= s.budget_core_hours, "one core-second over: within budget after trimming");
	contains(pl.nnotes ? pl.notes[0] : NULL, "repetitions reduced from 5 to 4", "the note says so");
	plan_release(&pl);

	/* at 3 repetitions, only the required points fit */
	double req = 0, all3 = total * 3 / 5;
	plan_design(&pl, &(struct design_spec){ .nparams = 3, .params = lulesh_params, .repetitions = 3,
						.deps = &d, .cost_model = s.cost_model,
						.strategy = DESIGN_SPARSE, .sparse_extra = -1 }, &err);
	req = pl.core_hours;
	plan_release(&pl);
	s.budget_core_hours = (req + all3) / 2;
	if (!ok(plan_design(&pl, &s, &err) == 0, "between required and full cost at 3 repetitions: trimmed"))
		diag("%s", err.msg);
	is_int(pl.repetitions, 3, "down to min_repetitions 3");
	is_int(pl.dropped, 1, "the optional extra point is dropped");
	is_int(count_reason(&pl, "line "), 12, "every line point kept");
	plan_release(&pl);

	s.budget_core_hours = req - 1.0 / 3600;
	ok(plan_design(&pl, &s, &err) < 0, "one core-second below the minimum: infeasible");
	contains(err.msg, "over the budget of", "the shortfall is given");
	contains(err.msg, "by 0.0003 core-hours", "one core-second short");
	contains(err.msg, "cheapest feasible alternative: min_repetitions = 2", "and the alternative");
	s.budget_core_hours = 1e-6;
	ok(plan_design(&pl, &s, &err) < 0, "a tiny budget is infeasible");
	contains(err.msg, "cheapest feasible alternative: budget.core_hours = ", "names the budget needed");
	s.cost_model = NULL;
	ok(plan_design(&pl, &s, &err) < 0, "a budget without a cost model is refused");
	contains(err.msg, "a budget needs a cost model", "and says so");
	deps_release(&d);
}

static void test_big(void)
{
	/* 6 parameters x 10 values: a 10^6-point factorial, counted and costed analytically */
	const char *p = tap_src("tests/data/designs/six.deps");
	struct deps d;
	struct perr err;
	if (!ok(deps_read(&d, p, &err) == 0, "six-parameter dependency file reads"))
		diag("%s", err.msg);
	double vals[6][10];
	struct plan_param pp[6];
	const char *names[] = { "a", "b", "c", "d", "e", "p" };
	for (int k = 0; k < 6; k++) {
		for (int i = 0; i < 10; i++)
			vals[k][i] = (i + 1) * (k == 5 ? 16 : 1);
		pp[k] = (struct plan_param){ (char *)names[k], k == 5 ? "ranks" : NULL, 10, vals[k], 1 };
	}
	struct design_spec s = { .nparams = 6, .params = pp, .repetitions = 5, .deps = &d,
				 .strategy = DESIGN_SPARSE, .cost_model = "1e-3 * a^2 * b / p + c + log2(d) + e" };
	struct plan pl;
	ok(plan_design(&pl, &s, &err) == 0, "10^6-point campaign plans");
	is_int(pl.full_points, 1000000, "full factorial: 10^6 points");
	is_int(pl.full_runs, 5000000, "full factorial: 5x10^6 runs");
	/* analytic: sum over the grid of cost x p, x5 reps / 3600 */
	double s1 = 0, sp = 0, sa2 = 0, sb = 0, sl = 0;
	for (int i = 0; i < 10; i++) {
		s1 += vals[0][i];
		sp += vals[5][i];
		sa2 += vals[0][i] * vals[0][i];
		sb += vals[1][i];
		sl += log2(vals[3][i]);
	}
	double want = 1e-3 * sa2 * sb * 1e4 /* p cancels */ +
		      (s1 * 1e4 + sl * 1e4 + s1 * 1e4) * sp; /* c, log2(d), e times p */
	is_rel(pl.full_core_hours, want * 5 / 3600, 1e-9, "full factorial cost, analytic");
	is_int(pl.npoints, 1 + 6 * 9 + 2 + 5, "sparse: 55 line points, groups c*d (1+1) and a*b*e (4+1)");
	plan_release(&pl);
	deps_release(&d);
}

/* Points i and j differ only along parameter k (same rpn, same other values). */
static int differ_only_in(const struct plan *pl, int i, int j, int k)
{
	const struct plan_point *a = &pl->points[i], *b = &pl->points[j];
	if (a->ranks_per_node != b->ranks_per_node || a->values[k] == b->values[k])
		return 0;
	for (int q = 0; q < pl->nparams; q++)
		if (q != k && a->values[q] != b->values[q])
			return 0;
	return 1;
}

/* The study axis np (role ranks, no loop depends on it) and a contention
   block, with the dependency file: every strategy keeps np and yields a
   line along it, and the contention points form a line along ranks per node. */
static void test_study_axes(void)
{
	struct deps d;
	if (read_deps(&d, "configs/contention-local.deps") < 0)
		return;
	static double N[] = { 128, 256, 384 }, I[] = { 10 }, NP[] = { 1, 2 };
	struct plan_param pp[] = { { "n", NULL, 3, N, 1 }, { "i", NULL, 1, I, 1 }, { "np", "ranks", 2, NP, 1 } };
	int crpn[] = { 1, 2 };
	double cpoint[] = { NAN, NAN, 2 };
	const char *names[] = { "full", "taint", "sparse" };
	for (int st = DESIGN_FULL; st <= DESIGN_SPARSE; st++) {
		struct design_spec s = { .nparams = 3, .params = pp, .repetitions = 3, .strategy = st, .deps = &d,
					 .ncontention = 2, .contention_rpn = crpn, .contention_point = cpoint };
		struct plan pl;
		struct perr err;
		if (!ok(plan_design(&pl, &s, &err) == 0, "%s: plans with the dependency file", names[st]))
			diag("%s", err.msg);
		is_int(pl.npruned, 0, "%s: np is a study axis: not pruned", names[st]);
		int np_line = 0, c_line = 0, base = -1;
		for (int i = 0; i < pl.npoints; i++)
			if (!strcmp(pl.points[i].reason, "baseline"))
				base = i;
		for (int j = 0; base >= 0 && j < pl.npoints; j++)
			np_line |= !strstr(pl.points[j].reason, "contention") && differ_only_in(&pl, base, j, 2);
		ok(np_line, "%s: a point differs from the baseline in np only: a line along np", names[st]);
		for (int i = 0; i < pl.npoints; i++)
			for (int j = 0; j < pl.npoints; j++)
				c_line |= strstr(pl.points[i].reason, "contention") && strstr(pl.points[j].reason, "contention") &&
					  pl.points[i].ranks_per_node != pl.points[j].ranks_per_node &&
					  !memcmp(pl.points[i].values, pl.points[j].values, sizeof(double) * 3);
		ok(c_line, "%s: the contention points differ in ranks per node only", names[st]);
		int warned = 0;
		for (int i = 0; i < pl.nnotes; i++)
			warned |= strstr(pl.notes[i], "'np'") != NULL;
		ok(!warned, "%s: no 'needs at least 5 values' warning for the study axis", names[st]);
		plan_release(&pl);
	}
	deps_release(&d);
}

/* The measurability floor: a warning for points too short to measure, and
   sparse extra points chosen above it, mid-range first. */
/* The baseline point's values into v; its reason. */
static const char *base_of(const struct plan *pl, double *v)
{
	for (int i = 0; i < pl->npoints; i++)
		if (!strncmp(pl->points[i].reason, "baseline", 8)) {
			memcpy(v, pl->points[i].values, sizeof(double) * (size_t)pl->nparams);
			return pl->points[i].reason;
		}
	return "";
}

/* Where the lines sit: by cost and noise, within the budget, the given baseline kept. */
static void test_anchors(void)
{
	struct deps d;
	if (read_deps(&d, "configs/demo.deps") < 0)
		return;
	static double N[] = { 100, 140, 180, 220, 260 }, I[] = { 2, 4, 6, 8, 10 };
	struct plan_param pp[] = { { "n", NULL, 5, N, 1 }, { "i", NULL, 5, I, 1 } };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 3, .strategy = DESIGN_SPARSE,
				 .deps = &d, .cost_model = "1e-4 * n * i", .min_run_seconds = 0.2 };
	struct plan pl;
	struct perr err;
	double v[2] = { 0, 0 };
	/* every run below the floor at the smallest values (0.02-0.1 s): the lines move up */
	if (!ok(plan_design(&pl, &s, &err) == 0, "anchors: plans"))
		diag("%s", err.msg);
	base_of(&pl, v);
	ok(v[0] == 260 && v[1] == 10, "the lines sit at n=260, i=10, not n=100, i=2 (got n=%g i=%g)", v[0], v[1]);
	contains(pl.points[0].reason, "baseline; lines anchored at n=260, i=10 (not the smallest, 100, 2)",
		 "--explain says where and why");
	contains(pl.points[0].reason, "10 below)", "the smallest values' runs below the floor are counted");
	contains(pl.nnotes ? pl.notes[0] : "", "lines anchored at", "and a note says it without --explain");
	double moved = pl.core_hours;
	plan_release(&pl);
	/* a budget the moved lines do not fit at 3 repetitions: the smallest values stay */
	s.budget_core_hours = moved * 0.5;
	if (!ok(plan_design(&pl, &s, &err) == 0, "anchors: plans within a smaller budget"))
		diag("%s", err.msg);
	base_of(&pl, v);
	ok(v[0] < 260 || v[1] < 10, "the budget does not allow n=260, i=10 (got n=%g i=%g)", v[0], v[1]);
	plan_release(&pl);
	s.budget_core_hours = 0;
	/* a given baseline stays; the other parameter's anchor is still chosen */
	double given[] = { 100, NAN };
	s.baseline = given;
	plan_design(&pl, &s, &err);
	base_of(&pl, v);
	ok(v[0] == 100 && v[1] > 2, "baseline n=100 given: kept, i anchored above 2 (got n=%g i=%g)", v[0], v[1]);
	plan_release(&pl);
	/* a simulation whose steps line at the smallest system is all start-up: it moves */
	static double A[] = { 1000, 2000, 4000, 8000, 16000 }, S[] = { 100, 200, 300, 400, 500 };
	struct plan_param gp[] = { { "atoms", NULL, 5, A, 1 }, { "steps", NULL, 5, S, 1 } };
	struct design_spec g = { .nparams = 2, .params = gp, .repetitions = 3,
				 .cost_model = "0.05 + 2e-7 * atoms * steps" };
	plan_design(&pl, &g, &err);
	base_of(&pl, v);
	ok(v[0] > 1000, "the steps line is not at the smallest system (got atoms=%g)", v[0]);
	contains(base_of(&pl, v), "lines anchored at atoms=", "and the plan says why");
	plan_release(&pl);
	/* no cost model: the smallest values, as before */
	g.cost_model = NULL;
	plan_design(&pl, &g, &err);
	base_of(&pl, v);
	ok(v[0] == 1000 && v[1] == 100, "without a cost model the lines sit at the smallest values");
	is_str(base_of(&pl, v), "baseline", "with the plain reason");
	plan_release(&pl);
	deps_release(&d);
}

static void test_floor(void)
{
	struct deps d;
	if (read_deps(&d, "configs/demo.deps") < 0)
		return;
	static double N[] = { 100, 140, 180, 220, 260 }, I[] = { 2, 4, 6, 8, 10 };
	struct plan_param pp[] = { { "n", NULL, 5, N, 1 }, { "i", NULL, 5, I, 1 } };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = 3, .strategy = DESIGN_SPARSE,
				 .deps = &d, .sparse_extra = 2,
				 .cost_model = "0.05 + 2e-9 * n^3 * i + 1.7e-4 * n * i" };
	struct plan pl;
	struct perr err;
	if (!ok(plan_design(&pl, &s, &err) == 0, "demo sparse plans"))
		diag("%s", err.msg);
	int nextra = 0, mid = 0, warned = 0;
	for (int i = 0; i < pl.npoints; i++)
		if (strstr(pl.points[i].reason, "extra point")) {
			nextra++;
			mid += pl.points[i].values[0] == 180 && (pl.points[i].values[1] == 6 || pl.points[i].values[1] == 4);
			contains(pl.points[i].reason, "mid-range values, est. ", "the reason says why it was chosen");
		}
	is_int(nextra, 2, "two extra points");
	is_int(mid, 2, "mid-range: n=180 with i=6 and i=4, not the cheapest (180,4), (140,6)");
	for (int i = 0; i < pl.nnotes; i++)
		warned |= strstr(pl.notes[i], "1 point is estimated below min_run_seconds = 0.1 s") &&
			  strstr(pl.notes[i], "n=100 i=2 (0.088 s)");
	ok(warned, "the baseline (0.088 s per run) is warned about");
	plan_release(&pl);
	/* a floor of 0.2 s: 1e-4 * n * i is above it only for n * i >= 2000; the
	   baseline given, so that the anchors stay (test_anchors moves them) */
	s.cost_model = "1e-4 * n * i";
	s.min_run_seconds = 0.2;
	double smallest[] = { 100, 2 };
	s.baseline = smallest;
	if (!ok(plan_design(&pl, &s, &err) == 0, "plans with a 0.2 s floor"))
		diag("%s", err.msg);
	int above = 0;
	nextra = 0;
	for (int i = 0; i < pl.npoints; i++)
		if (strstr(pl.points[i].reason, "extra point")) {
			nextra++;
			above += 1e-4 * pl.points[i].values[0] * pl.points[i].values[1] >= 0.2;
		}
	is_int(nextra, 2, "two extra points");
	is_int(above, 2, "both above the floor although cheaper points exist");
	plan_release(&pl);
	deps_release(&d);
}

int main(void)
{
	test_threads_charge();
	test_expr();
	test_lulesh();
	test_unit_designs();
	test_shared_subsets();
	test_cost_placement();
	test_contention();
	test_study_axes();
	test_floor();
	test_anchors();
	test_budget();
	test_compact();
	test_big();
	return done_testing();
}
