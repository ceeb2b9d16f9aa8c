/* A config against the campaign already in a directory (campaign_diff.h). */
#include "common/xalloc.h"
#include "campaign/campaign_diff.h"
#include "campaign/config_diff.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Equal settings (both absent counts as equal), by config_diff's rules. */
static int same_setting(const config_setting_t *a, const config_setting_t *b)
{
	if (!a || !b)
		return a == b;
	char key[512];
	int line;
	return !config_diff(a, b, NULL, key, sizeof(key), &line);
}

/* The keys whose change alters what a stored run means, and why. */
static const struct {
	const char *key, *why;
	int recollect;          /* `perfsweep collect DIR` is the other way */
} meaning[] = {
	{ "app.command", "its runs ran another command", 0 },
	{ "app.env", "its runs ran with another environment", 0 },
	{ "collect", "its runs were collected with other collectors", 1 },
};

int campaign_check_config(struct store *st, const struct campaign_config *c, struct perr *err)
{
	char *text = store_get_meta(st, "config");
	config_t old;
	config_init(&old);
	config_set_include_dir(&old, c->dir);
	int rc = 0;
	if (text && config_read_string(&old, text) == CONFIG_TRUE)
		for (size_t i = 0; !rc && i < sizeof(meaning) / sizeof(meaning[0]); i++) {
			const config_setting_t *now = config_lookup(&c->cfg, meaning[i].key);
			if (same_setting(config_lookup(&old, meaning[i].key), now))
				continue;
			char where[PATH_MAX + 32];
			config_where(c, now, where, sizeof(where));
			rc = perr_set(err, "%s: %s differs from the campaign in '%s' (%s); %s%s%suse a new"
				      " campaign directory (--dir)", where, meaning[i].key, store_dir(st),
				      meaning[i].why, meaning[i].recollect ? "re-collect them with 'perfsweep collect " : "",
				      meaning[i].recollect ? store_dir(st) : "", meaning[i].recollect ? "' or " : "");
		}
	config_destroy(&old);
	free(text);
	return rc;
}

int campaign_diff(const char *dir, const struct campaign_config *c, const struct plan *pl,
		  struct store_diff *d, struct perr *err)
{
	memset(d, 0, sizeof(*d));
	char *db = xasprintf("%s/campaign.db", dir);
	int exists = !access(db, F_OK);
	free(db);
	if (!exists || store_uncommitted(dir))   /* store_create starts it afresh */
		return 0;
	struct store *st;
	if (store_open(&st, dir, STORE_READONLY, err))
		return -1;
	char *name = store_get_meta(st, "name");
	int rc = 1;
	if (!name || strcmp(name, c->name))
		rc = perr_set(err, "'%s' holds a different campaign; give another --dir for this campaign", dir);
	else if (campaign_check_config(st, c, err))
		rc = -1;
	else if (store_plan_diff(st, pl, d, err)) {
		/* the refusal names its key (parameters, nodes, placement.*): point at its section */
		char where[PATH_MAX + 32];
		const char *section = strncmp(err->msg, "parameters", 10) ? "placement" : "parameters";
		perr_prefix(err, "%s", config_where(c, config_lookup(&c->cfg, section), where, sizeof(where)));
		rc = -1;
	}
	free(name);
	store_close(st);
	return rc;
}
