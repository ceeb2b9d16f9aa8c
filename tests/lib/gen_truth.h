/*
 * Generated data of known truth for the modelling tests and benchmarks:
 * random PMNF functions of one or two parameters (from the modeller's own
 * search space), measured at 5 values per parameter (4..64) with a fixed
 * seed, relative normal noise and optional outlying repetitions.
 */
#ifndef PS_GEN_TRUTH_H
#define PS_GEN_TRUTH_H
#include "models/hypothesis.h"
#include "models/modeler.h"

struct gen_rng {
	unsigned long long s;
};

void gen_rng_seed(struct gen_rng *r, unsigned long long seed);
double gen_uniform(struct gen_rng *r);        /* [0, 1) */
double gen_normal(struct gen_rng *r);         /* standard normal */

/* c0 + c1 * t1(x1) [+ c2 * t2(x2) | * t2(x2)], t the building blocks. */
struct gen_function {
	int np;                 /* 1 or 2 */
	int sum;                /* 2 parameters: 1 additive, 0 one product term */
	double c0, c1, c2;
	struct hyp_exponent e[2];
};

/* A random function; the constant is 10..110% of the (first) term at the middle point. */
void gen_function_random(struct gen_rng *r, int np, struct gen_function *f);
double gen_function_eval(const struct gen_function *f, const double *x);

#define GEN_MAX_POINTS 25
#define GEN_MAX_REPS 8

struct gen_data {
	int np, npoints;
	char *names[2];
	double coords[GEN_MAX_POINTS * 2];
	struct exp_values vals[GEN_MAX_POINTS];
	double store[GEN_MAX_POINTS * GEN_MAX_REPS];
};

/*
 * Measure f on the 5 (x 5) grid: reps values per point, each times
 * (1 + noise * N(0,1)); at a share outlier_share of the points (chosen at
 * random) one repetition is multiplied by outlier_factor.
 */
void gen_data_make(struct gen_rng *r, const struct gen_function *f, int reps, double noise,
		   double outlier_share, double outlier_factor, struct gen_data *d);
struct model_input gen_data_input(const struct gen_data *d);

/* 1 when model m's largest term at the largest point has f's leading term's exponents. */
int gen_leading_term_equal(const struct gen_function *f, const struct pmnf_model *m);

#endif
