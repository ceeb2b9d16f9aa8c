/*
 * The disturbed check's rule (validator/disturbed.h) on records of known
 * truth: a rank that got half its core, a rank that got the half core its
 * binding allows, a run the scheduler kept interrupting, runs too short to
 * judge, whole-run records, and min_cpu_share 0.
 */
#include "common/strbuf.h"
#include "tests/lib/tap.h"
#include "validator/disturbed.h"
#include <math.h>
#include <stdlib.h>

/* A record of run `run`, rank `rank`: cpu seconds over wall seconds, nivcsw switches. */
static struct disturbed_usage rec(long long run, int rank, double cpu, double wall, double allowed,
				  long long nivcsw)
{
	return (struct disturbed_usage){ .run = run, .point = (int)run % 3, .repetition = (int)run, .rank = rank,
					 .ranks = 1, .cpu = cpu, .wall = wall, .allowed = allowed, .nivcsw = nivcsw };
}

static const struct disturbed_run *find(const struct disturbed_result *r, long long run)
{
	for (int i = 0; i < r->n; i++)
		if (r->runs[i].run == run)
			return &r->runs[i];
	return NULL;
}

static void test_share(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	struct disturbed_usage u[] = {
		rec(1, 0, 0.99, 1.0, 1, 2),     /* alone on its core */
		rec(2, 0, 0.50, 1.0, 1, 3),     /* a busy loop on its core: half of it */
		rec(3, 0, 0.95, 1.0, NAN, 2),   /* no cpuset recorded: allowed 1 */
		rec(4, 0, 0.49, 1.0, 0.5, 2),   /* two ranks given one core: the half it may have */
		rec(4, 1, 0.48, 1.0, 0.5, 2),
		rec(5, 0, 0.40, 1.0, 0.5, 2),   /* ... and less than that: disturbed */
		rec(5, 1, 0.49, 1.0, 0.5, 2),
		rec(6, 0, 0.002, 0.05, 1, 0),   /* 50 ms: too short to judge */
	};
	struct disturbed_result r;
	disturbed_judge(&rule, u, 8, &r);
	is_int(r.njudged, 5, "five runs judged, the 50 ms one not");
	is_int(r.n, 2, "two disturbed");
	const struct disturbed_run *d = find(&r, 2);
	ok(d && (d->why & DISTURBED_BY_SHARE) && d->rank == 0, "run 2: by its CPU share");
	ok(d && fabs(d->share - 0.5) < 1e-12 && d->allowed == 1, "run 2: share 0.5 of 1");
	ok(!find(&r, 4), "run 4: 0.49 of the 0.5 its binding allows is not disturbed");
	d = find(&r, 5);
	ok(d && d->rank == 0 && fabs(d->share - 0.4) < 1e-12 && d->allowed == 0.5,
	   "run 5: its worst rank, 0.40 of the 0.5 allowed");
	struct strbuf sb;
	strbuf_init(&sb);
	if (d)
		disturbed_reason(&sb, &r, d);
	is_str(sb.buf, "rank 0 CPU share 0.40 of the 0.5 its binding allows", "run 5's reason");
	strbuf_release(&sb);
	disturbed_result_release(&r);

	rule.min_cpu_share = 0;
	disturbed_judge(&rule, u, 8, &r);
	is_int(r.n, 0, "min_cpu_share 0: no run is disturbed by its share");
	disturbed_result_release(&r);
}

static void test_switches(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	rule.min_cpu_share = 0;
	/* eight quiet runs at 4 involuntary switches per second, one at 400, one at 45 */
	struct disturbed_usage u[12];
	int n = 0;
	for (int i = 1; i <= 8; i++)
		u[n++] = rec(i, 0, 1, 2.0, 1, 8);
	u[n++] = rec(9, 0, 1, 2.0, 1, 800);
	u[n++] = rec(10, 0, 1, 2.0, 1, 90);
	/* ranks sharing their core by design switch a lot: not judged by switches, not in the median */
	u[n++] = rec(11, 0, 0.5, 1.0, 0.5, 900);
	u[n++] = rec(11, 1, 0.5, 1.0, 0.5, 900);
	struct disturbed_result r;
	disturbed_judge(&rule, u, n, &r);
	is_rel(r.median_rate, 4, 1e-12, "the median rate is the quiet runs' 4/s");
	is_int(r.n, 1, "one run disturbed by its switches");
	const struct disturbed_run *d = find(&r, 9);
	ok(d && d->why == DISTURBED_BY_SWITCHES && fabs(d->rate - 400) < 1e-9, "run 9: 400/s, 100x the median");
	ok(!find(&r, 10), "run 10: 45/s is above 10x the median but below the 50/s floor");
	ok(!find(&r, 11), "run 11: ranks that share their core are not judged by switches");
	struct strbuf sb;
	strbuf_init(&sb);
	if (d)
		disturbed_reason(&sb, &r, d);
	is_str(sb.buf, "rank 0 CPU share 0.50, 400 involuntary context switches/s (campaign median 4)",
	       "run 9's reason");
	strbuf_release(&sb);
	disturbed_result_release(&r);
}

static void test_whole_run(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	/* whole-run records (the local backend's end note): CPU summed over the ranks */
	struct disturbed_usage u[] = {
		rec(1, -1, 1.96, 1.0, NAN, 4),  /* 2 ranks, 0.98 each */
		rec(2, -1, 1.20, 1.0, NAN, 4),  /* 2 ranks, 0.60 each */
		rec(3, -1, 0.50, 1.0, NAN, 4),  /* a rank record beside it wins */
		rec(3, 0, 0.99, 1.0, 1, 4),
	};
	u[0].ranks = u[1].ranks = 2;
	struct disturbed_result r;
	disturbed_judge(&rule, u, 4, &r);
	is_int(r.njudged, 3, "three runs judged");
	is_int(r.n, 1, "one disturbed");
	const struct disturbed_run *d = find(&r, 2);
	ok(d && d->rank == -1 && fabs(d->share - 0.6) < 1e-12, "run 2: its whole-run share over its 2 ranks");
	ok(!find(&r, 3), "run 3: judged by its rank record");
	disturbed_result_release(&r);
	disturbed_judge(&rule, u, 0, &r);
	ok(r.njudged == 0 && r.n == 0 && isnan(r.median_rate), "no records: nothing judged");
	disturbed_result_release(&r);
}

int main(void)
{
	test_share();
	test_switches();
	test_whole_run();
	return done_testing();
}
