/*
 * Cost and volume expressions over named parameters: numbers (2e-3),
 * parameter names, + - * / ^ (right-associative), parentheses and the
 * functions log2(), sqrt() and ceil().  Parsed once into a tree; evaluation
 * never fails (domain errors give NaN or inf, which callers check).
 *
 * expr_grid_sum() sums an expression over a full factorial grid without
 * enumerating it: the expression is split into a sum of products (a single
 * product is distributed over a sum, nothing more, so no cancellation is
 * introduced), the
 * factors of each product are split into groups that share no parameter,
 * and only each group's own sub-grid is evaluated.  For separable models
 * such as "2e-3 * size^3 / p + 1" the work is linear in the number of
 * values, whatever the size of the factorial.
 */
#ifndef PS_EXPR_H
#define PS_EXPR_H
#include "common/error.h"

struct expr;

/*
 * Parse text; names resolve to indices into params[0..nparams).  On error,
 * returns NULL with err set to "column N: message" (the caller adds the file
 * position).
 */
struct expr *expr_parse(const char *text, int nparams, char *const *params, struct perr *err);
void expr_free(struct expr *e);
/* values[k] is the value of parameter k. */
double expr_eval(const struct expr *e, const double *values);
/*
 * Sum of e over the grid values[k][0..nvalues[k]) of all nparams
 * parameters (nparams as given to expr_parse).  Fails when a sub-grid that
 * must be enumerated exceeds max_evals points.  *magnitude (if not NULL)
 * receives the sum of the absolute values of the summed terms, a scale for
 * the rounding error.
 */
int expr_grid_sum(const struct expr *e, const int *nvalues, double *const *values, double max_evals,
		  double *sum, double *magnitude, struct perr *err);

#endif
