/* The filter language of `perfsweep top`: conditions on fields and parameters, or a regex. */
#include "tui/filter.h"
#include "tui/model.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

void top_filter_release(struct top_filter *f)
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
					       "done, failed, cancelled, retired)", value);
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

int top_filter_compile(struct top_filter *f, const struct top_model *m, const char *text,
		       struct perr *err)
{
	memset(f, 0, sizeof(*f));
	f->text = xstrdup(text);
	int r = parse_conds(m, text, f, err);
	if (r < 0) {
		top_filter_release(f);
		return -1;
	}
	if (r > 0) {
		int rc = regcomp(&f->re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (rc) {
			char msg[256];
			regerror(rc, &f->re, msg, sizeof(msg));
			free(f->text);
			f->text = NULL;
			return perr_set(err, "bad regex '%s': %s", text, msg);
		}
		f->is_regex = 1;
	}
	return 0;
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

int top_filter_match(const struct top_filter *f, const struct top_model *m, const struct top_row *row)
{
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

int top_filter_uses_clock(const struct top_filter *f)
{
	for (int i = 0; i < f->nconds; i++)
		if (f->conds[i].field == -1 - F_ELAPSED)
			return 1;
	return 0;
}
