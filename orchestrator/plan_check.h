/*
 * What every backend's plan check (backend_entry.plan_check) shares: a
 * point's rank count and the refusal that names the point and its
 * placement.  Each backend checks the placements against what it offers
 * in its own folder, so that an impossible placement is refused by `plan`
 * and `run` before anything runs: the local backend's one node
 * (orchestrator/local/local_entry.c), a SLURM partition's nodes
 * (orchestrator/slurm/slurm_entry.c).
 */
#ifndef PS_PLAN_CHECK_H
#define PS_PLAN_CHECK_H
#include "common/error.h"
#include "designs/plan.h"

/* The ranks of point pt: its "ranks" parameter, else nodes x ranks per node, else 1. */
int plan_point_ranks(const struct plan *pl, const struct plan_point *pt);
/* Refuse point i (0-based) of ranks ranks, rpn per node: err "point 3
   (np=2, n=10): placement 2 ranks, 1 per node, compact WHY".  Returns -1. */
int plan_refuse_point(const struct plan *pl, int i, int ranks, int rpn, const char *why,
		      struct perr *err);

#endif
