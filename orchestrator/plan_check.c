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
#include "campaign/config_get.h"
#include "common/fsutil.h"
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static int point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	return pt->nodes > 0 && pt->ranks_per_node > 0 ? pt->nodes * pt->ranks_per_node : 1;
}

/* The cores each rank of pt holds: its own cores per rank (a threads
   parameter's value), else the campaign's cpr; 0 for "all". */
static int point_cores(const struct campaign_config *c, const struct plan_point *pt, int cpr)
{
	if (pt->cores_per_rank && c->threads_param >= 0)
		return atoi(pt->cores_per_rank);
	return cpr;
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

/* The setting at path ("app.template") element i's member key, or the nearest that exists. */
static const config_setting_t *app_setting(const struct campaign_config *c, const char *path, int i,
					   const char *key)
{
	const config_setting_t *s = config_lookup(&c->cfg, path), *e = s;
	if (s && i >= 0 && config_setting_get_elem(s, (unsigned)i))
		e = config_setting_get_elem(s, (unsigned)i);
	if (e && key && config_setting_get_member(e, key))
		e = config_setting_get_member(e, key);
	return e ? e : config_lookup(&c->cfg, "app");
}

/* Set-up step i's program: a path (beside the config when relative), or a name in PATH. */
static int check_step_program(const struct campaign_config *c, int i, struct perr *err)
{
	const char *prog = c->steps[i].argv[0];
	const config_setting_t *at = app_setting(c, "app.setup", i, NULL);
	char *abs_dir = config_dir_abs(c), *p;
	struct template_var v = { "config_dir", abs_dir };
	p = template_expand(prog, &v, 1);
	int rc = 0;
	if (strchr(p, '{')) {
		rc = 0;         /* named by a parameter: known at run time */
	} else if (!strchr(p, '/')) {
		char *found = progpath_find_in(p, NULL, getenv("PATH"));
		if (!found)
			rc = config_error(c, at, err, "set-up step %d: program '%s' is not in PATH; install it or "
					  "give its path", i + 1, p);
		free(found);
	} else {
		char *path = p[0] == '/' ? xstrdup(p) : config_resolve(c, p);
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK))
			rc = config_error(c, at, err, "set-up step %d: program '%s' %s (%s)", i + 1, p,
					  stat(path, &st) ? "does not exist" : "is not an executable file", path);
		free(path);
	}
	free(p);
	free(abs_dir);
	return rc;
}

int plan_check_files(const struct campaign_config *c, struct perr *err)
{
	struct stat st;
	if (c->app_workdir && (stat(c->app_workdir, &st) || !S_ISDIR(st.st_mode)))
		return config_error(c, app_setting(c, "app", -1, "workdir"), err, "app.workdir '%s' %s; create it "
				    "or fix the path", c->app_workdir,
				    stat(c->app_workdir, &st) ? "does not exist" : "is not a directory");
	for (int i = 0; i < c->ntemplates; i++) {
		const char *why = NULL;
		int fd = fs_open_regular(c->templates[i].from, 0, &why);
		if (fd < 0)
			return config_error(c, app_setting(c, "app.template", i, "from"), err, "template '%s' cannot "
					    "be read: %s", c->templates[i].from, why ? why : strerror(errno));
		close(fd);
	}
	for (int i = 0; i < c->nsteps; i++)
		if (check_step_program(c, i, err))
			return -1;
	return 0;
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
			return perr_set(err, "backend.mpi = \"%s\" starts each run with '%s', which is not in "
					"PATH; install the package %s", c->backend.mpi, MPI_WORLD_LAUNCHER,
					MPI_WORLD_PACKAGE);
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
		int cores = point_cores(c, pt, cpr);
		long need = cores == 0 ? rpn : (long)rpn * cores;
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
		int cores = point_cores(c, pt, cpr);
		long need = rpn > 0 ? (cores == 0 ? rpn : (long)rpn * cores) : cores > 0 ? cores : 1;
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
