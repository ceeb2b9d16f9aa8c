/*
 * perfsweep cancel DIR [--run ID]: stop a campaign's runs.  Each run that is
 * pending, submitted or running is first marked cancelled in the store (so
 * a live `perfsweep run` neither starts nor retries it), then its job or
 * process is killed: SLURM jobs through the slurm backend (libslurm), local
 * runs by killing their process group.  Done, failed and cancelled runs are
 * left alone.
 */
#include "common/clock.h"
#include "orchestrator/backend.h"
#include "cli/cli.h"
#include "orchestrator/store.h"
#include "common/xalloc.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


struct canceller {
	struct store *st;
	int is_slurm;
	struct backend *b;      /* created on the first slurm job to cancel */
	int nkilled, ret;
};

/* Mark one run cancelled (the store first, so a running orchestrator does
   not retry it), then kill its job or process group.  0, or -1 if the store
   could not be changed. */
static int cancel_run(struct canceller *cc, const struct run *r)
{
	struct perr err;
	int inflight = r->state != RUN_PENDING && r->backend_id && *r->backend_id;
	if (inflight && cc->is_slurm && !cc->b) {
		struct backend_config bc = { .type = "slurm" };
		if (backend_slurm_new(&cc->b, &bc, &err)) {
			cc->b = NULL;
			cc->ret = cli_error(EXIT_RUNS_FAILED, "cannot cancel slurm job of run %lld: %s",
					    r->id, err.msg);
			inflight = 0;
		}
	}
	if (store_mark_cancelled(cc->st, r->id, wall_now(), "cancelled by user", &err)) {
		cc->ret = cli_error(EXIT_RUNS_FAILED, "run %lld: %s", r->id, err.msg);
		return -1;
	}
	if (!inflight)
		return 0;
	if (cc->is_slurm) {
		if (cc->b->ops->cancel(cc->b, r->id, r->backend_id, &err))
			cc->ret = cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
		else
			cc->nkilled++;
	} else {
		cc->nkilled += backend_local_cancel_id(r->backend_id);
	}
	return 0;
}

int cmd_cancel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long long only = 0;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r') {
			char *end;
			errno = 0;
			only = strtoll(optarg, &end, 10);
			if (errno || *end || only < 1)
				return cli_usage("cancel", "--run needs a run id (a positive integer), not '%s'",
						 optarg);
		} else if (c == ':' || (c == '?' && optopt == 'r')) {
			return cli_usage("cancel", "--run needs a run id");
		} else {
			return cli_usage("cancel", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage("cancel", optind >= argc ? "missing DIR" : "too many arguments");
	const char *dir = argv[optind];

	struct store *st;
	struct perr err;
	if (store_open(&st, dir, 0, &err))
		return cli_error(EXIT_USAGE, "%s", err.msg);
	struct run *runs = NULL;
	int nruns = 0;
	if (store_load_runs(st, 0, &runs, &nruns, &err)) {
		store_close(st);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	char *backend_name = store_get_meta(st, "backend");
	struct canceller cc = { .st = st, .is_slurm = backend_name && !strcmp(backend_name, "slurm"),
				.ret = EXIT_OK };
	int found = 0, ncancelled = 0;
	long long *was_pending = xcalloc((size_t)nruns + 1, sizeof(long long));
	int npending = 0;

	for (int i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		if (only && r->id != only)
			continue;
		found = 1;
		if (r->state != RUN_PENDING && r->state != RUN_SUBMITTED && r->state != RUN_RUNNING) {
			if (only)
				fprintf(stderr, "run %lld is %s: nothing to cancel\n", r->id,
					run_state_name(r->state));
			continue;
		}
		if (cancel_run(&cc, r))
			continue;
		ncancelled++;
		if (r->state == RUN_PENDING)
			was_pending[npending++] = r->id;
	}
	/* A live `perfsweep run` may have been submitting one of the pending
	   runs just then: its "submitted" overwrote our "cancelled".  Look again
	   once that submission is over, and cancel what slipped through. */
	if (npending > 0) {
		struct timespec pause = { 1, 500000000 };
		nanosleep(&pause, NULL);
		for (int k = 0; k < npending; k++) {
			struct run r;
			if (store_load_run(st, was_pending[k], &r, &err))
				continue;
			if (r.state == RUN_SUBMITTED || r.state == RUN_RUNNING)
				cancel_run(&cc, &r);
			run_release(&r);
		}
	}
	free(was_pending);
	struct backend *b = cc.b;
	int ret = cc.ret, nkilled = cc.nkilled, is_slurm = cc.is_slurm;
	if (only && !found)
		ret = cli_error(EXIT_USAGE, "no run %lld in '%s'", only, dir);
	else
		printf("cancelled %d run%s (%d %s killed)\n", ncancelled, ncancelled == 1 ? "" : "s",
		       nkilled, is_slurm ? (nkilled == 1 ? "slurm job" : "slurm jobs")
					 : (nkilled == 1 ? "process group" : "process groups"));
	if (b)
		b->ops->free(b);
	free(backend_name);
	runs_free(runs, nruns);
	store_close(st);
	return ret;
}
