/*
 * Printing a refinement (refine/refine_campaign.h), shared by
 * `perfsweep refine` and `run --until publishable`: a table like `plan
 * --explain` (each run's reason and cost) and the JSON contract
 *   {proposals: [{params, placement, repetitions, core_hours, reason, finding}],
 *    budget: {remaining, used_by_proposals}, dropped: [...],
 *    verdict, pending, runs}
 * (remaining null without a budget; dropped entries as proposals; runs: the
 * runs written, 0 for a dry run); with --for accuracy also
 *   accuracy: {target: {PARAM: VALUE}, regions, region, spread_before, spread_after}
 * (the widest region's bootstrap spread of its prediction at the target,
 * refine/refine_accuracy.h; null spreads when no region was weighed).
 */
#ifndef PS_CLI_REFINE_REPORT_H
#define PS_CLI_REFINE_REPORT_H
#include "refine/refine_campaign.h"
#include <jansson.h>
#include <stdio.h>

void refine_print_text(FILE *f, const struct refine_campaign *rc, const char *dir, long long written,
		       int dry_run);
json_t *refine_json(const struct refine_campaign *rc, long long written);

#endif
