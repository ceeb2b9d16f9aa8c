/*
 * Generated truths: performance functions of known form, measured with
 * noise of known size and a fixed seed, for the tests, the benches and
 * `perfsweep plan CONFIG --evaluate gen:...` (docs/designs.md, "Generated
 * truths").  On the command line a truth is spelled
 *
 *   gen:EXPR[,noise=R][,seed=S][,seeds=N]
 *
 * EXPR is an expression over the parameters (designs/expr.h; PMNF terms as
 * Extra-P prints them parse: "2 + 0.5 * p^(1/2) * log2(size)^(1)"); noise R
 * is the relative standard deviation of one measurement (default 0.05),
 * seed S the first seed (1), seeds N how many seeds an evaluation draws
 * (1: seeds S .. S+N-1).
 *
 * A measurement of region "main", metric "time", at x is
 * EXPR(x) * (1 + R * z), z standard normal drawn from (seed, x, repetition)
 * alone: the same point measured in two designs, in any order, gives the
 * same values (common random numbers), so designs differ only by where
 * they measure.  Values are kept positive (a draw below -1/R is folded).
 *
 * truth_random draws a function from the modeller's own search space:
 * 1 parameter c0 + c1 * b(x); 2 parameters a product or a sum (one half
 * each); 3 parameters one of Extra-P's 23 combination structures; each
 * parameter one of the 42 building blocks x^(i) * log2(x)^(j), the same in
 * every term it appears in; term coefficients 0.1..1.1; the constant
 * 10..110% of the largest term at the middle point.
 *
 * Invariants: a truth owns its strings and expression; it is a pure
 * function of its spelling (or of truth_random's arguments).  Nothing here
 * prints.
 */
#ifndef PS_TRUTH_H
#define PS_TRUTH_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"
#include "models/pmnf.h"

#define TRUTH_PREFIX "gen:"
#define TRUTH_MAX_PARAMS 3

struct expr;

struct truth {
	int nparams;
	char **params;          /* names, in the order coordinates are given */
	char *text;             /* the expression */
	struct expr *f;
	double noise;           /* relative standard deviation of one measurement */
	unsigned long seed;
	int nseeds;             /* seeds an evaluation draws (>= 1) */
	int have_form;          /* truth_random: form holds the function's terms */
	struct pmnf_model form;
};

/* 1 when spec is spelled as a generated truth ("gen:..."). */
int truth_is_spec(const char *spec);

/*
 * Parse "gen:EXPR[,noise=R][,seed=S][,seeds=N]" over params[0..nparams).
 * Returns 0, or -1 with err ("gen:...: column 3: unknown parameter 'q'",
 * "noise must be in [0, 1)").  Release t either way.
 */
int truth_parse(struct truth *t, const char *spec, int nparams, char *const *params, struct perr *err);

/*
 * A random function of 1..3 parameters (see above) drawn with seed; mid is
 * the middle point that scales the constant.  Its measurement seed is seed
 * too.
 */
void truth_random(struct truth *t, int nparams, char *const *params, const double *mid,
		  unsigned long seed, double noise);

void truth_release(struct truth *t);

/* The function itself at x (no noise). */
double truth_value(const struct truth *t, const double *x);

/* Repetition rep (0-based) of a measurement at x under seed (see above). */
double truth_measure(const struct truth *t, unsigned long seed, const double *x, int rep);

/*
 * A generated campaign: every point of the grid values[k][0..nvalues[k])
 * measured reps times under seed, as region "main", metric "time", into e
 * (initialised by the call).
 */
void truth_experiment(const struct truth *t, unsigned long seed, const int *nvalues,
		      double *const *values, int reps, struct experiment *e);

/*
 * The dependency file of a truth_random function: one function "main"
 * whose terms are the function's product terms (parameters that multiply
 * share a term), as a dependency analysis of the program would find it.
 * Returns 0, or -1 with err for a parsed truth (its form is unknown).
 * Release d with deps_release.
 */
int truth_deps(const struct truth *t, struct deps *d, struct perr *err);

#endif
