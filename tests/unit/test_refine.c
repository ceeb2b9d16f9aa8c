/*
 * Refinement proposals (refine/refine.h) from known findings: what
 * each finding asks for, merging, the budget dropping the least valuable
 * first; and the findings of a validation of generated data of known truth
 * (a noisy point, an outlier, a regime change at a known x).
 */
#include "tests/lib/gen_truth.h"
#include "tests/lib/tap.h"
#include "refine/refine.h"
#include "validator/validate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One parameter n = 2, 4, ..., 16, 5 repetitions each, 0.001 core-hours a run. */
static double line_coords[8];
static struct refine_point line_points[8];
static char *line_names[] = { "n" };
static const int line_int[] = { 1 };

static struct refine_space line_space(double budget)
{
	for (int i = 0; i < 8; i++) {
		line_coords[i] = 2 * (i + 1);
		line_points[i] = (struct refine_point){ &line_coords[i], 5, 0.001 * (i + 1) };
	}
	return (struct refine_space){ 1, line_names, line_int, 8, line_points, 5, 10, budget, NULL };
}

static const struct refine_proposal *find(const struct refine_result *r, enum refine_kind k, double x)
{
	for (int i = 0; i < r->nproposals; i++)
		if (r->proposals[i].kind == k && r->proposals[i].coords[0] == x)
			return &r->proposals[i];
	return NULL;
}

static void test_each_kind(void)
{
	struct refine_space s = line_space(-1);
	struct refine_finding f[] = {
		{ REFINE_NOISE, "main", 2, -1, -1, 0, 0, 0.3, 0 },         /* n=6 */
		{ REFINE_NOISE, "main->k", 2, -1, -1, 0, 0, 0.2, 0 },      /* the same point, another region */
		{ REFINE_OUTLIER, "main", 4, 2, -1, 0, 0, 2.1, 0 },        /* n=10, repetition 3 */
		{ REFINE_SEGMENTED, "main", 3, -1, 0, 8, 10, 0.9, 0 },     /* between n=8 and 10 */
		{ REFINE_EXTRAPOLATION, "main", 7, -1, 0, 0, 0, 0.4, 0 },  /* beyond n=16 */
	};
	struct refine_result r;
	refine_propose(&s, f, 5, &r);
	is_int(r.nproposals, 4, "each kind: 4 proposals (the two noise findings merged)");
	is_int(r.ndropped, 0, "each kind: nothing dropped without a budget");
	const struct refine_proposal *p = find(&r, REFINE_NOISE, 6);
	ok(p && p->repetitions == 5 && p->point == 2, "noise: 5 more repetitions at the existing n=6");
	if (p)
		is_rel(p->core_hours, 5 * 0.003, 1e-12, "noise: costs 5 runs at n=6");
	p = find(&r, REFINE_OUTLIER, 10);
	ok(p && p->repetitions == 1 && p->rep == 2 && p->point == 4, "outlier: repetition 3 at n=10 rerun once");
	if (p)
		contains(p->reason, "rerun it as a new attempt", "outlier: the reason says what happens");
	p = find(&r, REFINE_SEGMENTED, 9);
	ok(p && p->point == -1 && p->repetitions == 5, "segmented: the new point n=9, 5 repetitions");
	if (p)
		is_rel(p->core_hours, 5 * 0.005, 1e-12, "segmented: priced as its dearer neighbour n=10");
	p = find(&r, REFINE_EXTRAPOLATION, 18);
	ok(p != NULL, "extrapolation: one step beyond n=16 is n=18");
	ok(r.proposals[0].kind == REFINE_NOISE && r.proposals[r.nproposals - 1].kind == REFINE_EXTRAPOLATION,
	   "order: noise first, extrapolation last");
	double sum = 0;
	for (int i = 0; i < r.nproposals; i++)
		sum += r.proposals[i].core_hours;
	is_rel(r.used, sum, 1e-12, "used is the sum of the proposals");
	refine_result_release(&r);
}

static void test_budget(void)
{
	struct refine_finding f[] = {
		{ REFINE_EXTRAPOLATION, "main", 7, -1, 0, 0, 0, 0.4, 0 },  /* 5 x 0.008 x 18/16 = 0.045 */
		{ REFINE_NOISE, "main", 2, -1, -1, 0, 0, 0.3, 0 },         /* 0.015 */
		{ REFINE_OUTLIER, "main", 4, 2, -1, 0, 0, 2.1, 0 },        /* 0.005 */
	};
	struct refine_space s = line_space(0.03);
	struct refine_result r;
	refine_propose(&s, f, 3, &r);
	is_int(r.nproposals, 2, "budget 0.03: two proposals kept");
	is_int(r.ndropped, 1, "budget 0.03: one dropped");
	ok(r.ndropped == 1 && r.dropped[0].kind == REFINE_EXTRAPOLATION, "budget: the least valuable is dropped");
	is_rel(r.used, 0.02, 1e-9, "budget: used 0.02 of 0.03");
	refine_result_release(&r);
	s = line_space(0.01);
	refine_propose(&s, f, 3, &r);
	ok(r.nproposals == 1 && r.proposals[0].kind == REFINE_OUTLIER && r.ndropped == 2,
	   "budget 0.01: the noise proposal does not fit, the cheaper outlier rerun does");
	ok(r.ndropped == 2 && r.dropped[0].kind == REFINE_NOISE && r.dropped[1].kind == REFINE_EXTRAPOLATION,
	   "budget 0.01: dropped in value order");
	refine_result_release(&r);
}

static void test_segment_spacing(void)
{
	double xs[2] = { 16, 64 };
	struct refine_point pts[2] = { { &xs[0], 3, 0.01 }, { &xs[1], 3, 0.02 } };
	struct refine_space s = { 1, line_names, line_int, 2, pts, 3, 0, -1, NULL };
	struct refine_finding f = { REFINE_SEGMENTED, "main", 0, -1, 0, 16, 64, 0.8, 0 };
	struct refine_result r;
	refine_propose(&s, &f, 1, &r);
	is_int(r.nproposals, 3, "segmented 16..64: three points between");
	ok(r.nproposals == 3 && r.proposals[0].coords[0] == 23 && r.proposals[1].coords[0] == 32 &&
	   r.proposals[2].coords[0] == 45, "segmented 16..64: geometric 23, 32, 45");
	refine_result_release(&r);
	f.lo = 10;
	f.hi = 14;
	xs[0] = 10;
	xs[1] = 14;
	refine_propose(&s, &f, 1, &r);
	ok(r.nproposals == 3 && r.proposals[0].coords[0] == 11 && r.proposals[2].coords[0] == 13,
	   "segmented 10..14: every integer between");
	refine_result_release(&r);
}

static void test_max_and_contention(void)
{
	double c[3][2] = { { 2, 1 }, { 4, 1 }, { 4, 2 } };
	struct refine_point pts[3] = { { c[0], 8, 0.01 }, { c[1], 8, 0.01 }, { c[2], 8, 0.02 } };
	char *names[] = { "n", "p" };
	int ints[] = { 1, 1 };
	struct refine_space s = { 2, names, ints, 3, pts, 3, 10, -1, NULL };
	struct refine_finding f[] = {
		{ REFINE_NOISE, "main", 0, -1, -1, 0, 0, 0.3, 0 },
		{ REFINE_CONTENTION, "main", 0, -1, 1, 0, 0, 0, 0 },
	};
	struct refine_result r;
	refine_propose(&s, f, 2, &r);
	is_int(r.nproposals, 2, "noise at 8 of max 10 repetitions, and a contention point");
	ok(r.nproposals == 2 && r.proposals[0].kind == REFINE_NOISE && r.proposals[0].repetitions == 2,
	   "noise: only 2 more (max 10)");
	ok(r.nproposals == 2 && r.proposals[1].coords[0] == 2 && r.proposals[1].coords[1] == 2,
	   "contention: the missing line point n=2,p=2 from the baseline n=2,p=1");
	refine_result_release(&r);
	pts[0].nreps = 10;
	refine_propose(&s, f, 1, &r);
	is_int(r.nproposals, 0, "noise at max repetitions: nothing to add");
	refine_result_release(&r);
}

/* x <= 16: 0.05 x, then 0.8 (x/16)^2.5: the regime changes between 16 and the next point. */
static double regime(double x)
{
	return x <= 16 ? 0.05 * x : 0.8 * pow(x / 16, 2.5);
}

static void test_findings(void)
{
	struct experiment e;
	experiment_init(&e);
	experiment_param(&e, "x");
	int cp = experiment_callpath(&e, "main"), m = experiment_metric(&e, "time");
	struct gen_rng rng;
	gen_rng_seed(&rng, 1515);
	for (int i = 0; i < 10; i++) {
		double x = 4 * (i + 1);          /* 4 .. 40: the slope changes at 16 */
		int p = experiment_point(&e, &x);
		for (int rep = 0; rep < 5; rep++) {
			double noise = 0.005 * gen_normal(&rng);
			if (i == 1)                      /* x = 8: a spread of +-40% */
				noise = 0.4 * (rep - 2) / 2.0;
			if (i == 6 && rep == 3)          /* x = 28: one repetition 3x */
				noise = 2;
			experiment_add(&e, cp, m, p, regime(x) * (1 + noise));
		}
	}
	struct validate_input in = { .e = &e };
	struct validation v;
	struct perr err;
	if (validate_run(&v, &in, NULL, &err) < 0)
		diag("validate: %s", err.msg);
	struct refine_finding *f;
	int nf, seen[REFINE_NKINDS] = { 0 };
	refine_findings(&v, 0.01, &f, &nf);
	for (int i = 0; i < nf; i++) {
		seen[f[i].kind]++;
		if (f[i].kind == REFINE_SEGMENTED)
			ok(f[i].lo <= 16 && f[i].hi >= 16 && f[i].hi - f[i].lo == 4,
			   "findings: segmented between two neighbours around the change at 16 (%g, %g)",
			   f[i].lo, f[i].hi);
		if (f[i].kind == REFINE_NOISE)
			is_rel(experiment_coord(&e, f[i].point, 0), 8, 0, "findings: the noisy point is x=8");
		if (f[i].kind == REFINE_OUTLIER)
			ok(experiment_coord(&e, f[i].point, 0) == 28 && f[i].rep == 3,
			   "findings: the outlier is repetition 4 at x=28");
	}
	is_int(seen[REFINE_SEGMENTED], 1, "findings: one segmented");
	is_int(seen[REFINE_NOISE], 1, "findings: one noisy point");
	is_int(seen[REFINE_OUTLIER], 1, "findings: one outlier");
	free(f);
	validation_release(&v);
	experiment_release(&e);
}

/*
 * Disturbed runs are measured again first (a new attempt of their
 * repetition), and a noisy point that had one gets no more repetitions
 * until then: the disturbed run may be its noise.  Another noisy point
 * still does.
 */
static void test_disturbed(void)
{
	struct refine_space s = line_space(0.0035);
	struct refine_finding f[] = {
		{ REFINE_NOISE, "main", 2, -1, -1, 0, 0, 0.3, 0 },         /* n=6, noisy ... */
		{ REFINE_DISTURBED, "", 2, 3, -1, 0, 0, 0.5, 17 },        /* ... and run 17, its repetition 3, disturbed */
		{ REFINE_NOISE, "main", 5, -1, -1, 0, 0, 0.2, 0 },         /* n=12, noisy */
		{ REFINE_OUTLIER, "main", 4, 2, -1, 0, 0, 2.1, 0 },        /* n=10 */
	};
	struct refine_result r;
	refine_propose(&s, f, 4, &r);
	ok(r.nproposals >= 1 && r.proposals[0].kind == REFINE_DISTURBED, "the disturbed run comes first");
	const struct refine_proposal *d = find(&r, REFINE_DISTURBED, 6);
	ok(d && d->repetitions == 1 && d->rep == 3, "one new attempt of repetition 3 at n=6");
	if (d)
		contains(d->reason, "run 17 (repetition 3 at n=6) was disturbed (its ranks got 50% of their cores)",
			 "its reason");
	ok(!find(&r, REFINE_NOISE, 6), "no more repetitions at n=6 until the disturbed run is measured again");
	int noise12 = 0;
	for (int i = 0; i < r.ndropped; i++)
		noise12 += r.dropped[i].kind == REFINE_NOISE && r.dropped[i].coords[0] == 12;
	is_int(noise12, 1, "n=12's noise is still proposed (here dropped for the budget)");
	is_rel(r.used, 0.003, 1e-9, "the budget keeps the disturbed run (0.003) over n=12's noise (0.03)");
	is_int(r.ndropped, 2, "n=12's noise and the outlier are dropped");
	refine_result_release(&r);
}

int main(void)
{
	test_disturbed();
	test_each_kind();
	test_budget();
	test_segment_spacing();
	test_max_and_contention();
	test_findings();
	return done_testing();
}
