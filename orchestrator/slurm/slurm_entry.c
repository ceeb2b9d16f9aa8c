/*
 * The SLURM backend in the registry (orchestrator/backend.h): its settings
 * (backend.extra, checked without libslurm), the campaign directory its
 * jobs write into, its plan check (when the controller answers, every
 * point's nodes must exist in the partition, within its per-job node
 * limit, with enough CPUs for ranks per node x cores per rank; otherwise
 * the controller refuses the job at submission, naming the run's point
 * and placement), and how it is opened and how cancel stops its jobs.
 */
#include "orchestrator/slurm/backend_slurm.h"
#include "orchestrator/slurm/slurm_extra.h"
#include "orchestrator/plan_check.h"
#include "campaign/config_get.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int slurm_check_config(const struct campaign_config *c, struct perr *err)
{
	struct perr xerr;
	if (c->backend.nextra && slurm_extra_check(c->backend.nextra, c->backend.extra, &xerr))
		return config_error_at(c, "backend.extra", err, "%s", xerr.msg);
	if (c->backend.wait_quiet > 0)
		return config_error_at(c, "backend.wait_quiet", err, "backend.wait_quiet is the local backend's "
				       "quiet gate; on SLURM ask for an exclusive node instead (extra = [ "
				       "\"--exclusive\" ];)");
	return 0;
}

/* Why a job of nodes nodes, need CPUs each, cannot run in partition part (in why); 0 when it fits. */
static int misfit(const struct slurm_partition *part, int nodes, long need, char *why, size_t size)
{
	int fit = 0, most = 0;
	for (int k = 0; k < part->nnodes; k++) {
		fit += part->cpus[k] >= need;
		most = part->cpus[k] > most ? part->cpus[k] : most;
	}
	if (part->max_nodes > 0 && nodes > part->max_nodes)
		snprintf(why, size, "needs %d nodes, but partition '%s' allows a job at most %d", nodes,
			 part->name, part->max_nodes);
	else if (nodes > part->nnodes)
		snprintf(why, size, "needs %d nodes, but partition '%s' has %d", nodes, part->name,
			 part->nnodes);
	else if (fit < nodes)
		snprintf(why, size, "needs %ld CPUs on %s%d node%s, but partition '%s' has %d such node%s "
			 "(the largest has %d CPUs)", need, nodes > 1 ? "each of " : "", nodes,
			 nodes > 1 ? "s" : "", part->name, fit, fit == 1 ? "" : "s", most);
	else
		return 0;
	return 1;
}

/* parts: the partitions of backend.partition ("A,B": a job may run in
   either), as their controller described them.  A point is refused only
   when it fits in none. */
static int check_partitions(const struct plan *pl, const struct campaign_config *c,
			    const struct slurm_partition *parts, int nparts, struct perr *err)
{
	int cpr = c->placement_spec.cores_per_rank, rc = 0;
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints && rc == 0; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
		int ranks = plan_point_ranks(pl, pt);
		int rpn = pt->ranks_per_node > 0 ? pt->ranks_per_node : 0;
		int nodes = pt->nodes > 0 ? pt->nodes : rpn > 0 ? (ranks + rpn - 1) / rpn : 1;
		int cores = plan_point_cores(c, pt, cpr);
		long need = rpn > 0 ? (cores == 0 ? rpn : (long)rpn * cores) : cores > 0 ? cores : 1;
		/* sbatch -p A,B runs a job in whichever partition can take it */
		char why[300], other[300];
		int refused = nparts > 0 && misfit(&parts[0], nodes, need, why, sizeof(why));
		for (int k = 1; k < nparts && refused; k++)
			refused = misfit(&parts[k], nodes, need, other, sizeof(other));
		if (refused)
			rc = plan_refuse_point(pl, i, ranks, rpn > 0 ? rpn : (ranks + nodes - 1) / nodes, why, err);
	}
	free(vals);
	return rc;
}

#define MAX_PARTITIONS 16

/* The placements against the partitions, when their controller answers. */
static int slurm_plan_check(const struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	/* backend.partition may list partitions, as sbatch -p does: "emu,real"
	   (none, or an empty one: the default partition) */
	char *list = xstrdup(c->backend.partition ? c->backend.partition : ""), *save = NULL;
	char *name = strtok_r(list, ",", &save);
	struct slurm_partition parts[MAX_PARTITIONS];
	int nparts = 0, rc;
	do {
		rc = backend_slurm_partition(name, &parts[nparts], err);
		nparts += rc > 0;
	} while (rc > 0 && name && nparts < MAX_PARTITIONS && (name = strtok_r(NULL, ",", &save)));
	/* rc -1: no such partition; 0: cannot ask, checked at submission */
	if (rc > 0)
		rc = check_partitions(pl, c, parts, nparts, err);
	for (int k = 0; k < nparts; k++)
		slurm_partition_release(&parts[k]);
	free(list);
	return rc;
}

static int slurm_open(struct backend **b, const struct campaign_config *c, int jobs, struct perr *err)
{
	(void)jobs;     /* max_inflight says how many jobs at once */
	if (backend_slurm_new(b, &c->backend, err))
		return perr_prefix(err, "%s", c->path);
	return 0;
}

/* Cancel knows the store only: a backend of no settings is enough to cancel a job. */
static int slurm_cancel_id(struct backend **b, const struct run_spec *rs, const char *backend_id,
			   struct perr *err)
{
	if (!*b) {
		struct backend_config none = { .type = "slurm" };
		if (backend_slurm_new(b, &none, err)) {
			*b = NULL;
			return perr_prefix(err, "cannot cancel slurm job of run %lld", rs->id);
		}
	}
	/* the backend kills only a job that carries this store's id and run */
	return (*b)->ops->cancel(*b, rs, backend_id, err) ? -1 : 1;
}

const struct backend_entry backend_slurm_entry = {
	.name = "slurm",
	.job_words = { "slurm job", "slurm jobs" },
	.check_config = slurm_check_config,
	.check_dir = backend_slurm_check_dir,
	.plan_check = slurm_plan_check,
	.open = slurm_open,
	.cancel_id = slurm_cancel_id,
};
