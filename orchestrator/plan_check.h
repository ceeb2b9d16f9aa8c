/*
 * Placements checked against the backend at plan time, so an impossible
 * placement is refused by `plan` and `run` before anything runs, with the
 * point and the placement named.  The local backend has one node (this
 * machine): every point must fit on it, ranks per node x cores per rank
 * within its usable cores.  SLURM placements are checked at submission.
 */
#ifndef PS_PLAN_CHECK_H
#define PS_PLAN_CHECK_H
#include "designs/plan.h"
#include "orchestrator/config.h"

/* usable_cores: the local machine's (0: load the host topology). */
int plan_check_local(const struct plan *pl, const struct campaign_config *c, int usable_cores,
		     struct perr *err);

#endif
