/*
 * Growing a campaign: appending runs (store_append_runs) and moving the
 * store to a new plan (store_plan_diff, store_grow).  A run is its point
 * (values and ranks per node), its repetition and its re-measurement; the
 * point fixes the placement.  Nothing is ever deleted: runs that leave the
 * plan are retired.  Each write is one transaction.
 */
#include "common/clock.h"
#include "common/point_text.h"
#include "common/xalloc.h"
#include "campaign/store_priv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A point of the store. */
struct spoint {
	int id;
	int nodes, rpn;
	char *policy, *map, *cores;
	double *values;             /* store parameter order */
	int plan;                   /* the plan point it is (store_grow), or -1 */
};

/* A run of the store, as much as growing needs. */
struct grun {
	long long id;
	int point, repetition;
	int from_plan;              /* origin is the plan */
	int state;
	int retired_from;           /* for a retired run */
};

struct grow {
	struct store *st;
	const struct plan *pl;
	int *sk;                    /* plan parameter k -> store parameter */
	int launch_known;           /* points record map and cores per rank */
	int nsp;
	struct spoint *sp;
	int *match;                 /* plan point -> index into sp, or -1 */
	int same_plan;              /* pl is the stored plan: no run leaves or returns */
	int nruns;
	struct grun *runs;          /* sorted by point, repetition */
};

static void grow_release(struct grow *g)
{
	for (int i = 0; i < g->nsp; i++) {
		free(g->sp[i].policy);
		free(g->sp[i].map);
		free(g->sp[i].cores);
		free(g->sp[i].values);
	}
	free(g->sp);
	free(g->sk);
	free(g->match);
	free(g->runs);
	memset(g, 0, sizeof(*g));
}

static int load_points(struct grow *g, struct perr *err)
{
	struct store *st = g->st;
	char *launch = store_get_meta(st, "points_launch");
	g->launch_known = launch != NULL;
	free(launch);
	sqlite3_stmt *s = sdb_prepare(st, st->grown_columns
				      ? "SELECT id, nodes, ranks_per_node, policy, map, cores_per_rank FROM points ORDER BY id"
				      : "SELECT id, nodes, ranks_per_node, policy, NULL, NULL FROM points ORDER BY id", err);
	if (!s)
		return -1;
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(g->sp, (size_t)g->nsp + 1, alloc);
		struct spoint *p = &g->sp[g->nsp++];
		p->id = sqlite3_column_int(s, 0);
		p->nodes = sqlite3_column_int(s, 1);
		p->rpn = sqlite3_column_int(s, 2);
		p->policy = sdb_col_str(s, 3);
		p->map = sdb_col_str(s, 4);
		p->cores = sdb_col_str(s, 5);
		p->plan = -1;
		p->values = xcalloc((size_t)(st->nparams ? st->nparams : 1), sizeof(double));
		if (p->id >= 0 && p->id < st->npoints)
			memcpy(p->values, &st->point_values[(size_t)p->id * st->nparams],
			       sizeof(double) * (size_t)st->nparams);
	}
	sdb_finish(st, s);
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct grun *x = a, *y = b;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	if (x->repetition != y->repetition)
		return x->repetition < y->repetition ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int load_runs(struct grow *g, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(g->st, g->st->grown_columns
				      ? "SELECT id, point, repetition, origin IS NULL, state, retired_from FROM runs"
				      : "SELECT id, point, repetition, 1, state, NULL FROM runs", err);
	if (!s)
		return -1;
	size_t alloc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(g->runs, (size_t)g->nruns + 1, alloc);
		struct grun *r = &g->runs[g->nruns++];
		r->id = sqlite3_column_int64(s, 0);
		r->point = sqlite3_column_int(s, 1);
		r->repetition = sqlite3_column_int(s, 2);
		r->from_plan = sqlite3_column_int(s, 3);
		r->state = sqlite3_column_int(s, 4);
		r->retired_from = sqlite3_column_int(s, 5);
	}
	sdb_finish(g->st, s);
	if (g->nruns > 1)
		qsort(g->runs, (size_t)g->nruns, sizeof(*g->runs), cmp_run);
	return 0;
}

/* Does the store hold a run of point id at repetition rep? */
static int has_run(const struct grow *g, int id, int rep)
{
	struct grun key = { .id = -1, .point = id, .repetition = rep };
	int lo = 0, hi = g->nruns;
	while (lo < hi) {       /* the first run not below key */
		int mid = (lo + hi) / 2;
		if (cmp_run(&g->runs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nruns && g->runs[lo].point == id && g->runs[lo].repetition == rep;
}

static int same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The placement key that differs between a stored point and a new one, or NULL. */
static const char *placement_change(const struct grow *g, const struct spoint *p, int nodes,
				    const char *policy, const char *map, const char *cores)
{
	if (p->nodes != nodes)
		return "nodes";
	if (!same_text(p->policy, policy))
		return "placement.policy";
	if (g->launch_known && !same_text(p->map, map))
		return "placement.map";
	if (g->launch_known && !same_text(p->cores, cores))
		return "placement.cores_per_rank";
	return NULL;
}

static void describe_point(const struct store *st, const double *values, int rpn, char *buf, size_t n)
{
	struct strbuf sb;
	strbuf_init(&sb);
	point_text(&sb, (const char *const *)st->param_names, values, st->nparams, ", ");
	if (rpn > 0)
		strbuf_addf(&sb, ", ranks_per_node=%d", rpn);
	snprintf(buf, n, "%s", sb.buf);
	strbuf_release(&sb);
}

static int refuse_placement(const struct grow *g, const struct spoint *p, const char *key, struct perr *err)
{
	char where[512];
	describe_point(g->st, p->values, p->rpn, where, sizeof(where));
	return perr_set(err, "%s: the placement of the campaign's point (%s) in '%s' changed; its runs would"
			" no longer mean what they measured: use a new campaign directory (--dir)",
			key, where, g->st->dir);
}

/* Plan parameters onto the store's, by name: the same set, or refused. */
static int map_params(struct grow *g, struct perr *err)
{
	const struct plan *pl = g->pl;
	struct store *st = g->st;
	g->sk = xcalloc((size_t)(pl->nparams ? pl->nparams : 1), sizeof(int));
	for (int k = 0; k < pl->nparams; k++) {
		g->sk[k] = -1;
		for (int j = 0; j < st->nparams; j++)
			if (!strcmp(pl->params[k].name, st->param_names[j]))
				g->sk[k] = j;
		if (g->sk[k] < 0)
			return perr_set_kind(err, PERR_PARAMETERS, "parameters: '%s' is not a parameter of "
					     "the campaign in '%s' (its runs have no value for it): use a new "
					     "campaign directory (--dir)", pl->params[k].name, st->dir);
	}
	if (pl->nparams != st->nparams)
		for (int j = 0; j < st->nparams; j++) {
			int found = 0;
			for (int k = 0; k < pl->nparams; k++)
				found |= g->sk[k] == j;
			if (!found)
				return perr_set_kind(err, PERR_PARAMETERS, "parameters: '%s' of the campaign in "
						     "'%s' is gone (its runs vary it): use a new campaign "
						     "directory (--dir)", st->param_names[j], st->dir);
		}
	return 0;
}

static int same_point(const struct grow *g, const struct spoint *p, const struct plan_point *pt)
{
	if (p->rpn != pt->ranks_per_node)
		return 0;
	for (int k = 0; k < g->pl->nparams; k++)
		if (p->values[g->sk[k]] != pt->values[k])
			return 0;
	return 1;
}

/*
 * A campaign measured with a placement section continued by a config
 * without one, or the other way: every point's launch changes (bound or
 * not, ranks per node or none), as compact -> spread changes it, so it is
 * refused the same way, not taken for new points beside retired ones.
 */
static int placement_section_change(const struct grow *g, struct perr *err)
{
	int stored = 0, planned = 0;
	for (int j = 0; j < g->nsp; j++)
		stored |= g->sp[j].policy != NULL || g->sp[j].rpn > 0;
	for (int i = 0; i < g->pl->npoints; i++)
		planned |= g->pl->points[i].policy != NULL || g->pl->points[i].ranks_per_node > 0;
	if (!g->nsp || !g->pl->npoints || stored == planned)
		return 0;
	return perr_set(err, "placement: the campaign in '%s' was measured %s a placement section and the "
			"config has %s; its runs would no longer mean what they measured: use a new campaign "
			"directory (--dir)", g->st->dir, stored ? "with" : "without", stored ? "none" : "one");
}

/* Each plan point onto the stored point with its values, refusing a changed placement. */
static int match_points(struct grow *g, struct perr *err)
{
	const struct plan *pl = g->pl;
	if (placement_section_change(g, err))
		return -1;
	g->match = xcalloc((size_t)(pl->npoints ? pl->npoints : 1), sizeof(int));
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		g->match[i] = -1;
		for (int j = 0; j < g->nsp && g->match[i] < 0; j++) {
			struct spoint *p = &g->sp[j];
			if (p->plan >= 0 || !same_point(g, p, pt))
				continue;
			const char *key = placement_change(g, p, pt->nodes, pt->policy, pt->map, pt->cores_per_rank);
			if (key)
				return refuse_placement(g, p, key, err);
			p->plan = i;
			g->match[i] = j;
		}
	}
	return 0;
}

static int grow_load(struct grow *g, struct store *st, const struct plan *pl, struct perr *err)
{
	memset(g, 0, sizeof(*g));
	g->st = st;
	g->pl = pl;
	g->same_plan = sdb_same_plan(st, pl);
	if (map_params(g, err) || load_points(g, err) || match_points(g, err) || load_runs(g, err)) {
		grow_release(g);
		return -1;
	}
	return 0;
}

/*
 * Is store point p inside the plan's range of every parameter?  A point
 * that refine or adaptive repetitions added (between two regimes, say) is
 * not a plan point, and stays in the campaign while the plan still spans it.
 */
static int within_plan_range(const struct grow *g, const struct spoint *p)
{
	for (int k = 0; k < g->pl->nparams; k++) {
		double v = p->values[g->sk[k]], lo = 0, hi = 0;
		for (int i = 0; i < g->pl->npoints; i++) {
			double x = g->pl->points[i].values[k];
			if (i == 0 || x < lo)
				lo = x;
			if (i == 0 || x > hi)
				hi = x;
		}
		if (g->pl->npoints == 0 || v < lo || v > hi)
			return 0;
	}
	return 1;
}

/* Is run r still in the plan?  Under the stored plan, every run stays as it is. */
static int run_wanted(const struct grow *g, const struct grun *r)
{
	if (g->same_plan)
		return r->state != RUN_RETIRED;
	int j = 0;
	while (j < g->nsp && g->sp[j].id != r->point)
		j++;
	if (j == g->nsp)
		return 0;
	if (g->sp[j].plan < 0)
		return !r->from_plan && within_plan_range(g, &g->sp[j]);
	return !r->from_plan || r->repetition <= g->pl->points[g->sp[j].plan].repetitions;
}

static double run_cost(const struct plan_point *pt)
{
	return pt->repetitions > 0 ? pt->core_hours / pt->repetitions : 0;
}

static void compute_diff(const struct grow *g, int *wanted, struct store_diff *d)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < g->nruns; i++) {
		const struct grun *r = &g->runs[i];
		wanted[i] = run_wanted(g, r);
		if (!wanted[i]) {
			d->retired++;
			d->retiring += r->state != RUN_RETIRED;
		}
		else {
			d->kept++;
			d->kept_done += r->state == RUN_DONE ||
					(r->state == RUN_RETIRED && r->retired_from == RUN_DONE);
			d->unretired += r->state == RUN_RETIRED;
		}
	}
	for (int i = 0; i < g->pl->npoints; i++) {
		const struct plan_point *pt = &g->pl->points[i];
		d->added_points += g->match[i] < 0;
		for (int rep = 1; rep <= pt->repetitions; rep++)
			if (g->match[i] < 0 || !has_run(g, g->sp[g->match[i]].id, rep)) {
				d->added++;
				d->added_core_hours += run_cost(pt);
			}
	}
	/* points outside the plan: kept (refine's, inside its range) or retired */
	for (int j = 0; j < g->nsp; j++) {
		if (g->sp[j].plan >= 0)
			continue;
		long long kept = 0;
		for (int i = 0; i < g->nruns; i++)
			kept += wanted[i] && g->runs[i].point == g->sp[j].id;
		d->kept_outside += kept;
		d->kept_outside_points += kept > 0;
		d->retired_points += kept == 0;
	}
}

int store_plan_diff(struct store *st, const struct plan *pl, struct store_diff *d, struct perr *err)
{
	struct grow g;
	if (grow_load(&g, st, pl, err))
		return -1;
	int *wanted = xcalloc((size_t)(g.nruns ? g.nruns : 1), sizeof(int));
	compute_diff(&g, wanted, d);
	free(wanted);
	grow_release(&g);
	return 0;
}

/* One new pending run row, its seq above all, and its first event. */
struct new_row {
	int point, repetition, remeasure;
	int nodes, ranks, rpn;
	const char *policy, *origin, *detail;
	double core_hours;
};

static int insert_run(struct store *st, const struct new_row *w, long long *id, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, "INSERT INTO runs(point, repetition, remeasure, nodes, ranks,"
				      " ranks_per_node, policy, state, core_hours, seq, exit_status, wall, origin)"
				      " VALUES(?,?,?,?,?,?,?,0,?,(SELECT COALESCE(MAX(seq), 0) + 1 FROM runs),-1,-1,?)", err);
	if (!s)
		return -1;
	int v[6] = { w->point, w->repetition, w->remeasure, w->nodes, w->ranks, w->rpn };
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int(s, 1 + i, v[i]);
	if (w->policy)
		sqlite3_bind_text(s, 7, w->policy, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 8, w->core_hours);
	if (w->origin)
		sqlite3_bind_text(s, 9, w->origin, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sdb_finish(st, s);
	if (rc != SQLITE_DONE)
		return sdb_err(st, err, "add run");
	long long rid = sqlite3_last_insert_rowid(st->db);
	if (id)
		*id = rid;
	s = sdb_prepare(st, "INSERT INTO run_events(run, t, state, detail) VALUES(?,?,0,?)", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_double(s, 2, wall_now());
	sqlite3_bind_text(s, 3, w->detail, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sdb_finish(st, s);
	return rc == SQLITE_DONE ? 0 : sdb_err(st, err, "record event");
}

/* A point just written to the store joins g's list: its index there. */
static int add_spoint(struct grow *g, int id, int nodes, int rpn, const double *values)
{
	size_t cap = (size_t)g->nsp;
	XGROW(g->sp, (size_t)g->nsp + 1, cap);
	struct spoint *p = &g->sp[g->nsp];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->nodes = nodes;
	p->rpn = rpn;
	p->plan = -1;
	p->values = xcalloc((size_t)(g->st->nparams ? g->st->nparams : 1), sizeof(double));
	memcpy(p->values, values, sizeof(double) * (size_t)g->st->nparams);
	return g->nsp++;
}

/* Plan points new to the store get the next ids; kept ones take the plan's
   repetitions, cost, reason and launch settings. */
static int write_points(struct grow *g, struct perr *err)
{
	const struct plan *pl = g->pl;
	int next = g->st->npoints;
	double *vals = xcalloc((size_t)(g->st->nparams ? g->st->nparams : 1), sizeof(double));
	sqlite3_stmt *up = sdb_prepare(g->st, "UPDATE points SET repetitions = ?, core_hours = ?, reason = ?,"
				       " map = ?, cores_per_rank = ? WHERE id = ?", err);
	int rc = up ? 0 : -1;
	for (int i = 0; !rc && i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		if (g->match[i] >= 0) {
			sqlite3_bind_int(up, 1, pt->repetitions);
			sqlite3_bind_double(up, 2, pt->core_hours);
			sqlite3_bind_text(up, 3, pt->reason ? pt->reason : "", -1, SQLITE_STATIC);
			sqlite3_bind_text(up, 4, pt->map, -1, SQLITE_STATIC);
			sqlite3_bind_text(up, 5, pt->cores_per_rank, -1, SQLITE_STATIC);
			sqlite3_bind_int(up, 6, g->sp[g->match[i]].id);
			rc = sqlite3_step(up) == SQLITE_DONE ? 0 : sdb_err(g->st, err, "update plan");
			sqlite3_reset(up);
			continue;
		}
		for (int k = 0; k < pl->nparams; k++)
			vals[g->sk[k]] = pt->values[k];
		rc = sdb_insert_point(g->st, next, pt, vals, g->st->nparams, err);
		g->match[i] = add_spoint(g, next++, pt->nodes, pt->ranks_per_node, vals);
		g->sp[g->match[i]].plan = i;
	}
	sdb_finish(g->st, up);
	free(vals);
	return rc;
}

/* The plan's missing runs, in its run order, after every existing run. */
static int add_plan_runs(struct grow *g, struct perr *err)
{
	struct plan_run *order;
	long long n;
	plan_run_order(g->pl, &order, &n);
	int rc = 0;
	for (long long k = 0; !rc && k < n; k++) {
		const struct plan_point *pt = &g->pl->points[order[k].point];
		int sid = g->sp[g->match[order[k].point]].id;
		if (has_run(g, sid, order[k].repetition))
			continue;
		struct new_row w = { .point = sid, .repetition = order[k].repetition, .nodes = pt->nodes,
				     .ranks = sdb_point_ranks(g->pl, pt), .rpn = pt->ranks_per_node,
				     .policy = pt->policy, .detail = "added: the plan grew",
				     .core_hours = run_cost(pt) };
		rc = insert_run(g->st, &w, NULL, err);
	}
	free(order);
	return rc;
}

/* Retire the runs that left the plan; the ones back in it return to their state. */
static int retire_runs(struct grow *g, const int *wanted, struct perr *err)
{
	/* a run in flight keeps that state as retired_from: the run engine stops
	   its job or process (store_settle_retired) */
	struct change out = { .set = "retired_from = state" };
	struct change back = { .set = "retired_from = NULL" };
	for (int i = 0; i < g->nruns; i++) {
		const struct grun *r = &g->runs[i];
		int rc = 0;
		if (!wanted[i] && r->state != RUN_RETIRED)
			rc = sdb_apply_change(g->st, r->id, RUN_ACT_RETIRE, "retired: left the plan", &out, err);
		else if (wanted[i] && r->state == RUN_RETIRED)
			rc = sdb_apply_change(g->st, r->id, RUN_ACT_UNRETIRE, "back in the plan",
					      &back, err);
		if (rc)
			return -1;
	}
	return 0;
}

static int grow_write(struct grow *g, const char *config_text, const int *wanted, struct perr *err)
{
	char *fp = sdb_plan_fingerprint(g->pl, 2);
	int rc = write_points(g, err) || add_plan_runs(g, err) || retire_runs(g, wanted, err) ||
		 sdb_put_meta(g->st, "plan", fp, err) || sdb_put_plan_meta(g->st, g->pl, err) ||
		 (config_text && sdb_put_meta(g->st, "config", config_text, err)) ? -1 : 0;
	free(fp);
	return rc;
}

int store_grow(struct store *st, const struct plan *pl, const char *config_text, struct store_diff *d,
	       struct perr *err)
{
	if (st->readonly)
		return perr_set(err, "%s/campaign.db: opened read-only", st->dir);
	if (sdb_begin(st, err))
		return -1;
	struct grow g;
	if (grow_load(&g, st, pl, err)) {
		sdb_rollback(st);
		return -1;
	}
	struct store_diff local;
	int *wanted = xcalloc((size_t)(g.nruns ? g.nruns : 1), sizeof(int));
	compute_diff(&g, wanted, d ? d : &local);
	int rc = grow_write(&g, config_text, wanted, err);
	free(wanted);
	grow_release(&g);
	if (rc || sdb_commit(st, err)) {
		sdb_rollback(st);
		sdb_load_params(st, NULL);
		return -1;
	}
	return sdb_load_params(st, err);
}

/* The stored point of an appended run: found by values and ranks per node
   (its placement must be the same), or added.  Its index in g->sp. */
static int append_point(struct grow *g, const struct store_new_run *nr, int *next, struct perr *err)
{
	for (int j = 0; j < g->nsp; j++) {
		struct spoint *p = &g->sp[j];
		if (p->rpn != nr->ranks_per_node ||
		    memcmp(p->values, nr->values, sizeof(double) * (size_t)g->st->nparams))
			continue;
		const char *key = placement_change(g, p, nr->nodes, nr->policy, nr->map, nr->cores_per_rank);
		return key ? refuse_placement(g, p, key, err) : j;
	}
	struct plan_point pt = { .values = (double *)nr->values, .nodes = nr->nodes,
				 .ranks_per_node = nr->ranks_per_node, .policy = (char *)nr->policy,
				 .map = (char *)nr->map, .cores_per_rank = (char *)nr->cores_per_rank,
				 .reason = (char *)nr->reason };
	if (sdb_insert_point(g->st, *next, &pt, nr->values, g->st->nparams, err))
		return -1;
	int j = add_spoint(g, (*next)++, nr->nodes, nr->ranks_per_node, nr->values);
	g->sp[j].policy = nr->policy ? xstrdup(nr->policy) : NULL;
	g->sp[j].map = nr->map ? xstrdup(nr->map) : NULL;
	g->sp[j].cores = nr->cores_per_rank ? xstrdup(nr->cores_per_rank) : NULL;
	return j;
}

/* One integer from a query on (point, repetition). */
static int query_int(struct store *st, const char *sql, int point, int rep, int *out, struct perr *err)
{
	sqlite3_stmt *s = sdb_prepare(st, sql, err);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, point);
	sqlite3_bind_int(s, 2, rep);
	int rc = sqlite3_step(s);
	*out = sqlite3_column_int(s, 0);
	sdb_finish(st, s);
	return rc == SQLITE_ROW ? 0 : sdb_err(st, err, "read runs");
}

static int append_one(struct grow *g, const struct store_new_run *nr, int *next, long long *id,
		      struct perr *err)
{
	struct store *st = g->st;
	int j = append_point(g, nr, next, err);
	if (j < 0)
		return -1;
	struct new_row w = { .point = g->sp[j].id, .repetition = nr->repetition, .nodes = nr->nodes,
			     .ranks = nr->ranks, .rpn = nr->ranks_per_node, .policy = nr->policy,
			     .origin = nr->origin, .core_hours = nr->core_hours };
	if (!w.ranks) {
		w.ranks = nr->nodes > 0 && nr->ranks_per_node > 0 ? nr->nodes * nr->ranks_per_node : 1;
		for (int k = 0; k < st->nparams; k++)
			if (st->param_roles[k] && !strcmp(st->param_roles[k], "ranks"))
				w.ranks = (int)nr->values[k];
	}
	int rc = w.repetition > 0
		? query_int(st, "SELECT COALESCE(MAX(remeasure) + 1, 0) FROM runs WHERE point = ?1 AND repetition = ?2",
			    w.point, w.repetition, &w.remeasure, err)
		: query_int(st, "SELECT COALESCE(MAX(repetition), 0) + 1 FROM runs WHERE point = ?1",
			    w.point, 0, &w.repetition, err);
	if (rc)
		return -1;
	char detail[96];
	snprintf(detail, sizeof(detail), "added%s%s%s", nr->origin ? " by " : "", nr->origin ? nr->origin : "",
		 w.remeasure ? ": measures its repetition again" : "");
	w.detail = detail;
	return insert_run(st, &w, id, err);
}

int store_settle_retired(struct store *st, long long id, struct perr *err)
{
	struct change c = { .set = "retired_from = 0" };
	if (sdb_begin(st, err))
		return -1;
	if (sdb_apply_change(st, id, RUN_ACT_SETTLE, "stopped: retired while in flight", &c, err)) {
		sdb_rollback(st);
		return -1;
	}
	return sdb_commit(st, err);
}

int store_point_launch(struct store *st, int point, char **map, char **cores_per_rank, struct perr *err)
{
	*map = *cores_per_rank = NULL;
	if (!st->grown_columns)
		return 0;
	sqlite3_stmt *s = sdb_prepare(st, "SELECT map, cores_per_rank FROM points WHERE id = ?", err);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, point);
	if (sqlite3_step(s) == SQLITE_ROW) {
		*map = sdb_col_str(s, 0);
		*cores_per_rank = sdb_col_str(s, 1);
	}
	sdb_finish(st, s);
	return 0;
}

int store_append_runs(struct store *st, const struct store_new_run *nr, int n, long long *ids,
		      struct perr *err)
{
	if (st->readonly)
		return perr_set(err, "%s/campaign.db: opened read-only", st->dir);
	if (sdb_begin(st, err))
		return -1;
	struct grow g;
	memset(&g, 0, sizeof(g));
	g.st = st;
	int next = st->npoints, rc = load_points(&g, err);
	for (int i = 0; !rc && i < n; i++)
		rc = append_one(&g, &nr[i], &next, ids ? &ids[i] : NULL, err);
	grow_release(&g);
	if (rc || sdb_commit(st, err)) {
		sdb_rollback(st);
		sdb_load_params(st, NULL);
		return -1;
	}
	return sdb_load_params(st, err);
}
