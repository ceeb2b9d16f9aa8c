/* Extra-P JSON and JSON Lines: read into and write from struct experiment (jansson). */
#include "collectors/extrap_json.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- reading helpers ---------- */

static int is_num(const json_t *j)
{
	return json_is_integer(j) || json_is_real(j);
}

static int read_file(const char *path, struct strbuf *sb, struct perr *err)
{
	const char *why;
	if (fs_read_file(sb, path, FS_READ_LIMIT_DATA, &why) < 0)
		return perr_set(err, "cannot read '%s': %s", path, why);
	return 0;
}

/* Add one point (coords for e's parameters), or fail when parameters are missing. */
static int add_values(struct experiment *e, const char *cp, const char *metric, const double *coords,
		      const double *v, int n)
{
	int p = experiment_point(e, coords);
	int c = experiment_callpath(e, cp);
	int m = experiment_metric(e, metric);
	if (p < 0)
		return -1;
	for (int i = 0; i < n; i++)
		experiment_add(e, c, m, p, v[i]);
	return 0;
}

/* ---------- JSON, current form ---------- */

/* One measurement {"point": [...], "values": [...]} of the current form; -1 with err. */
static int read_item(struct experiment *e, const char *name, const char *cp, const char *metric, size_t k,
		     json_t *item, double *coords, double **vals, size_t *valloc, struct perr *err)
{
	int np = e->nparams;
	json_t *pt = json_object_get(item, "point");
	json_t *vs = json_object_get(item, "values");
	if (!json_is_array(pt) || json_array_size(pt) != (size_t)np)
		return perr_set(err, "%s: measurements.\"%s\".\"%s\"[%zu].point: expected %d coordinates",
				name, cp, metric, k, np);
	for (int d = 0; d < np; d++) {
		json_t *x = json_array_get(pt, (size_t)d);
		if (!is_num(x))
			return perr_set(err, "%s: measurements.\"%s\".\"%s\"[%zu].point[%d]: expected a number",
					name, cp, metric, k, d);
		coords[d] = json_number_value(x);
	}
	if (!json_is_array(vs) || json_array_size(vs) == 0)
		return perr_set(err, "%s: measurements.\"%s\".\"%s\"[%zu].values: expected a non-empty array",
				name, cp, metric, k);
	size_t nv = json_array_size(vs);
	XGROW(*vals, nv, *valloc);
	for (size_t j = 0; j < nv; j++) {
		json_t *x = json_array_get(vs, j);
		if (!is_num(x))
			return perr_set(err, "%s: measurements.\"%s\".\"%s\"[%zu].values[%zu]: expected a number",
					name, cp, metric, k, j);
		(*vals)[j] = json_number_value(x);
	}
	add_values(e, cp, metric, coords, *vals, (int)nv);
	return 0;
}

static int read_new(struct experiment *e, const char *name, json_t *root, struct perr *err)
{
	json_t *params = json_object_get(root, "parameters");
	json_t *meas = json_object_get(root, "measurements");
	if (!json_is_array(params) || json_array_size(params) == 0)
		return perr_set(err, "%s: parameters: expected a non-empty array of names", name);
	if (!json_is_object(meas))
		return perr_set(err, "%s: measurements: expected an object", name);
	size_t i;
	json_t *pj;
	json_array_foreach(params, i, pj) {
		if (!json_is_string(pj))
			return perr_set(err, "%s: parameters[%zu]: expected a string", name, i);
		if (experiment_find_param(e, json_string_value(pj)) >= 0)
			return perr_set(err, "%s: parameters[%zu]: duplicate parameter '%s'", name, i,
					json_string_value(pj));
		experiment_param(e, json_string_value(pj));
	}
	int np = e->nparams;
	double *coords = xmalloc(sizeof(double) * (size_t)np);
	double *vals = NULL;
	size_t valloc = 0;
	int rc = 0;
	const char *cp;
	json_t *cpj;
	json_object_foreach(meas, cp, cpj) {
		if (!json_is_object(cpj)) {
			rc = perr_set(err, "%s: measurements.\"%s\": expected an object of metrics", name, cp);
			break;
		}
		const char *metric;
		json_t *mj;
		json_object_foreach(cpj, metric, mj) {
			if (!json_is_array(mj)) {
				rc = perr_set(err, "%s: measurements.\"%s\".\"%s\": expected an array", name, cp, metric);
				goto out;
			}
			size_t k;
			json_t *item;
			json_array_foreach(mj, k, item) {
				rc = read_item(e, name, cp, metric, k, item, coords, &vals, &valloc, err);
				if (rc)
					goto out;
			}
		}
	}
out:
	free(coords);
	free(vals);
	return rc;
}

/* ---------- JSON, legacy id-based form ---------- */

struct idname {
	long long id;
	const char *name;
};

static int cmp_idname(const void *a, const void *b)
{
	long long x = ((const struct idname *)a)->id, y = ((const struct idname *)b)->id;
	return (x > y) - (x < y);
}

/* An array of {"id", "name"} sorted by id. */
static int id_table(const char *name, json_t *root, const char *key, struct idname **out, size_t *n,
		    struct perr *err)
{
	json_t *a = json_object_get(root, key);
	if (!json_is_array(a))
		return perr_set(err, "%s: %s: expected an array", name, key);
	*n = json_array_size(a);
	*out = xcalloc(*n + 1, sizeof(**out));
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		json_t *id = json_object_get(x, "id"), *nm = json_object_get(x, "name");
		if (!json_is_integer(id) || !json_is_string(nm)) {
			free(*out);
			*out = NULL;
			return perr_set(err, "%s: %s[%zu]: expected {\"id\": integer, \"name\": string}", name, key, i);
		}
		(*out)[i].id = json_integer_value(id);
		(*out)[i].name = json_string_value(nm);
	}
	qsort(*out, *n, sizeof(**out), cmp_idname);
	return 0;
}

static const char *by_id(const struct idname *t, size_t n, long long id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return t[i].name;
	return NULL;
}

static int read_legacy(struct experiment *e, const char *name, json_t *root, struct perr *err)
{
	struct idname *params = NULL, *cps = NULL, *mets = NULL;
	size_t np = 0, ncp = 0, nm = 0;
	int rc = -1;
	long long *coord_ids = NULL;
	double *coords = NULL;
	if (id_table(name, root, "parameters", &params, &np, err) < 0 ||
	    id_table(name, root, "callpaths", &cps, &ncp, err) < 0 ||
	    id_table(name, root, "metrics", &mets, &nm, err) < 0)
		goto out;
	for (size_t i = 0; i < np; i++)
		experiment_param(e, params[i].name);
	json_t *ca = json_object_get(root, "coordinates");
	if (!json_is_array(ca)) {
		perr_set(err, "%s: coordinates: expected an array", name);
		goto out;
	}
	size_t nc = json_array_size(ca);
	coord_ids = xcalloc(nc + 1, sizeof(long long));
	coords = xcalloc((nc + 1) * (np + 1), sizeof(double));
	size_t i;
	json_t *x;
	json_array_foreach(ca, i, x) {
		json_t *id = json_object_get(x, "id"), *pv = json_object_get(x, "parameter_value_pairs");
		if (!json_is_integer(id) || !json_is_array(pv) || json_array_size(pv) != np) {
			perr_set(err, "%s: coordinates[%zu]: expected an id and %zu parameter_value_pairs", name, i, np);
			goto out;
		}
		coord_ids[i] = json_integer_value(id);
		size_t k;
		json_t *pair;
		json_array_foreach(pv, k, pair) {
			json_t *pid = json_object_get(pair, "parameter_id"), *val = json_object_get(pair, "parameter_value");
			const char *pname = json_is_integer(pid) ? by_id(params, np, json_integer_value(pid)) : NULL;
			if (!pname || !is_num(val)) {
				perr_set(err, "%s: coordinates[%zu].parameter_value_pairs[%zu]: bad parameter_id or value",
					 name, i, k);
				goto out;
			}
			coords[i * np + (size_t)experiment_find_param(e, pname)] = json_number_value(val);
		}
	}
	json_t *ma = json_object_get(root, "measurements");
	if (!json_is_array(ma)) {
		perr_set(err, "%s: measurements: expected an array", name);
		goto out;
	}
	json_array_foreach(ma, i, x) {
		json_t *c = json_object_get(x, "coordinate_id"), *p = json_object_get(x, "callpath_id"),
		       *m = json_object_get(x, "metric_id"), *v = json_object_get(x, "value");
		const char *cpn = json_is_integer(p) ? by_id(cps, ncp, json_integer_value(p)) : NULL;
		const char *mn = json_is_integer(m) ? by_id(mets, nm, json_integer_value(m)) : NULL;
		size_t ci = nc;
		if (json_is_integer(c))
			for (size_t k = 0; k < nc; k++)
				if (coord_ids[k] == json_integer_value(c))
					ci = k;
		if (!cpn || !mn || ci == nc || !is_num(v)) {
			perr_set(err, "%s: measurements[%zu]: unknown coordinate, callpath or metric id, or no value",
				 name, i);
			goto out;
		}
		double val = json_number_value(v);
		add_values(e, cpn, mn, &coords[ci * np], &val, 1);
	}
	rc = 0;
out:
	free(params);
	free(cps);
	free(mets);
	free(coord_ids);
	free(coords);
	return rc;
}

/* ---------- JSON Lines ---------- */

static int looks_like_jsonl(const char *buf, size_t len)
{
	int objects = 0;
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		size_t a = i;
		while (a < j && (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\r'))
			a++;
		if (a < j) {
			if (buf[a] != '{')
				return 0;
			objects++;
		}
		i = j + 1;
	}
	return objects > 0;
}

/* What the lines of a JSON Lines file share. */
struct jsonl_state {
	int have_params;
	double *coords, *vals;
	size_t valloc;
};

/* The value(s) of one line into st->vals and their count; -1 with err. */
static int line_values(const char *name, int line, json_t *value, struct jsonl_state *st, size_t *nv,
		       struct perr *err)
{
	*nv = json_is_array(value) ? json_array_size(value) : 1;
	XGROW(st->vals, *nv + 1, st->valloc);
	if (!json_is_array(value)) {
		if (!is_num(value))
			return perr_set(err, "%s:%d: \"value\" is not a number", name, line);
		st->vals[0] = json_number_value(value);
		return 0;
	}
	if (*nv == 0)
		return perr_set(err, "%s:%d: empty \"value\" list", name, line);
	for (size_t q = 0; q < *nv; q++) {
		json_t *x = json_array_get(value, q);
		if (!is_num(x))
			return perr_set(err, "%s:%d: value[%zu] is not a number", name, line, q);
		st->vals[q] = json_number_value(x);
	}
	return 0;
}

/* One parsed line {"params": {...}, "value": ..., "callpath": ..., "metric": ...}; -1 with err. */
static int read_line(struct experiment *e, const char *name, int line, json_t *o, struct jsonl_state *st,
		     struct perr *err)
{
	json_t *params = json_object_get(o, "params"), *value = json_object_get(o, "value");
	json_t *cpj = json_object_get(o, "callpath"), *mj = json_object_get(o, "metric");
	if (!json_is_object(params) || json_object_size(params) == 0)
		return perr_set(err, "%s:%d: missing \"params\" object", name, line);
	if (!value)
		return perr_set(err, "%s:%d: missing \"value\"", name, line);
	if ((cpj && !json_is_string(cpj)) || (mj && !json_is_string(mj)))
		return perr_set(err, "%s:%d: \"callpath\" and \"metric\" must be strings", name, line);
	const char *k;
	json_t *v;
	if (!st->have_params) {
		json_object_foreach(params, k, v)
			experiment_param(e, k);
		st->coords = xmalloc(sizeof(double) * (size_t)e->nparams);
		st->have_params = 1;
	}
	if (json_object_size(params) != (size_t)e->nparams)
		return perr_set(err, "%s:%d: %zu parameters, the first line has %d", name, line,
				json_object_size(params), e->nparams);
	json_object_foreach(params, k, v) {
		int p = experiment_find_param(e, k);
		if (p < 0)
			return perr_set(err, "%s:%d: unknown parameter '%s'", name, line, k);
		if (!is_num(v))
			return perr_set(err, "%s:%d: parameter '%s' is not a number", name, line, k);
		st->coords[p] = json_number_value(v);
	}
	size_t nv;
	if (line_values(name, line, value, st, &nv, err) < 0)
		return -1;
	add_values(e, cpj ? json_string_value(cpj) : "<root>", mj ? json_string_value(mj) : "<default>",
		   st->coords, st->vals, (int)nv);
	return 0;
}

int extrap_jsonl_read_mem(struct experiment *e, const char *name, const char *buf, size_t len,
			  struct perr *err)
{
	size_t i = 0;
	int line = 0, rc = 0;
	struct jsonl_state st = { 0 };
	while (i < len && rc == 0) {
		line++;
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		size_t a = i;
		while (a < j && (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\r'))
			a++;
		if (a == j) {
			i = j + 1;
			continue;
		}
		json_error_t je;
		json_t *o = json_loadb(buf + i, j - i, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
		if (!o) {
			rc = perr_set(err, "%s:%d: %s", name, line, je.text);
			break;
		}
		rc = read_line(e, name, line, o, &st, err);
		json_decref(o);
		i = j + 1;
	}
	if (!rc && !st.have_params)
		rc = perr_set(err, "%s: no measurements", name);
	free(st.coords);
	free(st.vals);
	return rc;
}

int extrap_json_read_mem(struct experiment *e, const char *name, const char *buf, size_t len,
			 struct perr *err)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (looks_like_jsonl(buf, len))
			return extrap_jsonl_read_mem(e, name, buf, len, err);
		return perr_set(err, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	}
	int rc;
	if (!json_is_object(root))
		rc = perr_set(err, "%s: expected a JSON object at the top", name);
	else if (json_object_get(root, "callpaths"))
		rc = read_legacy(e, name, root, err);
	else
		rc = read_new(e, name, root, err);
	json_decref(root);
	return rc;
}

/* Read path and hand its text to one of the _mem readers. */
static int read_path(struct experiment *e, const char *path,
		     int (*read_mem)(struct experiment *, const char *, const char *, size_t, struct perr *),
		     struct perr *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	int rc = read_file(path, &sb, err);
	if (!rc)
		rc = read_mem(e, path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return rc;
}

int extrap_json_read(struct experiment *e, const char *path, struct perr *err)
{
	return read_path(e, path, extrap_json_read_mem, err);
}

int extrap_jsonl_read(struct experiment *e, const char *path, struct perr *err)
{
	return read_path(e, path, extrap_jsonl_read_mem, err);
}

/* ---------- writing ---------- */

static json_t *num(double v)
{
	return json_real(v);  /* NULL for NaN and infinities */
}

static json_t *point_array(const struct experiment *e, int p)
{
	json_t *a = json_array();
	for (int k = 0; k < e->nparams; k++)
		json_array_append_new(a, num(experiment_coord(e, p, k)));
	return a;
}

static int check_finite(const struct experiment *e, struct perr *err)
{
	for (int p = 0; p < e->npoints; p++)
		for (int k = 0; k < e->nparams; k++)
			if (!isfinite(experiment_coord(e, p, k)))
				return perr_set(err, "cannot write a non-finite coordinate of '%s' as JSON",
						e->params[k]);
	for (int s = 0; s < e->nseries; s++)
		for (int p = 0; p < e->npoints; p++)
			for (int i = 0; i < e->series[s].at[p].n; i++)
				if (!isfinite(e->series[s].at[p].v[i]))
					return perr_set(err, "cannot write non-finite value %g of '%s' (%s) as JSON",
							e->series[s].at[p].v[i], e->callpaths[e->series[s].callpath],
							e->metrics[e->series[s].metric]);
	return 0;
}

static int dump(FILE *f, json_t *j, size_t flags, struct perr *err)
{
	int rc = json_dumpf(j, f, flags | JSON_REAL_PRECISION(17));
	if (rc < 0 || ferror(f))
		return perr_set(err, "write error: %s", strerror(errno));
	return 0;
}

int extrap_json_write(FILE *f, const struct experiment *e, struct perr *err)
{
	if (check_finite(e, err) < 0)
		return -1;
	json_t *root = json_object();
	json_t *params = json_array();
	for (int k = 0; k < e->nparams; k++)
		json_array_append_new(params, json_string(e->params[k]));
	json_object_set_new(root, "parameters", params);
	json_t *meas = json_object();
	for (int c = 0; c < e->ncallpaths; c++) {
		json_t *cpo = NULL;
		for (int m = 0; m < e->nmetrics; m++) {
			const struct exp_series *s = experiment_series(e, c, m);
			if (!s)
				continue;
			json_t *list = json_array();
			for (int p = 0; p < e->npoints; p++) {
				const struct exp_values *v = &s->at[p];
				if (v->n == 0)
					continue;
				json_t *item = json_object();
				json_object_set_new(item, "point", point_array(e, p));
				json_t *vals = json_array();
				for (int i = 0; i < v->n; i++)
					json_array_append_new(vals, num(v->v[i]));
				json_object_set_new(item, "values", vals);
				json_array_append_new(list, item);
			}
			if (!cpo)
				cpo = json_object();
			json_object_set_new(cpo, e->metrics[m], list);
		}
		if (cpo)
			json_object_set_new(meas, e->callpaths[c], cpo);
	}
	json_object_set_new(root, "measurements", meas);
	int rc = dump(f, root, JSON_INDENT(1), err);
	if (!rc && fputc('\n', f) == EOF)
		rc = perr_set(err, "write error: %s", strerror(errno));
	json_decref(root);
	return rc;
}

int extrap_jsonl_write(FILE *f, const struct experiment *e, struct perr *err)
{
	return extrap_jsonl_write_annotated(f, e, NULL, NULL, err);
}

int extrap_jsonl_write_annotated(FILE *f, const struct experiment *e, jsonl_annotate_fn annotate,
				 void *ctx, struct perr *err)
{
	if (check_finite(e, err) < 0)
		return -1;
	for (int c = 0; c < e->ncallpaths; c++)
		for (int m = 0; m < e->nmetrics; m++) {
			const struct exp_series *s = experiment_series(e, c, m);
			if (!s)
				continue;
			for (int p = 0; p < e->npoints; p++) {
				const struct exp_values *v = &s->at[p];
				if (v->n == 0)
					continue;
				json_t *o = json_object();
				json_t *params = json_object();
				for (int k = 0; k < e->nparams; k++)
					json_object_set_new(params, e->params[k], num(experiment_coord(e, p, k)));
				json_object_set_new(o, "params", params);
				json_object_set_new(o, "callpath", json_string(e->callpaths[c]));
				json_object_set_new(o, "metric", json_string(e->metrics[m]));
				json_t *vals = json_array();
				for (int i = 0; i < v->n; i++)
					json_array_append_new(vals, num(v->v[i]));
				json_object_set_new(o, "value", vals);
				if (annotate)
					annotate(ctx, c, m, p, o);
				int rc = dump(f, o, JSON_COMPACT, err);
				json_decref(o);
				if (rc < 0)
					return -1;
				if (fputc('\n', f) == EOF)
					return perr_set(err, "write error: %s", strerror(errno));
			}
		}
	return 0;
}
