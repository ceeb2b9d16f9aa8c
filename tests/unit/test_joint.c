/*
 * The robust selection's joint choice on all points (models/modeler.c,
 * joint_robust), on generated data of known truth (fixed seed): the demo's
 * sparse design (a line of 8 sizes n = 72..212 at i = 1, a line of 5
 * iteration counts i = 1..5 at n = 72, and two extra points), 3
 * repetitions, 2% and 3% relative noise.  A line of 5 points cannot tell i
 * from i^(2/3) * log2(i); all 15 points can.  Without the joint choice (each
 * parameter's exponents fixed by its line alone) these draws give 14, 19,
 * 13, 14 and 11 of 20.  The bounds leave room for compilers' rounding
 * (gcc and clang differ by a draw or two).
 */
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "models/modeler.h"
#include <math.h>
#include <string.h>

#define NPTS 15
#define REPS 3

static const double pts[NPTS][2] = {
	{ 72, 1 }, { 84, 1 }, { 98, 1 }, { 114, 1 }, { 134, 1 }, { 156, 1 }, { 182, 1 }, { 212, 1 },
	{ 72, 2 }, { 72, 3 }, { 72, 4 }, { 72, 5 }, { 84, 2 }, { 114, 3 }, { 156, 2 },
};

/* The truth: 0.05 s at (72, 1) times (n/72)^a * (log2(n)/log2(72))^b * i. */
static double truth(double a, double b, double n, double i)
{
	return 0.05 * pow(n / 72, a) * pow(log2(n) / log2(72), b) * i;
}

/* 1 when m's term largest at (212, 5) has exponents n^a log2(n)^b i^1. */
static int leading_is(const struct pmnf_model *m, double a, double b)
{
	const struct pmnf_term *best = NULL;
	double bv = -1, at[2] = { 212, 5 };
	for (int t = 0; t < m->nterms; t++) {
		double v = fabs(pmnf_term_eval(&m->terms[t], at));
		if (v > bv) {
			bv = v;
			best = &m->terms[t];
		}
	}
	if (!best || best->nfactors != 2)
		return 0;
	int okn = 0, oki = 0;
	for (int f = 0; f < 2; f++) {
		const struct pmnf_factor *x = &best->factors[f];
		okn |= x->param == 0 && x->poly_exp == a && x->log_exp == b;
		oki |= x->param == 1 && x->poly_exp == 1 && x->log_exp == 0;
	}
	return okn && oki;
}

/* Draws (of 20) in which the robust selection finds n^a log2(n)^b * i. */
static int recovered(double a, double b, double noise, unsigned long long seed)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, seed);
	char *names[2] = { "n", "i" };
	double coords[NPTS * 2], store[NPTS * REPS];
	struct exp_values vals[NPTS];
	memcpy(coords, pts, sizeof(coords));
	struct model_options opt;
	model_options_robust(&opt);
	int hits = 0;
	for (int draw = 0; draw < 20; draw++) {
		for (int p = 0; p < NPTS; p++) {
			for (int r = 0; r < REPS; r++)
				store[p * REPS + r] = truth(a, b, pts[p][0], pts[p][1]) * (1 + noise * gen_normal(&rng));
			vals[p] = (struct exp_values){ &store[p * REPS], REPS, 0 };
		}
		struct model_input in = { 2, names, NPTS, coords, vals };
		struct pmnf_model m;
		struct perr err;
		if (modeler_fit(&in, &opt, NULL, &m, &err) == 0)
			hits += leading_is(&m, a, b);
		pmnf_release(&m);
	}
	return hits;
}

int main(void)
{
	int h = recovered(3, 0, 0.02, 14);
	ok(h >= 18, "n^3 * i at 2%% noise: %d of 20 draws", h);
	h = recovered(2, 0, 0.02, 15);
	ok(h >= 18, "n^2 * i at 2%% noise: %d of 20 draws", h);
	h = recovered(2, 1, 0.02, 16);
	ok(h >= 17, "n^2 * log2(n) * i at 2%% noise: %d of 20 draws", h);
	h = recovered(3, 0, 0.03, 17);
	ok(h >= 17, "n^3 * i at 3%% noise: %d of 20 draws", h);
	h = recovered(2, 0, 0.03, 18);
	ok(h >= 16, "n^2 * i at 3%% noise: %d of 20 draws", h);
	return done_testing();
}
