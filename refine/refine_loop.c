/* The refine loop (refine_loop.h). */
#include "refine/refine_loop.h"
#include "common/xalloc.h"
#include "orchestrator/adaptive.h"
#include "refine/refine_campaign.h"
#include "common/strbuf.h"
#include "validator/disturbed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stop_names[] = {
	"publishable", "budget spent", "no progress", "findings no run can fix", "rounds done",
	"interrupted", "the machine is shared", "nothing measured",
};

const char *refine_loop_stop_name(enum refine_loop_stop s)
{
	return (int)s >= 0 && s <= LOOP_UNMEASURED ? stop_names[s] : "?";
}

static int listed(long long id, const long long *ids, int n)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

int refine_loop_disturbed_again(const struct disturbed_result *res, const long long *ids, int n)
{
	int again = 0;
	for (int i = 0; res && i < res->n; i++)
		again += listed(res->runs[i].run, ids, n);
	return again;
}

int refine_loop_shared(int n, int again)
{
	return again >= REFINE_LOOP_SHARED_MIN && 2 * again >= n;
}

/* Disturbed proposals first, cheapest first; then the rest as they were (by value). */
static int cmp_probe(const void *a, const void *b)
{
	const struct refine_proposal *x = a, *y = b;
	int dx = x->kind == REFINE_DISTURBED, dy = y->kind == REFINE_DISTURBED;
	if (dx != dy)
		return dy - dx;
	if (dx && x->core_hours != y->core_hours)
		return x->core_hours < y->core_hours ? -1 : 1;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->from != y->from)
		return x->from - y->from;
	return x->rep - y->rep;
}

int refine_loop_probe(struct refine_result *r, int njudged, double spent)
{
	int nd = 0, n = r->nproposals + r->ndropped;
	for (int i = 0; i < r->nproposals; i++)
		nd += r->proposals[i].kind == REFINE_DISTURBED;
	if (!nd)
		return 0;
	qsort(r->proposals, (size_t)r->nproposals, sizeof(*r->proposals), cmp_probe);
	int want = (int)fmax(REFINE_LOOP_PROBE_MIN, ceil(REFINE_LOOP_PROBE_SHARE * njudged)), keep = 0;
	double used = 0, cap = REFINE_LOOP_PROBE_SHARE * spent;
	while (keep < nd && keep < want &&
	       (keep < REFINE_LOOP_SHARED_MIN || used + r->proposals[keep].core_hours <= cap * (1 + 1e-9)))
		used += r->proposals[keep++].core_hours;
	r->nproposals = keep;
	r->ndropped = n - keep;
	r->dropped = r->proposals + keep;
	r->used = used;
	return nd;
}

/* "2 contention, 1 false-dependency": the blocking flags of a verdict. */
static void blocking_kinds(const struct validation *v, char *buf, size_t n)
{
	int count[VFLAG_NKINDS] = { 0 };
	for (int i = 0; i < v->nflags; i++)
		if (v->flags[i].blocking && v->flags[i].kind >= 0 && v->flags[i].kind < VFLAG_NKINDS)
			count[v->flags[i].kind]++;
	size_t off = 0;
	buf[0] = '\0';
	for (int k = 0; k < VFLAG_NKINDS && off < n; k++)
		if (count[k])
			off += (size_t)snprintf(buf + off, n - off, "%s%d %s", off ? ", " : "", count[k],
						vflag_kind_name((enum vflag_kind)k));
}

/* The loop's memory between rounds: the reruns of disturbed runs it wrote last. */
struct loop_state {
	long long *reruns;
	int nreruns;
	int probing;            /* they were a probe of a shared machine */
	int probe_done;         /* a probe came back mostly undisturbed: no more probes */
};

/* The disturbed check of rc's verdict, or NULL. */
static const struct disturbed_result *verdict_disturbed(const struct refine_campaign *rc)
{
	const struct run_usage *u = rc->cv.in.src.usage;
	return rc->cv.validated && u && u->disturbed.njudged ? &u->disturbed : NULL;
}

/*
 * "4 of 4 reruns of disturbed runs were disturbed again (run 45: rank 0 CPU
 * share 0.49 of 1; ...)": the foreign load, as the disturbed result names it.
 */
static void shared_why(struct refine_loop *L, const struct refine_loop_round *r,
		       const struct disturbed_result *res, const struct loop_state *ls)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%d of %d reruns of disturbed runs were disturbed again (", r->reruns_disturbed, r->reruns);
	/*
	 * THE FOREIGN LOAD, NAMED.  i41a's struct disturbed_run gains causes
	 * (pid, comm, core, share of the run's wall time, sorted by share):
	 * once it lands, name them here ("pid 4242 (busy) ran on core 0 for
	 * 51% of the run"); until then, what the result offers: the rank and
	 * the figure that made each run disturbed.
	 */
	for (int i = 0, k = 0; i < res->n; i++) {
		if (!listed(res->runs[i].run, ls->reruns, ls->nreruns))
			continue;
		if (k++ == 3) {
			strbuf_addstr(&sb, "; ...");
			break;
		}
		strbuf_addf(&sb, "%srun %lld: ", k > 1 ? "; " : "", res->runs[i].run);
		disturbed_reason(&sb, res, &res->runs[i]);
	}
	strbuf_addstr(&sb, "); nothing more is measured: wait for a quiet machine or use an exclusive node");
	snprintf(L->why, sizeof(L->why), "%s", sb.buf);
	strbuf_release(&sb);
}

/* Why the loop stops after this round's verdict, or -1 to go on. */
static int stop_after(struct refine_loop *L, const struct refine_campaign *rc, const struct runner_stats *s,
		      int round, int max_rounds, const struct loop_state *ls)
{
	const struct refine_loop_round *r = &L->rounds[round - 1];
	int accuracy_left = 0;
	for (int i = 0; i < rc->r.nproposals; i++)
		accuracy_left |= rc->r.proposals[i].kind == REFINE_ACCURACY;
	if (rc->publishable && (!accuracy_left || round >= max_rounds))
		return LOOP_PUBLISHABLE;
	if (!rc->cv.validated) {   /* no verdict at all: never "publishable" */
		snprintf(L->why, sizeof(L->why), "no run is done, so there is nothing to validate; "
			 "perfsweep status names why the runs failed");
		return LOOP_UNMEASURED;
	}
	if (r->reruns && refine_loop_shared(r->reruns, r->reruns_disturbed)) {
		shared_why(L, r, verdict_disturbed(rc), ls);
		return LOOP_SHARED;
	}
	if (s->budget_stopped) {
		snprintf(L->why, sizeof(L->why), "the run engine stopped at the budget");
		return LOOP_BUDGET;
	}
	if (!rc->r.nproposals && rc->r.ndropped) {
		snprintf(L->why, sizeof(L->why), "%d proposal%s over the %.4g core-hours remaining",
			 rc->r.ndropped, rc->r.ndropped == 1 ? "" : "s", rc->r.remaining);
		return LOOP_BUDGET;
	}
	if (!rc->r.nproposals) {
		char kinds[384];
		blocking_kinds(&rc->cv.v, kinds, sizeof(kinds));
		snprintf(L->why, sizeof(L->why), "%s", kinds[0] ? kinds : "no actionable finding");
		return LOOP_UNFIXABLE;
	}
	/* with runs still to propose, the loop stops only for lack of progress or rounds */
	if (round >= 3 && r->blocking >= L->rounds[round - 3].blocking) {
		snprintf(L->why, sizeof(L->why), "%d blocking flags, %d two rounds ago", r->blocking,
			 L->rounds[round - 3].blocking);
		return LOOP_NO_PROGRESS;
	}
	if (round >= max_rounds) {
		snprintf(L->why, sizeof(L->why), "%d round%s (--rounds)", max_rounds, max_rounds == 1 ? "" : "s");
		return LOOP_ROUNDS;
	}
	return -1;
}

static void note_round(struct refine_loop *L, int round, const struct refine_campaign *rc, struct store *st)
{
	XGROW(L->rounds, (size_t)L->nrounds + 1, L->rounds_alloc);
	struct refine_loop_round *r = &L->rounds[L->nrounds++];
	memset(r, 0, sizeof(*r));
	r->round = round;
	r->validated = rc->cv.validated;
	r->blocking = rc->cv.validated ? rc->cv.v.nblocking : 0;
	r->nfindings = rc->nfindings;
	struct store_counts c;
	struct perr err;
	if (!store_counts(st, &c, &err))
		r->spent = c.core_hours_spent;
}

/* This round's reruns of the last round's disturbed runs: how many came back disturbed. */
static void judge_reruns(struct refine_loop_round *r, const struct refine_campaign *rc, struct loop_state *ls)
{
	const struct disturbed_result *res = verdict_disturbed(rc);
	if (!ls->nreruns || !res)
		return;
	r->reruns = ls->nreruns;
	r->reruns_disturbed = refine_loop_disturbed_again(res, ls->reruns, ls->nreruns);
	if (ls->probing && !refine_loop_shared(r->reruns, r->reruns_disturbed))
		ls->probe_done = 1;
}

/* Write what refine proposes for the next round (a probe, on a shared machine); remember its reruns. */
static int write_round(struct refine_loop_round *r, struct refine_campaign *rc, struct store *st,
		       struct loop_state *ls, struct perr *err)
{
	r->ndropped = rc->r.ndropped;
	const struct disturbed_result *res = verdict_disturbed(rc);
	if (res && rc->cv.v.disturbed.shared && !ls->probe_done)
		r->probe_of = refine_loop_probe(&rc->r, res->njudged, r->spent);
	free(ls->reruns);
	ls->reruns = NULL;
	ls->probing = r->probe_of > 0;
	if (refine_campaign_write_kind(rc, st, &r->runs_added, REFINE_DISTURBED, &ls->reruns, &ls->nreruns, err))
		return -1;
	r->core_hours_added = rc->r.used;
	for (int i = 0; i < rc->r.nproposals; i++)
		r->kinds[rc->r.proposals[i].kind]++;
	return 0;
}

int refine_loop_run(struct refine_loop *L, struct store *st, const char *dir,
		    const struct campaign_config *cfg, struct backend *b, const struct runner_options *ro,
		    const struct refine_loop_options *o, struct perr *err)
{
	memset(L, 0, sizeof(*L));
	struct refine_campaign_options ro2;
	struct loop_state ls = { NULL, 0, 0, 0 };
	int ret = 0;
	memset(&ro2, 0, sizeof(ro2));
	ro2.budget = -1;
	ro2.max_repetitions = cfg->repetitions_target > 0 ? cfg->repetitions_max : 0;
	ro2.accuracy = o->accuracy;
	validate_options_init(&ro2.vo.vo);
	ro2.vo.campaign_deps = 1;
	for (int round = 1; !ret; round++) {
		int passes;
		struct runner_stats s;
		if (campaign_execute(st, cfg, b, ro, &s, &passes, err)) {
			ret = -1;
			break;
		}
		runner_stats_add(&L->stats, &s);
		if (s.interrupted) {
			L->stop = LOOP_INTERRUPTED;
			break;
		}
		struct refine_campaign rc;
		if (refine_campaign_propose(&rc, dir, &ro2, err)) {
			refine_campaign_release(&rc);
			ret = -2;
			break;
		}
		note_round(L, round, &rc, st);
		struct refine_loop_round *r = &L->rounds[L->nrounds - 1];
		judge_reruns(r, &rc, &ls);
		int stop = stop_after(L, &rc, &s, round, o->max_rounds, &ls);
		if (stop < 0 && write_round(r, &rc, st, &ls, err))
			ret = -2;
		refine_campaign_release(&rc);
		if (!ret && o->on_round)
			o->on_round(o->ctx, r);
		if (stop >= 0) {
			L->stop = (enum refine_loop_stop)stop;
			break;
		}
	}
	free(ls.reruns);
	struct store_counts c;
	if (!ret && !store_counts(st, &c, err)) {
		L->spent = c.core_hours_spent;
		L->done = c.done;
	}
	return ret;
}

void refine_loop_release(struct refine_loop *L)
{
	free(L->rounds);
	memset(L, 0, sizeof(*L));
}
