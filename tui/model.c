/* The model of `perfsweep top`: runs, cells, view (filter and sort applied), cursor and marks. */
#include "tui/model.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const col_names[TOP_NCOLS] = {
	"ID", "POINT", "PLACEMENT", "REP", "STATE", "JOB", "ATT", "ELAPSED", "EXIT",
};

const char *top_col_name(enum top_col c)
{
	return (unsigned)c < TOP_NCOLS ? col_names[c] : "?";
}

int top_col_parse(const char *name)
{
	for (int c = 0; c < TOP_NCOLS; c++)
		if (!strcasecmp(name, col_names[c]))
			return c;
	if (!strcasecmp(name, "attempts"))
		return TOP_COL_ATTEMPTS;
	if (!strcasecmp(name, "rep") || !strcasecmp(name, "repetition"))
		return TOP_COL_REP;
	return -1;
}

double top_run_elapsed(const struct run *r, double now)
{
	if (r->started_at <= 0)
		return -1;
	if (r->ended_at > 0)
		return r->ended_at - r->started_at;
	if (r->state == RUN_RUNNING)
		return now > r->started_at ? now - r->started_at : 0;
	return r->wall >= 0 ? r->wall : -1;
}

void top_format_duration(double sec, char *buf, size_t n)
{
	if (sec < 0 || isnan(sec)) {
		snprintf(buf, n, "-");
		return;
	}
	long long s = (long long)(sec + 0.5);
	if (sec < 9.95)
		snprintf(buf, n, "%.1fs", sec);
	else if (s < 60)
		snprintf(buf, n, "%llds", s);
	else if (s < 3600)
		snprintf(buf, n, "%lld:%02lld", s / 60, s % 60);
	else if (s < 100LL * 3600)
		snprintf(buf, n, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, n, "%lldh", s / 3600);
}

static void format_point(const struct top_model *m, const struct run *r, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!r->values)
		return;
	struct strbuf sb;
	strbuf_init(&sb);
	point_text(&sb, (const char *const *)m->params, r->values, m->nparams, " ");
	snprintf(buf, n, "%s", sb.buf);
	strbuf_release(&sb);
}

void top_model_point_text(const struct top_model *m, const struct run *r, char *buf, size_t n)
{
	const struct top_stats *s = &m->stats;
	if (r->point >= 0 && r->point < s->npoint_text && s->point_text[r->point])
		snprintf(buf, n, "%s", s->point_text[r->point]);
	else
		format_point(m, r, buf, n);
}

static void placement_text(const struct run *r, char *buf, size_t n)
{
	char p[32];
	if (r->nodes > 0) {
		int rpn = r->ranks_per_node > 0 ? r->ranks_per_node
						: (r->ranks + r->nodes - 1) / r->nodes;
		snprintf(p, sizeof(p), "%dx%d", r->nodes, rpn);
	} else if (r->ranks_per_node > 0) {
		snprintf(p, sizeof(p), "?x%d", r->ranks_per_node);
	} else if (r->ranks > 0) {
		snprintf(p, sizeof(p), "%dr", r->ranks);
	} else {
		snprintf(p, sizeof(p), "-");
	}
	if (r->policy)
		snprintf(buf, n, "%s %s", p, r->policy);
	else
		snprintf(buf, n, "%s", p);
}

int top_job_text_len(const char *backend_id)
{
	/* a local run's id is "PGID:STARTTIME": the process group is what a user knows */
	const char *b = backend_id;
	if (!b)
		return 1;
	size_t len = strspn(b, "0123456789");
	if (len && b[len] == ':' && b[len + 1] && strspn(b + len + 1, "0123456789") == strlen(b + len + 1))
		return (int)len;
	return (int)strlen(b);
}

void top_model_cell(const struct top_model *m, const struct top_row *row, enum top_col c,
		    char *buf, size_t n)
{
	const struct run *r = &row->run;
	switch (c) {
	case TOP_COL_ID: snprintf(buf, n, "%lld", r->id); break;
	case TOP_COL_POINT: top_model_point_text(m, r, buf, n); break;
	case TOP_COL_PLACEMENT: placement_text(r, buf, n); break;
	case TOP_COL_REP: snprintf(buf, n, "%d", r->repetition); break;
	case TOP_COL_STATE: snprintf(buf, n, "%s", run_state_name(r->state)); break;
	case TOP_COL_JOB:
		snprintf(buf, n, "%.*s", top_job_text_len(r->backend_id), r->backend_id ? r->backend_id : "-");
		break;
	case TOP_COL_ATTEMPTS: snprintf(buf, n, "%d", r->attempts); break;
	case TOP_COL_ELAPSED: top_format_duration(top_run_elapsed(r, m->now), buf, n); break;
	case TOP_COL_EXIT:
		if (r->exit_status >= 0)
			snprintf(buf, n, "%d", r->exit_status);
		else
			snprintf(buf, n, "-");
		break;
	default: snprintf(buf, n, "?"); break;
	}
}

/* ---- view ---- */

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_dbl(double a, double b)
{
	return (a > b) - (a < b);
}

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct top_model *m = ctx;
	const struct run *a = &m->rows[*(const size_t *)pa].run;
	const struct run *b = &m->rows[*(const size_t *)pb].run;
	int c = 0;
	switch (m->sort_col) {
	case TOP_COL_POINT:
		for (int k = 0; k < m->nparams && !c; k++)
			c = cmp_dbl(a->values[k], b->values[k]);
		break;
	case TOP_COL_PLACEMENT:
		c = a->nodes - b->nodes;
		if (!c)
			c = a->ranks_per_node - b->ranks_per_node;
		if (!c)
			c = a->ranks - b->ranks;
		if (!c)
			c = cmp_str(a->policy, b->policy);
		break;
	case TOP_COL_REP: c = a->repetition - b->repetition; break;
	case TOP_COL_STATE: c = (int)a->state - (int)b->state; break;
	case TOP_COL_JOB: {
		/* numeric ids (pids, job ids) sort as numbers */
		double x = a->backend_id ? atof(a->backend_id) : -1;
		double y = b->backend_id ? atof(b->backend_id) : -1;
		c = cmp_dbl(x, y);
		if (!c)
			c = cmp_str(a->backend_id, b->backend_id);
		break;
	}
	case TOP_COL_ATTEMPTS: c = a->attempts - b->attempts; break;
	case TOP_COL_ELAPSED:
		c = cmp_dbl(top_run_elapsed(a, m->now), top_run_elapsed(b, m->now));
		break;
	case TOP_COL_EXIT: c = a->exit_status - b->exit_status; break;
	default: break;
	}
	if (!c)
		c = (a->id > b->id) - (a->id < b->id);
	else if (m->sort_desc)
		c = -c;
	return m->sort_desc && m->sort_col == TOP_COL_ID ? -c : c;
}

/* Put the cursor back on the run it was on, on the same screen line when possible. */
static void keep_cursor(struct top_model *m, long long keep, long long line)
{
	size_t pos = 0;
	if (keep >= 0)
		for (size_t i = 0; i < m->nview; i++)
			if (m->rows[m->view[i]].run.id == keep) {
				pos = i;
				break;
			}
	if (m->cursor != pos) {
		m->cursor = pos;
		m->scroll = line >= 0 && (size_t)line <= pos ? pos - (size_t)line : pos;
	}
	if (m->nview == 0)
		m->cursor = m->scroll = 0;
}

static void clear_dirty(struct top_model *m)
{
	for (size_t i = 0; i < m->ndirty; i++)
		m->rows[m->dirty[i]].dirty = 0;
	m->ndirty = 0;
}

/* Room for every row in the view; *keep and *line: the cursor's run and screen line, for keep_cursor. */
static void view_alloc(struct top_model *m, long long *keep, long long *line)
{
	*keep = m->cursor < m->nview ? m->rows[m->view[m->cursor]].run.id : -1;
	*line = (long long)m->cursor - (long long)m->scroll;
	size_t n = m->nrows ? m->nrows : 1;
	m->view = xrealloc(m->view, sizeof(*m->view) * n);
	m->view_tmp = xrealloc(m->view_tmp, sizeof(*m->view_tmp) * n);
}

/* Filter and sort every row: after a new filter or sort, or many changes. */
static void view_rebuild(struct top_model *m)
{
	long long keep, line;
	view_alloc(m, &keep, &line);
	size_t n = 0;
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].match)
			m->view[n++] = i;
	m->nview = n;
	if (m->sort_col != TOP_COL_ID || m->sort_desc)
		qsort_r(m->view, n, sizeof(*m->view), row_cmp, m);
	/* every row, not the dirty list: rows may have moved since it was made */
	for (size_t i = 0; i < m->nrows; i++)
		m->rows[i].dirty = 0;
	m->ndirty = 0;
	keep_cursor(m, keep, line);
}

/*
 * Update the view for the dirty rows only: drop them from the sorted view,
 * sort the ones that still match, and merge them back in.  O(rows) with a
 * small constant instead of a full sort.
 */
static void view_update(struct top_model *m)
{
	long long keep, line;
	view_alloc(m, &keep, &line);
	size_t w = 0;
	for (size_t i = 0; i < m->nview; i++)
		if (!m->rows[m->view[i]].dirty)
			m->view[w++] = m->view[i];
	size_t k = 0;
	size_t *add = m->view_tmp;   /* borrowed until the merge */
	for (size_t i = 0; i < m->ndirty; i++)
		if (m->rows[m->dirty[i]].match)
			add[k++] = m->dirty[i];
	qsort_r(add, k, sizeof(*add), row_cmp, m);
	/* merge from the back into view, which has room for w + k */
	size_t i = w, j = k, o = w + k;
	while (j > 0) {
		if (i > 0 && row_cmp(&m->view[i - 1], &add[j - 1], m) > 0)
			m->view[--o] = m->view[--i];
		else
			m->view[--o] = add[--j];
	}
	m->nview = w + k;
	clear_dirty(m);
	keep_cursor(m, keep, line);
}

static void mark_dirty(struct top_model *m, size_t i)
{
	if (m->rows[i].dirty)
		return;
	m->rows[i].dirty = 1;
	XGROW(m->dirty, m->ndirty + 1, m->dirty_alloc);
	m->dirty[m->ndirty++] = i;
}

static void rematch_all(struct top_model *m)
{
	for (size_t i = 0; i < m->nrows; i++)
		m->rows[i].match = (unsigned char)top_filter_match(&m->filter, m, &m->rows[i]);
}

int top_model_set_filter(struct top_model *m, const char *text, struct perr *err)
{
	struct top_filter f = { 0 };
	while (text && isspace((unsigned char)*text))
		text++;
	if (text && *text && top_filter_compile(&f, m, text, err) < 0)
		return -1;
	top_filter_release(&m->filter);
	m->filter = f;
	rematch_all(m);
	view_rebuild(m);
	return 0;
}

void top_model_set_sort(struct top_model *m, int col, int desc)
{
	if (col < 0 || col >= TOP_NCOLS)
		col = TOP_COL_ID;
	m->sort_col = col;
	m->sort_desc = !!desc;
	view_rebuild(m);
}

/* ---- loading ---- */

static struct top_row *find_row(const struct top_model *m, long long id)
{
	size_t lo = 0, hi = m->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		long long x = m->rows[mid].run.id;
		if (x == id)
			return &m->rows[mid];
		if (x < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct top_row *top_model_find(const struct top_model *m, long long id)
{
	return find_row(m, id);
}

/* The aggregates, and the text of each point (a point's parameter values never change: once). */
static void stats_update(struct top_model *m)
{
	struct top_stats *s = &m->stats;
	top_stats_update(s, m->rows, m->nrows);
	int np = s->npoints;
	if (np > s->npoint_text) {
		s->point_text = xrealloc(s->point_text, sizeof(*s->point_text) * (size_t)np);
		memset(s->point_text + s->npoint_text, 0,
		       sizeof(*s->point_text) * (size_t)(np - s->npoint_text));
		s->npoint_text = np;
	}
	for (size_t i = 0; i < m->nrows; i++) {
		const struct run *r = &m->rows[i].run;
		if (r->point >= 0 && !s->point_text[r->point]) {
			char buf[512];
			format_point(m, r, buf, sizeof(buf));
			s->point_text[r->point] = xstrdup(buf);
		}
	}
}

/* Adaptive repetitions: how many points still converge (a read of the measurements). */
static void converging_update(struct top_model *m)
{
	struct adaptive_point *pts;
	int n;
	struct perr err;
	m->converging = -1;
	if (m->adaptive.target <= 0 || adaptive_points(m->st, &m->adaptive, &pts, &n, &err))
		return;
	m->converging = 0;
	for (int i = 0; i < n; i++)
		m->converging += pts[i].converging;
	adaptive_points_free(pts, n);
}

/* Take over the runs (moved, not copied); returns how many changed.
   advance: move last_seq up to the runs' (not for a page, load_page). */
static long long merge_runs(struct top_model *m, struct run *runs, int n, int advance, int *moved)
{
	int sorted = 1;
	*moved = 0;
	for (int i = 0; i < n; i++) {
		struct run *r = &runs[i];
		if (advance && r->seq > m->last_seq)
			m->last_seq = r->seq;
		struct top_row *row = find_row(m, r->id);
		if (row) {
			run_release(&row->run);
			row->run = *r;
		} else {
			if (m->nrows && m->rows[m->nrows - 1].run.id > r->id)
				sorted = 0;
			XGROW(m->rows, m->nrows + 1, m->rows_alloc);
			row = &m->rows[m->nrows++];
			memset(row, 0, sizeof(*row));
			row->run = *r;
		}
		row->match = (unsigned char)top_filter_match(&m->filter, m, row);
		mark_dirty(m, (size_t)(row - m->rows));
		memset(r, 0, sizeof(*r));
	}
	if (!sorted) {
		/* ids arrived out of order: rare; restore the order by id (indices move) */
		for (size_t i = 1; i < m->nrows; i++) {
			struct top_row t = m->rows[i];
			size_t j = i;
			while (j > 0 && m->rows[j - 1].run.id > t.run.id) {
				m->rows[j] = m->rows[j - 1];
				j--;
			}
			m->rows[j] = t;
		}
		*moved = 1;
	}
	return n;
}

/*
 * The next page of a store being read (m->loading), by id.  A page is read
 * as the store is now, so last_seq stays at the change counter model_open
 * took before the first page: once the last page is in, the next refresh
 * reads again every run changed meanwhile, those on pages read before the
 * change too.
 */
static int load_page(struct top_model *m, struct run **runs, int *n, struct perr *err)
{
	if (store_load_runs_after(m->st, m->load_after, m->load_page, runs, n, err) < 0)
		return -1;
	if (*n)
		m->load_after = (*runs)[*n - 1].id;
	if (*n < m->load_page)
		m->loading = 0;
	else if (m->load_page < TOP_PAGE_MAX)
		m->load_page *= 2;      /* pages that double: O(runs) in all, in a few reads */
	return 0;
}

long long top_model_refresh(struct top_model *m, double now, struct perr *err)
{
	struct run *runs = NULL;
	int n = 0, moved;
	m->now = now;
	int paged = m->loading;
	if (paged ? load_page(m, &runs, &n, err) < 0 : store_load_runs(m->st, m->last_seq, &runs, &n, err) < 0)
		return -1;
	long long changed = merge_runs(m, runs, n, !paged, &moved);
	runs_free(runs, n);
	m->changed = changed;
	if (changed) {
		stats_update(m);
		if (!m->loading)
			converging_update(m);   /* a read of the measurements: once, at the end */
	}
	if (m->sort_col == TOP_COL_ELAPSED)
		for (size_t i = 0; i < m->stats.nrunning; i++)
			mark_dirty(m, m->stats.running[i]);
	if (top_filter_uses_clock(&m->filter)) {
		rematch_all(m);
		view_rebuild(m);
	} else if (moved || m->ndirty > m->nrows / 8) {
		view_rebuild(m);
	} else if (m->ndirty) {
		view_update(m);
	}
	return changed;
}

static int model_open(struct top_model *m, const char *dir, double now, int flags, int first_page,
		      struct perr *err)
{
	memset(m, 0, sizeof(*m));
	m->budget = -1;
	if (store_open(&m->st, dir, STORE_READONLY | flags, err) < 0)
		return -1;
	m->last_seq = store_last_seq(m->st);    /* before the first page */
	m->load_total = store_nruns(m->st);
	m->load_page = first_page;
	m->loading = 1;
	m->dir = xstrdup(dir);
	m->name = store_get_meta(m->st, "name");
	if (!m->name)
		m->name = xstrdup(dir);
	m->backend = store_get_meta(m->st, "backend");
	if (!m->backend)
		m->backend = xstrdup("?");
	m->order = store_get_meta(m->st, "order");
	adaptive_spec_load(m->st, &m->adaptive);
	m->converging = -1;
	char *b = store_get_meta(m->st, "budget_core_hours");
	if (b) {
		char *end;
		double v = strtod(b, &end);
		if (end != b && v >= 0)
			m->budget = v;
		free(b);
	}
	m->nparams = store_nparams(m->st);
	m->params = xcalloc((size_t)(m->nparams ? m->nparams : 1), sizeof(*m->params));
	for (int k = 0; k < m->nparams; k++)
		m->params[k] = xstrdup(store_param_name(m->st, k));
	if (top_model_refresh(m, now, err) < 0) {
		top_model_release(m);
		return -1;
	}
	view_rebuild(m);
	return 0;
}

int top_model_open(struct top_model *m, const char *dir, double now, struct perr *err)
{
	return model_open(m, dir, now, 0, INT_MAX, err);
}

int top_model_open_paged(struct top_model *m, const char *dir, double now, struct perr *err)
{
	return model_open(m, dir, now, STORE_NOCHECK, TOP_FIRST_PAGE, err);
}

void top_model_release(struct top_model *m)
{
	if (m->st)
		store_close(m->st);
	for (size_t i = 0; i < m->nrows; i++)
		run_release(&m->rows[i].run);
	free(m->rows);
	free(m->order);
	free(m->view);
	free(m->view_tmp);
	free(m->dirty);
	top_stats_release(&m->stats);
	for (int k = 0; k < m->nparams; k++)
		free(m->params[k]);
	free(m->params);
	free(m->dir);
	free(m->name);
	free(m->backend);
	top_filter_release(&m->filter);
	memset(m, 0, sizeof(*m));
}

/* ---- cursor and marks ---- */

struct top_row *top_model_current(const struct top_model *m)
{
	return m->cursor < m->nview ? top_model_at(m, m->cursor) : NULL;
}

static void clamp_scroll(struct top_model *m, int height)
{
	size_t h = height > 0 ? (size_t)height : 1;
	if (m->cursor < m->scroll)
		m->scroll = m->cursor;
	if (m->cursor >= m->scroll + h)
		m->scroll = m->cursor - h + 1;
	size_t maxs = m->nview > h ? m->nview - h : 0;
	if (m->scroll > maxs)
		m->scroll = maxs;
}

void top_model_move(struct top_model *m, long long delta, int height)
{
	if (!m->nview) {
		m->cursor = m->scroll = 0;
		return;
	}
	long long c = (long long)m->cursor + delta;
	if (c < 0)
		c = 0;
	if (c >= (long long)m->nview)
		c = (long long)m->nview - 1;
	m->cursor = (size_t)c;
	clamp_scroll(m, height);
}

int top_model_goto(struct top_model *m, long long id, int height)
{
	for (size_t i = 0; i < m->nview; i++)
		if (top_model_at(m, i)->run.id == id) {
			m->cursor = i;
			clamp_scroll(m, height);
			return 0;
		}
	return -1;
}

void top_model_mark(struct top_model *m, struct top_row *r, int on)
{
	if (!r || !!r->marked == !!on)
		return;
	r->marked = (unsigned char)!!on;
	m->nmarked += on ? 1 : -1;
}

void top_model_mark_view(struct top_model *m, int on)
{
	if (!on) {
		for (size_t i = 0; i < m->nrows; i++)
			m->rows[i].marked = 0;
		m->nmarked = 0;
		return;
	}
	for (size_t i = 0; i < m->nview; i++)
		top_model_mark(m, top_model_at(m, i), 1);
}

size_t top_model_selection(const struct top_model *m, long long **ids)
{
	size_t n = 0;
	*ids = NULL;
	if (m->nmarked > 0) {
		*ids = xmalloc(sizeof(**ids) * (size_t)m->nmarked);
		for (size_t i = 0; i < m->nrows && n < (size_t)m->nmarked; i++)
			if (m->rows[i].marked)
				(*ids)[n++] = m->rows[i].run.id;
		return n;
	}
	const struct top_row *r = top_model_current(m);
	if (r) {
		*ids = xmalloc(sizeof(**ids));
		(*ids)[n++] = r->run.id;
	}
	return n;
}
