/*
 * The local backend's own entry points, beside its registry entry
 * (backend_local_entry, local_entry.c).  It runs at most jobs runs at
 * once, and gives each its own cores of this machine
 * (placement/core_alloc.h): a run whose cores are not free waits (start
 * returns 1), and ranks of a run with a policy are bound inside its cores.
 * A run without a policy reserves one core per rank but is not bound.  A
 * run's ranks are independent processes, or, with spec->mpi, one MPI world
 * (mpi_world.h).  Each slot has a supervisor process that serves its runs
 * one after another, outlives the orchestrator and notes each run's start
 * and end in its directory (supervisor.h), so that a later orchestrator
 * adopts or collects it instead of running it twice; an adopted run keeps
 * its slot and cores.
 */
#ifndef PS_BACKEND_LOCAL_H
#define PS_BACKEND_LOCAL_H
#include "orchestrator/backend.h"

int backend_local_new(struct backend **b, int jobs, struct perr *err);
/*
 * The quiet gate (0: none): before each run starts, wait up to seconds
 * until foreign tasks (placement/census.h) use less than
 * CENSUS_QUIET_SHARE of each of its cores over CENSUS_QUIET_WINDOW; the
 * run's census note says how long it waited and, when it gave up, who was
 * there.  b must be a local backend.
 */
void backend_local_wait_quiet(struct backend *b, double seconds);
/* Stop attempt rs of a local run (at least its id and attempt; its run_dir
   when known) from its backend id ("PID:STARTTIME" of its supervisor), in a
   process other than its orchestrator: every process of that run but the
   supervisor, which then notes how the run ended (supervisor_cancel).
   Returns 1 if something was asked to stop or killed. */
int backend_local_cancel_id(const struct run_spec *rs, const char *backend_id);

#endif
