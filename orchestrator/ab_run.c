/* A two-arm run: both arms' runs started in turn, one at a time (ab_run.h). */
#include "analysis/ab_pairs.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "orchestrator/ab_run.h"
#include "orchestrator/budget_watch.h"
#include "orchestrator/plan_build.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const arm_names[2] = { "base", "new" };

/* What a two-arm run cannot do, said against the config that asks for it. */
static int arm_config_check(const struct campaign_config *c, struct perr *err)
{
	const struct backend_entry *be = backend_find(c->backend.type);
	if (be && !be->starts_running)
		return perr_set(err, "%s: compare --run runs both arms on the local backend, one run at a time on "
				"the same cores; SLURM picks its jobs' nodes and times itself, so two arms queued there "
				"would share neither: run each campaign with 'perfsweep run' and compare the two", c->path);
	if (c->repetitions_target > 0)
		return perr_set(err, "%s: compare --run needs fixed repetitions (repetitions = %d;): adaptive ones "
				"would give the two arms different passes", c->path, c->repetitions);
	return 0;
}

/* 1 when plan points a and b are the same point, placement and repetitions. */
static int same_point(const struct plan *pa, const struct plan_point *a, const struct plan_point *b)
{
	for (int k = 0; k < pa->nparams; k++)
		if (a->values[k] != b->values[k])
			return 0;
	return a->nodes == b->nodes && a->ranks_per_node == b->ranks_per_node && a->repetitions == b->repetitions &&
	       !strcmp(a->policy ? a->policy : "", b->policy ? b->policy : "");
}

/* Both arms must plan the same points: a pair is one point and pass measured in each. */
static int same_plans(const struct ab_run *ab, struct perr *err)
{
	const struct plan *p[2] = { &ab->arm[0].pl, &ab->arm[1].pl };
	const char *what = NULL;
	int at = -1;
	if (p[0]->nparams != p[1]->nparams)
		what = "different parameters";
	for (int k = 0; !what && k < p[0]->nparams; k++)
		if (strcmp(p[0]->params[k].name, p[1]->params[k].name))
			what = "different parameters (or in another order)";
	if (!what && p[0]->npoints != p[1]->npoints)
		what = "a different number of points";
	for (int i = 0; !what && i < p[0]->npoints; i++)
		if (!same_point(p[0], &p[0]->points[i], &p[1]->points[i])) {
			what = "different points, placements or repetitions";
			at = i + 1;
		}
	if (!what)
		return 0;
	char from[32] = "";
	if (at > 0)
		snprintf(from, sizeof(from), " from point %d on", at);
	return perr_set(err, "'%s' and '%s' plan %s%s: compare --run measures the same points in both arms; "
			"give both configs the same parameters, placement and repetitions", ab->arm[0].cfg.path,
			ab->arm[1].cfg.path, what, from);
}

/* An arm's directory already there must be this arm of this run (its meta), not another campaign's. */
static int arm_meta_check(const struct ab_run *ab, struct perr *err)
{
	char *arm[2] = { NULL, NULL }, *peer[2] = { NULL, NULL }, *id[2] = { NULL, NULL };
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		struct store *st;
		if (!ab->arm[k].co.grows)
			continue;
		if (store_open(&st, ab->arm[k].co.dir, STORE_READONLY, err) < 0) {
			rc = -1;
			break;
		}
		arm[k] = store_get_meta(st, AB_META_ARM);
		peer[k] = store_get_meta(st, AB_META_PEER);
		id[k] = xstrdup(store_id(st));
		store_close(st);
		if (!arm[k] || strcmp(arm[k], arm_names[k]))
			rc = perr_set(err, "'%s' is not the %s arm of a two-arm run: give compare --run a new "
				      "directory", ab->arm[k].co.dir, arm_names[k]);
	}
	for (int k = 0; k < 2 && !rc; k++)
		if (peer[k] && (!id[1 - k] || strcmp(peer[k], id[1 - k])))
			rc = perr_set(err, "'%s' was run beside another %s arm than '%s': give compare --run a new "
				      "directory", ab->arm[k].co.dir, arm_names[1 - k], ab->arm[1 - k].co.dir);
	for (int k = 0; k < 2; k++) {
		free(arm[k]);
		free(peer[k]);
		free(id[k]);
	}
	return rc;
}

/* Each arm's store names its arm and the other's store. */
static int arm_meta_write(struct ab_run *ab, struct perr *err)
{
	for (int k = 0; k < 2; k++) {
		static const char *const keys[] = { AB_META_ARM, AB_META_PEER };
		const char *vals[] = { arm_names[k], store_id(ab->arm[1 - k].co.st) };
		if (store_set_metas(ab->arm[k].co.st, keys, vals, 2, err))
			return -1;
	}
	return 0;
}

/* Load both configs and plan both arms, each with half the budget. */
static int ab_plan(struct ab_run *ab, const char *const cfg[2], struct perr *err)
{
	for (int k = 0; k < 2; k++) {
		struct ab_arm *a = &ab->arm[k];
		a->cfg_loaded = 1;      /* config_release either way, as run does */
		if (config_load(&a->cfg, cfg[k], err))
			return -1;
		a->cfg.budget_share = 0.5;
		if (arm_config_check(&a->cfg, err) || plan_build(&a->pl, &a->cfg, err))
			return -1;
	}
	return same_plans(ab, err);
}

int ab_open(struct ab_run *ab, const char *base_cfg, const char *new_cfg, const char *dir, struct perr *err)
{
	const char *const cfg[2] = { base_cfg, new_cfg };
	memset(ab, 0, sizeof(*ab));
	for (int k = 0; k < 2; k++) {
		ab->arm[k].name = arm_names[k];
		campaign_open_init(&ab->arm[k].co);
	}
	if (ab_plan(ab, cfg, err))
		return -1;
	for (int k = 0; k < 2; k++) {
		char *d = xasprintf("%s/%s.campaign", dir, arm_names[k]);
		int rc = campaign_open_check(&ab->arm[k].co, d, &ab->arm[k].cfg, &ab->arm[k].pl, err);
		free(d);
		if (rc)
			return -1;
	}
	if (arm_meta_check(ab, err))
		return -1;
	for (int k = 0; k < 2; k++)
		if (campaign_open_backend(&ab->arm[k].co, &ab->arm[k].cfg, 1, &ab->arm[k].b, err))
			return -1;
	for (int k = 0; k < 2; k++)
		if (campaign_open_store(&ab->arm[k].co, &ab->arm[k].cfg, &ab->arm[k].pl, err))
			return -1;
	return arm_meta_write(ab, err);
}

void ab_close(struct ab_run *ab)
{
	for (int k = 0; k < 2; k++) {
		struct ab_arm *a = &ab->arm[k];
		if (a->b)
			a->b->ops->free(a->b);
		campaign_open_release(&a->co);
		plan_release(&a->pl);
		if (a->cfg_loaded)
			config_release(&a->cfg);
	}
	memset(ab, 0, sizeof(*ab));
}

/* One pair: the runs of one point and pass in each arm (indices into the arms' runs). */
struct ab_pair {
	long long id[2];
};

/* "rep;x1;x2;...": a run's pair key (analysis/ab_pairs.c matches by the same). */
static void pair_key(struct strbuf *sb, const struct run *r, int nparams)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%d", r->repetition);
	for (int k = 0; k < nparams; k++)
		strbuf_addf(sb, ";%.17g", r->values[k]);
}

/* The pairs in the base arm's run order (its runs by id), each with its new partner. */
static int ab_schedule(struct ab_run *ab, struct ab_pair **out, int *n, struct perr *err)
{
	struct run *r[2] = { NULL, NULL };
	int nr[2] = { 0, 0 }, rc = 0;
	*out = NULL;
	*n = 0;
	for (int k = 0; k < 2 && !rc; k++)
		rc = store_load_runs(ab->arm[k].co.st, 0, &r[k], &nr[k], err);
	int np = store_nparams(ab->arm[0].co.st);
	struct strmap keys;
	struct strbuf sb;
	strmap_init(&keys);
	strbuf_init(&sb);
	for (int j = 0; !rc && j < nr[1]; j++)
		if (r[1][j].state != RUN_RETIRED) {
			pair_key(&sb, &r[1][j], np);
			strmap_put(&keys, sb.buf, j);
		}
	*out = xcalloc((size_t)nr[0] + 1, sizeof(**out));
	for (int i = 0; !rc && i < nr[0]; i++) {
		if (r[0][i].state == RUN_RETIRED)
			continue;
		pair_key(&sb, &r[0][i], np);
		int j = strmap_get(&keys, sb.buf);
		if (j >= 0)
			(*out)[(*n)++] = (struct ab_pair){ { r[0][i].id, r[1][j].id } };
	}
	strbuf_release(&sb);
	strmap_release(&keys);
	for (int k = 0; k < 2; k++)
		runs_free(r[k], nr[k]);
	return rc;
}

/* Events of one arm's runner, named with the arm ("base: ..."). */
struct arm_events {
	const struct runner_options *o;
	const char *arm;
};

static void arm_event(void *ctx, long long id, const char *what, const char *detail)
{
	const struct arm_events *ae = ctx;
	char *d = xasprintf("%s run %lld%s%s", ae->arm, id, detail ? ": " : "", detail ? detail : "");
	ae->o->event(ae->o->ctx, 0, what, d);
	free(d);
}

/* Run arm k's runner over the pending runs in only[0..n) (none: settle what is in flight). */
static int arm_execute(struct ab_run *ab, int k, const struct runner_options *o, const long long *only, int n,
		       struct ab_stats *stats, struct perr *err)
{
	static const long long none = 0;
	struct arm_events ae = { o, arm_names[k] };
	struct runner_options ro = *o;
	ro.only = n ? only : &none;
	ro.nonly = n;
	if (o->event) {
		ro.event = arm_event;
		ro.ctx = &ae;
	}
	struct runner_stats rs;
	struct ab_arm *a = &ab->arm[k];
	int rc = runner_execute(a->co.st, &a->cfg, a->b, &ro, &rs, err);
	runner_stats_add(&stats->runs, &rs);
	if (rc)
		perr_prefix(err, "%s arm", arm_names[k]);
	return rc;
}

/* The states of a pair's two runs. */
static int pair_states(struct ab_run *ab, const struct ab_pair *p, struct run r[2], struct perr *err)
{
	for (int k = 0; k < 2; k++)
		if (store_load_run(ab->arm[k].co.st, p->id[k], &r[k], err)) {
			if (k)
				run_release(&r[0]);
			return -1;
		}
	return 0;
}

/* Before a pair: 1 when one of its pending runs would pass its arm's half of the budget. */
static int pair_overruns(struct ab_run *ab, const struct budget_watch bw[2], const struct run r[2],
			 const struct runner_options *o, struct perr *err)
{
	for (int k = 0; k < 2; k++) {
		char why[300];
		if (r[k].state != RUN_PENDING)
			continue;
		int rc = budget_watch_check(&bw[k], ab->arm[k].co.st, r[k].core_hours, why, sizeof(why), err);
		if (rc && rc != 1)
			return -1;
		if (rc == 1) {
			if (o->event)
				o->event(o->ctx, 0, "budget", why);
			return 1;
		}
	}
	return 0;
}

/* Pair i: its pending runs, base first for even pairs and new first for odd ones (ABBA). */
static int run_pair(struct ab_run *ab, int i, const struct ab_pair *p, const struct budget_watch bw[2],
		    const struct runner_options *o, struct ab_stats *stats, struct perr *err)
{
	struct run r[2];
	if (pair_states(ab, p, r, err))
		return -1;
	int rc = 0, pending = r[0].state == RUN_PENDING || r[1].state == RUN_PENDING;
	if (pending)
		rc = pair_overruns(ab, bw, r, o, err);
	if (rc == 1)
		stats->runs.budget_stopped = 1;
	for (int j = 0; j < 2 && pending && !rc; j++) {
		int k = i % 2 ? 1 - j : j;
		if (r[k].state == RUN_PENDING && !stats->runs.interrupted)
			rc = arm_execute(ab, k, o, &p->id[k], 1, stats, err);
	}
	stats->pairs_done += !rc && !stats->runs.interrupted && !stats->runs.budget_stopped;
	run_release(&r[0]);
	run_release(&r[1]);
	return rc < 0 ? -1 : 0;
}

int ab_execute(struct ab_run *ab, const struct runner_options *o, struct ab_stats *stats, struct perr *err)
{
	memset(stats, 0, sizeof(*stats));
	/* first what an earlier orchestrator left in flight, in each arm */
	for (int k = 0; k < 2; k++)
		if (arm_execute(ab, k, o, NULL, 0, stats, err))
			return -1;
	struct ab_pair *pairs;
	int n, rc = ab_schedule(ab, &pairs, &n, err);
	struct budget_watch bw[2];
	for (int k = 0; k < 2; k++)
		budget_watch_init(&bw[k], ab->arm[k].co.st);
	stats->pairs = n;
	for (int i = 0; i < n && !rc; i++) {
		if (stats->runs.interrupted || stats->runs.budget_stopped || (o->stop && *o->stop)) {
			stats->runs.interrupted |= o->stop && *o->stop;
			break;
		}
		rc = run_pair(ab, i, &pairs[i], bw, o, stats, err);
	}
	free(pairs);
	return rc;
}
