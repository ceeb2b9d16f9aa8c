/*
 * Where the lines sit (docs/designs.md, "Line anchors"): the baseline is
 * the point every parameter's line passes through, so each parameter's
 * baseline value is where the other parameters' lines are measured.  With
 * a cost model, and no baseline given for a parameter, its value is
 * chosen by cost and noise: the anchors that give the lines the most
 * information about the parameters' laws per core-hour, among those whose
 * lines fit the budget at min_repetitions.
 *
 * A line's information is the spread of its log run times in units of
 * their noise, sum_i (ln t_i - mean)^2 / s2(t_i), with a run's relative
 * noise variance s2(t) = 1 + (floor / t)^2 (a constant relative noise, and
 * an absolute part, start-up and timer resolution, equal to it at the
 * measurability floor min_run_seconds); its cost is sum_i t_i x the charged
 * cores.  Lines anchored where the cost model hardly varies along them, or
 * where their runs are short, carry little; dear anchors cost more.  The
 * choice maximises the lines' geometric mean information over their summed
 * cost (every line must tell its law: a D-optimal criterion per core-hour),
 * one parameter at a time until no change helps (at most 4 passes),
 * starting from the smallest values; ties keep the smaller value.  The
 * anchors move only when that gains at least 25% (the noise model is a
 * rough one, and the smallest values are the cheapest and the ones earlier
 * campaigns measured).
 *
 * Pure: no I/O.  Internal to designs/ (design.c calls it).
 */
#ifndef PS_ANCHOR_H
#define PS_ANCHOR_H
#include "designs/plan.h"

struct expr;

struct anchor_input {
	const struct design_spec *s;
	const struct expr *cost;        /* seconds per run */
	const char *modelled;           /* per parameter */
	const char *fixed;              /* per parameter: the baseline was given, keep it */
	double floor;                   /* min_run_seconds */
	int min_repetitions;            /* the budget's floor */
	double (*resources)(void *ctx, const double *v);        /* charged cores of a run at v */
	void *ctx;
};

/*
 * Choose the anchors: base[k] (value indices, the smallest values on
 * entry) moves for the modelled parameters not fixed.  Returns why, for
 * `plan --explain` (malloc'ed: "anchors n=140 (not 100): ..."), or NULL
 * when no anchor moved.
 */
char *anchor_choose(const struct anchor_input *in, int *base);

#endif
