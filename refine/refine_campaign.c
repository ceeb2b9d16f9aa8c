/*
 * Refining a campaign: its store and its validation in, pending runs out
 * (refine_campaign.h).
 */
#include "refine/refine_campaign.h"
#include "common/xalloc.h"
#include "orchestrator/adaptive.h"
#include "orchestrator/plan_derived.h"
#include "campaign/campaign_config.h"
#include "campaign/store.h"
#include "common/point_text.h"
#include "common/strbuf.h"
#include "designs/plan.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fold the done runs into the points: repetitions, cost per run, placement. */
static void fold_runs(struct refine_campaign *rc, const struct run *runs, int n)
{
	const struct experiment *e = &rc->cv.in.e;
	int *reps = xcalloc((size_t)e->npoints, sizeof(int));
	for (int i = 0; i < n; i++) {        /* by id, as the experiment lists them */
		const struct run *r = &runs[i];
		if (r->state != RUN_DONE || adaptive_superseded(runs, n, i))
			continue;
		int p = adaptive_run_point(&rc->cv.in.e, rc->store_params, r);
		if (p < 0)
			continue;
		struct refine_point *pt = &rc->points[p];
		pt->run_core_hours += run_spent_core_hours(r);
		if (reps[p] < rc->maxreps)
			rc->repetition[(size_t)p * (size_t)rc->maxreps + (size_t)reps[p]] = r->repetition;
		reps[p]++;
		if (!rc->place[p].policy && r->policy)
			rc->place[p].policy = xstrdup(r->policy);
		rc->place[p].nodes = r->nodes;
		rc->place[p].ranks_per_node = r->ranks_per_node;
		rc->place[p].store_point = r->point;
	}
	for (int p = 0; p < e->npoints; p++) {
		rc->points[p].nreps = reps[p];
		if (reps[p])
			rc->points[p].run_core_hours /= reps[p];
	}
	free(reps);
}

/* Budget and what the store has not executed yet. */
static void fold_budget(struct refine_campaign *rc, struct store *st, const struct run *runs, int n)
{
	char *b = store_get_meta(st, "budget_core_hours");
	rc->budget = b && *b ? strtod(b, NULL) : 0;
	free(b);
	for (int i = 0; i < n; i++) {
		const struct run *r = &runs[i];
		rc->spent += run_spent_core_hours(r);
		if (run_is_live(r->state)) {
			rc->pending++;
			rc->committed += r->core_hours;
		}
	}
}

/* The most common repetitions of a measured point (ties: the larger). */
static int common_reps(const struct refine_campaign *rc)
{
	int best = 0, bestn = 0;
	const struct experiment *e = &rc->cv.in.e;
	for (int p = 0; p < e->npoints; p++) {
		int r = rc->points[p].nreps, cnt = 0;
		for (int q = 0; q < e->npoints; q++)
			cnt += rc->points[q].nreps == r;
		if (r > 0 && (cnt > bestn || (cnt == bestn && r > best))) {
			best = r;
			bestn = cnt;
		}
	}
	return best ? best : 3;
}

/*
 * Per parameter: does a run lie beyond the largest value measured (an
 * extension, or a planned point, without a result: failed, cancelled, left
 * out as disturbed)?  Then extrapolation waits for it instead of extending
 * again.
 */
static void mark_extending(struct refine_campaign *rc, const struct run *runs, int n)
{
	const struct experiment *e = &rc->cv.in.e;
	rc->extending = xcalloc((size_t)e->nparams + 1, 1);
	for (int k = 0; k < rc->store_params; k++) {
		double top = -INFINITY;
		for (int p = 0; p < e->npoints; p++)
			if (rc->points[p].nreps)
				top = fmax(top, experiment_coord(e, p, k));
		for (int i = 0; i < n && isfinite(top); i++)
			if (runs[i].state != RUN_RETIRED && runs[i].values[k] > top * (1 + 1e-9))
				rc->extending[k] = 1;
	}
}

static void build_space(struct refine_campaign *rc, struct store *st, const struct run *runs, int n)
{
	const struct experiment *e = &rc->cv.in.e;
	rc->store_params = store_nparams(st) < e->nparams ? store_nparams(st) : e->nparams;
	rc->rpn_param = experiment_find_param(e, "ranks_per_node");
	if (rc->rpn_param >= 0 && rc->rpn_param < rc->store_params)
		rc->rpn_param = -1;
	rc->maxreps = 0;
	for (int i = 0; i < n; i++)
		rc->maxreps += runs[i].state == RUN_DONE;
	rc->maxreps = rc->maxreps ? rc->maxreps : 1;
	rc->points = xcalloc((size_t)e->npoints + 1, sizeof(*rc->points));
	rc->place = xcalloc((size_t)e->npoints + 1, sizeof(*rc->place));
	for (int p = 0; p <= e->npoints; p++)
		rc->place[p].store_point = -1;
	rc->repetition = xcalloc((size_t)e->npoints * (size_t)rc->maxreps + 1, sizeof(int));
	rc->is_int = xcalloc((size_t)e->nparams + 1, sizeof(int));
	for (int p = 0; p < e->npoints; p++)
		rc->points[p].coords = &e->coords[(size_t)p * (size_t)e->nparams];
	for (int k = 0; k < e->nparams; k++) {
		rc->is_int[k] = 1;
		for (int p = 0; p < e->npoints; p++)
			if (experiment_coord(e, p, k) != floor(experiment_coord(e, p, k)))
				rc->is_int[k] = 0;
	}
	fold_runs(rc, runs, n);
	mark_extending(rc, runs, n);
	/* new runs launch as the point's runs did: its map and cores per rank */
	for (int p = 0; p < e->npoints; p++) {
		struct perr err;
		if (rc->place[p].store_point >= 0)
			store_point_launch(st, rc->place[p].store_point, &rc->place[p].map,
					   &rc->place[p].cores_per_rank, &err);
	}
}

static int propose(struct refine_campaign *rc, const struct refine_campaign_options *o, struct perr *err)
{
	const struct experiment *e = &rc->cv.in.e;
	double remaining = -1;
	if (o->budget >= 0)
		remaining = o->budget;
	else if (rc->budget > 0)
		remaining = fmax(0, rc->budget - rc->spent - rc->committed);
	struct refine_space s = {
		.nparams = e->nparams, .params = e->params, .is_int = rc->is_int,
		.npoints = e->npoints, .points = rc->points,
		.repetitions = o->repetitions > 0 ? o->repetitions : common_reps(rc),
		.max_repetitions = o->max_repetitions > 0 ? o->max_repetitions : 10,
		.budget = remaining, .extending = rc->extending,
	};
	refine_findings(&rc->cv.v, rc->min_share, &rc->findings, &rc->nfindings);
	/* runs not yet executed: their results come first, nothing is proposed */
	refine_propose(&s, rc->findings, rc->pending ? 0 : rc->nfindings, &rc->r);
	if (!o->accuracy)
		return 0;
	rc->accuracy = 1;
	const char *target = strcmp(o->accuracy, "beyond") || !rc->beyond || !*rc->beyond ? o->accuracy : rc->beyond;
	if (refine_accuracy_target(&rc->acc, &s, target, err) < 0)
		return -1;
	if (!rc->pending)       /* after the findings' proposals, in what budget they leave */
		refine_accuracy_propose(&s, &rc->cv.v, rc->min_share, &rc->acc, &rc->r);
	return 0;
}

/* Leave proposal i out of r (it could not be run), keeping the others' order. */
static void drop_proposal(struct refine_result *r, int i)
{
	struct refine_proposal *p = &r->proposals[i];
	r->used -= p->core_hours;
	free(p->coords);
	free(p->reason);
	memmove(p, p + 1, sizeof(*p) * (size_t)(r->nproposals + r->ndropped - i - 1));
	r->nproposals--;
	r->dropped = r->ndropped ? r->proposals + r->nproposals : NULL;
}

/*
 * A new point's derived parameters (docs/config.md) come from its swept
 * values, as the planner computes them: a proposal along a swept parameter
 * gets them computed again; one along a derived parameter, which no run can
 * set, comes back to the point it started from and is left out.
 */
static void derive_new_points(struct refine_campaign *rc, const struct campaign_config *c)
{
	const struct experiment *e = &rc->cv.in.e;
	for (int i = 0; c->nderived && i < rc->r.nproposals; i++) {
		struct refine_proposal *p = &rc->r.proposals[i];
		if (p->point >= 0 || !plan_derive_values(c, e->params, rc->store_params, p->coords))
			continue;
		int same = 1;
		for (int k = 0; k < rc->store_params && same; k++)
			same = p->coords[k] == experiment_coord(e, p->from, k);
		if (same)
			drop_proposal(&rc->r, i--);
	}
}

/* "x=128,y=128": every parameter of the config one step beyond its largest value
   (refine --for accuracy's default target, fixed by the plan, not the measured range). */
static char *planned_beyond(const struct campaign_config *c)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (int k = 0; k < c->nparams; k++) {
		const struct plan_param *p = &c->params[k];
		double top = -INFINITY, next = -INFINITY;
		for (int i = 0; i < p->nvalues; i++)
			top = fmax(top, p->values[i]);
		for (int i = 0; i < p->nvalues; i++)
			if (p->values[i] < top)
				next = fmax(next, p->values[i]);
		if (!isfinite(next))
			continue;
		char v[32];
		value_text(v, sizeof(v), plan_step_beyond(top, next, p->is_int));
		strbuf_addf(&sb, "%s%s=%s", sb.len ? "," : "", p->name, v);
	}
	return strbuf_detach(&sb);
}

/* Runs refine writes are executed by `perfsweep run` with the campaign's
   config: a campaign without one (imported measurements) is not refined. */
static int check_runnable(struct refine_campaign *r, struct store *st, const char *dir, struct perr *err)
{
	struct campaign_config c;
	int rc = campaign_open_config(st, &c, err);
	r->min_share = rc ? CONFIG_MIN_SHARE : c.min_share;
	if (!rc)
		r->beyond = planned_beyond(&c);
	config_release(&c);
	if (rc > 0)
		return perr_set(err, "'%s' holds imported measurements without a config to run new runs with; "
				"refine needs a campaign made by perfsweep run", dir);
	return rc;
}

int refine_campaign_propose(struct refine_campaign *rc, const char *dir,
			    const struct refine_campaign_options *o, struct perr *err)
{
	memset(rc, 0, sizeof(*rc));
	struct store *st;
	struct run *runs = NULL;
	int n = 0;
	if (store_open(&st, dir, STORE_READONLY, err) < 0)
		return -1;
	int rc_ = check_runnable(rc, st, dir, err);
	if (!rc_)
		rc_ = store_load_runs(st, 0, &runs, &n, err);
	struct campaign_validation_options vo = o->vo;
	vo.all_params = 1;      /* new runs need every parameter's value */
	if (!rc_)
		rc_ = campaign_validate(&rc->cv, dir, &vo, err);
	if (!rc_) {
		fold_budget(rc, st, runs, n);
		rc->publishable = rc->cv.validated && validation_publishable(&rc->cv.v);
		if (rc->cv.validated) {
			struct campaign_config c;
			build_space(rc, st, runs, n);
			rc_ = propose(rc, o, err);
			struct perr e2;
			if (campaign_open_config(st, &c, &e2) == 0 && rc_ == 0)
				derive_new_points(rc, &c);
			config_release(&c);
		}
	}
	runs_free(runs, n);
	store_close(st);
	return rc_;
}

struct refine_place refine_campaign_placement(const struct refine_campaign *rc,
					      const struct refine_proposal *p)
{
	struct refine_place pl = rc->place[p->from];
	if (rc->rpn_param >= 0)
		pl.ranks_per_node = (int)p->coords[rc->rpn_param];
	return pl;
}

/* The runs of one proposal (new[] has room for its repetitions). */
static int proposal_runs(const struct refine_campaign *rc, const struct refine_proposal *p,
			 struct store_new_run *nr)
{
	struct refine_place pl = refine_campaign_placement(rc, p);
	struct store_new_run base = {
		.values = p->coords, .nodes = pl.nodes, .policy = pl.policy, .ranks_per_node = pl.ranks_per_node,
		.map = pl.map, .cores_per_rank = pl.cores_per_rank, .core_hours = p->core_hours / p->repetitions, .origin = "refine", .reason = p->reason,
	};
	for (int i = 0; i < p->repetitions; i++) {
		nr[i] = base;
		if (p->kind == REFINE_OUTLIER)          /* a new attempt of that repetition */
			nr[i].repetition = p->rep < rc->maxreps ?
				rc->repetition[(size_t)p->from * (size_t)rc->maxreps + (size_t)p->rep] : 0;
		else if (p->kind == REFINE_DISTURBED)   /* a new attempt of the disturbed run's repetition */
			nr[i].repetition = p->rep;
		else if (p->point < 0)                  /* a new point: repetitions 1.. */
			nr[i].repetition = i + 1;
		else                                    /* more repetitions: the next free ones */
			nr[i].repetition = 0;
	}
	return p->repetitions;
}

/*
 * The order refine's runs execute in: the campaign's stored run order
 * (docs/config.md, "Run order"), with the proposals as its points.  Run
 * back to back, a new point's repetitions share one moment of the host
 * and differ from the points measured earlier by the host's drift, which
 * the segmented check and the lack-of-fit test then read as a property of
 * the point (measured on the demo: refine's points 2-4% off the sweep's,
 * false segmented flags).  Interleaved, pass k holds every proposal's
 * k-th run, shuffled; the seed is the campaign's, moved on by the runs
 * already stored, so that every round is shuffled differently and the
 * same way on every machine.  Grouped keeps the proposals' value order.
 * Fills order[] with indexes into the proposals' runs laid out grouped.
 */
static void refine_run_order(const struct refine_campaign *rc, struct store *st, const int *first,
			     int *order)
{
	struct plan pl = { 0 };
	char *kind = store_get_meta(st, "order"), *seed = store_get_meta(st, "order_seed");
	int stored = kind ? plan_order_parse(kind) : -1;
	pl.order = stored >= 0 ? stored : ORDER_GROUPED;       /* no stored order (an import): grouped */
	pl.order_seed = (seed ? strtoul(seed, NULL, 10) : 0) + (unsigned long)store_last_seq(st);
	pl.npoints = rc->r.nproposals;
	pl.points = xcalloc((size_t)pl.npoints, sizeof(*pl.points));
	for (int i = 0; i < pl.npoints; i++)
		pl.points[i].repetitions = rc->r.proposals[i].repetitions;
	struct plan_run *runs;
	long long n;
	plan_run_order(&pl, &runs, &n);
	for (long long k = 0; k < n; k++)
		order[k] = first[runs[k].point] + runs[k].repetition - 1;
	free(runs);
	free(pl.points);
	free(kind);
	free(seed);
}

int refine_campaign_write(const struct refine_campaign *rc, struct store *st, long long *nruns,
			  struct perr *err)
{
	return refine_campaign_write_kind(rc, st, nruns, REFINE_NKINDS, NULL, NULL, err);
}

int refine_campaign_write_kind(const struct refine_campaign *rc, struct store *st, long long *nruns,
			       enum refine_kind kind, long long **ids, int *nids, struct perr *err)
{
	int total = 0;
	for (int i = 0; i < rc->r.nproposals; i++)
		total += rc->r.proposals[i].repetitions;
	*nruns = 0;
	if (ids) {
		*ids = xcalloc((size_t)total + 1, sizeof(**ids));
		*nids = 0;
	}
	if (!total)
		return 0;
	struct store_new_run *grouped = xcalloc((size_t)total, sizeof(*grouped));
	struct store_new_run *nr = xcalloc((size_t)total, sizeof(*nr));
	int *first = xcalloc((size_t)rc->r.nproposals, sizeof(int)), *order = xcalloc((size_t)total, sizeof(int));
	unsigned char *of_kind = xcalloc((size_t)total, 1);
	long long *all = xcalloc((size_t)total, sizeof(*all));
	int k = 0;
	for (int i = 0; i < rc->r.nproposals; i++) {
		first[i] = k;
		k += proposal_runs(rc, &rc->r.proposals[i], grouped + k);
		memset(of_kind + first[i], rc->r.proposals[i].kind == kind, (size_t)(k - first[i]));
	}
	refine_run_order(rc, st, first, order);
	for (int j = 0; j < k; j++)
		nr[j] = grouped[order[j]];
	int ret = store_append_runs(st, nr, k, all, err);
	for (int j = 0; !ret && ids && j < k; j++)
		if (of_kind[order[j]])
			(*ids)[(*nids)++] = all[j];
	free(grouped);
	free(nr);
	free(first);
	free(order);
	free(of_kind);
	free(all);
	if (!ret)
		*nruns = k;
	return ret;
}

void refine_campaign_release(struct refine_campaign *rc)
{
	const struct experiment *e = &rc->cv.in.e;
	if (rc->place)
		for (int p = 0; p < e->npoints; p++) {
			free(rc->place[p].policy);
			free(rc->place[p].map);
			free(rc->place[p].cores_per_rank);
		}
	free(rc->place);
	free(rc->points);
	free(rc->repetition);
	free(rc->is_int);
	free(rc->extending);
	free(rc->findings);
	free(rc->beyond);
	if (rc->accuracy)
		refine_accuracy_release(&rc->acc);
	refine_result_release(&rc->r);
	campaign_validation_release(&rc->cv);
	memset(rc, 0, sizeof(*rc));
}
