/* The model of `perfsweep top`: runs, filter, sort, cursor and header arithmetic. */
#include "tui/model.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
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

/* Fields a condition may name besides the parameters. */
enum top_field {
	F_ID, F_POINT, F_REP, F_STATE, F_JOB, F_ATTEMPTS, F_EXIT, F_NODES, F_RPN, F_RANKS,
	F_POLICY, F_ELAPSED, F_NFIELDS
};
static const char *const field_names[F_NFIELDS] = {
	"id", "point", "rep", "state", "job", "attempts", "exit", "nodes", "rpn", "ranks",
	"policy", "elapsed",
};

enum top_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

static int field_is_string(int f)
{
	return f == F_STATE || f == F_JOB || f == F_POLICY;
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

static void format_value(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%.6g", v);
}

static void format_point(const struct top_model *m, const struct run *r, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int k = 0; k < m->nparams && off + 1 < n; k++) {
		char v[32];
		format_value(r->values ? r->values[k] : NAN, v, sizeof(v));
		int w = snprintf(buf + off, n - off, "%s%s=%s", k ? " " : "", m->params[k], v);
		if (w < 0)
			break;
		off += (size_t)w;
	}
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
	case TOP_COL_JOB: {
		/* a local run's id is "PGID:STARTTIME": the process group is what a user knows */
		const char *b = r->backend_id;
		size_t len = b ? strspn(b, "0123456789") : 0;
		if (b && len && b[len] == ':' && b[len + 1] && strspn(b + len + 1, "0123456789") ==
		    strlen(b + len + 1))
			snprintf(buf, n, "%.*s", (int)len, b);
		else
			snprintf(buf, n, "%s", b ? b : "-");
		break;
	}
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

/* ---- filter ---- */

static void filter_release(struct top_filter *f)
{
	if (f->text && f->is_regex)
		regfree(&f->re);
	for (int i = 0; i < f->nconds; i++)
		free(f->conds[i].str);
	free(f->conds);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

static int find_field(const struct top_model *m, const char *name)
{
	for (int k = 0; k < m->nparams; k++)
		if (!strcmp(m->params[k], name))
			return k;
	for (int f = 0; f < F_NFIELDS; f++)
		if (!strcasecmp(field_names[f], name))
			return -1 - f;
	if (!strcasecmp(name, "repetition"))
		return -1 - F_REP;
	if (!strcasecmp(name, "ranks_per_node"))
		return -1 - F_RPN;
	return -1 - F_NFIELDS;
}

/*
 * Split one token "NAME OP VALUE".  Returns 0 when it has that shape (the
 * parts are copied out), 1 when it does not (so the text is a regex).
 */
static int split_cond(const char *tok, char **name, int *op, char **value)
{
	const char *p = tok;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 1;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-')
		p++;
	const char *name_end = p;
	if (!strncmp(p, "==", 2)) { *op = OP_EQ; p += 2; }
	else if (!strncmp(p, "!=", 2)) { *op = OP_NE; p += 2; }
	else if (!strncmp(p, "<=", 2)) { *op = OP_LE; p += 2; }
	else if (!strncmp(p, ">=", 2)) { *op = OP_GE; p += 2; }
	else if (*p == '=') { *op = OP_EQ; p++; }
	else if (*p == '<') { *op = OP_LT; p++; }
	else if (*p == '>') { *op = OP_GT; p++; }
	else return 1;
	if (!*p || strpbrk(p, "=<>!*+?()[]{}|^$\\"))
		return 1;
	*name = xstrndup(tok, (size_t)(name_end - tok));
	*value = xstrdup(p);
	return 0;
}

static int parse_conds(const struct top_model *m, const char *text, struct top_filter *f,
		       struct perr *err)
{
	char *copy = xstrdup(text), *save = NULL;
	size_t alloc = 0;
	int ret = 1;
	for (char *tok = strtok_r(copy, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		char *name = NULL, *value = NULL;
		int op = 0;
		if (split_cond(tok, &name, &op, &value)) {
			ret = 1;
			goto done;
		}
		struct top_cond c = { .field = find_field(m, name), .op = op };
		int fld = c.field < 0 ? -1 - c.field : -1;
		if (fld == F_NFIELDS) {
			struct strbuf sb;
			strbuf_init(&sb);
			for (int k = 0; k < m->nparams; k++)
				strbuf_addf(&sb, "%s, ", m->params[k]);
			ret = perr_set(err, "unknown parameter or column '%s' (known: %sid, point, rep, "
				       "state, job, attempts, exit, nodes, rpn, ranks, policy, elapsed)",
				       name, sb.buf);
			strbuf_release(&sb);
		} else if (fld >= 0 && field_is_string(fld)) {
			if (op != OP_EQ && op != OP_NE)
				ret = perr_set(err, "'%s' only compares with = or !=", name);
			else if (fld == F_STATE && run_state_parse(value) < 0)
				ret = perr_set(err, "unknown state '%s' (pending, submitted, running, "
					       "done, failed, cancelled)", value);
			else {
				c.str = xstrdup(value);
				ret = 0;
			}
		} else {
			char *end;
			c.num = strtod(value, &end);
			if (end == value || *end || isnan(c.num))
				ret = perr_set(err, "'%s' is not a number (in '%s')", value, tok);
			else
				ret = 0;
		}
		free(name);
		free(value);
		if (ret) {
			free(c.str);
			goto done;
		}
		XGROW(f->conds, (size_t)f->nconds + 1, alloc);
		f->conds[f->nconds++] = c;
	}
	ret = f->nconds ? 0 : 1;
done:
	free(copy);
	if (ret) {
		for (int i = 0; i < f->nconds; i++)
			free(f->conds[i].str);
		free(f->conds);
		f->conds = NULL;
		f->nconds = 0;
	}
	return ret;
}

static int cmp_num(double a, int op, double b)
{
	int eq = fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
	switch (op) {
	case OP_EQ: return eq;
	case OP_NE: return !eq;
	case OP_LT: return a < b && !eq;
	case OP_LE: return a < b || eq;
	case OP_GT: return a > b && !eq;
	case OP_GE: return a > b || eq;
	}
	return 0;
}

static int cond_match(const struct top_model *m, const struct run *r, const struct top_cond *c)
{
	if (c->field >= 0)
		return r->values && cmp_num(r->values[c->field], c->op, c->num);
	int f = -1 - c->field;
	if (field_is_string(f)) {
		const char *s = f == F_STATE ? run_state_name(r->state)
			      : f == F_JOB ? r->backend_id : r->policy;
		int eq = s && !strcmp(s, c->str);
		if (f == F_JOB && s && !eq) {
			size_t len = strlen(c->str);
			eq = !strncmp(s, c->str, len) && s[len] == ':';
		}
		if (!s && (!strcmp(c->str, "-") || !*c->str))
			eq = 1;
		return c->op == OP_EQ ? eq : !eq;
	}
	double v;
	switch (f) {
	case F_ID: v = (double)r->id; break;
	case F_POINT: v = r->point; break;
	case F_REP: v = r->repetition; break;
	case F_ATTEMPTS: v = r->attempts; break;
	case F_EXIT: v = r->exit_status; break;
	case F_NODES: v = r->nodes; break;
	case F_RPN: v = r->ranks_per_node; break;
	case F_RANKS: v = r->ranks; break;
	case F_ELAPSED: v = top_run_elapsed(r, m->now); break;
	default: return 0;
	}
	return cmp_num(v, c->op, c->num);
}

/* The text a regex filter matches: every column but the clock-dependent one. */
static void row_text(const struct top_model *m, const struct top_row *row, char *buf, size_t n)
{
	size_t off = 0;
	for (int c = 0; c < TOP_NCOLS && off + 1 < n; c++) {
		if (c == TOP_COL_ELAPSED)
			continue;
		if (off)
			buf[off++] = ' ';
		top_model_cell(m, row, (enum top_col)c, buf + off, n - off);
		off += strlen(buf + off);
	}
	buf[off < n ? off : n - 1] = '\0';
}

static int row_match(const struct top_model *m, const struct top_row *row)
{
	const struct top_filter *f = &m->filter;
	if (!f->text)
		return 1;
	if (f->is_regex) {
		char buf[1024];
		row_text(m, row, buf, sizeof(buf));
		return regexec(&f->re, buf, 0, NULL, 0) == 0;
	}
	for (int i = 0; i < f->nconds; i++)
		if (!cond_match(m, &row->run, &f->conds[i]))
			return 0;
	return 1;
}

static int filter_uses_clock(const struct top_filter *f)
{
	for (int i = 0; i < f->nconds; i++)
		if (f->conds[i].field == -1 - F_ELAPSED)
			return 1;
	return 0;
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

static void view_alloc(struct top_model *m)
{
	size_t n = m->nrows ? m->nrows : 1;
	m->view = xrealloc(m->view, sizeof(*m->view) * n);
	m->view_tmp = xrealloc(m->view_tmp, sizeof(*m->view_tmp) * n);
}

/* Filter and sort every row: after a new filter or sort, or many changes. */
static void view_rebuild(struct top_model *m)
{
	long long keep = m->cursor < m->nview ? m->rows[m->view[m->cursor]].run.id : -1;
	long long line = (long long)m->cursor - (long long)m->scroll;
	view_alloc(m);
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
	long long keep = m->cursor < m->nview ? m->rows[m->view[m->cursor]].run.id : -1;
	long long line = (long long)m->cursor - (long long)m->scroll;
	view_alloc(m);
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
		m->rows[i].match = (unsigned char)row_match(m, &m->rows[i]);
}

int top_model_set_filter(struct top_model *m, const char *text, struct perr *err)
{
	struct top_filter f = { 0 };
	while (text && isspace((unsigned char)*text))
		text++;
	if (text && *text) {
		f.text = xstrdup(text);
		int r = parse_conds(m, text, &f, err);
		if (r < 0) {
			filter_release(&f);
			return -1;
		}
		if (r > 0) {
			int rc = regcomp(&f.re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
			if (rc) {
				char msg[256];
				regerror(rc, &f.re, msg, sizeof(msg));
				free(f.text);
				return perr_set(err, "bad regex '%s': %s", text, msg);
			}
			f.is_regex = 1;
		}
	}
	filter_release(&m->filter);
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

static double run_duration(const struct run *r)
{
	if (r->wall > 0)
		return r->wall;
	if (r->ended_at > 0 && r->started_at > 0 && r->ended_at >= r->started_at)
		return r->ended_at - r->started_at;
	return -1;
}

static int job_text_len(const char *b)
{
	if (!b)
		return 1;
	size_t len = strspn(b, "0123456789");
	if (len && b[len] == ':' && b[len + 1] && strspn(b + len + 1, "0123456789") == strlen(b + len + 1))
		return (int)len;
	return (int)strlen(b);
}

/* Expected seconds of one run of point p (stats with nsum > 0). */
static double point_estimate(const struct top_stats *s, int p)
{
	if (p >= 0 && p < s->npoints && s->point_n[p])
		return s->point_sum[p] / (double)s->point_n[p];
	if (p >= 0 && p < s->npoints && s->point_plan[p] > 0 && s->ratio > 0)
		return s->point_plan[p] * s->ratio;
	return s->sum / (double)s->nsum;
}

/* One pass over every run: the aggregates the header and the ETA need. */
static void stats_update(struct top_model *m)
{
	struct top_stats *s = &m->stats;
	int np = 0;
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].run.point + 1 > np)
			np = m->rows[i].run.point + 1;
	free(s->point_sum);
	free(s->point_n);
	free(s->point_plan);
	size_t *running = s->running;
	memset(s->n, 0, sizeof(s->n));
	memset(s->core_hours, 0, sizeof(s->core_hours));
	s->spent = s->first = s->last = s->sum = s->queued_work = 0;
	s->nsum = 0;
	s->npoints = np;
	s->point_sum = xcalloc((size_t)np + 1, sizeof(*s->point_sum));
	s->point_n = xcalloc((size_t)np + 1, sizeof(*s->point_n));
	s->point_plan = xcalloc((size_t)np + 1, sizeof(*s->point_plan));
	double measured = 0, planned = 0;
	long long *queued = xcalloc((size_t)np + 1, sizeof(*queued));
	s->running = xrealloc(running, sizeof(*s->running) * (m->nrows ? m->nrows : 1));
	s->nrunning = 0;
	s->job_width = 3;
	for (size_t i = 0; i < m->nrows; i++) {
		const struct run *r = &m->rows[i].run;
		int st = (unsigned)r->state < RUN_NSTATES ? (int)r->state : RUN_PENDING;
		s->n[st]++;
		s->core_hours[st] += r->core_hours;
		if (r->wall > 0)
			s->spent += r->wall * (r->ranks > 1 ? r->ranks : 1);
		double t = r->submitted_at > 0 ? r->submitted_at : r->started_at;
		if (t > 0 && (s->first == 0 || t < s->first))
			s->first = t;
		if (r->ended_at > s->last)
			s->last = r->ended_at;
		if (r->started_at > s->last)
			s->last = r->started_at;
		double plan_s = r->core_hours * 3600 / (r->ranks > 1 ? r->ranks : 1);
		if (r->point >= 0)
			s->point_plan[r->point] = plan_s;
		if (st == RUN_DONE) {
			double d = run_duration(r);
			if (d >= 0 && r->point >= 0) {
				s->point_sum[r->point] += d;
				s->point_n[r->point]++;
				s->sum += d;
				s->nsum++;
				if (plan_s > 0) {
					measured += d;
					planned += plan_s;
				}
			}
		} else if ((st == RUN_PENDING || st == RUN_SUBMITTED) && r->point >= 0) {
			queued[r->point]++;
		} else if (st == RUN_RUNNING) {
			s->running[s->nrunning++] = i;
		}
		if (r->backend_id) {
			int w = job_text_len(r->backend_id);
			if (w > s->job_width)
				s->job_width = w;
		}
	}
	s->spent /= 3600;
	s->ratio = planned > 0 ? measured / planned : 0;
	/* the parameter values of a point never change: format each point once */
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
	if (s->nsum)
		for (int p = 0; p < np; p++)
			if (queued[p])
				s->queued_work += (double)queued[p] * point_estimate(s, p);
	free(queued);
}

/* Take over the runs (moved, not copied); returns how many changed. */
static long long merge_runs(struct top_model *m, struct run *runs, int n, int *moved)
{
	int sorted = 1;
	*moved = 0;
	for (int i = 0; i < n; i++) {
		struct run *r = &runs[i];
		if (r->seq > m->last_seq)
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
		row->match = (unsigned char)row_match(m, row);
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

long long top_model_refresh(struct top_model *m, double now, struct perr *err)
{
	struct run *runs = NULL;
	int n = 0, moved;
	m->now = now;
	if (store_load_runs(m->st, m->last_seq, &runs, &n, err) < 0)
		return -1;
	long long changed = merge_runs(m, runs, n, &moved);
	runs_free(runs, n);
	m->changed = changed;
	if (changed)
		stats_update(m);
	if (m->sort_col == TOP_COL_ELAPSED)
		for (size_t i = 0; i < m->stats.nrunning; i++)
			mark_dirty(m, m->stats.running[i]);
	if (filter_uses_clock(&m->filter)) {
		rematch_all(m);
		view_rebuild(m);
	} else if (moved || m->ndirty > m->nrows / 8) {
		view_rebuild(m);
	} else if (m->ndirty) {
		view_update(m);
	}
	return changed;
}

int top_model_open(struct top_model *m, const char *dir, double now, struct perr *err)
{
	memset(m, 0, sizeof(*m));
	m->budget = -1;
	if (store_open(&m->st, dir, STORE_READONLY, err) < 0)
		return -1;
	m->dir = xstrdup(dir);
	m->name = store_get_meta(m->st, "name");
	if (!m->name)
		m->name = xstrdup(dir);
	m->backend = store_get_meta(m->st, "backend");
	if (!m->backend)
		m->backend = xstrdup("?");
	m->order = store_get_meta(m->st, "order");
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
	free(m->stats.point_sum);
	free(m->stats.point_n);
	free(m->stats.point_plan);
	free(m->stats.running);
	for (int p = 0; p < m->stats.npoint_text; p++)
		free(m->stats.point_text[p]);
	free(m->stats.point_text);
	for (int k = 0; k < m->nparams; k++)
		free(m->params[k]);
	free(m->params);
	free(m->dir);
	free(m->name);
	free(m->backend);
	filter_release(&m->filter);
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

/* ---- header arithmetic ---- */

void top_model_progress(const struct top_model *m, struct top_progress *p)
{
	const long long *n = m->stats.n;
	memset(p, 0, sizeof(*p));
	p->pending = n[RUN_PENDING];
	p->submitted = n[RUN_SUBMITTED];
	p->running = n[RUN_RUNNING];
	p->done = n[RUN_DONE];
	p->failed = n[RUN_FAILED];
	p->cancelled = n[RUN_CANCELLED];
	p->planned = (long long)m->nrows;
	p->inflight = p->submitted + p->running;
	p->fraction = p->planned ? (double)(p->done + p->failed + p->cancelled) / (double)p->planned
				 : 0;
	for (size_t i = 0; i < m->nrows; i++)
		run_pass_add(&m->rows[i].run, &p->pass, &p->passes);
}

void top_model_budget(const struct top_model *m, struct top_budget *b)
{
	const double *ch = m->stats.core_hours;
	memset(b, 0, sizeof(*b));
	b->committed = ch[RUN_SUBMITTED] + ch[RUN_RUNNING];
	b->pending = ch[RUN_PENDING];
	for (int s = 0; s < RUN_NSTATES; s++)
		b->planned += ch[s];
	b->spent = m->stats.spent;
	b->budget = m->budget;
	if (b->budget >= 0) {
		double need = b->spent + b->committed + b->pending - b->budget;
		if (need > 0)
			b->over = need;
	}
}

double top_model_elapsed(const struct top_model *m)
{
	const struct top_stats *s = &m->stats;
	if (s->first == 0)
		return 0;
	int inflight = s->n[RUN_SUBMITTED] + s->n[RUN_RUNNING] > 0;
	double end = inflight && m->now > s->last ? m->now : s->last;
	return end > s->first ? end - s->first : 0;
}

double top_model_eta(const struct top_model *m)
{
	const struct top_stats *s = &m->stats;
	long long inflight = s->n[RUN_SUBMITTED] + s->n[RUN_RUNNING];
	if (s->n[RUN_PENDING] + inflight == 0)
		return 0;
	if (!s->nsum || !inflight)
		return -1;
	double work = s->queued_work;
	for (size_t i = 0; i < s->nrunning; i++) {
		const struct run *r = &m->rows[s->running[i]].run;
		double est = point_estimate(s, r->point);
		double e = top_run_elapsed(r, m->now);
		work += e > 0 ? (est > e ? est - e : 0) : est;
	}
	return work / (double)inflight;
}

void top_bar_split(const double *parts, int nparts, double total, int width, int *cells)
{
	double sum = 0;
	for (int i = 0; i < nparts; i++) {
		cells[i] = 0;
		if (parts[i] > 0)
			sum += parts[i];
	}
	if (width <= 0 || sum <= 0)
		return;
	if (total < sum)
		total = sum;
	double *ideal = xmalloc(sizeof(double) * (size_t)nparts);
	int used = 0;
	for (int i = 0; i < nparts; i++) {
		ideal[i] = parts[i] > 0 ? parts[i] / total * width : 0;
		cells[i] = (int)floor(ideal[i]);
		used += cells[i];
	}
	int target = (int)floor(sum / total * width + 0.5);
	if (target > width)
		target = width;
	while (used < target) {
		int best = -1;
		double rem = -1;
		for (int i = 0; i < nparts; i++)
			if (parts[i] > 0 && ideal[i] - cells[i] > rem) {
				rem = ideal[i] - cells[i];
				best = i;
			}
		if (best < 0)
			break;
		cells[best]++;
		used++;
	}
	for (int i = 0; i < nparts; i++) {
		if (parts[i] <= 0 || cells[i] > 0)
			continue;
		if (used < width) {
			cells[i]++;
			used++;
			continue;
		}
		int big = -1;
		for (int j = 0; j < nparts; j++)
			if (cells[j] > 1 && (big < 0 || cells[j] > cells[big]))
				big = j;
		if (big >= 0) {
			cells[big]--;
			cells[i]++;
		}
	}
	free(ideal);
}
