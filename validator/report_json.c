/* The JSON validity report (a stable contract, see report.h). */
#include "validator/report.h"
#include <math.h>
#include <stdlib.h>

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
	return o;
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
		json_object_set_new(o, "detail", json_string(f->detail));
		json_array_append_new(flags, o);
	}
	json_object_set_new(root, "flags", flags);
	json_t *regions = json_array();
	for (int i = 0; i < v->nregions; i++)
		json_array_append_new(regions, region_json(v, &v->regions[i]));
	json_object_set_new(root, "regions", regions);
	return root;
}
