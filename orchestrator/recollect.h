/*
 * Re-collection: `perfsweep collect` runs a campaign's collectors again
 * over every done run's stored files (stdout, stderr, rank files, profiles,
 * named files) through collector_set_run, the run engine's own collection.
 * It never reruns anything.  Each run's new measurements, collect_error and
 * misses replace the old ones in one store transaction (store_recollect),
 * so a kill -9 at any moment leaves every run either as it was or fully
 * re-collected.
 *
 * Which collectors a campaign's runs were collected with is kept in the
 * store's meta table:
 *   collectors_fingerprint  collector_set_fingerprint of that set; absent in
 *                           stores made before it: the set of the stored
 *                           config (campaign_collectors_check pins it then);
 *   collect_pending         the fingerprint a re-collection is moving the
 *                           runs to, while it is under way; a run may
 *                           then hold either set's values.
 * A re-collection with a changed config sets collect_pending first, then
 * collects run by run, and last, in one transaction, stores the new config
 * text as meta `config`, sets collectors_fingerprint and removes
 * collect_pending.  A config given to `collect` may differ from the stored
 * one only in its collect section.
 */
#ifndef PS_RECOLLECT_H
#define PS_RECOLLECT_H
#include "common/error.h"
#include "campaign/config.h"
#include "campaign/store.h"
#include <signal.h>

/* What changed for one region/metric, counted in runs. */
struct recollect_metric {
	char *region, *metric;
	const char *collector;  /* "wall", "regex" or "cubex" of the collectors used; NULL: none now */
	int added, changed, removed, unchanged;
};

/* What campaign_recollect did.  Release with recollect_report_release. */
struct recollect_report {
	char *name;             /* the campaign */
	char *dir;              /* its directory */
	char *fingerprint;      /* of the collectors used */
	int collectors_changed; /* they differ from those the runs were collected with */
	int config_stored;      /* the given config replaced the stored one */
	int runs;               /* done runs re-collected */
	int no_files;           /* done runs without a run directory: left as they were */
	int nmetrics;
	struct recollect_metric *metrics;      /* by region, then metric */
	int nmisses;
	struct store_miss *misses;              /* collectors that matched nothing, per done run */
};

/*
 * Re-collect campaign dir with the collectors of config_path, or of the
 * stored config when config_path is NULL.  dir NULL: the config's default
 * (<name>.campaign beside it).  Takes the campaign lock.  stop (a signal
 * handler's flag, or NULL) interrupts it between two runs or inside a
 * collector, leaving collect_pending set.  0, or -1 with err (one line: a
 * missing or wrong directory, a bad config, a config that changes more than
 * its collect section, the lock held, interrupted); rep then holds nothing
 * to release.
 */
int campaign_recollect(const char *dir, const char *config_path, const volatile sig_atomic_t *stop,
		       struct recollect_report *rep, struct perr *err);
void recollect_report_release(struct recollect_report *rep);

/*
 * For `run`: may cfg's collectors collect into this campaign?  0 when they
 * are the ones its runs were collected with (pinning them, as above, in a
 * store that has no fingerprint yet); -1 with err when they differ or a
 * re-collection did not finish.  Call it before anything rewrites the
 * stored config.
 */
int campaign_collectors_check(struct store *st, const struct campaign_config *cfg, struct perr *err);

#endif
