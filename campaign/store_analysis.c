/*
 * The campaign store: what analysis reads (a run's measurements, the ranks
 * per node of the analysed runs, experiments by metric, leaving runs out).
 */
#include "campaign/store_priv.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int store_load_measurements(struct store *st, long long id, struct measurement_list *ml,
			    struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "SELECT rank, region, metric, value FROM measurements"
				  " WHERE run = ? ORDER BY rowid", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW)
		measurement_list_add(ml, sqlite3_column_int(s, 0), (const char *)sqlite3_column_text(s, 1),
				     (const char *)sqlite3_column_text(s, 2), sqlite3_column_double(s, 3));
	sdb_finish(st, s);
	return 0;
}

/* Flush one run's aggregated (region, metric) value into the experiment
   (a run left out: only the region and metric's names). */
static void flush_group(struct experiment *e, int point, const char *region, const char *metric,
			double agg_value, double sum, int nranks, long long run, int left_out,
			struct exp_runs *runs)
{
	double v = !isnan(agg_value) ? agg_value : (nranks ? sum / nranks : NAN);
	if (isnan(v))
		return;
	int c = experiment_callpath(e, region), m = experiment_metric(e, metric);
	if (left_out)
		return;
	experiment_add(e, c, m, point, v);
	if (runs) {
		XGROW(runs->v, (size_t)runs->n + 1, runs->alloc);
		runs->v[runs->n++] = (struct exp_run){ c, m, point, run };
	}
}

/* The runs an analysis reads, as an SQL condition on runs r: done ones, and
   retired ones that were done when flags has STORE_INCLUDE_RETIRED. */
const char *analysed_runs(const struct store *st, int flags)
{
	return st->grown_columns && (flags & STORE_INCLUDE_RETIRED)
		? "(r.state = 3 OR (r.state = 6 AND r.retired_from = 3))" : "r.state = 3";
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The most of nodes[0..n) that are one node (n small: a run's ranks). */
static int most_on_one_node(char **nodes, int n)
{
	qsort(nodes, (size_t)n, sizeof(*nodes), cmp_node);
	int most = 0;
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(nodes[i], nodes[j]); j++)
			;
		if (j - i > most)
			most = j - i;
	}
	return most;
}

/*
 * Each run's most ranks on one node, from its bindings, into the runs of
 * out (by id) that have any.  The bindings are read in their key's order
 * (run, rank) and a run's ranks counted per node here: SQL's GROUP BY run,
 * node sorted them through two temporary b-trees and an automatic index
 * for the join (2.4 s at 10^6 runs, read twice by every analysis; 0.1 s).
 * 1 when the store has no bindings table (a store from before it, opened
 * read-only).
 */
static int load_real_rpn(struct store *st, struct run_rpn *out, int n, struct perr *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "SELECT run, node FROM bindings WHERE node IS NOT NULL AND node != ''"
			       " ORDER BY run, rank", -1, &s, NULL) != SQLITE_OK) {
		if (!strstr(sqlite3_errmsg(st->db), "no such table"))
			return sdb_err(st, err, "read bindings");
		return 1;
	}
	char **nodes = NULL;
	size_t alloc = 0;
	int nnodes = 0, i = 0, rc;
	long long run = 0;
	for (;;) {
		rc = sqlite3_step(s);
		long long r = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
		if (nnodes && (rc != SQLITE_ROW || r != run)) {
			while (i < n && out[i].run < run)
				i++;
			if (i < n && out[i].run == run)
				out[i].real = most_on_one_node(nodes, nnodes);
			for (int k = 0; k < nnodes; k++)
				free(nodes[k]);
			nnodes = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		run = r;
		XGROW(nodes, (size_t)nnodes + 1, alloc);
		nodes[nnodes++] = xstrdup((const char *)sqlite3_column_text(s, 1));
	}
	free(nodes);
	if (rc != SQLITE_DONE)
		sdb_err(st, err, "read bindings");
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_load_run_rpn(struct store *st, int flags, struct run_rpn **out, int *n, struct perr *err)
{
	*out = NULL;
	*n = 0;
	char *q = xasprintf("SELECT r.id, r.point, r.ranks_per_node FROM runs r WHERE %s ORDER BY r.id",
			    analysed_runs(st, flags));
	sqlite3_stmt *s = sdb_prepare(st, q, err);
	free(q);
	if (!s)
		return -1;
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*out, (size_t)*n + 1, alloc);
		struct run_rpn *r = &(*out)[(*n)++];
		r->run = sqlite3_column_int64(s, 0);
		r->point = sqlite3_column_int(s, 1);
		r->planned = sqlite3_column_int(s, 2);
		r->real = -1;
	}
	if (rc != SQLITE_DONE)
		sdb_err(st, err, "read runs");
	sdb_finish(st, s);
	if (rc != SQLITE_DONE || load_real_rpn(st, *out, *n, err) < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

static int cmp_run_rpn(const void *a, const void *b)
{
	long long x = ((const struct run_rpn *)a)->run, y = ((const struct run_rpn *)b)->run;
	return (x > y) - (x < y);
}

const struct run_rpn *run_rpn_find(const struct run_rpn *rr, int n, long long run)
{
	struct run_rpn key = { .run = run };
	return bsearch(&key, rr, (size_t)n, sizeof(*rr), cmp_run_rpn);
}

/* The first plan point with point p's values (placement axes repeat them). */
static int *same_values(const struct store *st)
{
	int *canon = xmalloc(sizeof(int) * (size_t)(st->npoints + 1));
	struct strmap m;
	strmap_init(&m);
	struct strbuf key;
	strbuf_init(&key);
	for (int p = 0; p < st->npoints; p++) {
		strbuf_reset(&key);
		for (int k = 0; k < st->nparams; k++)
			strbuf_addf(&key, "%.17g,", st->point_values[(size_t)p * st->nparams + k]);
		int q = strmap_get(&m, key.buf);
		if (q < 0)
			strmap_put(&m, key.buf, q = p);
		canon[p] = q;
	}
	strbuf_release(&key);
	strmap_release(&m);
	return canon;
}

/* Did runs with the same parameter values have different ranks per node? */
static int rpn_varies_at_same_values(const struct store *st, const struct run_rpn *r, int n)
{
	int *canon = same_values(st);
	int *first = xmalloc(sizeof(int) * (size_t)(st->npoints + 1));
	for (int p = 0; p < st->npoints; p++)
		first[p] = -1;
	int varies = 0;
	for (int i = 0; i < n && !varies; i++) {
		if (r[i].point < 0 || r[i].point >= st->npoints)
			continue;
		int v = run_rpn_effective(&r[i]), p = canon[r[i].point];
		if (first[p] < 0)
			first[p] = v;
		else
			varies = first[p] != v;
	}
	free(first);
	free(canon);
	return varies;
}

/* A run's coordinates: its plan point's values, ranks per node (index rpn_k) as really had. */
static void run_coords(const struct store *st, long long id, int point, const struct run_rpn *rr, int nrr,
		       int rpn_k, double *coords)
{
	for (int k = 0; k < st->nparams; k++)
		coords[k] = (point >= 0 && point < st->npoints) ? st->point_values[(size_t)point * st->nparams + k]
								 : 0;
	const struct run_rpn *r = run_rpn_find(rr, nrr, id);
	if (rpn_k >= 0 && r)
		coords[rpn_k] = run_rpn_effective(r);
}

/*
 * The measurements an analysis reads: done runs (and retired ones that were
 * done, when asked), and of a repetition measured again only its latest
 * done measurement.
 */
/* Of a repetition measured again, only the latest done measurement counts:
   an SQL condition on runs r (empty for stores before re-measurements). */
const char *latest_measurement(const struct store *st)
{
	return st->grown_columns ? " AND NOT EXISTS (SELECT 1 FROM runs n WHERE n.point = r.point"
				   " AND n.repetition = r.repetition AND n.remeasure > r.remeasure AND n.state = 3)" : "";
}

static sqlite3_stmt *experiment_query(struct store *st, const char *metric, int flags, struct perr *err)
{
	char *sql = xasprintf("SELECT r.id, r.point, r.ranks_per_node, m.rank, m.region, m.metric, m.value"
			      " FROM runs r JOIN measurements m ON m.run = r.id"
			      " WHERE %s AND (?1 IS NULL AND m.metric <> '" REGEX_CPU_SHARE_METRIC "' OR m.metric = ?1)%s"
			      " ORDER BY r.id, m.region, m.metric, m.rank",
			      analysed_runs(st, flags), latest_measurement(st));
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	free(sql);
	if (s && metric)
		sqlite3_bind_text(s, 1, metric, -1, SQLITE_STATIC);
	return s;
}

int store_load_experiment(struct store *st, const char *metric, struct experiment *e,
			  struct perr *err)
{
	return store_load_experiment_runs(st, metric, 0, e, NULL, err);
}

int store_load_experiment_with(struct store *st, const char *metric, int flags, struct experiment *e,
			       struct perr *err)
{
	return store_load_experiment_runs(st, metric, flags, e, NULL, err);
}

int store_load_experiment_runs(struct store *st, const char *metric, int flags, struct experiment *e,
			       struct exp_runs *runs, struct perr *err)
{
	return store_load_experiment_leaving_out(st, metric, flags, NULL, e, runs, err);
}

static int cmp_id(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The index of run id in lo, or -1. */
static int left_out(const struct store_leave_out *lo, long long id)
{
	if (!lo || !lo->n)
		return -1;
	const long long *hit = bsearch(&id, lo->runs, (size_t)lo->n, sizeof(*lo->runs), cmp_id);
	return hit ? (int)(hit - lo->runs) : -1;
}

int store_has_metric(struct store *st, const char *metric)
{
	sqlite3_stmt *s = NULL;
	int has = 1;
	if (sqlite3_prepare_v2(st->db, "SELECT EXISTS (SELECT 1 FROM measurements WHERE metric = ?)", -1, &s,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, metric, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			has = sqlite3_column_int(s, 0) != 0;
	}
	sqlite3_finalize(s);
	return has;
}

int store_load_experiment_leaving_out(struct store *st, const char *metric, int flags,
				      const struct store_leave_out *lo, struct experiment *e,
				      struct exp_runs *runs, struct perr *err)
{
	for (int i = 0; lo && lo->point && i < lo->n; i++)
		lo->point[i] = -1;
	struct run_rpn *rr;
	int nrr;
	if (store_load_run_rpn(st, flags, &rr, &nrr, err) < 0)
		return -1;
	/* the ranks-per-node axis: a parameter with that role, else an added one when it varies */
	int rpn_k = -1;
	for (int k = 0; k < st->nparams; k++) {
		experiment_param(e, st->param_names[k]);
		if (st->param_roles[k] && !strcmp(st->param_roles[k], "ranks_per_node"))
			rpn_k = k;
	}
	if (rpn_k < 0 && rpn_varies_at_same_values(st, rr, nrr)) {
		if (experiment_find_param(e, "ranks_per_node") < 0)
			experiment_param(e, "ranks_per_node");
		rpn_k = e->nparams - 1;
	}
	sqlite3_stmt *s = experiment_query(st, metric, flags, err);
	if (!s) {
		free(rr);
		return -1;
	}
	double *coords = xcalloc((size_t)e->nparams + 1, sizeof(double));
	long long cur_run = -1;
	int cur_point = -1;
	char *cur_region = NULL, *cur_metric = NULL;
	double agg = NAN, sum = 0;
	int nranks = 0, skip = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(s, 0);
		const char *region = (const char *)sqlite3_column_text(s, 4);
		const char *met = (const char *)sqlite3_column_text(s, 5);
		if (id != cur_run || strcmp(region, cur_region) || strcmp(met, cur_metric)) {
			if (cur_region)
				flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, skip,
					    runs);
			free(cur_region);
			free(cur_metric);
			cur_region = xstrdup(region);
			cur_metric = xstrdup(met);
			agg = NAN;
			sum = 0;
			nranks = 0;
			if (id != cur_run) {
				cur_run = id;
				run_coords(st, id, sqlite3_column_int(s, 1), rr, nrr, rpn_k, coords);
				/* a run left out keeps its point in the experiment */
				cur_point = experiment_point(e, coords);
				int k = left_out(lo, id);
				skip = k >= 0;
				if (skip && lo->point)
					lo->point[k] = cur_point;
			}
		}
		double v = sqlite3_column_double(s, 6);
		if (sqlite3_column_int(s, 3) < 0)
			agg = v;
		else {
			sum += v;
			nranks++;
		}
	}
	if (cur_region)
		flush_group(e, cur_point, cur_region, cur_metric, agg, sum, nranks, cur_run, skip, runs);
	free(cur_region);
	free(cur_metric);
	free(coords);
	free(rr);
	sdb_finish(st, s);
	return 0;
}

/* One side of store_each_run_data's merge join: a query ordered by run id
   (its column 0), and whether it stands on a row. */
struct run_cursor {
	sqlite3_stmt *s;
	int row;
	int rc;         /* the last step's: SQLITE_ROW or SQLITE_DONE unless the store failed */
};

/* Step c; a step that fails (a corrupt page) ends the cursor and stays in
   rc, so that the walk reports it instead of a store cut short. */
static void cursor_next(struct run_cursor *c)
{
	c->rc = sqlite3_step(c->s);
	c->row = c->rc == SQLITE_ROW;
}

/* Prepare sql and step to its first row; when optional, a table a store
   from before it lacks (opened read-only) gives an empty cursor.  The runs
   and measurements every store has: without them the store is broken. */
static int cursor_open(struct store *st, struct run_cursor *c, const char *sql, const char *what,
		       int optional, struct perr *err)
{
	c->row = 0;
	c->rc = SQLITE_DONE;
	if (sqlite3_prepare_v2(st->db, sql, -1, &c->s, NULL) != SQLITE_OK) {
		int absent = strstr(sqlite3_errmsg(st->db), "no such table") != NULL;
		sqlite3_finalize(c->s);
		c->s = NULL;
		return absent && optional ? 0 : sdb_err(st, err, what);
	}
	cursor_next(c);
	return 0;
}

/* Skip the rows of runs before id; 1 when the cursor stands on a row of id. */
static int cursor_at(struct run_cursor *c, long long id)
{
	while (c->row && sqlite3_column_int64(c->s, 0) < id)
		cursor_next(c);
	return c->row && sqlite3_column_int64(c->s, 0) == id;
}

int store_each_run_data(struct store *st, int flags, int (*fn)(void *ctx, const struct store_run_data *d),
			void *ctx, struct perr *err)
{
	enum { RUNS, MEAS, BIND, RES, NCUR };
	struct run_cursor c[NCUR] = { { 0 } };
	char *sql[NCUR] = {
		xasprintf("SELECT " RUN_COLUMNS "%s FROM runs r WHERE %s ORDER BY id",
			  st->grown_columns ? GROWN_COLUMNS : GROWN_DEFAULTS, analysed_runs(st, flags)),
		xstrdup("SELECT run, rank, region, metric, value FROM measurements ORDER BY run, rowid"),
		xstrdup("SELECT run, rank, node, cpuset, cores FROM bindings ORDER BY run, rank"),
		xasprintf("SELECT s.run, " RESOURCE_COLUMNS "%s FROM resources s ORDER BY s.run, s.rank",
			  sdb_census_columns(st)),
	};
	static const char *const what[NCUR] = { "read runs", "read measurements", "read bindings",
						"read resources" };
	int ret = 0;
	for (int i = 0; i < NCUR && !ret; i++)
		ret = cursor_open(st, &c[i], sql[i], what[i], i == BIND || i == RES, err);
	struct measurement_list ml;
	measurement_list_init(&ml);
	struct run_binding *bd = NULL;
	struct run_resource *rs = NULL;
	size_t bd_alloc = 0, rs_alloc = 0;
	while (!ret && c[RUNS].row) {
		struct run r;
		sdb_read_run(st, c[RUNS].s, &r);
		measurement_list_release(&ml);
		measurement_list_init(&ml);
		int nb = 0, nrs = 0;
		for (; cursor_at(&c[MEAS], r.id); cursor_next(&c[MEAS]))
			measurement_list_add(&ml, sqlite3_column_int(c[MEAS].s, 1),
					     (const char *)sqlite3_column_text(c[MEAS].s, 2),
					     (const char *)sqlite3_column_text(c[MEAS].s, 3),
					     sqlite3_column_double(c[MEAS].s, 4));
		for (; cursor_at(&c[BIND], r.id); cursor_next(&c[BIND])) {
			XGROW(bd, (size_t)nb + 1, bd_alloc);
			struct run_binding *b = &bd[nb++];
			b->rank = sqlite3_column_int(c[BIND].s, 1);
			b->node = sdb_col_str(c[BIND].s, 2);
			b->cpuset = sdb_col_str(c[BIND].s, 3);
			b->cores = sdb_col_str(c[BIND].s, 4);
		}
		for (; cursor_at(&c[RES], r.id); cursor_next(&c[RES])) {
			XGROW(rs, (size_t)nrs + 1, rs_alloc);
			sdb_read_resource(c[RES].s, 1, &rs[nrs++]);
		}
		struct store_run_data d = { &r, &ml, bd, nb, rs, nrs };
		ret = fn(ctx, &d);
		for (int i = 0; i < nb; i++) {
			free(bd[i].node);
			free(bd[i].cpuset);
			free(bd[i].cores);
		}
		run_release(&r);
		cursor_next(&c[RUNS]);
	}
	for (int i = 0; i < NCUR && !ret; i++)
		if (c[i].rc != SQLITE_ROW && c[i].rc != SQLITE_DONE)
			ret = sdb_err(st, err, what[i]);
	measurement_list_release(&ml);
	free(bd);
	free(rs);
	for (int i = 0; i < NCUR; i++) {
		sqlite3_finalize(c[i].s);
		free(sql[i]);
	}
	return ret;
}

int store_runs_recorded(struct store *st, int *bound, int *recorded, struct perr *err)
{
	static const char *const sql[2] = {
		"SELECT EXISTS (SELECT 1 FROM bindings b JOIN runs r ON r.id = b.run WHERE r.state = 3)",
		"SELECT EXISTS (SELECT 1 FROM resources s JOIN runs r ON r.id = s.run WHERE r.state = 3)",
	};
	int *out[2] = { bound, recorded };
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *s = NULL;
		*out[i] = 0;
		/* a store from before the table, opened read-only, has none */
		if (sqlite3_prepare_v2(st->db, sql[i], -1, &s, NULL) != SQLITE_OK) {
			int absent = strstr(sqlite3_errmsg(st->db), "no such table") != NULL;
			sqlite3_finalize(s);
			if (!absent)
				return sdb_err(st, err, i ? "read resources" : "read bindings");
			continue;
		}
		*out[i] = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0);
		sqlite3_finalize(s);
	}
	return 0;
}
