/* The disturbed check's rule: CPU share and involuntary context switches per rank. */
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
	double share, allowed, rate;
};

static int long_enough(const struct disturbed_rule *rule, const struct disturbed_usage *u)
{
	return isfinite(u->cpu) && isfinite(u->wall) && u->wall >= rule->min_wall && u->wall > 0;
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
		j[i].allowed = u[i].rank >= 0 && isfinite(u[i].allowed) ? u[i].allowed : 1;
		j[i].rate = u[i].nivcsw >= 0 ? (double)u[i].nivcsw / u[i].wall : NAN;
	}
}

/* The flags DISTURBED_BY_* of one judged record. */
static unsigned record_why(const struct disturbed_rule *rule, const struct judged *j, double median)
{
	unsigned why = 0;
	if (rule->min_cpu_share > 0 && j->share < rule->min_cpu_share * j->allowed)
		why |= DISTURBED_BY_SHARE;
	if (j->allowed >= 1 && isfinite(j->rate) && isfinite(median) && j->rate > rule->nivcsw_factor * median &&
	    j->rate > rule->nivcsw_floor)
		why |= DISTURBED_BY_SWITCHES;
	return why;
}

void disturbed_judge(const struct disturbed_rule *rule, const struct disturbed_usage *u, int n,
		     struct disturbed_result *res)
{
	memset(res, 0, sizeof(*res));
	res->rule = *rule;
	res->median_rate = NAN;
	struct judged *j = xcalloc((size_t)n + 1, sizeof(*j));
	for (int lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && u[hi].run == u[lo].run; hi++)
			;
		pick_records(rule, u, lo, hi, j);
	}
	double *rates = xmalloc(sizeof(double) * ((size_t)n + 1));
	int nrates = 0;
	for (int i = 0; i < n; i++)
		if (j[i].use && j[i].allowed >= 1 && isfinite(j[i].rate))
			rates[nrates++] = j[i].rate;
	res->median_rate = values_median(rates, nrates);
	free(rates);
	size_t alloc = 0;
	for (int lo = 0, hi; lo < n; lo = hi) {
		int judged = 0, worst = -1;
		unsigned why = 0;
		for (hi = lo; hi < n && u[hi].run == u[lo].run; hi++) {
			if (!j[hi].use)
				continue;
			judged = 1;
			unsigned w = record_why(rule, &j[hi], res->median_rate);
			why |= w;
			if (w && (worst < 0 || j[hi].share / j[hi].allowed < j[worst].share / j[worst].allowed))
				worst = hi;
		}
		res->njudged += judged;
		if (!why)
			continue;
		XGROW(res->runs, (size_t)res->n + 1, alloc);
		res->runs[res->n++] = (struct disturbed_run){
			.run = u[worst].run, .point = u[worst].point, .repetition = u[worst].repetition,
			.rank = u[worst].rank, .share = j[worst].share, .allowed = j[worst].allowed,
			.rate = j[worst].rate, .why = why,
		};
	}
	free(j);
}

void disturbed_result_release(struct disturbed_result *res)
{
	free(res->runs);
	memset(res, 0, sizeof(*res));
}

void disturbed_reason(struct strbuf *sb, const struct disturbed_result *res, const struct disturbed_run *d)
{
	if (d->rank >= 0)
		strbuf_addf(sb, "rank %d ", d->rank);
	strbuf_addf(sb, "CPU share %.2f", d->share);
	if (d->allowed < 1)
		strbuf_addf(sb, " of the %.2g its binding allows", d->allowed);
	if (d->why & DISTURBED_BY_SWITCHES)
		strbuf_addf(sb, ", %.0f involuntary context switches/s (campaign median %.2g)", d->rate,
			    res->median_rate);
}
