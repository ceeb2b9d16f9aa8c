/* The budget the run engine watches before it starts each run. */
#include "orchestrator/budget_watch.h"
#include <stdio.h>
#include <stdlib.h>

static double meta_number(struct store *st, const char *key, double dflt)
{
	char *v = store_get_meta(st, key), *end = NULL;
	double x = v ? strtod(v, &end) : dflt;
	if (v && end == v)
		x = dflt;
	free(v);
	return x;
}

void budget_watch_init(struct budget_watch *w, struct store *st)
{
	w->budget = meta_number(st, "budget_core_hours", 0);
	w->overrun = meta_number(st, "budget_overrun", 0.1);
	if (w->overrun < 0)
		w->overrun = 0;
}

int budget_watch_check(const struct budget_watch *w, struct store *st, double next, char *why,
		       size_t n, struct perr *err)
{
	if (w->budget <= 0)
		return 0;
	struct store_counts c;
	if (store_counts(st, &c, err) < 0)
		return -1;
	double limit = w->budget * (1 + w->overrun);
	double would = c.core_hours_spent + c.core_hours_inflight + next;
	if (would <= limit)
		return 0;
	snprintf(why, n, "budget reached: %.4g core-hours spent + %.4g in flight + %.4g for the next run "
		 "would pass the budget of %.4g by more than %.0f%%; no new runs start",
		 c.core_hours_spent, c.core_hours_inflight, next, w->budget, w->overrun * 100);
	return 1;
}
