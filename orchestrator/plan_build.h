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

#endif
