/*
 * A campaign opened to change it: its lock held (one orchestrator per
 * campaign, campaign/campaign_lock.h) and its store open read-write.
 * `run` opens one for a config's plan (campaign_session_run: the campaign
 * created, grown or reopened, with the backend that runs it); `refine` and
 * `collect` open one that exists (campaign_session_open).  `import` makes
 * a new store from measurements and takes the lock itself
 * (analysis/import.c, a floor below).  Nothing here prints.
 */
#ifndef PS_CAMPAIGN_SESSION_H
#define PS_CAMPAIGN_SESSION_H
#include "campaign/campaign_lock.h"
#include "campaign/config.h"
#include "campaign/store.h"
#include "orchestrator/backend.h"

struct campaign_session {
	struct campaign_lock lock;
	struct store *st;           /* read-write */
	char *dir;                  /* as given; campaign_session_run: absolute once it exists */
	struct backend *backend;    /* campaign_session_run: the backend that runs it */
	int existed;                /* campaign_session_run: a campaign was there already... */
	struct store_diff diff;     /* ...and the plan changed it so (store_grow) */
};
#define CAMPAIGN_SESSION_INIT { .lock = { -1 } }

/*
 * Make dir (NULL: the config's default, <name>.campaign beside it) the
 * campaign of cfg's plan pl, ready to run on cfg's backend (jobs: at most
 * that many runs at once where the backend decides it, 0: its default).
 * Everything that can refuse comes first, before anything is written but
 * the lock file: the backend (its settings, the directory its runs write
 * into), the lock (another orchestrator), the campaign there (a config
 * that changes what its runs mean, other collectors), the backend opened.
 * Then the store is created, grown or reopened, by its absolute path
 * (runs chdir into their directories), with the paths the config was
 * resolved with.  0, or -1 with err; release s either way.
 */
int campaign_session_run(struct campaign_session *s, const char *dir, const struct campaign_config *cfg,
			 const struct plan *pl, int jobs, struct perr *err);
/* The campaign in dir, which must exist: locked and opened.  0, or -1
   with err (1 from the lock: another orchestrator holds it, err says who);
   release s either way. */
int campaign_session_open(struct campaign_session *s, const char *dir, struct perr *err);
/* The backend freed, the store closed, the lock released; s is as
   CAMPAIGN_SESSION_INIT left it (which a release leaves alone). */
void campaign_session_release(struct campaign_session *s);

#endif
