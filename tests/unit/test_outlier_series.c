/*
 * Outlying repetitions at most points (generated, fixed seed): the series'
 * typical spread (point_series_cov) must not be taken from them.  With the
 * plain CoV's median, 3 of 5 points with one repetition 3x too large made
 * the typical spread 0.64, no repetition counted as outlying, and validate
 * blocked a clean 1%-noise line as "unreliable" (2.6% of the accuracy
 * bench's clean functions with outliers at 1% noise).
 */
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "models/points.h"
#include "validator/validate.h"
#include <math.h>

int main(void)
{
	struct gen_rng rng;
	gen_rng_seed(&rng, 22);
	static const double xs[5] = { 4, 8, 16, 32, 64 };
	double store[5][5];
	struct exp_values vals[5];
	struct experiment e;
	experiment_init(&e);
	experiment_param(&e, "x");
	int c = experiment_callpath(&e, "main"), m = experiment_metric(&e, "time");
	for (int p = 0; p < 5; p++) {
		int q = experiment_point(&e, &xs[p]);
		for (int r = 0; r < 5; r++) {
			store[p][r] = (2 + 0.5 * xs[p]) * (1 + 0.01 * gen_normal(&rng)) * (p % 2 == 0 && r == p % 5 ? 3 : 1);
			experiment_add(&e, c, m, q, store[p][r]);
		}
		vals[p] = (struct exp_values){ store[p], 5, 0 };
	}
	double scov = point_series_cov(vals, 5);
	ok(scov < 0.03, "the typical spread is the 1%% noise, not the outliers' (%.3g)", scov);
	int nout = 0;
	for (int p = 0; p < 5; p++)
		nout += point_outliers(&vals[p], scov, POINT_SIDE_BOTH, NULL);
	is_int(nout, 3, "the three 3x repetitions are outlying");
	struct validate_options vo;
	validate_options_init(&vo);
	model_options_robust(&vo.model);
	struct validate_input in = { .e = &e };
	struct validation v;
	struct perr err;
	ok(validate_run(&v, &in, &vo, &err) == 0, "validate runs");
	is_int(v.nblocking, 0, "nothing blocks");
	ok(v.regions[0].modelled, "the region is modelled");
	validation_release(&v);
	experiment_release(&e);
	return done_testing();
}
