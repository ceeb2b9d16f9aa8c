/*
 * What each rank of a finished run really had, into the store: from the
 * rank records perfsweep-bind wrote (placement/bind.h) the node and cpuset
 * per rank (the bindings table) and what each rank used (the resources
 * table), and from the local backend's end note (orchestrator/local/supervisor.h, supervisor_read_end) what
 * the whole run used (rank -1).  The contention check, the disturbed
 * check, `export`, `status` and `top` read them from there.
 */
#ifndef PS_RUN_BINDINGS_H
#define PS_RUN_BINDINGS_H
#include "campaign/store.h"

/*
 * Store run id's bindings and resources from run_dir's rank records and end
 * note (none: nothing stored).  attempt is the run's attempt (its
 * submissions so far); an end note that names another attempt is stale and
 * not read (0: read any).  An end note that does not parse is skipped: the
 * rank records still count.
 */
int run_bindings_record(struct store *st, long long id, const char *run_dir, int attempt,
			struct perr *err);

#endif
