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

#endif
