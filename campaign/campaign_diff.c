/* A config against the campaign already in a directory (campaign_diff.h). */
#include "common/xalloc.h"
#include "campaign/campaign_diff.h"
#include "campaign/campaign_config.h"
#include "campaign/config_diff.h"
#include "campaign/config_get.h"
#include "common/strbuf.h"
#include "models/modeler.h"
#include "validator/disturbed.h"
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

/* A setting as one short line of text, for messages (absent: none). */
static void describe(struct strbuf *sb, const config_setting_t *s)
{
	if (!s) {
		strbuf_addstr(sb, "none");
		return;
	}
	int t = config_setting_type(s), n = config_setting_length(s);
	switch (t) {
	case CONFIG_TYPE_STRING:
		strbuf_addf(sb, "\"%s\"", config_setting_get_string(s));
		return;
	case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: case CONFIG_TYPE_FLOAT:
		strbuf_addf(sb, "%g", config_number(s));
		return;
	case CONFIG_TYPE_BOOL:
		strbuf_addstr(sb, config_setting_get_bool(s) ? "true" : "false");
		return;
	}
	strbuf_addstr(sb, t == CONFIG_TYPE_GROUP ? "{ " : "[");
	for (int i = 0; i < n && sb->len < 200; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (t == CONFIG_TYPE_GROUP)
			strbuf_addf(sb, "%s = ", config_setting_name(e));
		else if (i)
			strbuf_addstr(sb, ", ");
		describe(sb, e);
		if (t == CONFIG_TYPE_GROUP)
			strbuf_addstr(sb, "; ");
	}
	strbuf_addstr(sb, t == CONFIG_TYPE_GROUP ? "}" : "]");
}

/* Refuse: "WHERE: KEY differs from the campaign in 'DIR' ([AT: ]OLD there, NEW here: WHY); ... --dir". */
static int refuse(const struct campaign_config *c, const config_setting_t *at, struct store *st,
		  const char *key, const char *sub, const char *was, const char *now, const char *why,
		  int recollect, struct perr *err)
{
	/* long lists and groups are cut: the line names the key, the file has the rest */
	char old[100], new[100];
	snprintf(old, sizeof(old), "%s", was);
	snprintf(new, sizeof(new), "%s", now);
	if (strlen(was) >= sizeof(old))
		strcpy(old + sizeof(old) - 4, "...");
	if (strlen(now) >= sizeof(new))
		strcpy(new + sizeof(new) - 4, "...");
	/* a key removed from the config: the line of the group it was in */
	char *path = xstrdup(key);
	for (char *dot; !at && (dot = strrchr(path, '.'));) {
		*dot = '\0';
		at = config_lookup(&c->cfg, path);
	}
	free(path);
	return config_error(c, at, err, "%s differs from the campaign in '%s' (%s%s%s there, %s here: %s); "
			    "%s%s%suse a new campaign directory (--dir)", key, store_dir(st), sub ? sub : "",
			    sub ? ": " : "", old, new, why, recollect ? "re-collect them with 'perfsweep collect " : "",
			    recollect ? store_dir(st) : "", recollect ? "' or " : "");
}

/* The keys whose change alters what a stored run means, and why. */
static const struct {
	const char *key, *why;
	int recollect;          /* `perfsweep collect DIR` is the other way */
} meaning[] = {
	{ "app.command", "its runs ran another command", 0 },
	{ "app.env", "its runs ran with another environment", 0 },
	{ "app.workdir", "its runs ran in another directory", 0 },
	{ "app.template", "its runs read other input files", 0 },
	{ "app.setup", "its runs' input was prepared by other steps", 0 },
	{ "collect", "its runs were collected with other collectors", 1 },
	{ "backend.partition", "its runs ran on other nodes", 0 },
	{ "backend.mpi", "its ranks were started another way", 0 },
};

/* The first difference inside was and now: its path ("regex[0].pattern"),
   with *a and *b the settings there (NULL: absent on that side); NULL with
   *a, *b = was, now when the settings differ as a whole. */
static const char *inner_difference(const config_setting_t *was, const config_setting_t *now,
				    const config_setting_t **a, const config_setting_t **b,
				    char *sub, size_t n)
{
	char path[600];
	int line;
	*a = was;
	*b = now;
	if (!was || !now || !config_diff(was, now, NULL, sub, n, &line) || !*sub)
		return NULL;
	/* libconfig's lookup paths write an element as ".[0]" */
	size_t k = 0;
	for (const char *p = sub; *p && k + 2 < sizeof(path); p++) {
		if (*p == '[' && p != sub)
			path[k++] = '.';
		path[k++] = *p;
	}
	path[k] = '\0';
	*a = config_setting_lookup((config_setting_t *)was, path);
	*b = config_setting_lookup((config_setting_t *)now, path);
	return sub;
}

/* The settings of meaning[] against the stored config. */
static int check_settings(struct store *st, const struct campaign_config *c, const struct campaign_config *old,
			  struct perr *err)
{
	for (size_t i = 0; i < sizeof(meaning) / sizeof(meaning[0]); i++) {
		const config_setting_t *was = config_lookup(&old->cfg, meaning[i].key);
		const config_setting_t *now = config_lookup(&c->cfg, meaning[i].key);
		if (same_setting(was, now))
			continue;
		char buf[512];
		const config_setting_t *a, *b;
		const char *sub = inner_difference(was, now, &a, &b, buf, sizeof(buf));
		struct strbuf ta, tb;
		strbuf_init(&ta);
		strbuf_init(&tb);
		describe(&ta, a);
		describe(&tb, b);
		refuse(c, b ? b : now, st, meaning[i].key, sub, ta.buf, tb.buf, meaning[i].why,
		       meaning[i].recollect, err);
		strbuf_release(&ta);
		strbuf_release(&tb);
		return -1;
	}
	return 0;
}

/* A role as text: "ranks" or none. */
static const char *role_text(const char *role, char *buf, size_t n)
{
	if (!role)
		return "none";
	snprintf(buf, n, "\"%s\"", role);
	return buf;
}

/* What the store knows for itself: the backend its runs ran on, each parameter's role. */
static int check_store(struct store *st, const struct campaign_config *c, struct perr *err)
{
	char *backend = store_get_meta(st, "backend");
	int rc = 0;
	if (backend && strcmp(backend, c->backend.type)) {
		char was[64], now[64];
		snprintf(was, sizeof(was), "\"%s\"", backend);
		snprintf(now, sizeof(now), "\"%s\"", c->backend.type);
		rc = refuse(c, config_lookup(&c->cfg, "backend"), st, "backend", NULL, was, now,
			    "its runs ran on another backend", 0, err);
	}
	free(backend);
	const config_setting_t *ps = config_lookup(&c->cfg, "parameters");
	for (int k = 0; !rc && k < store_nparams(st); k++) {
		int j = config_find_param(c, store_param_name(st, k));
		const char *was = store_param_role(st, k), *now = j >= 0 ? c->params[j].role : NULL;
		if (j < 0 || !strcmp(was ? was : "", now ? now : ""))
			continue;
		const config_setting_t *g = config_setting_get_elem(ps, (unsigned)j);
		const config_setting_t *at = config_setting_get_member(g, "role");
		char key[300], b1[64], b2[64];
		snprintf(key, sizeof(key), "the role of parameter '%s'", c->params[j].name);
		rc = refuse(c, at ? at : g, st, key, NULL, role_text(was, b1, sizeof(b1)), role_text(now, b2, sizeof(b2)),
			    "its runs ran another number of processes or ranks per node", 0, err);
	}
	return rc;
}

int campaign_check_config(struct store *st, const struct campaign_config *c, struct perr *err)
{
	/* the backend and the roles first: the store's own record, and the graver change */
	if (check_store(st, c, err))
		return -1;
	struct campaign_config old;
	int rc = campaign_open_config(st, &old, err);
	if (rc == 0)
		rc = check_settings(st, c, &old, err);
	config_release(&old);
	return rc < 0 ? -1 : 0;
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
		const char *section = err->kind == PERR_PARAMETERS ? "parameters" : "placement";
		perr_prefix(err, "%s", config_where(c, config_lookup(&c->cfg, section), where, sizeof(where)));
		rc = -1;
	}
	free(name);
	store_close(st);
	return rc;
}

/* What an analysis key left out of the config means (docs/config.md). */
static void analysis_default(struct strbuf *sb, const char *key)
{
	if (!strcmp(key, "min_cpu_share"))
		strbuf_addf(sb, "%g", DISTURBED_MIN_CPU_SHARE);
	else if (!strcmp(key, "min_share"))
		strbuf_addf(sb, "%g", CONFIG_MIN_SHARE);
	else if (!strcmp(key, "aggregate"))
		strbuf_addf(sb, "\"%s\"", model_aggregate_name(MODEL_MEAN));
	else
		strbuf_addstr(sb, "none");
}

/* "min_cpu_share 0.9 -> 0": one changed analysis key, appended to the list in ctx. */
static void analysis_change(void *ctx, const char *key, const config_setting_t *a, const config_setting_t *b)
{
	struct strbuf *sb = ctx;
	strbuf_addf(sb, "%s%s ", sb->len ? ", " : "", key);
	if (a)
		config_value_text(a, sb);
	else
		analysis_default(sb, key);
	strbuf_addstr(sb, " -> ");
	if (b)
		config_value_text(b, sb);
	else
		analysis_default(sb, key);
}

int campaign_analysis_changes(struct store *st, const struct campaign_config *c, char **said, struct perr *err)
{
	struct campaign_config old;
	*said = NULL;
	int rc = campaign_open_config(st, &old, err);
	if (rc == 0) {
		config_t none;
		config_init(&none);
		const config_setting_t *a = config_lookup(&old.cfg, "analysis"), *b = config_lookup(&c->cfg, "analysis");
		struct strbuf sb;
		strbuf_init(&sb);
		config_diff_each(a ? a : config_root_setting(&none), b ? b : config_root_setting(&none), NULL,
				 analysis_change, &sb);
		if (sb.len)
			*said = strbuf_detach(&sb);
		else
			strbuf_release(&sb);
		config_destroy(&none);
	}
	config_release(&old);
	return rc < 0 ? -1 : 0;
}
