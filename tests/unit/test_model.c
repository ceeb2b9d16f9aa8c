/* Tests of the PMNF modeller: exact recovery, Extra-P's inputs, constraints, determinism. */
#include "collectors/extrap_text.h"
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "models/hypothesis.h"
#include "models/modeler.h"

static const double xs[5] = { 2, 4, 8, 16, 32 };

static double term(const struct hyp_exponent *h, double x)
{
	return pow(x, hyp_poly(h)) * pow(log2(x), h->log);
}

/* A model input over a grid; values[p] holds reps copies of f(point). */
struct grid {
	int np, npoints;
	char *names[3];
	double coords[125 * 3];
	struct exp_values vals[125];
	double store[125 * 5];
};

static void grid_init(struct grid *g, int np, double (*f)(const double *, const void *), const void *ctx, int reps)
{
	g->np = np;
	g->names[0] = "a";
	g->names[1] = "b";
	g->names[2] = "c";
	g->npoints = 0;
	int n = np == 1 ? 5 : np == 2 ? 25 : 125;
	for (int i = 0; i < n; i++) {
		int idx[3] = { i % 5, (i / 5) % 5, i / 25 };
		double *c = &g->coords[i * np];
		for (int k = 0; k < np; k++)
			c[k] = xs[idx[k]];
		double v = f(c, ctx);
		for (int r = 0; r < reps; r++)
			g->store[i * 5 + r] = v;
		g->vals[i] = (struct exp_values){ &g->store[i * 5], reps, 0 };
		g->npoints++;
	}
}

static struct model_input grid_input(const struct grid *g)
{
	return (struct model_input){ g->np, g->names, g->npoints, g->coords, g->vals };
}

static double f_single(const double *c, const void *ctx)
{
	return 200 + 10 * term(ctx, c[0]);
}

struct pair { const struct hyp_exponent *a, *b; int sum; };

static double f_pair(const double *c, const void *ctx)
{
	const struct pair *p = ctx;
	return p->sum ? 200 + 10 * term(p->a, c[0]) + 10 * term(p->b, c[1])
		      : 200 + 10 * term(p->a, c[0]) * term(p->b, c[1]);
}

static int factor_is(const struct pmnf_factor *f, int param, const struct hyp_exponent *h)
{
	return f->param == param && fabs(f->poly_exp - hyp_poly(h)) < 1e-12 && f->log_exp == h->log;
}

static void test_exact_single(void)
{
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h), good = 0;
	is_int(nh, 42, "42 default exponent pairs");
	for (int i = 0; i < nh; i++) {
		struct grid g;
		struct pmnf_model m;
		struct perr err;
		grid_init(&g, 1, f_single, &h[i], 3);
		struct model_input in = grid_input(&g);
		int ret = modeler_fit(&in, NULL, NULL, &m, &err);
		int pass = ret == 0 && m.nterms == 1 && m.terms[0].nfactors == 1 &&
			   factor_is(&m.terms[0].factors[0], 0, &h[i]) &&
			   fabs(m.terms[0].coef - 10) < 1e-5 && fabs(m.constant - 200) < 2e-4;
		if (!pass) {
			char *s = pmnf_format(&m, 0);
			diag("pair %d/%d log %d: got %s", h[i].num, h[i].den, h[i].log, s);
			free(s);
		}
		good += pass;
		pmnf_release(&m);
	}
	is_int(good, 42, "f = 200 + 10*term recovered to 6 digits for every exponent pair");
}

/*
 * Largest share of 10*term(x) in the averaged line Extra-P models for one
 * parameter of the sum 200 + 10*t1(a) + 10*t2(b): the other term adds its
 * mean over the grid.  Below 0.0005 Extra-P's contribution rule drops it.
 */
static double line_share(const struct hyp_exponent *own, const struct hyp_exponent *other)
{
	double mean = 0, m = 0;
	for (int i = 0; i < 5; i++)
		mean += 10 * term(other, xs[i]) / 5;
	for (int i = 0; i < 5; i++) {
		double t = 10 * term(own, xs[i]);
		if (t / (200 + t + mean) > m)
			m = t / (200 + t + mean);
	}
	return m;
}

static void test_exact_pairs(int sum)
{
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h), good = 0, total = 0, weak = 0, weak_ok = 0;
	for (int i = 0; i < nh; i++)
		for (int j = 0; j < nh; j++) {
			struct pair p = { &h[i], &h[j], sum };
			struct grid g;
			struct pmnf_model m;
			struct perr err;
			grid_init(&g, 2, f_pair, &p, 1);
			struct model_input in = grid_input(&g);
			int ret = modeler_fit(&in, NULL, NULL, &m, &err), pass;
			int drop_a = sum && line_share(&h[i], &h[j]) < 0.0005;
			int drop_b = sum && line_share(&h[j], &h[i]) < 0.0005;
			if (drop_a || drop_b) {
				/*
				 * Below the contribution rule the true exponent of the weak
				 * parameter is rejected (Extra-P may pick another one whose
				 * fitted coefficient is larger); the strong term stays exact.
				 */
				int strong = drop_a ? 1 : 0, weak_true = 0, strong_ok = 0;
				const struct hyp_exponent *hs = drop_a ? &h[j] : &h[i], *hw = drop_a ? &h[i] : &h[j];
				for (int k = 0; k < m.nterms; k++) {
					const struct pmnf_term *t = &m.terms[k];
					if (t->nfactors == 1 && factor_is(&t->factors[0], strong, hs) && fabs(t->coef - 10) < 1e-5)
						strong_ok = 1;
					if (t->nfactors == 1 && factor_is(&t->factors[0], !strong, hw))
						weak_true = 1;
				}
				weak++;
				if (ret == 0 && strong_ok && !weak_true && !(drop_a && drop_b)) {
					weak_ok++;
				} else {
					char *s = pmnf_format(&m, 0);
					diag("weak sum of %d/%d,%d (share %g) and %d/%d,%d (share %g): got %s",
					     h[i].num, h[i].den, h[i].log, line_share(&h[i], &h[j]),
					     h[j].num, h[j].den, h[j].log, line_share(&h[j], &h[i]), s);
					free(s);
				}
				pmnf_release(&m);
				continue;
			}
			if (sum)
				pass = ret == 0 && m.nterms == 2 && m.terms[0].nfactors == 1 && m.terms[1].nfactors == 1 &&
				       factor_is(&m.terms[0].factors[0], 0, &h[i]) &&
				       factor_is(&m.terms[1].factors[0], 1, &h[j]) &&
				       fabs(m.terms[0].coef - 10) < 1e-5 && fabs(m.terms[1].coef - 10) < 1e-5 &&
				       fabs(m.constant - 200) < 2e-4;
			else
				pass = ret == 0 && m.nterms == 1 && m.terms[0].nfactors == 2 &&
				       factor_is(&m.terms[0].factors[0], 0, &h[i]) &&
				       factor_is(&m.terms[0].factors[1], 1, &h[j]) &&
				       fabs(m.terms[0].coef - 10) < 1e-5 && fabs(m.constant - 200) < 2e-4;
			if (!pass && total - good < 5) {
				char *s = pmnf_format(&m, 0);
				diag("%s of %d/%d,%d and %d/%d,%d: got %s", sum ? "sum" : "product",
				     h[i].num, h[i].den, h[i].log, h[j].num, h[j].den, h[j].log, s);
				free(s);
			}
			good += pass;
			total++;
			pmnf_release(&m);
		}
	is_int(good, total, "two-parameter %s recovered exactly on {2..32}^2 (%d pairs)",
	       sum ? "sums" : "products", total);
	if (sum) {
		diag("%d sums have a term below Extra-P's 0.0005 contribution share in its line", weak);
		ok(weak < 100, "few sums are below the contribution rule (%d)", weak);
		is_int(weak_ok, weak, "those keep the strong term exactly and reject the weak true term, as Extra-P's rule does");
	}
}

static void test_extrap_file(const char *file, const char *callpath, const char *metric, const char *want_shape,
			     double c0, double c1)
{
	struct experiment e;
	struct perr err;
	struct pmnf_model m;
	experiment_init(&e);
	int ret = extrap_text_read(&e, tap_src(file), &err);
	if (!ok(ret == 0, "read %s", file)) {
		diag("%s", err.msg);
		experiment_release(&e);
		return;
	}
	int cp = experiment_find_callpath(&e, callpath), me = experiment_find_metric(&e, metric);
	ret = modeler_fit_series(&e, cp, me, NULL, NULL, &m, &err);
	ok(ret == 0, "model %s %s", callpath, metric);
	/* the shape, with coefficients printed to 3 digits */
	char *s = pmnf_format(&m, 3);
	is_str(s, want_shape, "%s %s: Extra-P's terms", file, callpath);
	free(s);
	is_rel(m.constant, c0, 1e-5, "%s %s: constant", file, callpath);
	if (m.nterms > 0)
		is_rel(m.terms[0].coef, c1, 1e-5, "%s %s: coefficient", file, callpath);
	pmnf_release(&m);
	experiment_release(&e);
}

static double f_mul(const double *c, const void *ctx)
{
	(void)ctx;
	return 200 + 10 * c[0] * c[1];
}

static double f_three(const double *c, const void *ctx)
{
	(void)ctx;
	return 50 + 3 * c[0] * log2(c[1]) + 2 * c[2] * c[2];
}

static struct dep_function make_func(int nterms, struct dep_term *terms)
{
	struct dep_function f;
	memset(&f, 0, sizeof(f));
	f.name = "f";
	f.nterms = nterms;
	f.terms = terms;
	return f;
}

static void test_constrained(void)
{
	struct grid g;
	struct perr err;
	struct pmnf_model bb, cm;
	grid_init(&g, 2, f_mul, NULL, 2);
	struct model_input in = grid_input(&g);
	/* the deps file names its parameters in another order, with one the data lacks */
	char *dparams[] = { "size", "b", "a" };
	struct deps d = { .path = "deps", .nparams = 3, .params = dparams };
	int pa[] = { 2 }, pb[] = { 1 }, pab[] = { 1, 2 }, psize[] = { 0 };
	struct dep_term sep[] = { { 1, pa }, { 1, pb } }, joint[] = { { 2, pab } }, only_a[] = { { 1, pa }, { 1, psize } };

	modeler_fit(&in, NULL, NULL, &bb, &err);
	char *s = pmnf_format(&bb, 3);
	is_str(s, "200 + 10 * a^(1) * b^(1)", "black box finds the product");
	free(s);
	pmnf_release(&bb);

	struct dep_function f = make_func(2, sep);
	struct model_constraint c = { &d, &f };
	ok(modeler_fit(&in, NULL, &c, &cm, &err) == 0, "constrained fit with separate terms");
	ok(cm.nterms >= 1, "constrained model has terms");
	int mult = 0;
	for (int k = 0; k < cm.nterms; k++)
		mult |= cm.terms[k].nfactors > 1;
	ok(!mult, "parameters in separate dependency terms are only added");
	ok(cm.nterms == 2 && cm.terms[0].nfactors == 1 && cm.terms[1].nfactors == 1 &&
	   cm.terms[0].factors[0].param == 0 && cm.terms[1].factors[0].param == 1,
	   "separate terms: the model is a + b");
	ok(cm.smape > 1, "the additive model fits worse (smape %g)", cm.smape);
	pmnf_release(&cm);

	f = make_func(1, joint);
	ok(modeler_fit(&in, NULL, &c, &cm, &err) == 0, "constrained fit with a joint term");
	s = pmnf_format(&cm, 3);
	is_str(s, "200 + 10 * a^(1) * b^(1)", "joint term: product allowed");
	free(s);
	pmnf_release(&cm);

	f = make_func(2, only_a);
	modeler_fit(&in, NULL, &c, &cm, &err);
	int uses_b = 0;
	for (int k = 0; k < cm.nterms; k++)
		for (int i = 0; i < cm.terms[k].nfactors; i++)
			uses_b |= cm.terms[k].factors[i].param == 1;
	ok(cm.nterms == 1 && !uses_b, "dependency on a only: b is not used");
	pmnf_release(&cm);

	f = make_func(0, NULL);
	modeler_fit(&in, NULL, &c, &cm, &err);
	is_int(cm.nterms, 0, "no dependencies: constant model");
	is_rel(cm.constant, 200 + 10 * (62.0 / 5) * (62.0 / 5), 1e-12, "constant is the mean");
	pmnf_release(&cm);

	/* three parameters: deps {a,b} and {c} */
	grid_init(&g, 3, f_three, NULL, 1);
	in = grid_input(&g);
	char *p3[] = { "a", "b", "c" };
	struct deps d3 = { .path = "deps", .nparams = 3, .params = p3 };
	int q_ab[] = { 0, 1 }, q_c[] = { 2 };
	struct dep_term t3[] = { { 2, q_ab }, { 1, q_c } };
	f = make_func(2, t3);
	struct model_constraint c3 = { &d3, &f };
	ok(modeler_fit(&in, NULL, &c3, &cm, &err) == 0, "three-parameter constrained fit");
	s = pmnf_format(&cm, 3);
	is_str(s, "50 + 3 * a^(1) * log2(b)^(1) + 2 * c^(2)", "three parameters: a*b + c recovered");
	free(s);
	pmnf_release(&cm);
	modeler_fit(&in, NULL, NULL, &bb, &err);
	s = pmnf_format(&bb, 3);
	is_str(s, "50 + 3 * a^(1) * log2(b)^(1) + 2 * c^(2)", "three parameters: black box finds it too");
	free(s);
	pmnf_release(&bb);
}

static void test_determinism_and_format(void)
{
	struct experiment e;
	struct perr err;
	struct pmnf_model m1, m2;
	experiment_init(&e);
	extrap_text_read(&e, tap_src("tests/data/extrap-text/two_parameter_1.txt"), &err);
	modeler_fit_series(&e, 0, 0, NULL, NULL, &m1, &err);
	modeler_fit_series(&e, 0, 0, NULL, NULL, &m2, &err);
	char *a = pmnf_format(&m1, 0), *b = pmnf_format(&m2, 0);
	is_str(a, b, "two fits print identically");
	ok(m1.constant == m2.constant && m1.smape == m2.smape && m1.rss == m2.rss, "coefficients and figures bit-identical");
	contains(a, "1.37420831", "two_parameter_1: Extra-P's constant");
	contains(a, " * log2(y)^(1) + 0.04384165", "two_parameter_1: Extra-P's terms");
	contains(a, "x^(3/2) * log2(x)^(2) * log2(y)^(1)", "fractional exponents print as fractions");
	free(a);
	free(b);
	pmnf_release(&m1);
	pmnf_release(&m2);
	experiment_release(&e);

	struct pmnf_model m;
	char *names[] = { "n" };
	pmnf_init(&m, 1, names);
	m.constant = -1.5;
	struct pmnf_factor fac = { 0, 0.25, 1 };
	pmnf_add_term(&m, -2, 1, &fac);
	char *s = pmnf_format(&m, 0);
	is_str(s, "-1.5 + -2 * n^(1/4) * log2(n)^(1)", "format of a negative coefficient and quarter exponent");
	free(s);
	double x = 16;
	is_rel(pmnf_eval(&m, &x), -1.5 - 2 * 2 * 4, 1e-15, "pmnf_eval");
	struct pmnf_model copy;
	pmnf_copy(&copy, &m);
	ok(pmnf_same_shape(&copy, &m), "copy has the same shape");
	pmnf_release(&copy);
	pmnf_release(&m);
}

static void test_aggregate_and_errors(void)
{
	double v[] = { 1, 2, 100, 3, 2 };
	struct exp_values ev = { v, 5, 0 };
	is_rel(model_aggregate_values(&ev, MODEL_MEAN), 21.6, 1e-15, "mean of repetitions");
	is_rel(model_aggregate_values(&ev, MODEL_MEDIAN), 2, 1e-15, "median of repetitions");

	/* points without values are skipped */
	char *names[] = { "x" };
	double coords[] = { 2, 4, 8, 16, 32, 64 };
	double data[] = { 4, 16, 64, 256, 1024 };
	struct exp_values vals[6];
	for (int i = 0; i < 5; i++)
		vals[i] = (struct exp_values){ &data[i], 1, 0 };
	vals[5] = (struct exp_values){ NULL, 0, 0 };
	struct model_input in = { 1, names, 6, coords, vals };
	struct pmnf_model m;
	struct perr err;
	ok(modeler_fit(&in, NULL, NULL, &m, &err) == 0, "fit with an empty point");
	is_int(m.npoints, 5, "empty point skipped");
	ok(m.nterms == 1 && m.terms[0].factors[0].poly_exp == 2 && fabs(m.constant) < 1e-9 &&
	   fabs(m.terms[0].coef - 1) < 1e-12, "x^2 with a vanishing constant (%g)", m.constant);
	pmnf_release(&m);
	char *s;

	for (int i = 0; i < 6; i++)
		vals[i] = (struct exp_values){ NULL, 0, 0 };
	ok(modeler_fit(&in, NULL, NULL, &m, &err) == -1, "no values is an error");
	is_str(err.msg, "no measured points", "error message");
	pmnf_release(&m);

	double bad = NAN;
	vals[0] = (struct exp_values){ &bad, 1, 0 };
	ok(modeler_fit(&in, NULL, NULL, &m, &err) == -1, "NaN value is an error");
	is_str(err.msg, "non-finite value at point 1", "NaN error message");
	pmnf_release(&m);

	/* median option: an outlier in one repetition does not move the model */
	double reps[5][3];
	for (int i = 0; i < 5; i++) {
		reps[i][0] = reps[i][1] = 10 + 5 * coords[i];
		reps[i][2] = i == 2 ? 1e6 : reps[i][0];
		vals[i] = (struct exp_values){ reps[i], 3, 0 };
	}
	in.npoints = 5;
	struct model_options opt;
	model_options_init(&opt);
	opt.aggregate = MODEL_MEDIAN;
	modeler_fit(&in, &opt, NULL, &m, &err);
	s = pmnf_format(&m, 3);
	is_str(s, "10 + 5 * x^(1)", "median ignores the outlier");
	free(s);
	pmnf_release(&m);

	/* constant data */
	for (int i = 0; i < 5; i++)
		vals[i] = (struct exp_values){ &data[0], 1, 0 };
	modeler_fit(&in, NULL, NULL, &m, &err);
	is_int(m.nterms, 0, "constant data: constant model");
	is_rel(m.constant, 4, 1e-15, "constant value");
	is_rel(m.ar2, 1, 1e-15, "constant model: adjusted R^2 is 1");
	pmnf_release(&m);
}

/* A shared context (with cache eviction) gives the same bits as fitting alone. */
static void test_context(void)
{
	struct modeler *ctx = modeler_new();
	char *names[] = { "x" };
	int same = 0, total = 0;
	for (int round = 0; round < 2; round++)
		for (int set = 0; set < 12; set++) {
			double coords[6], data[6];
			struct exp_values vals[6];
			for (int i = 0; i < 6; i++) {
				coords[i] = (set + 1) * (i + 1);
				data[i] = 3 + 0.5 * pow(coords[i], 1.5) * (1 + 0.01 * ((i * 7 + set) % 5 - 2));
				vals[i] = (struct exp_values){ &data[i], 1, 0 };
			}
			struct model_input in = { 1, names, 6, coords, vals };
			struct pmnf_model a, b;
			struct perr err;
			modeler_fit(&in, NULL, NULL, &a, &err);
			modeler_fit_ctx(ctx, &in, NULL, NULL, &b, &err);
			char *sa = pmnf_format(&a, 0), *sb = pmnf_format(&b, 0);
			same += !strcmp(sa, sb) && a.smape == b.smape && a.rss == b.rss;
			total++;
			free(sa);
			free(sb);
			pmnf_release(&a);
			pmnf_release(&b);
		}
	modeler_free(ctx);
	is_int(same, total, "fits with a shared context (12 coordinate sets, cache evictions) are bit-identical");

	/* quality figures of a given model against data */
	double coords[] = { 1, 2, 3, 4 }, data[] = { 3, 5, 7, 10 };
	struct exp_values vals[4];
	for (int i = 0; i < 4; i++)
		vals[i] = (struct exp_values){ &data[i], 1, 0 };
	struct model_input in = { 1, names, 4, coords, vals };
	struct pmnf_model m;
	struct perr err;
	pmnf_init(&m, 1, names);
	m.constant = 1;
	struct pmnf_factor f = { 0, 1, 0 };
	pmnf_add_term(&m, 2, 1, &f);
	ok(modeler_quality(&m, &in, NULL, &err) == 0, "modeler_quality");
	is_rel(m.rss, 1, 1e-15, "rss of 1 + 2x against (3,5,7,10)");
	is_rel(m.re, 0.1 / 4, 1e-15, "relative error");
	is_rel(m.smape, 2.0 / 19 / 4 * 100, 1e-13, "smape");
	is_rel(m.ar2, 1 - (1 / 26.75) * 3 / 2, 1e-13, "adjusted R^2");
	pmnf_release(&m);
}

/*
 * Extra-P's own multi-parameter regression cases (tests/test_multi_param_modeler.py):
 * consecutive default exponent pairs in products and sums of 3 and 4 parameters.
 */
struct spec {
	int np, nterms;
	double c0, coef[3];
	unsigned mask[3];       /* parameters of each term */
	const struct hyp_exponent *e[4];
};

static double spec_eval(const struct spec *sp, const double *x)
{
	double v = sp->c0;
	for (int k = 0; k < sp->nterms; k++) {
		double t = sp->coef[k];
		for (int l = 0; l < sp->np; l++)
			if (sp->mask[k] & (1u << l))
				t *= term(sp->e[l], x[l]);
		v += t;
	}
	return v;
}

/*
 * 1 when m has the terms of sp (in any order) with coefficients to rel
 * 1e-5.  The constant is compared to 1e-5 relative or to 1e-14 of the
 * largest value: at 4e14 the data themselves only resolve 0.06.
 */
static int spec_match(const struct spec *sp, const struct pmnf_model *m, double ymax)
{
	if (m->nterms != sp->nterms || fabs(m->constant - sp->c0) > fmax(1e-5 * fabs(sp->c0), 1e-14 * ymax))
		return 0;
	int used[3] = { 0, 0, 0 };
	for (int k = 0; k < sp->nterms; k++) {
		int found = 0;
		for (int j = 0; j < m->nterms && !found; j++) {
			const struct pmnf_term *t = &m->terms[j];
			if (used[j] || fabs(t->coef - sp->coef[k]) > 1e-5 * fabs(sp->coef[k]))
				continue;
			int f = 0, same = 1;
			for (int l = 0; l < sp->np && same; l++)
				if (sp->mask[k] & (1u << l)) {
					same = f < t->nfactors && factor_is(&t->factors[f], l, sp->e[l]);
					f++;
				}
			if (same && f == t->nfactors)
				found = used[j] = 1;
		}
		if (!found)
			return 0;
	}
	return 1;
}

static int run_spec(const struct spec *sp, const double *vals, int nv)
{
	int n = 1;
	for (int l = 0; l < sp->np; l++)
		n *= nv;
	double *coords = malloc(sizeof(double) * (size_t)n * (size_t)sp->np), *y = malloc(sizeof(double) * (size_t)n);
	struct exp_values *v = malloc(sizeof(*v) * (size_t)n);
	char *names[] = { "x", "y", "z", "w" };
	double ymax = 0;
	for (int i = 0; i < n; i++) {
		int r = i;
		for (int l = 0; l < sp->np; l++, r /= nv)
			coords[i * sp->np + l] = vals[r % nv];
		y[i] = spec_eval(sp, &coords[i * sp->np]);
		ymax = fmax(ymax, fabs(y[i]));
		v[i] = (struct exp_values){ &y[i], 1, 0 };
	}
	struct model_input in = { sp->np, names, n, coords, v };
	struct pmnf_model m;
	struct perr err;
	int good = modeler_fit(&in, NULL, NULL, &m, &err) == 0 && spec_match(sp, &m, ymax);
	if (!good) {
		char *s = pmnf_format(&m, 0);
		diag("got %s", s);
		free(s);
	}
	pmnf_release(&m);
	free(coords);
	free(y);
	free(v);
	return good;
}

static void test_extrap_multi_suites(void)
{
	static const double g5[] = { 2, 4, 8, 16, 32 }, g4[] = { 2, 4, 8, 10, 12 };
	const struct hyp_exponent *h;
	int nh = hypothesis_defaults(&h);
	int good[4] = { 0 }, total[4] = { 0 };
	for (int i = 0; i + 2 < nh; i++) {
		struct spec prod = { 3, 1, 200, { 10 }, { 7 }, { &h[i], &h[i + 1], &h[i + 2] } };
		struct spec plus = { 3, 3, 200, { 10, 20, 30 }, { 1, 2, 4 }, { &h[i], &h[i + 1], &h[i + 2] } };
		struct spec mulp = { 3, 2, 200, { 100, 2 }, { 1, 6 }, { &h[i], &h[i + 1], &h[i + 2] } };
		good[0] += run_spec(&prod, g5, 5), total[0]++;
		good[1] += run_spec(&plus, g5, 5), total[1]++;
		good[2] += run_spec(&mulp, g5, 5), total[2]++;
	}
	for (int i = 0; i + 3 < nh; i++) {
		struct spec p4 = { 4, 1, 20000, { 10 }, { 15 }, { &h[i], &h[i + 1], &h[i + 2], &h[i + 3] } };
		good[3] += run_spec(&p4, g4, 5), total[3]++;
	}
	is_int(good[0], total[0], "Extra-P's 3-parameter products recovered (%d)", total[0]);
	is_int(good[1], total[1], "Extra-P's 3-parameter sums x + y + z recovered (%d)", total[1]);
	is_int(good[2], total[2], "Extra-P's 3-parameter x + y*z recovered (%d)", total[2]);
	is_int(good[3], total[3], "Extra-P's 4-parameter products on {2,4,8,10,12}^4 recovered (%d)", total[3]);
}

/* A line longer than the factorisation cache holds (computed on the spot). */
static void test_long_line(void)
{
	enum { N = 200 };
	static double coords[N], data[N];
	static struct exp_values vals[N];
	char *names[] = { "p" };
	for (int i = 0; i < N; i++) {
		coords[i] = 1 + i;
		data[i] = 5 + 2 * pow(coords[i], 1.5) * log2(coords[i]);
		vals[i] = (struct exp_values){ &data[i], 1, 0 };
	}
	struct model_input in = { 1, names, N, coords, vals };
	struct pmnf_model m;
	struct perr err;
	ok(modeler_fit(&in, NULL, NULL, &m, &err) == 0, "fit a line of %d points", N);
	ok(m.nterms == 1 && m.terms[0].factors[0].poly_exp == 1.5 && m.terms[0].factors[0].log_exp == 1 &&
	   fabs(m.terms[0].coef - 2) < 1e-9 && fabs(m.constant - 5) < 1e-6, "200 points: 5 + 2 * p^(3/2) * log2(p) recovered");
	pmnf_release(&m);
}

/* Leave-one-out SMAPE of c0 + c1 * t refitted without each point in turn, long double, two passes. */
static double loo_smape(const double *t, const double *y, int n)
{
	long double sm = 0;
	for (int o = 0; o < n; o++) {
		long double mt = 0, my = 0, stt = 0, sty = 0;
		for (int i = 0; i < n; i++)
			if (i != o)
				mt += t[i], my += y[i];
		mt /= n - 1;
		my /= n - 1;
		for (int i = 0; i < n; i++)
			if (i != o)
				stt += (t[i] - mt) * (t[i] - mt), sty += (t[i] - mt) * (y[i] - my);
		long double c1 = sty / stt, f = my - c1 * mt + c1 * t[o];
		sm += fabsl(f - y[o]) / (fabsl(f) + fabsl(y[o])) * 2;
	}
	return (double)(sm / n * 100);
}

/*
 * Lines longer than the cached ones: the leave-one-out SMAPE that selects
 * the model is each point's refit's error, also where one point holds
 * nearly all of the term's spread (x = 2^i, the largest 2^47).
 */
static void test_long_line_loo(void)
{
	enum { N = 48 };
	static double coords[N], data[N], t[N];
	static struct exp_values vals[N];
	char *names[] = { "p" };
	for (int kind = 0; kind < 2; kind++) {
		struct gen_rng r;
		gen_rng_seed(&r, 77 + kind);
		for (int i = 0; i < N; i++) {
			coords[i] = kind ? ldexp(1, i) : 1 + i;
			double truth = kind ? 1000 + 1e-25 * pow(coords[i], 2) : 100 + 3 * coords[i];
			data[i] = truth * (1 + 0.01 * gen_normal(&r));
			vals[i] = (struct exp_values){ &data[i], 1, 0 };
		}
		struct model_input in = { 1, names, N, coords, vals };
		struct model_options opt;
		model_options_init(&opt);
		opt.selection = MODEL_SELECT_EXTRAP;
		struct pmnf_model m;
		struct perr err;
		int fitted = modeler_fit(&in, &opt, NULL, &m, &err) == 0 && m.nterms == 1;
		ok(fitted, "%s line of %d points: one term", kind ? "2^i" : "1..48", N);
		if (fitted) {
			const struct pmnf_factor *f = &m.terms[0].factors[0];
			for (int i = 0; i < N; i++)
				t[i] = pow(coords[i], f->poly_exp) * pow(log2(coords[i]), f->log_exp);
			double want = loo_smape(t, data, N);
			ok(fabs(m.cv_smape - want) <= 1e-9 * want,
			   "%s line: leave-one-out SMAPE %.12g is the refits' %.12g", kind ? "2^i" : "1..48",
			   m.cv_smape, want);
		}
		pmnf_release(&m);
	}
}

/* A sparse "cross" design: one line per parameter through (2, 2), as Extra-P models it. */
static void test_cross_design(void)
{
	double coords[18], data[9];
	struct exp_values vals[9];
	char *names[] = { "x", "y" };
	int n = 0;
	for (int i = 0; i < 5; i++) {
		coords[2 * n] = xs[i], coords[2 * n + 1] = 2, n++;
		if (i > 0)
			coords[2 * n] = 2, coords[2 * n + 1] = xs[i], n++;
	}
	for (int i = 0; i < n; i++) {
		double x = coords[2 * i], y = coords[2 * i + 1];
		data[i] = 100 + 10 * x + 20 * y * y;
		vals[i] = (struct exp_values){ &data[i], 1, 0 };
	}
	struct model_input in = { 2, names, n, coords, vals };
	struct pmnf_model m;
	struct perr err;
	ok(modeler_fit(&in, NULL, NULL, &m, &err) == 0, "fit a cross design of %d points", n);
	/* a cross cannot tell x + y from combinations with x*y: check the lines' exponents and the fit */
	int right = m.nterms > 0;
	for (int k = 0; k < m.nterms; k++)
		for (int f = 0; f < m.terms[k].nfactors; f++) {
			const struct pmnf_factor *fa = &m.terms[k].factors[f];
			right &= fa->log_exp == 0 && fa->poly_exp == (fa->param == 0 ? 1 : 2);
		}
	char *s = pmnf_format(&m, 0);
	ok(right && m.smape < 1e-9, "cross design: x^1 and y^2 terms reproduce the data (%s)", s);
	free(s);
	pmnf_release(&m);
}

int main(void)
{
	test_exact_single();
	test_exact_pairs(0);
	test_exact_pairs(1);
	test_extrap_file("tests/data/extrap-text/one_parameter_1.txt", "compute", "time",
			 "-0.89 + 0.202 * x^(2)", -0.88979340980, 0.201682438264);
	test_extrap_file("tests/data/extrap-text/two_parameter_5.txt", "main", "time",
			 "2 + 0.884 * log2(p)^(1) * s^(1)", 2, 0.884);
	test_extrap_file("tests/data/extrap-text/one_parameter_6.txt", "met1", "time", "4.07", 4.068, 0);
	test_extrap_file("tests/data/extrap-text/one_parameter_6.txt", "met2", "time",
			 "0.000497 + 1e-06 * p^(2)", 0.000497368421034, 9.99997985800278e-07);
	test_extrap_file("tests/data/extrap-text/one_parameter_6.txt", "met3", "time",
			 "2.18 + 1.01e-06 * p^(2)", 2.18225263157895, 1.01216697021145e-06);
	test_extrap_file("tests/data/extrap-text/one_parameter_6.txt", "met4", "time",
			 "1.84 + 1 * p^(2)", 1.84210526144363, 0.999999999382621);
	test_constrained();
	test_determinism_and_format();
	test_aggregate_and_errors();
	test_context();
	test_extrap_multi_suites();
	test_long_line();
	test_long_line_loo();
	test_cross_design();
	return done_testing();
}
