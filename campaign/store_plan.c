/*
 * The campaign store: a plan written into it (its fingerprint, its points,
 * values and runs) and the plan's metadata.
 */
#include "campaign/store_priv.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

int sdb_same_plan(struct store *st, const struct plan *pl)
{
	char *old = store_get_meta(st, "plan");
	char *fp = sdb_plan_fingerprint(pl, 2), *fp1 = sdb_plan_fingerprint(pl, 1);
	int same = old && (!strcmp(old, fp) || !strcmp(old, fp1));
	free(old);
	free(fp);
	free(fp1);
	return same;
}

/*
 * A fingerprint of the plan, so a resumed campaign runs the plan it stored.
 * Since version 2 it covers each point's placement contract (policy, map,
 * cores per rank); version 1 (stores made before) did not, and is still
 * accepted on resume.
 */
char *sdb_plan_fingerprint(const struct plan *pl, int version)
{
	uint64_t h = 1469598103934665603ULL;
#define MIX(ptr, n) do { const unsigned char *b_ = (const void *)(ptr); \
	for (size_t i_ = 0; i_ < (n); i_++) h = (h ^ b_[i_]) * 1099511628211ULL; } while (0)
	for (int k = 0; k < pl->nparams; k++)
		MIX(pl->params[k].name, strlen(pl->params[k].name) + 1);
	for (int i = 0; i < pl->npoints; i++) {
		const struct plan_point *pt = &pl->points[i];
		MIX(pt->values, sizeof(double) * (size_t)pl->nparams);
		MIX(&pt->nodes, sizeof(int));
		MIX(&pt->ranks_per_node, sizeof(int));
		MIX(&pt->repetitions, sizeof(int));
		if (version >= 2 && (pt->policy || pt->map || pt->cores_per_rank)) {
			const char *parts[3] = { pt->policy, pt->map, pt->cores_per_rank };
			for (int j = 0; j < 3; j++)
				MIX(parts[j] ? parts[j] : "", strlen(parts[j] ? parts[j] : "") + 1);
		}
	}
#undef MIX
	return xasprintf("%016llx:%d", (unsigned long long)h, pl->npoints);
}

int sdb_point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	if (pt->nodes > 0 && pt->ranks_per_node > 0)
		return pt->nodes * pt->ranks_per_node;
	return 1;
}

/* The runs, in the plan's order: run ids (and so execution) follow it. */
static int insert_runs(struct store *st, const struct plan *pl, sqlite3_stmt *sr, struct perr *err)
{
	struct plan_run *order;
	long long n;
	plan_run_order(pl, &order, &n);
	for (long long k = 0; k < n; k++) {
		const struct plan_point *pt = &pl->points[order[k].point];
		double per_run = pt->repetitions > 0 ? pt->core_hours / pt->repetitions : 0;
		sqlite3_bind_int(sr, 1, order[k].point);
		sqlite3_bind_int(sr, 2, order[k].repetition);
		sqlite3_bind_int(sr, 3, pt->nodes);
		sqlite3_bind_int(sr, 4, sdb_point_ranks(pl, pt));
		sqlite3_bind_int(sr, 5, pt->ranks_per_node);
		if (pt->policy)
			sqlite3_bind_text(sr, 6, pt->policy, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(sr, 6);
		sqlite3_bind_double(sr, 7, per_run);
		sqlite3_bind_int64(sr, 8, k + 1);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			free(order);
			return sdb_err(st, err, "write runs");
		}
		sqlite3_reset(sr);
	}
	free(order);
	return 0;
}

/* The budget and its charge rule as meta keys (none: removed). */
int sdb_put_budget_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char budget[64], overrun[64];
	snprintf(budget, sizeof(budget), "%.17g", pl->budget_core_hours);
	snprintf(overrun, sizeof(overrun), "%.17g", pl->budget_overrun);
	if (pl->budget_core_hours <= 0)
		return sdb_exec(st, "DELETE FROM meta WHERE key IN ('budget_core_hours', 'budget_charge',"
			    " 'budget_overrun')", err);
	return sdb_put_meta(st, "budget_core_hours", budget, err) ||
	       sdb_put_meta(st, "budget_charge", pl->charge == CHARGE_NODE ? "node" : "core", err) ||
	       sdb_put_meta(st, "budget_overrun", overrun, err) ? -1 : 0;
}

/* The run order, its seed and the budget, as meta keys. */
int sdb_put_plan_meta(struct store *st, const struct plan *pl, struct perr *err)
{
	char seed[32];
	snprintf(seed, sizeof(seed), "%lu", pl->order_seed);
	if (sdb_put_meta(st, "order", plan_order_name(pl->order), err) || sdb_put_meta(st, "order_seed", seed, err))
		return -1;
	return sdb_put_budget_meta(st, pl, err);
}

static int insert_params(struct store *st, const struct plan *pl, struct perr *err)
{
	sqlite3_stmt *sp = sdb_prepare(st, "INSERT INTO params(idx, name, role, is_int) VALUES(?,?,?,?)", err);
	if (!sp)
		return -1;
	for (int k = 0; k < pl->nparams; k++) {
		sqlite3_bind_int(sp, 1, k);
		sqlite3_bind_text(sp, 2, pl->params[k].name, -1, SQLITE_STATIC);
		if (pl->params[k].role)
			sqlite3_bind_text(sp, 3, pl->params[k].role, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(sp, 3);
		sqlite3_bind_int(sp, 4, pl->params[k].is_int);
		if (sqlite3_step(sp) != SQLITE_DONE) {
			sdb_finish(st, sp);
			return sdb_err(st, err, "write parameters");
		}
		sqlite3_reset(sp);
	}
	sdb_finish(st, sp);
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

int sdb_insert_point(struct store *st, int id, const struct plan_point *pt, const double *values,
		     int nvalues, struct perr *err)
{
	sqlite3_stmt *spt = sdb_prepare(st, "INSERT INTO points(id, nodes, ranks_per_node, policy, repetitions,"
					" core_hours, reason, map, cores_per_rank) VALUES(?,?,?,?,?,?,?,?,?)", err);
	sqlite3_stmt *spv = sdb_prepare(st, "INSERT INTO point_values(point, param, value) VALUES(?,?,?)", err);
	int ok = spt && spv;
	if (ok) {
		sqlite3_bind_int(spt, 1, id);
		sqlite3_bind_int(spt, 2, pt->nodes);
		sqlite3_bind_int(spt, 3, pt->ranks_per_node);
		bind_text_or_null(spt, 4, pt->policy);
		sqlite3_bind_int(spt, 5, pt->repetitions);
		sqlite3_bind_double(spt, 6, pt->core_hours);
		sqlite3_bind_text(spt, 7, pt->reason ? pt->reason : "", -1, SQLITE_STATIC);
		bind_text_or_null(spt, 8, pt->map);
		bind_text_or_null(spt, 9, pt->cores_per_rank);
		ok = sqlite3_step(spt) == SQLITE_DONE;
	}
	for (int k = 0; ok && k < nvalues; k++) {
		sqlite3_bind_int(spv, 1, id);
		sqlite3_bind_int(spv, 2, k);
		sqlite3_bind_double(spv, 3, values[k]);
		ok = sqlite3_step(spv) == SQLITE_DONE;
		sqlite3_reset(spv);
	}
	if (!ok && spt && spv)
		sdb_err(st, err, "write plan");
	sdb_finish(st, spt);
	sdb_finish(st, spv);
	return ok ? 0 : -1;
}

int insert_plan(struct store *st, const struct plan *pl, struct perr *err)
{
	if (insert_params(st, pl, err))
		return -1;
	for (int i = 0; i < pl->npoints; i++)
		if (sdb_insert_point(st, i, &pl->points[i], pl->points[i].values, pl->nparams, err))
			return -1;
	sqlite3_stmt *sr = sdb_prepare(st, "INSERT INTO runs(point, repetition, nodes, ranks, ranks_per_node,"
				   " policy, state, core_hours, seq, exit_status, wall)"
				   " VALUES(?,?,?,?,?,?,0,?,?,-1,-1)", err);
	int ret = sr ? insert_runs(st, pl, sr, err) : -1;
	sdb_finish(st, sr);
	return ret;
}
