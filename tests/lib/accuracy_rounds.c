/* refine --for accuracy rounds on a generated campaign (accuracy_rounds.h). */
#include "tests/lib/accuracy_rounds.h"
#include "designs/plan.h"
#include "refine/refine_accuracy.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double V[] = { 4, 8, 16, 32, 64 };
static char *names[] = { "x", "y" };

/* The sparse design's points of t, measured reps times, into e; their core-hours. */
static double first_campaign(const struct truth *t, const struct deps *d, int reps, struct experiment *e)
{
	struct plan_param pp[2] = { { "x", NULL, 5, V, 1 }, { "y", NULL, 5, V, 1 } };
	struct design_spec s = { .nparams = 2, .params = pp, .repetitions = reps, .strategy = DESIGN_SPARSE,
				 .deps = d, .cost_model = t->text };
	struct plan pl;
	struct perr err;
	double spent = 0;
	experiment_init(e);
	experiment_param(e, "x");
	experiment_param(e, "y");
	experiment_callpath(e, "main");
	experiment_metric(e, "time");
	if (plan_design(&pl, &s, &err) < 0)
		return 0;
	for (int i = 0; i < pl.npoints; i++) {
		int p = experiment_point(e, pl.points[i].values);
		for (int r = 0; r < reps; r++)
			experiment_add(e, 0, 0, p, truth_measure(t, t->seed, pl.points[i].values, r));
		spent += truth_value(t, pl.points[i].values) * reps / 3600;
	}
	plan_release(&pl);
	return spent;
}

/* The relative error at target of v's model of main. */
static double target_error(const struct validation *v, const struct truth *t, const double *target)
{
	const struct vregion *r = &v->regions[0];
	const struct pmnf_model *m = r->has_constrained ? &r->constrained : &r->black_box;
	double truth = truth_value(t, target);
	return fabs(pmnf_eval(m, target) - truth) / truth;
}

/* Measure r's proposals into e; their core-hours. */
static double measure(const struct truth *t, const struct refine_result *r, struct experiment *e, int *at_target,
		      const double *target)
{
	double cost = 0;
	for (int i = 0; i < r->nproposals; i++) {
		const struct refine_proposal *q = &r->proposals[i];
		int p = experiment_point(e, q->coords);
		const struct exp_values *have = experiment_values(e, 0, 0, p);
		int n = have ? have->n : 0;
		for (int j = 0; j < q->repetitions; j++)
			experiment_add(e, 0, 0, p, truth_measure(t, t->seed, q->coords, n + j));
		cost += truth_value(t, q->coords) * q->repetitions / 3600;
		*at_target += q->coords[0] == target[0] && q->coords[1] == target[1];
	}
	return cost;
}

/* One round's proposals for the campaign in e, validated as v; 0 when none. */
static int propose(const struct experiment *e, const struct validation *v, const struct truth *t, int reps,
		   double budget, struct refine_result *r, double *spread)
{
	struct refine_point *pts = calloc((size_t)e->npoints, sizeof(*pts));
	static const int is_int[2] = { 1, 1 };
	for (int p = 0; p < e->npoints; p++) {
		const struct exp_values *vals = experiment_values(e, 0, 0, p);
		pts[p].coords = &e->coords[(size_t)p * 2];
		pts[p].nreps = vals ? vals->n : 0;
		pts[p].run_core_hours = truth_value(t, pts[p].coords) / 3600;
	}
	struct refine_space s = { .nparams = 2, .params = names, .is_int = is_int, .npoints = e->npoints,
				  .points = pts, .repetitions = reps, .max_repetitions = 10, .budget = budget };
	struct refine_accuracy a;
	struct perr err;
	memset(r, 0, sizeof(*r));
	r->remaining = budget;
	if (refine_accuracy_target(&a, &s, "x=128,y=128", &err) == 0)
		refine_accuracy_propose(&s, v, 0, &a, r);
	*spread = a.before;
	refine_accuracy_release(&a);
	free(pts);
	return r->nproposals;
}

/* The baseline: the same extra core-hours as one more repetition of every point, round after round, cheapest first. */
static double more_repetitions(const struct truth *t, struct experiment *e, double budget)
{
	double cost = 0;
	for (int progress = 1; progress;) {
		progress = 0;
		for (int p = 0; p < e->npoints; p++) {
			const double *x = &e->coords[(size_t)p * 2];
			double c = truth_value(t, x) / 3600;
			const struct exp_values *have = experiment_values(e, 0, 0, p);
			if (cost + c > budget)
				continue;
			experiment_add(e, 0, 0, p, truth_measure(t, t->seed, x, have ? have->n : 0));
			cost += c;
			progress = 1;
		}
	}
	return cost;
}

int accuracy_rounds_run(const struct truth *t, int reps, double share, struct accuracy_rounds *out)
{
	struct deps d;
	struct perr err;
	struct experiment e;
	double target[2] = { 128, 128 };
	int uniform = out->uniform;
	memset(out, 0, sizeof(*out));
	out->uniform = uniform;
	if (truth_deps(t, &d, &err) < 0)
		return -1;
	out->spent0 = first_campaign(t, &d, reps, &e);
	const struct dep_function *funcs[1] = { deps_find_function(&d, "main") };
	struct validate_options vo;
	validate_options_init(&vo);
	int rc = 0;
	for (int round = 0;; round++) {
		struct validation v;
		struct validate_input in = { .e = &e, .deps = &d, .funcs = funcs };
		if (validate_run(&v, &in, &vo, &err) < 0) {
			rc = -1;
			break;
		}
		out->error[round] = target_error(&v, t, target);

		out->nrounds = round;
		struct refine_result r;
		double budget = share * out->spent0 - out->extra[round];
		if (out->uniform && round == 0 && budget > 0) {
			out->extra[1] = more_repetitions(t, &e, budget);
			validation_release(&v);
			continue;
		}
		if (round == ACC_ROUNDS_MAX || budget <= 0 || out->uniform ||
		    !propose(&e, &v, t, reps, budget, &r, &out->spread[round])) {
			if (round < ACC_ROUNDS_MAX && budget > 0 && !out->uniform)
				refine_result_release(&r);
			validation_release(&v);
			break;
		}
		out->proposals += r.nproposals;

		out->extra[round + 1] = out->extra[round] + measure(t, &r, &e, &out->at_target, target);
		refine_result_release(&r);
		validation_release(&v);
	}
	experiment_release(&e);
	deps_release(&d);
	return rc;
}

double accuracy_rounds_halved(const struct accuracy_rounds *a)
{
	for (int k = 1; k <= a->nrounds; k++)
		if (a->error[k] <= 0.5 * a->error[0])
			return a->extra[k] / a->spent0;
	return NAN;
}
