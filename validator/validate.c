/* Running every check per region and metric, and building the verdict. */
#include "validator/validate.h"
#include "common/point_text.h"
#include "designs/expr.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "collectors/region_match.h"
#include "models/points.h"
#include "validator/falsedep.h"
#include "validator/vline.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[VFLAG_NKINDS] = {
	"noise", "false-dependency", "contention", "segmented", "volume", "oversubscribed",
};

static const char *const status_names[] = { "passed", "flagged", "not-testable" };

const char *vcheck_status_name(enum vcheck_status s)
{
	return s >= VCHECK_PASSED && s <= VCHECK_NOT_TESTABLE ? status_names[s] : "?";
}

/* Record one check; reason is a printf format. */
static void add_check(struct validation *v, int region, const char *check, int param,
		      enum vcheck_status status, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add_check(struct validation *v, int region, const char *check, int param,
		      enum vcheck_status status, const char *fmt, ...)
{
	XGROW(v->checks, (size_t)v->nchecks + 1, v->checks_alloc);
	struct vcheck *c = &v->checks[v->nchecks++];
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&c->reason, fmt, ap) < 0)
		c->reason = NULL;
	va_end(ap);
	if (!c->reason)
		c->reason = xstrdup("");
	c->region = region;
	c->check = check;
	c->param = param;
	c->status = status;
}

const char *vflag_kind_name(enum vflag_kind k)
{
	return k >= 0 && k < VFLAG_NKINDS ? kind_names[k] : "?";
}

void validate_options_init(struct validate_options *o)
{
	memset(o, 0, sizeof(*o));
	o->cov_threshold = 0.1;
	o->unreliable_fraction = 0.5;
	o->alpha = 0.01;
	o->min_growth = 0.05;
	o->power = 0.8;
	o->max_detectable = 0.5;
	o->segment_points = 8;
	o->segment_improvement = 0.5;
	o->min_share = VALIDATE_MIN_SHARE;
	model_options_robust(&o->model);
}

static struct vflag *add_flag(struct validation *v, int region, enum vflag_kind kind, int param,
			      double growth, double p_value, int blocking)
{
	XGROW(v->flags, (size_t)v->nflags + 1, v->flags_alloc);
	struct vflag *f = &v->flags[v->nflags++];
	memset(f, 0, sizeof(*f));
	f->region = region;
	f->kind = kind;
	f->param = param;
	f->growth = growth;
	f->p_value = p_value;
	/* a region under min_share of the time is reported, never blocking */
	f->blocking = blocking && !v->regions[region].small;
	blocking = f->blocking;
	f->share_first = f->share_last = f->share_explains = f->unexplained = f->unexplained_p = NAN;
	v->regions[region].nflags++;
	if (blocking) {
		v->regions[region].nblocking++;
		v->nblocking++;
	}
	return f;
}

void validate_point_name(struct strbuf *sb, const struct experiment *e, int p)
{
	double x[64];
	int n = e->nparams < 64 ? e->nparams : 64;
	for (int k = 0; k < n; k++)
		x[k] = experiment_coord(e, p, k);
	point_text(sb, (const char *const *)e->params, x, n, ",");
}

/* The sum over points of |median| of series (callpath, metric); 0 without one. */
static double series_total(const struct experiment *e, int callpath, int metric)
{
	const struct exp_series *s = experiment_series(e, callpath, metric);
	double sum = 0;
	for (int p = 0; s && p < e->npoints; p++)
		if (s->at[p].n)
			sum += fabs(point_median(&s->at[p]));
	return sum;
}

/* Has call path cp an ancestor ("a" or "a->b" of "a->b->c") with values of metric? */
static int has_measured_ancestor(const struct experiment *e, const char *cp, int metric)
{
	char *path = xstrdup(cp);
	int found = 0;
	for (const char *leaf = region_callpath_leaf(path); leaf > path + 1 && !found;
	     leaf = region_callpath_leaf(path)) {
		path[leaf - path - 2] = '\0';
		int c = experiment_find_callpath(e, path);
		found = c >= 0 && experiment_series(e, c, metric) != NULL;
	}
	free(path);
	return found;
}

/*
 * Each region's share of its metric: its points' medians summed, over the
 * same of the top-level regions (those without a measured ancestor, so
 * that "main" counts once and "main->loop" not again); small when under
 * opt.min_share.
 */
static void region_shares(struct validation *v)
{
	const struct experiment *e = v->e;
	double *total = xcalloc((size_t)(e->nmetrics ? e->nmetrics : 1), sizeof(double));
	for (int ri = 0; ri < v->nregions; ri++) {
		struct vregion *r = &v->regions[ri];
		r->share = series_total(e, r->callpath, r->metric);
		if (!has_measured_ancestor(e, e->callpaths[r->callpath], r->metric))
			total[r->metric] += r->share;
	}
	for (int ri = 0; ri < v->nregions; ri++) {
		struct vregion *r = &v->regions[ri];
		r->share = total[r->metric] > 0 ? r->share / total[r->metric] : 1;
		r->small = v->opt.min_share > 0 && r->share < v->opt.min_share;
	}
	free(total);
}

/* 1 when the dependency file names the parameter (by name, as the modeller maps them). */
static int deps_names_param(const struct deps *d, const char *name)
{
	for (int i = 0; d && i < d->nparams; i++)
		if (!strcmp(d->params[i], name))
			return 1;
	return 0;
}

/*
 * Experiment parameter indices a dependency function allows (mask), and
 * those the dependency file speaks about: its parameters, and ranks per
 * node, which no function's volume depends on.
 */
static void allowed_params(const struct experiment *e, const struct deps *d,
			   const struct dep_function *f, int rpn, int *allowed, int *known)
{
	for (int k = 0; k < e->nparams; k++) {
		allowed[k] = 0;
		known[k] = deps_names_param(d, e->params[k]) || (d && k == rpn);
	}
	if (!f)
		return;
	for (int t = 0; t < f->nterms; t++)
		for (int i = 0; i < f->terms[t].n; i++) {
			int k = experiment_find_param(e, d->params[f->terms[t].params[i]]);
			if (k >= 0)
				allowed[k] = 1;
		}
}

static char *model_string(const struct pmnf_model *m)
{
	return pmnf_format(m, 4);
}

/*
 * How much model m depends on parameter k: the largest relative change of
 * m at a measured point when k moves there from its smallest measured value.
 */
static double model_effect(const struct pmnf_model *m, const struct experiment *e,
			   const struct exp_series *s, int k)
{
	double xmin = INFINITY, worst = 0;
	for (int p = 0; p < e->npoints; p++)
		if (s->at[p].n && experiment_coord(e, p, k) < xmin)
			xmin = experiment_coord(e, p, k);
	double *c = xmalloc(sizeof(double) * (size_t)(e->nparams ? e->nparams : 1));
	for (int p = 0; p < e->npoints; p++) {
		if (!s->at[p].n)
			continue;
		memcpy(c, &e->coords[(size_t)p * (size_t)e->nparams], sizeof(double) * (size_t)e->nparams);
		double at = pmnf_eval(m, c);
		c[k] = xmin;
		double base = pmnf_eval(m, c);
		if (base != 0 && isfinite(at) && isfinite(base))
			worst = fmax(worst, fabs(at - base) / fabs(base));
	}
	free(c);
	return worst;
}

/* "n=5,it=2 (CoV 0.31), ..." for up to 8 noisy points. */
static void name_noisy(struct strbuf *sb, const struct experiment *e, const struct noise_result *n)
{
	int shown = 0;
	for (int p = 0; p < n->npoints; p++) {
		if (!n->noisy[p])
			continue;
		if (shown++ == 8) {
			strbuf_addstr(sb, ", ...");
			break;
		}
		strbuf_addstr(sb, shown > 1 ? ", " : "");
		validate_point_name(sb, e, p);
		strbuf_addf(sb, " (CoV %.2g)", n->cov[p]);
	}
}

/* "; 3 of the noisy points' 10 repetitions were disturbed (left out)": what the disturbed check says of them. */
static void noisy_disturbed(struct strbuf *sb, const struct validation *v, const struct noise_result *n)
{
	const struct vdisturbed *d = &v->disturbed;
	if (!d->res)
		return;
	int left = 0, all = 0;
	for (int p = 0; p < n->npoints; p++)
		if (n->noisy[p]) {
			left += d->per_point[p];
			all += d->per_point[p] + d->kept[p];
		}
	strbuf_addf(sb, "; %d of the noisy points' %d repetitions %s disturbed%s", left, all,
		    left == 1 ? "was" : "were", left ? " (left out: the noise is in the others)" : "");
}

/* "unreliable, not modelled: 7 of 8 points above CoV 0.1 (...): re-measure n=4 (CoV 0.31), ..."
   (without its first words when say_unreliable is 0) */
static void noisy_text(struct strbuf *sb, const struct experiment *e, const struct noise_result *n, double threshold,
		       int say_unreliable)
{
	if (n->unreliable && say_unreliable)
		strbuf_addf(sb, "unreliable, not modelled: ");
	strbuf_addf(sb, "%d of %d points above CoV %g (95%% lower bound, outliers left out", n->nnoisy,
		    n->nmeasured, threshold);
	if (n->nresolved)
		strbuf_addf(sb, "; %d more spread within the resolution %g", n->nresolved, n->resolution);
	strbuf_addstr(sb, "): re-measure ");
	name_noisy(sb, e, n);
}

int validate_series_unreliable(const struct experiment *e, int callpath, int metric,
			       const struct validate_options *o, char **reason)
{
	struct validate_options dflt;
	if (!o) {
		validate_options_init(&dflt);
		o = &dflt;
	}
	*reason = NULL;
	const struct exp_series *s = experiment_series(e, callpath, metric);
	if (!s)
		return 0;
	struct noise_result n;
	noise_check(e, s, o->cov_threshold, o->unreliable_fraction, &n);
	int unreliable = n.unreliable;
	if (unreliable) {
		struct strbuf sb;
		strbuf_init(&sb);
		noisy_text(&sb, e, &n, o->cov_threshold, 0);
		*reason = strbuf_detach(&sb);
	}
	noise_result_release(&n);
	return unreliable;
}

static void check_noise(struct validation *v, int ri)
{
	struct vregion *r = &v->regions[ri];
	const struct noise_result *n = &r->noise;
	if (!n->nmeasured) {
		add_check(v, ri, "noise", -1, VCHECK_NOT_TESTABLE, "no point has 2 repetitions");
		return;
	}
	if (!n->nnoisy && n->nresolved) {
		add_check(v, ri, "noise", -1, VCHECK_PASSED, "CoV <= %g at %d of %d points, the other %d spread "
			  "within the resolution %g (max CoV %.2g)", v->opt.cov_threshold, n->nmeasured - n->nresolved,
			  n->nmeasured, n->nresolved, n->resolution, n->max_cov);
		return;
	}
	if (!n->nnoisy) {
		add_check(v, ri, "noise", -1, VCHECK_PASSED, "CoV <= %g at all %d points (max %.2g)",
			  v->opt.cov_threshold, n->nmeasured, n->max_cov);
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	noisy_text(&sb, v->e, n, v->opt.cov_threshold, 1);
	noisy_disturbed(&sb, v, n);
	/* noisy data blocks either way: a modelled region's model rests on it, and an
	   unreliable region leaves the campaign without a model for it */
	struct vflag *f = add_flag(v, ri, VFLAG_NOISE, -1, NAN, NAN, 1);
	f->detail = strbuf_detach(&sb);
	add_check(v, ri, "noise", -1, VCHECK_FLAGGED, "%d of %d points above CoV %g", n->nnoisy,
		  n->nmeasured, v->opt.cov_threshold);
}

/* The strongest segmented line along parameter k (every line tested); -1 on error. */
static int strongest_segment(struct validation *v, int ri, const struct exp_series *s, int k,
			     int *longest, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	struct vline *lines;
	int nl = vlines_find(v->e, k, &lines);
	double scov = s ? point_series_cov(s->at, v->e->npoints) : NAN;   /* once, not per line */
	*longest = 0;
	for (int l = 0; l < nl; l++) {
		struct segment_result sr;
		if (lines[l].npoints > *longest)
			*longest = lines[l].npoints;
		int rc = segment_test(v->e, s, scov, &lines[l], v->opt.segment_points, &v->opt.model, &sr, err);
		if (rc <= 0) {
			segment_result_release(&sr);
			if (rc < 0) {
				vlines_free(lines, nl);
				return -1;
			}
			continue;
		}
		struct segment_result *best = &r->segment[k];
		int better = !r->segment_tested[k] || sr.p_value < best->p_value ||
			     (sr.p_value == best->p_value && sr.improvement > best->improvement);
		if (better) {
			if (r->segment_tested[k])
				segment_result_release(best);
			*best = sr;
			r->segment_tested[k] = 1;
		} else {
			segment_result_release(&sr);
		}
	}
	vlines_free(lines, nl);
	return 0;
}

/* Does the dependency file exclude parameter k from region ri (segmented and
   extrapolation then do not look along k: false-dependency and contention do)? */
static int excluded_param(const struct validation *v, int ri, const int *allowed, const int *known, int k)
{
	return v->regions[ri].func && known[k] && !allowed[k];
}

/* "119, 124 and 129": the values that locate a change between lo and hi. */
static void between_text(struct strbuf *sb, const struct segment_result *sr)
{
	double xs[SEGMENT_BETWEEN_POINTS];
	int n = segment_between_values(sr->x_before, sr->x_after, sr->is_int, xs);
	for (int i = 0; i < n; i++)
		strbuf_addf(sb, "%s%g", i == 0 ? "" : i == n - 1 ? " and " : ", ", xs[i]);
}

/*
 * A located change (segment_located) is a result: two models and the
 * change point, not blocking.  An unlocated one blocks, naming the values
 * to add (or, one step apart, the side whose model the repetitions reject).
 */
static void flag_segment(struct validation *v, int ri, int k)
{
	const struct experiment *e = v->e;
	const struct segment_result *sr = &v->regions[ri].segment[k];
	char *ml = model_string(&sr->left), *mr = model_string(&sr->right), *mo = model_string(&sr->one);
	int located = segment_located(sr, v->opt.alpha);
	struct vflag *f = add_flag(v, ri, VFLAG_SEGMENTED, k, NAN, sr->p_value, !located);
	struct strbuf sb;
	strbuf_init(&sb);
	between_text(&sb, sr);
	if (located)
		f->detail = xasprintf("regime change located between %s=%g and %s=%g: %s up to %g, %s from %g "
				      "(one model %s misses a point by %.0f%%); report the two models",
				      e->params[k], sr->x_before, e->params[k], sr->x_after, ml, sr->x_before, mr,
				      sr->x_after, mo, 100 * sr->max_dev);
	else if (sb.len)
		f->detail = xasprintf("regime changes between %s=%g and %s=%g: %s up to %g, %s from %g "
				      "(one model %s misses a point by %.0f%%); add points at %s=%s to locate "
				      "it, or model the ranges separately", e->params[k], sr->x_before,
				      e->params[k], sr->x_after, ml, sr->x_before, mr, sr->x_after, mo,
				      100 * sr->max_dev, e->params[k], sb.buf);
	else
		f->detail = xasprintf("regime changes between %s=%g and %s=%g: %s up to %g, %s from %g "
				      "(one model %s misses a point by %.0f%%); the repetitions reject a side's "
				      "model (p=%.2g before, %.2g after): model the ranges separately",
				      e->params[k], sr->x_before, e->params[k], sr->x_after, ml, sr->x_before, mr,
				      sr->x_after, mo, 100 * sr->max_dev, sr->p_left, sr->p_right);
	add_check(v, ri, "segmented", k, VCHECK_FLAGGED, "regime change %sbetween %s=%g and %g (p=%.2g)",
		  located ? "located " : "", e->params[k], sr->x_before, sr->x_after, sr->p_value);
	strbuf_release(&sb);
	free(ml);
	free(mr);
	free(mo);
}

static int check_segments(struct validation *v, int ri, const struct exp_series *s, const int *allowed,
			  const int *known, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	for (int k = 0; k < e->nparams; k++) {
		int longest;
		if (excluded_param(v, ri, allowed, known, k)) {
			add_check(v, ri, "segmented", k, VCHECK_PASSED, "not looked for: the dependencies "
				  "exclude %s (the false-dependency and contention checks look along it)",
				  e->params[k]);
			continue;
		}
		if (strongest_segment(v, ri, s, k, &longest, err) < 0)
			return -1;
		if (!r->segment_tested[k]) {
			add_check(v, ri, "segmented", k, VCHECK_NOT_TESTABLE,
				  "the longest line along %s has %d points, the test needs %d", e->params[k],
				  longest, v->opt.segment_points);
			continue;
		}
		struct segment_result *sr = &r->segment[k];
		if (sr->p_value < v->opt.alpha && sr->improvement >= v->opt.segment_improvement &&
		    sr->max_dev >= v->opt.min_growth)
			flag_segment(v, ri, k);
		else
			add_check(v, ri, "segmented", k, VCHECK_PASSED,
				  "one model fits every line along %s (largest deviation %.1f%%)", e->params[k],
				  100 * sr->max_dev);
	}
	return 0;
}

/* "95% CI +20%..+45%", "95% CI from +20%, no upper bound": the interval of g's linear growth. */
static void interval_text(struct strbuf *sb, const struct growth_test *g)
{
	if (isnan(g->growth_lo) || isnan(g->growth_hi))
		strbuf_addstr(sb, "no interval: no residual scatter");
	else if (isinf(g->growth_hi))
		strbuf_addf(sb, "95%% CI from %+.0f%%, no upper bound", 100 * g->growth_lo);
	else
		strbuf_addf(sb, "95%% CI %+.0f%%..%+.0f%%", 100 * g->growth_lo, 100 * g->growth_hi);
}

/*
 * The share's part of a growth along k that fell by more than a tenth: the
 * growth it explains, and what the growth test of the ranks' own time
 * (growth_test_unexplained) leaves.  Contention when that is beyond noise
 * and reaches min_growth; else oversubscribed, and *unsure when the rest
 * may still hide contention (it reaches min_growth, or the test cannot
 * see growth below max_detectable).
 */
static enum vflag_kind share_part(struct validation *v, int ri, int k, const struct exp_series *s,
				  struct vflag *f, int *unsure)
{
	struct growth_test u;
	struct perr err;
	*unsure = 1;
	int t = growth_test_unexplained(v->e, s, &v->regions[ri].growth[k], k == v->rpn_param, v->point_share,
					&v->opt.model, &u, &err);
	enum vflag_kind kind = VFLAG_OVERSUBSCRIBED;
	if (t > 0) {
		f->unexplained = u.growth;
		f->unexplained_p = u.p_value;
		if (u.p_value < v->opt.alpha && u.growth >= v->opt.min_growth)
			kind = VFLAG_CONTENTION;
		*unsure = u.growth >= v->opt.min_growth || !(validation_flaggable_growth(v, &u) <= v->opt.max_detectable);
	}
	growth_test_release(&u);
	return kind;
}

/* What the ranks' CPU share did along k, for a contention or oversubscribed flag. */
static void share_text(struct strbuf *sb, const struct vflag *f, const char *param, int by_share, int unsure)
{
	if (isnan(f->share_first) || isnan(f->share_last)) {
		strbuf_addstr(sb, "; the ranks' CPU share is not known");
		return;
	}
	double fall = 1 - f->share_last / f->share_first;
	if (!growth_test_share_fell(f->share_first, f->share_last)) {
		strbuf_addf(sb, "; the ranks' CPU share held (%.2f to %.2f along %s): contention for a shared "
			    "resource", f->share_first, f->share_last, param);
		return;
	}
	strbuf_addf(sb, "; the ranks' CPU share fell from %.2f to %.2f (%+.0f%%) along %s: they waited for a "
		    "core, which explains %+.0f%%", f->share_first, f->share_last, -100 * fall, param,
		    100 * f->share_explains);
	if (by_share)
		strbuf_addstr(sb, ": oversubscribed, not contention; give each rank a core of its own, on a quiet "
			      "or exclusive node");
	else if (f->kind == VFLAG_CONTENTION)
		strbuf_addf(sb, "; %+.0f%% is left unexplained (p=%.2g): contention for a shared resource, "
			    "beside the oversubscription", 100 * f->unexplained, f->unexplained_p);
	else if (isnan(f->unexplained))
		strbuf_addstr(sb, ": oversubscribed; whether contention adds to it cannot be told (too few "
			      "shares known to test the rest); give each rank a core of its own, on a quiet or "
			      "exclusive node");
	else
		strbuf_addf(sb, ": oversubscribed, not contention; %+.0f%% is left (p=%.2g)%s; give each rank a "
			    "core of its own, on a quiet or exclusive node", 100 * f->unexplained, f->unexplained_p,
			    unsure ? ", not beyond noise: whether contention adds to it cannot be told"
				   : ", within noise");
}

/*
 * A growth along k beyond noise: contention, or oversubscribed when the
 * ranks' CPU share fell and explains it (share_part); or (by_share)
 * oversubscribed because the share fell although the time's growth is not
 * beyond its noise.
 */
static enum vflag_kind flag_contention(struct validation *v, int ri, int k, const struct exp_series *s,
				       int by_share)
{
	int modelled = v->regions[ri].modelled, unsure = 0;
	const struct experiment *e = v->e;
	const struct growth_test *g = &v->regions[ri].growth[k];
	double first, last;
	growth_test_shares(e, s, g, v->point_share, &first, &last);
	struct vflag *f = add_flag(v, ri, by_share ? VFLAG_OVERSUBSCRIBED : VFLAG_CONTENTION, k, g->growth,
				   g->p_value, 1);
	f->share_first = first;
	f->share_last = last;
	if (growth_test_share_fell(first, last))
		f->share_explains = first / last - 1;
	if (!by_share && growth_test_share_fell(first, last))
		f->kind = share_part(v, ri, k, s, f, &unsure);
	char *m = model_string(&g->model);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%+.0f%% from %s=%g to %g although its volume does not depend on %s; "
		    "model in %s: %s; linear slope %+.0f%% (", 100 * g->growth, e->params[k], g->xmin, g->xmax,
		    e->params[k], e->params[k], m, 100 * g->growth_lin);
	interval_text(&sb, g);
	strbuf_addf(&sb, ", p=%.2g)", g->slope_p);
	if (!isnan(g->anova_p))
		strbuf_addf(&sb, ", ANOVA F=%.3g p=%.2g", g->anova_f, g->anova_p);
	else
		strbuf_addstr(&sb, ", no repetitions for ANOVA");
	if (by_share && !modelled) {
		strbuf_addstr(&sb, "; the region is too noisy to model, but the CPU share shows it");
	} else if (by_share) {
		double d = validation_flaggable_growth(v, g);
		strbuf_addf(&sb, "; not beyond the time's noise by itself (p=%.2g, ", g->p_value);
		if (isnan(d))
			strbuf_addstr(&sb, "no growth is detectable");
		else
			strbuf_addf(&sb, "the check flags growth from %.0f%%", 100 * d);
		strbuf_addstr(&sb, "), but the CPU share shows it");
	}
	if (v->point_share)
		share_text(&sb, f, e->params[k], by_share, unsure);
	f->detail = strbuf_detach(&sb);
	free(m);
	return f->kind;
}

double validation_flaggable_growth(const struct validation *v, const struct growth_test *g)
{
	double d = growth_test_detectable(g, v->opt.alpha, v->opt.power);
	return isnan(d) ? NAN : fmax(d, v->opt.min_growth);
}

/* "growth +15% over p (p=0.00052) at noise 7.0%: flagged from 9.3% (alpha 0.01, power 80%)" */
static void growth_sensitivity(struct strbuf *sb, const struct validation *v, const struct growth_test *g,
			       const char *param)
{
	strbuf_addf(sb, "growth %+.1f%% over %s (p=%.2g) at noise %.1f%%: ", 100 * g->growth, param,
		    g->p_value, 100 * g->noise);
	double d = validation_flaggable_growth(v, g);
	if (isnan(d))
		strbuf_addstr(sb, "no growth is detectable");
	else
		strbuf_addf(sb, "the check flags growth from %.1f%%", 100 * d);
	strbuf_addf(sb, " (alpha %g, power %.0f%%, --min-growth %.0f%%)", v->opt.alpha, 100 * v->opt.power,
		    100 * v->opt.min_growth);
}

/* The ranks' CPU share along k shows oversubscription by itself (growth_test_share_shows). */
static int share_shows(struct validation *v, int ri, int k, const struct exp_series *s)
{
	const struct growth_test *g = &v->regions[ri].growth[k];
	double first, last;
	if (!v->point_share)
		return 0;
	growth_test_shares(v->e, s, g, v->point_share, &first, &last);
	return growth_test_share_shows(g, first, last, v->opt.min_growth);
}

/* One contention check of parameter k on a tested growth g (t 1) or not (t 0). */
static void contention_entry(struct validation *v, int ri, int k, int t, const struct exp_series *s)
{
	const struct experiment *e = v->e;
	const struct growth_test *g = &v->regions[ri].growth[k];
	struct strbuf sb;
	strbuf_init(&sb);
	enum vcheck_status st = VCHECK_NOT_TESTABLE;
	double d = t ? validation_flaggable_growth(v, g) : NAN;
	if (!t)
		strbuf_addf(&sb, "no line along %s with 2 values and room for a test: add values of %s at "
			    "fixed other parameters", e->params[k], e->params[k]);
	else if (!v->regions[ri].modelled && share_shows(v, ri, k, s)) {
		/* the share is measured per rank: the time's noise does not hide it */
		flag_contention(v, ri, k, s, 1);
		strbuf_addstr(&sb, "oversubscribed (the ranks' CPU share fell; the region is too noisy to model): ");
		st = VCHECK_FLAGGED;
	} else if (!v->regions[ri].modelled)
		strbuf_addstr(&sb, "too noisy to model; ");
	else if (g->p_value < v->opt.alpha && g->growth >= v->opt.min_growth) {
		if (flag_contention(v, ri, k, s, 0) == VFLAG_OVERSUBSCRIBED)
			strbuf_addstr(&sb, "oversubscribed (the ranks' CPU share fell): ");
		st = VCHECK_FLAGGED;
	} else if (share_shows(v, ri, k, s)) {
		/* the ranks waited for a core: measured, whatever the time's noise lets the growth test see */
		flag_contention(v, ri, k, s, 1);
		strbuf_addstr(&sb, "oversubscribed (the ranks' CPU share fell; the growth is not beyond the "
			      "time's noise by itself): ");
		st = VCHECK_FLAGGED;
	} else if (!(d <= v->opt.max_detectable)) {
		/* a check that could not have seen a growth it should see has not passed */
		strbuf_addf(&sb, "cannot see growth below --max-detectable %.0f%%: ", 100 * v->opt.max_detectable);
	} else {
		st = VCHECK_PASSED;
		strbuf_addf(&sb, "below %.0f%% or not significant; ", 100 * v->opt.min_growth);
	}
	if (t)
		growth_sensitivity(&sb, v, g, e->params[k]);
	add_check(v, ri, "contention", k, st, "%s", sb.buf);
	strbuf_release(&sb);
}

/*
 * Contention: excluded program parameters and ranks per node.  In a region
 * too noisy to model (unreliable) the test still runs, for its sensitivity
 * only: not testable, never flagged, and a failing model in X leaves it untested.
 */
static int check_contention(struct validation *v, int ri, const struct exp_series *s,
			    const int *allowed, const int *known, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	for (int k = 0; k < e->nparams; k++) {
		int excluded = (r->func && known[k] && !allowed[k]) || k == v->rpn_param;
		if (!excluded)
			continue;
		int t = growth_test_run(e, s, k, k == v->rpn_param, &v->opt.model, &r->growth[k], err);
		if (t < 0 && r->modelled)
			return -1;
		r->growth_tested[k] = t = t > 0;
		contention_entry(v, ri, k, t, s);
	}
	return 0;
}

/* The cause of a false dependency on parameter k, from the contention test. */
static const char *falsedep_cause(const struct validation *v, int ri, int k, int *contention)
{
	const struct vregion *r = &v->regions[ri];
	*contention = 0;
	const char *grew = NULL;
	for (int i = 0; i < v->nflags; i++)
		if (v->flags[i].region == ri && v->flags[i].param == k &&
		    (v->flags[i].kind == VFLAG_CONTENTION || v->flags[i].kind == VFLAG_OVERSUBSCRIBED)) {
			*contention = 1;
			grew = vflag_kind_name(v->flags[i].kind);
		}
	const struct growth_test *g = &r->growth[k];
	int speedup = !*contention && r->growth_tested[k] && g->p_value < v->opt.alpha &&
		      g->growth <= -v->opt.min_growth;
	return grew ? grew : speedup ? "speedup" : "noise";
}

static void falsedep_detail(struct validation *v, int ri, int k, double effect,
			    const struct falsedep_result *fd, struct vflag *f)
{
	const struct experiment *e = v->e;
	const struct vregion *r = &v->regions[ri];
	const struct growth_test *g = &r->growth[k];
	char *mb = model_string(&r->black_box), *mc = model_string(&r->constrained);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "black-box %s uses %s (changes up to %.0f%% over its range), excluded by "
		    "the dependencies; constrained %s; %s terms remove %.0f%% of the constrained "
		    "residual (adj. R^2 %.3f vs %.3f); ", mb, e->params[k], 100 * effect, mc,
		    e->params[k], 100 * fd->bought, r->black_box.ar2, r->constrained.ar2);
	if (!strcmp(f->cause, "contention") || !strcmp(f->cause, "oversubscribed"))
		strbuf_addf(&sb, "cause: %s (%+.0f%% over %s, p=%.2g)", f->cause, 100 * f->growth,
			    e->params[k], g->p_value);
	else if (!strcmp(f->cause, "speedup"))
		strbuf_addf(&sb, "cause: speedup (%+.0f%% over %s, p=%.2g: faster, not contention)",
			    100 * f->growth, e->params[k], g->p_value);
	else if (r->growth_tested[k])
		strbuf_addf(&sb, "cause: noise (measured change %+.0f%% over %s, p=%.2g: not "
			    "significant at %g or below %.0f%%)", 100 * f->growth, e->params[k],
			    g->p_value, v->opt.alpha, 100 * v->opt.min_growth);
	else
		strbuf_addf(&sb, "cause: noise (too few values of %s to test growth)", e->params[k]);
	f->detail = strbuf_detach(&sb);
	free(mb);
	free(mc);
}

/* False dependencies: black-box parameters the dependencies exclude. */
static int check_falsedeps(struct validation *v, int ri, const struct exp_series *s,
			   const int *allowed, const int *known, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	for (int k = 0; k < e->nparams && r->func; k++) {
		if (allowed[k] || !known[k])
			continue;
		if (!pmnf_uses_param(&r->black_box, k)) {
			add_check(v, ri, "false-dependency", k, VCHECK_PASSED, "the model does not use %s",
				  e->params[k]);
			continue;
		}
		double effect = model_effect(&r->black_box, e, s, k);
		XGROW(r->excluded, (size_t)r->nexcluded + 1, r->excluded_alloc);
		struct vexcluded *x = &r->excluded[r->nexcluded++];
		*x = (struct vexcluded){ k, effect, "noise", 0 };
		if (!(effect >= v->opt.min_growth)) {
			add_check(v, ri, "false-dependency", k, VCHECK_PASSED, "%s changes the model by "
				  "%.1f%% at most: below %.0f%%", e->params[k], 100 * effect,
				  100 * v->opt.min_growth);
			continue;       /* a negligible term: listed, not flagged */
		}
		struct falsedep_result fd;
		if (falsedep_measure(e, s, &r->black_box, &r->constrained, k, &fd, err) < 0)
			return -1;
		int contention;
		const char *cause = falsedep_cause(v, ri, k, &contention);
		double growth = r->growth_tested[k] ? r->growth[k].growth : NAN;
		struct vflag *f = add_flag(v, ri, VFLAG_FALSE_DEPENDENCY, k, growth, fd.p_value,
					   v->opt.strict);
		f->cause = x->cause = cause;
		x->flagged = 1;
		falsedep_detail(v, ri, k, effect, &fd, f);
		add_check(v, ri, "false-dependency", k, VCHECK_FLAGGED, "the model uses %s (%.0f%%), cause %s",
			  e->params[k], 100 * effect, cause);
	}
	return 0;
}

/* The hypothesis c0 + c1 * expect on the point estimates (models/lof.h). */
static void expect_hypothesis(struct validation *v, int ri, const struct exp_series *s,
			      const double *expected)
{
	const struct experiment *e = v->e;
	struct vexpect *x = &v->regions[ri].expected;
	int n = 0;
	double *t = xmalloc(sizeof(double) * (size_t)e->npoints), *y = xmalloc(sizeof(double) * (size_t)e->npoints);
	double *r = xmalloc(sizeof(double) * (size_t)e->npoints);
	struct point_estimate *pe = xmalloc(sizeof(*pe) * (size_t)e->npoints);
	double scov = point_series_cov(s->at, e->npoints);
	enum point_side side = point_side_of_series(e, s);
	for (int p = 0; p < e->npoints; p++) {
		if (!s->at[p].n || !isfinite(expected[p]))
			continue;
		point_estimate(&s->at[p], v->opt.model.aggregate, 1, scov, side, &pe[n]);
		t[n] = expected[p];
		y[n] = pe[n].value;
		r[n] = pe[n].n;
		n++;
	}
	struct lof_noise nz;
	lof_noise_pool(pe, n, v->opt.model.aggregate, &nz);
	double chi2;
	if (n >= 3 && nz.dof > 0 && lof_fit_line(t, y, r, n, &nz, &x->c0, &x->c1, &chi2) == 0) {
		x->tested = 1;
		x->p_value = lof_p(chi2, n, 2, &nz);
		x->consistent = x->p_value >= v->opt.alpha;
	}
	free(t);
	free(y);
	free(r);
	free(pe);
}

static void flag_volume(struct validation *v, int ri)
{
	const struct vregion *r = &v->regions[ri];
	const struct volume_result *vr = &r->volume;
	char *mb = model_string(&r->black_box);
	struct vflag *f = add_flag(v, ri, VFLAG_VOLUME, vr->param, vr->growth, vr->p_value, v->opt.strict);
	f->detail = xasprintf("measured/expected (%s) drifts %+.0f%% over %s; ratio %.3g..%.3g: "
			      "a term is missing or wrong; black-box model %s", r->func->expect,
			      100 * vr->growth, v->e->params[vr->param], vr->ratio_min, vr->ratio_max, mb);
	add_check(v, ri, "volume", vr->param, VCHECK_FLAGGED, "measured/expected drifts %+.0f%% over %s",
		  100 * vr->growth, v->e->params[vr->param]);
	free(mb);
}

/* Volume: c0 + c1 * expect first; if rejected, the drift of measured / expected. */
static int check_volume(struct validation *v, const struct validate_input *in, int ri,
			const struct exp_series *s, const int *allowed, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	if (!r->func || !r->func->expect || !in->expect) {
		if (r->func)
			add_check(v, ri, "volume", -1, VCHECK_NOT_TESTABLE, "no expect expression");
		return 0;
	}
	double *expected = xmalloc(sizeof(double) * (size_t)(e->npoints ? e->npoints : 1));
	int bad = 0;
	for (int p = 0; p < e->npoints && !bad; p++)
		if (in->expect(in->expect_ctx, r->func, e, p, &expected[p], err) < 0)
			bad = 1;
	if (!bad)
		expect_hypothesis(v, ri, s, expected);
	int t = bad ? -1 : volume_test(e, s, expected, allowed, &r->volume, err);
	free(expected);
	if (t < 0)
		return perr_prefix(err, "expected volume of '%s'", r->func->expect ? r->func->name : "?");
	r->volume_tested = t;
	const struct volume_result *vr = &r->volume;
	if (r->expected.consistent)
		add_check(v, ri, "volume", -1, VCHECK_PASSED, "consistent with the expected volume: "
			  "%.4g + %.4g * (%s), p=%.2g", r->expected.c0, r->expected.c1, r->func->expect,
			  r->expected.p_value);
	else if (t && vr->p_value < v->opt.alpha && fabs(vr->growth) >= v->opt.min_growth)
		flag_volume(v, ri);
	else if (t)
		add_check(v, ri, "volume", -1, VCHECK_PASSED, "measured/expected steady within %.0f%%",
			  100 * v->opt.min_growth);
	else
		add_check(v, ri, "volume", -1, VCHECK_NOT_TESTABLE, "too few points with an expected value");
	return 0;
}

/* Extrapolation: refit without each parameter's largest value and predict it. */
static int check_extrapolation(struct validation *v, int ri, const struct exp_series *s, const int *allowed,
			       const int *known, struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	for (int k = 0; k < e->nparams; k++) {
		struct extrap_result *x = &r->extrap[k];
		if (excluded_param(v, ri, allowed, known, k)) {
			add_check(v, ri, "extrapolation", k, VCHECK_PASSED, "not looked for: the dependencies "
				  "exclude %s", e->params[k]);
			continue;
		}
		int t = extrapolate_test(e, s, k, &v->opt.model, x, err);
		if (t < 0)
			return -1;
		r->extrap_tested[k] = t;
		if (!t) {
			add_check(v, ri, "extrapolation", k, VCHECK_NOT_TESTABLE, "%s has %d values, the "
				  "check needs %d", e->params[k], x->nvalues, EXTRAP_MIN_VALUES);
			continue;
		}
		if (!x->unstable) {
			add_check(v, ri, "extrapolation", k, VCHECK_PASSED, "predicts %s=%g within %.1f%%",
				  e->params[k], x->xmax, 100 * x->error);
			continue;
		}
		char *m = model_string(&x->model);
		add_check(v, ri, "extrapolation", k, VCHECK_FLAGGED, "unstable: fitted without %s=%g, the "
			  "model %s mispredicts it by %.0f%% (noise %.0f%%); do not trust it beyond the "
			  "measured range", e->params[k], x->xmax, m, 100 * x->error, 100 * x->noise);
		free(m);
	}
	return 0;
}

static int check_region(struct validation *v, const struct validate_input *in, int ri,
			struct perr *err)
{
	struct vregion *r = &v->regions[ri];
	const struct experiment *e = v->e;
	const struct exp_series *s = experiment_series(e, r->callpath, r->metric);
	int np = e->nparams;
	int *allowed = xcalloc((size_t)(np ? np : 1), sizeof(int));
	int *known = xcalloc((size_t)(np ? np : 1), sizeof(int));
	int rc = -1;

	noise_check(e, s, v->opt.cov_threshold, v->opt.unreliable_fraction, &r->noise);
	for (int p = 0; p < e->npoints; p++)
		if (s && s->at[p].n)
			r->npoints++;
	r->modelled = r->npoints > 0 && !r->noise.unreliable;
	check_noise(v, ri);
	if (!r->modelled) {
		allowed_params(e, in->deps, r->func, v->rpn_param, allowed, known);
		rc = r->npoints > 0 ? check_contention(v, ri, s, allowed, known, err) : 0;
		goto out;
	}
	pmnf_release(&r->black_box);
	if (modeler_fit_series(e, r->callpath, r->metric, &v->opt.model, NULL, &r->black_box, err) < 0)
		goto out;
	allowed_params(e, in->deps, r->func, v->rpn_param, allowed, known);
	if (r->func) {
		struct model_constraint c = { .deps = in->deps, .func = r->func };
		pmnf_release(&r->constrained);
		if (modeler_fit_series(e, r->callpath, r->metric, &v->opt.model, &c, &r->constrained, err) < 0)
			goto out;
		r->has_constrained = 1;
	}
	if (check_contention(v, ri, s, allowed, known, err) < 0 ||
	    check_falsedeps(v, ri, s, allowed, known, err) < 0 || check_segments(v, ri, s, allowed, known, err) < 0 ||
	    check_volume(v, in, ri, s, allowed, err) < 0 ||
	    check_extrapolation(v, ri, s, allowed, known, err) < 0)
		goto out;
	rc = 0;
out:
	free(allowed);
	free(known);
	return rc;
}

/* The contention-study summary over regions of one metric. */
static void summarise_study(struct validation *v, int metric)
{
	struct contention_summary *cs = &v->study;
	cs->param = v->rpn_param;
	cs->metric = metric;
	cs->program_region = -1;
	cs->program_growth = cs->program_p = cs->program_first = cs->program_last = NAN;
	cs->xmin = cs->xmax = NAN;
	if (v->rpn_param < 0)
		return;
	double best = -INFINITY;
	for (int i = 0; i < v->nregions; i++) {
		struct vregion *r = &v->regions[i];
		if (r->metric != metric || !r->modelled || !r->growth_tested || !r->growth_tested[v->rpn_param])
			continue;
		const struct growth_test *g = &r->growth[v->rpn_param];
		cs->ntested++;
		if (g->p_value < v->opt.alpha && g->growth >= v->opt.min_growth)
			cs->nincreasing++;
		if (strstr(v->e->callpaths[r->callpath], "->"))
			continue;
		double level = pmnf_eval(&g->model, &g->xmin);
		if (level > best) {
			best = level;
			cs->program_region = i;
			cs->program_growth = g->growth;
			cs->program_p = g->p_value;
			cs->program_first = level;
			cs->program_last = pmnf_eval(&g->model, &g->xmax);
			cs->xmin = g->xmin;
			cs->xmax = g->xmax;
		}
	}
}

/*
 * The disturbed check (the input's reader left the runs out): per point the
 * runs left out and the repetitions kept, the points left with too few
 * (fewer than 2, or fewer than were left out), and a shared machine.
 */
static void check_disturbed(struct validation *v, const struct validate_input *in)
{
	struct vdisturbed *d = &v->disturbed;
	const struct experiment *e = v->e;
	d->res = in->disturbed;
	if (!d->res)
		return;
	size_t np = (size_t)(e->npoints ? e->npoints : 1);
	d->per_point = xcalloc(np, sizeof(int));
	d->kept = xcalloc(np, sizeof(int));
	d->remeasure = xcalloc(np, 1);
	for (int i = 0; i < d->res->n; i++) {
		int p = d->res->runs[i].point;
		if (p >= 0 && p < e->npoints)
			d->per_point[p]++;
	}
	for (int i = 0; i < v->nregions; i++) {
		const struct exp_series *s = experiment_series(e, v->regions[i].callpath, v->regions[i].metric);
		for (int p = 0; s && p < e->npoints; p++)
			if (s->at[p].n > d->kept[p])
				d->kept[p] = s->at[p].n;
	}
	for (int p = 0; p < e->npoints; p++)
		if (d->per_point[p] && (d->kept[p] < 2 || d->kept[p] < d->per_point[p])) {
			d->remeasure[p] = 1;
			d->nremeasure++;
		}
	d->shared = d->res->njudged > 0 && d->res->n > DISTURBED_SHARED_FRACTION * d->res->njudged;
	d->blocking = d->nremeasure > 0 || d->shared;
	v->nblocking += d->blocking;
}

static int cmp_regions(const void *a, const void *b, void *arg)
{
	const struct experiment *e = arg;
	const struct vregion *x = a, *y = b;
	int c = strcmp(e->callpaths[x->callpath], e->callpaths[y->callpath]);
	return c ? c : strcmp(e->metrics[x->metric], e->metrics[y->metric]);
}

int validate_run(struct validation *v, const struct validate_input *in,
		 const struct validate_options *opt, struct perr *err)
{
	memset(v, 0, sizeof(*v));
	v->e = in->e;
	v->deps = in->deps;
	if (opt)
		v->opt = *opt;
	else
		validate_options_init(&v->opt);
	const struct experiment *e = in->e;
	v->rpn_param = experiment_find_param(e, in->rpn_name ? in->rpn_name : VALIDATE_RPN_PARAM);
	v->study.param = -1;
	v->study.program_region = -1;

	int metric = -1;
	if (v->opt.metric) {
		metric = experiment_find_metric(e, v->opt.metric);
		if (metric < 0)
			return perr_set(err, "no metric '%s' in the data", v->opt.metric);
	} else {
		metric = experiment_find_metric(e, "time");
	}
	int np = e->nparams;
	for (int c = 0; c < e->ncallpaths; c++)
		for (int m = 0; m < e->nmetrics; m++) {
			if (metric >= 0 && m != metric)
				continue;
			if (!experiment_series(e, c, m))
				continue;
			XGROW(v->regions, (size_t)v->nregions + 1, v->regions_alloc);
			struct vregion *r = &v->regions[v->nregions++];
			memset(r, 0, sizeof(*r));
			r->callpath = c;
			r->metric = m;
			r->func = in->deps && in->funcs ? in->funcs[c] : NULL;
			pmnf_init(&r->black_box, np, e->params);
			pmnf_init(&r->constrained, np, e->params);
			r->growth = xcalloc((size_t)(np ? np : 1), sizeof(*r->growth));
			r->growth_tested = xcalloc((size_t)(np ? np : 1), sizeof(int));
			r->segment = xcalloc((size_t)(np ? np : 1), sizeof(*r->segment));
			r->segment_tested = xcalloc((size_t)(np ? np : 1), sizeof(int));
			r->extrap = xcalloc((size_t)(np ? np : 1), sizeof(*r->extrap));
			r->extrap_tested = xcalloc((size_t)(np ? np : 1), sizeof(int));
		}
	/* by call path and metric name, so every input form of the same data reports alike */
	if (v->nregions > 1)
		qsort_r(v->regions, (size_t)v->nregions, sizeof(*v->regions), cmp_regions, (void *)e);
	v->point_share = in->point_share;
	region_shares(v);
	check_disturbed(v, in);
	for (int i = 0; i < v->nregions; i++)
		if (check_region(v, in, i, err) < 0) {
			perr_prefix(err, "'%s'", e->callpaths[v->regions[i].callpath]);
			return -1;
		}
	summarise_study(v, metric >= 0 ? metric : (v->nregions ? v->regions[0].metric : -1));
	return 0;
}

void validation_release(struct validation *v)
{
	int np = v->e ? v->e->nparams : 0;
	for (int i = 0; i < v->nregions; i++) {
		struct vregion *r = &v->regions[i];
		noise_result_release(&r->noise);
		pmnf_release(&r->black_box);
		pmnf_release(&r->constrained);
		for (int k = 0; k < np; k++) {
			if (r->growth_tested[k] || r->growth[k].model.params)
				growth_test_release(&r->growth[k]);
			if (r->segment_tested[k])
				segment_result_release(&r->segment[k]);
			if (r->extrap[k].model.params)
				extrap_result_release(&r->extrap[k]);
		}
		free(r->growth);
		free(r->growth_tested);
		free(r->segment);
		free(r->segment_tested);
		free(r->extrap);
		free(r->extrap_tested);
		free(r->excluded);
	}
	for (int i = 0; i < v->nflags; i++)
		free(v->flags[i].detail);
	for (int i = 0; i < v->nchecks; i++)
		free(v->checks[i].reason);
	free(v->disturbed.per_point);
	free(v->disturbed.kept);
	free(v->disturbed.remeasure);
	free(v->checks);
	free(v->regions);
	free(v->flags);
	memset(v, 0, sizeof(*v));
}

int validate_expect_expr(void *ctx, const struct dep_function *f, const struct experiment *e,
			 int point, double *value, struct perr *err)
{
	(void)ctx;
	struct expr *x = expr_parse(f->expect, e->nparams, e->params, err);
	if (!x)
		return perr_prefix(err, "'%s'", f->expect);
	*value = expr_eval(x, &e->coords[(size_t)point * (size_t)e->nparams]);
	expr_free(x);
	return 0;
}
