/* Plan-time placement checks: the local backend's one node, a SLURM partition's nodes. */
#include "orchestrator/plan_check.h"
#include "common/strbuf.h"
#include "orchestrator/backend.h"
#include "orchestrator/local/mpi_world.h"
#include "common/progpath.h"
#include "common/xalloc.h"
#include "campaign/template.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	return pt->nodes > 0 && pt->ranks_per_node > 0 ? pt->nodes * pt->ranks_per_node : 1;
}

/* "point 3 (np=2, n=10): placement 2x1 compact" */
static void describe(struct strbuf *sb, const struct plan *pl, int i, int ranks, int rpn)
{
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
	strbuf_addf(sb, "point %d (", i + 1);
	for (int k = 0; k < pl->nparams; k++) {
		char v[64];
		template_format_value(v, sizeof(v), pt->values[k], pl->params[k].is_int);
		strbuf_addf(sb, "%s%s=%s", k ? ", " : "", pl->params[k].name, v);
	}
	strbuf_addf(sb, "): placement %d rank%s, %d per node, %s", ranks, ranks == 1 ? "" : "s", rpn,
		    pt->policy ? pt->policy : "compact");
	free(vals);
}

/* Refuse point i: "point 3 (np=2, n=10): placement ... why". */
static int refuse(const struct plan *pl, int i, int ranks, int rpn, const char *why, struct perr *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	describe(&sb, pl, i, ranks, rpn);
	perr_set(err, "%s %s", sb.buf, why);
	strbuf_release(&sb);
	return -1;
}

int plan_check_local(const struct plan *pl, const struct campaign_config *c, int usable_cores,
		     struct perr *err)
{
	if (!usable_cores) {
		struct topology t;
		if (topology_load(&t, NULL, NULL, err) < 0)
			return -1;
		usable_cores = t.nunits;
		topology_release(&t);
	}
	int cpr = c->placement_spec.cores_per_rank, world = c->backend.mpi != NULL;
	if (world) {
		char *path = progpath_find_in(MPI_WORLD_LAUNCHER, NULL, getenv("PATH"));
		free(path);
		if (!path)
			return perr_set_kind(err, PERR_BACKEND, "backend.mpi = \"%s\" starts each run with "
					     "'%s', which is not in PATH; install the package %s",
					     c->backend.mpi, MPI_WORLD_LAUNCHER, MPI_WORLD_PACKAGE);
	}
	struct plan_point at;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	int rc = 0;
	for (int i = 0; i < pl->npoints && rc == 0; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &at, vals);
		/* unbound: the ranks share whatever cores there are; a world's
		   ranks each need a core of their own */
		if (!pt->policy && pt->ranks_per_node <= 0 && !world)
			continue;
		int ranks = point_ranks(pl, pt);
		int rpn = pt->ranks_per_node > 0 ? pt->ranks_per_node : ranks;
		long need = cpr == 0 ? rpn : (long)rpn * cpr;
		const char *why = NULL;
		char buf[200];
		if (ranks > rpn) {
			snprintf(buf, sizeof(buf), "needs %d nodes, but the local backend has one node; "
				 "use ranks_per_node = %d or the slurm backend", (ranks + rpn - 1) / rpn, ranks);
			why = buf;
		} else if (need > usable_cores) {
			snprintf(buf, sizeof(buf), "needs %ld cores, but this machine has %d usable cores%s", need,
				 usable_cores, world ? " (one MPI world of its ranks, a core for each)" : "");
			why = buf;
		}
		if (why)
			rc = refuse(pl, i, ranks, rpn, why, err);
	}
	free(vals);
	return rc;
}

char *plan_check_local_note(const struct plan *pl, const struct campaign_config *c)
{
	int most = 1;
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints; i++) {
		int r = point_ranks(pl, plan_point_at(pl, i, &buf, vals));
		most = r > most ? r : most;
	}
	free(vals);
	if (most < 2)
		return NULL;
	if (c->backend.mpi)
		return xasprintf("a run of p ranks is one MPI world of p ranks (%s -np p, backend.mpi = "
				 "\"%s\"), a core for each rank", MPI_WORLD_LAUNCHER, c->backend.mpi);
	return xstrdup("a run of p ranks on the local backend is p independent copies of the program "
		       "(a throughput study), never one MPI world; for one world set backend.mpi = \"openmpi\"");
}

/* Why point pt cannot run in partition part, in why; 0 when it fits. */
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

int plan_check_partition(const struct plan *pl, const struct campaign_config *c,
			 const struct slurm_partition *parts, int nparts, struct perr *err)
{
	int cpr = c->placement_spec.cores_per_rank, rc = 0;
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints && rc == 0; i++) {
		const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
		int ranks = point_ranks(pl, pt);
		int rpn = pt->ranks_per_node > 0 ? pt->ranks_per_node : 0;
		int nodes = pt->nodes > 0 ? pt->nodes : rpn > 0 ? (ranks + rpn - 1) / rpn : 1;
		long need = rpn > 0 ? (cpr == 0 ? rpn : (long)rpn * cpr) : 1;
		/* sbatch -p A,B runs a job in whichever partition can take it */
		char why[300], other[300];
		int refused = nparts > 0 && misfit(&parts[0], nodes, need, why, sizeof(why));
		for (int k = 1; k < nparts && refused; k++)
			refused = misfit(&parts[k], nodes, need, other, sizeof(other));
		if (refused)
			rc = refuse(pl, i, ranks, rpn > 0 ? rpn : (ranks + nodes - 1) / nodes, why, err);
	}
	free(vals);
	return rc;
}
