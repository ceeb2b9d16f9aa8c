/*
 * Two independent samples compared by ranks, with no normality assumed:
 * the Mann-Whitney U test and the Hodges-Lehmann shift estimate with its
 * distribution-free confidence interval (the order statistics of the
 * pairwise differences that the U distribution selects, so the interval
 * excludes 0 exactly when the test rejects, up to ties).
 *
 * Exact null distribution when there are no ties and C(na+nb, na) fits a
 * double exactly (<= 2^53); with ties, the exact permutation distribution
 * of the tied ranks when C(na+nb, na) <= 200000 (every split enumerated);
 * otherwise the normal approximation with tie and continuity corrections.  With na = nb = 5 the smallest two-sided p
 * the exact test can give is 2/C(10,5) = 0.0079: an alpha of 0.01 needs
 * at least 5 repetitions on each side, and p_min says what a pair of
 * sample sizes can reach.
 *
 * Pure: no I/O, no global state, inputs only read.
 */
#ifndef PS_RANKTEST_H
#define PS_RANKTEST_H
#include "common/error.h"

struct rank_test {
	double u;               /* pairs with b > a, plus half the ties */
	double p;               /* two-sided p value */
	double p_min;           /* the smallest two-sided p these sizes can give */
	int exact;              /* 1: exact (or permutation) distribution; 0: normal approximation */
	double shift;           /* Hodges-Lehmann: median of the differences b_j - a_i */
	double lo, hi;          /* its confidence interval at 1 - alpha; -inf/+inf if unreachable */
};

/*
 * Compare b against a (na, nb >= 1, finite values).  alpha in (0, 1) sets
 * the interval's level.  Returns 0, or -1 with err set.
 */
int rank_test(const double *a, int na, const double *b, int nb, double alpha,
	      struct rank_test *out, struct perr *err);

#endif
