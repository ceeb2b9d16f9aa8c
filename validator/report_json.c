/* The JSON validity report (a stable contract, see report.h). */
#include "validator/report.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *number_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *model_json(const struct pmnf_model *m)
{
	char *s = pmnf_format(m, 0);
	json_t *j = json_string(s);
	free(s);
	return j;
}

/* [{point: {param: value}, repetition, value, ratio}] */
static json_t *outliers_json(const struct validation *v, const struct vregion *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->noise.noutliers; i++) {
		const struct noise_outlier *o = &r->noise.outliers[i];
		json_t *x = json_object(), *pt = json_object();
		for (int k = 0; k < v->e->nparams; k++)
			json_object_set_new(pt, v->e->params[k], json_real(experiment_coord(v->e, o->point, k)));
		json_object_set_new(x, "point", pt);
		json_object_set_new(x, "repetition", json_integer(o->rep + 1));
		json_object_set_new(x, "repetitions", json_integer(o->nreps));
		json_object_set_new(x, "value", number_or_null(o->value));
		json_object_set_new(x, "ratio", number_or_null(o->ratio));
		json_array_append_new(a, x);
	}
	return a;
}

/* {consistent, c0, c1, p_value} of the hypothesis c0 + c1 * expect, or null. */
static json_t *expected_json(const struct vregion *r)
{
	if (!r->expected.tested)
		return json_null();
	json_t *x = json_object();
	json_object_set_new(x, "expect", json_string(r->func->expect));
	json_object_set_new(x, "consistent", json_boolean(r->expected.consistent));
	json_object_set_new(x, "c0", number_or_null(r->expected.c0));
	json_object_set_new(x, "c1", number_or_null(r->expected.c1));
	json_object_set_new(x, "p_value", number_or_null(r->expected.p_value));
	return x;
}

/* A contention check's figures: measured growth, p-value, noise, the smallest growth it flags. */
static void contention_fields(json_t *o, const struct validation *v, const struct vregion *r, int k)
{
	const struct growth_test *g = k >= 0 && r->growth_tested[k] ? &r->growth[k] : NULL;
	json_object_set_new(o, "growth", number_or_null(g ? g->growth : NAN));
	json_object_set_new(o, "p_value", number_or_null(g ? g->p_value : NAN));
	json_object_set_new(o, "noise", number_or_null(g ? g->noise : NAN));
	json_object_set_new(o, "detectable_growth", number_or_null(g ? validation_flaggable_growth(v, g) : NAN));
	json_object_set_new(o, "power", json_real(v->opt.power));
	json_object_set_new(o, "max_detectable", json_real(v->opt.max_detectable));
}

/* {param: value} of experiment point p, or null for -1. */
static json_t *point_json(const struct experiment *e, int p)
{
	if (p < 0)
		return json_null();
	json_t *pt = json_object();
	for (int k = 0; k < e->nparams; k++)
		json_object_set_new(pt, e->params[k], json_real(experiment_coord(e, p, k)));
	return pt;
}

/* Who took a run's time: [{pid, command, core, share}], the largest first. */
static json_t *causes_json(const struct disturbed_cause *c, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "pid", json_integer(c[i].pid));
		json_object_set_new(x, "command", json_string(c[i].comm));
		json_object_set_new(x, "core", json_integer(c[i].core));
		json_object_set_new(x, "share", json_real(c[i].share));
		json_array_append_new(a, x);
	}
	return a;
}

/* The disturbed check: null without resource records. */
static json_t *disturbed_json(const struct validation *v)
{
	const struct vdisturbed *d = &v->disturbed;
	const struct disturbed_result *res = d->res;
	if (!res)
		return json_null();
	json_t *o = json_object(), *runs = json_array(), *re = json_array();
	json_object_set_new(o, "judged", json_integer(res->njudged));
	json_object_set_new(o, "min_cpu_share", json_real(res->rule.min_cpu_share));
	json_object_set_new(o, "median_nivcsw_per_s", number_or_null(res->median_rate));
	json_object_set_new(o, "median_nivcsw_per_cpu_s", number_or_null(res->median_cpu_rate));
	json_object_set_new(o, "census", json_integer(res->ncensus));
	for (int i = 0; i < res->n; i++) {
		const struct disturbed_run *r = &res->runs[i];
		json_t *x = json_object(), *by = json_array();
		json_object_set_new(x, "run", json_integer(r->run));
		json_object_set_new(x, "point", point_json(v->e, r->point));
		json_object_set_new(x, "repetition", json_integer(r->repetition));
		json_object_set_new(x, "rank", json_integer(r->rank));
		json_object_set_new(x, "cpu_share", number_or_null(r->share));
		json_object_set_new(x, "allowed_share", number_or_null(r->allowed));
		json_object_set_new(x, "nivcsw_per_s", number_or_null(r->rate));
		json_object_set_new(x, "nivcsw_per_cpu_s", number_or_null(r->cpu_rate));
		json_object_set_new(x, "taken", number_or_null(r->taken));
		json_object_set_new(x, "steal", number_or_null(r->steal));
		if (r->why & DISTURBED_BY_FOREIGN)
			json_array_append_new(by, json_string("foreign"));
		if (r->why & DISTURBED_BY_STEAL)
			json_array_append_new(by, json_string("steal"));
		if (r->why & DISTURBED_BY_SWITCHES)
			json_array_append_new(by, json_string("context_switches"));
		json_object_set_new(x, "by", by);
		json_object_set_new(x, "causes", causes_json(r->causes, r->ncauses));
		json_array_append_new(runs, x);
	}
	for (int p = 0; p < v->e->npoints; p++) {
		if (!d->remeasure[p])
			continue;
		json_t *x = json_object();
		json_object_set_new(x, "point", point_json(v->e, p));
		json_object_set_new(x, "undisturbed", json_integer(d->kept[p]));
		json_object_set_new(x, "disturbed", json_integer(d->per_point[p]));
		json_array_append_new(re, x);
	}
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "remeasure", re);
	json_object_set_new(o, "shared", json_boolean(d->shared));
	json_object_set_new(o, "blocking", json_boolean(d->blocking));
	return o;
}

static json_t *checks_json(const struct validation *v)
{
	json_t *a = json_array();
	for (int i = 0; i < v->nchecks; i++) {
		const struct vcheck *c = &v->checks[i];
		const struct vregion *r = &v->regions[c->region];
		json_t *o = json_object();
		json_object_set_new(o, "callpath", json_string(v->e->callpaths[r->callpath]));
		json_object_set_new(o, "metric", json_string(v->e->metrics[r->metric]));
		json_object_set_new(o, "check", json_string(c->check));
		json_object_set_new(o, "parameter", c->param >= 0 ? json_string(v->e->params[c->param]) : json_null());
		json_object_set_new(o, "status", json_string(vcheck_status_name(c->status)));
		json_object_set_new(o, "reason", json_string(c->reason));
		if (!strcmp(c->check, "contention"))
			contention_fields(o, v, r, c->param);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *region_json(const struct validation *v, const struct vregion *r)
{
	const struct experiment *e = v->e;
	json_t *o = json_object();
	json_object_set_new(o, "callpath", json_string(e->callpaths[r->callpath]));
	json_object_set_new(o, "metric", json_string(e->metrics[r->metric]));
	json_object_set_new(o, "points", json_integer(r->npoints));
	json_object_set_new(o, "modelled", json_boolean(r->modelled));
	json_object_set_new(o, "unreliable", json_boolean(r->noise.unreliable));
	json_object_set_new(o, "max_cov", number_or_null(r->noise.max_cov));
	json_object_set_new(o, "noisy_points", json_integer(r->noise.nnoisy));
	json_object_set_new(o, "model", r->modelled ? model_json(&r->black_box) : json_null());
	json_object_set_new(o, "constrained", r->has_constrained ? model_json(&r->constrained) : json_null());
	if (r->func && v->deps) {
		json_t *terms = json_array();
		for (int t = 0; t < r->func->nterms; t++) {
			json_t *term = json_array();
			for (int i = 0; i < r->func->terms[t].n; i++)
				json_array_append_new(term, json_string(v->deps->params[r->func->terms[t].params[i]]));
			json_array_append_new(terms, term);
		}
		json_object_set_new(o, "dependencies", terms);
	} else {
		json_object_set_new(o, "dependencies", json_null());
	}
	json_t *ex = json_array();
	for (int i = 0; i < r->nexcluded; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "parameter", json_string(e->params[r->excluded[i].param]));
		json_object_set_new(x, "effect", number_or_null(r->excluded[i].effect));
		json_object_set_new(x, "cause", json_string(r->excluded[i].cause));
		json_object_set_new(x, "flagged", json_boolean(r->excluded[i].flagged));
		json_array_append_new(ex, x);
	}
	json_object_set_new(o, "excluded_parameters", ex);
	json_t *kinds = json_array();
	for (int i = 0; i < v->nflags; i++)
		if (&v->regions[v->flags[i].region] == r)
			json_array_append_new(kinds, json_string(vflag_kind_name(v->flags[i].kind)));
	json_object_set_new(o, "flags", kinds);
	json_object_set_new(o, "blocking", json_boolean(r->nblocking > 0));
	json_object_set_new(o, "share", number_or_null(r->share));
	json_object_set_new(o, "below_min_share", json_boolean(r->small));
	json_object_set_new(o, "outliers", outliers_json(v, r));
	json_object_set_new(o, "outlier_side",
			    json_string(point_side_name(point_side_of_series(e, experiment_series(e, r->callpath, r->metric)))));
	json_object_set_new(o, "expected_volume", expected_json(r));
	return o;
}

/* A segmented flag's change: located or not, between which values, the model of each side. */
static void segment_json(json_t *o, const struct validation *v, const struct vflag *f)
{
	const struct segment_result *sr = &v->regions[f->region].segment[f->param];
	char *ml = pmnf_format(&sr->left, 4), *mr = pmnf_format(&sr->right, 4);
	json_object_set_new(o, "located", json_boolean(segment_located(sr, v->opt.alpha)));
	json_object_set_new(o, "change_between", json_pack("[ff]", sr->x_before, sr->x_after));
	json_object_set_new(o, "model_before", json_string(ml));
	json_object_set_new(o, "model_after", json_string(mr));
	json_object_set_new(o, "p_before", number_or_null(sr->p_left));
	json_object_set_new(o, "p_after", number_or_null(sr->p_right));
	free(ml);
	free(mr);
}

json_t *report_json(const struct validation *v)
{
	const struct experiment *e = v->e;
	json_t *root = json_object();
	json_object_set_new(root, "verdict",
			    json_string(validation_publishable(v) ? "publishable" : "blocked"));
	json_t *flags = json_array();
	for (int i = 0; i < v->nflags; i++) {
		const struct vflag *f = &v->flags[i];
		const struct vregion *r = &v->regions[f->region];
		json_t *o = json_object();
		json_object_set_new(o, "callpath", json_string(e->callpaths[r->callpath]));
		json_object_set_new(o, "metric", json_string(e->metrics[r->metric]));
		json_object_set_new(o, "kind", json_string(vflag_kind_name(f->kind)));
		json_object_set_new(o, "parameter", f->param >= 0 ? json_string(e->params[f->param]) : json_null());
		json_object_set_new(o, "growth", number_or_null(f->growth));
		json_object_set_new(o, "p_value", number_or_null(f->p_value));
		json_object_set_new(o, "cpu_share_first", number_or_null(f->share_first));
		json_object_set_new(o, "cpu_share_last", number_or_null(f->share_last));
		json_object_set_new(o, "share_explains", number_or_null(f->share_explains));
		json_object_set_new(o, "unexplained", number_or_null(f->unexplained));
		json_object_set_new(o, "unexplained_p", number_or_null(f->unexplained_p));
		json_object_set_new(o, "detail", json_string(f->detail));
		if (f->kind == VFLAG_SEGMENTED)
			segment_json(o, v, f);
		json_array_append_new(flags, o);
	}
	json_object_set_new(root, "flags", flags);
	json_t *regions = json_array();
	for (int i = 0; i < v->nregions; i++)
		json_array_append_new(regions, region_json(v, &v->regions[i]));
	json_object_set_new(root, "regions", regions);
	json_object_set_new(root, "checks", checks_json(v));
	json_object_set_new(root, "disturbed", disturbed_json(v));
	json_object_set_new(root, "selection", json_string(model_selection_name(v->opt.model.selection)));
	json_object_set_new(root, "aggregate", json_string(model_aggregate_name(v->opt.model.aggregate)));
	return root;
}
