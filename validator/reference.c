/* The reference file of `perfsweep compare` (see reference.h). */
#include "models/modeler.h"
#include "models/pmnf_json.h"
#include "validator/reference.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define FORMAT_NAME "perfsweep-reference"

int reference_detect(const char *path)
{
	char buf[4097];
	const char *why;
	int fd = fs_open_regular(path, 0, &why);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
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

/* The numbers of a JSON array into x (at most n); their count, or -1 if
   not all numbers or more than n. */
static int numbers(const json_t *a, double *x, int n)
{
	if (!json_is_array(a) || json_array_size(a) > (size_t)n)
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

/* One point of a region: its coordinates and values into e.  0, or -1. */
static int read_point(const char *path, const char *where, const json_t *pt, int c, int m,
		      struct experiment *e, struct perr *err)
{
	double x[64];
	const json_t *vs = json_object_get(pt, "values");
	if (numbers(json_object_get(pt, "coordinates"), x, 64) != e->nparams)
		return perr_set(err, "%s: %s: needs %d \"coordinates\" (numbers), one per parameter",
				path, where, e->nparams);
	if (!json_is_array(vs) || !json_array_size(vs))
		return perr_set(err, "%s: %s: \"values\" must be a non-empty array of numbers", path, where);
	int p = experiment_point(e, x);
	const struct exp_values *had = experiment_values(e, c, m, p);
	if (had && had->n)
		return perr_set(err, "%s: %s: the same coordinates as an earlier point of this region",
				path, where);
	size_t k;
	const json_t *v;
	json_array_foreach(vs, k, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return perr_set(err, "%s: %s: value %zu is not a finite number", path, where, k + 1);
		experiment_add(e, c, m, p, json_number_value(v));
	}
	return 0;
}

/* One region of the file into e. */
static int read_region(const char *path, int r, const json_t *o, struct experiment *e, struct perr *err)
{
	const char *cp = json_string_value(json_object_get(o, "callpath"));
	const char *mt = json_string_value(json_object_get(o, "metric"));
	const json_t *pts = json_object_get(o, "points");
	if (!cp || !mt || !json_is_array(pts) || !*cp || !*mt)
		return perr_set(err, "%s: region %d: needs \"callpath\", \"metric\" (non-empty strings) and "
				"\"points\"", path, r + 1);
	int c0 = experiment_find_callpath(e, cp), m0 = experiment_find_metric(e, mt);
	if (c0 >= 0 && m0 >= 0 && experiment_series(e, c0, m0))
		return perr_set(err, "%s: region %d: '%s' [%s] is given twice", path, r + 1, cp, mt);
	int c = experiment_callpath(e, cp), m = experiment_metric(e, mt);
	size_t i;
	const json_t *pt;
	json_array_foreach(pts, i, pt) {
		char *where = xasprintf("region %d ('%s') point %zu", r + 1, cp, i + 1);
		int rc = read_point(path, where, pt, c, m, e, err);
		free(where);
		if (rc)
			return -1;
	}
	return 0;
}

/* The parsed file into e. */
static int read_root(struct experiment *e, const char *path, const json_t *root, struct perr *err)
{
	const char *fmt = json_string_value(json_object_get(root, "format"));
	const json_t *params = json_object_get(root, "parameters"), *regions = json_object_get(root, "regions");
	if (!fmt || strcmp(fmt, FORMAT_NAME) || json_integer_value(json_object_get(root, "version")) != 1)
		return perr_set(err, "%s: not a perfsweep reference (\"format\": \"%s\", \"version\": 1); "
				"write one with 'perfsweep export DIR --format reference'", path, FORMAT_NAME);
	if (!json_is_array(params) || !json_is_array(regions) || json_array_size(params) > 64)
		return perr_set(err, "%s: needs \"parameters\" (at most 64 names) and \"regions\" arrays", path);
	size_t i;
	const json_t *v;
	json_array_foreach(params, i, v) {
		if (!json_is_string(v) || experiment_find_param(e, json_string_value(v)) >= 0)
			return perr_set(err, "%s: parameter %zu: not a string, or named twice", path, i + 1);
		experiment_param(e, json_string_value(v));
	}
	json_array_foreach(regions, i, v)
		if (read_region(path, (int)i, v, e, err) < 0)
			return -1;
	return 0;
}

int reference_read_mem(struct experiment *e, const char *path, const char *buf, size_t len, struct perr *err)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, 0, &je);
	if (!root)
		return je.line < 1 ? perr_set(err, "cannot read '%s': %s", path, je.text)
				   : perr_set(err, "%s:%d: %s", path, je.line, je.text);
	int rc = read_root(e, path, root, err);
	json_decref(root);
	return rc;
}

int reference_read(struct experiment *e, const char *path, struct perr *err)
{
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	int rc = fs_read_file(&sb, path, FS_READ_LIMIT_DATA, &why) ? perr_set(err, "cannot read '%s': %s", path, why)
						  : reference_read_mem(e, path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return rc;
}
