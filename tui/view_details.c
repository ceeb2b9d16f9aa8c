/* The details pane: one run's fields, argv, binding per rank, history and output tails. */
#include "tui/app.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

static void clock_text(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (t <= 0 || !localtime_r(&tt, &tm)) {
		snprintf(buf, n, "-");
		return;
	}
	strftime(buf, n, "%H:%M:%S", &tm);
}

static int section(struct screen *s, int row, const char *title, int attr)
{
	screen_fill(s, row, 0, s->w, '-', SA_DIM);
	screen_printf(s, row, 2, SA_BOLD | attr, " %s ", title);
	return row + 1;
}

/* The state line: state, job, attempts, ranks, placement, elapsed, exit. */
static void draw_state(struct screen *s, const struct top_model *m, const struct run *r, int row)
{
	char buf[512], pl[64], el[32];
	struct top_row tmp = { .run = *r };
	top_model_cell(m, &tmp, TOP_COL_PLACEMENT, pl, sizeof(pl));
	top_model_cell(m, &tmp, TOP_COL_ELAPSED, el, sizeof(el));
	int x = screen_put(s, row, 0, "state ", 0);
	x += screen_put(s, row, x, run_state_name(r->state), SA_BOLD);
	snprintf(buf, sizeof(buf), "  job %s  attempts %d  ranks %d  placement %s  elapsed %s",
		 r->backend_id ? r->backend_id : "-", r->attempts, r->ranks, pl, el);
	x += screen_put(s, row, x, buf, 0);
	if (r->exit_status >= 0)
		screen_printf(s, row, x, r->exit_status ? SA_COLOR(SC_RED) : 0, "  exit %d", r->exit_status);
}

/* Binding per rank, at most 4 lines, what the ranks used, at most 4 more, then the history:
   the latest events that fit in 5 lines.  Returns the next row. */
static int draw_binding_history(struct screen *s, const struct top_details *d, int row, int end)
{
	char t[32];
	if (row < end) {
		int x = screen_put(s, row, 0, "binding: ", SA_BOLD);
		if (!d->bind.n)
			screen_put(s, row, x, "(no rank-<r>.json: not launched through perfsweep-bind)",
				   SA_DIM);
		row++;
		int show = d->bind.n <= 4 ? d->bind.n : 3;
		for (int i = 0; i < show && row < end; i++)
			screen_printf(s, row++, 2, 0, "%s", d->bind.v[i]);
		if (show < d->bind.n && row < end)
			screen_printf(s, row++, 2, SA_DIM, "... %d more ranks", d->bind.n - show);
	}
	if (row < end && (d->res.n || d->disturbed)) {
		int x = screen_put(s, row, 0, "resources: ", SA_BOLD);
		if (d->disturbed)
			screen_printf(s, row, x, SA_COLOR(SC_YELLOW), "disturbed, left out of the models: %s",
				      d->disturbed);
		row++;
		int show = d->res.n <= 4 ? d->res.n : 3;
		for (int i = 0; i < show && row < end; i++)
			screen_printf(s, row++, 2, 0, "%s", d->res.v[i]);
		if (show < d->res.n && row < end)
			screen_printf(s, row++, 2, SA_DIM, "... %d more records", d->res.n - show);
	}
	if (row < end)
		row = section(s, row, "history", 0);
	int first = d->nev > 5 ? d->nev - 5 : 0;
	for (int i = first; i < d->nev && row < end; i++) {
		clock_text(d->ev[i].t, t, sizeof(t));
		screen_printf(s, row++, 2, 0, "%s  %-9s %s", t, run_state_name(d->ev[i].state),
			      d->ev[i].detail ? d->ev[i].detail : "");
	}
	return row;
}

/* The output tails share what is left of the rows up to end. */
static void draw_tails(struct screen *s, const struct top_details *d, int row, int end)
{
	char buf[512];
	int left = end - row - 2;
	if (left < 0)
		left = 0;
	int nerr = d->err.n, nout = d->out.n;
	int eshow = nerr < left / 2 ? nerr : left / 2;
	if (nout < left - eshow)
		eshow = nerr < left - nout ? nerr : left - nout;
	int oshow = left - eshow;
	if (oshow > nout)
		oshow = nout;
	if (row < end) {
		snprintf(buf, sizeof(buf), "stdout%s (%d lines shown)", d->live ? ", following" : "",
			 oshow);
		row = section(s, row, buf, 0);
	}
	for (int i = nout - oshow; i < nout && row < end; i++)
		screen_put(s, row++, 0, d->out.v[i], 0);
	if (row < end) {
		snprintf(buf, sizeof(buf), "stderr (%d lines shown)", eshow);
		row = section(s, row, buf, 0);
	}
	for (int i = nerr - eshow; i < nerr && row < end; i++)
		screen_put(s, row++, 0, d->err.v[i], SA_COLOR(SC_RED));
}

void view_details_draw(struct screen *s, const struct top_app *a, int y, int height)
{
	const struct top_model *m = top_app_model(a);
	const struct top_details *d = &a->details;
	const struct run *r = &d->run;
	char pt[256];
	int row = y, end = y + height;
	if (!d->id) {
		screen_put(s, row, 0, "no run selected", SA_DIM);
		return;
	}
	top_model_point_text(m, r, pt, sizeof(pt));
	screen_fill(s, row, 0, s->w, ' ', SA_REVERSE);
	screen_printf(s, row++, 0, SA_REVERSE | SA_BOLD, "run %lld  %s  rep %d  (Esc: back)", r->id, pt,
		      r->repetition);
	draw_state(s, m, r, row++);
	if (r->reason && row < end)
		screen_printf(s, row++, 0, SA_COLOR(SC_RED), "reason: %s", r->reason);
	if (r->collect_error && row < end)
		screen_printf(s, row++, 0, SA_COLOR(SC_YELLOW), "collect: %s", r->collect_error);
	if (row < end) {
		int x = screen_put(s, row, 0, "argv: ", SA_BOLD);
		screen_put(s, row++, x, d->argv ? d->argv : "(not recorded)", d->argv ? 0 : SA_DIM);
	}
	row = draw_binding_history(s, d, row, end);
	draw_tails(s, d, row, end);
}
