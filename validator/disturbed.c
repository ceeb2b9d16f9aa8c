/* The disturbed check's rule: the time other programs took from each rank. */
#include "validator/disturbed.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "models/points.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void disturbed_rule_init(struct disturbed_rule *r)
{
	r->min_cpu_share = DISTURBED_MIN_CPU_SHARE;
	r->nivcsw_factor = DISTURBED_NIVCSW_FACTOR;
	r->nivcsw_floor = DISTURBED_NIVCSW_FLOOR;
	r->min_wall = DISTURBED_MIN_WALL;
}

/* One record as judged. */
struct judged {
	int use;                /* judged: long enough, CPU time known, and the run's kind of record */
	double share, allowed;
	double taken, steal;    /* parts of what it may have, NaN unknown */
	double rate, cpu_rate;  /* involuntary switches per second and per CPU second */
};

static int long_enough(const struct disturbed_rule *rule, const struct disturbed_usage *u)
{
	return isfinite(u->cpu) && isfinite(u->wall) && u->wall >= rule->min_wall && u->wall > 0;
}

/* The part of avail seconds other programs took from record u (judged as j), NaN unknown. */
static double time_taken(const struct disturbed_rule *rule, const struct disturbed_usage *u, const struct judged *j,
			 double avail)
{
	if (isfinite(u->foreign)) {
		if (isfinite(u->run_delay))     /* what ran while it waited */
			return fmin(u->run_delay, u->foreign) / avail;
		return isfinite(j->cpu_rate) && j->cpu_rate > rule->nivcsw_floor ? u->foreign / avail : 0;
	}
	/* no census: its waits are others' only when no rank of its run shares its cores */
	return isfinite(u->run_delay) && j->allowed >= 1 ? u->run_delay / avail : NAN;
}

/* Mark the records of run [lo, hi) that are judged: its rank records, else its whole-run record. */
static void pick_records(const struct disturbed_rule *rule, const struct disturbed_usage *u, int lo, int hi,
			 struct judged *j)
{
	int ranks = 0;
	for (int i = lo; i < hi; i++)
		ranks += u[i].rank >= 0 && long_enough(rule, &u[i]);
	for (int i = lo; i < hi; i++) {
		j[i].use = long_enough(rule, &u[i]) && (ranks ? u[i].rank >= 0 : u[i].rank < 0);
		if (!j[i].use)
			continue;
		int share_of = u[i].rank < 0 && u[i].ranks > 1 ? u[i].ranks : 1;
		j[i].share = u[i].cpu / u[i].wall / share_of;
		j[i].allowed = u[i].rank >= 0 && isfinite(u[i].allowed) && u[i].allowed > 0 ? u[i].allowed : 1;
		j[i].rate = u[i].nivcsw >= 0 ? (double)u[i].nivcsw / u[i].wall : NAN;
		j[i].cpu_rate = u[i].nivcsw >= 0 && u[i].cpu > 0 ? (double)u[i].nivcsw / u[i].cpu : NAN;
		double avail = j[i].allowed * share_of * u[i].wall;
		j[i].taken = time_taken(rule, &u[i], &j[i], avail);
		j[i].steal = isfinite(u[i].steal) ? u[i].steal / avail : NAN;
	}
}

/* The flags DISTURBED_BY_* of one judged record. */
static unsigned record_why(const struct disturbed_rule *rule, const struct judged *j, double median)
{
	unsigned why = 0;
	double lost = 1 - rule->min_cpu_share;
	if (rule->min_cpu_share > 0 && isfinite(j->taken) && j->taken > lost)
		why |= DISTURBED_BY_FOREIGN;
	if (rule->min_cpu_share > 0 && isfinite(j->steal) && j->steal > lost)
		why |= DISTURBED_BY_STEAL;
	/* the fallback of stores without a census; min_cpu_share = 0 turns it off too */
	if (rule->min_cpu_share > 0 && isnan(j->taken) && j->allowed >= 1 && isfinite(j->cpu_rate) &&
	    isfinite(median) && j->cpu_rate > rule->nivcsw_factor * median && j->cpu_rate > rule->nivcsw_floor)
		why |= DISTURBED_BY_SWITCHES;
	return why;
}

/* How badly a record was disturbed, for picking a run's worst rank. */
static double badness(const struct judged *j)
{
	double b = 1 - j->share / j->allowed;
	if (isfinite(j->taken))
		b = j->taken;
	if (isfinite(j->steal) && j->steal > b)
		b = j->steal;
	return b;
}

static int by_share(const void *a, const void *b)
{
	double x = ((const struct disturbed_cause *)a)->share, y = ((const struct disturbed_cause *)b)->share;
	return (x < y) - (x > y);
}

/* The causes of the disturbed records of run [lo, hi), once per process and core, the largest first. */
static void run_causes(const struct disturbed_usage *u, const unsigned *why, int lo, int hi, struct disturbed_run *d)
{
	size_t alloc = 0;
	for (int i = lo; i < hi; i++)
		for (int k = 0; why[i] && k < u[i].ncauses; k++) {
			const struct disturbed_cause *c = &u[i].causes[k];
			int m = 0;
			while (m < d->ncauses && !(d->causes[m].pid == c->pid && d->causes[m].core == c->core))
				m++;
			if (m < d->ncauses) {
				d->causes[m].share = fmax(d->causes[m].share, c->share);
				continue;
			}
			XGROW(d->causes, (size_t)d->ncauses + 1, alloc);
			d->causes[d->ncauses++] = *c;
		}
	if (d->ncauses)
		qsort(d->causes, (size_t)d->ncauses, sizeof(*d->causes), by_share);
}

/* The medians of the switch rates over the judged records that share no core with their own run. */
static void median_rates(const struct judged *j, int n, struct disturbed_result *res)
{
	double *rates = xmalloc(sizeof(double) * ((size_t)n + 1));
	double *cpu_rates = xmalloc(sizeof(double) * ((size_t)n + 1));
	int nrates = 0, ncpu = 0;
	for (int i = 0; i < n; i++) {
		if (!j[i].use || j[i].allowed < 1)
			continue;
		if (isfinite(j[i].rate))
			rates[nrates++] = j[i].rate;
		if (isfinite(j[i].cpu_rate))
			cpu_rates[ncpu++] = j[i].cpu_rate;
	}
	res->median_rate = values_median(rates, nrates);
	res->median_cpu_rate = values_median(cpu_rates, ncpu);
	free(rates);
	free(cpu_rates);
}

void disturbed_judge(const struct disturbed_rule *rule, const struct disturbed_usage *u, int n,
		     struct disturbed_result *res)
{
	memset(res, 0, sizeof(*res));
	res->rule = *rule;
	struct judged *j = xcalloc((size_t)n + 1, sizeof(*j));
	unsigned *why = xcalloc((size_t)n + 1, sizeof(*why));
	for (int lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && u[hi].run == u[lo].run; hi++)
			;
		pick_records(rule, u, lo, hi, j);
	}
	median_rates(j, n, res);
	size_t alloc = 0;
	for (int lo = 0, hi; lo < n; lo = hi) {
		int judged = 0, census = 0, worst = -1;
		unsigned all = 0;
		for (hi = lo; hi < n && u[hi].run == u[lo].run; hi++) {
			if (!j[hi].use)
				continue;
			judged = 1;
			census |= isfinite(u[hi].foreign);
			why[hi] = record_why(rule, &j[hi], res->median_cpu_rate);
			all |= why[hi];
			if (why[hi] && (worst < 0 || badness(&j[hi]) > badness(&j[worst])))
				worst = hi;
		}
		res->njudged += judged;
		res->ncensus += census;
		if (!all)
			continue;
		XGROW(res->runs, (size_t)res->n + 1, alloc);
		struct disturbed_run *d = &res->runs[res->n++];
		*d = (struct disturbed_run){
			.run = u[worst].run, .point = u[worst].point, .repetition = u[worst].repetition,
			.rank = u[worst].rank, .share = j[worst].share, .allowed = j[worst].allowed,
			.taken = j[worst].taken, .steal = j[worst].steal, .rate = j[worst].rate,
			.cpu_rate = j[worst].cpu_rate, .why = all,
		};
		run_causes(u, why, lo, hi, d);
	}
	free(j);
	free(why);
}

void disturbed_result_release(struct disturbed_result *res)
{
	for (int i = 0; i < res->n; i++)
		free(res->runs[i].causes);
	free(res->runs);
	memset(res, 0, sizeof(*res));
}

void disturbed_causes_text(struct strbuf *sb, const struct disturbed_cause *c, int n, int max)
{
	for (int i = 0; i < n && i < max; i++) {
		strbuf_addstr(sb, i ? "; " : "");
		if (c[i].pid)
			strbuf_addf(sb, "pid %ld (%s) ", c[i].pid, c[i].comm);
		else
			strbuf_addf(sb, "%s ", c[i].comm);
		strbuf_addf(sb, "ran on core %d for %.0f%% of the run", c[i].core, 100 * c[i].share);
	}
	if (n > max)
		strbuf_addf(sb, "; %d more", n - max);
}

void disturbed_reason(struct strbuf *sb, const struct disturbed_result *res, const struct disturbed_run *d)
{
	const char *cores = d->allowed > 1 ? "cores" : "core";
	if (d->rank >= 0)
		strbuf_addf(sb, "rank %d ", d->rank);
	if (d->why & DISTURBED_BY_FOREIGN)
		strbuf_addf(sb, "lost %.0f%% of its %s to other programs", 100 * d->taken, cores);
	if (d->why & DISTURBED_BY_STEAL)
		strbuf_addf(sb, "%ssteal time took %.0f%% of its %s (the hypervisor's other guests)",
			    d->why & DISTURBED_BY_FOREIGN ? ", " : "", 100 * d->steal, cores);
	if (d->why & DISTURBED_BY_SWITCHES)
		strbuf_addf(sb, "%s%.0f involuntary context switches per CPU second (campaign median %.2g)",
			    d->why & (DISTURBED_BY_FOREIGN | DISTURBED_BY_STEAL) ? ", " : "", d->cpu_rate,
			    res->median_cpu_rate);
	strbuf_addf(sb, ", CPU share %.2f", d->share);
	if (d->allowed != 1)
		strbuf_addf(sb, " of the %.2g its binding allows", d->allowed);
	if (d->ncauses) {
		strbuf_addstr(sb, ": ");
		disturbed_causes_text(sb, d->causes, d->ncauses, 3);
	}
}
