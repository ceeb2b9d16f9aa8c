/*
 * Watching the budget while a campaign runs: the plan's budget and its
 * allowed overrun are stored with the campaign (meta budget_core_hours,
 * budget_overrun); before each start the run engine asks whether spent +
 * in-flight estimate + the next run would pass budget x (1 + overrun).
 * Runs already running are never stopped for it.
 */
#ifndef PS_BUDGET_WATCH_H
#define PS_BUDGET_WATCH_H
#include "campaign/store.h"
#include <stddef.h>

struct budget_watch {
	double budget;          /* core hours; <= 0: no budget, nothing to watch */
	double overrun;         /* allowed fraction above it (default 0.1) */
};

/* Read the stored budget (none for a campaign without one). */
void budget_watch_init(struct budget_watch *w, struct store *st);
/*
 * 0: a run costing next core hours may start; 1: it would overrun, why
 * says by how much; -1: the store could not be read (err).
 */
int budget_watch_check(const struct budget_watch *w, struct store *st, double next, char *why,
		       size_t n, struct perr *err);

#endif
