/*
 * refine --for accuracy (refine/refine_accuracy.h) on generated campaigns
 * of known truth (models/truth.h), fixed seeds: the target, the proposals'
 * budget, places and order, and that measuring them narrows the error at
 * the target.
 */
#include "tests/lib/tap.h"
#include "tests/lib/accuracy_rounds.h"
#include "refine/refine_accuracy.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *names[] = { "x", "y" };
static const int is_int[2] = { 1, 1 };
static double V[] = { 4, 8, 16, 32, 64 };

/* The sparse design of 10 + 0.5 * x^2 * y (lines at 4 and 2 off-line points) measured 3 times, 5% noise. */
struct fixture {
	struct truth t;
	struct deps d;
	struct experiment e;
	struct validation v;
	struct refine_point pts[16];
	struct refine_space s;
};

static int fixture_init(struct fixture *f)
{
	static const double at[][2] = { { 4, 4 }, { 8, 4 }, { 16, 4 }, { 32, 4 }, { 64, 4 }, { 4, 8 }, { 4, 16 },
					{ 4, 32 }, { 4, 64 }, { 8, 8 }, { 32, 16 } };
	struct perr err;
	double mid[2] = { 16, 16 };
	truth_random(&f->t, 2, names, mid, 12, 0.05);          /* a product: x^(4/3) * y^(5/4) * log2(y) */
	if (truth_deps(&f->t, &f->d, &err) < 0)
		return -1;
	experiment_init(&f->e);
	experiment_param(&f->e, "x");
	experiment_param(&f->e, "y");
	experiment_callpath(&f->e, "main");
	experiment_metric(&f->e, "time");
	for (int i = 0; i < 11; i++) {
		int p = experiment_point(&f->e, at[i]);
		for (int r = 0; r < 3; r++)
			experiment_add(&f->e, 0, 0, p, truth_measure(&f->t, 1, at[i], r));
	}
	static const struct dep_function *funcs[1];
	funcs[0] = deps_find_function(&f->d, "main");
	struct validate_options vo;
	validate_options_init(&vo);
	struct validate_input in = { .e = &f->e, .deps = &f->d, .funcs = funcs };
	if (validate_run(&f->v, &in, &vo, &err) < 0)
		return -1;
	for (int p = 0; p < f->e.npoints; p++)
		f->pts[p] = (struct refine_point){ &f->e.coords[2 * p], 3, truth_value(&f->t, &f->e.coords[2 * p]) / 3600 };
	f->s = (struct refine_space){ .nparams = 2, .params = names, .is_int = is_int, .npoints = f->e.npoints,
				      .points = f->pts, .repetitions = 3, .max_repetitions = 10, .budget = -1 };
	return 0;
}

static void fixture_release(struct fixture *f)
{
	validation_release(&f->v);
	experiment_release(&f->e);
	deps_release(&f->d);
	truth_release(&f->t);
}

static void test_target(struct fixture *f)
{
	struct refine_accuracy a;
	struct perr err;
	ok(refine_accuracy_target(&a, &f->s, "beyond", &err) == 0, "beyond parses");
	ok(a.target[0] == 128 && a.target[1] == 128, "one step beyond 64 in the doubling: x=y=128 (%g, %g)",
	   a.target[0], a.target[1]);
	is_str(a.target_text, "x=128,y=128", "and reads so");
	refine_accuracy_release(&a);
	ok(refine_accuracy_target(&a, &f->s, "x=4096", &err) == 0, "x=4096 parses");
	ok(a.target[0] == 4096 && a.target[1] == 64, "y not named: its largest measured value");
	refine_accuracy_release(&a);
	static const struct { const char *spec, *msg; } bad[] = {
		{ "q=3", "the campaign has no parameter 'q'" },
		{ "x=abc", "x wants a positive number, not 'abc'" },
		{ "x=-1", "x wants a positive number" },
		{ "x", "'x' is no NAME=VALUE; write --target p=4096,size=60 or --target beyond" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(refine_accuracy_target(&a, &f->s, bad[i].spec, &err) < 0, "--target %s is refused", bad[i].spec);
		contains(err.msg, bad[i].msg, "saying why");
		refine_accuracy_release(&a);
	}
}

/* Proposals for "beyond" in budget (< 0: none) after a findings result r (initialised). */
static void propose(struct fixture *f, double budget, struct refine_result *r, struct refine_accuracy *a)
{
	struct perr err;
	f->s.budget = budget;
	r->remaining = budget;
	refine_accuracy_target(a, &f->s, "beyond", &err);
	refine_accuracy_propose(&f->s, &f->v, 0, a, r);
}

static void test_proposals(struct fixture *f)
{
	double spent = 0;
	for (int p = 0; p < f->s.npoints; p++)
		spent += f->pts[p].run_core_hours * 3;
	struct refine_result r, again;
	struct refine_accuracy a, b;
	memset(&r, 0, sizeof(r));
	propose(f, 0.5 * spent, &r, &a);
	ok(r.nproposals > 0, "proposals for accuracy (%d)", r.nproposals);
	is_int(a.nregions, 1, "main is weighed");
	ok(a.after < a.before, "the spread at the target narrows: %.3f -> %.3f", a.before, a.after);
	int kinds = 1, places = 1, target = 0;
	double cost = 0;
	for (int i = 0; i < r.nproposals; i++) {
		const struct refine_proposal *p = &r.proposals[i];
		kinds &= p->kind == REFINE_ACCURACY && !strcmp(refine_kind_name(p->kind), "accuracy");
		target += p->coords[0] == 128 && p->coords[1] == 128;
		for (int k = 0; k < 2; k++) {
			int known = p->coords[k] == 128;
			for (int j = 0; j < 5; j++)
				known |= p->coords[k] == V[j];
			places &= known;
		}
		cost += p->core_hours;
		contains(p->reason, "main: the prediction at x=128,y=128 spreads", "proposal %d says why", i);
	}
	ok(kinds, "all of kind accuracy");
	is_int(target, 0, "none at the target itself");
	ok(places, "all on the grid of measured values or one step beyond");
	ok(cost <= 0.5 * spent * (1 + 1e-9), "within the budget (%.4g of %.4g core-hours)", cost, 0.5 * spent);
	is_rel(r.used, cost, 1e-12, "and counted as used");
	memset(&again, 0, sizeof(again));
	propose(f, 0.5 * spent, &again, &b);
	int same = again.nproposals == r.nproposals;
	for (int i = 0; same && i < r.nproposals; i++)
		same = !strcmp(again.proposals[i].reason, r.proposals[i].reason);
	ok(same, "the same campaign gives the same proposals");
	refine_result_release(&again);
	refine_accuracy_release(&b);
	refine_result_release(&r);
	refine_accuracy_release(&a);
	memset(&r, 0, sizeof(r));
	propose(f, 0, &r, &a);
	is_int(r.nproposals, 0, "a budget of 0: none");
	refine_result_release(&r);
	refine_accuracy_release(&a);
}

/* The findings' proposals come first; accuracy takes what they leave of the budget. */
static void test_after_findings(struct fixture *f)
{
	struct refine_finding fd = { .kind = REFINE_NOISE, .region = "main", .point = 4, .rep = -1, .param = -1,
				     .severity = 0.3 };
	struct refine_result r;
	struct refine_accuracy a;
	f->s.budget = 1e9;
	refine_propose(&f->s, &fd, 1, &r);
	propose(f, 1e9, &r, &a);
	ok(r.nproposals >= 2, "a noise proposal and accuracy ones (%d)", r.nproposals);
	is_int(r.proposals[0].kind, REFINE_NOISE, "the finding's proposal first");
	int later = 1;
	for (int i = 1; i < r.nproposals; i++)
		later &= r.proposals[i].kind == REFINE_ACCURACY && r.proposals[i].value < r.proposals[0].value;
	ok(later, "then accuracy, valued below it");
	refine_result_release(&r);
	refine_accuracy_release(&a);
}

/* Rounds measured by the truth: the error at the target falls, over 20 random functions. */
static void test_rounds(void)
{
	double mid[2] = { 16, 16 }, before[20], after[20];
	int n = 0, at_target = 0;
	for (unsigned long seed = 1; seed <= 20; seed++) {
		struct truth t;
		struct accuracy_rounds a = { 0 };
		truth_random(&t, 2, names, mid, seed, 0.05);
		if (accuracy_rounds_run(&t, 3, 0.5, &a) == 0) {
			before[n] = a.error[0];
			after[n++] = a.error[a.nrounds];
			at_target += a.at_target;
			ok(a.extra[a.nrounds] <= 0.75 * a.spent0, "seed %lu: the extra core-hours stay near the budget "
			   "(%.2f of the first)", seed, a.extra[a.nrounds] / a.spent0);
		}
		truth_release(&t);
	}
	is_int(n, 20, "every campaign validates");
	is_int(at_target, 0, "no run is proposed at the target");
	int fell = 0;
	for (int i = 0; i < n; i++)
		fell += after[i] < before[i];
	ok(fell > n / 2, "the error at the target falls in most campaigns (%d of %d)", fell, n);
}

int main(void)
{
	struct fixture f;
	if (!ok(fixture_init(&f) == 0, "a generated campaign validates"))
		return done_testing();
	test_target(&f);
	test_proposals(&f);
	test_after_findings(&f);
	fixture_release(&f);
	test_rounds();
	return done_testing();
}
