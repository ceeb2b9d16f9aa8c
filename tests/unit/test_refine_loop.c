/*
 * The refine loop's rule for a shared machine (refine/refine_loop.h): which
 * reruns came back disturbed, when that means the machine is shared, and
 * the probe a shared verdict's proposals are cut to.
 */
#include "tests/lib/tap.h"
#include "common/xalloc.h"
#include "refine/refine_loop.h"
#include "validator/disturbed.h"
#include <string.h>

/* A disturbed result listing runs ids[0..n). */
static void result_of(struct disturbed_result *res, const long long *ids, int n, int njudged)
{
	memset(res, 0, sizeof(*res));
	disturbed_rule_init(&res->rule);
	res->njudged = njudged;
	res->n = n;
	res->runs = xcalloc((size_t)n + 1, sizeof(*res->runs));
	for (int i = 0; i < n; i++) {
		res->runs[i].run = ids[i];
		res->runs[i].allowed = 1;
	}
}

/* A proposal of kind k costing ch core-hours, from point `from`. */
static struct refine_proposal proposal(enum refine_kind k, double ch, int from, double value)
{
	struct refine_proposal p;
	memset(&p, 0, sizeof(p));
	p.kind = k;
	p.core_hours = ch;
	p.from = from;
	p.rep = 1;
	p.repetitions = 1;
	p.value = value;
	p.point = from;
	p.coords = xcalloc(1, sizeof(double));
	p.ncoords = 1;
	p.reason = xstrdup("test");
	return p;
}

static void test_rule(void)
{
	/* half or more, and at least two */
	ok(refine_loop_shared(4, 2), "2 of 4 reruns disturbed again: shared");
	ok(refine_loop_shared(2, 2), "2 of 2: shared");
	ok(!refine_loop_shared(5, 2), "2 of 5: not shared (less than half)");
	ok(!refine_loop_shared(1, 1), "1 of 1: one run is no machine (fewer than 2)");
	ok(!refine_loop_shared(2, 1), "1 of 2: fewer than 2");
	ok(!refine_loop_shared(0, 0), "no reruns: nothing to judge");

	static const long long disturbed[] = { 3, 10, 11, 14 }, reruns[] = { 10, 11, 12, 13 };
	struct disturbed_result res;
	result_of(&res, disturbed, 4, 20);
	is_int(refine_loop_disturbed_again(&res, reruns, 4), 2, "of reruns 10-13, 10 and 11 are disturbed again");
	is_int(refine_loop_disturbed_again(&res, reruns + 2, 2), 0, "of 12-13 none");
	is_int(refine_loop_disturbed_again(NULL, reruns, 4), 0, "no disturbed check: none");
	disturbed_result_release(&res);
}

static void test_probe(void)
{
	/* 10 disturbed runs of 0.01 core-hours but one dearer, a noise proposal, one dropped over the budget */
	struct refine_result r;
	memset(&r, 0, sizeof(r));
	r.nproposals = 12;
	r.ndropped = 1;
	r.proposals = xcalloc(13, sizeof(*r.proposals));
	r.proposals[0] = proposal(REFINE_DISTURBED, 0.05, 0, 199);
	for (int i = 1; i < 10; i++)
		r.proposals[i] = proposal(REFINE_DISTURBED, 0.01, i, 150 + i);
	r.proposals[10] = proposal(REFINE_NOISE, 0.02, 10, 90);
	r.proposals[11] = proposal(REFINE_SEGMENTED, 0.02, 11, 80);
	r.proposals[12] = proposal(REFINE_EXTRAPOLATION, 0.5, 12, 10);
	r.dropped = r.proposals + 12;
	/* 40 judged runs: want max(4, 20% of 40) = 8; 0.35 core-hours spent: a cap of 0.07, 7 runs of 0.01 */
	is_int(refine_loop_probe(&r, 40, 0.35), 10, "10 disturbed proposals to probe from");
	is_int(r.nproposals, 7, "the probe: 7 runs, within 20%% of the core-hours spent");
	int cheap = 1;
	for (int i = 0; i < r.nproposals; i++)
		cheap &= r.proposals[i].kind == REFINE_DISTURBED && r.proposals[i].core_hours == 0.01;
	ok(cheap, "only disturbed runs, the cheapest");
	is_rel(r.used, 0.07, 1e-12, "what the probe costs");
	is_int(r.ndropped, 6, "the rest, noise and segmented too, left behind it");
	ok(r.dropped == r.proposals + 7, "as dropped");
	refine_result_release(&r);

	/* a count cap: 10 judged runs want 4; a budget cap never takes fewer than 2 */
	r.nproposals = 6;
	r.ndropped = 0;
	r.proposals = xcalloc(6, sizeof(*r.proposals));
	for (int i = 0; i < 6; i++)
		r.proposals[i] = proposal(REFINE_DISTURBED, 1.0, i, 150);
	r.dropped = NULL;
	is_int(refine_loop_probe(&r, 10, 100), 6, "6 disturbed proposals");
	is_int(r.nproposals, 4, "10 judged runs: a probe of 4");
	refine_result_release(&r);
	r.nproposals = 6;
	r.proposals = xcalloc(6, sizeof(*r.proposals));
	for (int i = 0; i < 6; i++)
		r.proposals[i] = proposal(REFINE_DISTURBED, 1.0, i, 150);
	is_int(refine_loop_probe(&r, 10, 1), 6, "again, with 1 core-hour spent");
	is_int(r.nproposals, 2, "over the cost cap: still 2, so that the rule can decide");
	refine_result_release(&r);

	/* no disturbed proposal: nothing is cut */
	r.nproposals = 1;
	r.proposals = xcalloc(1, sizeof(*r.proposals));
	r.proposals[0] = proposal(REFINE_NOISE, 1.0, 0, 90);
	is_int(refine_loop_probe(&r, 10, 1), 0, "no disturbed proposal: no probe");
	is_int(r.nproposals, 1, "and the proposals stay");
	refine_result_release(&r);
}

int main(void)
{
	test_rule();
	test_probe();
	return done_testing();
}
