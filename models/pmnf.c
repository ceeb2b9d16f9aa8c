/* PMNF models: construction, evaluation and Extra-P-style formatting. */
#include "models/pmnf.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pmnf_init(struct pmnf_model *m, int nparams, char *const *params)
{
	memset(m, 0, sizeof(*m));
	m->nparams = nparams;
	if (nparams > 0) {
		m->params = xcalloc((size_t)nparams, sizeof(*m->params));
		for (int i = 0; i < nparams; i++)
			m->params[i] = xstrdup(params ? params[i] : "");
	}
	m->rss = m->ar2 = m->smape = m->re = m->cv_smape = m->lof_p = m->trend_p = NAN;
}

void pmnf_release(struct pmnf_model *m)
{
	for (int i = 0; i < m->nparams; i++)
		free(m->params[i]);
	free(m->params);
	for (int k = 0; k < m->nterms; k++)
		free(m->terms[k].factors);
	free(m->terms);
	memset(m, 0, sizeof(*m));
}

void pmnf_copy(struct pmnf_model *dst, const struct pmnf_model *src)
{
	pmnf_init(dst, src->nparams, src->params);
	dst->constant = src->constant;
	for (int k = 0; k < src->nterms; k++)
		pmnf_add_term(dst, src->terms[k].coef, src->terms[k].nfactors, src->terms[k].factors);
	dst->npoints = src->npoints;
	dst->rss = src->rss;
	dst->ar2 = src->ar2;
	dst->smape = src->smape;
	dst->re = src->re;
	dst->cv_smape = src->cv_smape;
	dst->lof_p = src->lof_p;
	dst->trend_p = src->trend_p;
	dst->expected = src->expected;
}

int pmnf_add_term(struct pmnf_model *m, double coef, int nfactors, const struct pmnf_factor *f)
{
	m->terms = xrealloc(m->terms, (size_t)(m->nterms + 1) * sizeof(*m->terms));
	struct pmnf_term *t = &m->terms[m->nterms];
	t->coef = coef;
	t->nfactors = nfactors;
	t->factors = xmalloc((size_t)(nfactors > 0 ? nfactors : 1) * sizeof(*t->factors));
	if (nfactors > 0)
		memcpy(t->factors, f, (size_t)nfactors * sizeof(*f));
	return m->nterms++;
}

/* x^i * log2(x)^j with the exponents Extra-P uses; log2 of x < 1 counts as 0. */
static double factor_eval(const struct pmnf_factor *f, double x)
{
	double v = 1;
	if (f->poly_exp != 0)
		v = f->poly_exp == 1 ? x : f->poly_exp == 2 ? x * x : pow(x, f->poly_exp);
	if (f->log_exp != 0) {
		double l = x >= 1 ? log2(x) : 0;
		v *= f->log_exp == 1 ? l : f->log_exp == 2 ? l * l : pow(l, f->log_exp);
	}
	return v;
}

double pmnf_term_eval(const struct pmnf_term *t, const double *coords)
{
	double v = 1;
	for (int i = 0; i < t->nfactors; i++)
		v *= factor_eval(&t->factors[i], coords[t->factors[i].param]);
	return v;
}

double pmnf_eval(const struct pmnf_model *m, const double *coords)
{
	double v = m->constant;
	for (int k = 0; k < m->nterms; k++)
		v += m->terms[k].coef * pmnf_term_eval(&m->terms[k], coords);
	return v;
}

/* Replace the locale's decimal separator by '.', so output never depends on LC_NUMERIC. */
static void fix_decimal_point(char *s)
{
	const char *dp = localeconv()->decimal_point;
	if (!dp || !strcmp(dp, "."))
		return;
	size_t n = strlen(dp);
	char *p = strstr(s, dp);
	if (p) {
		*p = '.';
		memmove(p + 1, p + n, strlen(p + n) + 1);
	}
}

/* The shortest %.Ng (15..17) that reads back as v, or %.{digits}g. */
static void format_double(struct strbuf *sb, double v, int digits)
{
	char buf[64];
	if (v == 0)
		v = 0;  /* no "-0" */
	if (digits > 0) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
	} else {
		for (int d = 15; d <= 17; d++) {
			snprintf(buf, sizeof(buf), "%.*g", d, v);
			if (d == 17 || strtod(buf, NULL) == v)  /* same locale as snprintf */
				break;
		}
	}
	fix_decimal_point(buf);
	strbuf_addstr(sb, buf);
}

/* An exponent as Extra-P prints it: "2", "1/4", "-3/2". */
static void format_exponent(struct strbuf *sb, double e)
{
	for (int den = 1; den <= 12; den++) {
		double num = e * den;
		if (fabs(num - nearbyint(num)) < 1e-9) {
			long n = lrint(num);
			if (den == 1)
				strbuf_addf(sb, "%ld", n);
			else
				strbuf_addf(sb, "%ld/%d", n, den);
			return;
		}
	}
	format_double(sb, e, 0);
}

static const char *param_name(const struct pmnf_model *m, int p)
{
	static const char *names = "pqrstuvwxyzabcdefghijklmno";
	static char buf[26][2];
	if (m->params && p < m->nparams)
		return m->params[p];
	int k = p % 26;
	buf[k][0] = names[k];
	buf[k][1] = 0;
	return buf[k];
}

/* The factors of t, each preceded by sep. */
static void add_factors(struct strbuf *sb, const struct pmnf_model *m, const struct pmnf_term *t,
			const char *sep)
{
	for (int i = 0; i < t->nfactors; i++) {
		const struct pmnf_factor *f = &t->factors[i];
		const char *name = param_name(m, f->param);
		if (f->poly_exp != 0) {
			strbuf_addf(sb, "%s%s^(", sep, name);
			format_exponent(sb, f->poly_exp);
			strbuf_addch(sb, ')');
		}
		if (f->log_exp != 0) {
			strbuf_addf(sb, "%slog2(%s)^(", sep, name);
			format_exponent(sb, f->log_exp);
			strbuf_addch(sb, ')');
		}
	}
}

char *pmnf_format_term(const struct pmnf_model *m, int t)
{
	struct strbuf sb;
	strbuf_init(&sb);
	if (t < 0 || t >= m->nterms)
		strbuf_addstr(&sb, " * 1");
	else
		add_factors(&sb, m, &m->terms[t], " * ");
	char *res = xstrdup(sb.buf + 3);
	strbuf_release(&sb);
	return res;
}

char *pmnf_format(const struct pmnf_model *m, int digits)
{
	struct strbuf sb;
	strbuf_init(&sb);
	format_double(&sb, m->constant, digits);
	for (int k = 0; k < m->nterms; k++) {
		const struct pmnf_term *t = &m->terms[k];
		strbuf_addstr(&sb, " + ");
		format_double(&sb, t->coef, digits);
		add_factors(&sb, m, t, " * ");
	}
	char *res = strbuf_detach(&sb);
	strbuf_release(&sb);    /* detach re-initialises sb */
	return res;
}

int pmnf_same_shape(const struct pmnf_model *a, const struct pmnf_model *b)
{
	if (a->nterms != b->nterms)
		return 0;
	for (int k = 0; k < a->nterms; k++) {
		const struct pmnf_term *s = &a->terms[k], *t = &b->terms[k];
		if (s->nfactors != t->nfactors)
			return 0;
		for (int i = 0; i < s->nfactors; i++)
			if (s->factors[i].param != t->factors[i].param ||
			    fabs(s->factors[i].poly_exp - t->factors[i].poly_exp) > 1e-12 ||
			    fabs(s->factors[i].log_exp - t->factors[i].log_exp) > 1e-12)
				return 0;
	}
	return 1;
}
