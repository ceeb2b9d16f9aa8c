/*
 * Evaluating designs: what a reduced design gives up in prediction
 * accuracy against the full one and against other strategies, for the same
 * core-hours (`perfsweep plan CONFIG --evaluate DATA`, docs/designs.md,
 * "Evaluating a design").  For each strategy and budget: the points the
 * strategy measures within the budget, measured from DATA; the models
 * fitted to them (the model pipeline's: robust selection, constrained by
 * the dependency file where a region matches a function); and their
 * relative prediction error at held-out points beyond the measured range.
 *
 * Strategies (all over the config's parameters and values; placements and
 * the contention experiment are left out):
 *   design    the config's own strategy, trimmed to the budget as plan trims
 *             it (repetitions down to min_repetitions, then optional points,
 *             the most expensive first)
 *   full      the full factorial; the budget buys its repetitions (>= 1)
 *   lines     the baseline and one line per modelled parameter
 *   cheapest  the lines, then every other point of the grid, cheapest first
 *   disagree  the lines, then the point where a bootstrap ensemble of the
 *             models (models/ensemble.h) disagrees most per core-hour, one
 *             after another, the models refitted as the points come in (the
 *             order is drawn once per seed at the configured repetitions;
 *             a budget takes the points of that order that fit)
 * The lines of lines, cheapest and disagree are at the configured
 * repetitions, reduced down to min_repetitions when the budget is short;
 * the points added after them get the same repetitions.  A design that
 * costs less than its budget spends the rest on more repetitions of all
 * its points (up to what DATA holds).
 *
 * Budgets: the config's design's own cost, then 10%, 20%, ..., 100% of the
 * full factorial's (eval_options.fractions).  Costs come from the config's
 * cost model (core-hours); --evaluate needs one.
 *
 * Held out: for measured DATA, its points beyond the config's range (some
 * modelled parameter above its largest value in the config, none below its
 * smallest, unmodelled parameters at their plan value); for a generated
 * truth, the points one step beyond: each modelled parameter gains one
 * value in its spacing (geometric when its two largest values are 1.5x
 * apart or more, else arithmetic), and every point of that larger grid
 * with at least one parameter at its new value is held out, the truth
 * without noise its reference.
 *
 * Error: per region and seed, the mean over the held-out points of
 * |model - reference| / reference; per strategy and budget, the median and
 * the worst of those over regions and seeds.  Regions: a truth's "main";
 * for measured DATA, every call path of the metric (with a dependency
 * file, those matched to one of its functions), less those under
 * min_share of the time (as refine leaves them out).
 *
 * Nothing here prints.  Deterministic: the same input gives the same result.
 */
#ifndef PS_DESIGN_EVAL_H
#define PS_DESIGN_EVAL_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "designs/deps.h"
#include "designs/plan.h"
#include "models/modeler.h"
#include "models/truth.h"

#define EVAL_HELD_DATA "DATA's points beyond the config's range"
#define EVAL_HELD_TRUTH "one step beyond"

enum eval_strategy { EVAL_DESIGN, EVAL_FULL, EVAL_LINES, EVAL_CHEAPEST, EVAL_DISAGREE, EVAL_NSTRATEGIES };

/* "design", "full", "lines", "cheapest", "disagree". */
const char *eval_strategy_name(enum eval_strategy s);

/* Where measurements come from: measured DATA, or a generated truth. */
struct eval_data {
	const struct experiment *e;     /* measured on a fuller grid, or NULL */
	int metric;                     /* e's metric to model */
	const struct dep_function *const *funcs;       /* per call path of e: its function, or NULL */
	const struct truth *truth;      /* when e is NULL: measured from it ("main") */
	const struct deps *deps;        /* constrains the models; NULL: black box only */
	double min_share;               /* measured DATA: regions under this share are left out */
};

struct eval_options {
	int nfractions;                 /* 0: 10%, 20%, ..., 100% */
	const double *fractions;        /* budgets as shares of the full factorial's cost */
	int nboot;                      /* disagree's bootstrap replicates; 0: 8 */
	int max_candidates;             /* largest full factorial evaluated; 0: 20000 */
	struct model_options model;     /* model_options_robust, then changes */
};

void eval_options_init(struct eval_options *o);

struct eval_cell {
	double budget;                  /* core-hours */
	int feasible;                   /* the strategy's required points fit the budget */
	double spent;                   /* core-hours, median over seeds */
	int points, repetitions;        /* measured (first seed) */
	double median_error, worst_error;       /* NaN: nothing evaluated */
	int nerrors;                    /* region x seed errors behind them */
	char **models;                  /* per region: the first seed's model, or NULL */
};

struct eval_result {
	const char *design;             /* the config's strategy: "sparse", ... */
	int nparams;
	char **params;                  /* the spec's parameter names (held-out coordinates) */
	int nregions;
	char **regions;
	int nheld;
	double *held;                   /* nheld x nparams */
	const char *held_rule;          /* EVAL_HELD_DATA or EVAL_HELD_TRUTH */
	int nseeds;
	unsigned long seed;             /* the first */
	double full_cost, design_cost;  /* core-hours at the configured repetitions */
	int nbudgets;
	double *share;                  /* budget / full_cost; [0] is the design's own */
	struct eval_cell *cells;        /* [strategy * nbudgets + budget] */
};

static inline struct eval_cell *eval_cell_at(const struct eval_result *r, int strategy, int budget)
{
	return &r->cells[strategy * r->nbudgets + budget];
}

/*
 * Evaluate the strategies for spec (a config's design) against d.
 * Returns 0, or -1 with err: no cost model, a grid over max_candidates,
 * DATA that lacks a point the design measures or has no point beyond the
 * range, no region to evaluate.  Release r either way.
 */
int design_evaluate(struct eval_result *r, const struct design_spec *spec, const struct eval_data *d,
		    const struct eval_options *o, struct perr *err);
void eval_result_release(struct eval_result *r);

#endif
