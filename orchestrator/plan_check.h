/*
 * Placements checked against the backend at plan time, so an impossible
 * placement is refused by `plan` and `run` before anything runs, with the
 * point and the placement named.  The local backend has one node (this
 * machine): every point must fit on it, ranks per node x cores per rank
 * within its usable cores.  On SLURM, when the controller can be asked,
 * every point's nodes must exist in the partition (and within its per-job
 * node limit) with enough CPUs for ranks per node x cores per rank;
 * otherwise the backend refuses the job at submission, naming the run's
 * point and placement.
 */
#ifndef PS_PLAN_CHECK_H
#define PS_PLAN_CHECK_H
#include "designs/plan.h"
#include "campaign/config.h"

/*
 * The files a campaign needs before anything runs: app.workdir an existing
 * directory, every template's source a readable regular file, every set-up
 * step's program there (executable, or found in PATH).  0, or -1 with err
 * ("FILE:LINE: ..." at the key).
 */
int plan_check_files(const struct campaign_config *c, struct perr *err);

/* usable_cores: the local machine's (0: load the host topology). */
int plan_check_local(const struct plan *pl, const struct campaign_config *c, int usable_cores,
		     struct perr *err);

/*
 * What a run of several ranks is on the local backend, for plan to say:
 * independent copies of the program, or (backend.mpi) one MPI world.  A
 * string to free, or NULL when no point has more than one rank.
 */
char *plan_check_local_note(const struct plan *pl, const struct campaign_config *c);

struct slurm_partition;
/* parts: the partitions of backend.partition ("A,B": a job may run in
   either), as their controller described them (backend_slurm_partition).
   A point is refused only when it fits in none. */
int plan_check_partition(const struct plan *pl, const struct campaign_config *c,
			 const struct slurm_partition *parts, int nparts, struct perr *err);

#endif
