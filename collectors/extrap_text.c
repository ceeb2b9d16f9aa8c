/* Reader and writer for Extra-P's text input format. */
#include "collectors/extrap_text.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct experiment *e;
	const char *name;
	struct perr *err;
	int line;
	int callpath, metric;   /* current block, -1 when unset */
	int index;              /* DATA lines in the current block */
	int block_line;         /* line of the block's last DATA line */
	int seen_points, seen_data;
	double *tuple;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next whitespace-separated token of *s (NUL-terminating it), or NULL. */
static char *next_token(char **s)
{
	char *p = *s;
	while (*p && is_space(*p))
		p++;
	if (!*p) {
		*s = p;
		return NULL;
	}
	char *start = p;
	while (*p && !is_space(*p))
		p++;
	if (*p)
		*p++ = 0;
	*s = p;
	return start;
}

/* Parse one finite number (the whole token) in the C locale. */
static int parse_number(struct parser *ps, const char *tok, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(tok, &end);
	if (end == tok || *end)
		return perr_set(ps->err, "%s:%d: '%s' is not a number", ps->name, ps->line, tok);
	if (!isfinite(v))
		return perr_set(ps->err, "%s:%d: '%s' is not a finite number", ps->name, ps->line, tok);
	*out = v;
	return 0;
}

/* The rest of the line with runs of whitespace collapsed to one space, trimmed. */
static void collapse(char *s)
{
	char *w = s;
	int space = 0;
	while (*s && is_space(*s))
		s++;
	for (; *s; s++) {
		if (is_space(*s)) {
			space = 1;
			continue;
		}
		if (space && w != s)
			*w++ = ' ';
		space = 0;
		*w++ = *s;
	}
	*w = 0;
}

static int end_block(struct parser *ps)
{
	if (ps->index > 0 && ps->index < ps->e->npoints)
		return perr_set(ps->err, "%s:%d: fewer DATA lines (%d) than points (%d) for region '%s' metric '%s'",
				ps->name, ps->block_line, ps->index, ps->e->npoints,
				ps->e->callpaths[ps->callpath], ps->e->metrics[ps->metric]);
	ps->index = 0;
	return 0;
}

static int do_parameter(struct parser *ps, char *rest)
{
	char *tok;
	int n = 0;
	if (ps->seen_points)
		return perr_set(ps->err, "%s:%d: PARAMETER after POINTS", ps->name, ps->line);
	while ((tok = next_token(&rest))) {
		if (experiment_find_param(ps->e, tok) >= 0)
			return perr_set(ps->err, "%s:%d: duplicate parameter '%s'", ps->name, ps->line, tok);
		experiment_param(ps->e, tok);
		n++;
	}
	if (!n)
		return perr_set(ps->err, "%s:%d: PARAMETER line names no parameter", ps->name, ps->line);
	return 0;
}

static int add_point(struct parser *ps, const double *c)
{
	if (experiment_find_point(ps->e, c) >= 0)
		return perr_set(ps->err, "%s:%d: duplicate point", ps->name, ps->line);
	experiment_point(ps->e, c);
	return 0;
}

static int do_points(struct parser *ps, char *rest)
{
	int np = ps->e->nparams;
	if (np == 0)
		return perr_set(ps->err, "%s:%d: POINTS before any PARAMETER line", ps->name, ps->line);
	if (ps->seen_data)
		return perr_set(ps->err, "%s:%d: POINTS after DATA", ps->name, ps->line);
	ps->seen_points = 1;
	if (!ps->tuple)
		ps->tuple = xmalloc((size_t)np * sizeof(double));
	int count = 0;
	if (!strchr(rest, '(')) {
		char *tok;
		if (np != 1)
			return perr_set(ps->err, "%s:%d: POINTS needs parenthesised tuples for %d parameters",
					ps->name, ps->line, np);
		while ((tok = next_token(&rest))) {
			if (parse_number(ps, tok, &ps->tuple[0]) < 0 || add_point(ps, ps->tuple) < 0)
				return -1;
			count++;
		}
	} else {
		char *p = rest;
		for (;;) {
			while (*p && is_space(*p))
				p++;
			if (!*p)
				break;
			if (*p != '(')
				return perr_set(ps->err, "%s:%d: expected '(' in POINTS, got '%c'", ps->name, ps->line, *p);
			char *close = strchr(p, ')');
			if (!close)
				return perr_set(ps->err, "%s:%d: missing ')' in POINTS", ps->name, ps->line);
			*close = 0;
			char *in = p + 1, *tok;
			int w = 0;
			while ((tok = next_token(&in))) {
				if (strchr(tok, '('))
					return perr_set(ps->err, "%s:%d: nested '(' in POINTS", ps->name, ps->line);
				if (w < np && parse_number(ps, tok, &ps->tuple[w]) < 0)
					return -1;
				w++;
			}
			if (w != np)
				return perr_set(ps->err, "%s:%d: point %d has %d values, expected %d (one per parameter)",
						ps->name, ps->line, ps->e->npoints + 1, w, np);
			if (add_point(ps, ps->tuple) < 0)
				return -1;
			count++;
			p = close + 1;
		}
	}
	if (!count)
		return perr_set(ps->err, "%s:%d: POINTS line has no point", ps->name, ps->line);
	return 0;
}

static int do_data(struct parser *ps, char *rest)
{
	struct experiment *e = ps->e;
	if (e->nparams == 0)
		return perr_set(ps->err, "%s:%d: DATA before any PARAMETER line", ps->name, ps->line);
	if (e->npoints == 0)
		return perr_set(ps->err, "%s:%d: DATA before any POINTS line", ps->name, ps->line);
	if (ps->callpath < 0)
		return perr_set(ps->err, "%s:%d: DATA before any REGION line", ps->name, ps->line);
	if (ps->metric < 0)
		ps->metric = experiment_metric(e, EXTRAP_TEXT_DEFAULT_METRIC);
	if (ps->index >= e->npoints)
		return perr_set(ps->err, "%s:%d: more DATA lines than points (%d) for region '%s' metric '%s'",
				ps->name, ps->line, e->npoints, e->callpaths[ps->callpath], e->metrics[ps->metric]);
	const struct exp_values *have = experiment_values(e, ps->callpath, ps->metric, ps->index);
	if (have && have->n > 0)
		return perr_set(ps->err, "%s:%d: second DATA block for region '%s' metric '%s'",
				ps->name, ps->line, e->callpaths[ps->callpath], e->metrics[ps->metric]);
	char *tok;
	int n = 0;
	while ((tok = next_token(&rest))) {
		double v;
		if (parse_number(ps, tok, &v) < 0)
			return -1;
		experiment_add(e, ps->callpath, ps->metric, ps->index, v);
		n++;
	}
	if (!n)
		return perr_set(ps->err, "%s:%d: DATA line has no values", ps->name, ps->line);
	ps->index++;
	ps->block_line = ps->line;
	ps->seen_data = 1;
	return 0;
}

static int parse_line(struct parser *ps, char *s)
{
	while (*s && is_space(*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	char *field = next_token(&s);
	if (!strcmp(field, "PARAMETER"))
		return do_parameter(ps, s);
	if (!strcmp(field, "POINTS"))
		return do_points(ps, s);
	if (!strcmp(field, "DATA"))
		return do_data(ps, s);
	if (!strcmp(field, "REGION") || !strcmp(field, "METRIC")) {
		collapse(s);
		if (!*s)
			return perr_set(ps->err, "%s:%d: %s line has no name", ps->name, ps->line, field);
		if (end_block(ps) < 0)
			return -1;
		if (field[0] == 'R')
			ps->callpath = experiment_callpath(ps->e, s);
		else
			ps->metric = experiment_metric(ps->e, s);
		return 0;
	}
	return perr_set(ps->err, "%s:%d: unknown field '%s'", ps->name, ps->line, field);
}

int extrap_text_parse(struct experiment *e, const char *text, size_t len, const char *name,
		      struct perr *err)
{
	struct parser ps = { .e = e, .name = name, .err = err, .callpath = -1, .metric = -1 };
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char *buf = xmalloc(len + 1);
	int ret = 0;
	memcpy(buf, text, len);
	buf[len] = 0;
	if (memchr(buf, 0, len)) {
		ret = perr_set(err, "%s: not a text file (contains NUL bytes)", name);
		goto done;
	}
	for (char *s = buf; s && ret == 0; ) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = 0;
		ps.line++;
		ret = parse_line(&ps, s);
		s = nl ? nl + 1 : NULL;
	}
	if (ret == 0)
		ret = end_block(&ps);
	if (ret == 0 && e->nparams == 0)
		ret = perr_set(err, "%s: no PARAMETER line", name);
	else if (ret == 0 && e->npoints == 0)
		ret = perr_set(err, "%s: no POINTS line", name);
	else if (ret == 0 && !ps.seen_data)
		ret = perr_set(err, "%s: no DATA lines", name);
done:
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	free(ps.tuple);
	free(buf);
	return ret;
}

int extrap_text_read(struct experiment *e, const char *path, struct perr *err)
{
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	if (fs_read_file(&sb, path, FS_READ_LIMIT_DATA, &why) < 0) {
		int ret = perr_set(err, "cannot read '%s': %s", path, why);
		strbuf_release(&sb);
		return ret;
	}
	int ret = extrap_text_parse(e, sb.buf, sb.len, path, err);
	strbuf_release(&sb);
	return ret;
}

static int bad_name(const char *s)
{
	if (!*s || is_space(s[0]) || is_space(s[strlen(s) - 1]))
		return 1;
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			return 1;
	return 0;
}

static int write_series(FILE *f, const struct experiment *e, const struct exp_series *s, struct perr *err)
{
	for (int p = 0; p < e->npoints; p++)
		if (s->at[p].n <= 0)
			return perr_set(err, "region '%s' metric '%s' has no values at point %d; the text format needs every point",
					e->callpaths[s->callpath], e->metrics[s->metric], p + 1);
	if (bad_name(e->callpaths[s->callpath]) || bad_name(e->metrics[s->metric]))
		return perr_set(err, "region '%s' or metric '%s' cannot be written in the text format",
				e->callpaths[s->callpath], e->metrics[s->metric]);
	fprintf(f, "\nREGION %s\nMETRIC %s\n", e->callpaths[s->callpath], e->metrics[s->metric]);
	for (int p = 0; p < e->npoints; p++) {
		fputs("DATA", f);
		for (int i = 0; i < s->at[p].n; i++)
			fprintf(f, " %.17g", s->at[p].v[i]);
		fputc('\n', f);
	}
	return 0;
}

int extrap_text_write(FILE *f, const struct experiment *e, int metric, struct perr *err)
{
	if (e->nparams == 0 || e->npoints == 0)
		return perr_set(err, "experiment has no parameters or points");
	if (metric >= e->nmetrics)
		return perr_set(err, "no metric %d", metric);
	for (int k = 0; k < e->nparams; k++)
		if (bad_name(e->params[k]) || strpbrk(e->params[k], " \t()#"))
			return perr_set(err, "parameter '%s' cannot be written in the text format", e->params[k]);
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	int ret = 0;
	fputs("PARAMETER", f);
	for (int k = 0; k < e->nparams; k++)
		fprintf(f, " %s", e->params[k]);
	fputc('\n', f);
	for (int p = 0; p < e->npoints; p++) {
		fputs("POINTS (", f);
		for (int k = 0; k < e->nparams; k++)
			fprintf(f, " %.17g", experiment_coord(e, p, k));
		fputs(" )\n", f);
	}
	/*
	 * Metric-major order: Extra-P's reader (4.x) attributes the data after a
	 * METRIC line naming an already seen metric to the last new one, so
	 * every metric's blocks are written together.
	 */
	for (int m = 0; m < e->nmetrics && ret == 0; m++)
		for (int cp = 0; cp < e->ncallpaths && ret == 0; cp++) {
			if (metric >= 0 && m != metric)
				continue;
			const struct exp_series *s = experiment_series(e, cp, m);
			if (s)
				ret = write_series(f, e, s, err);
		}
	if (ret == 0 && ferror(f))
		ret = perr_set(err, "write error: %s", strerror(errno));
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return ret;
}
