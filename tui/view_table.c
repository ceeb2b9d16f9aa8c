/* The runs table view: column headers and only the visible rows (virtual scrolling). */
#include "tui/app.h"
#include <stdio.h>
#include <string.h>

static int state_attr(enum run_state st)
{
	switch (st) {
	case RUN_DONE: return SA_COLOR(SC_GREEN);
	case RUN_RUNNING: return SA_COLOR(SC_YELLOW) | SA_BOLD;
	case RUN_SUBMITTED: return SA_COLOR(SC_CYAN);
	case RUN_FAILED: return SA_COLOR(SC_RED) | SA_BOLD;
	case RUN_CANCELLED: return SA_COLOR(SC_MAGENTA);
	default: return SA_DIM;
	}
}

static int digits(long long v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Column widths for a screen width; POINT takes what the others leave. */
static void column_widths(const struct top_model *m, int w, int *cw)
{
	long long maxid = m->nrows ? m->rows[m->nrows - 1].run.id : 1;
	int job = m->stats.job_width;
	cw[TOP_COL_ID] = digits(maxid) > 2 ? digits(maxid) : 2;
	cw[TOP_COL_PLACEMENT] = 12;     /* "1x2 explicit" */
	cw[TOP_COL_REP] = 3;
	cw[TOP_COL_STATE] = 9;
	cw[TOP_COL_JOB] = job > 10 ? 10 : job;
	cw[TOP_COL_ATTEMPTS] = 3;
	cw[TOP_COL_ELAPSED] = 7;
	cw[TOP_COL_EXIT] = 4;
	/* room for the name and the sort marker (^ or v) */
	for (int c = 0; c < TOP_NCOLS; c++) {
		int need = (int)strlen(top_col_name((enum top_col)c)) + 1;
		if (c != TOP_COL_POINT && cw[c] < need)
			cw[c] = need;
	}
	int fixed = 1;  /* the mark column */
	for (int c = 0; c < TOP_NCOLS; c++)
		if (c != TOP_COL_POINT)
			fixed += cw[c] + 1;
	int rest = w - fixed - 1;
	/* a wide screen gives placement and job more room first */
	if (rest > 40) {
		cw[TOP_COL_PLACEMENT] = 14;
		rest -= 2;
	}
	cw[TOP_COL_POINT] = rest > 6 ? rest : 6;
}

static int right_aligned(int c)
{
	return c == TOP_COL_ID || c == TOP_COL_REP || c == TOP_COL_ATTEMPTS ||
	       c == TOP_COL_ELAPSED || c == TOP_COL_EXIT;
}

static void put_cell(struct screen *s, int y, int x, int w, const char *text, int right, int attr)
{
	int len = (int)strlen(text);
	if (right && len < w)
		x += w - len;
	screen_putn(s, y, x, text, w, attr);
}

void view_table_draw(struct screen *s, const struct top_app *a, int y, int height)
{
	struct top_model *m = top_app_model(a);
	int cw[TOP_NCOLS];
	char buf[512];
	column_widths(m, s->w, cw);

	/* header */
	screen_fill(s, y, 0, s->w, ' ', SA_REVERSE);
	int x = 1;
	for (int c = 0; c < TOP_NCOLS; c++) {
		const char *name = top_col_name((enum top_col)c);
		int attr = SA_REVERSE | (c == m->sort_col ? SA_BOLD | SA_COLOR(SC_CYAN) : 0);
		if (c == m->sort_col)
			snprintf(buf, sizeof(buf), "%s%s", name, m->sort_desc ? "v" : "^");
		else
			snprintf(buf, sizeof(buf), "%s", name);
		put_cell(s, y, x, cw[c], buf, right_aligned(c), attr);
		x += cw[c] + 1;
	}

	/* the visible window of the view, and nothing else */
	top_model_move(m, 0, height);
	for (int i = 0; i < height; i++) {
		size_t vi = m->scroll + (size_t)i;
		int row = y + 1 + i;
		if (vi >= m->nview) {
			if (i == 0 && m->nview == 0)
				screen_put(s, row, 1, m->filter.text ? "no run matches the filter"
								      : "no runs", SA_DIM);
			continue;
		}
		const struct top_row *r = top_model_at(m, vi);
		int sel = vi == m->cursor;
		int base = sel ? SA_REVERSE | SA_BOLD : 0;
		if (sel)
			screen_fill(s, row, 0, s->w, ' ', base);
		screen_put(s, row, 0, r->marked ? "*" : " ", base | SA_BOLD | SA_COLOR(SC_CYAN));
		x = 1;
		for (int c = 0; c < TOP_NCOLS; c++) {
			top_model_cell(m, r, (enum top_col)c, buf, sizeof(buf));
			int attr = base;
			if (c == TOP_COL_STATE && !sel)
				attr = state_attr(r->run.state);
			else if (c == TOP_COL_EXIT && !sel && r->run.exit_status > 0)
				attr = SA_COLOR(SC_RED);
			put_cell(s, row, x, cw[c], buf, right_aligned(c), attr);
			x += cw[c] + 1;
		}
	}
}
