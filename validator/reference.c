/* The reference file of `perfsweep compare` (see reference.h). */
#include "models/modeler.h"
#include "models/pmnf_json.h"
#include "validator/reference.h"
#include <errno.h>
#include <jansson.h>
#include <string.h>


#define FORMAT_NAME "perfsweep-reference"

int reference_detect(const char *path)
{
	char buf[4097];
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, "\"" FORMAT_NAME "\"") != NULL;
}

/* One region: its points with values, and its model. */
static json_t *region_json(const struct experiment *e, const struct exp_series *s, struct modeler *ctx)
{
	json_t *o = json_object(), *pts = json_array();
	json_object_set_new(o, "callpath", json_string(e->callpaths[s->callpath]));
	json_object_set_new(o, "metric", json_string(e->metrics[s->metric]));
	for (int p = 0; p < e->npoints; p++) {
		const struct exp_values *v = &s->at[p];
		if (v->n == 0)
			continue;
		json_t *pt = json_object(), *xs = json_array(), *vs = json_array();
		for (int k = 0; k < e->nparams; k++)
			json_array_append_new(xs, json_real(experiment_coord(e, p, k)));
		for (int i = 0; i < v->n; i++)
			json_array_append_new(vs, json_real(v->v[i]));
		json_object_set_new(pt, "coordinates", xs);
		json_object_set_new(pt, "values", vs);
		json_array_append_new(pts, pt);
	}
	json_object_set_new(o, "points", pts);
	struct model_options mo;
	struct pmnf_model m;
	struct perr err;
	model_options_init(&mo);
	mo.aggregate = MODEL_MEDIAN;
	if (modeler_fit_series_ctx(ctx, e, s->callpath, s->metric, &mo, NULL, &m, &err) == 0)
		json_object_set_new(o, "model", pmnf_json(&m));
	else
		json_object_set_new(o, "model", json_null());
	pmnf_release(&m);
	return o;
}

int reference_write(FILE *f, const struct experiment *e, struct perr *err)
{
	json_t *root = json_object(), *params = json_array(), *regions = json_array();
	json_object_set_new(root, "format", json_string(FORMAT_NAME));
	json_object_set_new(root, "version", json_integer(1));
	for (int k = 0; k < e->nparams; k++)
		json_array_append_new(params, json_string(e->params[k]));
	json_object_set_new(root, "parameters", params);
	struct modeler *ctx = modeler_new();
	for (int i = 0; i < e->nseries; i++)
		json_array_append_new(regions, region_json(e, &e->series[i], ctx));
	modeler_free(ctx);
	json_object_set_new(root, "regions", regions);
	int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(root);
	if (rc == 0)
		rc = fputc('\n', f) == EOF ? -1 : 0;
	return rc ? perr_set(err, "cannot write the reference: %s", strerror(errno)) : 0;
}

/* The numbers of a JSON array into x (at most n); their count, or -1 if not all numbers. */
static int numbers(const json_t *a, double *x, int n)
{
	if (!json_is_array(a) || (int)json_array_size(a) > n)
		return -1;
	size_t i;
	const json_t *v;
	json_array_foreach(a, i, v) {
		if (!json_is_number(v))
			return -1;
		x[i] = json_number_value(v);
	}
	return (int)json_array_size(a);
}

/* One region of the file into e. */
static int read_region(const char *path, int r, const json_t *o, struct experiment *e, struct perr *err)
{
	const char *cp = json_string_value(json_object_get(o, "callpath"));
	const char *mt = json_string_value(json_object_get(o, "metric"));
	const json_t *pts = json_object_get(o, "points");
	if (!cp || !mt || !json_is_array(pts))
		return perr_set(err, "%s: region %d: needs \"callpath\", \"metric\" and \"points\"", path, r + 1);
	int c = experiment_callpath(e, cp), m = experiment_metric(e, mt);
	size_t i;
	const json_t *pt;
	json_array_foreach(pts, i, pt) {
		double x[64], vals[4096];
		int nv = numbers(json_object_get(pt, "values"), vals, 4096);
		if (numbers(json_object_get(pt, "coordinates"), x, 64) != e->nparams || nv < 0)
			return perr_set(err, "%s: region %d ('%s') point %zu: needs %d \"coordinates\" and "
					"\"values\" (numbers)", path, r + 1, cp, i + 1, e->nparams);
		int p = experiment_point(e, x);
		for (int k = 0; k < nv; k++)
			experiment_add(e, c, m, p, vals[k]);
	}
	return 0;
}

int reference_read(struct experiment *e, const char *path, struct perr *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		if (je.line < 1)
			return perr_set(err, "cannot read '%s': %s", path, je.text);
		return perr_set(err, "%s:%d: %s", path, je.line, je.text);
	}
	int rc = 0;
	const char *fmt = json_string_value(json_object_get(root, "format"));
	const json_t *params = json_object_get(root, "parameters"), *regions = json_object_get(root, "regions");
	if (!fmt || strcmp(fmt, FORMAT_NAME) || json_integer_value(json_object_get(root, "version")) != 1)
		rc = perr_set(err, "%s: not a perfsweep reference (\"format\": \"%s\", \"version\": 1); "
			      "write one with 'perfsweep export DIR --format reference'", path, FORMAT_NAME);
	else if (!json_is_array(params) || !json_is_array(regions) || json_array_size(params) > 64)
		rc = perr_set(err, "%s: needs \"parameters\" (at most 64 names) and \"regions\" arrays", path);
	size_t i;
	const json_t *v;
	if (!rc)
		json_array_foreach(params, i, v) {
			if (!json_is_string(v) || experiment_find_param(e, json_string_value(v)) >= 0) {
				rc = perr_set(err, "%s: parameter %zu: not a string, or named twice", path, i + 1);
				break;
			}
			experiment_param(e, json_string_value(v));
		}
	if (!rc)
		json_array_foreach(regions, i, v)
			if ((rc = read_region(path, (int)i, v, e, err)) < 0)
				break;
	json_decref(root);
	return rc;
}
