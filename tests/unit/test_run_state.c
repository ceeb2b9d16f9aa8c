/*
 * The run-state machine (campaign/run_state.h) and the store's guarded
 * transitions: every (state, action) pair against the table written out
 * here by hand from the documented diagram, and, on a real SQLite store,
 * the race that made `make check` flaky: a report that arrives after a
 * cancel is refused and the run stays cancelled.
 */
#include "campaign/run_state.h"
#include "campaign/store.h"
#include "tests/lib/tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documented machine, one row per action: the states it may leave. */
static const char *const allowed[RUN_NACTIONS] = {
	[RUN_ACT_SUBMIT] = "pending",
	[RUN_ACT_START] = "submitted running",
	[RUN_ACT_DONE] = "submitted running",
	[RUN_ACT_FAIL] = "submitted running",
	[RUN_ACT_REQUEUE] = "submitted running",
	[RUN_ACT_CANCEL] = "pending submitted running",
	[RUN_ACT_REOPEN] = "failed",
	[RUN_ACT_RECOLLECT] = "done",
	[RUN_ACT_RETIRE] = "pending submitted running done failed cancelled",
	[RUN_ACT_UNRETIRE] = "retired",
	[RUN_ACT_SETTLE] = "retired",
};

static int listed(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

static void table(void)
{
	int bad = 0;
	for (int a = 0; a < RUN_NACTIONS; a++)
		for (int s = 0; s < RUN_NSTATES; s++) {
			int to = run_transition((enum run_state)s, (enum run_action)a, RUN_RUNNING);
			int want = listed(allowed[a], run_state_name((enum run_state)s));
			if ((to >= 0) != want) {
				diag("%s from %s: got %d", run_action_name((enum run_action)a),
				     run_state_name((enum run_state)s), to);
				bad++;
			}
		}
	is_int(bad, 0, "every (state, action) pair is allowed exactly as documented");
	is_int(run_transition(RUN_RETIRED, RUN_ACT_UNRETIRE, RUN_DONE), RUN_DONE,
	       "a retired run comes back to the state it had");
	is_int(run_transition(RUN_RETIRED, RUN_ACT_SETTLE, RUN_PENDING), -1,
	       "only a run retired in flight is settled");
	int finals = 0;
	for (int s = 0; s < RUN_NSTATES; s++)
		for (int a = 0; a < RUN_NACTIONS; a++)
			if (run_is_final((enum run_state)s) && a != RUN_ACT_RETIRE && a != RUN_ACT_REOPEN &&
			    a != RUN_ACT_RECOLLECT && run_transition((enum run_state)s, (enum run_action)a, 0) >= 0)
				finals++;
	is_int(finals, 0, "done, failed and cancelled change only by retry, re-collection or the plan");
	ok(run_is_live(RUN_PENDING) && run_is_live(RUN_RUNNING) && !run_is_live(RUN_DONE) &&
	   !run_is_live(RUN_RETIRED), "live: pending, submitted, running");
	ok(!run_is_in_flight(RUN_PENDING) && run_is_in_flight(RUN_SUBMITTED) && run_is_in_flight(RUN_RUNNING),
	   "in flight: submitted, running");
}

static struct store *make_store(const char *dir)
{
	static double n[] = { 1, 2, 3 };
	static struct plan_param params[] = { { "n", NULL, 3, n, 1 } };
	struct design_spec spec = { .nparams = 1, .params = params, .repetitions = 1 };
	struct plan pl;
	struct store *st = NULL;
	struct perr err;
	if (plan_full_factorial(&pl, &spec, &err))
		diag("plan: %s", err.msg);
	else if (store_create(&st, dir, "sm", "local", "", &pl, &err))
		diag("store_create: %s", err.msg);
	plan_release(&pl);
	return st;
}

static int state_of(struct store *st, long long id)
{
	struct run r;
	struct perr err;
	if (store_load_run(st, id, &r, &err))
		return -1;
	int s = r.state;
	run_release(&r);
	return s;
}

static void races(void)
{
	char *dir = NULL;
	if (asprintf(&dir, "%s/sm.campaign", tap_tmpdir()) < 0)
		abort();
	struct store *st = make_store(dir), *other;
	struct perr err;
	ok(st != NULL, "a real store");
	if (!st)
		return;
	is_int(store_open(&other, dir, 0, &err), 0, "a second writer connection (perfsweep cancel)");

	/* run 1: submitted and running, then cancelled from outside */
	store_mark_submitted(st, 1, "100:1", 10, &err);
	int was = -1;
	char *bid = NULL;
	is_int(store_cancel_run(other, 1, 11, "by user", &was, &bid, &err), 0, "cancel a submitted run");
	is_int(was, RUN_SUBMITTED, "cancel says what it was");
	is_str(bid, "100:1", "and which job to kill, read in the same transaction");
	free(bid);
	is_int(store_mark_running(st, 1, 12, &err), 1, "a late 'running' report is refused");
	is_int(state_of(st, 1), RUN_CANCELLED, "the run stays cancelled");
	is_int(store_mark_failed(st, 1, 13, 143, 3, "killed by signal 15", 1, &err), 1,
	       "the killed job's failure is refused, not retried");
	struct measurement_list ml;
	measurement_list_init(&ml);
	measurement_list_add(&ml, -1, "main", "time", 1);
	is_int(store_mark_done(st, 1, 13, 0, 3, &ml, NULL, &err), 1, "and so is a success");
	is_int(state_of(st, 1), RUN_CANCELLED, "still cancelled");
	struct measurement_list got;
	measurement_list_init(&got);
	store_load_measurements(st, 1, &got, &err);
	is_int(got.n, 0, "no value stored for a cancelled run");
	measurement_list_release(&got);

	/* run 2: cancelled while the engine was starting it */
	is_int(store_cancel_run(other, 2, 20, "by user", &was, &bid, &err), 0, "cancel a pending run");
	ok(was == RUN_PENDING && bid == NULL, "it had nothing in flight");
	free(bid);
	is_int(store_mark_submitted(st, 2, "200:1", 21, &err), 1,
	       "recording the start of a cancelled run is refused (the engine stops its job)");
	is_int(state_of(st, 2), RUN_CANCELLED, "run 2 stays cancelled");

	/* run 3: finished, then a cancel arrives */
	store_mark_submitted(st, 3, "300:1", 30, &err);
	store_mark_done(st, 3, 31, 0, 1, &ml, NULL, &err);
	is_int(store_cancel_run(other, 3, 32, "by user", &was, NULL, &err), 1, "a done run cannot be cancelled");
	is_int(was, RUN_DONE, "and cancel is told it is done");
	is_int(store_retry_run(other, 3, "again", &err), 1, "an explicit retry reopens only failed runs");
	is_int(store_mark_pending(st, 3, "again", &err), 1, "a done run is never requeued");
	is_int(state_of(st, 3), RUN_DONE, "run 3 stays done");
	measurement_list_release(&ml);
	store_close(other);
	store_close(st);
	free(dir);
}

/* The one bound on attempts: the program's own failures at max_attempts,
   attempts that ended without a result RUN_FREE_ATTEMPTS later. */
static void attempts(void)
{
	is_int(run_may_start_again(1, 2, 0), 1, "a failure after 1 of 2 attempts: again");
	is_int(run_may_start_again(2, 2, 0), 0, "a failure after 2 of 2 attempts: failed for good");
	is_int(run_may_start_again(2, 2, 1), 1, "killed mid-way after 2 of 2 attempts: again");
	is_int(run_may_start_again(2 + RUN_FREE_ATTEMPTS - 1, 2, 1), 1, "up to max_attempts + 8 - 1 attempts: again");
	is_int(run_may_start_again(2 + RUN_FREE_ATTEMPTS, 2, 1), 0, "after max_attempts + 8: never again");
}

int main(void)
{
	table();
	races();
	attempts();
	return done_testing();
}
