/*
 * perfsweep cancel DIR [--run ID]: stop a campaign's runs through the
 * orchestrator's campaign_cancel (the same sequence top's c key runs), and
 * say what was done.
 */
#include "cli/cli.h"
#include "orchestrator/control.h"
#include <limits.h>
#include <stdio.h>

static int check_run_id(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 1, LLONG_MAX, &o->i) < 0)
		return perr_set(err, "--run needs a run id (a positive integer), not '%s'", o->arg);
	return 0;
}

static int exec_cancel(struct cli_args *a)
{
	const char *dir = a->args[0];
	const struct cli_opt *only = cli_opt(a, 'r');
	struct cancel_options o = { .ids = only ? &only->i : NULL, .nids = only ? 1 : 0,
				    .reason = "cancelled by user" };
	struct cancel_result r;
	struct perr err;
	if (campaign_cancel(dir, &o, &r, &err))
		return cli_error(EXIT_USAGE, "%s", err.msg);
	int ret = EXIT_OK;
	for (int i = 0; i < r.nnotes; i++)
		fprintf(stderr, "%s\n", r.notes[i]);
	for (int i = 0; i < r.nerrors; i++)
		ret = cli_error(EXIT_RUNS_FAILED, "%s", r.errors[i]);
	if (r.nmissing)
		ret = cli_error(EXIT_USAGE, "no run %lld in '%s'", r.first_missing, dir);
	else
		printf("cancelled %d run%s (%d %s killed)\n", r.ncancelled, r.ncancelled == 1 ? "" : "s",
		       r.nkilled, r.job_words[r.nkilled != 1]);
	cancel_result_release(&r);
	return ret;
}

static const struct cli_option cancel_options[] = {
	{ "run", 'r', 1, check_run_id, "--run needs a run id", "ID", "cancel this run only (default: every pending and running run)", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_cancel_entry = {
	.name = "cancel",
	.synopsis = "DIR",
	.summary = "cancel a campaign's pending and in-flight runs, or one run",
	.help = "Marks the runs cancelled in the store, then kills their SLURM jobs (through\n"
		"libslurm) or, on the local backend, their process groups.  A running\n"
		"'perfsweep run' neither starts nor retries cancelled runs.  Done and failed\n"
		"runs are kept.  Exit status 0, or 1 when a job could not be cancelled.",
	.options = cancel_options,
	.min_args = 1, .max_args = 1, .too_few = "missing DIR",
	.exec = exec_cancel,
};
