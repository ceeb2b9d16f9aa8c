/* The growth test: pooled relative slope, ANOVA and the model in X. */
#include "validator/contention.h"
#include "common/xalloc.h"
#include "models/points.h"
#include "validator/power.h"
#include "validator/vline.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean of the point means of a line; NaN when no point has values. */
static double line_level(const struct exp_series *s, const struct vline *l)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < l->npoints; i++) {
		const struct exp_values *v = &s->at[l->points[i]];
		if (!v->n)
			continue;
		double m = 0;
		for (int r = 0; r < v->n; r++)
			m += v->v[r];
		sum += m / v->n;
		n++;
	}
	return n ? sum / n : NAN;
}

static int distinct_x_with_values(const struct experiment *e, const struct exp_series *s,
				  const struct vline *l)
{
	int n = 0;
	double last = NAN;
	for (int i = 0; i < l->npoints; i++) {
		int p = l->points[i];
		if (!s->at[p].n)
			continue;
		double x = experiment_coord(e, p, l->param);
		if (n == 0 || x != last)
			n++;
		last = x;
	}
	return n;
}

static double growth_of(double b, double xbar, double xmin, double xmax)
{
	double base = 1 + b * (xmin - xbar);
	if (base <= 0)
		return NAN;
	return b * (xmax - xmin) / base;
}

/* A relative residual scatter below this is floating-point rounding, not a measurement's. */
#define CONTENTION_ROUNDING 1e-12

/*
 * The growth of slope b as an end of an interval of growth_lin.  growth_of
 * rises with the slope up to its pole at b = 1 / (xbar - xmin), where the
 * line reaches 0 at xmin: a slope there or beyond bounds nothing (+inf;
 * the NaN growth_of gives there made fmin/fmax return the other end:
 * "+337%..+337%").  A line that reaches 0 by xmax is a time that vanished:
 * -100%, never less.
 */
static double growth_bound(double b, double xbar, double xmin, double xmax)
{
	if (b * (xbar - xmin) >= 1)
		return INFINITY;
	if (b * (xmax - xbar) <= -1)
		return -1;
	return growth_of(b, xbar, xmin, xmax);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The pooled line: every distinct X with all normalised values there, scaled by level. */
static int fit_model_in_x(const struct experiment *e, const struct exp_series *s,
			  const struct vline *lines, const int *use, const double *levels, int nlines,
			  double scale, const struct model_options *opt, struct pmnf_model *out,
			  struct perr *err)
{
	int nx = 0;
	double *xs = xmalloc(sizeof(double) * (size_t)e->npoints);
	for (int l = 0; l < nlines; l++) {
		if (!use[l])
			continue;
		for (int i = 0; i < lines[l].npoints; i++)
			if (s->at[lines[l].points[i]].n)
				xs[nx++] = experiment_coord(e, lines[l].points[i], lines[l].param);
	}
	qsort(xs, (size_t)nx, sizeof(double), cmp_double);
	int nd = 0;
	for (int i = 0; i < nx; i++)
		if (nd == 0 || xs[i] != xs[nd - 1])
			xs[nd++] = xs[i];
	struct exp_values *vals = xcalloc((size_t)(nd ? nd : 1), sizeof(*vals));
	for (int l = 0; l < nlines; l++) {
		if (!use[l])
			continue;
		for (int i = 0; i < lines[l].npoints; i++) {
			int p = lines[l].points[i];
			const struct exp_values *v = &s->at[p];
			double x = experiment_coord(e, p, lines[l].param);
			double *hit = bsearch(&x, xs, (size_t)nd, sizeof(double), cmp_double);
			struct exp_values *dst = &vals[hit - xs];
			for (int r = 0; r < v->n; r++) {
				XGROW(dst->v, (size_t)dst->n + 1, dst->alloc);
				dst->v[dst->n++] = v->v[r] / levels[l] * scale;
			}
		}
	}
	char *names[1] = { e->params[lines[0].param] };
	struct model_input in = {
		.nparams = 1, .params = names, .npoints = nd, .coords = xs, .values = vals,
	};
	int rc = modeler_fit(&in, opt, NULL, out, err);
	for (int i = 0; i < nd; i++)
		free(vals[i].v);
	free(vals);
	free(xs);
	return rc;
}

/* The lines of one growth test and what the passes keep of them. */
struct gt_lines {
	const struct experiment *e;
	const struct exp_series *s;
	int param;
	struct vline *lines;
	int nlines, nuse, longest;
	int *use;
	double *levels, *xmean, *zmean;
};

/* Find the lines along param (positive coordinates only if asked) and those that take part. */
static void gt_lines_init(struct gt_lines *t, const struct experiment *e, const struct exp_series *s,
			  int param, int positive_only)
{
	memset(t, 0, sizeof(*t));
	t->e = e;
	t->s = s;
	t->param = param;
	t->nlines = vlines_find(e, param, &t->lines);
	if (positive_only)
		for (int l = 0; l < t->nlines; l++) {
			int m = 0;
			for (int i = 0; i < t->lines[l].npoints; i++)
				if (experiment_coord(e, t->lines[l].points[i], param) > 0)
					t->lines[l].points[m++] = t->lines[l].points[i];
			t->lines[l].npoints = m;
		}
	size_t n = (size_t)(t->nlines ? t->nlines : 1);
	t->use = xcalloc(n, sizeof(int));
	t->levels = xcalloc(n, sizeof(double));
	t->xmean = xcalloc(n, sizeof(double));
	t->zmean = xcalloc(n, sizeof(double));
	for (int l = 0; l < t->nlines; l++) {
		int d = distinct_x_with_values(e, s, &t->lines[l]);
		t->levels[l] = line_level(s, &t->lines[l]);
		if (d >= 2 && isfinite(t->levels[l]) && t->levels[l] > 0) {
			t->use[l] = 1;
			t->nuse++;
			if (d > t->longest)
				t->longest = d;
		}
	}
}

static void gt_lines_release(struct gt_lines *t)
{
	free(t->use);
	free(t->levels);
	free(t->xmean);
	free(t->zmean);
	vlines_free(t->lines, t->nlines);
}

/* The sums of the two passes. */
struct gt_sums {
	double sxx, sxz, xsum;
	int nobs, ncells;
	double rss, ssw, ssb;
};

/* Pass 1 over line l: its means of x and z (kept for pass 2), the overall range. */
static void gt_pass1_line(struct gt_lines *t, int l, struct growth_test *g, struct gt_sums *u)
{
	const struct vline *line = &t->lines[l];
	double xs = 0, zs = 0;
	int n = 0;
	for (int i = 0; i < line->npoints; i++) {
		int p = line->points[i];
		double x = experiment_coord(t->e, p, t->param);
		const struct exp_values *v = &t->s->at[p];
		if (v->n) {
			u->ncells++;
			if (isnan(g->xmin) || x < g->xmin)
				g->xmin = x;
			if (isnan(g->xmax) || x > g->xmax)
				g->xmax = x;
		}
		for (int r = 0; r < v->n; r++) {
			xs += x;
			zs += v->v[r] / t->levels[l];
			n++;
		}
	}
	double xb = t->xmean[l] = xs / n, zb = t->zmean[l] = zs / n;
	for (int i = 0; i < line->npoints; i++) {
		int p = line->points[i];
		double x = experiment_coord(t->e, p, t->param);
		const struct exp_values *v = &t->s->at[p];
		for (int r = 0; r < v->n; r++) {
			double z = v->v[r] / t->levels[l];
			u->sxx += (x - xb) * (x - xb);
			u->sxz += (x - xb) * (z - zb);
		}
	}
	u->xsum += xs;
	u->nobs += n;
}

/* Pass 2 over line l: residuals of the slope fit b and the ANOVA sums. */
static void gt_pass2_line(const struct gt_lines *t, int l, double b, struct gt_sums *u)
{
	double xb = t->xmean[l], zb = t->zmean[l];
	for (int i = 0; i < t->lines[l].npoints; i++) {
		int p = t->lines[l].points[i];
		double x = experiment_coord(t->e, p, t->param);
		const struct exp_values *v = &t->s->at[p];
		if (!v->n)
			continue;
		double cell = 0;
		for (int r = 0; r < v->n; r++)
			cell += v->v[r] / t->levels[l];
		cell /= v->n;
		u->ssb += v->n * (cell - zb) * (cell - zb);
		for (int r = 0; r < v->n; r++) {
			double z = v->v[r] / t->levels[l];
			double res = z - zb - b * (x - xb);
			u->rss += res * res;
			u->ssw += (z - cell) * (z - cell);
		}
	}
}

/* The slope's p-value and confidence interval, and the ANOVA F-test. */
static void gt_statistics(struct growth_test *g, const struct gt_sums *u, int nuse, double b, double xbar)
{
	double se = sqrt(u->rss / g->slope_df / u->sxx);
	g->slope = b;
	g->slope_se = se;
	g->xbar = xbar;
	g->sxx = u->sxx;
	g->noise = sqrt(u->rss / g->slope_df);
	if (g->noise > CONTENTION_ROUNDING) {
		double t = fabs(b) / se;
		g->slope_p = 2 * gsl_cdf_tdist_Q(t, g->slope_df);
		double tq = gsl_cdf_tdist_Qinv(0.025, g->slope_df);
		g->growth_lo = growth_bound(b - tq * se, xbar, g->xmin, g->xmax);
		g->growth_hi = growth_bound(b + tq * se, xbar, g->xmin, g->xmax);
	} else {
		/* no residual scatter but rounding's (identical repetitions, printed at a coarse
		   resolution): no interval, not one of zero width */
		g->slope_p = b != 0 ? 0 : 1;
	}
	g->growth_lin = growth_of(b, xbar, g->xmin, g->xmax);
	g->anova_df1 = u->ncells - nuse;
	g->anova_df2 = u->nobs - u->ncells;
	if (g->anova_df1 >= 1 && g->anova_df2 >= 1) {
		g->noise_within = sqrt(u->ssw / g->anova_df2);
		if (u->ssw > 0) {
			g->anova_f = (u->ssb / g->anova_df1) / (u->ssw / g->anova_df2);
			g->anova_p = gsl_cdf_fdist_Q(g->anova_f, g->anova_df1, g->anova_df2);
		} else {
			g->anova_f = u->ssb > 0 ? INFINITY : 0;
			g->anova_p = u->ssb > 0 ? 0 : 1;
		}
	}
	g->p_value = isnan(g->anova_p) ? g->slope_p : fmax(g->slope_p, g->anova_p);
}

/* The model in X, on the pooled line in the mean level's units, and the growth it gives. */
static int gt_model(const struct gt_lines *t, struct growth_test *g, double b, double xbar,
		    const struct model_options *opt, struct perr *err)
{
	char *pname[1] = { t->e->params[t->param] };
	double scale = 0;
	for (int l = 0; l < t->nlines; l++)
		if (t->use[l])
			scale += t->levels[l];
	scale /= t->nuse;
	pmnf_release(&g->model);
	if (t->longest >= 3) {
		if (fit_model_in_x(t->e, t->s, t->lines, t->use, t->levels, t->nlines, scale, opt, &g->model,
				   err) < 0)
			return -1;
	} else {
		/* two values of X: the model in X is the straight line through the pooled slope */
		pmnf_init(&g->model, 1, pname);
		struct pmnf_factor fx = { .param = 0, .poly_exp = 1, .log_exp = 0 };
		g->model.constant = scale * (1 - b * xbar);
		pmnf_add_term(&g->model, scale * b, 1, &fx);
	}
	double c[1] = { g->xmin }, d[1] = { g->xmax };
	double f0 = pmnf_eval(&g->model, c), f1 = pmnf_eval(&g->model, d);
	if (g->model.nterms > 0 && f0 > 0 && isfinite(f1))
		g->growth = f1 / f0 - 1;
	else
		g->growth = g->growth_lin;
	return 0;
}

int growth_test_run(const struct experiment *e, const struct exp_series *s, int param,
		    int positive_only, const struct model_options *opt, struct growth_test *g,
		    struct perr *err)
{
	memset(g, 0, sizeof(*g));
	g->param = param;
	g->growth = g->growth_lin = g->growth_lo = g->growth_hi = NAN;
	g->slope_p = g->anova_f = g->anova_p = g->p_value = NAN;
	g->slope = g->slope_se = g->xbar = g->sxx = g->noise = g->noise_within = NAN;
	g->xmin = g->xmax = NAN;
	char *pname[1] = { param >= 0 && param < e->nparams ? e->params[param] : NULL };
	pmnf_init(&g->model, pname[0] ? 1 : 0, pname);
	if (!s || !pname[0])
		return 0;
	gsl_set_error_handler_off();
	struct gt_lines t;
	struct gt_sums u = { 0 };
	struct model_options mo = model_options_for_series(opt, e, s);
	int rc = 0;
	gt_lines_init(&t, e, s, param, positive_only);
	if (t.longest < 2)
		goto done;
	for (int l = 0; l < t.nlines; l++)
		if (t.use[l])
			gt_pass1_line(&t, l, g, &u);
	g->nlines = t.nuse;
	g->nobs = u.nobs;
	double b = u.sxz / u.sxx, xbar = u.xsum / u.nobs;
	for (int l = 0; l < t.nlines; l++)
		if (t.use[l])
			gt_pass2_line(&t, l, b, &u);
	g->slope_df = u.nobs - t.nuse - 1;
	if (g->slope_df < 1 || !(u.sxx > 0))
		goto done;
	gt_statistics(g, &u, t.nuse, b, xbar);
	rc = gt_model(&t, g, b, xbar, &mo, err) < 0 ? -1 : 1;
done:
	gt_lines_release(&t);
	return rc;
}

void growth_test_release(struct growth_test *g)
{
	pmnf_release(&g->model);
	memset(g, 0, sizeof(*g));
}

double growth_test_detectable(const struct growth_test *g, double alpha, double power)
{
	double b = power_t_detectable(g->slope_se, g->slope_df, alpha, power);
	if (!isfinite(b) || !(g->sxx > 0))
		return NAN;
	if (!isnan(g->anova_p) && isfinite(g->noise_within)) {
		double lambda = power_f_lambda(g->anova_df1, g->anova_df2, alpha, power);
		if (isnan(lambda))
			return NAN;
		b = fmax(b, sqrt(lambda / g->sxx) * g->noise_within);
	}
	return growth_of(b, g->xbar, g->xmin, g->xmax);
}

void growth_test_shares(const struct experiment *e, const struct exp_series *s, const struct growth_test *g,
			const double *share, double *first, double *last)
{
	*first = *last = NAN;
	if (!share || !s || isnan(g->xmin) || isnan(g->xmax))
		return;
	double *lo = xmalloc(sizeof(double) * (size_t)(e->npoints + 1));
	double *hi = xmalloc(sizeof(double) * (size_t)(e->npoints + 1));
	int nlo = 0, nhi = 0;
	for (int p = 0; p < e->npoints; p++) {
		if (!s->at[p].n || !isfinite(share[p]))
			continue;
		double x = experiment_coord(e, p, g->param);
		if (x == g->xmin)
			lo[nlo++] = share[p];
		else if (x == g->xmax)
			hi[nhi++] = share[p];
	}
	*first = values_median(lo, nlo);
	*last = values_median(hi, nhi);
	free(lo);
	free(hi);
}

int growth_test_share_fell(double first, double last)
{
	return first > 0 && last > 0 && last < (1 - CONTENTION_SHARE_FALL) * first;
}

int growth_test_unexplained(const struct experiment *e, const struct exp_series *s, const struct growth_test *g,
			    int positive_only, const double *share, const struct model_options *opt,
			    struct growth_test *u, struct perr *err)
{
	struct exp_series own = { s->callpath, s->metric, xcalloc((size_t)e->npoints + 1, sizeof(*own.at)) };
	for (int p = 0; p < e->npoints; p++) {
		const struct exp_values *v = &s->at[p];
		if (!v->n || !(share[p] > 0) || !isfinite(share[p]))
			continue;
		own.at[p].v = xmalloc(sizeof(double) * (size_t)v->n);
		own.at[p].n = v->n;
		for (int r = 0; r < v->n; r++)
			own.at[p].v[r] = v->v[r] * share[p];
	}
	int rc = growth_test_run(e, &own, g->param, positive_only, opt, u, err);
	for (int p = 0; p < e->npoints; p++)
		free(own.at[p].v);
	free(own.at);
	return rc;
}

int growth_test_share_shows(const struct growth_test *g, double first, double last, double min_growth)
{
	if (!growth_test_share_fell(first, last))
		return 0;
	double explained = first / last - 1;
	return explained >= min_growth && g->growth_hi >= explained / 2;
}
