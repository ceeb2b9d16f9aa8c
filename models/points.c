/* Point estimates of repeated measurements: aggregates, robust spread, outliers. */
#include "models/points.h"
#include "common/xalloc.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const agg_names[] = { "mean", "median", "min" };

const char *model_aggregate_name(enum model_aggregate a)
{
	return a >= MODEL_MEAN && a <= MODEL_MIN ? agg_names[a] : "?";
}

int model_name_find(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n && s; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int model_aggregate_parse(const char *s, enum model_aggregate *out)
{
	int i = model_name_find(agg_names, MODEL_MIN + 1, s);
	if (i >= 0)
		*out = (enum model_aggregate)i;
	return i >= 0 ? 0 : -1;
}

double values_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double small[16], *tmp = n <= 16 ? small : xmalloc((size_t)n * sizeof(double));
	int nan = 0;
	for (int i = 0; i < n; i++) {
		tmp[i] = v[i];
		nan |= isnan(v[i]);
	}
	/* quickselect (O(n)) instead of a sort: the same value (the middle one,
	   or the mean of the two, halved alike); a sort a fifth of validate's
	   CPU on a 10^5-run store.  With a NaN the order is the sort's, as ever. */
	double m;
	if (nan) {
		gsl_sort(tmp, 1, (size_t)n);
		m = gsl_stats_median_from_sorted_data(tmp, 1, (size_t)n);
	} else {
		m = gsl_stats_median(tmp, 1, (size_t)n);
	}
	if (tmp != small)
		free(tmp);
	return m;
}

double point_median(const struct exp_values *v)
{
	return v ? values_median(v->v, v->n) : NAN;
}

/* MAD of v around med; *mean_ad gets the mean absolute deviation. */
static double mad_of(const struct exp_values *v, double med, double *mean_ad)
{
	double small[16] = { 0 }, *d = v->n <= 16 ? small : xmalloc((size_t)v->n * sizeof(double));
	double s = 0;
	for (int i = 0; i < v->n; i++) {
		d[i] = fabs(v->v[i] - med);
		s += d[i];
	}
	*mean_ad = s / v->n;
	double m = values_median(d, v->n);
	if (d != small)
		free(d);
	return m;
}

/*
 * The scale z-scores divide by: MAD / 0.6745; with MAD == 0 (most values
 * equal the median exactly) the smallest positive scale, so that every
 * value away from that majority scores as outlying (if it is also
 * POINT_OUTLIER_MIN_REL away); 0 when all values are equal.
 */
static double robust_scale(const struct exp_values *v, double med)
{
	double mean_ad, mad = mad_of(v, med, &mean_ad);
	return mad > 0 ? mad / 0.6745 : mean_ad > 0 ? 1e-300 : 0;
}

double point_robust_z(const struct exp_values *v, double x)
{
	if (!v || v->n < 3)
		return NAN;
	double med = values_median(v->v, v->n), s = robust_scale(v, med);
	return s > 0 ? (x - med) / s : x == med ? 0 : INFINITY;
}

/* Does name end in suffix (case-insensitive)? */
static int ends_with(const char *name, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !strncasecmp(name + n - k, suffix, k);
}

enum point_side point_side_of_metric(const char *metric)
{
	static const char *const high_end[] = { "time", "_s", "_ms", "_us", "_ns", "sec", "secs",
						"seconds", "cycles", "latency" };
	static const char *const low_end[] = { "/s", "kbs", "mbs", "gbs", "tbs", "iops", "rate" };
	static const char *const low_in[] = { "flop", "bandwidth", "throughput" };
	if (!metric)
		return POINT_SIDE_BOTH;
	size_t n = strlen(metric);
	for (size_t i = 0; i < sizeof(high_end) / sizeof(*high_end); i++)
		if (ends_with(metric, n, high_end[i]))
			return POINT_SIDE_HIGH;
	for (size_t i = 0; i < sizeof(low_end) / sizeof(*low_end); i++)
		if (ends_with(metric, n, low_end[i]))
			return POINT_SIDE_LOW;
	for (size_t i = 0; i < sizeof(low_in) / sizeof(*low_in); i++)
		if (strcasestr(metric, low_in[i]))
			return POINT_SIDE_LOW;
	return POINT_SIDE_BOTH;
}

enum point_side point_side_of_series(const struct experiment *e, const struct exp_series *s)
{
	if (!s || s->metric < 0 || s->metric >= e->nmetrics)
		return POINT_SIDE_BOTH;
	enum exp_better b = experiment_better(e, s->metric);
	return b == EXP_BETTER_LOWER ? POINT_SIDE_HIGH : b == EXP_BETTER_HIGHER ? POINT_SIDE_LOW
					     : point_side_of_metric(e->metrics[s->metric]);
}

const char *point_side_name(enum point_side side)
{
	return side == POINT_SIDE_HIGH ? "high" : side == POINT_SIDE_LOW ? "low" : "both";
}

/* Is x, relative to its point's median, on the favourable side and less than
   POINT_OUTLIER_FAVOURABLE_RATIO times better (then it is no outlier)? */
static int plausibly_undisturbed(double x, double med, enum point_side side)
{
	if (side == POINT_SIDE_HIGH)
		return x < med && x * POINT_OUTLIER_FAVOURABLE_RATIO > med;
	if (side == POINT_SIDE_LOW)
		return x > med && x < POINT_OUTLIER_FAVOURABLE_RATIO * med;
	return 0;
}

int point_outliers(const struct exp_values *v, double series_cov, enum point_side side,
		   unsigned char *is_out)
{
	if (is_out && v)
		memset(is_out, 0, (size_t)(v->n > 0 ? v->n : 0));
	if (!v || v->n < 3)
		return 0;
	double med = values_median(v->v, v->n), s = robust_scale(v, med);
	int n = 0;
	for (int i = 0; i < v->n && s > 0; i++) {
		double dev = fabs(v->v[i] - med);
		int out = dev / s > POINT_OUTLIER_Z && dev > POINT_OUTLIER_MIN_REL * fabs(med) &&
			  !(dev <= POINT_OUTLIER_SERIES_Z * series_cov * fabs(med)) &&
			  !(med > 0 && plausibly_undisturbed(v->v[i], med, side));
		/* never more than a minority: half the repetitions cannot be "outlying" */
		if (out && 2 * (n + 1) < v->n) {
			n++;
			if (is_out)
				is_out[i] = 1;
		}
	}
	return n;
}

double point_robust_cov(const struct exp_values *v)
{
	if (!v || v->n < 2)
		return NAN;
	double med = values_median(v->v, v->n), mean_ad;
	if (med == 0 || !isfinite(med))
		return NAN;
	double mad = mad_of(v, med, &mean_ad);
	if (mad == 0 && v->n < 3)
		mad = mean_ad;  /* two values: their half-difference */
	return 1.4826 * mad / fabs(med);
}

/* Aggregate n values. */
static double aggregate(const double *v, int n, enum model_aggregate how)
{
	if (n <= 0)
		return NAN;
	if (how == MODEL_MEDIAN)
		return values_median(v, n);
	double s = how == MODEL_MIN ? INFINITY : 0;
	for (int i = 0; i < n; i++)
		s = how == MODEL_MIN ? fmin(s, v[i]) : s + v[i];
	return how == MODEL_MIN ? s : s / n;
}

/* The CoV of v's values whose robust z-score is at most POINT_OUTLIER_Z (NaN for fewer than 2):
   point_robust_z's median and scale computed once for all values, not once per value. */
static double inlier_cov(const struct exp_values *v)
{
	double keep[64], *k = v->n <= 64 ? keep : xmalloc(sizeof(double) * (size_t)v->n);
	int nk = 0;
	double med = v->n >= 3 ? values_median(v->v, v->n) : NAN, s = v->n >= 3 ? robust_scale(v, med) : 0;
	for (int i = 0; i < v->n; i++) {
		double x = v->v[i];
		double z = v->n < 3 ? NAN : s > 0 ? (x - med) / s : x == med ? 0 : INFINITY;
		if (!(fabs(z) > POINT_OUTLIER_Z))
			k[nk++] = v->v[i];
	}
	double x = NAN;
	if (nk >= 2) {
		double mean = gsl_stats_mean(k, 1, (size_t)nk);
		x = gsl_stats_sd_m(k, 1, (size_t)nk, mean) / fabs(mean);
	}
	if (k != keep)
		free(k);
	return x;
}

double point_series_cov(const struct exp_values *vals, int n)
{
	double *c = xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	int k = 0;
	for (int i = 0; i < n; i++)
		if (vals[i].n >= 3) {
			/* the classical CoV of the values a robust z-score keeps: its median over
			   the points is unbiased, and robust even when most points have one
			   outlying repetition (the plain CoV's median is not then) */
			double x = inlier_cov(&vals[i]);
			if (isfinite(x))
				c[k++] = x;
		}
	double m = values_median(c, k);
	free(c);
	return m;
}

void point_estimate(const struct exp_values *v, enum model_aggregate how, int drop_outliers,
		    double series_cov, enum point_side side, struct point_estimate *pe)
{
	memset(pe, 0, sizeof(*pe));
	pe->value = pe->rel_var = NAN;
	if (!v || v->n <= 0)
		return;
	double small[16], *kept = v->n <= 16 ? small : xmalloc((size_t)v->n * sizeof(double));
	unsigned char flag[16], *is_out = v->n <= 16 ? flag : xmalloc((size_t)v->n);
	pe->noutliers = drop_outliers ? point_outliers(v, series_cov, side, is_out) : 0;
	for (int i = 0; i < v->n; i++)
		if (!pe->noutliers || !is_out[i])
			kept[pe->n++] = v->v[i];
	pe->value = aggregate(kept, pe->n, how);
	if (pe->n >= 2) {
		double mean = gsl_stats_mean(kept, 1, (size_t)pe->n);
		double var = gsl_stats_variance_m(kept, 1, (size_t)pe->n, mean);
		pe->rel_var = mean != 0 ? var / (mean * mean) : NAN;
	}
	if (kept != small)
		free(kept);
	if (is_out != flag)
		free(is_out);
}
