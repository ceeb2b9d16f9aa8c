/* The validate pipeline over an input: load, dependencies, region matching, checks. */
#include "orchestrator/validation.h"
#include "common/xalloc.h"
#include "orchestrator/store.h"
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rel resolved against the directory that holds the campaign directory dir. */
static char *beside_campaign(const char *dir, const char *rel)
{
	if (rel[0] == '/')
		return xstrdup(rel);
	/* `perfsweep run` puts <name>.campaign beside the config */
	char *d = xstrdup(dir);
	size_t len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	char *slash = strrchr(d, '/');
	const char *parent = !slash ? "." : slash == d ? "" : d;
	if (slash && slash != d)
		*slash = '\0';
	char *path = xasprintf("%s/%s", parent, rel);
	free(d);
	return path;
}

/* The `dependencies` setting of a stored config, or NULL. */
static char *config_deps(const char *text, const char *dir)
{
	config_t cfg;
	const char *rel = NULL;
	char *path = NULL;
	config_init(&cfg);
	if (config_read_string(&cfg, text) == CONFIG_TRUE &&
	    config_lookup_string(&cfg, "dependencies", &rel) == CONFIG_TRUE && rel && *rel)
		path = beside_campaign(dir, rel);
	config_destroy(&cfg);
	return path;
}

char *campaign_deps_path(const char *dir)
{
	struct store *st;
	struct perr err;
	if (store_open(&st, dir, STORE_READONLY, &err) < 0)
		return NULL;
	char *path = store_get_meta(st, "deps");        /* set by import */
	char *text = path ? NULL : store_get_meta(st, "config");
	store_close(st);
	if (text)
		path = config_deps(text, dir);
	free(text);
	if (path && access(path, R_OK) != 0) {
		free(path);
		path = NULL;
	}
	return path;
}

/* Read the dependency file and match its functions to the call paths. */
static int load_deps(struct campaign_validation *c, const char *path,
		     const struct campaign_validation_options *o, struct perr *err)
{
	c->deps_path = o->deps_path ? xstrdup(o->deps_path) : o->campaign_deps ? campaign_deps_path(path)
										: NULL;
	if (!c->deps_path)
		return 0;
	struct perr derr;
	if (deps_read(&c->d, c->deps_path, &derr) < 0) {
		if (o->deps_path) {
			*err = derr;
			return -1;
		}
		snprintf(c->deps_note, sizeof(c->deps_note), "dependencies not used: %s", derr.msg);
		return 0;
	}
	snprintf(c->deps_note, sizeof(c->deps_note), "dependencies %s", c->deps_path);
	c->have_deps = 1;
	c->funcs = xcalloc((size_t)c->e.ncallpaths + 1, sizeof(*c->funcs));
	return input_match_regions(&c->e, &c->d, c->funcs, &c->match, err);
}

int campaign_validate(struct campaign_validation *c, const char *path,
		      const struct campaign_validation_options *o, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	experiment_init(&c->e);
	input_source_init(&c->src);
	snprintf(c->deps_note, sizeof(c->deps_note), "no dependency file");
	if (input_load(&c->src, path, o->format, o->vo.metric, &c->e, err) < 0)
		return -1;
	if (c->e.npoints == 0 || c->e.nseries == 0)
		return 0;
	if (load_deps(c, path, o, err) < 0)
		return -1;
	struct validate_input in = { .e = &c->e, .deps = c->have_deps ? &c->d : NULL,
				     .funcs = c->funcs, .expect = validate_expect_expr };
	c->validated = 1;
	return validate_run(&c->v, &in, &o->vo, err);
}

void campaign_validation_release(struct campaign_validation *c)
{
	if (c->validated)
		validation_release(&c->v);
	free(c->funcs);
	if (c->have_deps) {
		region_match_release(&c->match);
		deps_release(&c->d);
	}
	free(c->deps_path);
	input_source_release(&c->src);
	experiment_release(&c->e);
	memset(c, 0, sizeof(*c));
}
