/* Structural differences between two libconfig trees. */
#include "campaign/config_diff.h"
#include <stdio.h>
#include <string.h>

static int skipped(const char *name, const char *const *skip)
{
	for (const char *const *s = skip; s && *s; s++)
		if (name && !strcmp(*s, name))
			return 1;
	return 0;
}

/* Two scalars of the same type: equal? */
static int same_scalar(const config_setting_t *a, const config_setting_t *b)
{
	switch (config_setting_type(a)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return config_setting_get_int64(a) == config_setting_get_int64(b);
	case CONFIG_TYPE_FLOAT:
		return config_setting_get_float(a) == config_setting_get_float(b);
	case CONFIG_TYPE_BOOL:
		return !config_setting_get_bool(a) == !config_setting_get_bool(b);
	case CONFIG_TYPE_STRING:
		return !strcmp(config_setting_get_string(a), config_setting_get_string(b));
	default:
		return 1;
	}
}

/* Name the difference: key gets path, *line b's line (or 0). */
static int differ(const char *path, const config_setting_t *b, char *key, size_t n, int *line)
{
	snprintf(key, n, "%s", path);
	*line = b ? (int)config_setting_source_line(b) : 0;
	return 1;
}

static int diff(const config_setting_t *a, const config_setting_t *b, const char *path,
		const char *const *skip, char *key, size_t n, int *line);

/* The members of group a and of group b, by name. */
static int diff_group(const config_setting_t *a, const config_setting_t *b, const char *path,
		      const char *const *skip, char *key, size_t n, int *line)
{
	char sub[512];
	for (int pass = 0; pass < 2; pass++) {
		const config_setting_t *x = pass ? b : a, *y = pass ? a : b;
		for (int i = 0; i < config_setting_length(x); i++) {
			const config_setting_t *m = config_setting_get_elem(x, (unsigned)i);
			const char *name = config_setting_name(m);
			if (skipped(name, skip))
				continue;
			snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", name ? name : "?");
			const config_setting_t *o = config_setting_get_member(y, name);
			if (!o)
				return differ(sub, pass ? m : y, key, n, line);
			if (!pass && diff(m, o, sub, NULL, key, n, line))
				return 1;
		}
	}
	return 0;
}

static int diff(const config_setting_t *a, const config_setting_t *b, const char *path,
		const char *const *skip, char *key, size_t n, int *line)
{
	int t = config_setting_type(a);
	if (t != config_setting_type(b))
		return differ(path, b, key, n, line);
	if (t == CONFIG_TYPE_GROUP)
		return diff_group(a, b, path, skip, key, n, line);
	if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
		if (config_setting_length(a) != config_setting_length(b))
			return differ(path, b, key, n, line);
		char sub[512];
		for (int i = 0; i < config_setting_length(a); i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			if (diff(config_setting_get_elem(a, (unsigned)i), config_setting_get_elem(b, (unsigned)i),
				 sub, NULL, key, n, line))
				return 1;
		}
		return 0;
	}
	return same_scalar(a, b) ? 0 : differ(path, b, key, n, line);
}

int config_diff(const config_setting_t *a, const config_setting_t *b, const char *const *skip,
		char *key, size_t n, int *line)
{
	return diff(a, b, "", skip, key, n, line);
}
