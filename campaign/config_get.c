/* The config kit's typed getters (config_get.h): one setting each, FILE:LINE on error. */
#include "campaign/config_get.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_at(const struct campaign_config *c, const config_setting_t *s, struct perr *err,
		    const char *fmt, va_list ap)
{
	char where[PATH_MAX + 32], msg[900];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';       /* quoted config text stays on one line */
	return perr_set(err, "%s: %s", config_where(c, s, where, sizeof(where)), msg);
}

int config_error(const struct campaign_config *c, const config_setting_t *s, struct perr *err,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at(c, s, err, fmt, ap);
	va_end(ap);
	return -1;
}

int config_error_at(const struct campaign_config *c, const char *path, struct perr *err,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at(c, config_lookup(&c->cfg, path), err, fmt, ap);
	va_end(ap);
	return -1;
}

/* The setting path names, or its nearest existing parent (NULL: the file). */
static const config_setting_t *lookup_near(const struct campaign_config *c, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		const config_setting_t *s = config_lookup(&c->cfg, buf);
		char *dot = strrchr(buf, '.');
		if (s || !dot)
			return s;
		*dot = 0;
	}
}

int config_has(const struct campaign_config *c, const char *path)
{
	return config_lookup(&c->cfg, path) != NULL;
}

const char *config_where_at(const struct campaign_config *c, const char *path, char *buf, size_t n)
{
	return config_where(c, lookup_near(c, path), buf, n);
}

int config_error_in(const struct campaign_config *c, const char *path, int i, const char *key,
		    struct perr *err, const char *fmt, ...)
{
	const config_setting_t *s = lookup_near(c, path), *e;
	if (s && i >= 0 && (config_setting_is_list(s) || config_setting_is_array(s)) &&
	    (e = config_setting_get_elem(s, (unsigned)i)))
		s = e;
	if (s && key && config_setting_is_group(s) && (e = config_setting_get_member(s, key)))
		s = e;
	va_list ap;
	va_start(ap, fmt);
	error_at(c, s, err, fmt, ap);
	va_end(ap);
	return -1;
}

int config_error_param(const struct campaign_config *c, const char *name, struct perr *err,
		       const char *fmt, ...)
{
	const config_setting_t *ps = config_lookup(&c->cfg, "parameters"), *at = ps;
	for (int i = 0; ps && i < config_setting_length(ps); i++) {
		const config_setting_t *g = config_setting_get_elem(ps, (unsigned)i);
		const char *n = NULL;
		if (config_setting_lookup_string(g, "name", &n) && !strcmp(n, name)) {
			at = g;
			break;
		}
	}
	va_list ap;
	va_start(ap, fmt);
	error_at(c, at, err, fmt, ap);
	va_end(ap);
	return -1;
}

const char *config_type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP: return "a group { ... }";
	case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "true or false";
	case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
	case CONFIG_TYPE_LIST: return "a list ( ... )";
	}
	return "a setting";
}

int config_check_keys(const struct campaign_config *c, const config_setting_t *group,
		      const char *const *allowed, const char *what, struct perr *err)
{
	int n = config_setting_length(group);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(s);
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			ok |= name && !strcmp(name, *a);
		if (ok)
			continue;
		struct strbuf sb;
		strbuf_init(&sb);
		for (const char *const *a = allowed; *a; a++)
			strbuf_addf(&sb, "%s%s", a == allowed ? "" : ", ", *a);
		config_error(c, s, err, "unknown key '%s' in %s; expected one of: %s", name ? name : "?",
			     what, sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

int config_check_group(const struct campaign_config *c, const config_setting_t *s, const char *name,
		       struct perr *err)
{
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return config_error(c, s, err, "'%s' must be a group: %s = { ... };", name, name);
	return 0;
}

int config_get_text(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		    const char **out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	*out = NULL;
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return config_error(c, s, err, "'%s' must be a string, not %s; write %s = \"...\";", key,
				    config_type_name(config_setting_type(s)), key);
	const char *v = config_setting_get_string(s);
	if (!*v)
		return config_error(c, s, err, "'%s' is empty", key);
	*out = v;
	return 0;
}

int config_get_string(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		      char **out, int required, struct perr *err)
{
	const char *v;
	if (config_get_text(c, parent, key, &v, err))
		return -1;
	if (!v) {
		if (required)
			return config_error(c, parent, err, "missing '%s'; write %s = \"...\";", key, key);
		return 0;
	}
	free(*out);
	*out = xstrdup(v);
	return 0;
}

int config_get_int(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		   int min, int *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return config_error(c, s, err, "'%s' must be an integer, not %s; write %s = %d;", key,
				    config_type_name(t), key, min > 1 ? min : 1);
	long long v = config_setting_get_int64(s);
	if (v > INT_MAX || v < INT_MIN)
		return config_error(c, s, err, "'%s' is out of range", key);
	if (v < min)
		return config_error(c, s, err, "'%s' must be at least %d, not %lld", key, min, v);
	*out = (int)v;
	return 0;
}

int config_get_number(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		      double *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	if (!config_setting_is_number(s))
		return config_error(c, s, err, "'%s' must be a number, not %s", key,
				    config_type_name(config_setting_type(s)));
	*out = config_number(s);
	return 0;
}

int config_get_bool(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		    int *out, struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(parent, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return config_error(c, s, err, "'%s' must be true or false", key);
	*out = config_setting_get_bool(s);
	return 0;
}

int config_get_strings(const struct campaign_config *c, const config_setting_t *s, const char *key,
		       char ***out, int *n, struct perr *err)
{
	int t = config_setting_type(s);
	*n = 0;
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return config_error(c, s, err, "'%s' must be a list of strings, e.g. %s = [\"a\", \"b\"];",
				    key, key);
	int len = config_setting_length(s);
	*out = xcalloc((size_t)len + 1, sizeof(char *));
	for (int i = 0; i < len; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return config_error(c, e, err, "element %d of '%s' must be a string, not %s", i + 1,
					    key, config_type_name(config_setting_type(e)));
		(*out)[(*n)++] = xstrdup(config_setting_get_string(e));
	}
	return 0;
}
