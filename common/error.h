/*
 * Error reasons.  Library code never prints or exits: a failing function
 * fills a struct perr and returns -1; only the CLI tells the user.
 * Messages follow git's style: lower case, no full stop, the problem first,
 * the subject quoted, and for input files "FILE:LINE: message".
 *
 * A caller that must tell one error from another reads its kind, never its
 * text: perr_set leaves PERR_GENERIC, perr_set_kind names a kind, and
 * perr_prefix keeps it.  A kind is added only where some caller branches
 * on it (each says who).
 */
#ifndef PS_ERROR_H
#define PS_ERROR_H

enum perr_kind {
	PERR_GENERIC = 0,       /* nothing a caller tells apart */
	PERR_NOT_FOUND,         /* none of what was asked for is there: a folder without
	                           Score-P experiments (analysis/input.c tries another reading) */
	PERR_COST_MODEL,        /* the cost model cannot be read or prices a point badly
	                           (orchestrator/plan_build.c points at cost_model) */
	PERR_BUDGET,            /* the budget cannot be met or priced (plan_build: at budget) */
	PERR_BACKEND,           /* the backend's own settings: no such partition, no MPI
	                           launcher (plan_build: at backend, not at the placement) */
	PERR_PARAMETERS,        /* the parameters: one added or gone from a stored campaign
	                           (campaign/campaign_diff.c: at parameters, not placement) */
};

/* Zero it ({ 0 }) where its message is read without a failure before. */
struct perr {
	enum perr_kind kind;
	char msg[1024];
};

/* Set the reason (printf-style), of kind PERR_GENERIC, and return -1, so:
   return perr_set(e, ...). */
int perr_set(struct perr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a kind for callers that branch on it. */
int perr_set_kind(struct perr *e, enum perr_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix an existing reason: "PREFIX: old reason"; the kind stays.  Returns -1. */
int perr_prefix(struct perr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
