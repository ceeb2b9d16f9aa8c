/*
 * The validator's ranks-per-node axis comes from the stored bindings (the
 * node each rank really ran on), not from the plan.  Generated data of
 * known truth: a kernel whose time is n * (1 + 0.4 (r - 1)) with r the
 * ranks that really shared a node, with small seeded noise.
 */
#include "campaign/store.h"
#include "analysis/validation.h"
#include "tests/lib/tap.h"
#include <stdlib.h>
#include <string.h>

#define REPS 4

/* n = 10..50, np = 2 ranks, planned ranks per node rpn[point % nrpn]. */
static void make_plan(struct plan *pl, const int *rpn, int nrpn)
{
	static double n[] = { 10, 20, 30, 40, 50 }, np[] = { 2 };
	static struct plan_param params[] = { { "n", NULL, 5, n, 1 }, { "np", "ranks", 1, np, 1 } };
	struct design_spec spec = { .nparams = 2, .params = params, .repetitions = REPS };
	struct perr err;
	struct plan base;
	plan_full_factorial(&base, &spec, &err);
	/* every point once per planned ranks per node */
	*pl = base;
	pl->points = calloc((size_t)(base.npoints * nrpn), sizeof(*pl->points));
	pl->npoints = 0;
	pl->runs = 0;
	for (int i = 0; i < base.npoints; i++)
		for (int r = 0; r < nrpn; r++) {
			struct plan_point *pt = &pl->points[pl->npoints++];
			pt->values = malloc(sizeof(double) * 2);
			memcpy(pt->values, base.points[i].values, sizeof(double) * 2);
			pt->ranks_per_node = rpn[r];
			pt->nodes = 2 / rpn[r];
			pt->policy = strdup("compact");
			pt->repetitions = REPS;
			pt->reason = strdup("test");
			pl->runs += REPS;
		}
	for (int i = 0; i < base.npoints; i++) {
		free(base.points[i].values);
		free(base.points[i].reason);
	}
	free(base.points);
}

/* n = 10..50, np = 2 ranks, ppn (role "ranks_per_node") 1 or 2. */
static void make_role_plan(struct plan *pl)
{
	static double n[] = { 10, 20, 30, 40, 50 }, np[] = { 2 }, ppn[] = { 1, 2 };
	static struct plan_param params[] = { { "n", NULL, 5, n, 1 }, { "np", "ranks", 1, np, 1 },
					      { "ppn", "ranks_per_node", 2, ppn, 1 } };
	struct design_spec spec = { .nparams = 3, .params = params, .repetitions = REPS };
	struct perr err;
	plan_full_factorial(pl, &spec, &err);
	for (int i = 0; i < pl->npoints; i++) {
		pl->points[i].ranks_per_node = (int)pl->points[i].values[2];
		pl->points[i].nodes = 2 / pl->points[i].ranks_per_node;
	}
}

/* real(run): the ranks that share a node in that run (1: the ranks on nodes a and b). */
typedef int (*real_fn)(const struct run *r);

static int as_planned(const struct run *r) { return r->ranks_per_node; }
static int all_spread(const struct run *r) { (void)r; return 1; }
static int late_reps_shared(const struct run *r) { return r->repetition > 2 ? 2 : 1; }

/* Run every run "done" with the known-truth time and bindings (bind: store them). */
static void fill(struct store *st, real_fn real, int bind)
{
	struct run *runs;
	int n;
	struct perr err;
	store_load_runs(st, 0, &runs, &n, &err);
	srand(13);
	for (int i = 0; i < n; i++) {
		const struct run *r = &runs[i];
		int shared = real(r);
		double t = r->values[0] * (1 + 0.4 * (shared - 1)) * (1 + 0.01 * (rand() / (double)RAND_MAX - 0.5));
		struct measurement_list ml;
		measurement_list_init(&ml);
		measurement_list_add(&ml, 0, "k", "time", t);
		measurement_list_add(&ml, 1, "k", "time", t);
		store_mark_submitted(st, r->id, "1", 1, &err);
		store_mark_running(st, r->id, 1, &err);
		store_mark_done(st, r->id, 2, 0, t, &ml, NULL, &err);
		measurement_list_release(&ml);
		if (bind) {
			struct run_binding b[2] = { { 0, "a", "0", "0" }, { 1, shared == 2 ? "a" : "b", "1", "1" } };
			store_put_bindings(st, r->id, b, 2, &err);
		}
	}
	runs_free(runs, n);
}

/* Validate the campaign in dir; return the contention study's parameter name ("" none). */
static const char *study(const char *dir, int *flagged, char *placements, size_t len)
{
	static char name[64];
	struct campaign_validation c;
	struct campaign_validation_options o = { 0 };
	struct perr err;
	validate_options_init(&o.vo);
	*flagged = 0;
	name[0] = 0;
	if (campaign_validate(&c, dir, &o, &err) < 0 || !c.validated) {
		diag("validate: %s", err.msg);
		campaign_validation_release(&c);
		return "error";
	}
	if (c.v.study.param >= 0)
		snprintf(name, sizeof(name), "%s", c.v.e->params[c.v.study.param]);
	for (int i = 0; i < c.v.nchecks; i++)
		if (!strcmp(c.v.checks[i].check, "contention") && c.v.checks[i].status == VCHECK_FLAGGED &&
		    c.v.checks[i].param == c.v.study.param)
			*flagged = 1;
	snprintf(placements, len, "%s", c.in.src.placements ? c.in.src.placements : "");
	campaign_validation_release(&c);
	return name;
}

static void campaign(const char *tag, const int *rpn, int nrpn, real_fn real, int bind, char *dir, size_t n)
{
	snprintf(dir, n, "%s/%s", tap_tmpdir(), tag);
	struct plan pl;
	if (rpn)
		make_plan(&pl, rpn, nrpn);
	else
		make_role_plan(&pl);
	struct store *st;
	struct perr err;
	if (store_create(&st, dir, tag, "local", "", &pl, &err) < 0)
		diag("store_create: %s", err.msg);
	fill(st, real, bind);
	store_close(st);
	plan_release(&pl);
}

int main(void)
{
	char dir[600], table[2000];
	int flagged;
	static const int one[] = { 1 }, both[] = { 1, 2 };

	/* planned 1 and 2 ranks per node, really had as planned: contention along ranks_per_node */
	campaign("planned", both, 2, as_planned, 1, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "ranks_per_node", "as planned: a study along ranks_per_node");
	ok(flagged, "as planned: the 40%% growth with ranks per node is flagged");
	contains(table, "2  compact       20    20  2\n", "as planned: the report's placements show 2 bound ranks per node");

	/* the same plan, but every run had its ranks on two nodes and no growth: nothing to study */
	campaign("spread", both, 2, all_spread, 1, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "", "ranks never shared a node: no contention study");
	ok(!flagged, "and no contention verdict from the planned ranks per node");
	ok(strstr(table, "     2  compact") && strstr(table, "  1\n"),
	   "the placements show 2 planned but 1 bound rank per node");

	/* without bindings the plan's values stand: the planned axis is studied (and passes) */
	campaign("unbound", both, 2, all_spread, 0, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "ranks_per_node", "no bindings: the planned axis");
	ok(!flagged, "flat data passes");
	contains(table, "  -\n", "no bindings: the bound column says -");

	/* planned 1 per node everywhere, but repetitions 3 and 4 shared a node and were slower */
	campaign("shared", one, 1, late_reps_shared, 1, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "ranks_per_node",
	       "runs of one point with 1 and 2 ranks per node bound: a study along ranks_per_node");
	ok(flagged, "and the growth of the shared runs is flagged as contention");
	contains(table, "1  compact       20    20  1,2\n", "the placements show 1 planned, 1 and 2 bound");

	/* the same data without bindings: the plan says one rank per node, nothing to study */
	campaign("shared-unbound", one, 1, late_reps_shared, 0, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "", "without bindings the plan hides it");

	/* a parameter with role "ranks_per_node" is the study axis itself */
	campaign("role", NULL, 0, as_planned, 1, dir, sizeof(dir));
	is_str(study(dir, &flagged, table, sizeof(table)), "ppn", "role ranks_per_node: the study is along ppn");
	ok(flagged, "role ranks_per_node: the growth along ppn is flagged");
	/* ppn = 2 planned, but the ranks never shared a node: no line along ppn is left */
	campaign("role-spread", NULL, 0, all_spread, 1, dir, sizeof(dir));
	study(dir, &flagged, table, sizeof(table));
	ok(!flagged, "role ranks_per_node with ranks on two nodes: no contention verdict");
	return done_testing();
}
