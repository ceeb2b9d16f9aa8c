/*
 * Robust point estimates, noise-aware selection and the relative checks,
 * on generated data of known truth (fixed seeds): outliers, the lack-of-fit
 * selection against Extra-P's rule, the 12-point slope-change line of
 * issue 14, the extrapolation check, the expected volume as a hypothesis,
 * and contention that cannot be tested.
 */
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "models/lof.h"
#include "models/modeler.h"
#include "models/points.h"
#include "validator/validate.h"
#include "validator/segment.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct vflag *find_flag(const struct validation *v, enum vflag_kind kind, int param)
{
	for (int i = 0; i < v->nflags; i++)
		if (v->flags[i].kind == kind && v->flags[i].param == param)
			return &v->flags[i];
	return NULL;
}

static const struct vcheck *find_check(const struct validation *v, const char *check, int param)
{
	for (int i = 0; i < v->nchecks; i++)
		if (!strcmp(v->checks[i].check, check) && v->checks[i].param == param)
			return &v->checks[i];
	return NULL;
}

/* An experiment along one parameter: reps values f(x) * (1 + noise * N(0,1)). */
static void line_experiment(struct experiment *e, const double *xs, int n, double (*f)(double),
			    double noise, int reps, struct gen_rng *rng)
{
	experiment_init(e);
	experiment_param(e, "x");
	int c = experiment_callpath(e, "main"), m = experiment_metric(e, "time");
	for (int i = 0; i < n; i++) {
		int p = experiment_point(e, &xs[i]);
		for (int r = 0; r < reps; r++)
			experiment_add(e, c, m, p, f(xs[i]) * (1 + noise * gen_normal(rng)));
	}
}

static void test_points(void)
{
	double a[5] = { 10, 10.1, 9.9, 30, 10.05 }, b[5] = { 10, 10.1, 9.9, 10.2, 10.05 };
	struct exp_values va = { a, 5, 0 }, vb = { b, 5, 0 };
	unsigned char out[5];
	is_int(point_outliers(&va, NAN, POINT_SIDE_BOTH, out), 1, "points: one outlier in 10,10.1,9.9,30,10.05");
	ok(out[3] && !out[0], "points: it is the 30");
	is_int(point_outliers(&vb, NAN, POINT_SIDE_BOTH, NULL), 0, "points: none in clean repetitions");
	struct point_estimate pe;
	point_estimate(&va, MODEL_MEAN, 1, NAN, POINT_SIDE_BOTH, &pe);
	is_rel(pe.value, 10.0125, 1e-12, "points: the mean leaves the outlier out");
	is_int(pe.n, 4, "points: 4 repetitions kept");
	point_estimate(&va, MODEL_MEAN, 0, NAN, POINT_SIDE_BOTH, &pe);
	is_rel(pe.value, 14.01, 1e-12, "points: without dropping, the plain mean");
	is_rel(model_aggregate_values(&va, MODEL_MEDIAN), 10.05, 1e-12, "points: median");
	is_rel(model_aggregate_values(&va, MODEL_MIN), 9.9, 1e-12, "points: min");
	ok(point_robust_cov(&va) < 0.02, "points: robust CoV ignores the outlier (%g)", point_robust_cov(&va));
	enum model_aggregate ag;
	ok(model_aggregate_parse("median", &ag) == 0 && ag == MODEL_MEDIAN, "points: parse median");
	ok(model_aggregate_parse("avg", &ag) < 0, "points: 'avg' is not an aggregate");
	/* a series spread of 2%: a 10% repetition is not an outlier there */
	double c[5] = { 10, 10.01, 9.99, 11, 10.0 };
	struct exp_values vc = { c, 5, 0 };
	is_int(point_outliers(&vc, NAN, POINT_SIDE_BOTH, NULL), 1, "points: 10%% off a tight point is an outlier alone");
	is_int(point_outliers(&vc, 0.02, POINT_SIDE_BOTH, NULL), 0, "points: but not in a series spread 2%%");
}

/* Robust selection beats Extra-P's rule with outliers and is never worse without. */
static void test_selection(void)
{
	struct model_options robust, extrap;
	model_options_robust(&robust);
	model_options_init(&extrap);
	for (int outliers = 0; outliers <= 1; outliers++) {
		struct gen_rng rng;
		gen_rng_seed(&rng, 14);
		int nr = 0, nx = 0;
		for (int f = 0; f < 200; f++) {
			struct gen_function fn;
			struct gen_data d;
			gen_function_random(&rng, f < 100 ? 1 : 2, &fn);
			gen_data_make(&rng, &fn, 5, 0.05, outliers ? 0.2 : 0, 3, &d);
			struct model_input in = gen_data_input(&d);
			struct pmnf_model mr, mx;
			struct perr err;
			modeler_fit(&in, &robust, NULL, &mr, &err);
			modeler_fit(&in, &extrap, NULL, &mx, &err);
			nr += gen_leading_term_equal(&fn, &mr);
			nx += gen_leading_term_equal(&fn, &mx);
			pmnf_release(&mr);
			pmnf_release(&mx);
		}
		ok(nr >= nx + (outliers ? 40 : 0), "selection, 5%% noise%s: robust finds %d leading terms of 200, "
		   "extrap %d", outliers ? ", outliers" : "", nr, nx);
	}
}

/* Exact data: robust selection keeps Extra-P's exact answers (2 + 3 x^2, a constant). */
static void test_selection_exact(void)
{
	double xs[5] = { 2, 4, 8, 16, 32 }, store[25];
	struct exp_values vals[5];
	for (int i = 0; i < 5; i++) {
		for (int r = 0; r < 5; r++)
			store[i * 5 + r] = 2 + 3 * xs[i] * xs[i];
		vals[i] = (struct exp_values){ &store[i * 5], 5, 0 };
	}
	char *names[1] = { "x" };
	struct model_input in = { 1, names, 5, xs, vals };
	struct model_options o;
	model_options_robust(&o);
	struct pmnf_model m;
	struct perr err;
	is_int(modeler_fit(&in, &o, NULL, &m, &err), 0, "exact: fits");
	ok(m.nterms == 1 && m.terms[0].factors[0].poly_exp == 2 && m.terms[0].factors[0].log_exp == 0,
	   "exact: x^2 found");
	is_rel(m.terms[0].coef, 3, 1e-9, "exact: coefficient 3");
	pmnf_release(&m);
	for (int i = 0; i < 25; i++)
		store[i] = 7 * (1 + 0.01 * ((i * 37) % 11 - 5) / 5.0);
	is_int(modeler_fit(&in, &o, NULL, &m, &err), 0, "flat: fits");
	is_int(m.nterms, 0, "flat noisy data: the constant is not rejected");
	pmnf_release(&m);
}

static double slope_change(double x)
{
	return x <= 16 ? 0.05 * x : 0.8 * pow(x / 16, 2.5);
}

static double straight(double x)
{
	return 0.05 * x;
}

/* Issue 14's line: 12 log-spaced points, 0.05 x up to 16, then 0.8 (x/16)^2.5, 1% noise. */
static void test_slope_change_line(void)
{
	double xs[12];
	for (int i = 0; i < 12; i++)
		xs[i] = 2 * pow(128, i / 11.0);   /* 2 .. 256; 16 lies between points 4 (11.7) and 5 (18.1) */
	int flagged = 0, located = 0, clean_flags = 0;
	for (int seed = 0; seed < 10; seed++) {
		for (int kind = 0; kind < 2; kind++) {
			struct gen_rng rng;
			gen_rng_seed(&rng, 1400 + seed);
			struct experiment e;
			line_experiment(&e, xs, 12, kind ? straight : slope_change, 0.01, 5, &rng);
			struct validate_input in = { .e = &e };
			struct validation v;
			struct perr err;
			if (validate_run(&v, &in, NULL, &err) < 0)
				diag("validate: %s", err.msg);
			const struct vflag *f = find_flag(&v, VFLAG_SEGMENTED, 0);
			if (kind == 0) {
				flagged += f && f->blocking;
				located += v.regions[0].segment_tested[0] &&
					   abs(v.regions[0].segment[0].change - 5) <= 1;
				if (seed == 0 && f)
					contains(f->detail, "add points at x=", "slope change: recommends points");
			} else {
				clean_flags += f != NULL;
			}
			validation_release(&v);
			experiment_release(&e);
		}
	}
	is_int(flagged, 10, "slope change: flagged segmented in all 10 seeds");
	is_int(located, 10, "slope change: located within one point of x=16 in all 10 seeds");
	is_int(clean_flags, 0, "straight line: never flagged");
}

static double late_change(double x)
{
	return x <= 128 ? 0.05 * x : 6.4 * pow(x / 128, 2.5);
}

/* The extrapolation check: a regime change at the top is unstable, a clean line is not. */
static void test_extrapolation(void)
{
	double xs[8] = { 2, 4, 8, 16, 32, 64, 128, 256 };
	struct gen_rng rng;
	gen_rng_seed(&rng, 77);
	for (int kind = 0; kind < 2; kind++) {
		struct experiment e;
		line_experiment(&e, xs, 8, kind ? straight : late_change, 0.01, 5, &rng);
		struct validate_input in = { .e = &e };
		struct validation v;
		struct perr err;
		validate_run(&v, &in, NULL, &err);
		const struct vcheck *c = find_check(&v, "extrapolation", 0);
		ok(c && c->status == (kind ? VCHECK_PASSED : VCHECK_FLAGGED), "extrapolation, %s: %s (%s)",
		   kind ? "straight" : "slope change", kind ? "passed" : "unstable", c ? c->reason : "none");
		int other = 0;
		for (int i = 0; i < v.nflags; i++)
			other += v.flags[i].blocking && v.flags[i].kind != VFLAG_SEGMENTED;
		is_int(other, 0, "extrapolation: never blocks by itself");
		validation_release(&v);
		experiment_release(&e);
	}
	/* four values: not testable */
	struct experiment e;
	line_experiment(&e, xs, 4, straight, 0.01, 3, &rng);
	struct validate_input in = { .e = &e };
	struct validation v;
	struct perr err;
	validate_run(&v, &in, NULL, &err);
	const struct vcheck *c = find_check(&v, "extrapolation", 0);
	ok(c && c->status == VCHECK_NOT_TESTABLE, "extrapolation: 4 values are not testable");
	validation_release(&v);
	experiment_release(&e);
}

static int expect_x(void *ctx, const struct dep_function *f, const struct experiment *e, int point,
		    double *value, struct perr *err)
{
	(void)ctx;
	(void)f;
	(void)err;
	*value = experiment_coord(e, point, 0);
	return 0;
}

static double linear(double x)
{
	return 5 + 2 * x;
}

static double quadratic(double x)
{
	return 5 + 2 * x * x;
}

/* c0 + c1 * expect is the model when the data do not reject it. */
static void test_expected_volume(void)
{
	double xs[6] = { 10, 20, 40, 80, 160, 320 };
	for (int kind = 0; kind < 2; kind++) {
		struct gen_rng rng;
		gen_rng_seed(&rng, 5 + kind);
		struct experiment e;
		line_experiment(&e, xs, 6, kind ? quadratic : linear, 0.01, 5, &rng);
		struct deps d;
		memset(&d, 0, sizeof(d));
		char *pn[1] = { "x" };
		int tp[1] = { 0 };
		struct dep_term term = { 1, tp };
		struct dep_function fn = { .name = "main", .nterms = 1, .terms = &term, .expect = "x" };
		d.nparams = 1;
		d.params = pn;
		d.nfuncs = 1;
		d.funcs = &fn;
		const struct dep_function *funcs[1] = { &fn };
		struct validate_input in = { .e = &e, .deps = &d, .funcs = funcs, .expect = expect_x };
		struct validation v;
		struct perr err;
		is_int(validate_run(&v, &in, NULL, &err), 0, "expect: validates");
		const struct vexpect *x = &v.regions[0].expected;
		if (!kind) {
			ok(x->tested && x->consistent, "expect: 5 + 2x is consistent with expect x (p=%g)", x->p_value);
			is_rel(x->c1, 2, 0.02, "expect: the fitted coefficient is 2");
		} else {
			ok(x->tested && !x->consistent, "expect: 5 + 2x^2 rejects expect x");
			const struct vflag *f = find_flag(&v, VFLAG_VOLUME, 0);
			ok(f && strstr(f->detail, "black-box model"), "expect: the volume flag shows the black box");
		}
		validation_release(&v);
		experiment_release(&e);
	}
}

/* A ranks-per-node axis without a testable line: contention is not-testable. */
static void test_contention_untestable(void)
{
	struct experiment e;
	experiment_init(&e);
	experiment_param(&e, "n");
	experiment_param(&e, VALIDATE_RPN_PARAM);
	int c = experiment_callpath(&e, "main"), m = experiment_metric(&e, "time");
	for (int i = 0; i < 5; i++) {
		/* ranks per node changes together with n: no line along it */
		double x[2] = { 10.0 * (i + 1), 1 << i };
		int p = experiment_point(&e, x);
		for (int r = 0; r < 3; r++)
			experiment_add(&e, c, m, p, x[0] * (1 + 0.01 * r));
	}
	struct validate_input in = { .e = &e };
	struct validation v;
	struct perr err;
	validate_run(&v, &in, NULL, &err);
	const struct vcheck *k = find_check(&v, "contention", 1);
	ok(k && k->status == VCHECK_NOT_TESTABLE, "contention: not-testable without a line along ranks per node");
	if (k)
		contains(k->reason, "no line along ranks_per_node", "contention: says why");
	validation_release(&v);
	experiment_release(&e);
}

/*
 * lof_accepts answers as lof_p(...) >= alpha for every chi-square, the
 * last bits at the boundary included: the boundary is found by bisection
 * on lof_p itself, and each side of it, one ulp apart, is asked.
 */
static void test_lof_accepts(void)
{
	static const double alphas[] = { 0.05, 0.01, 0.001 };
	static const int dofs[] = { 1, 4, 20, 96 };
	int wrong = 0, asked = 0;
	for (int n = 2; n <= 12; n++)
		for (int k = 1; k <= 2; k++)
			for (size_t d = 0; d < sizeof(dofs) / sizeof(dofs[0]); d++)
				for (size_t a = 0; a < sizeof(alphas) / sizeof(alphas[0]); a++) {
					struct lof_noise nz = { 1e-4, dofs[d], 1 };
					double alpha = alphas[a], lo = 0, hi = 1;
					while (lof_p(hi, n, k, &nz) >= alpha && hi < 1e300)
						hi *= 2;
					for (int i = 0; i < 200 && nextafter(lo, hi) < hi; i++) {
						double mid = lo + (hi - lo) / 2;
						if (lof_p(mid, n, k, &nz) >= alpha)
							lo = mid;
						else
							hi = mid;
					}
					double probe[] = { lo, hi, nextafter(lo, 0), nextafter(hi, INFINITY),
							   lo * (1 - 1e-7), hi * (1 + 1e-7), lo * 0.5, hi * 2,
							   0, INFINITY, NAN };
					for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
						asked++;
						if (lof_accepts(probe[i], n, k, &nz, alpha) !=
						    (lof_p(probe[i], n, k, &nz) >= alpha))
							wrong++;
					}
				}
	ok(wrong == 0, "lof_accepts agrees with lof_p >= alpha at %d chi-squares about the boundary (%d differ)",
	   asked, wrong);
	struct lof_noise none = { 1e-4, 0, 1 };
	ok(lof_accepts(1e9, 5, 2, &none, 0.05) == 1, "lof_accepts: no repetitions, no rejection");
}

int main(void)
{
	test_lof_accepts();
	test_points();
	test_selection();
	test_selection_exact();
	test_slope_change_line();
	test_extrapolation();
	test_expected_volume();
	test_contention_untestable();
	return done_testing();
}
