/* The header view: campaign, progress bar, core-hours bar, elapsed and ETA; the flags line. */
#include "tui/app.h"
#include <stdio.h>
#include <string.h>

static int bar_width(int w)
{
	int bw = w >= 110 ? 50 : w - 56;
	return bw < 10 ? 10 : bw;
}

static void fmt_ch(double v, char *buf, size_t n)
{
	if (v == 0)
		snprintf(buf, n, "0");
	else if (v < 0.01)
		snprintf(buf, n, "%.4f", v);
	else if (v < 10)
		snprintf(buf, n, "%.2f", v);
	else if (v < 1000)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.0f", v);
}

/* Draw "[segments]" and return the column after it. */
static int draw_bar(struct screen *s, int y, int x, int bw, const double *parts, const char *chars,
		    const int *attrs, int nparts, double total)
{
	int cells[8];
	top_bar_split(parts, nparts, total, bw, cells);
	screen_put(s, y, x, "[", 0);
	int cx = x + 1;
	for (int i = 0; i < nparts; i++) {
		screen_fill(s, y, cx, cells[i], chars[i], attrs[i]);
		cx += cells[i];
	}
	screen_fill(s, y, cx, x + 1 + bw - cx, ' ', 0);
	screen_put(s, y, x + 1 + bw, "]", 0);
	return x + 2 + bw;
}

/* Line 1: campaign and times. */
static void draw_title(struct screen *s, const struct top_app *a, const struct top_progress *p, int y)
{
	const struct top_model *m = top_app_model(a);
	char t1[32], t2[32], line[512];
	int x = screen_put(s, y, 0, "perfsweep top  ", SA_BOLD);
	x += screen_printf(s, y, x, SA_BOLD | SA_COLOR(SC_CYAN), "%s", m->name);
	x += screen_printf(s, y, x, 0, " (%s)", m->backend);
	if (a->nmodels > 1)
		x += screen_printf(s, y, x, 0, "  [%d/%d]", a->cur + 1, a->nmodels);
	if (m->loading)
		snprintf(t1, sizeof(t1), "?");
	else
		top_format_duration(top_model_elapsed(m), t1, sizeof(t1));
	double eta = top_model_eta(m);
	if (m->loading)
		snprintf(t2, sizeof(t2), "ETA ?");
	else if (p->pending + p->inflight == 0)
		snprintf(t2, sizeof(t2), "finished");
	else if (eta >= 0) {
		char d[24];
		top_format_duration(eta, d, sizeof(d));
		snprintf(t2, sizeof(t2), "ETA %s", d);
	} else
		snprintf(t2, sizeof(t2), p->inflight ? "ETA ?" : "ETA - (idle)");
	snprintf(line, sizeof(line), "elapsed %s  %s", t1, t2);
	int len = (int)strlen(line);
	screen_put(s, y, s->w - len > x + 1 ? s->w - len : x + 1, line, 0);
}

/* Line 2: runs progress. */
static void draw_runs(struct screen *s, const struct top_model *m, const struct top_progress *p, int y,
		      int bw)
{
	char line[512];
	double parts[5] = { (double)p->done, (double)p->failed, (double)p->cancelled,
			    (double)p->inflight, (double)p->pending };
	const char chars[5] = { '#', '!', 'x', '>', '.' };
	const int attrs[5] = { SA_COLOR(SC_GREEN), SA_COLOR(SC_RED) | SA_BOLD,
			       SA_COLOR(SC_MAGENTA), SA_COLOR(SC_YELLOW) | SA_BOLD, SA_DIM };
	int x = screen_put(s, y, 0, "runs   ", SA_BOLD);
	if (m->loading) {
		/* the counts of a part would read as the campaign's */
		long long total = m->load_total > (long long)m->nrows ? m->load_total : (long long)m->nrows;
		screen_printf(s, y, x, SA_BOLD, "reading the store: %zu of %lld runs (%.0f%%)", m->nrows, total,
			      total ? 100.0 * (double)m->nrows / (double)total : 100.0);
		return;
	}
	x = draw_bar(s, y, x, bw, parts, chars, attrs, 5, (double)p->planned);
	snprintf(line, sizeof(line), " %3.0f%% %lld/%lld done %lld run %lld pend",
		 p->fraction * 100, p->done, p->planned, p->inflight, p->pending);
	x += screen_put(s, y, x, line, 0);
	if (p->failed)
		x += screen_printf(s, y, x, SA_COLOR(SC_RED) | SA_BOLD, " %lld fail", p->failed);
	if (p->cancelled)
		x += screen_printf(s, y, x, 0, " %lld canc", p->cancelled);
	if (p->retired)
		x += screen_printf(s, y, x, SA_DIM, " %lld retired", p->retired);
	if (m->order && strcmp(m->order, "grouped") && p->pass)
		x += screen_printf(s, y, x, 0, " pass %d/%d", p->pass, p->passes);
	if (m->converging > 0)
		screen_printf(s, y, x, SA_COLOR(SC_YELLOW), " %d converging", m->converging);
}

/* Line 3: core hours. */
static void draw_core_hours(struct screen *s, const struct top_budget *b, int y, int bw)
{
	double used = b->spent + b->committed + b->pending;
	double scale = b->budget > used ? b->budget : used;
	double parts[3] = { b->spent, b->committed, b->pending };
	const char chars[3] = { '#', '=', '.' };
	const int attrs[3] = { SA_COLOR(SC_GREEN), SA_COLOR(SC_YELLOW) | SA_BOLD, SA_DIM };
	int x = screen_put(s, y, 0, "core-h ", SA_BOLD);
	int x0 = x;
	x = draw_bar(s, y, x, bw, parts, chars, attrs, 3, scale > 0 ? scale : 1);
	if (b->budget >= 0 && scale > 0 && b->budget < scale) {
		int at = (int)(b->budget / scale * bw + 0.5);
		if (at >= bw)
			at = bw - 1;
		screen_fill(s, y, x0 + 1 + at, 1, '|', SA_BOLD | SA_COLOR(SC_RED));
	}
	char sp[24], cm[24], bu[24], pl[24];
	fmt_ch(b->spent, sp, sizeof(sp));
	fmt_ch(b->committed, cm, sizeof(cm));
	fmt_ch(b->budget, bu, sizeof(bu));
	fmt_ch(b->planned, pl, sizeof(pl));
	if (b->budget >= 0)
		x += screen_printf(s, y, x, 0, " %s spent +%s run / %s budget", sp, cm, bu);
	else if (b->planned > 0)
		x += screen_printf(s, y, x, 0, " %s spent +%s run / %s plan, no budget", sp, cm, pl);
	else
		x += screen_printf(s, y, x, 0, " %s spent, no cost model, no budget", sp);
	if (b->over > 0) {
		fmt_ch(b->over, bu, sizeof(bu));
		screen_printf(s, y, x, SA_BOLD | SA_COLOR(SC_RED), " OVER +%s", bu);
	}
}

void view_header_draw(struct screen *s, const struct top_app *a, int y)
{
	const struct top_model *m = top_app_model(a);
	struct top_progress p;
	struct top_budget b;
	top_model_progress(m, &p);
	top_model_budget(m, &b);
	int bw = bar_width(s->w);
	draw_title(s, a, &p, y);
	draw_runs(s, m, &p, y + 1, bw);
	if (m->loading)
		screen_put(s, y + 2, screen_put(s, y + 2, 0, "core-h ", SA_BOLD), "once the runs are read", 0);
	else
		draw_core_hours(s, &b, y + 2, bw);
}

void view_flags_line(struct screen *s, const struct top_app *a, int y)
{
	const struct top_flags *f = &a->flags[a->cur];
	char buf[512];
	if (top_app_model(a)->loading)
		snprintf(buf, sizeof(buf), "once the runs are read");
	else if (a->checks && a->checks[a->cur])
		snprintf(buf, sizeof(buf), "once the store is checked (SQLite's quick_check reads it whole)");
	else
		top_flags_summary(f, buf, sizeof(buf));
	int x = screen_put(s, y, 0, "flags  ", SA_BOLD);
	screen_put(s, y, x, buf, f->nnoisy ? SA_BOLD | SA_COLOR(SC_YELLOW) : 0);
}

void view_flags_pane(struct screen *s, const struct top_app *a, int y, int height)
{
	const struct top_flags *f = &a->flags[a->cur];
	int row = y, end = y + height;
	screen_fill(s, row, 0, s->w, ' ', SA_REVERSE);
	screen_put(s, row++, 0, a->validate_title[0] ? a->validate_title : "validate",
		   SA_REVERSE | SA_BOLD);
	/* the live flags, then the validator's report, scrolled as one text */
	int line = 0, skip = a->pane_scroll;
	char buf[512];
#define PANE_LINE(attr, ...) do { if (line++ >= skip && row < end) \
		screen_printf(s, row++, 0, (attr), __VA_ARGS__); } while (0)
	top_flags_summary(f, buf, sizeof(buf));
	PANE_LINE(SA_BOLD, "live flags: %s", buf);
	for (int i = 0; i < f->ngrowth; i++)
		PANE_LINE(SA_COLOR(SC_RED), "  contention: %s grows %+.0f%% from %g to %g ranks per node "
			  "(p = %.2g)", f->growth[i].region, 100 * f->growth[i].growth, f->growth[i].xmin,
			  f->growth[i].xmax, f->growth[i].p_value);
	for (int i = 0; i < f->nlines && i < 5; i++)
		PANE_LINE(SA_COLOR(SC_YELLOW), "  noise: CoV %.3f over %d reps at %s", f->lines[i].cov,
			  f->lines[i].reps, f->lines[i].where);
	if (f->nnoisy > 5)
		PANE_LINE(SA_DIM, "  ... %d more noisy points", f->nnoisy - 5);
	PANE_LINE(SA_BOLD, "%s", "validator report:");
	for (int i = 0; i < a->validate.n; i++)
		PANE_LINE(0, "%s", a->validate.v[i]);
#undef PANE_LINE
}
