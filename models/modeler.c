/*
 * The PMNF modeller: Extra-P's single-parameter search (leave-one-out
 * cross-validated SMAPE over the default building blocks), its
 * multi-parameter combination step, and the taint-constrained variant.
 * Least squares go through GSL's Householder QR; nothing here prints.
 */
#include "models/modeler.h"
#include "models/expected.h"
#include "common/xalloc.h"
#include "models/hypothesis.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS (HYP_MAX_TERMS + 1)
#define RANK_TOL 1e-11

void model_options_init(struct model_options *opt)
{
	opt->aggregate = MODEL_MEAN;
	opt->selection = MODEL_SELECT_EXTRAP;
	opt->min_contribution = 0.0005;
	opt->allow_log = 1;
	opt->alpha = 0.01;
	opt->relative_fallback = 0;
	opt->outlier_side = POINT_SIDE_BOTH;
}

void model_options_robust(struct model_options *opt)
{
	model_options_init(opt);
	opt->selection = MODEL_SELECT_ROBUST;
}

struct model_options model_options_for_series(const struct model_options *opt, const struct experiment *e,
					      const struct exp_series *s)
{
	struct model_options mo;
	if (opt)
		mo = *opt;
	else
		model_options_init(&mo);
	mo.outlier_side = point_side_of_series(e, s);
	return mo;
}

static const char *const sel_names[] = { "extrap", "robust" };

const char *model_selection_name(enum model_selection s)
{
	return s >= MODEL_SELECT_EXTRAP && s <= MODEL_SELECT_ROBUST ? sel_names[s] : "?";
}

int model_selection_parse(const char *s, enum model_selection *out)
{
	int i = model_name_find(sel_names, MODEL_SELECT_ROBUST + 1, s);
	if (i >= 0)
		*out = (enum model_selection)i;
	return i >= 0 ? 0 : -1;
}

double model_aggregate_values(const struct exp_values *v, enum model_aggregate how)
{
	struct point_estimate pe;
	point_estimate(v, how, 0, NAN, POINT_SIDE_BOTH, &pe);
	return pe.value;
}

/* Scratch space for the least-squares solves of one fit. */
struct ws {
	int rows, cols;
	double *X, *y, *res, *t;        /* rows x cols, rows, rows, rows */
	double tau[MAX_COLS], c[MAX_COLS], norm[MAX_COLS];
};

static void ws_init(struct ws *w, int rows, int cols)
{
	w->rows = rows > 0 ? rows : 1;
	w->cols = cols < 2 ? 2 : cols > MAX_COLS ? MAX_COLS : cols;
	w->X = xmalloc((size_t)w->rows * (size_t)w->cols * sizeof(double));
	w->y = xmalloc((size_t)w->rows * sizeof(double));
	w->res = xmalloc((size_t)w->rows * sizeof(double));
	w->t = xmalloc((size_t)w->rows * sizeof(double));
}

static void ws_release(struct ws *w)
{
	free(w->X);
	free(w->y);
	free(w->res);
	free(w->t);
}

/*
 * Least squares for the n x k system in w->X (row-major) and w->y; the
 * coefficients land in w->c.  Returns -1 when GSL fails or the columns are
 * (numerically) linearly dependent, so the hypothesis cannot be fitted.
 */
static int lsq(struct ws *w, int n, int k)
{
	if (n < k || k > w->cols || n > w->rows)
		return -1;
	for (int j = 0; j < k; j++) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += w->X[i * k + j] * w->X[i * k + j];
		w->norm[j] = sqrt(s);
		if (!isfinite(w->norm[j]) || w->norm[j] == 0)
			return -1;
	}
	gsl_matrix_view A = gsl_matrix_view_array(w->X, (size_t)n, (size_t)k);
	gsl_vector_view tau = gsl_vector_view_array(w->tau, (size_t)k);
	gsl_vector_view b = gsl_vector_view_array(w->y, (size_t)n);
	gsl_vector_view x = gsl_vector_view_array(w->c, (size_t)k);
	gsl_vector_view r = gsl_vector_view_array(w->res, (size_t)n);
	if (gsl_linalg_QR_decomp(&A.matrix, &tau.vector) != GSL_SUCCESS)
		return -1;
	for (int j = 0; j < k; j++)
		if (!(fabs(w->X[j * k + j]) > RANK_TOL * w->norm[j]))
			return -1;
	if (gsl_linalg_QR_lssolve(&A.matrix, &tau.vector, &b.vector, &x.vector, &r.vector) != GSL_SUCCESS)
		return -1;
	for (int j = 0; j < k; j++)
		if (!isfinite(w->c[j]))
			return -1;
	return 0;
}

static double hyp_term(const struct hyp_exponent *h, double x)
{
	struct pmnf_factor f = { 0, hyp_poly(h), h->log };
	struct pmnf_term t = { 1, 1, &f };
	return pmnf_term_eval(&t, &x);
}

/* May building blocks with log2 be used on these coordinates (all >= 1)? */
static int logs_allowed(const struct model_options *opt, const double *x, size_t n)
{
	int ok = opt->allow_log;
	for (size_t i = 0; i < n && ok; i++)
		ok = x[i] >= 1;
	return ok;
}

/* SMAPE contribution of one point: 2|f-y|/(|f|+|y|), 0 when both are 0. */
static double smape_term(double f, double y)
{
	double s = fabs(f) + fabs(y);
	return s != 0 ? fabs(f - y) / s * 2 : 0;
}

/* Largest |term value / measured value| over the points; NaN counts as large. */
static double max_contribution(const double *tv, const double *y, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		double c = fabs(tv[i] / y[i]);
		if (isnan(c) || c > m)
			m = isnan(c) ? INFINITY : c;
	}
	return m;
}

/* Robust selection: how many of a line's hypotheses the data do not reject go on to the joint fit. */
#define SP_ALT 3

/* The result of the single-parameter search on one line of points. */
struct sp_fit {
	int hyp;                /* index into the defaults, -1 for the constant */
	double c0, c1;
	double cv_smape;        /* LOO SMAPE of the chosen candidate (full SMAPE for the constant) */
	double lof_p;           /* robust: its lack-of-fit p-value; NaN for Extra-P's rule */
	int nalt;               /* robust: alt[0..nalt) the best-fitting hypotheses not rejected, */
	int alt[SP_ALT];        /* best first (alt[0] == hyp); 0 otherwise */
};

/*
 * The factorisations of every single-parameter hypothesis on one set of
 * coordinates: they depend on the x values only, so callpaths measured on
 * the same points share them.  For hypothesis h and left-out point i < n
 * (i == n: all points), qr/tau hold GSL's QR of the design matrix [1, t].
 */
struct sp_entry {
	int n, log_ok;
	int stored;             /* qr/tau/valid hold the factorisations (small n only) */
	double *x;              /* the key: n coordinates */
	int nh;
	unsigned char *valid;   /* nh x (n + 1): the system has full rank */
	unsigned char *usable;  /* nh: terms finite and allowed */
	double *t;              /* nh x n term values */
	double *qr;             /* nh x (n + 1) x (n x 2) */
	double *tau;            /* nh x (n + 1) x 2 */
};

#define CACHE_ENTRIES 8
/* Lines up to this many points keep their O(n^2) factorisations (~0.7 MB at 32). */
#define CACHE_MAX_POINTS 32

struct modeler {
	struct sp_entry e[CACHE_ENTRIES];
	int used, next;
};

struct modeler *modeler_new(void)
{
	return xcalloc(1, sizeof(struct modeler));
}

static void sp_entry_release(struct sp_entry *en)
{
	free(en->x);
	free(en->valid);
	free(en->usable);
	free(en->t);
	free(en->qr);
	free(en->tau);
	memset(en, 0, sizeof(*en));
}

void modeler_free(struct modeler *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->used; i++)
		sp_entry_release(&m->e[i]);
	free(m);
}

/* QR-factorise the n x 2 system [1, t] in place; -1 when rank-deficient. */
static int qr2(double *X, int n, double *tau)
{
	double norm[2] = { 0, 0 };
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 2; j++)
			norm[j] += X[i * 2 + j] * X[i * 2 + j];
	for (int j = 0; j < 2; j++) {
		norm[j] = sqrt(norm[j]);
		if (!isfinite(norm[j]) || norm[j] == 0)
			return -1;
	}
	gsl_matrix_view A = gsl_matrix_view_array(X, (size_t)n, 2);
	gsl_vector_view tv = gsl_vector_view_array(tau, 2);
	if (n < 2 || gsl_linalg_QR_decomp(&A.matrix, &tv.vector) != GSL_SUCCESS)
		return -1;
	for (int j = 0; j < 2; j++)
		if (!(fabs(X[j * 2 + j]) > RANK_TOL * norm[j]))
			return -1;
	return 0;
}

/* Build the design matrix of hypothesis h without point out (n: none) into X and factorise it. */
static int sp_factorise(const double *t, int n, int out, double *X, double *tau)
{
	int r = 0;
	for (int i = 0; i < n; i++) {
		if (i == out)
			continue;
		X[r * 2] = 1;
		X[r * 2 + 1] = t[i];
		r++;
	}
	return qr2(X, r, tau);
}

static void sp_entry_build(struct sp_entry *en, const double *x, int n, int log_ok)
{
	const struct hyp_exponent *hyps;
	int nh = hypothesis_defaults(&hyps);
	size_t blk = (size_t)(n + 1);
	en->n = n;
	en->log_ok = log_ok;
	en->stored = n <= CACHE_MAX_POINTS;
	en->x = xmalloc((size_t)n * sizeof(double));
	memcpy(en->x, x, (size_t)n * sizeof(double));
	en->nh = nh;
	en->usable = xcalloc((size_t)nh, 1);
	en->t = xmalloc((size_t)nh * (size_t)n * sizeof(double));
	if (en->stored) {
		en->valid = xcalloc((size_t)nh * blk, 1);
		en->qr = xmalloc((size_t)nh * blk * (size_t)n * 2 * sizeof(double));
		en->tau = xmalloc((size_t)nh * blk * 2 * sizeof(double));
	}
	for (int h = 0; h < nh; h++) {
		double *t = &en->t[(size_t)h * n];
		int bad = hyps[h].log && !log_ok;
		for (int i = 0; i < n && !bad; i++) {
			t[i] = hyp_term(&hyps[h], x[i]);
			bad |= !isfinite(t[i]);
		}
		if (bad)
			continue;
		en->usable[h] = 1;
		if (!en->stored)
			continue;
		for (int out = 0; out <= n; out++)
			en->valid[(size_t)h * blk + (size_t)out] = sp_factorise(t, n, out,
				&en->qr[((size_t)h * blk + (size_t)out) * (size_t)n * 2],
				&en->tau[((size_t)h * blk + (size_t)out) * 2]) == 0;
	}
}

/* The cached factorisations for x, built on first use. */
static struct sp_entry *sp_entry_get(struct modeler *m, const double *x, int n, int log_ok)
{
	for (int i = 0; i < m->used; i++) {
		struct sp_entry *en = &m->e[i];
		if (en->n == n && en->log_ok == log_ok && !memcmp(en->x, x, (size_t)n * sizeof(double)))
			return en;
	}
	struct sp_entry *en;
	if (m->used < CACHE_ENTRIES) {
		en = &m->e[m->used++];
	} else {
		en = &m->e[m->next];
		m->next = (m->next + 1) % CACHE_ENTRIES;
		sp_entry_release(en);
	}
	sp_entry_build(en, x, n, log_ok);
	return en;
}

/*
 * Solve the cached system (h, out) for right-hand side w->y (r rows) into
 * w->c: Q^T y, then the 2 x 2 triangle R (GSL's QR_lssolve without the
 * residual, which is not needed here).
 */
static int sp_solve(struct ws *w, const struct sp_entry *en, int h, int out, int r)
{
	size_t blk = (size_t)(en->n + 1);
	const double *qr, *tau_p;
	double tau_local[2];
	if (en->stored) {
		if (!en->valid[(size_t)h * blk + (size_t)out])
			return -1;
		qr = &en->qr[((size_t)h * blk + (size_t)out) * (size_t)en->n * 2];
		tau_p = &en->tau[((size_t)h * blk + (size_t)out) * 2];
	} else {
		/* the same factorisation, computed on the spot (long lines) */
		if (sp_factorise(&en->t[(size_t)h * en->n], en->n, out, w->X, tau_local) < 0)
			return -1;
		qr = w->X;
		tau_p = tau_local;
	}
	gsl_matrix_const_view A = gsl_matrix_const_view_array(qr, (size_t)r, 2);
	gsl_vector_const_view tau = gsl_vector_const_view_array(tau_p, 2);
	gsl_vector_view b = gsl_vector_view_array(w->y, (size_t)r);
	gsl_matrix_const_view R = gsl_matrix_const_submatrix(&A.matrix, 0, 0, 2, 2);
	gsl_vector_const_view qtb = gsl_vector_const_subvector(&b.vector, 0, 2);
	gsl_vector_view x = gsl_vector_view_array(w->c, 2);
	if (gsl_linalg_QR_QTvec(&A.matrix, &tau.vector, &b.vector) != GSL_SUCCESS ||
	    gsl_linalg_R_solve(&R.matrix, &qtb.vector, &x.vector) != GSL_SUCCESS)
		return -1;
	return isfinite(w->c[0]) && isfinite(w->c[1]) ? 0 : -1;
}

/*
 * Leave-one-out SMAPE of hypothesis h on the cached line (Extra-P's cost);
 * -1 when a fit fails.
 */
static int sp_loo(struct ws *w, const struct sp_entry *en, int h, const double *y, int n,
		  const struct model_options *opt, double *smape)
{
	const double *t = &en->t[(size_t)h * n];
	double rss = 0, sm = 0;
	for (int oi = 0; oi < n; oi++) {
		int r = 0;
		double minimum = INFINITY;
		for (int i = 0; i < n; i++) {
			if (i == oi)
				continue;
			w->y[r++] = y[i];
			if (y[i] < minimum)
				minimum = y[i];
		}
		if (sp_solve(w, en, h, oi, r) < 0)
			return -1;
		double c0 = w->c[0], c1 = w->c[1];
		/* Extra-P's clean_constant_coefficient */
		if (minimum == 0 ? fabs(c0) < opt->min_contribution
				 : fabs(c0 / minimum) < opt->min_contribution)
			c0 = 0;
		double f = c0 + c1 * t[oi], d = f - y[oi];
		rss += d * d;
		sm += smape_term(f, y[oi]);
	}
	*smape = sm / n * 100;
	return isfinite(rss) ? 0 : -1;
}

/* 1 when the term c1 * t reaches min_contribution of the measured value somewhere. */
static int term_contributes(double c1, const double *t, const double *y, int n,
			    const struct model_options *opt)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		double c = fabs(c1 * t[i] / y[i]);
		if (isnan(c) || c > m)
			m = isnan(c) ? INFINITY : c;
	}
	return c1 != 0 && !(m < opt->min_contribution);
}

/* Extra-P's single-parameter modeller on n points (x[i], y[i]). */
static void fit_single_extrap(struct ws *w, const struct sp_entry *en, const double *y, int n,
			      const struct model_options *opt, struct sp_fit *out)
{
	for (int h = 0; h < en->nh; h++) {
		double sm;
		if (!en->usable[h] || sp_loo(w, en, h, y, n, opt, &sm) < 0)
			continue;
		/* coefficients from all points */
		memcpy(w->y, y, (size_t)n * sizeof(double));
		if (sp_solve(w, en, h, n, n) < 0)
			continue;
		double c0 = w->c[0], c1 = w->c[1];
		if (!term_contributes(c1, &en->t[(size_t)h * n], y, n, opt))
			continue;
		if (sm < out->cv_smape) {
			out->hyp = h;
			out->c0 = c0;
			out->c1 = c1;
			out->cv_smape = sm;
		}
	}
}

/* Insert hypothesis h (chi-square c) into the SP_ALT best, ascending; returns its rank or -1. */
static int alt_insert(int *alt, double *chi2, int *n, int h, double c)
{
	int k = *n < SP_ALT ? *n : SP_ALT;
	while (k > 0 && c < chi2[k - 1]) {
		if (k < SP_ALT) {
			alt[k] = alt[k - 1];
			chi2[k] = chi2[k - 1];
		}
		k--;
	}
	if (k >= SP_ALT)
		return -1;
	alt[k] = h;
	chi2[k] = c;
	if (*n < SP_ALT)
		(*n)++;
	return k;
}

/*
 * The ranking key of a hypothesis not rejected: those whose chi-square is
 * within LOF_TIE_CHI2 of the best are equally supported by the data and
 * rank by their complexity first, the rest after them by their fit.
 */
static double tie_key(double chi2, double best, int complexity)
{
	return chi2 <= best + LOF_TIE_CHI2 ? complexity * 1e6 + (chi2 - best) : 1e12 + chi2;
}

/*
 * The noise-aware choice on one line: the constant unless the lack-of-fit
 * test rejects it, else among the one-term hypotheses not rejected the
 * simplest of those that fit as well as the best (tie_key).  -1 (out
 * untouched) when every hypothesis is rejected or the test does not apply
 * (no repetitions, non-positive values): the caller falls back to
 * Extra-P's rule, the best fit.
 */
static int fit_single_robust(const struct sp_entry *en, const double *y, const double *r, int n,
			     const struct model_options *opt, const struct lof_noise *nz,
			     struct sp_fit *out)
{
	double c0, c1, chi2, hc0[HYP_MAX_DEFAULTS], hc1[HYP_MAX_DEFAULTS], hchi[HYP_MAX_DEFAULTS];
	if (nz->dof <= 0 || lof_fit_line(NULL, y, r, n, nz, &c0, &c1, &chi2) < 0)
		return -1;
	struct sp_fit constant = { -1, c0, 0, NAN, lof_p(chi2, n, 1, nz), 0, { 0 } };
	if (constant.lof_p >= opt->alpha || n < 3) {
		*out = constant;
		return 0;
	}
	const struct hyp_exponent *hyps;
	hypothesis_defaults(&hyps);
	double best_any = INFINITY, best_ok = INFINITY, keys[SP_ALT];
	struct sp_fit ok = constant, any = constant;
	for (int h = 0; h < en->nh && h < HYP_MAX_DEFAULTS; h++) {
		const double *t = &en->t[(size_t)h * n];
		hchi[h] = INFINITY;
		if (!en->usable[h] || lof_fit_line(t, y, r, n, nz, &hc0[h], &hc1[h], &hchi[h]) < 0 ||
		    !term_contributes(hc1[h], t, y, n, opt)) {
			hchi[h] = INFINITY;
			continue;
		}
		if (hchi[h] < best_any) {
			best_any = hchi[h];
			any = (struct sp_fit){ h, hc0[h], hc1[h], NAN, lof_p(hchi[h], n, 2, nz), 1, { h } };
		}
		if (lof_p(hchi[h], n, 2, nz) >= opt->alpha && hchi[h] < best_ok)
			best_ok = hchi[h];
	}
	for (int h = 0; h < en->nh && h < HYP_MAX_DEFAULTS; h++)
		if (isfinite(best_ok) && lof_p(hchi[h], n, 2, nz) >= opt->alpha &&
		    alt_insert(ok.alt, keys, &ok.nalt, h, tie_key(hchi[h], best_ok, hyp_complexity(&hyps[h]))) == 0)
			ok = (struct sp_fit){ h, hc0[h], hc1[h], NAN, lof_p(hchi[h], n, 2, nz), ok.nalt,
					      { ok.alt[0], ok.alt[1], ok.alt[2] } };
	if (ok.hyp < 0 && !opt->relative_fallback)
		return -1;      /* every hypothesis rejected: Extra-P's best fit (out untouched) */
	*out = ok.hyp >= 0 ? ok : any;
	return 0;
}

/* The single-parameter modeller on n points (x[i], y[i]), r[i] repetitions each. */
static void fit_single(struct ws *w, struct modeler *ctx, const double *x, const double *y,
		       const double *r, int n, const struct model_options *opt,
		       const struct lof_noise *nz, struct sp_fit *out)
{
	double mean = 0, cost = 0, smape = 0;
	for (int i = 0; i < n; i++)
		mean += y[i] / n;
	for (int i = 0; i < n; i++) {
		cost += (y[i] - mean) * (y[i] - mean);
		smape += smape_term(mean, y[i]);
	}
	*out = (struct sp_fit){ -1, mean, 0, smape / n * 100, NAN, 0, { 0 } };
	if (cost == 0 || n < 3)
		return;
	const struct sp_entry *en = sp_entry_get(ctx, x, n, logs_allowed(opt, x, (size_t)n));
	if (opt->selection == MODEL_SELECT_ROBUST && fit_single_robust(en, y, r, n, opt, nz, out) == 0)
		return;
	fit_single_extrap(w, en, y, n, opt, out);
}

/* The aggregated data of one fit. */
struct agg {
	int n, m;               /* points, parameters */
	double *x;              /* n x m */
	double *y;              /* n */
	double *r;              /* n: repetitions behind each point estimate */
	struct lof_noise nz;    /* their pooled pure error (robust selection) */
};

/* Check point p's values and coordinates and append its estimate to a. */
static int agg_point(struct agg *a, const struct model_input *in, int p, const struct model_options *opt,
		     double series_cov, struct point_estimate *pe, struct perr *err)
{
	const struct exp_values *v = &in->values[p];
	for (int i = 0; i < v->n; i++)
		if (!isfinite(v->v[i]))
			return perr_set(err, "non-finite value at point %d", p + 1);
	for (int k = 0; k < a->m; k++) {
		double c = in->coords[(size_t)p * (size_t)a->m + (size_t)k];
		if (!isfinite(c))
			return perr_set(err, "non-finite coordinate of parameter '%s' at point %d",
					in->params[k], p + 1);
		a->x[(size_t)a->n * (size_t)a->m + (size_t)k] = c;
	}
	point_estimate(v, opt->aggregate, opt->selection == MODEL_SELECT_ROBUST, series_cov,
		       opt->outlier_side, &pe[a->n]);
	a->y[a->n] = pe[a->n].value;
	a->r[a->n] = pe[a->n].n;
	a->n++;
	return 0;
}

static int agg_build(struct agg *a, const struct model_input *in, const struct model_options *opt,
		     struct perr *err)
{
	size_t np = (size_t)(in->npoints > 0 ? in->npoints : 1);
	a->m = in->nparams;
	a->n = 0;
	a->x = xmalloc(np * (size_t)(a->m > 0 ? a->m : 1) * sizeof(double));
	a->y = xmalloc(np * sizeof(double));
	a->r = xmalloc(np * sizeof(double));
	struct point_estimate *pe = xmalloc(np * sizeof(*pe));
	int ret = 0;
	double series_cov = opt->selection == MODEL_SELECT_ROBUST ? point_series_cov(in->values, in->npoints) : NAN;
	for (int p = 0; p < in->npoints && !ret; p++)
		if (in->values[p].n > 0)
			ret = agg_point(a, in, p, opt, series_cov, pe, err);
	if (!ret && a->n == 0)
		ret = perr_set(err, "no measured points");
	if (!ret)
		lof_noise_pool(pe, a->n, opt->aggregate, &a->nz);
	free(pe);
	return ret;
}

static void agg_release(struct agg *a)
{
	free(a->x);
	free(a->y);
	free(a->r);
}

/* Fill the quality figures of m against the aggregated points. */
static void quality(struct pmnf_model *m, const struct agg *a)
{
	double mean = 0, tss = 0, rss = 0, sm = 0, re = 0;
	int nre = 0, nfac = 0;
	for (int i = 0; i < a->n; i++)
		mean += a->y[i] / a->n;
	for (int i = 0; i < a->n; i++) {
		double y = a->y[i], f = pmnf_eval(m, &a->x[(size_t)i * (size_t)a->m]), d = f - y;
		tss += (y - mean) * (y - mean);
		rss += d * d;
		sm += smape_term(f, y);
		if (y != 0) {
			re += fabs(d / y);
			nre++;
		}
	}
	for (int k = 0; k < m->nterms; k++)
		nfac += m->terms[k].nfactors;
	m->npoints = a->n;
	m->rss = rss;
	m->smape = sm / a->n * 100;
	m->re = nre ? re / nre : 0;
	if (m->nterms == 0 || tss == 0) {
		m->ar2 = 1;
	} else {
		int dof = a->n - nfac - 1;
		m->ar2 = dof > 0 ? 1.0 - (rss / tss) * (a->n - 1.0) / dof : NAN;
	}
}

int modeler_quality(struct pmnf_model *m, const struct model_input *in,
		    const struct model_options *opt, struct perr *err)
{
	struct model_options def;
	struct agg a;
	if (!opt) {
		model_options_init(&def);
		opt = &def;
	}
	if (m->nparams != in->nparams)
		return perr_set(err, "model has %d parameters, data has %d", m->nparams, in->nparams);
	int ret = agg_build(&a, in, opt, err);
	if (!ret)
		quality(m, &a);
	agg_release(&a);
	return ret;
}

struct line_key {
	const struct agg *a;
	int p;
};

/* Compare points i and j by their coordinates other than p. */
static int key_cmp(const struct line_key *k, int i, int j)
{
	int m = k->a->m;
	for (int q = 0; q < m; q++) {
		if (q == k->p)
			continue;
		double x = k->a->x[(size_t)i * m + q], y = k->a->x[(size_t)j * m + q];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* qsort_r order: by key, equal keys by index (so the sort is deterministic). */
static int line_cmp(const void *l, const void *r, void *ctx)
{
	int i = *(const int *)l, j = *(const int *)r, c = key_cmp(ctx, i, j);
	return c ? c : (i > j) - (i < j);
}

/*
 * The line of points along parameter p (the others fixed): the longest
 * such line, with lines of equal length averaged, as Extra-P does (only
 * lines through the first line's first p-coordinate count).  Fills lx/ly
 * and lr (the repetitions behind each averaged value; capacity a->n) and
 * returns the number of points.  group has 2 * a->n
 * entries, size and cnt a->n: scratch.
 */
static int find_line(const struct agg *a, int p, double *lx, double *ly, double *lr, int *group,
		     int *size, int *cnt)
{
	int n = a->n, m = a->m, maxlen = 0, *ok = group + n;
	/* group the points by their other coordinates: sort, then runs of equal keys */
	struct line_key key = { a, p };
	for (int i = 0; i < n; i++)
		ok[i] = i;
	qsort_r(ok, (size_t)n, sizeof(int), line_cmp, &key);
	for (int r = 0; r < n; ) {
		int e = r + 1;
		while (e < n && key_cmp(&key, ok[r], ok[e]) == 0)
			e++;
		for (int j = r; j < e; j++)
			group[ok[j]] = ok[r];  /* the lowest index of the line (ties sort by index) */
		r = e;
	}
	memset(size, 0, (size_t)n * sizeof(*size));
	memset(ok, 0, (size_t)n * sizeof(*ok));
	for (int i = 0; i < n; i++)
		if (++size[group[i]] > maxlen)
			maxlen = size[group[i]];
	int first = 0;
	while (size[group[first]] != maxlen)
		first++;
	double x0 = a->x[(size_t)first * m + p];
	for (int i = 0; i < n; i++)
		if (size[group[i]] == maxlen && a->x[(size_t)i * m + p] == x0)
			ok[group[i]] = 1;
	int nl = 0;
	for (int i = 0; i < n; i++) {
		if (size[group[i]] != maxlen || !ok[group[i]])
			continue;
		double xv = a->x[(size_t)i * m + p];
		int l = 0;
		while (l < nl && lx[l] != xv)
			l++;
		if (l == nl) {
			lx[nl] = xv;
			ly[nl] = lr[nl] = 0;
			cnt[nl] = 0;
			nl++;
		}
		ly[l] += a->y[i];
		lr[l] += a->r[i];
		cnt[l]++;
	}
	for (int l = 0; l < nl; l++)
		ly[l] /= cnt[l];
	return nl;
}

/* A surviving parameter of the multi-parameter step and its single-parameter term. */
struct surv {
	int param;
	int hyp;
	double c0, c1;
	double *tv;             /* the term (coefficient 1) at every aggregated point */
	int nalt;               /* robust: the line's hypotheses not rejected (alt[0] == hyp) */
	int alt[SP_ALT];
};

static void add_term(struct pmnf_model *mod, const struct surv *s, int ns, unsigned mask, double coef)
{
	const struct hyp_exponent *hyps;
	hypothesis_defaults(&hyps);
	struct pmnf_factor f[32];
	int nf = 0;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			f[nf++] = (struct pmnf_factor){ s[b].param, hyp_poly(&hyps[s[b].hyp]), hyps[s[b].hyp].log };
	pmnf_add_term(mod, coef, nf, f);
}

/* Value of the product of the surviving terms in mask at point i (coefficient 1). */
static double mask_value(const struct agg *a, int i, const struct surv *s, int ns, unsigned mask)
{
	(void)a;
	double v = 1;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			v *= s[b].tv[i];
	return v;
}

/*
 * Fit structure st on all points; on success fill coef[0..nterms] and the
 * SMAPE, and say whether every term contributes enough (Extra-P's rule).
 */
static int fit_structure(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			 const struct hyp_structure *st, const struct model_options *opt,
			 double *coef, double *smape, int *contributes)
{
	int k = st->nterms + 1, n = a->n;
	for (int i = 0; i < n; i++) {
		w->X[i * k] = 1;
		for (int t = 0; t < st->nterms; t++)
			w->X[i * k + 1 + t] = mask_value(a, i, s, ns, st->mask[t]);
		w->y[i] = a->y[i];
	}
	if (lsq(w, n, k) < 0)
		return -1;
	memcpy(coef, w->c, (size_t)k * sizeof(double));
	double sm = 0;
	*contributes = 1;
	for (int i = 0; i < n; i++) {
		double f = coef[0];
		for (int t = 0; t < st->nterms; t++) {
			double tv = coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
			w->t[i] = tv;
			f += tv;
		}
		sm += smape_term(f, a->y[i]);
	}
	for (int t = 0; t < st->nterms && *contributes; t++) {
		for (int i = 0; i < n; i++)
			w->t[i] = coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
		if (coef[1 + t] == 0 || max_contribution(w->t, a->y, n) < opt->min_contribution)
			*contributes = 0;
	}
	*smape = sm / n * 100;
	return isfinite(*smape) ? 0 : -1;
}

/* Map the constraint's terms onto input parameter bitmasks; returns the count. */
static int constraint_masks(const struct model_input *in, const struct model_constraint *c,
			    uint64_t *masks, int cap)
{
	int nm = 0;
	if (!c->func || !c->deps)
		return 0;
	for (int t = 0; t < c->func->nterms; t++) {
		uint64_t mask = 0;
		const struct dep_term *dt = &c->func->terms[t];
		for (int i = 0; i < dt->n; i++) {
			int dp = dt->params[i];
			if (dp < 0 || dp >= c->deps->nparams)
				continue;
			for (int k = 0; k < in->nparams && k < 64; k++)
				if (!strcmp(in->params[k], c->deps->params[dp]))
					mask |= (uint64_t)1 << k;
		}
		if (!mask)
			continue;
		int dup = 0;
		for (int j = 0; j < nm; j++)
			dup |= masks[j] == mask;
		if (!dup && nm < cap)
			masks[nm++] = mask;
	}
	return nm;
}

/* Survivor mask (bits over s[]) to input-parameter mask. */
static uint64_t to_param_mask(const struct surv *s, int ns, unsigned mask)
{
	uint64_t pm = 0;
	for (int b = 0; b < ns; b++)
		if (mask & (1u << b))
			pm |= (uint64_t)1 << s[b].param;
	return pm;
}

static int structure_allowed(const struct hyp_structure *st, const struct surv *s, int ns,
			     const uint64_t *cm, int ncm)
{
	for (int t = 0; t < st->nterms; t++) {
		uint64_t pm = to_param_mask(s, ns, st->mask[t]);
		int inside = 0;
		for (int j = 0; j < ncm && !inside; j++)
			inside = (pm & ~cm[j]) == 0;
		if (!inside)
			return 0;
	}
	return 1;
}

static void set_constant(struct pmnf_model *out, const struct agg *a)
{
	double mean = 0;
	for (int i = 0; i < a->n; i++)
		mean += a->y[i] / a->n;
	out->constant = mean;
}

#define MAX_CONSTRAINT_TERMS 64
#define MAX_STRUCTS 32

/* Scratch for the lines of the multi-parameter step. */
struct line_buf {
	double *x, *y, *r;
	int *group, *size, *cnt;
};

static void line_buf_init(struct line_buf *b, int n)
{
	b->x = xmalloc((size_t)n * sizeof(double));
	b->y = xmalloc((size_t)n * sizeof(double));
	b->r = xmalloc((size_t)n * sizeof(double));
	b->group = xmalloc((size_t)n * 2 * sizeof(int));
	b->size = xmalloc((size_t)n * sizeof(int));
	b->cnt = xmalloc((size_t)n * sizeof(int));
}

static void line_buf_release(struct line_buf *b)
{
	free(b->x);
	free(b->y);
	free(b->r);
	free(b->group);
	free(b->size);
	free(b->cnt);
}

/* One parameter: the single-parameter model of all points is the result. */
static void fit_one_param(struct ws *w, struct modeler *ctx, const struct agg *a,
			  const struct model_options *opt, struct pmnf_model *out)
{
	struct sp_fit sp;
	fit_single(w, ctx, a->x, a->y, a->r, a->n, opt, &a->nz, &sp);
	out->constant = sp.c0;
	if (sp.hyp >= 0) {
		struct surv one = { 0, sp.hyp, sp.c0, sp.c1, NULL, 1, { sp.hyp } };
		add_term(out, &one, 1, 1, sp.c1);
	}
	out->cv_smape = sp.hyp >= 0 ? sp.cv_smape : NAN;
	out->lof_p = sp.lof_p;
}

/* The single-parameter model of each active parameter's line; returns the non-constant ones. */
static int line_survivors(struct ws *w, struct modeler *ctx, const struct agg *a,
			  const struct model_options *opt, uint64_t active, int constrained,
			  struct surv *s)
{
	struct line_buf b;
	int ns = 0;
	line_buf_init(&b, a->n);
	for (int p = 0; p < a->m && ns < 31; p++) {
		if ((p < 64 && !(active & ((uint64_t)1 << p))) || (p >= 64 && constrained))
			continue;
		struct sp_fit sp;
		int nl = find_line(a, p, b.x, b.y, b.r, b.group, b.size, b.cnt);
		fit_single(w, ctx, b.x, b.y, b.r, nl, opt, &a->nz, &sp);
		if (sp.hyp >= 0)
			s[ns++] = (struct surv){ p, sp.hyp, sp.c0, sp.c1, NULL, sp.nalt > 0 ? sp.nalt : 1,
						 { sp.nalt > 0 ? sp.alt[0] : sp.hyp, sp.alt[1], sp.alt[2] } };
	}
	line_buf_release(&b);
	return ns;
}

/*
 * Weighted fit of structure st (robust selection): rows scaled by
 * sqrt(r_i) / y_i, so residuals are relative.  Fills coef and the
 * lack-of-fit chi-square.
 */
static int fit_structure_rel(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			     const struct hyp_structure *st, double *coef, double *chi2)
{
	int k = st->nterms + 1, n = a->n;
	for (int i = 0; i < n; i++) {
		if (!(a->y[i] > 0))
			return -1;
		double sc = sqrt(a->r[i]) / a->y[i];
		w->X[i * k] = sc;
		for (int t = 0; t < st->nterms; t++)
			w->X[i * k + 1 + t] = sc * mask_value(a, i, s, ns, st->mask[t]);
		w->y[i] = sc * a->y[i];
	}
	if (lsq(w, n, k) < 0)
		return -1;
	memcpy(coef, w->c, (size_t)k * sizeof(double));
	double *f = w->res;
	for (int i = 0; i < n; i++) {
		f[i] = coef[0];
		for (int t = 0; t < st->nterms; t++)
			f[i] += coef[1 + t] * mask_value(a, i, s, ns, st->mask[t]);
	}
	*chi2 = lof_chi2(f, a->y, a->r, n, &a->nz);
	return isfinite(*chi2) ? 0 : -1;
}

/* 1 when every term of structure st with coef contributes enough (Extra-P's rule). */
static int structure_contributes(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				 const struct hyp_structure *st, const double *coef,
				 const struct model_options *opt)
{
	for (int t = 0; t < st->nterms; t++) {
		for (int i = 0; i < a->n; i++)
			w->t[i] = mask_value(a, i, s, ns, st->mask[t]);
		if (!term_contributes(coef[1 + t], w->t, a->y, a->n, opt))
			return 0;
	}
	return 1;
}

/*
 * Robust choice among the candidate structures: fewest terms not rejected
 * by the lack-of-fit test, best fit among those.  Returns the index, -1
 * when every one is rejected or the test does not apply (the caller falls
 * back to Extra-P's best fit).
 */
static int select_structure_robust(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				   const struct hyp_structure *cand, int nc,
				   const struct model_options *opt, double *best_coef, double *p_out,
				   double *chi2_out)
{
	int best_ok = -1;
	double chi_ok = INFINITY, coef[MAX_COLS], ok_coef[MAX_COLS], p_ok = NAN;
	if (a->nz.dof <= 0)
		return -1;
	for (int i = 0; i < nc; i++) {
		double chi2;
		if (fit_structure_rel(w, a, s, ns, &cand[i], coef, &chi2) < 0 ||
		    !structure_contributes(w, a, s, ns, &cand[i], coef, opt))
			continue;
		double p = lof_p(chi2, a->n, cand[i].nterms + 1, &a->nz);
		int simpler = best_ok < 0 || cand[i].nterms < cand[best_ok].nterms;
		int same = best_ok >= 0 && cand[i].nterms == cand[best_ok].nterms && chi2 < chi_ok;
		if (p >= opt->alpha && (simpler || same)) {
			best_ok = i;
			chi_ok = chi2;
			p_ok = p;
			memcpy(ok_coef, coef, sizeof(coef));
		}
	}
	if (best_ok >= 0) {
		memcpy(best_coef, ok_coef, sizeof(ok_coef));
		*p_out = p_ok;
		*chi2_out = chi_ok;
	}
	return best_ok;         /* -1 when all are rejected: Extra-P's best fit */
}

/* Extra-P's choice: the lowest SMAPE among contributing structures, the first one to start. */
static int select_structure_extrap(struct ws *w, const struct agg *a, const struct surv *s, int ns,
				   const struct hyp_structure *cand, int nc,
				   const struct model_options *opt, double *best_coef)
{
	int best = -1;
	double best_sm = INFINITY, coef[MAX_COLS];
	for (int i = 0; i < nc; i++) {
		double sm;
		int contributes;
		if (fit_structure(w, a, s, ns, &cand[i], opt, coef, &sm, &contributes) < 0)
			continue;
		/* Extra-P starts from the first candidate whatever its terms contribute */
		if (best < 0 ? 1 : (contributes && sm < best_sm)) {
			best = i;
			best_sm = sm;
			memcpy(best_coef, coef, sizeof(coef));
		}
	}
	return best;
}

/* The candidate structures: the dependency structure first (constrained), then Extra-P's. */
static int candidate_structures(const struct surv *s, int ns, const uint64_t *cm, int ncm,
				int constrained, struct hyp_structure *cand)
{
	int nc = 0;
	if (constrained) {
		struct hyp_structure dep = { 0, { 0 } };
		for (int j = 0; j < ncm && dep.nterms < HYP_MAX_TERMS; j++) {
			unsigned sm = 0;
			for (int b = 0; b < ns; b++)
				if (cm[j] & ((uint64_t)1 << s[b].param))
					sm |= 1u << b;
			int dup = !sm;
			for (int t = 0; t < dep.nterms; t++)
				dup |= dep.mask[t] == sm;
			if (!dup)
				dep.mask[dep.nterms++] = sm;
		}
		if (dep.nterms > 0)
			cand[nc++] = dep;
	}
	struct hyp_structure all[MAX_STRUCTS];
	int na = hypothesis_structures(ns, all);
	for (int i = 0; i < na; i++)
		if (!constrained || structure_allowed(&all[i], s, ns, cm, ncm))
			cand[nc++] = all[i];
	return nc;
}

/* One surviving parameter: its line's term, or the same term refitted on all points. */
static void combine_one(struct ws *w, const struct agg *a, const struct model_input *in,
			const struct surv *s, const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure st = { 1, { 1 } };
	double coef[2], sm, chi2;
	int contributes;
	if (opt->selection == MODEL_SELECT_ROBUST && a->nz.dof > 0 &&
	    fit_structure_rel(w, a, s, 1, &st, coef, &chi2) == 0) {
		out->constant = coef[0];
		add_term(out, s, 1, 1, coef[1]);
		out->lof_p = lof_p(chi2, a->n, 2, &a->nz);
		return;
	}
	/* Extra-P: the line's coefficients or ones recomputed on all points */
	struct pmnf_model reuse;
	pmnf_init(&reuse, a->m, in->params);
	reuse.constant = s[0].c0;
	add_term(&reuse, s, 1, 1, s[0].c1);
	quality(&reuse, a);
	if (fit_structure(w, a, s, 1, &st, opt, coef, &sm, &contributes) == 0 && sm < reuse.smape) {
		out->constant = coef[0];
		add_term(out, s, 1, 1, coef[1]);
	} else {
		out->constant = reuse.constant;
		add_term(out, s, 1, 1, s[0].c1);
	}
	pmnf_release(&reuse);
}

/* Several surviving parameters: the best combination structure. */
static void combine_many(struct ws *w, const struct agg *a, const struct surv *s, int ns,
			 const uint64_t *cm, int ncm, int constrained,
			 const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure cand[MAX_STRUCTS + 1];
	int nc = candidate_structures(s, ns, cm, ncm, constrained, cand), best = -1;
	double coef[MAX_COLS] = { 0 }, p = NAN, chi2;
	if (opt->selection == MODEL_SELECT_ROBUST)
		best = select_structure_robust(w, a, s, ns, cand, nc, opt, coef, &p, &chi2);
	if (best < 0)
		best = select_structure_extrap(w, a, s, ns, cand, nc, opt, coef);
	else
		out->lof_p = p;
	if (best < 0) {
		set_constant(out, a);
		return;
	}
	out->constant = coef[0];
	for (int t = 0; t < cand[best].nterms; t++)
		add_term(out, s, ns, cand[best].mask[t], coef[1 + t]);
}

/* Each surviving parameter's term values at every point, from its hypothesis s[b].hyp. */
static void surv_terms(const struct agg *a, struct surv *s, int ns)
{
	const struct hyp_exponent *hyps;
	hypothesis_defaults(&hyps);
	for (int b = 0; b < ns; b++)
		for (int i = 0; i < a->n; i++)
			s[b].tv[i] = hyp_term(&hyps[s[b].hyp], a->x[(size_t)i * a->m + s[b].param]);
}

/* Put every survivor on its c-th combination of alternatives (mixed radix over nalt). */
static void surv_combo(struct surv *s, int ns, int c)
{
	for (int b = 0; b < ns; b++) {
		s[b].hyp = s[b].alt[c % s[b].nalt];
		c /= s[b].nalt;
	}
}

#define JOINT_MAX 27

/* One combination's result in the joint choice. */
struct joint_try {
	int st, nterms, complexity;
	double chi2, p, coef[MAX_COLS];
};

/* The choice among the tries: fewest terms, then the simplest of those within LOF_TIE_CHI2 of the best fit. */
static int joint_pick(const struct joint_try *t, int n)
{
	int best = -1, pick = -1;
	for (int c = 0; c < n; c++)
		if (t[c].st >= 0 && (best < 0 || t[c].nterms < t[best].nterms ||
				     (t[c].nterms == t[best].nterms && t[c].chi2 < t[best].chi2)))
			best = c;
	for (int c = 0; c < n && best >= 0; c++)
		if (t[c].st >= 0 && t[c].nterms == t[best].nterms &&
		    (pick < 0 || tie_key(t[c].chi2, t[best].chi2, t[c].complexity) <
				 tie_key(t[pick].chi2, t[best].chi2, t[pick].complexity)))
			pick = c;
	return pick;
}

/*
 * Robust selection on all points: a line of 5 points cannot tell i from
 * i^(2/3) * log2(i) (with its own constant they differ by less than the
 * noise), but all points can (n^3 * i^(2/3) * log2(i) vanishes at i = 1).
 * So every combination of the hypotheses each line does not reject (its
 * SP_ALT first) is tried with every candidate structure, and the choice is
 * the fewest terms not rejected on all points, then the simplest of those
 * that fit as well as the best (joint_pick).  Returns 0 with out set (s[]
 * on the chosen hypotheses), or -1 when every combination is rejected
 * (s[] back on each line's choice).
 */
static int joint_robust(struct ws *w, const struct agg *a, struct surv *s, int ns, const uint64_t *cm,
			int ncm, int constrained, const struct model_options *opt, struct pmnf_model *out)
{
	struct hyp_structure cand[MAX_STRUCTS + 1];
	struct joint_try tries[JOINT_MAX];
	const struct hyp_exponent *hyps;
	int ncombo = 1;
	if (a->nz.dof <= 0)
		return -1;
	hypothesis_defaults(&hyps);
	for (int b = 0; b < ns; b++)
		ncombo *= s[b].nalt;
	ncombo = ncombo <= JOINT_MAX ? ncombo : 1;
	int nc = ns == 1 ? 1 : candidate_structures(s, ns, cm, ncm, constrained, cand);
	if (ns == 1)
		cand[0] = (struct hyp_structure){ 1, { 1 } };
	for (int c = 0; c < ncombo; c++) {
		struct joint_try *t = &tries[c];
		surv_combo(s, ns, c);
		surv_terms(a, s, ns);
		t->st = select_structure_robust(w, a, s, ns, cand, nc, opt, t->coef, &t->p, &t->chi2);
		t->nterms = t->st >= 0 ? cand[t->st].nterms : 0;
		t->complexity = 0;
		for (int b = 0; b < ns; b++)
			t->complexity += hyp_complexity(&hyps[s[b].hyp]);
	}
	int best = joint_pick(tries, ncombo);
	surv_combo(s, ns, best >= 0 ? best : 0);
	surv_terms(a, s, ns);
	if (best < 0)
		return -1;
	out->constant = tries[best].coef[0];
	for (int t = 0; t < cand[tries[best].st].nterms; t++)
		add_term(out, s, ns, cand[tries[best].st].mask[t], tries[best].coef[1 + t]);
	out->lof_p = tries[best].p;
	return 0;
}

static int fit_multi(struct ws *w, struct modeler *ctx, const struct agg *a, const struct model_input *in,
		     const struct model_options *opt, const uint64_t *cm, int ncm, int constrained,
		     struct pmnf_model *out)
{
	uint64_t active = constrained ? 0 : ~(uint64_t)0;
	for (int j = 0; j < ncm; j++)
		active |= cm[j];
	if (a->m == 1) {
		if (active & 1)
			fit_one_param(w, ctx, a, opt, out);
		else
			set_constant(out, a);
		return 0;
	}
	struct surv s[31];
	int ns = line_survivors(w, ctx, a, opt, active, constrained, s);
	double *tvs = xmalloc((size_t)(ns > 0 ? ns : 1) * (size_t)a->n * sizeof(double));
	for (int b = 0; b < ns; b++)
		s[b].tv = &tvs[(size_t)b * a->n];
	surv_terms(a, s, ns);
	if (ns == 0)
		set_constant(out, a);
	else if (opt->selection == MODEL_SELECT_ROBUST &&
		 joint_robust(w, a, s, ns, cm, ncm, constrained, opt, out) == 0)
		;
	else if (ns == 1)
		combine_one(w, a, in, s, opt, out);
	else
		combine_many(w, a, s, ns, cm, ncm, constrained, opt, out);
	free(tvs);
	return 0;
}

/*
 * Robust selection with a constraint whose function has an expected
 * volume that is one PMNF term: c0 + c1 * that term, tested first, is the
 * model when the data do not reject it (and c1 > 0).  When the lack-of-fit
 * test rejects it, it is still the model when its residuals follow no
 * coordinate (lof_trend_p at alpha): the points scatter about the expected
 * law by more than their repetitions show (a kernel's speed at particular
 * sizes, the host's level at the moment each point was measured), and no
 * other law would fit better but by following that scatter.  Returns 0
 * with out set, -1 otherwise (out untouched).
 */
static int fit_expected(const struct agg *a, const struct model_input *in,
			const struct model_constraint *c, const struct model_options *opt,
			struct pmnf_model *out)
{
	struct pmnf_factor f[64];
	if (opt->selection != MODEL_SELECT_ROBUST || !c || !c->func || !c->func->expect ||
	    a->nz.dof <= 0 || a->n < 3 || a->m > 64)
		return -1;
	int nf = expected_term(c->func, c->deps, a->m, in->params, a->x, a->n,
			       logs_allowed(opt, a->x, (size_t)a->n * (size_t)a->m), f);
	if (nf <= 0)
		return -1;
	struct pmnf_term t = { 1, nf, f };
	double *tv = xmalloc(sizeof(double) * (size_t)a->n), c0, c1, chi2, p = 0, trend = NAN;
	for (int i = 0; i < a->n; i++)
		tv[i] = pmnf_term_eval(&t, &a->x[(size_t)i * (size_t)a->m]);
	int fitted = lof_fit_line(tv, a->y, a->r, a->n, &a->nz, &c0, &c1, &chi2) == 0 && c1 > 0;
	int ok = fitted && (p = lof_p(chi2, a->n, 2, &a->nz)) >= opt->alpha;
	if (fitted && !ok) {
		double *e = xmalloc(sizeof(double) * (size_t)a->n);
		for (int i = 0; i < a->n; i++)
			e[i] = (a->y[i] - c0 - c1 * tv[i]) / a->y[i];
		ok = lof_trend_p(e, a->r, a->x, a->n, a->m, &trend) == 0 && trend >= opt->alpha;
		free(e);
	}
	free(tv);
	if (!ok)
		return -1;
	out->constant = c0;
	pmnf_add_term(out, c1, nf, f);
	out->lof_p = p;
	out->trend_p = trend;
	out->expected = 1;
	return 0;
}

int modeler_fit(const struct model_input *in, const struct model_options *opt,
		const struct model_constraint *constraint, struct pmnf_model *out,
		struct perr *err)
{
	return modeler_fit_ctx(NULL, in, opt, constraint, out, err);
}

int modeler_fit_ctx(struct modeler *ctx, const struct model_input *in, const struct model_options *opt,
		    const struct model_constraint *constraint, struct pmnf_model *out,
		    struct perr *err)
{
	struct model_options def;
	struct agg a;
	struct ws w;
	uint64_t cm[MAX_CONSTRAINT_TERMS];
	int ncm = 0;
	struct modeler *own = NULL;

	gsl_set_error_handler_off();
	pmnf_init(out, in->nparams, in->params);
	if (!opt) {
		model_options_init(&def);
		opt = &def;
	}
	if (in->nparams < 1)
		return perr_set(err, "no parameters");
	if (constraint && in->nparams > 64)
		return perr_set(err, "too many parameters for a constrained model (%d, at most 64)", in->nparams);
	if (agg_build(&a, in, opt, err) < 0) {
		agg_release(&a);
		return -1;
	}
	if (!ctx)
		ctx = own = modeler_new();
	if (constraint)
		ncm = constraint_masks(in, constraint, cm, MAX_CONSTRAINT_TERMS);
	/* columns: the constant plus at most max(3, parameters) terms, or the dependency terms */
	ws_init(&w, a.n, 1 + (in->nparams > 3 ? in->nparams : 3) + (constraint ? ncm : 0));
	if (constraint && ncm == 0)
		set_constant(out, &a);
	else if (fit_expected(&a, in, constraint, opt, out) == 0)
		;
	else
		fit_multi(&w, ctx, &a, in, opt, cm, ncm, constraint != NULL, out);
	quality(out, &a);
	ws_release(&w);
	agg_release(&a);
	modeler_free(own);
	return 0;
}

int modeler_fit_series(const struct experiment *e, int callpath, int metric,
		       const struct model_options *opt,
		       const struct model_constraint *constraint,
		       struct pmnf_model *out, struct perr *err)
{
	return modeler_fit_series_ctx(NULL, e, callpath, metric, opt, constraint, out, err);
}

int modeler_fit_series_ctx(struct modeler *ctx, const struct experiment *e, int callpath, int metric,
			   const struct model_options *opt,
			   const struct model_constraint *constraint,
			   struct pmnf_model *out, struct perr *err)
{
	const struct exp_series *s = experiment_series(e, callpath, metric);
	if (!s) {
		pmnf_init(out, e->nparams, e->params);
		return perr_set(err, "no values for callpath '%s' and metric '%s'",
				callpath >= 0 && callpath < e->ncallpaths ? e->callpaths[callpath] : "?",
				metric >= 0 && metric < e->nmetrics ? e->metrics[metric] : "?");
	}
	struct model_input in = {
		.nparams = e->nparams, .params = e->params, .npoints = e->npoints,
		.coords = e->coords, .values = s->at,
	};
	struct model_options mo = model_options_for_series(opt, e, s);
	return modeler_fit_ctx(ctx, &in, &mo, constraint, out, err);
}
