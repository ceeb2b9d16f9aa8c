/* A trend in NEW/BASE that a fixed part, the same on both sides, explains (see compare_fixed.h). */
#include "common/xalloc.h"
#include "validator/compare_fixed.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid over s / min BASE: s from 0 to just below the smallest base value. */
#define FIXED_GRID 200
#define FIXED_S_MAX 0.995

/* The points used: finite log ratio, positive base value and weight. */
struct fixed_work {
	int n;
	int *row;
	double *y, *b, *w;
};

/*
 * The weighted squared error of the log ratios for fixed part s and factor
 * exp(lb).  The curve reads the measured base value, whose own noise then
 * enters twice (in y and in s / BASE_i): with c = d log(ratio) / d log BASE
 * = (beta - 1) q / ratio, a residual's variance is var(new) + (1 + c)^2
 * var(base) instead of var(new) + var(base), the two sides taken as equally
 * noisy (the delta method; without it the fit test rejected a true curve
 * in 5 of 100 generated pairs at alpha 0.01).
 */
static double sq_error(const struct fixed_work *fw, double s, double lb)
{
	double beta = exp(lb), e = 0;
	for (int i = 0; i < fw->n; i++) {
		double q = s / fw->b[i], ratio = beta * (1 - q) + q, r = fw->y[i] - log(ratio);
		double c = (beta - 1) * q / ratio;
		e += fw->w[i] * 2 / (1 + (1 + c) * (1 + c)) * r * r;
	}
	return e;
}

/* The best log factor for fixed part s: golden-section search over [lo, hi]. */
static double best_log_beta(const struct fixed_work *fw, double s, double lo, double hi, double *err)
{
	const double g = (sqrt(5) - 1) / 2;
	double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
	double fc = sq_error(fw, s, c), fd = sq_error(fw, s, d);
	for (int it = 0; it < 80 && b - a > 1e-10; it++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - g * (b - a);
			fc = sq_error(fw, s, c);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + g * (b - a);
			fd = sq_error(fw, s, d);
		}
	}
	double lb = (a + b) / 2;
	*err = sq_error(fw, s, lb);
	return lb;
}

/* Condition 3: the residuals' own trend, by the rule of a scaling change. */
static void residual_trend(const struct trend_input *in, const struct fixed_work *fw, double alpha, double tol,
			   struct fixed_part *fp)
{
	double *r = xmalloc(sizeof(double) * ((size_t)in->n + 1));
	for (int i = 0; i < in->n; i++)
		r[i] = NAN;
	double beta = fp->beta;
	for (int i = 0; i < fw->n; i++) {
		double q = fp->s / fw->b[i];
		r[fw->row[i]] = fw->y[i] - log(beta * (1 - q) + q);
	}
	struct trend_input rin = *in;
	rin.y = r;
	struct compare_trend rt;
	struct perr err;
	int trend = 0;
	fp->trend_p = NAN;
	if (compare_trend_fit(&rin, alpha, &rt, &err) == 0) {
		for (int k = 0; k < rt.nparams; k++) {
			const struct trend_param *tp = &rt.param[k];
			if (!tp->tested)
				continue;
			fp->trend_p = isnan(fp->trend_p) ? tp->p : fmin(fp->trend_p, tp->p);
			trend |= tp->p < alpha && ((tp->slope > 0 && tp->excess_2x_lo > tol) ||
						   (tp->slope < 0 && tp->excess_2x_hi < -tol));
		}
	}
	compare_trend_release(&rt);
	free(r);
	fp->explains = fp->explains && !trend;
}

void compare_fixed_fit(const struct trend_input *in, const double *base, const struct compare_trend *t,
		       double alpha, double tol, struct fixed_part *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp->s = fp->beta = fp->fit_p = fp->trend_p = NAN;
	struct fixed_work fw = { 0 };
	size_t n = (size_t)in->n + 1;
	double *wt = xmalloc(sizeof(double) * n);
	compare_trend_pooled_weights(in, wt);
	fw.row = xmalloc(sizeof(int) * n);
	fw.y = xmalloc(sizeof(double) * n);
	fw.b = xmalloc(sizeof(double) * n);
	fw.w = xmalloc(sizeof(double) * n);
	double bmin = INFINITY, ylo = INFINITY, yhi = -INFINITY;
	for (int i = 0; i < in->n; i++)
		if (isfinite(in->y[i]) && base[i] > 0 && wt[i] > 0) {
			fw.row[fw.n] = i;
			fw.y[fw.n] = in->y[i];
			fw.b[fw.n] = base[i];
			fw.w[fw.n++] = wt[i];
			bmin = fmin(bmin, base[i]);
			ylo = fmin(ylo, in->y[i]);
			yhi = fmax(yhi, in->y[i]);
		}
	free(wt);
	if (fw.n >= 3) {
		fp->tested = 1;
		double best = INFINITY;
		/* beta * (1 - q) + q spans the ratios: log beta beyond them by a margin */
		for (int j = 0; j < FIXED_GRID; j++) {
			double s = bmin * FIXED_S_MAX * j / (FIXED_GRID - 1), e;
			double lb = best_log_beta(&fw, s, fmin(ylo, 0) - 3, fmax(yhi, 0) + 3, &e);
			if (e < best) {
				best = e;
				fp->s = s;
				fp->beta = exp(lb);
			}
		}
		int dof = fw.n - 2;
		fp->explains = fp->s > 0;
		if (t->weighted && t->rep_dof > 0) {
			fp->fit_p = gsl_cdf_fdist_Q(best / dof, dof, t->rep_dof);
			fp->explains = fp->explains && fp->fit_p >= alpha;
		}
		if (fp->explains)
			residual_trend(in, &fw, alpha, tol, fp);
	}
	free(fw.row);
	free(fw.y);
	free(fw.b);
	free(fw.w);
}
