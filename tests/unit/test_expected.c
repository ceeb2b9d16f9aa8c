/*
 * The expected volume as the first hypothesis (generated data of known
 * truth, fixed seeds): an `expect` that is one PMNF term is recognised on
 * the points, c0 + c1 * expect is the model when the data do not reject
 * it, and it is rejected when the truth is another function.
 */
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "tests/unit/validate_gen.h"
#include "models/expected.h"
#include "models/modeler.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The demo's grid: n = 72..212 (8 values) by i = 1..5. */
#define NN 8
#define NI 5
static const double ns[NN] = { 72, 84, 98, 114, 134, 156, 182, 212 };
static double coords[NN * NI * 2];
static char *names[2] = { "n", "i" };

static void grid(void)
{
	for (int a = 0; a < NN; a++)
		for (int b = 0; b < NI; b++) {
			coords[(a * NI + b) * 2] = ns[a];
			coords[(a * NI + b) * 2 + 1] = b + 1;
		}
}

/* expected_term on the whole grid (or on the first npoints); the term as text, or "none". */
static char *term_of(struct deps *d, const char *expect, int npoints)
{
	static const int both[2] = { 0, 1 };
	int fi = gen_deps_func(d, "f", 2, both, expect);
	struct pmnf_factor f[2];
	int nf = expected_term(&d->funcs[fi], d, 2, names, coords, npoints, 1, f);
	if (nf < 0)
		return xstrdup("none");
	struct pmnf_model m;
	pmnf_init(&m, 2, names);
	pmnf_add_term(&m, 1, nf, f);
	char *s = pmnf_format_term(&m, 0);
	pmnf_release(&m);
	return s;
}

static void test_terms(void)
{
	static const char *const cases[][2] = {
		{ "n^3 * i", "n^(3) * i^(1)" },
		{ "n^2 * log2(n) * i", "n^(2) * log2(n)^(1) * i^(1)" },
		{ "2.5 * n^1.5", "n^(3/2)" },
		{ "i * sqrt(n) / 7", "n^(1/2) * i^(1)" },
		{ "n + i", "none" },
		{ "n * i * (1 + ceil((n - 127.5) / 1000))", "none" },
		{ "4", "none" },
		{ "n^3 - 200", "none" },
		{ "n^(7/5)", "none" },          /* not a building block */
	};
	static const char *const params[2] = { "n", "i" };
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		struct deps d;
		gen_deps_init(&d, 2, params);
		char *s = term_of(&d, cases[k][0], NN * NI);
		is_str(s, cases[k][1], "expect '%s' on the grid: %s", cases[k][0], cases[k][1]);
		free(s);
		gen_deps_release(&d);
	}
	/* below n = 128 the regime kernel's two-pass term is one pass: n * i */
	struct deps d;
	gen_deps_init(&d, 2, params);
	char *s = term_of(&d, "n * i * (1 + ceil((n - 127.5) / 1000))", 4 * NI);
	is_str(s, "n^(1) * i^(1)", "the regime's expect on n < 128 alone is n * i");
	free(s);
	gen_deps_release(&d);
	/* a parameter the points lack */
	static const char *const other[3] = { "n", "i", "p" };
	gen_deps_init(&d, 3, other);
	s = term_of(&d, "n * i * p", NN * NI);
	is_str(s, "none", "expect naming a parameter the data lack: none");
	free(s);
	gen_deps_release(&d);
}

struct truth {
	double c, pn, ln, pi;
};

/*
 * 100 grids of truth c * n^pn * log2(n)^ln * i^pi, 3 repetitions with 1%
 * noise, fitted with expect.  scatter > 0: each point of a grid is off the
 * law by a factor 1 + scatter * N(0,1) that its repetitions share (a
 * kernel's speed at particular sizes, the host's level when the point was
 * measured), which no repetition shows.
 */
static void fit_many(const struct truth *t, double scatter, const char *expect, int *expected, int *lead_ok)
{
	static const char *const params[2] = { "n", "i" };
	static const int both[2] = { 0, 1 };
	struct deps d;
	gen_deps_init(&d, 2, params);
	int fi = gen_deps_func(&d, "f", 2, both, expect);
	struct model_constraint con = { &d, &d.funcs[fi] };
	struct gen_rng rng;
	gen_rng_seed(&rng, 1426);
	double store[NN * NI][3];
	struct exp_values vals[NN * NI];
	*expected = *lead_ok = 0;
	for (int rep = 0; rep < 100; rep++) {
		for (int p = 0; p < NN * NI; p++) {
			double n = coords[2 * p], i = coords[2 * p + 1];
			double f = t->c * pow(n, t->pn) * pow(log2(n), t->ln) * pow(i, t->pi);
			if (scatter > 0)
				f *= 1 + scatter * gen_normal(&rng);
			for (int r = 0; r < 3; r++)
				store[p][r] = f * (1 + 0.01 * gen_normal(&rng));
			vals[p] = (struct exp_values){ store[p], 3, 0 };
		}
		struct model_input in = { 2, names, NN * NI, coords, vals };
		struct model_options o;
		struct pmnf_model m;
		struct perr err;
		model_options_robust(&o);
		o.outlier_side = POINT_SIDE_HIGH;
		if (modeler_fit(&in, &o, &con, &m, &err) == 0) {
			*expected += m.expected;
			double big[2] = { 212, 5 };
			int lead = -1;
			for (int k = 0; k < m.nterms; k++)
				if (lead < 0 || fabs(m.terms[k].coef * pmnf_term_eval(&m.terms[k], big)) >
						       fabs(m.terms[lead].coef * pmnf_term_eval(&m.terms[lead], big)))
					lead = k;
			int good = lead >= 0;
			for (int k = 0; lead >= 0 && k < m.terms[lead].nfactors; k++) {
				const struct pmnf_factor *fa = &m.terms[lead].factors[k];
				good &= fa->param == 0 ? fa->poly_exp == t->pn && fa->log_exp == t->ln
						       : fa->poly_exp == t->pi && fa->log_exp == 0;
			}
			*lead_ok += good && m.terms[lead].nfactors == (t->pi != 0) + (t->pn != 0 || t->ln != 0);
		}
		pmnf_release(&m);
	}
	gen_deps_release(&d);
}

static void test_models(void)
{
	int x, lead;
	struct truth dense = { 1.5e-7, 3, 0, 1 };
	fit_many(&dense, 0, "n^3 * i", &x, &lead);
	ok(x >= 95, "truth n^3 * i, expect n^3 * i: the expected volume is the model in %d of 100", x);
	ok(lead >= 95, "truth n^3 * i, expect n^3 * i: leading term right in %d of 100", lead);
	struct truth sort = { 1.9e-6, 2, 1, 1 };
	fit_many(&sort, 0, "n^2 * log2(n) * i", &x, &lead);
	ok(x >= 95, "truth n^2 log2(n) i, expected: the model in %d of 100", x);
	struct truth squared = { 1.5e-7, 3, 0, 2 };
	fit_many(&squared, 0, "n^3 * i", &x, &lead);
	is_int(x, 0, "truth n^3 * i^2, expect n^3 * i: rejected every time");
	ok(lead >= 90, "truth n^3 * i^2: the search finds it (%d of 100)", lead);
	struct truth logged = { 1.5e-7, 3, 1, 1 };
	fit_many(&logged, 0, "n^3 * i", &x, &lead);
	ok(x <= 5, "truth n^3 log2(n) i, expect n^3 * i (25%% apart over n): rejected (accepted %d of 100)", x);

	/* points 3% off the law, each its own way, at 1% noise: the lack-of-fit test
	   rejects every law; the expected one stays, since its residuals follow no
	   coordinate, while a wrong one leaves a trend */
	fit_many(&dense, 0.03, "n^3 * i", &x, &lead);
	ok(x >= 90, "3%% scatter, truth n^3 * i, expected: the model in %d of 100", x);
	ok(lead >= 90, "3%% scatter, truth n^3 * i: leading term right in %d of 100", lead);
	fit_many(&sort, 0.03, "n^2 * log2(n) * i", &x, &lead);
	ok(x >= 90, "3%% scatter, truth n^2 log2(n) i, expected: the model in %d of 100", x);
	fit_many(&logged, 0.03, "n^3 * i", &x, &lead);
	ok(x <= 10, "3%% scatter, truth n^3 log2(n) i, expect n^3 * i: rejected (accepted %d of 100)", x);
	fit_many(&squared, 0.03, "n^3 * i", &x, &lead);
	ok(x <= 1, "3%% scatter, truth n^3 * i^2, expect n^3 * i: rejected (accepted %d of 100)", x);
	struct truth sorted2 = { 1.9e-6, 2, 0, 1 };
	fit_many(&sorted2, 0.03, "n^2 * log2(n) * i", &x, &lead);
	ok(x <= 10, "3%% scatter, truth n^2 i, expect n^2 log2(n) i: rejected (accepted %d of 100)", x);
}

int main(void)
{
	grid();
	test_terms();
	test_models();
	return done_testing();
}
