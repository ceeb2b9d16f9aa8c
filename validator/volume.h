/*
 * The volume-contradiction check: where the dependency file gives an
 * expected compute volume (an `expect` expression), the ratio measured /
 * expected should be constant over the design.  A ratio that drifts with a
 * parameter beyond noise points to a missing or wrong term.
 *
 * Over all repetition values, log(measured / expected) is regressed on
 * log(x) of every parameter that varies (GSL least squares); an F-test of
 * the slopes against zero gives the significance, and a parameter's drift
 * is (xmax/xmin)^slope - 1, the relative change of the ratio over its range.
 */
#ifndef PS_VOLUME_H
#define PS_VOLUME_H
#include "collectors/experiment.h"
#include "common/error.h"

struct volume_result {
	int nobs;               /* positive repetition values used */
	double ratio_min, ratio_max;    /* of the per-point mean ratios */
	int param;              /* parameter with the largest drift, -1 if none */
	double growth;          /* its drift over its range */
	double f, p_value;      /* F-test of all slopes against zero */
	int df1, df2;
};

/*
 * expected holds one expected value per experiment point (NaN or <= 0 to
 * skip a point).  consider[k] says whether a drift along parameter k is a
 * volume question (program parameters); other varying parameters (ranks
 * per node) stay in the regression as nuisance terms, and the F-test is
 * the partial test of the considered slopes.  consider NULL considers all.
 * Returns 1 when tested, 0 with too little data, -1 with err set when GSL
 * fails.
 */
int volume_test(const struct experiment *e, const struct exp_series *s, const double *expected,
		const int *consider, struct volume_result *r, struct perr *err);

#endif
