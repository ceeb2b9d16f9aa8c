/*
 * The state of one `perfsweep top` session, shared by the main loop (top.c)
 * and the views (view_*.c): the campaigns' models, the mode and prompt, the
 * open details, the flags.  The views only read it.
 */
#ifndef PS_TUI_APP_H
#define PS_TUI_APP_H
#include "common/strbuf.h"
#include "tui/details.h"
#include "tui/flags.h"
#include "tui/model.h"
#include "tui/screen.h"

enum top_mode { TOP_MODE_TABLE, TOP_MODE_DETAILS, TOP_MODE_HELP, TOP_MODE_VALIDATE };
enum top_prompt { TOP_PROMPT_NONE, TOP_PROMPT_FILTER, TOP_PROMPT_CONFIRM };
enum top_action { TOP_ACT_NONE, TOP_ACT_CANCEL, TOP_ACT_RETRY };

/* Rows above and below the runs table. */
#define TOP_HEADER_ROWS 4
#define TOP_FOOTER_ROWS 1

struct top_app {
	struct top_model *models;
	struct top_flags *flags;        /* one per model */
	double *flags_at;               /* when each was computed */
	struct store_task **checks;     /* one per model while its store is being checked */
	struct store_task **jobs;       /* one per model while its flags are computed beside */
	long long *jobs_done;           /* the done runs when each job started */
	int beside;                     /* flags on threads (interactive), else here and now */
	int nmodels, cur;
	enum top_mode mode;
	enum top_prompt prompt;
	struct strbuf input;            /* the filter being typed */
	char message[256];
	int message_error;
	enum top_action confirm;        /* what the y/N prompt confirms */
	long long *confirm_ids;
	size_t nconfirm;
	struct top_details details;
	char validate_title[256];
	struct top_lines validate;      /* the validator's text report */
	int pane_scroll;                /* first line shown in the validate and help panes */
	int quit;
	double interval;                /* seconds between refreshes */
	int color;
	const char *const *help;        /* key help lines, NULL-terminated */
};

static inline struct top_model *top_app_model(const struct top_app *a)
{
	return &a->models[a->cur];
}

/* Rows the runs table gets on a screen of height h. */
static inline int top_table_rows(int h)
{
	int n = h - TOP_HEADER_ROWS - 1 - TOP_FOOTER_ROWS;
	return n > 1 ? n : 1;
}

/* The views: each draws its part of the screen from the app state. */
void view_header_draw(struct screen *s, const struct top_app *a, int y);
void view_flags_line(struct screen *s, const struct top_app *a, int y);
void view_flags_pane(struct screen *s, const struct top_app *a, int y, int height);
void view_table_draw(struct screen *s, const struct top_app *a, int y, int height);
void view_details_draw(struct screen *s, const struct top_app *a, int y, int height);
void view_status_draw(struct screen *s, const struct top_app *a, int y);
void view_help_draw(struct screen *s, const struct top_app *a, int y, int height);
/* The whole screen for the current mode. */
void view_draw(struct screen *s, struct top_app *a);

#endif
