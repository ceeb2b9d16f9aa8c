/*
 * The model behind `perfsweep top`: what to show, never how.  One model per
 * campaign holds every run of the store (read through a read-only
 * connection and refreshed incrementally by change counter), the filtered
 * and sorted view of them, the cursor, the marked runs, and the arithmetic
 * of the header: progress against the plan, core hours against the budget,
 * elapsed time and ETA.  No curses here: the views and the tests call it.
 * The filter language lives in filter.h, the header arithmetic in stats.h;
 * this header includes both.
 *
 * Invariants: rows are ordered by run id; view[] holds indices into rows of
 * the runs that pass the filter, in display order; cursor < nview unless
 * nview == 0.
 */
#ifndef PS_TUI_MODEL_H
#define PS_TUI_MODEL_H
#include "common/error.h"
#include "orchestrator/adaptive.h"
#include "campaign/store.h"
#include "tui/filter.h"
#include "tui/stats.h"
#include <stddef.h>

/* Columns of the runs table, in display order. */
enum top_col {
	TOP_COL_ID,
	TOP_COL_POINT,
	TOP_COL_PLACEMENT,
	TOP_COL_REP,
	TOP_COL_STATE,
	TOP_COL_JOB,
	TOP_COL_ATTEMPTS,
	TOP_COL_ELAPSED,
	TOP_COL_EXIT,
	TOP_NCOLS
};

/* Header text of a column ("ID", "POINT", ...). */
const char *top_col_name(enum top_col c);
/* Column for a name, case-insensitive ("state", "elapsed"), or -1. */
int top_col_parse(const char *name);

struct top_row {
	struct run run;
	unsigned char match;    /* passes the current filter */
	unsigned char marked;   /* selected with space */
	unsigned char dirty;    /* changed since the view was last updated */
};

struct top_model {
	struct store *st;
	char *dir, *name, *backend;
	int nparams;
	char **params;          /* parameter names, plan order */
	double budget;          /* core hours, < 0 when unset */
	char *order;            /* run order ("interleaved", ...), or NULL for an old store */
	struct adaptive_spec adaptive;  /* target 0: fixed repetitions */
	int converging;         /* adaptive: points still converging; -1 when fixed or unknown */
	struct top_row *rows;
	size_t nrows, rows_alloc;
	long long last_seq;     /* the change counter read up to (while loading: taken before the first page) */
	/* reading the store a page at a time (top_model_open_paged) */
	int loading;            /* pages still to read */
	int load_page;          /* runs in the next page */
	long long load_after;   /* the last run id read */
	long long load_total;   /* runs in the store when opened */
	struct top_stats stats;
	size_t *view, *view_tmp;
	size_t nview;
	size_t *dirty;          /* rows changed by the last refresh */
	size_t ndirty, dirty_alloc;
	int sort_col, sort_desc;
	struct top_filter filter;
	size_t cursor, scroll;  /* view positions */
	long long nmarked;
	long long changed;      /* rows changed by the last refresh */
	double now;             /* time of the last refresh */
};

/* Open the campaign in dir read-only (checked, as store_open does) and load every run. */
int top_model_open(struct top_model *m, const char *dir, double now, struct perr *err);
/*
 * Open it for a screen that must come at once whatever the store's size:
 * unchecked (the caller checks it beside: store_task_start, store_check_task) and with only
 * the first TOP_FIRST_PAGE runs read; while m->loading, each refresh reads
 * the next page, twice the one before up to TOP_PAGE_MAX.
 */
#define TOP_FIRST_PAGE 16384
#define TOP_PAGE_MAX 262144
int top_model_open_paged(struct top_model *m, const char *dir, double now, struct perr *err);
void top_model_release(struct top_model *m);

/*
 * Load the runs changed since the last refresh and rebuild the view when
 * something changed (or the sort depends on the clock).  Returns the number
 * of runs changed, or -1.
 */
long long top_model_refresh(struct top_model *m, double now, struct perr *err);

/*
 * Filter with a POSIX extended regex (case-insensitive, matched against a
 * row's text as the table shows it) or with conditions like `p=4`,
 * `state=failed n>=1000 policy!=spread`: space- or comma-separated
 * NAME OP VALUE with OP one of = != < <= > >=, NAME a parameter or one of
 * id, point, rep, state, job, attempts, exit, nodes, rpn, ranks, policy,
 * elapsed.  Text that is not all conditions is a regex.  NULL or "" clears
 * the filter.  On error the old filter stays.
 */
int top_model_set_filter(struct top_model *m, const char *text, struct perr *err);
/* Sort by a column, ascending or descending; ties are broken by run id. */
void top_model_set_sort(struct top_model *m, int col, int desc);

/* The row at view position i (i < nview). */
static inline struct top_row *top_model_at(const struct top_model *m, size_t i)
{
	return &m->rows[m->view[i]];
}
/* The row under the cursor, or NULL when the view is empty. */
struct top_row *top_model_current(const struct top_model *m);
/* Find a run by id, or NULL. */
struct top_row *top_model_find(const struct top_model *m, long long id);

/* Move the cursor by delta rows (clamped) and keep it inside a window of
   height rows by adjusting scroll. */
void top_model_move(struct top_model *m, long long delta, int height);
/* Place the cursor on a run id if it is in the view; returns 0 or -1. */
int top_model_goto(struct top_model *m, long long id, int height);

/* Mark or unmark runs. */
void top_model_mark(struct top_model *m, struct top_row *r, int on);
void top_model_mark_view(struct top_model *m, int on);
/* Ids of the marked runs, or of the cursor run when none is marked; the
   caller frees *ids.  Returns the count. */
size_t top_model_selection(const struct top_model *m, long long **ids);

/* The text of a cell, as the table shows it. */
void top_model_cell(const struct top_model *m, const struct top_row *r, enum top_col c,
		    char *buf, size_t n);
/* Characters of a job id as the JOB column shows it (1 for "-" when there is none). */
int top_job_text_len(const char *backend_id);
/* "p=4 n=1000": a run's parameter values. */
void top_model_point_text(const struct top_model *m, const struct run *r, char *buf, size_t n);
/* Seconds a run has taken so far, or -1 when it has not started. */
double top_run_elapsed(const struct run *r, double now);

/* "1:02:03", "12:03", "45s", "2.5s"; "-" when negative. */
void top_format_duration(double sec, char *buf, size_t n);

#endif
