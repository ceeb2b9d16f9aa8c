/*
 * A dependency function's expected volume (its `expect`) as one PMNF term,
 * when it is one: "n^3 * i" is n^(3) * i^(1), "n^2 * log2(n) * i" is
 * n^(2) * log2(n)^(1) * i^(1).  The robust selection tests c0 + c1 * that
 * term before any search (docs/modelling.md, "Expected volume").
 *
 * The term is found numerically, on the points to be modelled: for each
 * parameter, the building block (models/hypothesis.h) whose values are
 * proportional to the expression's as that parameter alone varies, and
 * then the product of those blocks must be proportional to the expression
 * at every point (to 1e-9).  An expression that is no such product on
 * these points (a sum, ceil(), a threshold) has no term.
 *
 * Invariants: a pure function of its input; inputs are only read.
 */
#ifndef PS_EXPECTED_H
#define PS_EXPECTED_H
#include "designs/deps.h"
#include "models/pmnf.h"

/*
 * The term proportional to f->expect (parameters named by d) over npoints
 * points of nparams coordinates (row-major, parameters named params):
 * its factors in factors[0..nparams), ascending parameter; returns their
 * number, or -1 when f has no expect, the expression names a parameter the
 * points lack, is not positive and finite at every point, is constant
 * there, or is not one term of building blocks.  log_ok: building blocks
 * with log2 may be used (every coordinate >= 1).
 */
int expected_term(const struct dep_function *f, const struct deps *d, int nparams, char *const *params,
		  const double *coords, int npoints, int log_ok, struct pmnf_factor *factors);

#endif
