/*
 * The run-state machine: the one table of what may happen to a run.
 *
 *   pending --submit--> submitted --start--> running
 *   submitted | running --done--> done,  --fail--> failed,
 *                       --requeue--> pending (an attempt that is run again:
 *                                    a retry, an orchestrator that died)
 *   pending | submitted | running --cancel--> cancelled
 *   failed --reopen--> pending       (an explicit retry only)
 *   done --recollect--> done
 *   any but retired --retire--> retired --unretire--> the state it had
 *   retired (was in flight) --settle--> retired (as if it had been pending)
 *
 * done, failed and cancelled are final: nothing but an explicit retry
 * (reopen), a re-collection or the plan (retire) changes them.  A report
 * that arrives after a cancel is refused, never applied over it.  Every
 * transition of the store goes through run_transition (campaign/store.c).
 */
#ifndef PS_RUN_STATE_H
#define PS_RUN_STATE_H

enum run_state {
	RUN_PENDING,
	RUN_SUBMITTED,
	RUN_RUNNING,
	RUN_DONE,
	RUN_FAILED,
	RUN_CANCELLED,
	RUN_RETIRED,            /* left the plan (store_grow): kept, never run, not analysed */
	RUN_NSTATES
};

enum run_action {
	RUN_ACT_SUBMIT,          /* the backend took it (or an attempt that could not start) */
	RUN_ACT_START,           /* it runs (repeated reports are harmless) */
	RUN_ACT_DONE,
	RUN_ACT_FAIL,            /* failed for good */
	RUN_ACT_REQUEUE,         /* in flight, back to pending: run again */
	RUN_ACT_CANCEL,
	RUN_ACT_REOPEN,          /* an explicit retry of a failed run */
	RUN_ACT_RECOLLECT,
	RUN_ACT_RETIRE,
	RUN_ACT_UNRETIRE,
	RUN_ACT_SETTLE,
	RUN_NACTIONS
};

const char *run_state_name(enum run_state s);
/* Returns the state, or -1 for an unknown name. */
int run_state_parse(const char *name);
/* "submit it", "cancel it", ...: what a refusal says it cannot do */
const char *run_action_name(enum run_action act);

/*
 * The state a run in state from goes to on act, or -1 when the machine
 * refuses it.  retired_from is the state a retired run had (unretire
 * returns it there; ignored otherwise).
 */
int run_transition(enum run_state from, enum run_action act, enum run_state retired_from);

/* Live: pending, submitted or running (cancel can still stop it). */
int run_is_live(enum run_state s);
/* In flight: submitted or running (a job or process may exist). */
int run_is_in_flight(enum run_state s);
/* Final: done, failed or cancelled. */
int run_is_final(enum run_state s);

/*
 * The one bound on how often a run starts.  Every start is an attempt (the
 * store's attempts, counted at submit).  After an attempt that failed of
 * the program's own doing (an exit status, a signal, its timeout) the run
 * starts again while attempts < max_attempts; after one that ended without
 * a result through no fault of the program (no_fault: its supervisor or
 * node killed, the job lost or preempted, an orchestrator that died, a run
 * directory removed under it) while attempts < max_attempts +
 * RUN_FREE_ATTEMPTS.  Past that the run fails for good: nothing starts a
 * run again without bound.  An explicit retry (reopen) gives a failed run
 * one more attempt.
 */
#define RUN_FREE_ATTEMPTS 8
int run_may_start_again(int attempts, int max_attempts, int no_fault);

#endif
