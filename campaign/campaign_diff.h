/*
 * A config against the campaign already in a directory: may it grow there,
 * and by what.  `perfsweep run` asks before it grows a campaign and
 * `perfsweep plan --dir` prints the answer.
 */
#ifndef PS_CAMPAIGN_DIFF_H
#define PS_CAMPAIGN_DIFF_H
#include "campaign/config.h"
#include "campaign/store.h"

/*
 * Refuse (-1, err: one line naming the key with its value in the campaign
 * and in c, suggesting a new campaign directory) a config that changes what
 * the stored runs mean: app.command (the program or its arguments),
 * app.env, app.workdir, the collectors (collect: `perfsweep collect DIR`
 * re-collects stored runs instead), backend.partition, backend.mpi, the
 * backend type the runs ran on, a parameter's role.  The stored config
 * (campaign_open_config) is compared setting by setting, so comments,
 * layout and other keys may change freely; a stored config that does not
 * load is an error.  Only reads.
 */
int campaign_check_config(struct store *st, const struct campaign_config *c, struct perr *err);

/*
 * With a store in dir for c's campaign: check c (campaign_check_config)
 * and fill *d with the difference to plan pl (store_plan_diff); returns 1.
 * Without a store in dir: 0, *d zero.  -1 with err on a refusal, another
 * campaign in dir, or a store that cannot be read.
 */
int campaign_diff(const char *dir, const struct campaign_config *c, const struct plan *pl,
		  struct store_diff *d, struct perr *err);

/*
 * The analysis section of c against the campaign's stored config: *said
 * gets "min_cpu_share 0.9 -> 0, aggregate \"mean\" -> \"median\"" (a key
 * left out as its default; caller frees), or NULL when it is the same (or
 * the campaign has no config).  Such a change alters no stored run: `run`
 * applies it by storing the config (campaign_save_config), and every later
 * analysis (validate, model, refine, top) judges with it.  0, or -1 with
 * err when the stored config does not load.
 */
int campaign_analysis_changes(struct store *st, const struct campaign_config *c, char **said, struct perr *err);

#endif
