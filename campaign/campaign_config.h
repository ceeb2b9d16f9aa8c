/*
 * The config a campaign ran with.  Its text is the store's meta "config"
 * (store_create, store_grow), written again with the absolute paths it was
 * resolved with whenever `perfsweep run` creates, grows or resumes the
 * campaign (campaign_save_config): meta "config_path" (the config file,
 * whose directory relative paths resolve against) and meta "deps" (the
 * dependency file; `perfsweep import --deps` sets it too).  A resumed
 * campaign's config may differ only where no run's meaning changes
 * (campaign_diff.h): an `analysis` edit is applied to every later analysis
 * without measuring anything again.  Every command that takes a
 * campaign directory (validate, model, refine, run --until, top, compare,
 * collect, run DIR) reads the config and its dependency file here, so what
 * they find does not depend on the current directory or on where the
 * campaign directory lies.
 */
#ifndef PS_CAMPAIGN_CONFIG_H
#define PS_CAMPAIGN_CONFIG_H
#include "campaign/config.h"
#include "campaign/store.h"

/* Record c's text and the paths it was resolved with (meta config, config_path and deps), in one transaction. */
int campaign_save_config(struct store *st, const struct campaign_config *c, struct perr *err);

/*
 * Load the stored config into c, its relative paths resolved as when it was
 * run (against the directory of meta config_path; for stores without it,
 * beside the campaign directory).  Messages name it
 * "DIR/campaign.db (stored config):LINE".  Returns 0; 1 when the campaign
 * has no config (imported measurements, c then holds nothing); -1 with err
 * when the stored text does not load.  Release c either way.
 */
int campaign_open_config(struct store *st, struct campaign_config *c, struct perr *err);

/*
 * The campaign's dependency file, absolute, into *path (caller frees; NULL
 * when the campaign names none), whether or not it still exists.  0, or -1
 * with err when the stored config does not load.
 */
int campaign_deps_path(struct store *st, char **path, struct perr *err);

/*
 * The config file the campaign in dir was run with (meta config_path), for
 * `perfsweep run DIR`: only while its text is still the stored one.  The
 * path (caller frees), or NULL with err saying what to do instead.
 */
char *campaign_config_file(const char *dir, struct perr *err);

#endif
