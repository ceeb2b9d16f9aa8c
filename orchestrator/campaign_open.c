/* Opening a campaign to run it (campaign_open.h). */
#include "common/xalloc.h"
#include "campaign/campaign_config.h"
#include "orchestrator/backend.h"
#include "orchestrator/campaign_open.h"
#include "orchestrator/recollect.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void campaign_open_init(struct campaign_open *co)
{
	memset(co, 0, sizeof(*co));
	co->lock.fd = -1;
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

int campaign_open_check(struct campaign_open *co, const char *dir, const struct campaign_config *cfg,
			const struct plan *pl, struct perr *err)
{
	co->dir = dir ? xstrdup(dir) : config_default_dir(cfg);
	if (!(co->be = backend_for_config(cfg, err)) || check_dir(co->be, co->dir, err))
		return -1;
	if (campaign_lock_take(&co->lock, co->dir, err))
		return -1;
	/* an existing campaign may grow to this plan, unless the config changes what its runs mean */
	co->grows = campaign_diff(co->dir, cfg, pl, &co->diff, err);
	if (co->grows <= 0)
		return co->grows;
	/* and its collectors, before growing rewrites the stored config */
	struct store *st;
	if (store_open(&st, co->dir, 0, err))
		return -1;
	int rc = campaign_collectors_check(st, cfg, err) || campaign_analysis_changes(st, cfg, &co->analysis, err)
		 ? -1 : 0;
	store_close(st);
	return rc;
}

int campaign_open_backend(struct campaign_open *co, const struct campaign_config *cfg, int jobs,
			  struct backend **b, struct perr *err)
{
	return co->be->open(b, cfg, jobs, err);
}

int campaign_open_store(struct campaign_open *co, const struct campaign_config *cfg, const struct plan *pl,
			struct perr *err)
{
	if (store_create(&co->st, co->dir, cfg->name, cfg->backend.type, cfg->text, pl, err))
		return -1;
	char *abs = realpath(co->dir, NULL);
	if (abs) {
		store_close(co->st);
		co->st = NULL;
		free(co->dir);
		co->dir = abs;
		if (store_open(&co->st, co->dir, 0, err))
			return -1;
	}
	if (campaign_save_config(co->st, cfg, err))
		return -1;
	/* a new campaign pins its collectors now (a grown one was checked before) */
	return co->grows ? 0 : campaign_collectors_check(co->st, cfg, err);
}

int campaign_open_existing(struct campaign_open *co, const char *dir, struct perr *err)
{
	co->dir = xstrdup(dir);
	if (campaign_lock_take(&co->lock, co->dir, err))
		return -1;
	return store_open(&co->st, co->dir, 0, err);
}

void campaign_open_release(struct campaign_open *co)
{
	store_close(co->st);
	co->st = NULL;
	campaign_lock_release(&co->lock);
	free(co->dir);
	co->dir = NULL;
	free(co->analysis);
	co->analysis = NULL;
}
