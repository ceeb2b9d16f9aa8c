/*
 * Adaptive repetitions' precision measure (orchestrator/adaptive.h): the
 * distribution-free 95% confidence interval of the median, checked against
 * the order statistics the binomial table gives (n = 5: min..max, n = 9:
 * x(2)..x(8), n = 20: x(6)..x(15)), and its robustness to one outlier.
 */
#include "tests/lib/tap.h"
#include "orchestrator/adaptive.h"
#include <math.h>

static double ci_of(const double *x, int n)
{
	struct exp_values v = { (double *)x, n, 0 };
	return adaptive_median_ci(&v);
}

int main(void)
{
	double five[5] = { 5, 1, 4, 2, 3 };
	is_rel(ci_of(five, 5), (5 - 1) / 2.0 / 3, 1e-12, "n=5: min..max over the median 3");
	double nine[9] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	is_rel(ci_of(nine, 9), (8 - 2) / 2.0 / 5, 1e-12, "n=9: x(2)..x(8)");
	double twenty[20];
	for (int i = 0; i < 20; i++)
		twenty[i] = i + 1;
	is_rel(ci_of(twenty, 20), (15 - 6) / 2.0 / 10.5, 1e-12, "n=20: x(6)..x(15) around the median 10.5");
	double two[2] = { 1.0, 1.2 };
	is_rel(ci_of(two, 2), 0.1 / 1.1, 1e-12, "n=2: half the range over the mean of two");
	ok(isnan(ci_of(two, 1)), "n=1: unknown");
	double zero[3] = { -1, 0, 1 };
	ok(isnan(ci_of(zero, 3)), "a zero median: unknown");
	/* one outlier among clean values: it counts up to 8 repetitions, not from 9 */
	double x[9] = { 1.00, 1.01, 0.99, 3.0, 1.00, 1.02, 0.98, 1.01, 0.99 };
	ok(ci_of(x, 8) > 0.5, "one 3x outlier among 8: the interval spans it (%g)", ci_of(x, 8));
	ok(ci_of(x, 9) < 0.02, "among 9: it drops out (%g)", ci_of(x, 9));
	return done_testing();
}
