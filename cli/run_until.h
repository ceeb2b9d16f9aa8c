/*
 * `perfsweep run CONFIG --until publishable [--rounds N]`: run, validate,
 * refine and repeat (orchestrator/adaptive.h, refine_campaign.h), printing
 * the verdict after each round.  Stops when the campaign is publishable,
 * when nothing actionable is left, when the budget is spent (the run engine
 * stopped, or every proposal is over the remaining budget) or after N
 * rounds; with --for accuracy (accuracy: the target) it refines for
 * accuracy there too.  Also `run DIR`: the config a campaign directory was
 * run with.
 */
#ifndef PS_CLI_RUN_UNTIL_H
#define PS_CLI_RUN_UNTIL_H
#include "orchestrator/backend.h"
#include "campaign/config.h"
#include "orchestrator/runner.h"
#include "campaign/store.h"

/* Returns EXIT_OK when publishable, EXIT_BLOCKED when not, EXIT_RUNS_FAILED or EXIT_USAGE on errors. */
int run_until_publishable(struct store *st, const char *dir, const struct campaign_config *cfg,
			  struct backend *b, const struct runner_options *ro, int rounds,
			  const char *accuracy, struct runner_stats *rs);

/*
 * The config behind argument arg: arg itself, or, when arg is a campaign
 * directory, the config file it was run with (campaign_config_file: its
 * text must still be the stored one).  *dir gets the directory (or NULL).
 * Returns the path (caller frees), or NULL with err set.
 */
char *run_config_path(const char *arg, char **dir, struct perr *err);

#endif
