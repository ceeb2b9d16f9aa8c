/* The refine loop of `run --until publishable`, and `run DIR` (run_until.h). */
#include "cli/run_until.h"
#include "cli/cli.h"
#include "common/xalloc.h"
#include "refine/refine_loop.h"
#include "campaign/campaign_config.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One round: its verdict, and what refine added for the next. */
static void print_round(void *ctx, const struct refine_loop_round *r)
{
	(void)ctx;
	if (!r->validated)
		printf("round %d: no verdict (no run is done)\n", r->round);
	else
		printf("round %d: %s (%d blocking flag%s, %d findings)\n", r->round,
		       r->blocking ? "blocked" : "publishable", r->blocking, r->blocking == 1 ? "" : "s",
		       r->nfindings);
	if (r->reruns)
		printf("round %d: %d of %d reruns of disturbed runs disturbed again\n", r->round, r->reruns_disturbed,
		       r->reruns);
	if (r->probe_of)
		printf("round %d: the machine was shared: a probe first, %d of its %d disturbed runs measured again "
		       "(nothing else until it is quiet)\n", r->round, r->kinds[REFINE_DISTURBED], r->probe_of);
	if (!r->runs_added)
		return;
	printf("round %d: refine added %lld runs (%.4g core-hours): ", r->round, r->runs_added, r->core_hours_added);
	for (int k = 0, first = 1; k < REFINE_NKINDS; k++)
		if (r->kinds[k]) {
			printf("%s%d %s", first ? "" : ", ", r->kinds[k], refine_kind_name((enum refine_kind)k));
			first = 0;
		}
	if (r->ndropped)
		printf("; %d dropped over the budget", r->ndropped);
	putchar('\n');
}

/* The per-round table and the stop's reason. */
static void print_loop(const struct refine_loop *L)
{
	printf("\n%6s %9s %9s %12s %14s\n", "round", "blocking", "findings", "runs added", "core-hours");
	for (int i = 0; i < L->nrounds; i++) {
		const struct refine_loop_round *r = &L->rounds[i];
		if (!r->validated)   /* no verdict: no flags to count */
			printf("%6d %9s %9s %12lld %14.4g\n", r->round, "-", "-", r->runs_added, r->core_hours_added);
		else
			printf("%6d %9d %9d %12lld %14.4g\n", r->round, r->blocking, r->nfindings, r->runs_added,
			       r->core_hours_added);
	}
	if (L->stop == LOOP_PUBLISHABLE)
		printf("publishable after %d round%s\n", L->nrounds, L->nrounds == 1 ? "" : "s");
	else
		printf("stopped: %s%s%s\n", refine_loop_stop_name(L->stop), L->why[0] ? ": " : "", L->why);
	printf("loop: %d round%s, %lld runs done, %.4g core-hours spent\n", L->nrounds, L->nrounds == 1 ? "" : "s",
	       L->done, L->spent);
}

int run_until_publishable(struct store *st, const char *dir, const struct campaign_config *cfg,
			  struct backend *b, const struct runner_options *ro, int rounds,
			  const char *accuracy, struct runner_stats *rs)
{
	struct refine_loop L;
	struct refine_loop_options o = { .max_rounds = rounds, .on_round = print_round, .accuracy = accuracy };
	struct perr err;
	int rc = refine_loop_run(&L, st, dir, cfg, b, ro, &o, &err);
	runner_stats_add(rs, &L.stats);
	if (rc) {
		refine_loop_release(&L);
		return cli_error(rc == -2 ? EXIT_USAGE : EXIT_RUNS_FAILED, "%s", err.msg);
	}
	int ret = L.stop == LOOP_PUBLISHABLE ? EXIT_OK : L.stop == LOOP_INTERRUPTED ? EXIT_RUNS_FAILED : EXIT_BLOCKED;
	if (L.stop != LOOP_INTERRUPTED)
		print_loop(&L);
	refine_loop_release(&L);
	return ret;
}

char *run_config_path(const char *arg, char **dir, struct perr *err)
{
	struct stat sb;
	*dir = NULL;
	if (stat(arg, &sb) || !S_ISDIR(sb.st_mode))
		return xstrdup(arg);
	char *path = campaign_config_file(arg, err);
	if (path)
		*dir = xstrdup(arg);
	return path;
}
