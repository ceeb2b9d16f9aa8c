/* The refine loop (refine_loop.h). */
#include "refine/refine_loop.h"
#include "common/xalloc.h"
#include "orchestrator/adaptive.h"
#include "refine/refine_campaign.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stop_names[] = {
	"publishable", "budget spent", "no progress", "findings no run can fix", "rounds done",
	"interrupted",
};

const char *refine_loop_stop_name(enum refine_loop_stop s)
{
	return (int)s >= 0 && s <= LOOP_INTERRUPTED ? stop_names[s] : "?";
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

/* Why the loop stops after this round's verdict, or -1 to go on. */
static int stop_after(struct refine_loop *L, const struct refine_campaign *rc,
		      const struct runner_stats *s, int round, int max_rounds)
{
	const struct refine_loop_round *r = &L->rounds[round - 1];
	int accuracy_left = 0;
	for (int i = 0; i < rc->r.nproposals; i++)
		accuracy_left |= rc->r.proposals[i].kind == REFINE_ACCURACY;
	if (rc->publishable && (!accuracy_left || round >= max_rounds))
		return LOOP_PUBLISHABLE;
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
	r->blocking = rc->cv.validated ? rc->cv.v.nblocking : 0;
	r->nfindings = rc->nfindings;
	struct store_counts c;
	struct perr err;
	if (!store_counts(st, &c, &err))
		r->spent = c.core_hours_spent;
}

int refine_loop_run(struct refine_loop *L, struct store *st, const char *dir,
		    const struct campaign_config *cfg, struct backend *b, const struct runner_options *ro,
		    const struct refine_loop_options *o, struct perr *err)
{
	memset(L, 0, sizeof(*L));
	struct refine_campaign_options ro2;
	memset(&ro2, 0, sizeof(ro2));
	ro2.budget = -1;
	ro2.max_repetitions = cfg->repetitions_target > 0 ? cfg->repetitions_max : 0;
	ro2.accuracy = o->accuracy;
	validate_options_init(&ro2.vo.vo);
	ro2.vo.campaign_deps = 1;
	for (int round = 1;; round++) {
		int passes;
		struct runner_stats s;
		if (campaign_execute(st, cfg, b, ro, &s, &passes, err))
			return -1;
		runner_stats_add(&L->stats, &s);
		if (s.interrupted) {
			L->stop = LOOP_INTERRUPTED;
			break;
		}
		struct refine_campaign rc;
		if (refine_campaign_propose(&rc, dir, &ro2, err)) {
			refine_campaign_release(&rc);
			return -2;
		}
		note_round(L, round, &rc, st);
		int stop = stop_after(L, &rc, &s, round, o->max_rounds);
		if (stop < 0) {
			struct refine_loop_round *r = &L->rounds[L->nrounds - 1];
			if (refine_campaign_write(&rc, st, &r->runs_added, err)) {
				refine_campaign_release(&rc);
				return -2;
			}
			r->core_hours_added = rc.r.used;
			r->ndropped = rc.r.ndropped;
			for (int i = 0; i < rc.r.nproposals; i++)
				r->kinds[rc.r.proposals[i].kind]++;
		}
		refine_campaign_release(&rc);
		if (o->on_round)
			o->on_round(o->ctx, &L->rounds[L->nrounds - 1]);
		if (stop >= 0) {
			L->stop = (enum refine_loop_stop)stop;
			break;
		}
	}
	struct store_counts c;
	if (!store_counts(st, &c, err)) {
		L->spent = c.core_hours_spent;
		L->done = c.done;
	}
	return 0;
}

void refine_loop_release(struct refine_loop *L)
{
	free(L->rounds);
	memset(L, 0, sizeof(*L));
}
