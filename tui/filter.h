/*
 * The filter language of `perfsweep top` (the `/` key and --filter): a
 * POSIX extended regex, matched case-insensitively against a row's text as
 * the table shows it, or conditions like `state=failed n>=1000
 * policy!=spread` (see top_model_set_filter in model.h).  Pure: no store,
 * no curses.
 */
#ifndef PS_TUI_FILTER_H
#define PS_TUI_FILTER_H
#include "common/error.h"
#include <regex.h>

struct top_model;
struct top_row;

/* One condition of a `param=value` filter. */
struct top_cond {
	int field;              /* >= 0: parameter index; < 0: -1 - enum top_field */
	int op;                 /* enum top_op */
	double num;
	char *str;
};

struct top_filter {
	char *text;             /* as typed, NULL when there is no filter */
	int is_regex;
	regex_t re;
	int nconds;
	struct top_cond *conds;
};

/*
 * Compile text (non-empty) into f, as conditions over m's parameters when
 * every token is one, else as a regex.  0, or -1 with err and f empty.
 */
int top_filter_compile(struct top_filter *f, const struct top_model *m, const char *text,
		       struct perr *err);
/* Whether row passes f (always, when f has no text). */
int top_filter_match(const struct top_filter *f, const struct top_model *m, const struct top_row *row);
/* Whether the result depends on the clock (a condition on elapsed). */
int top_filter_uses_clock(const struct top_filter *f);
/* Free f and leave it empty. */
void top_filter_release(struct top_filter *f);

#endif
