/*
 * Generated truths (models/truth.h), bootstrap ensembles (models/ensemble.h)
 * and the evaluation of designs (analysis/design_eval.h) on functions of
 * known truth with fixed seeds.
 */
#include "tests/lib/tap.h"
#include "analysis/design_eval.h"
#include "models/ensemble.h"
#include "models/truth.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xy[] = { "x", "y", "z" };
static double V[] = { 4, 8, 16, 32, 64 };

static void test_truth_spelling(void)
{
	struct truth t;
	struct perr err;
	ok(truth_parse(&t, "gen:10 + 0.5 * x^2 * y,noise=0.02,seed=7,seeds=3", 2, xy, &err) == 0,
	   "a spelled truth parses");
	is_rel(t.noise, 0.02, 0, "its noise");
	is_int((long long)t.seed, 7, "its seed");
	is_int(t.nseeds, 3, "its seeds");
	double x[2] = { 4, 8 };
	is_rel(truth_value(&t, x), 10 + 0.5 * 16 * 8, 1e-15, "its value without noise");
	truth_release(&t);
	ok(truth_parse(&t, "gen:x^(3/2) * log2(y)^(1)", 2, xy, &err) == 0, "PMNF terms as Extra-P prints them");
	is_rel(t.noise, 0.05, 0, "noise 5%% by default");
	truth_release(&t);
	static const struct { const char *spec, *msg; } bad[] = {
		{ "gen:x * q", "column 5: unknown parameter 'q'" },
		{ "gen:x,noise=1.5", "noise must be a relative standard deviation in [0, 1)" },
		{ "gen:x,seeds=0", "seeds must be a count from 1 to 100000" },
		{ "gen:x,colour=red", "unknown setting 'colour'" },
		{ "gen:x,seed", "'seed' is no setting" },
		{ "gen:", "names no function" },
		{ "x + y", "is not a generated truth" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(truth_parse(&t, bad[i].spec, 2, xy, &err) < 0, "'%s' is refused", bad[i].spec);
		contains(err.msg, bad[i].msg, "'%s': says why", bad[i].spec);
		truth_release(&t);
	}
}

static void test_truth_noise(void)
{
	struct truth t;
	struct perr err;
	truth_parse(&t, "gen:100 * x,noise=0.05", 1, xy, &err);
	double x = 8, y = 16, sum = 0, sq = 0;
	int n = 4000;
	for (int r = 0; r < n; r++) {
		double v = truth_measure(&t, 3, &x, r) / 800 - 1;
		sum += v;
		sq += v * v;
	}
	double sd = sqrt(sq / n - (sum / n) * (sum / n));
	ok(fabs(sum / n) < 0.005, "the noise is centred (mean %.4f)", sum / n);
	ok(sd > 0.045 && sd < 0.055, "with the relative standard deviation asked for (%.4f)", sd);
	is_rel(truth_measure(&t, 3, &x, 17), truth_measure(&t, 3, &x, 17), 0, "one point, one draw: the same value");
	ok(truth_measure(&t, 3, &x, 17) != truth_measure(&t, 4, &x, 17), "another seed, another value");
	ok(truth_measure(&t, 3, &x, 17) != truth_measure(&t, 3, &x, 18), "another repetition, another value");
	ok(truth_measure(&t, 3, &x, 0) != truth_measure(&t, 3, &y, 0) / 2, "another point, another draw");
	truth_release(&t);
}

static void test_truth_random(void)
{
	double mid[3] = { 16, 16, 16 };
	int kinds[4] = { 0 }, exact = 1;
	for (int np = 1; np <= 3; np++)
		for (unsigned long seed = 1; seed <= 40; seed++) {
			struct truth t;
			struct deps d;
			struct perr err;
			truth_random(&t, np, xy, mid, seed, 0.05);
			double x[3] = { 5, 20, 40 };
			exact &= t.f && fabs(truth_value(&t, x) - pmnf_eval(&t.form, x)) <= 1e-9 * pmnf_eval(&t.form, x);
			if (truth_deps(&t, &d, &err) == 0) {
				kinds[np] += d.nfuncs == 1 && d.funcs[0].nterms == t.form.nterms;
				deps_release(&d);
			}
			truth_release(&t);
		}
	ok(exact, "the expression of a random truth is its PMNF function");
	ok(kinds[1] == 40 && kinds[2] == 40 && kinds[3] == 40, "its dependency file has its terms (%d %d %d)",
	   kinds[1], kinds[2], kinds[3]);
	struct truth a, b;
	truth_random(&a, 3, xy, mid, 11, 0.05);
	truth_random(&b, 3, xy, mid, 11, 0.05);
	is_str(a.text, b.text, "one seed, one function");
	truth_release(&b);
	truth_random(&b, 3, xy, mid, 12, 0.05);
	ok(strcmp(a.text, b.text), "another seed, another function");
	truth_release(&a);
	truth_release(&b);
	struct truth t;
	struct perr err;
	struct deps d;
	truth_parse(&t, "gen:x * y", 2, xy, &err);
	ok(truth_deps(&t, &d, &err) < 0, "a spelled truth has no known dependency structure");
	truth_release(&t);
}

static void test_truth_campaign(void)
{
	struct truth t;
	struct perr err;
	struct experiment e;
	truth_parse(&t, "gen:1 + x * y,noise=0.01", 2, xy, &err);
	int nv[2] = { 5, 3 };
	double *vals[2] = { V, V };
	truth_experiment(&t, 1, nv, vals, 4, &e);
	is_int(e.npoints, 15, "a generated campaign: every point of the grid");
	const struct exp_values *v = experiment_values(&e, 0, 0, 14);
	is_int(v ? v->n : 0, 4, "with its repetitions");
	is_str(e.callpaths[0], "main", "region main");
	is_str(e.metrics[0], "time", "metric time");
	double x[2] = { experiment_coord(&e, 14, 0), experiment_coord(&e, 14, 1) };
	is_rel(v ? v->v[2] : 0, truth_measure(&t, 1, x, 2), 0, "the values are the truth's measurements");
	experiment_release(&e);
	truth_release(&t);
}

/* Region "main" of a truth measured on the 5 x 5 grid with reps repetitions. */
static void grid_input(const struct truth *t, int reps, double *coords, struct exp_values *vals, double *store)
{
	for (int i = 0; i < 25; i++) {
		coords[2 * i] = V[i % 5];
		coords[2 * i + 1] = V[i / 5];
		for (int r = 0; r < reps; r++)
			store[i * reps + r] = truth_measure(t, 5, &coords[2 * i], r);
		vals[i] = (struct exp_values){ &store[i * reps], reps, 0 };
	}
}

/* The ensemble's variance beyond the range for a truth measured reps times. */
static double far_variance(const char *spec, int reps, int check)
{
	struct truth t;
	struct perr err;
	double coords[50], store[125], far[2] = { 256, 256 };
	struct exp_values vals[25];
	struct model_options mo;
	model_options_robust(&mo);
	truth_parse(&t, spec, 2, xy, &err);
	grid_input(&t, reps, coords, vals, store);
	struct model_input in = { 2, xy, 25, coords, vals };
	struct pmnf_model m;
	struct model_ensemble en, again;
	modeler_fit(&in, &mo, NULL, &m, &err);
	int rc = model_ensemble_fit(&en, NULL, &in, &mo, NULL, &m, 8, 42, &err);
	double vf = model_ensemble_log_var(&en, far, pmnf_eval(&m, far));
	if (check) {
		ok(rc == 0, "an ensemble is drawn");
		is_int(en.n, 8, "every replicate fits");
		model_ensemble_fit(&again, NULL, &in, &mo, NULL, &m, 8, 42, &err);
		is_rel(model_ensemble_log_var(&again, far, pmnf_eval(&m, far)), vf, 0, "one seed, one ensemble");
		model_ensemble_release(&again);
	}
	model_ensemble_release(&en);
	pmnf_release(&m);
	truth_release(&t);
	return vf;
}

static void test_ensemble(void)
{
	double exact = far_variance("gen:10 + 0.5 * x^2 * y,noise=0", 5, 1);
	ok(exact < 1e-8, "exact data: the models agree beyond the range (variance %g)", exact);
	double five = far_variance("gen:10 + 0.5 * x^2 * y,noise=0.05", 5, 1);
	double two = far_variance("gen:10 + 0.5 * x^2 * y,noise=0.05", 2, 0);
	ok(five > 1e-6, "5%% noise: they spread (variance %g)", five);
	ok(two > 1.5 * five, "more with 2 repetitions than with 5 (%g against %g)", two, five);
}

/* The competing hypotheses of a truth measured on the grid: the chosen model among them, none rejected. */
static void test_alternatives(void)
{
	struct truth t;
	struct perr err;
	double coords[50], store[125];
	struct exp_values vals[25];
	struct model_options mo, extrap;
	model_options_robust(&mo);
	model_options_init(&extrap);
	truth_parse(&t, "gen:100 + 0.3 * x^(1/3) * log2(x) * y,noise=0.05", 2, xy, &err);
	grid_input(&t, 2, coords, vals, store);
	struct model_input in = { 2, xy, 25, coords, vals };
	struct pmnf_model m;
	struct model_ensemble alt, none;
	modeler_fit(&in, &mo, NULL, &m, &err);
	ok(model_ensemble_alternatives(&alt, NULL, &in, &mo, NULL, &err) == 0, "alternatives are drawn");
	ok(alt.n >= 2, "5%% noise, 2 repetitions: more than one hypothesis stands (%d)", alt.n);
	int chosen = 0, rejected = 0;
	for (int i = 0; i < alt.n; i++) {
		chosen += pmnf_same_shape(&alt.m[i], &m);
		rejected += !(alt.m[i].lof_p >= mo.alpha);
	}
	is_int(chosen, 1, "the chosen model is one of them, once");
	is_int(rejected, 0, "none is rejected by the lack-of-fit test");
	model_ensemble_alternatives(&none, NULL, &in, &extrap, NULL, &err);
	is_int(none.n, 0, "Extra-P's rule makes no joint choice: no alternatives");
	model_ensemble_release(&none);
	struct model_input line = { 1, xy, 5, V, vals };
	model_ensemble_alternatives(&none, NULL, &line, &mo, NULL, &err);
	is_int(none.n, 0, "nor does one parameter");
	model_ensemble_release(&none);
	model_ensemble_release(&alt);
	pmnf_release(&m);
	truth_release(&t);
}

static struct plan_param grid2[] = { { "x", NULL, 5, V, 1 }, { "y", NULL, 5, V, 1 } };

/* A dependency file: one function "main" whose term multiplies x and y. */
static int product_deps(struct deps *d, struct perr *err)
{
	char *path = NULL;
	if (asprintf(&path, "%s/xy.deps", tap_tmpdir()) < 0)
		return -1;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("parameters = [ \"x\", \"y\" ];\nfunctions = ( { name = \"main\"; deps = ( [ \"x\", \"y\" ] ); } );\n", f);
		fclose(f);
	}
	int rc = deps_read(d, path, err);
	free(path);
	return rc;
}

/* Evaluate the sparse design over params against data, constrained by product_deps. */
static int evaluate_sparse(struct plan_param *params, struct eval_data *data, struct eval_result *r, struct perr *err)
{
	struct deps d;
	int rc = product_deps(&d, err);
	if (rc == 0) {
		const struct dep_function *funcs[1] = { deps_find_function(&d, "main") };
		struct design_spec s = { .nparams = 2, .params = params, .repetitions = 5, .strategy = DESIGN_SPARSE,
					 .deps = &d, .cost_model = "10 + 0.5 * x^2 * y" };
		struct eval_options o;
		eval_options_init(&o);
		data->deps = &d;
		if (data->e)
			data->funcs = funcs;
		rc = design_evaluate(r, &s, data, &o, err);
		deps_release(&d);
	}
	return rc;
}

/* Evaluate the sparse design of a truth over the 5 x 5 grid. */
static int evaluate(const char *spec, struct eval_result *r, struct perr *err)
{
	struct truth t;
	memset(r, 0, sizeof(*r));
	int rc = truth_parse(&t, spec, 2, xy, err);
	if (rc == 0) {
		struct eval_data data = { .truth = &t };
		rc = evaluate_sparse(grid2, &data, r, err);
	}
	truth_release(&t);
	return rc;
}

static void test_evaluate_exact(void)
{
	struct eval_result r;
	struct perr err;
	if (!ok(evaluate("gen:10 + 0.5 * x^2 * y,noise=0,seeds=2", &r, &err) == 0, "exact data: evaluated"))
		diag("%s", err.msg);
	is_str(r.design, "sparse", "the config's strategy");
	is_int(r.nheld, 11, "held out: the 6 x 6 grid one step beyond less the 5 x 5 measured");
	int beyond = 1;
	for (int h = 0; h < r.nheld; h++)
		beyond &= r.held[2 * h] == 128 || r.held[2 * h + 1] == 128;
	ok(beyond, "each with x or y at 128, one step beyond 64 in the grid's doubling");
	is_int(r.nbudgets, 11, "budgets: the design's own and 10%% .. 100%%");
	is_rel(r.share[10], 1.0, 0, "the last is the full factorial's cost");
	int spent_ok = 1, exact = 1;
	for (int st = 0; st < EVAL_NSTRATEGIES; st++)
		for (int b = 0; b < r.nbudgets; b++) {
			const struct eval_cell *c = eval_cell_at(&r, st, b);
			if (!c->feasible)
				continue;
			spent_ok &= c->spent <= c->budget * (1 + 1e-9);
			exact &= c->median_error < 1e-6;
		}
	ok(spent_ok, "no strategy spends more than its budget");
	ok(exact, "every feasible design recovers an exact truth from exact data");
	const struct eval_cell *full = eval_cell_at(&r, EVAL_FULL, 10);
	is_int(full->points, 25, "the full factorial at 100%%: 25 points");
	is_int(full->repetitions, 5, "at the configured repetitions");
	is_int(eval_cell_at(&r, EVAL_FULL, 2)->repetitions, 1, "at 20%%: one repetition");
	ok(!eval_cell_at(&r, EVAL_FULL, 1)->feasible, "at 10%% not even one");
	const struct eval_cell *full30 = eval_cell_at(&r, EVAL_FULL, 3);
	ok(full30->spent > 0.25 * r.full_cost && full30->spent <= full30->budget * (1 + 1e-9),
	   "at 30%%: the rest after one repetition buys a second of some points (%.1f%% spent)",
	   100 * full30->spent / r.full_cost);
	is_int(eval_cell_at(&r, EVAL_LINES, 0)->points, 9, "lines only: 9 points");
	is_int(eval_cell_at(&r, EVAL_DESIGN, 0)->points, 11, "the sparse design: 11 points (lines, 1 separating, 1 extra)");
	is_rel(eval_cell_at(&r, EVAL_DESIGN, 0)->spent, r.design_cost, 1e-12, "at its own cost");
	is_int(eval_cell_at(&r, EVAL_CHEAPEST, 10)->points, 25, "cheapest first at 100%%: every point");
	contains(eval_cell_at(&r, EVAL_DESIGN, 0)->models[0], "x^(2) * y^(1)", "the models are reported");
	eval_result_release(&r);
}

static void test_evaluate_noisy(void)
{
	struct eval_result r, again;
	struct perr err;
	if (!ok(evaluate("gen:10 + 0.5 * x^2 * y,noise=0.05,seed=1,seeds=4", &r, &err) == 0, "5%% noise: evaluated"))
		diag("%s", err.msg);
	evaluate("gen:10 + 0.5 * x^2 * y,noise=0.05,seed=1,seeds=4", &again, &err);
	int same = 1;
	for (int c = 0; c < EVAL_NSTRATEGIES * r.nbudgets; c++)
		same &= r.cells[c].feasible == again.cells[c].feasible &&
			(!r.cells[c].feasible || (r.cells[c].median_error == again.cells[c].median_error &&
						  r.cells[c].spent == again.cells[c].spent));
	ok(same, "the same input gives the same evaluation");
	const struct eval_cell *d = eval_cell_at(&r, EVAL_DESIGN, 0);
	is_int(d->nerrors, 4, "one error per region and seed");
	ok(d->median_error > 0 && d->median_error < 0.05, "the design's median error is small and not zero (%.4f)",
	   d->median_error);
	ok(d->worst_error >= d->median_error, "the worst is no better than the median");
	const struct eval_cell *f1 = eval_cell_at(&r, EVAL_FULL, 2), *f5 = eval_cell_at(&r, EVAL_FULL, 10);
	ok(f5->median_error < f1->median_error, "the full factorial at 5 repetitions beats it at 1 (%.4f, %.4f)",
	   f5->median_error, f1->median_error);
	const struct eval_cell *dis = eval_cell_at(&r, EVAL_DISAGREE, 5);
	ok(dis->feasible && dis->points > 9 && dis->points < 25, "disagree at 50%% adds some points (%d)", dis->points);
	eval_result_release(&r);
	eval_result_release(&again);
}

/* Cheaper first, then grid order (as the evaluation orders its points). */
static int cheaper_first(const void *x, const void *y, void *ctx)
{
	const double *cost = ctx;
	int a = *(const int *)x, b = *(const int *)y;
	if (cost[a] != cost[b])
		return cost[a] < cost[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* The rest after whole repetitions buys no repetition that DATA does not hold. */
static void test_evaluate_uneven_data(void)
{
	struct truth t;
	struct perr err;
	struct experiment e;
	double cost[16], sum = 0;
	int order[16];
	struct plan_param grid4[] = { { "x", NULL, 4, V, 1 }, { "y", NULL, 4, V, 1 } };
	experiment_init(&e);
	truth_parse(&t, "gen:10 + 0.5 * x^2 * y,noise=0.05,seed=3", 2, xy, &err);
	experiment_param(&e, "x");
	experiment_param(&e, "y");
	int cp = experiment_callpath(&e, "main"), me = experiment_metric(&e, "time");
	/* DATA: the 5 x 5 grid (x or y = 64 held out); its points at x = 16 measured once, the rest twice */
	for (int i = 0; i < 25; i++) {
		double x[2] = { V[i % 5], V[i / 5] };
		int p = experiment_point(&e, x);
		for (int r = 0; r < (x[0] == 16 ? 1 : 2); r++)
			experiment_add(&e, cp, me, p, truth_measure(&t, 1, x, r));
	}
	for (int i = 0; i < 16; i++) {       /* the config's 4 x 4 grid, cheapest first as the evaluation orders it */
		cost[i] = 10 + 0.5 * V[i % 4] * V[i % 4] * V[i / 4];
		sum += cost[i];
		order[i] = i;
	}
	qsort_r(order, 16, sizeof(int), cheaper_first, cost);
	/* at 30%: one repetition of every point, then a second of the cheapest that DATA holds twice */
	double left = 0.3 * 5 * sum * (1 + 1e-9) - sum, want = sum;
	for (int i = 0; i < 16; i++)
		if (V[order[i] % 4] != 16 && cost[order[i]] <= left) {
			left -= cost[order[i]];
			want += cost[order[i]];
		}
	struct eval_result r;
	memset(&r, 0, sizeof(r));
	struct eval_data data = { .e = &e };
	int rc = evaluate_sparse(grid4, &data, &r, &err);
	if (!ok(rc == 0, "uneven DATA: evaluated"))
		diag("%s", err.msg);
	else
		is_rel(eval_cell_at(&r, EVAL_FULL, 3)->spent / r.full_cost, want / (5 * sum), 1e-9,
		       "the full factorial at 30%%: its rest buys second repetitions only where DATA holds them");
	eval_result_release(&r);
	experiment_release(&e);
	truth_release(&t);
}

int main(void)
{
	test_truth_spelling();
	test_truth_noise();
	test_truth_random();
	test_truth_campaign();
	test_ensemble();
	test_alternatives();
	test_evaluate_exact();
	test_evaluate_noisy();
	test_evaluate_uneven_data();
	return done_testing();
}
