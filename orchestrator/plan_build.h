/*
 * From a campaign config to the plan it executes.  `perfsweep plan` prints
 * what this returns and `perfsweep run` stores exactly the same plan.
 */
#ifndef PS_PLAN_BUILD_H
#define PS_PLAN_BUILD_H
#include "designs/plan.h"
#include "campaign/config.h"

int plan_build(struct plan *pl, const struct campaign_config *c, struct perr *err);
/* The same plan with its points kept compactly (pl->compact): for printing
   a large plan one point at a time (plan_point_at). */
int plan_build_compact(struct plan *pl, const struct campaign_config *c, struct perr *err);

/*
 * The design the config plans from (its parameters, strategy, dependency
 * file, cost model, budget, placement), for planning variants of it:
 * `plan --evaluate` compares it with other strategies at other budgets.
 * NULL with err for a config plan_build refuses ("FILE:LINE: ...").
 */
struct plan_spec;
struct plan_spec *plan_spec_build(const struct campaign_config *c, struct perr *err);
/* The spec, valid until plan_spec_free (it points into c and the plan_spec). */
const struct design_spec *plan_spec_design(const struct plan_spec *ps);
void plan_spec_free(struct plan_spec *ps);

#endif
