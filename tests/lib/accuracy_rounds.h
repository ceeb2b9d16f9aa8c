/*
 * refine --for accuracy on a generated campaign, measured by its truth
 * (models/truth.h), for test_refine_accuracy and the design bench: a
 * campaign measured at the sparse design's points of a 2-parameter truth
 * (x, y in 4..64, run time = the truth, one rank), then rounds of
 * validate_run and refine_accuracy_propose whose proposals the truth
 * measures, until the extra core-hours reach a share of the first ones.
 * Reports the relative error of the validation's model at the target (one
 * step beyond: x = y = 128) before and after each round.
 */
#ifndef PS_ACCURACY_ROUNDS_H
#define PS_ACCURACY_ROUNDS_H
#include "models/truth.h"

#define ACC_ROUNDS_MAX 12

struct accuracy_rounds {
	int uniform;                    /* set before: spend the extra as more repetitions of every
					   point instead (the baseline refine is compared with) */
	double spent0;                  /* core-hours of the first measurements */
	int nrounds;
	double extra[ACC_ROUNDS_MAX + 1];       /* extra core-hours after each round ([0]: 0) */
	double error[ACC_ROUNDS_MAX + 1];       /* the model's relative error at the target */
	double spread[ACC_ROUNDS_MAX + 1];      /* refine's spread there before the round */
	int proposals;                  /* in all */
	int at_target;                  /* proposals at the target itself (never) */
};

/*
 * Run rounds on truth t (2 parameters) with reps repetitions per point,
 * the extra core-hours capped at share x the first ones.  0, or -1 when a
 * validation failed.
 */
int accuracy_rounds_run(const struct truth *t, int reps, double share, struct accuracy_rounds *out);

/* The first round's extra core-hours share at which the error was at most half the first, or NaN. */
double accuracy_rounds_halved(const struct accuracy_rounds *a);

#endif
