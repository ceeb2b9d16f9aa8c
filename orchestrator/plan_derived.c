/* Derived parameters in a plan, and the model = false check (plan_derived.h). */
#include "orchestrator/plan_derived.h"
#include "campaign/config_get.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every parameter's name, swept then derived (borrowed). */
static char **all_names(const struct campaign_config *c)
{
	char **names = xcalloc((size_t)(c->nparams + c->nderived + 1), sizeof(char *));
	for (int k = 0; k < c->nparams; k++)
		names[k] = c->params[k].name;
	for (int d = 0; d < c->nderived; d++)
		names[c->nparams + d] = c->derived[d].name;
	return names;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Parameter k of pl gets the distinct values its points have, sorted. */
static void collect_values(struct plan *pl, int k)
{
	struct plan_param *p = &pl->params[k];
	p->values = xmalloc(sizeof(double) * (size_t)(pl->npoints + 1));
	for (int i = 0; i < pl->npoints; i++)
		p->values[i] = pl->points[i].values[k];
	qsort(p->values, (size_t)pl->npoints, sizeof(double), cmp_double);
	p->nvalues = 0;
	for (int i = 0; i < pl->npoints; i++)
		if (!p->nvalues || p->values[p->nvalues - 1] != p->values[i])
			p->values[p->nvalues++] = p->values[i];
}

/* A derived value that is not a number: at which point, in err. */
static int not_finite(const struct plan *pl, const struct campaign_config *c, int d, const double *v,
		      struct perr *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	char **names = all_names(c);
	point_text(&sb, (const char *const *)names, v, c->nparams, ", ");
	config_error_param(c, c->derived[d].name, err, "derived parameter '%s' = \"%s\" is %g at "
		     "%s; write an expression that is a finite number at every point", c->derived[d].name,
		     c->derived[d].expr, v[pl->nparams + d], sb.buf);
	strbuf_release(&sb);
	free(names);
	return -1;
}

int plan_add_derived(struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	int np = pl->nparams, nd = c->nderived, rc = 0;
	if (!nd)
		return 0;
	char **names = all_names(c);
	struct expr **ex = xcalloc((size_t)nd, sizeof(*ex));
	for (int d = 0; d < nd; d++)   /* config_load parsed them already */
		ex[d] = expr_parse(c->derived[d].expr, np + d, names, err);
	pl->params = xrealloc(pl->params, sizeof(*pl->params) * (size_t)(np + nd));
	for (int d = 0; d < nd; d++)
		pl->params[np + d] = (struct plan_param){ .name = xstrdup(names[np + d]), .is_int = 1 };
	for (int i = 0; i < pl->npoints && !rc; i++) {
		double *v = pl->points[i].values = xrealloc(pl->points[i].values, sizeof(double) * (size_t)(np + nd));
		for (int d = 0; d < nd && !rc; d++) {
			v[np + d] = ex[d] ? expr_eval(ex[d], v) : NAN;
			if (!isfinite(v[np + d]))
				rc = not_finite(pl, c, d, v, err);
			else if (v[np + d] != floor(v[np + d]) || fabs(v[np + d]) > 9007199254740992.0)
				pl->params[np + d].is_int = 0;
		}
	}
	pl->nparams = np + nd;      /* owned by the plan now, released with it */
	for (int d = 0; d < nd && !rc; d++)
		collect_values(pl, np + d);
	for (int d = 0; d < nd; d++)
		expr_free(ex[d]);
	free(ex);
	free(names);
	return rc;
}

/* The length of the number at t (digits, a point, an exponent). */
static size_t number_len(const char *t)
{
	size_t i = 0;
	while (isdigit((unsigned char)t[i]) || t[i] == '.')
		i++;
	if ((t[i] == 'e' || t[i] == 'E') &&
	    (isdigit((unsigned char)t[i + 1]) ||
	     ((t[i + 1] == '+' || t[i + 1] == '-') && isdigit((unsigned char)t[i + 2])))) {
		i += 2;
		while (isdigit((unsigned char)t[i]))
			i++;
	}
	return i;
}

char *plan_inline_derived(const struct campaign_config *c, const char *text)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (const char *p = text; *p;) {
		if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
			size_t n = number_len(p);
			strbuf_add(&sb, p, n);
			p += n;
			continue;
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			strbuf_addch(&sb, *p++);
			continue;
		}
		size_t n = 0;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		char *word = xstrndup(p, n);
		int d = config_find_derived(c, word);
		const char *after = p + n;
		while (*after == ' ' || *after == '\t')
			after++;
		if (d >= 0 && *after != '(') {      /* a name, not a function */
			char *inner = plan_inline_derived(c, c->derived[d].expr);
			strbuf_addf(&sb, "(%s)", inner);
			free(inner);
		} else {
			strbuf_add(&sb, p, n);
		}
		free(word);
		p += n;
	}
	return strbuf_detach(&sb);
}

/* The points' visible coordinates: row i is point i's values but the
   unmodelled ones' (zeroed), then its ranks per node. */
struct visible {
	const double *rows;
	int width;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct visible *v = arg;
	const double *x = v->rows + (size_t)*(const int *)a * (size_t)v->width;
	const double *y = v->rows + (size_t)*(const int *)b * (size_t)v->width;
	for (int k = 0; k < v->width; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return 0;
}

/* Points a and b (indices into pl) as "x=2, atoms=32000" and "x=3, ...". */
static void two_points(struct strbuf *sb, const struct plan *pl, int a, int b)
{
	const char **names = xcalloc((size_t)pl->nparams + 1, sizeof(char *));
	for (int k = 0; k < pl->nparams; k++)
		names[k] = pl->params[k].name;
	point_text(sb, names, pl->points[a].values, pl->nparams, ", ");
	strbuf_addstr(sb, " and ");
	point_text(sb, names, pl->points[b].values, pl->nparams, ", ");
	free(names);
}

int plan_check_unmodelled(const struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	int w = pl->nparams + 1, first = -1;
	for (int k = 0; k < pl->nparams && k < c->nparams + c->nderived; k++)
		if (c->unmodelled[k] && pl->params[k].nvalues != 1 && first < 0)
			first = k;
	if (first < 0 || !pl->points)
		return 0;       /* one value each: leaving them out merges no points */
	double *rows = xcalloc((size_t)pl->npoints * (size_t)w + 1, sizeof(double));
	int *order = xmalloc(sizeof(int) * (size_t)(pl->npoints + 1));
	for (int i = 0; i < pl->npoints; i++) {
		for (int k = 0; k < pl->nparams; k++)
			rows[(size_t)i * (size_t)w + (size_t)k] = c->unmodelled[k] ? 0 : pl->points[i].values[k];
		rows[(size_t)i * (size_t)w + (size_t)pl->nparams] = pl->points[i].ranks_per_node;
		order[i] = i;
	}
	struct visible v = { rows, w };
	qsort_r(order, (size_t)pl->npoints, sizeof(int), cmp_rows, &v);
	int rc = 0;
	for (int i = 1; i < pl->npoints && !rc; i++)
		if (!cmp_rows(&order[i - 1], &order[i], &v)) {
			struct strbuf sb;
			strbuf_init(&sb);
			two_points(&sb, pl, order[i - 1], order[i]);
			rc = config_error_param(c, pl->params[first].name, err, "model = false leaves "
					  "'%s' out of the analysis, but the points %s differ only in the parameters "
					  "left out; keep it (model = true) or model a parameter derived from it",
					  pl->params[first].name, sb.buf);
			strbuf_release(&sb);
		}
	free(rows);
	free(order);
	return rc;
}

/* The index of name among names[0..n), or -1. */
static int name_index(char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int plan_derive_values(const struct campaign_config *c, char *const *names, int n, double *v)
{
	int np = c->nparams, changed = 0;
	double *vals = xcalloc((size_t)(np + c->nderived + 1), sizeof(double));
	for (int k = 0; k < np; k++) {
		int i = name_index(names, n, c->params[k].name);
		if (i < 0) {
			free(vals);
			return 0;
		}
		vals[k] = v[i];
	}
	char **all = all_names(c);
	struct perr e2;
	for (int d = 0; d < c->nderived; d++) {
		struct expr *x = expr_parse(c->derived[d].expr, np + d, all, &e2);
		vals[np + d] = x ? expr_eval(x, vals) : NAN;
		expr_free(x);
		int i = name_index(names, n, c->derived[d].name);
		if (i >= 0 && isfinite(vals[np + d]) &&
		    fabs(v[i] - vals[np + d]) > 1e-12 * fmax(1, fabs(vals[np + d]))) {
			v[i] = vals[np + d];
			changed = 1;
		}
	}
	free(all);
	free(vals);
	return changed;
}
