/* The lack-of-fit test against the replicates' relative pure error. */
#include "models/lof.h"
#include "common/xalloc.h"
#include "models/lsq.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

void lof_noise_pool(const struct point_estimate *pe, int n, enum model_aggregate how,
		    struct lof_noise *out)
{
	double ss = 0;
	int dof = 0;
	for (int i = 0; i < n; i++)
		if (pe[i].n >= 2 && isfinite(pe[i].rel_var)) {
			ss += pe[i].rel_var * (pe[i].n - 1);
			dof += pe[i].n - 1;
		}
	out->dof = dof;
	out->s2 = dof ? ss / dof : NAN;
	if (dof && !(out->s2 >= LOF_MIN_REL_SD * LOF_MIN_REL_SD))
		out->s2 = LOF_MIN_REL_SD * LOF_MIN_REL_SD;
	out->factor = how == MODEL_MEDIAN ? M_PI / 2 : how == MODEL_MIN ? 2 : 1;
}

double lof_chi2(const double *f, const double *y, const double *r, int n, const struct lof_noise *nz)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		double d = (y[i] - f[i]) / y[i];
		s += r[i] * d * d;
	}
	return s / (nz->factor * nz->s2);
}

double lof_p(double chi2, int n, int k, const struct lof_noise *nz)
{
	if (n <= k || nz->dof <= 0)
		return 1;
	if (!isfinite(chi2))
		return 0;
	return gsl_cdf_fdist_Q(chi2 / (n - k), n - k, nz->dof);
}

/*
 * The critical F of one test, kept per thread: a line's hypotheses share n,
 * k, dof and alpha, and the tail probability behind lof_p costs a log-beta.
 */
struct lof_crit {
	int d1, d2;
	double alpha, f;
};

#define LOF_CRIT_SLOTS 16

static double lof_crit_f(int d1, int d2, double alpha)
{
	static _Thread_local struct lof_crit slot[LOF_CRIT_SLOTS];
	static _Thread_local int next;
	for (int i = 0; i < LOF_CRIT_SLOTS; i++)
		if (slot[i].d1 == d1 && slot[i].d2 == d2 && slot[i].alpha == alpha)
			return slot[i].f;
	struct lof_crit *c = &slot[next];
	next = (next + 1) % LOF_CRIT_SLOTS;
	gsl_set_error_handler_off();
	*c = (struct lof_crit){ d1, d2, alpha, gsl_cdf_fdist_Qinv(alpha, d1, d2) };
	return c->f;
}

int lof_accepts(double chi2, int n, int k, const struct lof_noise *nz, double alpha)
{
	if (n <= k || nz->dof <= 0 || !isfinite(chi2) || !(alpha > 0 && alpha < 1))
		return lof_p(chi2, n, k, nz) >= alpha;
	double f = chi2 / (n - k), crit = lof_crit_f(n - k, nz->dof, alpha);
	/* the quantile is close, not exact: near it, the tail probability decides */
	if (isfinite(crit) && crit > 0 && f < crit * (1 - LOF_CRIT_MARGIN))
		return 1;
	if (isfinite(crit) && crit > 0 && f > crit * (1 + LOF_CRIT_MARGIN))
		return 0;
	return lof_p(chi2, n, k, nz) >= alpha;
}

int lof_fit_line(const double *t, const double *y, const double *r, int n,
		 const struct lof_noise *nz, double *c0, double *c1, double *chi2)
{
	double sw = 0, sy = 0, st = 0;
	for (int i = 0; i < n; i++) {
		if (!(y[i] > 0) || !isfinite(y[i]) || (t && !isfinite(t[i])))
			return -1;
		double w = r[i] / (y[i] * y[i]);
		sw += w;
		sy += w * y[i];
		st += t ? w * t[i] : 0;
	}
	double ybar = sy / sw, tbar = st / sw, stt = 0, sty = 0, raw = 0;
	*c1 = 0;
	if (t) {
		for (int i = 0; i < n; i++) {
			double w = r[i] / (y[i] * y[i]), dt = t[i] - tbar;
			stt += w * dt * dt;
			sty += w * dt * (y[i] - ybar);
			raw += w * t[i] * t[i];
		}
		if (!(stt > 1e-12 * raw))
			return -1;     /* t is (numerically) constant: no slope to fit */
		*c1 = sty / stt;
	}
	*c0 = ybar - *c1 * tbar;
	double s = 0;
	for (int i = 0; i < n; i++) {
		double d = (y[i] - *c0 - *c1 * (t ? t[i] : 0)) / y[i];
		s += r[i] * d * d;
	}
	*chi2 = s / (nz->factor * nz->s2);
	return isfinite(*c0) && isfinite(*c1) && isfinite(*chi2) ? 0 : -1;
}

int lof_trend_p(const double *e, const double *r, const double *x, int n, int m, double *p)
{
	int ncol = 1, *kind = xcalloc((size_t)(m ? m : 1), sizeof(int)), *logs = xcalloc((size_t)(m ? m : 1), sizeof(int));
	for (int k = 0; k < m; k++) {
		int distinct = 0, pos = 1;
		for (int i = 0; i < n && distinct < 3; i++) {
			int seen = 0;
			for (int j = 0; j < i && !seen; j++)
				seen = x[(size_t)j * m + k] == x[(size_t)i * m + k];
			distinct += !seen;
		}
		for (int i = 0; i < n; i++)
			pos &= x[(size_t)i * m + k] > 0;
		kind[k] = distinct >= 3 ? 2 : distinct == 2 ? 1 : 0;
		logs[k] = pos;
		ncol += kind[k];
	}
	int rc = -1;
	if (ncol > 1 && n - ncol >= 3) {
		gsl_set_error_handler_off();
		gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)ncol);
		gsl_vector *w = gsl_vector_alloc((size_t)n), *ev = gsl_vector_alloc((size_t)n);
		int finite = 1;
		for (int i = 0; i < n; i++) {
			size_t c = 0;
			gsl_matrix_set(X, (size_t)i, c++, 1);
			for (int k = 0; k < m; k++) {
				double v = x[(size_t)i * m + k], t = logs[k] ? log(v) : v;
				finite &= isfinite(t);
				if (kind[k] >= 1)
					gsl_matrix_set(X, (size_t)i, c++, t);
				if (kind[k] == 2)
					gsl_matrix_set(X, (size_t)i, c++, t * t);
			}
			gsl_vector_set(w, (size_t)i, r[i]);
			gsl_vector_set(ev, (size_t)i, e[i]);
		}
		double rss0, rss1, f;
		if (finite && lsq_rss(X, 1, w, ev, NULL, &rss0) == 0 && lsq_rss(X, (size_t)ncol, w, ev, NULL, &rss1) == 0) {
			*p = lsq_partial_f(rss0, &rss1, ncol - 1, n - ncol, &f);
			rc = 0;
		}
		gsl_matrix_free(X);
		gsl_vector_free(w);
		gsl_vector_free(ev);
	}
	free(kind);
	free(logs);
	return rc;
}
