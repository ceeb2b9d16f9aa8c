/*
 * A power-law fit, y = c * prod_k x_k^a_k, by linear least squares on the
 * logarithms (log y = log c + sum_k a_k log x_k) with GSL's truncated SVD
 * (tolerance 1e-12: a column that is a combination of others gets no
 * weight).  The planner fits its cost model to an earlier campaign's runs
 * with it.  Pure: no output, no global state (GSL's error handler is
 * switched off).
 */
#ifndef PS_POWERLAW_H
#define PS_POWERLAW_H
#include "common/error.h"

/*
 * x holds n rows of m coordinates (row-major), y n values; every value
 * must be positive.  Needs n >= m + 2.  Returns 0 with *c and a[0..m) set,
 * or -1 with err set.
 */
int model_power_law(const double *x, const double *y, int n, int m, double *c, double *a,
		    struct perr *err);

#endif
