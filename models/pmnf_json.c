/* A PMNF model as JSON (see pmnf_json.h). */
#include "models/pmnf_json.h"
#include <math.h>
#include <stdlib.h>

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *pmnf_json(const struct pmnf_model *m)
{
	json_t *o = json_object(), *terms = json_array();
	char *s = pmnf_format(m, 0);
	json_object_set_new(o, "model", json_string(s));
	free(s);
	json_object_set_new(o, "constant", num(m->constant));
	for (int k = 0; k < m->nterms; k++) {
		json_t *t = json_object(), *fs = json_array();
		json_object_set_new(t, "coefficient", num(m->terms[k].coef));
		for (int i = 0; i < m->terms[k].nfactors; i++) {
			const struct pmnf_factor *f = &m->terms[k].factors[i];
			json_t *fo = json_object();
			json_object_set_new(fo, "parameter", json_string(m->params[f->param]));
			json_object_set_new(fo, "poly_exponent", json_real(f->poly_exp));
			json_object_set_new(fo, "log_exponent", json_real(f->log_exp));
			json_array_append_new(fs, fo);
		}
		json_object_set_new(t, "factors", fs);
		json_array_append_new(terms, t);
	}
	json_object_set_new(o, "terms", terms);
	json_object_set_new(o, "rss", num(m->rss));
	json_object_set_new(o, "ar2", num(m->ar2));
	json_object_set_new(o, "smape", num(m->smape));
	json_object_set_new(o, "re", num(m->re));
	json_object_set_new(o, "expected_volume", json_boolean(m->expected));
	json_object_set_new(o, "trend_p", num(m->trend_p));
	return o;
}
