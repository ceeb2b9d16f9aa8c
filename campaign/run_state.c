/* The run-state machine's one table (run_state.h). */
#include "campaign/run_state.h"
#include <string.h>

static const char *const state_names[RUN_NSTATES] = {
	"pending", "submitted", "running", "done", "failed", "cancelled", "retired",
};

static const char *const action_names[RUN_NACTIONS] = {
	"submit it", "start it", "mark it done", "mark it failed", "run it again", "cancel it",
	"retry it", "re-collect it", "retire it", "bring it back", "settle it",
};

#define P (1 << RUN_PENDING)
#define S (1 << RUN_SUBMITTED)
#define R (1 << RUN_RUNNING)
#define D (1 << RUN_DONE)
#define F (1 << RUN_FAILED)
#define C (1 << RUN_CANCELLED)
#define X (1 << RUN_RETIRED)

/* For each action: the states it may leave, and the state it reaches (-1:
   see run_transition). */
static const struct {
	int from;
	int to;
} table[RUN_NACTIONS] = {
	[RUN_ACT_SUBMIT]    = { P,             RUN_SUBMITTED },
	[RUN_ACT_START]     = { S | R,         RUN_RUNNING },
	[RUN_ACT_DONE]      = { S | R,         RUN_DONE },
	[RUN_ACT_FAIL]      = { S | R,         RUN_FAILED },
	[RUN_ACT_REQUEUE]   = { S | R,         RUN_PENDING },
	[RUN_ACT_CANCEL]    = { P | S | R,     RUN_CANCELLED },
	[RUN_ACT_REOPEN]    = { F,             RUN_PENDING },
	[RUN_ACT_RECOLLECT] = { D,             RUN_DONE },
	[RUN_ACT_RETIRE]    = { P | S | R | D | F | C, RUN_RETIRED },
	[RUN_ACT_UNRETIRE]  = { X,             -1 },
	[RUN_ACT_SETTLE]    = { X,             RUN_RETIRED },
};

const char *run_state_name(enum run_state s)
{
	return ((int)s >= 0 && s < RUN_NSTATES) ? state_names[s] : "unknown";
}

int run_state_parse(const char *name)
{
	for (int i = 0; i < RUN_NSTATES; i++)
		if (!strcmp(state_names[i], name))
			return i;
	return -1;
}

const char *run_action_name(enum run_action act)
{
	return ((int)act >= 0 && act < RUN_NACTIONS) ? action_names[act] : "change";
}

int run_transition(enum run_state from, enum run_action act, enum run_state retired_from)
{
	if ((int)from < 0 || from >= RUN_NSTATES || (int)act < 0 || act >= RUN_NACTIONS ||
	    !(table[act].from & (1 << from)))
		return -1;
	if (act == RUN_ACT_UNRETIRE)
		return ((int)retired_from >= 0 && retired_from < RUN_RETIRED) ? (int)retired_from : -1;
	if (act == RUN_ACT_SETTLE)   /* only a run retired while in flight */
		return run_is_in_flight(retired_from) ? RUN_RETIRED : -1;
	return table[act].to;
}

int run_is_live(enum run_state s)
{
	return s == RUN_PENDING || s == RUN_SUBMITTED || s == RUN_RUNNING;
}

int run_is_in_flight(enum run_state s)
{
	return s == RUN_SUBMITTED || s == RUN_RUNNING;
}

int run_is_final(enum run_state s)
{
	return s == RUN_DONE || s == RUN_FAILED || s == RUN_CANCELLED;
}

int run_may_start_again(int attempts, int max_attempts, int no_fault)
{
	return attempts < max_attempts + (no_fault ? RUN_FREE_ATTEMPTS : 0);
}
