/*
 * The disturbed check's rule (validator/disturbed.h) on records of known
 * truth: time taken by other programs, not time spent waiting.  A rank
 * that slept while others ran, a rank a busy loop shared its core with, own
 * ranks taking turns on one core, a threaded rank allowed two cores, steal
 * time, a kernel without run-queue delays, records from before the census
 * (judged by their switches per CPU second), runs too short to judge,
 * whole-run records, and min_cpu_share 0.
 */
#include "common/strbuf.h"
#include "tests/lib/tap.h"
#include "validator/disturbed.h"
#include <math.h>
#include <stdlib.h>

/* A record of run `run`, rank `rank`: cpu seconds over wall seconds, nivcsw switches, no census. */
static struct disturbed_usage rec(long long run, int rank, double cpu, double wall, double allowed,
				  long long nivcsw)
{
	return (struct disturbed_usage){ .run = run, .point = (int)run % 3, .repetition = (int)run, .rank = rank,
					 .ranks = 1, .cpu = cpu, .wall = wall, .allowed = allowed, .nivcsw = nivcsw,
					 .run_delay = NAN, .foreign = NAN, .steal = NAN };
}

/* The same with what the census saw: the rank waited delay s, foreign tasks ran foreign s on its cores. */
static struct disturbed_usage seen(long long run, int rank, double cpu, double wall, double allowed,
				   double delay, double foreign)
{
	struct disturbed_usage u = rec(run, rank, cpu, wall, allowed, 10);
	u.run_delay = delay;
	u.foreign = foreign;
	u.steal = 0;
	return u;
}

static const struct disturbed_run *find(const struct disturbed_result *r, long long run)
{
	for (int i = 0; i < r->n; i++)
		if (r->runs[i].run == run)
			return &r->runs[i];
	return NULL;
}

static void test_taken(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	struct disturbed_cause busy[] = { { 4242, "busy", 0, 0.49 }, { 17, "kworker/0:1", 0, 0.01 } };
	struct disturbed_usage u[] = {
		seen(1, 0, 0.99, 1.0, 1, 0.005, 0.01),  /* alone on its core */
		seen(2, 0, 0.50, 1.0, 1, 0.002, 0.95),  /* slept half its time while others ran: not disturbed */
		seen(3, 0, 0.50, 1.0, 1, 0.48, 0.50),   /* a busy loop on its core: half of it */
		seen(4, 0, 0.49, 1.0, 0.5, 0.50, 0.0),  /* two ranks given one core take turns: by design */
		seen(4, 1, 0.48, 1.0, 0.5, 0.51, 0.0),
		seen(5, 0, 0.33, 1.0, 0.5, 0.66, 0.33), /* ... and a busy loop beside them */
		seen(5, 1, 0.33, 1.0, 0.5, 0.66, 0.33),
		seen(6, 0, 1.95, 1.0, 2, 0.01, 0.0),    /* two threads on the two cores it was given */
		seen(7, 0, 1.50, 1.0, 2, 0.48, 0.50),   /* ... a busy loop on one of them */
		seen(8, 0, 0.002, 0.05, 1, 0.04, 0.05), /* 50 ms: too short to judge */
		seen(9, 0, 0.93, 1.0, 1, 0.07, 0.07),   /* 7% taken: below a tenth */
	};
	u[2].causes = busy;
	u[2].ncauses = 2;
	int n = (int)(sizeof(u) / sizeof(u[0]));
	struct disturbed_result r;
	disturbed_judge(&rule, u, n, &r);
	is_int(r.njudged, 8, "eight runs judged, the 50 ms one not");
	is_int(r.ncensus, 8, "all eight with the census");
	ok(!find(&r, 1), "run 1: alone on its core");
	ok(!find(&r, 2), "run 2: slept while others ran: its share 0.50 is not disturbance");
	const struct disturbed_run *d = find(&r, 3);
	ok(d && d->why == DISTURBED_BY_FOREIGN && fabs(d->taken - 0.48) < 1e-12, "run 3: others took 48%%");
	ok(d && d->ncauses == 2 && d->causes[0].pid == 4242 && d->causes[0].share == 0.49,
	   "run 3: the busy loop named first");
	struct strbuf sb;
	strbuf_init(&sb);
	if (d)
		disturbed_reason(&sb, &r, d);
	is_str(sb.buf, "rank 0 lost 48% of its core to other programs, CPU share 0.50: pid 4242 (busy) ran on "
	       "core 0 for 49% of the run; pid 17 (kworker/0:1) ran on core 0 for 1% of the run", "run 3's reason");
	strbuf_release(&sb);
	ok(!find(&r, 4), "run 4: own ranks taking turns are not disturbed");
	d = find(&r, 5);
	ok(d && fabs(d->taken - 0.66) < 1e-12 && d->allowed == 0.5, "run 5: 0.33 s of the 0.5 s each may have");
	ok(!find(&r, 6), "run 6: a share of 1.95 with two cores allowed");
	d = find(&r, 7);
	ok(d && d->allowed == 2 && fabs(d->taken - 0.24) < 1e-12, "run 7: 0.48 s of its 2 core-seconds taken");
	ok(!find(&r, 9), "run 9: 7%% taken is within the rule");
	is_int(r.n, 3, "three disturbed");
	disturbed_result_release(&r);

	rule.min_cpu_share = 0;
	disturbed_judge(&rule, u, n, &r);
	is_int(r.n, 0, "min_cpu_share 0: time taken is not judged");
	disturbed_result_release(&r);
}

static void test_signals(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	struct disturbed_usage u[] = {
		seen(1, 0, 0.80, 1.0, 1, 0.01, 0.0),    /* steal: the hypervisor's other guests */
		seen(2, 0, 0.60, 1.0, 1, NAN, 0.40),    /* no run-queue delay, preempted often */
		seen(3, 0, 0.60, 1.0, 1, NAN, 0.40),    /* no run-queue delay, rarely preempted: it slept */
		rec(4, 0, 0.60, 1.0, 1, 10),            /* SLURM: delay without the census, alone on its cores */
		rec(5, 0, 0.50, 1.0, 0.5, 10),          /* ... sharing them with its own ranks */
		rec(5, 1, 0.50, 1.0, 0.5, 10),
	};
	u[0].steal = 0.2;
	u[1].nivcsw = 400;
	u[2].nivcsw = 5;
	u[3].run_delay = 0.4;
	u[4].run_delay = u[5].run_delay = 0.5;
	struct disturbed_result r;
	disturbed_judge(&rule, u, 6, &r);
	const struct disturbed_run *d = find(&r, 1);
	ok(d && d->why == DISTURBED_BY_STEAL && fabs(d->steal - 0.2) < 1e-12, "run 1: steal time");
	d = find(&r, 2);
	ok(d && d->why == DISTURBED_BY_FOREIGN && fabs(d->taken - 0.4) < 1e-12,
	   "run 2: foreign time counts when it was preempted (667 per CPU second)");
	ok(!find(&r, 3), "run 3: foreign time while it slept does not");
	d = find(&r, 4);
	ok(d && d->why == DISTURBED_BY_FOREIGN && fabs(d->taken - 0.4) < 1e-12, "run 4: its run-queue delay");
	ok(!find(&r, 5), "run 5: waits behind its own ranks, no census: not judged by the delay");
	is_int(r.n, 3, "three disturbed");
	disturbed_result_release(&r);
}

static void test_switches(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	/* records from before the census: eight quiet runs at 4 involuntary
	   switches per CPU second, one at 400, one at 45 */
	struct disturbed_usage u[12];
	int n = 0;
	for (int i = 1; i <= 8; i++)
		u[n++] = rec(i, 0, 2.0, 2.0, 1, 8);
	u[n++] = rec(9, 0, 1.0, 2.0, 1, 400);
	u[n++] = rec(10, 0, 2.0, 2.0, 1, 90);
	/* ranks sharing their core by design switch a lot: not judged by switches, not in the median */
	u[n++] = rec(11, 0, 0.5, 1.0, 0.5, 900);
	u[n++] = rec(11, 1, 0.5, 1.0, 0.5, 900);
	struct disturbed_result r;
	disturbed_judge(&rule, u, n, &r);
	is_rel(r.median_cpu_rate, 4, 1e-12, "the median rate is the quiet runs' 4 per CPU second");
	is_int(r.n, 1, "one run disturbed by its switches");
	const struct disturbed_run *d = find(&r, 9);
	ok(d && d->why == DISTURBED_BY_SWITCHES && fabs(d->cpu_rate - 400) < 1e-9 && fabs(d->rate - 200) < 1e-9,
	   "run 9: 400 per CPU second, 100x the median");
	ok(!find(&r, 10), "run 10: 45 per CPU second is above 10x the median but below the floor of 50");
	ok(!find(&r, 11), "run 11: ranks that share their core are not judged by switches");
	struct strbuf sb;
	strbuf_init(&sb);
	if (d)
		disturbed_reason(&sb, &r, d);
	is_str(sb.buf, "rank 0 400 involuntary context switches per CPU second (campaign median 4), CPU share 0.50",
	       "run 9's reason");
	strbuf_release(&sb);
	disturbed_result_release(&r);
	/* analysis.min_cpu_share = 0 turns the test off, the switches' fallback too */
	rule.min_cpu_share = 0;
	disturbed_judge(&rule, u, n, &r);
	is_int(r.n, 0, "min_cpu_share 0: no run judged by its switches either");
	disturbed_result_release(&r);
}

static void test_whole_run(void)
{
	struct disturbed_rule rule;
	disturbed_rule_init(&rule);
	/* whole-run records (the local backend's end and census notes): summed over the ranks */
	struct disturbed_usage u[] = {
		seen(1, -1, 1.96, 1.0, NAN, 0.02, 0.5),  /* 2 ranks, 0.98 each */
		seen(2, -1, 1.20, 1.0, NAN, 0.80, 0.9),  /* 2 ranks, 0.60 each: 0.8 of 2 s taken */
		seen(3, -1, 0.50, 1.0, NAN, 0.50, 0.5),  /* a rank record beside it wins */
		seen(3, 0, 0.99, 1.0, 1, 0.01, 0.0),
	};
	u[0].ranks = u[1].ranks = 2;
	struct disturbed_result r;
	disturbed_judge(&rule, u, 4, &r);
	is_int(r.njudged, 3, "three runs judged");
	is_int(r.n, 1, "one disturbed");
	const struct disturbed_run *d = find(&r, 2);
	ok(d && d->rank == -1 && fabs(d->share - 0.6) < 1e-12 && fabs(d->taken - 0.4) < 1e-12,
	   "run 2: its whole-run share over its 2 ranks, 40%% of their time taken");
	ok(!find(&r, 3), "run 3: judged by its rank record");
	disturbed_result_release(&r);
	disturbed_judge(&rule, u, 0, &r);
	ok(r.njudged == 0 && r.n == 0 && isnan(r.median_rate), "no records: nothing judged");
	disturbed_result_release(&r);
}

int main(void)
{
	test_taken();
	test_signals();
	test_switches();
	test_whole_run();
	return done_testing();
}
