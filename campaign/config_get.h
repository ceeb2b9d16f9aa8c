/*
 * The typed getters of the campaign config kit, in the shape of git's
 * config.c (git_config_int, git_config_bool): each reads one setting of a
 * config loaded by campaign/config.h and, when it is of the wrong type or
 * out of range, fills err with "FILE:LINE: what is wrong; what to write" and
 * returns -1.  An absent member is not an error: the getter returns 0 and
 * leaves *out as it was (the caller's default), except a required string.
 * The schema (config.c, config_app.c, config_collect.c, config_plan.c)
 * reads every setting through these; code above campaign/ holds no setting
 * and places its errors with config_error_at, config_error_in and
 * config_error_param.
 */
#ifndef PS_CONFIG_GET_H
#define PS_CONFIG_GET_H
#include "campaign/config.h"
#include <limits.h>

/* err = "FILE:LINE: message" at setting s (the config's path when s is NULL);
   control characters in the message become '?' (one line).  Returns -1. */
int config_error(const struct campaign_config *c, const config_setting_t *s, struct perr *err,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same at the setting a path names ("backend.mpi"), for code above the
   campaign layer that holds no setting. */
int config_error_at(const struct campaign_config *c, const char *path, struct perr *err,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same at element i (when i >= 0) of the list a path names, at its
   member key (when not NULL): at the nearest of these that exists, and
   where the path is absent at its nearest existing parent ("app.setup":
   "app", then the file). */
int config_error_in(const struct campaign_config *c, const char *path, int i, const char *key,
		    struct perr *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The same at the entry of parameters whose name is name (the list when none is). */
int config_error_param(const struct campaign_config *c, const char *name, struct perr *err,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Is there a setting at path ("budget", "cost_model.campaign")? */
int config_has(const struct campaign_config *c, const char *path);
/* "FILE:LINE" of the setting at path, or of its nearest existing parent (the file when none). */
const char *config_where_at(const struct campaign_config *c, const char *path, char *buf, size_t n);
/* "an integer", "a string", ...: a setting type for messages. */
const char *config_type_name(int type);
/* Every member of group is one of allowed (NULL-terminated); what names the group. */
int config_check_keys(const struct campaign_config *c, const config_setting_t *group,
		      const char *const *allowed, const char *what, struct perr *err);
/* s is a group { ... }; name is its key for the message. */
int config_check_group(const struct campaign_config *c, const config_setting_t *s, const char *name,
		       struct perr *err);
/* A non-empty string member, borrowed from the config (*out NULL when absent). */
int config_get_text(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		    const char **out, struct perr *err);
/* The same, copied into *out (the old value freed); required: absence is an error. */
int config_get_string(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		      char **out, int required, struct perr *err);
/* An integer member from min to INT_MAX (INT_MIN: any int). */
int config_get_int(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		   int min, int *out, struct perr *err);
/* A number member, integer or real. */
int config_get_number(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		      double *out, struct perr *err);
/* true or false. */
int config_get_bool(const struct campaign_config *c, const config_setting_t *parent, const char *key,
		    int *out, struct perr *err);
/* Setting s (named key) as a list or array of strings: *out gets *n copies
   and a NULL after them, to be freed by the caller even on error. */
int config_get_strings(const struct campaign_config *c, const config_setting_t *s, const char *key,
		       char ***out, int *n, struct perr *err);

#endif
