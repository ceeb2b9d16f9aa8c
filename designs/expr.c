/*
 * Expressions: a recursive-descent parser into a small tree, an evaluator
 * and the grid summation by expansion into a sum of products (see expr.h).
 */
#include "designs/expr.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { E_NUM, E_PARAM, E_NEG, E_ADD, E_SUB, E_MUL, E_DIV, E_POW, E_LOG2, E_SQRT, E_CEIL };

struct node {
	enum op op;
	double num;
	int param;
	int height;             /* 1 + its deepest operand's: the recursion a walk needs */
	struct node *a, *b;
};

/* The deepest tree a parse gives: every walk of the tree (evaluation,
   expansion, freeing) recurses once per level, so a chain of terms
   ("a + a + ... + a") longer than this is refused, never a stack overflow. */
#define MAX_HEIGHT 2000
#define STR_(x) #x
#define STR(x) STR_(x)

struct expr {
	struct node *root;
	int nparams;
};

struct parser {
	const char *s, *p;
	int nparams;
	char *const *params;
	struct perr *err;
	int failed;
	int depth;
};

static struct node *mk(enum op op, struct node *a, struct node *b)
{
	struct node *n = xcalloc(1, sizeof(*n));
	n->op = op;
	n->a = a;
	n->b = b;
	int ha = a ? a->height : 0, hb = b ? b->height : 0;
	n->height = 1 + (ha > hb ? ha : hb);
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	free(n);
}

static struct node *fail(struct parser *ps, const char *fmt, const char *arg)
{
	if (!ps->failed) {
		char msg[256];
		snprintf(msg, sizeof(msg), fmt, arg);
		perr_set(ps->err, "column %d: %s", (int)(ps->p - ps->s) + 1, msg);
	}
	ps->failed = 1;
	return NULL;
}

static void skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static struct node *parse_sum(struct parser *ps);

/* A chain of operations past MAX_HEIGHT: n freed, the parse failed. */
static struct node *too_long(struct parser *ps, struct node *n)
{
	node_free(n);
	return fail(ps, "expression too long: more than " STR(MAX_HEIGHT) " operations in a chain%s; "
		    "write a shorter one (a sum of a few terms, each a product of powers)", "");
}

static struct node *parse_primary(struct parser *ps)
{
	skip(ps);
	const char *c = ps->p;
	if (isdigit((unsigned char)*c) || (*c == '.' && isdigit((unsigned char)c[1]))) {
		char *end;
		double v = strtod(c, &end);
		if (isalpha((unsigned char)*end) || *end == '_')
			return fail(ps, "malformed number%s", "");
		struct node *n = mk(E_NUM, NULL, NULL);
		n->num = v;
		ps->p = end;
		return n;
	}
	if (isalpha((unsigned char)*c) || *c == '_') {
		const char *e = c;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		char name[128];
		size_t len = (size_t)(e - c);
		if (len >= sizeof(name))
			return fail(ps, "name too long%s", "");
		memcpy(name, c, len);
		name[len] = 0;
		ps->p = e;
		skip(ps);
		if (*ps->p == '(') {
			enum op op;
			if (!strcmp(name, "log2"))
				op = E_LOG2;
			else if (!strcmp(name, "sqrt"))
				op = E_SQRT;
			else if (!strcmp(name, "ceil"))
				op = E_CEIL;
			else {
				ps->p = c;
				return fail(ps, "unknown function '%s' (known: log2, sqrt, ceil)", name);
			}
			ps->p++;
			struct node *arg = parse_sum(ps);
			if (!arg)
				return NULL;
			skip(ps);
			if (*ps->p != ')') {
				node_free(arg);
				return fail(ps, "expected ')'%s", "");
			}
			ps->p++;
			return mk(op, arg, NULL);
		}
		for (int k = 0; k < ps->nparams; k++)
			if (!strcmp(ps->params[k], name)) {
				struct node *n = mk(E_PARAM, NULL, NULL);
				n->param = k;
				return n;
			}
		ps->p = c;
		return fail(ps, "unknown parameter '%s'", name);
	}
	if (*c == '(') {
		ps->p++;
		struct node *n = parse_sum(ps);
		if (!n)
			return NULL;
		skip(ps);
		if (*ps->p != ')') {
			node_free(n);
			return fail(ps, "expected ')'%s", "");
		}
		ps->p++;
		return n;
	}
	if (!*c)
		return fail(ps, "unexpected end of expression%s", "");
	char ch[2] = { *c, 0 };
	return fail(ps, "unexpected '%s'", ch);
}

/* unary minus binds looser than ^: -x^2 is -(x^2) */
static struct node *parse_unary(struct parser *ps)
{
	skip(ps);
	if (++ps->depth > 200)
		return fail(ps, "expression nested too deeply%s", "");
	struct node *r;
	if (*ps->p == '-' || *ps->p == '+') {
		int neg = *ps->p == '-';
		ps->p++;
		struct node *a = parse_unary(ps);
		r = a && neg ? mk(E_NEG, a, NULL) : a;
	} else {
		struct node *base = parse_primary(ps);
		r = base;
		if (base) {
			skip(ps);
			if (*ps->p == '^') {
				ps->p++;
				struct node *ex = parse_unary(ps);
				if (!ex) {
					node_free(base);
					r = NULL;
				} else {
					r = mk(E_POW, base, ex);
				}
			}
		}
	}
	ps->depth--;
	return r;
}

static struct node *parse_product(struct parser *ps)
{
	struct node *l = parse_unary(ps);
	while (l) {
		skip(ps);
		char c = *ps->p;
		if (c != '*' && c != '/')
			break;
		ps->p++;
		struct node *r = parse_unary(ps);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = mk(c == '*' ? E_MUL : E_DIV, l, r);
		if (l->height > MAX_HEIGHT)
			return too_long(ps, l);
	}
	return l;
}

static struct node *parse_sum(struct parser *ps)
{
	struct node *l = parse_product(ps);
	while (l) {
		skip(ps);
		char c = *ps->p;
		if (c != '+' && c != '-')
			break;
		ps->p++;
		struct node *r = parse_product(ps);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = mk(c == '+' ? E_ADD : E_SUB, l, r);
		if (l->height > MAX_HEIGHT)
			return too_long(ps, l);
	}
	return l;
}

static void mark_used(const struct node *n, char *used)
{
	if (!n)
		return;
	if (n->op == E_PARAM)
		used[n->param] = 1;
	mark_used(n->a, used);
	mark_used(n->b, used);
}

struct expr *expr_parse(const char *text, int nparams, char *const *params, struct perr *err)
{
	struct parser ps = { .s = text, .p = text, .nparams = nparams, .params = params, .err = err };
	struct node *root = parse_sum(&ps);
	if (root) {
		skip(&ps);
		if (*ps.p) {
			node_free(root);
			char ch[2] = { *ps.p, 0 };
			fail(&ps, *ps.p == ')' ? "unbalanced '%s'" : "unexpected '%s'", ch);
			return NULL;
		}
	}
	if (!root)
		return NULL;
	struct expr *e = xcalloc(1, sizeof(*e));
	e->root = root;
	e->nparams = nparams;
	return e;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e);
}

static double eval(const struct node *n, const double *v)
{
	switch (n->op) {
	case E_NUM: return n->num;
	case E_PARAM: return v[n->param];
	case E_NEG: return -eval(n->a, v);
	case E_ADD: return eval(n->a, v) + eval(n->b, v);
	case E_SUB: return eval(n->a, v) - eval(n->b, v);
	case E_MUL: return eval(n->a, v) * eval(n->b, v);
	case E_DIV: return eval(n->a, v) / eval(n->b, v);
	case E_POW: return pow(eval(n->a, v), eval(n->b, v));
	case E_LOG2: return log2(eval(n->a, v));
	case E_SQRT: return sqrt(eval(n->a, v));
	case E_CEIL: return ceil(eval(n->a, v));
	}
	return NAN;
}

double expr_eval(const struct expr *e, const double *values)
{
	return eval(e->root, values);
}

/* ---- expansion into a sum of products ---- */

struct factor {
	const struct node *n;
	double power;
};

struct term {
	double coef;
	int nf;
	struct factor *f;
};

struct sum {
	int n;
	struct term *t;
};

#define MAX_TERMS 4096

static void sum_free(struct sum *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->t[i].f);
	free(s->t);
	s->n = 0;
	s->t = NULL;
}

static void sum_push(struct sum *s, double coef, const struct factor *f, int nf)
{
	s->t = xrealloc(s->t, sizeof(*s->t) * (size_t)(s->n + 1));
	struct term *t = &s->t[s->n++];
	t->coef = coef;
	t->nf = nf;
	t->f = xmalloc(sizeof(*f) * (size_t)(nf ? nf : 1));
	if (nf)
		memcpy(t->f, f, sizeof(*f) * (size_t)nf);
}

static void sum_atomic(struct sum *s, const struct node *n, double power)
{
	struct factor f = { n, power };
	sum_push(s, 1, &f, 1);
}

static int is_const(const struct node *n)
{
	if (n->op == E_PARAM)
		return 0;
	return (!n->a || is_const(n->a)) && (!n->b || is_const(n->b));
}

static struct sum sum_mul(const struct sum *x, const struct sum *y)
{
	struct sum r = { 0 };
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < y->n; j++) {
			const struct term *a = &x->t[i], *b = &y->t[j];
			struct factor *f = xmalloc(sizeof(*f) * (size_t)(a->nf + b->nf + 1));
			memcpy(f, a->f, sizeof(*f) * (size_t)a->nf);
			memcpy(f + a->nf, b->f, sizeof(*f) * (size_t)b->nf);
			sum_push(&r, a->coef * b->coef, f, a->nf + b->nf);
			free(f);
		}
	return r;
}

/*
 * Split n into a sum of products.  Only a single product is distributed
 * over a sum (c*(x + y) = c*x + c*y), which introduces no cancellation; a
 * product of two sums, a power of a sum or a function call stays one
 * factor, later evaluated on the sub-grid of its own parameters.
 */
static struct sum expand(const struct node *n)
{
	struct sum r = { 0 }, a, b;
	switch (n->op) {
	case E_NUM:
		sum_push(&r, n->num, NULL, 0);
		return r;
	case E_NEG:
		r = expand(n->a);
		for (int i = 0; i < r.n; i++)
			r.t[i].coef = -r.t[i].coef;
		return r;
	case E_ADD:
	case E_SUB:
		a = expand(n->a);
		b = expand(n->b);
		if (a.n + b.n > MAX_TERMS) {
			sum_free(&a);
			sum_free(&b);
			sum_atomic(&r, n, 1);
			return r;
		}
		for (int i = 0; i < b.n; i++)
			sum_push(&a, n->op == E_SUB ? -b.t[i].coef : b.t[i].coef, b.t[i].f, b.t[i].nf);
		sum_free(&b);
		return a;
	case E_MUL:
	case E_DIV:
		a = expand(n->a);
		b = expand(n->b);
		if (n->op == E_DIV) {
			if (b.n == 1 && b.t[0].coef != 0) {
				struct term *t = &b.t[0];
				t->coef = 1 / t->coef;
				for (int i = 0; i < t->nf; i++)
					t->f[i].power = -t->f[i].power;
			} else {
				sum_free(&b);
				sum_atomic(&b, n->b, -1);
			}
		}
		if ((a.n == 1 || b.n == 1) && (double)a.n * b.n <= MAX_TERMS)
			r = sum_mul(&a, &b);
		else
			sum_atomic(&r, n, 1);
		sum_free(&a);
		sum_free(&b);
		return r;
	case E_POW:
		if (is_const(n->b)) {
			double e = eval(n->b, NULL);
			a = expand(n->a);
			int ok = a.n == 1 && isfinite(e);
			if (ok && e != floor(e)) {
				/* (c x^k)^e = c^e x^(k e) needs c >= 0 and k = 1 */
				ok = a.t[0].coef >= 0;
				for (int i = 0; i < a.t[0].nf; i++)
					ok &= a.t[0].f[i].power == 1;
			}
			if (ok) {
				struct term *t = &a.t[0];
				t->coef = pow(t->coef, e);
				for (int i = 0; i < t->nf; i++)
					t->f[i].power *= e;
				return a;
			}
			sum_free(&a);
		}
		sum_atomic(&r, n, 1);
		return r;
	default:
		sum_atomic(&r, n, 1);
		return r;
	}
}

static double factor_eval(const struct factor *f, const double *v)
{
	double x = eval(f->n, v);
	return f->power == 1 ? x : pow(x, f->power);
}

/* union-find over parameters */
static int uf_find(int *par, int x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Scratch space of expr_grid_sum for np parameters. */
struct grid_ws {
	int np;
	int *par;               /* union-find over parameters */
	char *in_term, *fused;
	int *comp_params, *idx;
	double *v;
};

/* Link the parameters each factor of t uses; each factor's component root (-1: constant factor). */
static int *term_components(const struct term *t, struct grid_ws *w)
{
	int np = w->np;
	for (int k = 0; k < np; k++) {
		w->par[k] = k;
		w->in_term[k] = 0;
	}
	for (int i = 0; i < t->nf; i++) {
		memset(w->fused, 0, (size_t)np);
		mark_used(t->f[i].n, w->fused);
		int first = -1;
		for (int k = 0; k < np; k++)
			if (w->fused[k]) {
				w->in_term[k] = 1;
				if (first < 0)
					first = k;
				else
					w->par[uf_find(w->par, k)] = uf_find(w->par, first);
			}
	}
	int *froot = xmalloc(sizeof(int) * (size_t)(t->nf + 1));
	for (int i = 0; i < t->nf; i++) {
		memset(w->fused, 0, (size_t)np);
		mark_used(t->f[i].n, w->fused);
		froot[i] = -1;
		for (int k = 0; k < np && froot[i] < 0; k++)
			if (w->fused[k])
				froot[i] = uf_find(w->par, k);
	}
	return froot;
}

/* Sum over the sub-grid of the nc parameters w->comp_params of the product of t's factors in component root. */
static double component_sum(const struct term *t, const int *froot, int root, int nc, const int *nvalues,
			    double *const *values, struct grid_ws *w)
{
	double csum = 0;
	for (int j = 0; j < nc; j++) {
		w->idx[j] = 0;
		w->v[w->comp_params[j]] = values[w->comp_params[j]][0];
	}
	for (;;) {
		double prod = 1;
		for (int i = 0; i < t->nf; i++)
			if (froot[i] == root)
				prod *= factor_eval(&t->f[i], w->v);
		csum += prod;
		int j = nc - 1;
		for (; j >= 0; j--) {
			int k = w->comp_params[j];
			if (++w->idx[j] < nvalues[k]) {
				w->v[k] = values[k][w->idx[j]];
				break;
			}
			w->idx[j] = 0;
			w->v[k] = values[k][0];
		}
		if (j < 0)
			return csum;
	}
}

/* Sum of term t over the grid into *out; -1 with err when a component's sub-grid is too large. */
static int term_grid_sum(const struct term *t, const int *nvalues, double *const *values, double max_evals,
			 struct grid_ws *w, double *out, struct perr *err)
{
	int np = w->np, rc = 0;
	int *froot = term_components(t, w);
	double term = t->coef;
	/* parameters the term does not use each multiply by their value count */
	for (int k = 0; k < np; k++)
		if (!w->in_term[k])
			term *= nvalues[k];
	/* constant factors */
	for (int i = 0; i < t->nf; i++)
		if (froot[i] < 0)
			term *= factor_eval(&t->f[i], w->v);
	for (int root = 0; root < np; root++) {
		if (!w->in_term[root] || uf_find(w->par, root) != root)
			continue;
		int nc = 0;
		double cells = 1;
		for (int k = 0; k < np; k++)
			if (w->in_term[k] && uf_find(w->par, k) == root) {
				w->comp_params[nc++] = k;
				cells *= nvalues[k];
			}
		if (cells > max_evals) {
			rc = perr_set_kind(err, PERR_COST_MODEL, "cost model couples %d parameters into "
					   "a %.0f-point sub-grid (limit %.0f); write it as a sum of "
					   "products of one-parameter terms", nc, cells, max_evals);
			break;
		}
		term *= component_sum(t, froot, root, nc, nvalues, values, w);
	}
	free(froot);
	*out = term;
	return rc;
}

int expr_grid_sum(const struct expr *e, const int *nvalues, double *const *values, double max_evals,
		  double *sum, double *magnitude, struct perr *err)
{
	double mag = 0;
	int np = e->nparams;
	struct sum s = expand(e->root);
	double total = 0;
	int rc = 0;
	struct grid_ws w = {
		.np = np,
		.par = xmalloc(sizeof(int) * (size_t)(np + 1)),
		.in_term = xmalloc((size_t)np + 1),
		.fused = xmalloc((size_t)np + 1),
		.comp_params = xmalloc(sizeof(int) * (size_t)(np + 1)),
		.idx = xmalloc(sizeof(int) * (size_t)(np + 1)),
		.v = xcalloc((size_t)np + 1, sizeof(double)),
	};
	for (int ti = 0; ti < s.n && rc == 0; ti++) {
		double term;
		rc = term_grid_sum(&s.t[ti], nvalues, values, max_evals, &w, &term, err);
		if (rc == 0) {
			total += term;
			mag += fabs(term);
		}
	}
	free(w.par);
	free(w.in_term);
	free(w.fused);
	free(w.comp_params);
	free(w.idx);
	free(w.v);
	sum_free(&s);
	if (rc == 0) {
		*sum = total;
		if (magnitude)
			*magnitude = mag;
	}
	return rc;
}
