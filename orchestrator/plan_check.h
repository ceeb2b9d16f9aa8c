/*
 * Plan-time checks, so that an impossible campaign is refused by `plan`
 * and `run` before anything runs: the files it needs (plan_check_files),
 * and what every backend's placement check (backend_entry.plan_check)
 * shares: a point's ranks and cores per rank, and the refusal that names
 * the point and its placement.  Each backend checks the placements against
 * what it offers in its own folder: the local backend's one node
 * (orchestrator/local/local_entry.c), a SLURM partition's nodes
 * (orchestrator/slurm/slurm_entry.c).
 */
#ifndef PS_PLAN_CHECK_H
#define PS_PLAN_CHECK_H
#include "campaign/config.h"
#include "common/error.h"
#include "designs/plan.h"

/*
 * The files a campaign needs before anything runs: app.workdir an existing
 * directory, every template's source a readable regular file, every set-up
 * step's program there (executable, or found in PATH).  0, or -1 with err
 * ("FILE:LINE: ..." at the key).
 */
int plan_check_files(const struct campaign_config *c, struct perr *err);

/* The ranks of point pt: its "ranks" parameter, else nodes x ranks per node, else 1. */
int plan_point_ranks(const struct plan *pl, const struct plan_point *pt);
/* The cores each rank of pt holds: its own cores per rank (a threads
   parameter's value), else the campaign's cpr; 0 for "all". */
int plan_point_cores(const struct campaign_config *c, const struct plan_point *pt, int cpr);
/* Refuse point i (0-based) of ranks ranks, rpn per node: err "point 3
   (np=2, n=10): placement 2 ranks, 1 per node, compact WHY".  Returns -1. */
int plan_refuse_point(const struct plan *pl, int i, int ranks, int rpn, const char *why,
		      struct perr *err);

#endif
