/* The refine loop of `run --until publishable`, and `run DIR` (run_until.h). */
#include "cli/run_until.h"
#include "cli/cli.h"
#include "common/xalloc.h"
#include "engine/adaptive.h"
#include "engine/refine_campaign.h"
#include "campaign/campaign_config.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "2 noise, 1 segmented" */
static void print_kinds(const struct refine_result *r)
{
	int n[REFINE_NKINDS] = { 0 }, first = 1;
	for (int i = 0; i < r->nproposals; i++)
		n[r->proposals[i].kind]++;
	for (int k = 0; k < REFINE_NKINDS; k++)
		if (n[k]) {
			printf("%s%d %s", first ? "" : ", ", n[k], refine_kind_name((enum refine_kind)k));
			first = 0;
		}
}

static void print_spent(struct store *st, int rounds)
{
	struct store_counts c;
	struct perr err;
	if (store_counts(st, &c, &err))
		return;
	printf("loop: %d round%s, %lld runs done, %.4g core-hours spent\n", rounds, rounds == 1 ? "" : "s",
	       c.done, c.core_hours_spent);
}

/* One round's refinement: 1 when runs were added, 0 when the loop stops, -1 on error. */
static int refine_round(struct store *st, int round, struct refine_campaign *rc)
{
	struct perr err;
	long long added;
	const struct refine_result *r = &rc->r;
	if (!r->nproposals) {
		if (r->ndropped)
			printf("stopped: the budget is spent (%d proposals over the %.4g core-hours remaining)\n",
			       r->ndropped, r->remaining);
		else
			printf("stopped: nothing actionable is left\n");
		return 0;
	}
	if (refine_campaign_write(rc, st, &added, &err)) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		return -1;
	}
	printf("round %d: refine added %lld runs (%.4g core-hours): ", round, added, r->used);
	print_kinds(r);
	if (r->ndropped)
		printf("; %d dropped over the budget", r->ndropped);
	putchar('\n');
	return 1;
}

int run_until_publishable(struct store *st, const char *dir, const struct campaign_config *cfg,
			  struct backend *b, const struct runner_options *ro, int rounds,
			  struct runner_stats *rs)
{
	struct refine_campaign_options o;
	memset(&o, 0, sizeof(o));
	o.budget = -1;
	o.max_repetitions = cfg->repetitions_target > 0 ? cfg->repetitions_max : 0;
	validate_options_init(&o.vo.vo);
	o.vo.campaign_deps = 1;
	struct perr err;
	for (int round = 1;; round++) {
		int passes, go = 0;
		struct runner_stats s;
		struct refine_campaign rc;
		if (campaign_execute(st, cfg, b, ro, &s, &passes, &err))
			return cli_error(EXIT_RUNS_FAILED, "%s", err.msg);
		rs->started += s.started;
		rs->retried += s.retried;
		rs->rerun += s.rerun;
		rs->adopted += s.adopted;
		rs->interrupted |= s.interrupted;
		rs->budget_stopped |= s.budget_stopped;
		if (s.interrupted)
			return EXIT_RUNS_FAILED;
		if (refine_campaign_propose(&rc, dir, &o, &err)) {
			refine_campaign_release(&rc);
			return cli_error(EXIT_USAGE, "%s", err.msg);
		}
		printf("round %d: %s (%d findings)\n", round, rc.publishable ? "publishable" : "blocked", rc.nfindings);
		int publishable = rc.publishable;
		if (publishable)
			printf("publishable after %d round%s\n", round, round == 1 ? "" : "s");
		else if (s.budget_stopped)
			printf("stopped: the budget is spent\n");
		else if (round >= rounds)
			printf("stopped: %d rounds done (--rounds)\n", rounds);
		else
			go = refine_round(st, round, &rc);
		refine_campaign_release(&rc);
		if (go < 0)
			return EXIT_USAGE;
		if (!go) {
			print_spent(st, round);
			return publishable ? EXIT_OK : EXIT_BLOCKED;
		}
	}
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
