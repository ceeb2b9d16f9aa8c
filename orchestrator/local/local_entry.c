/*
 * The local backend in the registry (orchestrator/backend.h): its
 * settings, its plan check (this machine is its one node: every point must
 * fit on it, ranks per node x cores per rank within its usable cores, and
 * an MPI world needs Open MPI's mpirun), what plan says of a run of several
 * ranks, and how it is opened and how cancel stops its runs.
 */
#include "orchestrator/local/backend_local.h"
#include "orchestrator/local/mpi_world.h"
#include "orchestrator/plan_check.h"
#include "campaign/config_get.h"
#include "common/progpath.h"
#include "common/xalloc.h"
#include "placement/topology.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * backend.mpi names the launcher of one MPI world per run: Open MPI's
 * mpirun only (MPICH's mpiexec.hydra takes other options and environment
 * variables).
 */
static int local_check_config(const struct campaign_config *c, struct perr *err)
{
	const char *mpi = c->backend.mpi;
	if (!mpi || !strcmp(mpi, "openmpi"))
		return 0;
	return config_error_at(c, "backend.mpi", err, "backend.mpi = \"%s\" is not supported on the "
			       "local backend; write mpi = \"openmpi\"; (Open MPI's mpirun, package "
			       "openmpi-bin)", mpi);
}

/* Why ranks ranks, rpn per node of cpr cores each cannot run here (in buf), or NULL. */
static const char *misfit(int ranks, int rpn, int cpr, int world, int usable_cores, char *buf,
			  size_t size)
{
	long need = cpr == 0 ? rpn : (long)rpn * cpr;
	if (ranks > rpn)
		snprintf(buf, size, "needs %d nodes, but the local backend has one node; use "
			 "ranks_per_node = %d or the slurm backend", (ranks + rpn - 1) / rpn, ranks);
	else if (need > usable_cores)
		snprintf(buf, size, "needs %ld cores, but this machine has %d usable cores%s", need,
			 usable_cores, world ? " (one MPI world of its ranks, a core for each)" : "");
	else
		return NULL;
	return buf;
}

static int local_plan_check(const struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	struct topology t;
	if (topology_load(&t, NULL, NULL, err) < 0)
		return -1;
	int usable_cores = t.nunits;
	topology_release(&t);
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
		int ranks = plan_point_ranks(pl, pt);
		int rpn = pt->ranks_per_node > 0 ? pt->ranks_per_node : ranks;
		char buf[200];
		const char *why = misfit(ranks, rpn, plan_point_cores(c, pt, cpr), world, usable_cores, buf,
					 sizeof(buf));
		if (why)
			rc = plan_refuse_point(pl, i, ranks, rpn, why, err);
	}
	free(vals);
	return rc;
}

static char *local_plan_note(const struct plan *pl, const struct campaign_config *c)
{
	int most = 1;
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	for (int i = 0; i < pl->npoints; i++) {
		int r = plan_point_ranks(pl, plan_point_at(pl, i, &buf, vals));
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

/* --jobs, or its default: the core allocator keeps concurrent runs on
   disjoint cores; a placement or contention study runs one run at a time
   unless asked otherwise. */
static int local_open(struct backend **b, const struct campaign_config *c, int jobs, struct perr *err)
{
	if (jobs == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = c->planning.have_placement || c->planning.have_contention || online < 1 ? 1 : (int)online;
	}
	if (backend_local_new(b, jobs, err))
		return -1;
	backend_local_wait_quiet(*b, c->backend.wait_quiet);
	return 0;
}

static int local_cancel_id(struct backend **b, const struct run_spec *rs, const char *backend_id,
			   struct perr *err)
{
	(void)b;
	(void)err;
	return backend_local_cancel_id(rs, backend_id);
}

const struct backend_entry backend_local_entry = {
	.name = "local",
	.job_words = { "process group", "process groups" },
	.starts_running = 1,
	.check_config = local_check_config,
	.plan_check = local_plan_check,
	.plan_note = local_plan_note,
	.open = local_open,
	.cancel_id = local_cancel_id,
};
