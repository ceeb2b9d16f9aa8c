/* Helpers shared by plan.c and design.c; not part of the public API. */
#ifndef PS_PLAN_INTERNAL_H
#define PS_PLAN_INTERNAL_H
#include "designs/plan.h"

/* Copy spec's parameters (names, roles, values) into pl. */
void plan_copy_params(struct plan *pl, const struct design_spec *spec);

#endif
