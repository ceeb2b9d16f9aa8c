/*
 * Rendering a run's batch script: srun starts every rank through a tiny sh
 * that sends its output to the run directory (rank 0 to stdout/stderr, rank
 * r to rank-<r>.stdout/.stderr); the script's own output goes to
 * job.out/job.err.
 */
#include "orchestrator/slurm_script.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Single-quote s for sh. */
static void sh_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

int slurm_job_nodes(const struct run_spec *rs)
{
	if (rs->nodes > 0)
		return rs->nodes;
	if (rs->ranks_per_node > 0)
		return (rs->ranks + rs->ranks_per_node - 1) / rs->ranks_per_node;
	return 0;
}

/* One name per attempt, so that a job an earlier orchestrator submitted and
   never recorded is told apart from the recorded jobs of earlier attempts. */
char *slurm_job_name(const char *campaign, long long id, int attempt)
{
	return xasprintf("ps:%s:%lld.%d", campaign ? campaign : "", id, attempt > 0 ? attempt : 1);
}

char *slurm_job_comment(const struct run_spec *rs)
{
	return xasprintf("perfsweep %s run %lld", rs->campaign_dir ? rs->campaign_dir : "", rs->id);
}

static void script_sbatch_lines(struct strbuf *sc, const struct slurm_script_opts *o,
				const struct run_spec *rs)
{
	char *name = slurm_job_name(rs->campaign, rs->id, rs->attempt);
	/* For the reader and for resubmitting by hand: libslurm applies these
	   settings through the job description, not by parsing these lines. */
	strbuf_addf(sc, "#SBATCH --job-name=%s\n", name);
	if (o->nodes > 0)
		strbuf_addf(sc, "#SBATCH --nodes=%d\n", o->nodes);
	strbuf_addf(sc, "#SBATCH --ntasks=%d\n", rs->ranks);
	if (rs->ranks_per_node > 0)
		strbuf_addf(sc, "#SBATCH --ntasks-per-node=%d\n", rs->ranks_per_node);
	strbuf_addstr(sc, "#SBATCH --exclusive\n");
	if (o->time_limit)
		strbuf_addf(sc, "#SBATCH --time=%u\n", o->time_limit);
	if (o->partition)
		strbuf_addf(sc, "#SBATCH --partition=%s\n", o->partition);
	if (o->account)
		strbuf_addf(sc, "#SBATCH --account=%s\n", o->account);
	if (o->qos)
		strbuf_addf(sc, "#SBATCH --qos=%s\n", o->qos);
	for (int i = 0; i < o->nextra; i++)
		strbuf_addf(sc, "#SBATCH %s\n", o->extra[i]);
	strbuf_addf(sc, "#SBATCH --output=%s/job.out\n#SBATCH --error=%s/job.err\n", rs->run_dir,
		    rs->run_dir);
	free(name);
}

/* srun, the per-rank sh, the binder and the application. */
static void script_srun(struct strbuf *sc, const struct slurm_script_opts *o,
			const struct run_spec *rs)
{
	int nodes = o->nodes;
	if (rs->timeout > 0)
		strbuf_addf(sc, "timeout --kill-after=10 %.3f ", rs->timeout);
	strbuf_addf(sc, "srun --cpu-bind=none --ntasks=%d", rs->ranks);
	if (nodes > 0)
		strbuf_addf(sc, " --nodes=%d", nodes);
	if (rs->ranks_per_node > 0)
		strbuf_addf(sc, " --ntasks-per-node=%d", rs->ranks_per_node);
	strbuf_addstr(sc, " /bin/sh -c '"
		      "r=${SLURM_PROCID:-0}; "
		      "if [ \"$r\" = 0 ]; then exec >\"$PERFSWEEP_RUN_DIR/stdout\" 2>\"$PERFSWEEP_RUN_DIR/stderr\"; "
		      "else exec >\"$PERFSWEEP_RUN_DIR/rank-$r.stdout\" 2>\"$PERFSWEEP_RUN_DIR/rank-$r.stderr\"; fi; "
		      "exec \"$@\"' perfsweep-rank");
	if (rs->policy && rs->bind_path) {
		strbuf_addch(sc, ' ');
		sh_quote(sc, rs->bind_path);
		strbuf_addstr(sc, " --policy ");
		sh_quote(sc, rs->policy);
		if (rs->ranks_per_node > 0)
			strbuf_addf(sc, " --ranks-per-node %d", rs->ranks_per_node);
		else if (nodes > 0)
			strbuf_addf(sc, " --ranks-per-node %d", (rs->ranks + nodes - 1) / nodes);
		strbuf_addstr(sc, " --");
	}
	for (char *const *a = rs->argv; *a; a++) {
		strbuf_addch(sc, ' ');
		sh_quote(sc, *a);
	}
}

char *slurm_script_render(const struct slurm_script_opts *o, const struct run_spec *rs)
{
	struct strbuf sc;
	strbuf_init(&sc);
	strbuf_addstr(&sc, "#!/bin/sh\n");
	strbuf_addf(&sc, "# perfsweep: run %lld of campaign '%s' (%s)\n", rs->id,
		    rs->campaign ? rs->campaign : "", rs->campaign_dir ? rs->campaign_dir : "");
	script_sbatch_lines(&sc, o, rs);
	strbuf_addstr(&sc, "cd ");
	sh_quote(&sc, rs->workdir ? rs->workdir : rs->run_dir);
	strbuf_addstr(&sc, " || exit 125\n");
	/* srun needs the controller to start its step.  When no rank started
	   (rank 0 creates stdout first thing), wait for the controller and try
	   again; give up after SLURM_STEP_TRIES and leave job.step-failed behind. */
	strbuf_addstr(&sc, "d=$PERFSWEEP_RUN_DIR\n"
		      "rm -f \"$d/stdout\" \"$d/job.step-failed\"\n"
		      "n=0\n"
		      "while :; do\n\t");
	script_srun(&sc, o, rs);
	strbuf_addf(&sc, "\n\trc=$?\n"
		    "\tif [ $rc -eq 0 ] || [ -e \"$d/stdout\" ]; then exit $rc; fi\n"
		    "\tn=$((n + 1))\n"
		    "\tif [ $n -ge %d ]; then : >\"$d/job.step-failed\"; exit $rc; fi\n"
		    "\tsleep ${PERFSWEEP_STEP_PAUSE:-%d}\n"
		    "done\n", SLURM_STEP_TRIES, SLURM_STEP_PAUSE);
	return strbuf_detach(&sc);
}
