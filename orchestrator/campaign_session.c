/* A campaign opened to change it: lock, store and backend, set up in one place. */
#include "orchestrator/campaign_session.h"
#include "campaign/campaign_config.h"
#include "campaign/campaign_diff.h"
#include "common/xalloc.h"
#include "orchestrator/recollect.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void session_init(struct campaign_session *s)
{
	memset(s, 0, sizeof(*s));
	s->lock.fd = -1;
}

/* The directory the backend's runs write into, checked by its absolute
   path (as they will have it) before anything is made there. */
static int check_dir(const struct backend_entry *be, const char *dir, struct perr *err)
{
	if (!be->check_dir)
		return 0;
	char *cwd = dir[0] == '/' ? NULL : getcwd(NULL, 0);
	char *abs = cwd ? xasprintf("%s/%s", cwd, dir) : xstrdup(dir);
	int rc = be->check_dir(abs, err);
	free(abs);
	free(cwd);
	return rc;
}

/* Lock the campaign and check cfg against the one already there, if any,
   and against the collectors its runs were collected with. */
static int check_campaign(struct campaign_session *s, const struct campaign_config *cfg,
			  const struct plan *pl, struct perr *err)
{
	if (campaign_lock_take(&s->lock, s->dir, err))
		return -1;
	/* an existing campaign may grow to this plan, unless the config changes what its runs mean */
	s->existed = campaign_diff(s->dir, cfg, pl, &s->diff, err);
	if (s->existed <= 0)
		return s->existed;
	/* and its collectors, before growing rewrites the stored config */
	struct store *st;
	if (store_open(&st, s->dir, 0, err))
		return -1;
	int rc = campaign_collectors_check(st, cfg, err);
	store_close(st);
	return rc;
}

/* Create (or grow, or reopen) the store, then reopen it by its absolute
   path, and record the paths the config was resolved with. */
static int open_store(struct campaign_session *s, const struct campaign_config *cfg,
		      const struct plan *pl, struct perr *err)
{
	if (store_create(&s->st, s->dir, cfg->name, cfg->backend.type, cfg->text, pl, err))
		return -1;
	char *abs = realpath(s->dir, NULL);
	if (abs) {
		store_close(s->st);
		s->st = NULL;
		free(s->dir);
		s->dir = abs;
		if (store_open(&s->st, s->dir, 0, err))
			return -1;
	}
	if (campaign_save_config(s->st, cfg, err))
		return -1;
	return s->existed ? 0 : campaign_collectors_check(s->st, cfg, err);
}

int campaign_session_run(struct campaign_session *s, const char *dir, const struct campaign_config *cfg,
			 const struct plan *pl, int jobs, struct perr *err)
{
	session_init(s);
	const struct backend_entry *be = backend_for_config(cfg, err);
	if (!be)
		return -1;
	s->dir = dir ? xstrdup(dir) : config_default_dir(cfg);
	if (check_dir(be, s->dir, err) || check_campaign(s, cfg, pl, err) ||
	    be->open(&s->backend, cfg, jobs, err))
		return -1;
	return open_store(s, cfg, pl, err);
}

int campaign_session_open(struct campaign_session *s, const char *dir, struct perr *err)
{
	session_init(s);
	s->dir = xstrdup(dir);
	if (campaign_lock_take(&s->lock, s->dir, err))
		return -1;
	return store_open(&s->st, s->dir, 0, err);
}

void campaign_session_release(struct campaign_session *s)
{
	if (s->backend)
		s->backend->ops->free(s->backend);
	store_close(s->st);
	campaign_lock_release(&s->lock);
	free(s->dir);
	session_init(s);
}
