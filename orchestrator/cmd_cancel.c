/*
 * perfsweep cancel DIR [--run ID]: stop a campaign's runs.  Each run that is
 * pending, submitted or running is first marked cancelled in the store (so
 * a live `perfsweep run` neither starts nor retries it), then its job or
 * process is killed: SLURM jobs through the slurm backend (libslurm), local
 * runs by killing their process group.  Done, failed and cancelled runs are
 * left alone.
 */
#include "orchestrator/backend.h"
#include "orchestrator/cli.h"
#include "orchestrator/store.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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
	int is_slurm = backend_name && !strcmp(backend_name, "slurm");
	struct backend *b = NULL;
	int ret = EXIT_OK, found = 0, ncancelled = 0, nkilled = 0;

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
		int inflight = r->state != RUN_PENDING && r->backend_id && *r->backend_id;
		if (inflight && is_slurm && !b) {
			struct backend_config bc = { .type = "slurm" };
			if (backend_slurm_new(&b, &bc, &err)) {
				ret = cli_error(EXIT_RUNS_FAILED, "cannot cancel slurm jobs: %s", err.msg);
				break;
			}
		}
		/* The store first, so that a running orchestrator does not retry it. */
		if (store_mark_cancelled(st, r->id, now(), "cancelled by user", &err)) {
			ret = cli_error(EXIT_RUNS_FAILED, "run %lld: %s", r->id, err.msg);
			continue;
		}
		ncancelled++;
		if (!inflight)
			continue;
		if (is_slurm) {
			if (b->ops->cancel(b, r->id, r->backend_id, &err)) {
				ret = cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
				continue;
			}
			nkilled++;
		} else {
			nkilled += backend_local_cancel_id(r->backend_id);
		}
	}
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
