/* Change-point detection along a parameter line: best two-model split and an F-test. */
#include "validator/segment.h"
#include "common/xalloc.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fit points[lo..hi) of the line; rss over every repetition value. */
static int fit_range(const struct experiment *e, const struct exp_series *s, const int *points,
		     int lo, int hi, int param, const struct model_options *opt,
		     struct pmnf_model *m, double *rss, struct perr *err)
{
	int n = hi - lo;
	double *xs = xmalloc(sizeof(double) * (size_t)n);
	struct exp_values *vals = xmalloc(sizeof(*vals) * (size_t)n);
	for (int i = 0; i < n; i++) {
		xs[i] = experiment_coord(e, points[lo + i], param);
		vals[i] = s->at[points[lo + i]];
	}
	char *names[1] = { e->params[param] };
	struct model_input in = {
		.nparams = 1, .params = names, .npoints = n, .coords = xs, .values = vals,
	};
	int rc = modeler_fit(&in, opt, NULL, m, err);
	if (rc == 0) {
		double sum = 0;
		for (int i = 0; i < n; i++) {
			double f = pmnf_eval(m, &xs[i]);
			for (int r = 0; r < vals[i].n; r++)
				sum += (vals[i].v[r] - f) * (vals[i].v[r] - f);
		}
		*rss = sum;
	}
	free(xs);
	free(vals);
	return rc;
}

/* Free parameters of a one-parameter model: coefficients plus the exponent choice. */
static int model_dof(const struct pmnf_model *m)
{
	return 1 + 2 * m->nterms;
}

int segment_test(const struct experiment *e, const struct exp_series *s, const struct vline *line,
		 int min_points, const struct model_options *opt, struct segment_result *r,
		 struct perr *err)
{
	memset(r, 0, sizeof(*r));
	r->param = line->param;
	r->change = -1;
	r->x_before = r->x_after = r->f = r->p_value = NAN;
	r->rss_one = r->rss_two = r->improvement = NAN;
	char *names[1] = { e->params[line->param] };
	pmnf_init(&r->one, 1, names);
	pmnf_init(&r->left, 1, names);
	pmnf_init(&r->right, 1, names);
	if (!s)
		return 0;
	gsl_set_error_handler_off();
	r->points = xmalloc(sizeof(int) * (size_t)(line->npoints ? line->npoints : 1));
	int nobs = 0;
	for (int i = 0; i < line->npoints; i++)
		if (s->at[line->points[i]].n) {
			r->points[r->npoints++] = line->points[i];
			nobs += s->at[line->points[i]].n;
		}
	int n = r->npoints;
	if (n < min_points || n < 2 * SEGMENT_MIN_SIDE)
		return 0;

	pmnf_release(&r->one);
	if (fit_range(e, s, r->points, 0, n, line->param, opt, &r->one, &r->rss_one, err) < 0)
		return -1;
	int best = -1;
	double best_rss = INFINITY;
	for (int k = SEGMENT_MIN_SIDE; k <= n - SEGMENT_MIN_SIDE; k++) {
		struct pmnf_model a, b;
		double ra, rb;
		if (fit_range(e, s, r->points, 0, k, line->param, opt, &a, &ra, err) < 0) {
			pmnf_release(&a);
			return -1;
		}
		if (fit_range(e, s, r->points, k, n, line->param, opt, &b, &rb, err) < 0) {
			pmnf_release(&a);
			pmnf_release(&b);
			return -1;
		}
		if (ra + rb < best_rss) {
			best_rss = ra + rb;
			best = k;
			pmnf_release(&r->left);
			pmnf_release(&r->right);
			r->left = a;
			r->right = b;
		} else {
			pmnf_release(&a);
			pmnf_release(&b);
		}
	}
	r->change = best;
	r->rss_two = best_rss;
	r->x_before = experiment_coord(e, r->points[best - 1], line->param);
	r->x_after = experiment_coord(e, r->points[best], line->param);
	r->improvement = r->rss_one > 0 ? 1 - r->rss_two / r->rss_one : 0;
	int k1 = model_dof(&r->one), k2 = model_dof(&r->left) + model_dof(&r->right) + 1;
	r->df1 = k2 - k1;
	r->df2 = nobs - k2;
	if (r->df1 < 1 || r->df2 < 1) {
		/* no room for a test: only an exact two-regime fit counts */
		r->p_value = r->rss_two == 0 && r->rss_one > 0 ? 0 : 1;
		return 1;
	}
	if (r->rss_two > 0) {
		r->f = ((r->rss_one - r->rss_two) / r->df1) / (r->rss_two / r->df2);
		r->p_value = r->f > 0 ? gsl_cdf_fdist_Q(r->f, r->df1, r->df2) : 1;
	} else {
		r->f = r->rss_one > 0 ? INFINITY : 0;
		r->p_value = r->rss_one > 0 ? 0 : 1;
	}
	return 1;
}

void segment_result_release(struct segment_result *r)
{
	pmnf_release(&r->one);
	pmnf_release(&r->left);
	pmnf_release(&r->right);
	free(r->points);
	memset(r, 0, sizeof(*r));
}
