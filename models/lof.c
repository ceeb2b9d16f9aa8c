/* The lack-of-fit test against the replicates' relative pure error. */
#include "models/lof.h"
#include <gsl/gsl_cdf.h>
#include <math.h>

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
