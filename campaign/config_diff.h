/*
 * Where two configs differ: a structural comparison of libconfig settings
 * (names, types and values; group members in any order; formatting and
 * comments do not count), for commands that accept a changed config only
 * when the change stays inside given sections.
 */
#ifndef PS_CONFIG_DIFF_H
#define PS_CONFIG_DIFF_H
#include <libconfig.h>
#include <stddef.h>

/*
 * Compare the groups a and b, skipping their top-level members named in
 * skip (NULL-terminated, may be NULL).  Returns 0 when equal; 1 when they
 * differ, with the first differing key in key ("app.command",
 * "parameters[0].values") and *line its line in b (0 when b lacks it).
 */
int config_diff(const config_setting_t *a, const config_setting_t *b, const char *const *skip,
		char *key, size_t n, int *line);

#endif
