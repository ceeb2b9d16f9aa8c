/*
 * Where two configs differ: a structural comparison of libconfig settings
 * (names, types and values; group members in any order; formatting and
 * comments do not count), for commands that accept a changed config only
 * when the change stays inside given sections, and for compare, which
 * lists every difference between two campaigns.
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

/*
 * Every difference, in a's order then b's additions: fn gets the key
 * ("app.command[7]"; an array or list of another length, or a setting of
 * another type, is one difference at its own key) and both settings, a or
 * b NULL where that side lacks the key.  Returns the number of differences.
 */
typedef void (*config_diff_fn)(void *ctx, const char *key, const config_setting_t *a,
			       const config_setting_t *b);
int config_diff_each(const config_setting_t *a, const config_setting_t *b, const char *const *skip,
		     config_diff_fn fn, void *ctx);

/*
 * Two arrays or lists that differ: the elements [*from, *a_end) of a and
 * [*from, *b_end) of b that lie between their common beginning and common
 * end (an argument added to a command: *a_end == *from).
 */
void config_diff_span(const config_setting_t *a, const config_setting_t *b, int *from, int *a_end,
		      int *b_end);

struct campaign_config;
/* config_diff of two loaded campaign configs, whole files. */
int campaign_config_diff(const struct campaign_config *a, const struct campaign_config *b,
			 const char *const *skip, char *key, size_t n, int *line);

/* A config's text to compare: @include resolves in dir; label names it in
   the message when it does not parse ("the config stored in 'DIR'"). */
struct config_text {
	const char *text, *dir, *label;
};
/*
 * Every difference between two configs' texts, as printable values: fn gets
 * the key and a's and b's value as config text (NULL where that side lacks
 * it); of two arrays or lists only the elements that differ, the key then
 * "KEY[i]" or "KEY[i..j]".  Returns the number of differences, or -1 with
 * err when one does not parse.
 */
typedef void (*config_text_diff_fn)(void *ctx, const char *key, const char *a, const char *b);
struct perr;
int config_diff_texts(const struct config_text *a, const struct config_text *b, const char *const *skip,
		      config_text_diff_fn fn, void *ctx, struct perr *err);

struct strbuf;
/* Append s's value as config text: 3, 0.5, true, "x", [ 1, 2 ], ( ... ), { a = 1; }. */
void config_value_text(const config_setting_t *s, struct strbuf *sb);

#endif
