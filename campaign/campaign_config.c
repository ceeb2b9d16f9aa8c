/* The config a campaign ran with, read back from its store (campaign_config.h). */
#include "campaign/campaign_config.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int campaign_save_config(struct store *st, const struct campaign_config *c, struct perr *err)
{
	/* the text too: a resumed campaign whose config changed no run's meaning
	   (campaign_check_config) is analysed with it, as the path says */
	static const char *const keys[] = { "config_path", "deps", "config" };
	char *abs = realpath(c->path, NULL);
	const char *values[] = { abs ? abs : c->path, c->dependencies, c->text };
	int rc = store_set_metas(st, keys, values, c->text ? 3 : 2, err);
	free(abs);
	return rc;
}

/* Where the stored config's relative paths resolve (caller frees). */
static char *config_dir(struct store *st)
{
	char *path = store_get_meta(st, "config_path");
	char *dir;
	if (path) {
		dir = xstrdup(dirname(path));
		free(path);
		return dir;
	}
	/* stores made before config_path: `perfsweep run` put <name>.campaign beside the config */
	dir = xstrdup(store_dir(st));
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	char *slash = strrchr(dir, '/');
	if (!slash) {
		free(dir);
		return xstrdup(".");
	}
	slash[slash == dir] = '\0';
	return dir;
}

int campaign_open_config(struct store *st, struct campaign_config *c, struct perr *err)
{
	char *text = store_get_meta(st, "config");
	char *backend = store_get_meta(st, "backend");
	int rc = 1;
	if (text && *text && !(backend && !strcmp(backend, "import"))) {
		char *label = xasprintf("%s/campaign.db (stored config)", store_dir(st));
		char *dir = config_dir(st);
		rc = config_load_text(c, text, label, dir, err);
		free(label);
		free(dir);
	} else {
		memset(c, 0, sizeof(*c));
		config_init(&c->cfg);
	}
	free(text);
	free(backend);
	return rc;
}

int campaign_deps_path(struct store *st, char **path, struct perr *err)
{
	*path = store_get_meta(st, "deps");
	if (*path)
		return 0;
	/* stores made before meta deps: the stored config's, resolved as it was run */
	struct campaign_config c;
	int rc = campaign_open_config(st, &c, err);
	if (rc == 0 && c.dependencies)
		*path = xstrdup(c.dependencies);
	config_release(&c);
	return rc < 0 ? -1 : 0;
}

/* The whole text of path, or NULL. */
static char *read_text(const char *path)
{
	struct strbuf sb;
	strbuf_init(&sb);
	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

char *campaign_config_file(const char *dir, struct perr *err)
{
	struct store *st;
	if (store_open(&st, dir, STORE_READONLY | STORE_NOCHECK, err))   /* two meta keys */
		return NULL;
	char *path = store_get_meta(st, "config_path");
	char *text = store_get_meta(st, "config");
	store_close(st);
	char *now = path ? read_text(path) : NULL;
	if (!path)
		perr_set(err, "'%s' does not name its config; run CONFIG --dir %s", dir, dir);
	else if (!now || !text || strcmp(now, text))
		perr_set(err, "'%s' was run with '%s', which is %s; run CONFIG --dir %s", dir, path,
			 now ? "changed now" : "missing now", dir);
	if (path && (!now || !text || strcmp(now, text))) {
		free(path);
		path = NULL;
	}
	free(now);
	free(text);
	return path;
}
