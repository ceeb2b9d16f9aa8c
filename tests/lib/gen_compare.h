/*
 * Pairs of generated experiments of known change for perfsweep compare's
 * tests and benchmark: one region "main->solve" over n, m in {4, 8, 16,
 * 32, 64} (25 points), base c0 + n * m (c0 = 1.6, a tenth of the term at
 * the smallest point), each repetition times (1 + noise * N(0,1)) from
 * GSL's MT19937 with a fixed seed, and NEW one of the changes below.
 */
#ifndef PS_GEN_COMPARE_H
#define PS_GEN_COMPARE_H
#include "validator/compare.h"

enum gen_change {
	GEN_SAME,               /* the same truth, new noise */
	GEN_SLOWER_10,          /* 1.1 x base */
	GEN_SLOWER_50,          /* 1.5 x base */
	GEN_SLOWER_2X,          /* 2 x base */
	GEN_N_LOG_N,            /* c0 + n * log2(n) * m: scaling in n */
	GEN_N_1_5,              /* c0 + n^1.5 * m: scaling in n */
	GEN_M_SQUARED,          /* c0 + n * m^2: scaling in m */
	GEN_NCHANGES
};

/* "unchanged", "10% slower", ...; the parameter whose scaling changes (0 n, 1 m), or -1. */
const char *gen_change_name(enum gen_change ch);
int gen_change_param(enum gen_change ch);

/* Make base and new (initialised here; release both) with reps repetitions at relative noise. */
void gen_compare_pair(unsigned long seed, enum gen_change ch, int reps, double noise, struct experiment *base,
		      struct experiment *new);

/* What npairs compared pairs (seeds seed, seed + 1, ...) gave. */
struct gen_compare_rates {
	int pairs;
	int scaling;            /* pairs with a scaling regression in some parameter */
	int scaling_right;      /* ... in the changed parameter */
	int scaling_other;      /* ... in a parameter that did not change */
	int region;             /* pairs whose region regressed (all points together) */
	int points, point_reg;  /* points compared, and those that regressed */
	int verdicts;           /* pairs with verdict 3 */
	int failed;             /* compare_experiments errors */
};

void gen_compare_run(unsigned long seed, enum gen_change ch, int reps, double noise, int npairs,
		     const struct compare_options *opt, struct gen_compare_rates *r);

/*
 * The pooled-evidence setup of issue 42: one region "main->solve" over
 * n in {8, 16, ..., 1024} (8 points), base 1 + 0.01 * n, reps repetitions,
 * each the truth times a log-normal factor of mean 1 and coefficient of
 * variation cov (sigma = sqrt(ln(1 + cov^2))), from GSL's MT19937 with a
 * fixed seed.  NEW is base times factor at every point (uniform), at the
 * four largest n only (upper half), or the same truth (same); or only its
 * work times factor, 1 + factor * 0.01 * n (the fixed part 1 unchanged:
 * a start-up both versions share), or its work growing faster,
 * 1 + 0.01 * n^factor (steeper: a scaling change).
 */
enum gen_pooled { GEN_POOLED_SAME, GEN_POOLED_UNIFORM, GEN_POOLED_UPPER_HALF, GEN_POOLED_WORK,
		  GEN_POOLED_STEEPER };
void gen_pooled_pair(unsigned long seed, enum gen_pooled ch, double factor, int reps, double cov,
		     struct experiment *base, struct experiment *new);

/* What npairs pooled pairs (seeds seed, seed + 1, ...) gave: verdicts by exit status. */
struct gen_pooled_rates {
	int pairs, failed;
	int exit0, exit3, exit4;        /* compare_verdict */
	int region;                     /* the region regressed (all points together) */
	int scaling;                    /* a scaling regression */
	int ok_region;                  /* the region resolved: no regression beyond the tolerance */
	double detectable;              /* the median over the pairs of the region's detectable change */
};
void gen_pooled_run(unsigned long seed, enum gen_pooled ch, double factor, int reps, double cov, int npairs,
		    const struct compare_options *opt, struct gen_pooled_rates *r);

#endif
