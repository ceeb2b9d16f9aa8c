/*
 * The single-parameter search on one line of points: Extra-P's leave-one-out
 * cross-validated SMAPE over the default building blocks, and the robust
 * selection's lack-of-fit choice, with the context's cached factorisations.
 */
#include "models/modeler_impl.h"
#include "common/xalloc.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <stdlib.h>
#include <string.h>

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

/* One left-out point's error: the refit c0 + c1 * t against y (minimum: of the other points). */
static void loo_add(double c0, double c1, double t, double y, double minimum,
		    const struct model_options *opt, double *rss, double *sm)
{
	/* Extra-P's clean_constant_coefficient */
	if (minimum == 0 ? fabs(c0) < opt->min_contribution
			 : fabs(c0 / minimum) < opt->min_contribution)
		c0 = 0;
	double f = c0 + c1 * t, d = f - y;
	*rss += d * d;
	*sm += smape_term(f, y);
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
		loo_add(w->c[0], w->c[1], t[oi], y[oi], minimum, opt, &rss, &sm);
	}
	*smape = sm / n * 100;
	return isfinite(rss) ? 0 : -1;
}

/*
 * The same leave-one-out SMAPE on a long line (more than CACHE_MAX_POINTS
 * points) in O(n) instead of n factorisations of n rows: each fit without
 * point i comes from the whole line's centred sums with point i taken out
 * (Welford's downdate).  Where that would cancel more than six digits (one
 * point holding nearly all of t's spread) or the system is near the rank
 * test, that fit is factorised as on short lines.  It agrees with the QR
 * fits to about 1e-10 relative, not to the last bit.
 */
static int sp_loo_long(struct ws *w, const struct sp_entry *en, int h, const double *y, int n,
		       const struct model_options *opt, double *smape)
{
	const double *t = &en->t[(size_t)h * n];
	double mt = 0, my = 0, raw = 0, stt = 0, sty = 0, min1 = INFINITY, min2 = INFINITY;
	int lowest = -1;
	for (int i = 0; i < n; i++) {
		mt += t[i];
		my += y[i];
		raw += t[i] * t[i];
		if (y[i] < min1) {
			min2 = min1;
			min1 = y[i];
			lowest = i;
		} else if (y[i] < min2) {
			min2 = y[i];
		}
	}
	mt /= n;
	my /= n;
	for (int i = 0; i < n; i++) {
		stt += (t[i] - mt) * (t[i] - mt);
		sty += (t[i] - mt) * (y[i] - my);
	}
	double k = (double)n / (n - 1), rss = 0, sm = 0;
	for (int oi = 0; oi < n; oi++) {
		double dt = t[oi] - mt, dy = y[oi] - my;
		double stt1 = stt - k * dt * dt, sty1 = sty - k * dt * dy;
		double raw1 = raw - t[oi] * t[oi], c0, c1;
		if (stt1 > 1e-6 * stt && stt1 > 4 * RANK_TOL * RANK_TOL * raw1) {
			c1 = sty1 / stt1;
			c0 = my - dy / (n - 1) - c1 * (mt - dt / (n - 1));
		} else {
			int r = 0;
			for (int i = 0; i < n; i++)
				if (i != oi)
					w->y[r++] = y[i];
			if (sp_solve(w, en, h, oi, r) < 0)
				return -1;
			c0 = w->c[0];
			c1 = w->c[1];
		}
		if (!isfinite(c0) || !isfinite(c1))
			return -1;
		loo_add(c0, c1, t[oi], y[oi], oi == lowest ? min2 : min1, opt, &rss, &sm);
	}
	*smape = sm / n * 100;
	return isfinite(rss) ? 0 : -1;
}

/* Extra-P's single-parameter modeller on n points (x[i], y[i]). */
static void fit_single_extrap(struct ws *w, const struct sp_entry *en, const double *y, int n,
			      const struct model_options *opt, struct sp_fit *out)
{
	for (int h = 0; h < en->nh; h++) {
		double sm;
		if (!en->usable[h] ||
		    (en->stored ? sp_loo(w, en, h, y, n, opt, &sm) : sp_loo_long(w, en, h, y, n, opt, &sm)) < 0)
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
	unsigned char accepted[HYP_MAX_DEFAULTS];
	struct sp_fit ok = constant, any = constant;
	for (int h = 0; h < en->nh && h < HYP_MAX_DEFAULTS; h++) {
		const double *t = &en->t[(size_t)h * n];
		hchi[h] = INFINITY;
		accepted[h] = 0;
		if (!en->usable[h] || lof_fit_line(t, y, r, n, nz, &hc0[h], &hc1[h], &hchi[h]) < 0 ||
		    !term_contributes(hc1[h], t, y, n, opt)) {
			hchi[h] = INFINITY;
			continue;
		}
		if (hchi[h] < best_any) {
			best_any = hchi[h];
			any = (struct sp_fit){ h, hc0[h], hc1[h], NAN, NAN, 1, { h } };
		}
		accepted[h] = lof_accepts(hchi[h], n, 2, nz, opt->alpha);
		if (accepted[h] && hchi[h] < best_ok)
			best_ok = hchi[h];
	}
	for (int h = 0; h < en->nh && h < HYP_MAX_DEFAULTS; h++)
		if (isfinite(best_ok) && accepted[h] &&
		    alt_insert(ok.alt, keys, &ok.nalt, h, tie_key(hchi[h], best_ok, hyp_complexity(&hyps[h]))) == 0)
			ok = (struct sp_fit){ h, hc0[h], hc1[h], NAN, NAN, ok.nalt,
					      { ok.alt[0], ok.alt[1], ok.alt[2] } };
	if (ok.hyp < 0 && !opt->relative_fallback)
		return -1;      /* every hypothesis rejected: Extra-P's best fit (out untouched) */
	*out = ok.hyp >= 0 ? ok : any;
	/* the tail probability of the chosen hypothesis only */
	if (out->hyp >= 0)
		out->lof_p = lof_p(hchi[out->hyp], n, 2, nz);
	return 0;
}

/* The single-parameter modeller on n points (x[i], y[i]), r[i] repetitions each. */
void fit_single(struct ws *w, struct modeler *ctx, const double *x, const double *y,
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
