/*
 * Refining for accuracy (`refine DIR --for accuracy [--target T]`, and
 * `run --until publishable --for accuracy`; docs/refine.md): the new runs
 * that most narrow the spread of the models' predictions at a target
 * point, within the budget, as proposals of kind "accuracy" in refine's
 * usual form (refine.h), after the findings' proposals.
 *
 * Each region's spread is two ensembles of its model (models/ensemble.h,
 * with the validator's model options and constraint): 32 bootstrap refits
 * to resampled data, and the competing hypotheses robust selection did not
 * reject, weighed equally (a wrong exponent the data do not yet rule out,
 * which a bootstrap centred on the chosen model does not see).  Their
 * covariances of the log predictions at the target and at every candidate
 * point are summed.  Measuring candidate c with R runs of relative noise
 * variance tau2 (the region's pooled repetitions, or its fit's residuals
 * without repetitions) is taken to condition that Gaussian: the variance
 * at the target falls by cov(t, c)^2 / (var(c) + tau2 / R).  Candidates
 * are chosen greedily by that fall, summed over the regions, per
 * core-hour; after each, every covariance is conditioned on it.  Proposing
 * stops when the budget is spent, after 20 points, or when the best next
 * point would narrow the summed variance by less than 5%.
 *
 * Candidates: every point of the grid of the measured values plus, for a
 * parameter the target lies beyond, one more value in the line's spacing
 * (refine's extension), never beyond the target; not the target itself.
 * Beyond 4096 such points: the measured points and each one moved to the
 * largest of those values along each parameter.  A new point's cost per
 * run is the measured points' costs modelled as any metric (models/
 * modeler.h), at least the dearest measured run it exceeds in no parameter
 * (runs cost no less as every parameter grows); a measured point's is its
 * own.  Without a budget, accuracy spends at most half of what the
 * campaign has spent.
 *
 * Pure: no I/O; deterministic (fixed bootstrap seeds).
 */
#ifndef PS_REFINE_ACCURACY_H
#define PS_REFINE_ACCURACY_H
#include "common/error.h"
#include "refine/refine.h"

struct validation;

/* What an accuracy refinement aimed at and reached. */
struct refine_accuracy {
	double *target;         /* one per space parameter */
	char *target_text;      /* "p=4096,size=60" */
	int nregions;           /* regions weighed */
	char *region;           /* the most uncertain at the target, or NULL */
	double before, after;   /* its spread (sd of the log prediction) before and
				   after the proposals; NaN when no region was weighed */
};

/*
 * Parse a target over v's experiment: "p=4096,size=60" (parameters not
 * named: their largest measured value) or "beyond" (every parameter one
 * step beyond its largest value, in its spacing).  0, or -1 with err.
 * a is initialised by the call; release it either way.
 */
int refine_accuracy_target(struct refine_accuracy *a, const struct refine_space *s, const char *spec,
			   struct perr *err);

/*
 * Append to r the accuracy proposals for a's target (r holds the
 * findings' proposals; its remaining budget is what they leave), regions
 * under min_share left out.  Fills a's figures.
 */
void refine_accuracy_propose(const struct refine_space *s, const struct validation *v, double min_share,
			     struct refine_accuracy *a, struct refine_result *r);
void refine_accuracy_release(struct refine_accuracy *a);

#endif
