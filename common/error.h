/*
 * Error reasons.  Library code never prints or exits: a failing function
 * fills a struct perr and returns -1; only the CLI tells the user.
 * Messages follow git's style: lower case, no full stop, the problem first,
 * the subject quoted, and for input files "FILE:LINE: message".
 */
#ifndef PS_ERROR_H
#define PS_ERROR_H

struct perr {
	char msg[1024];
};

/* Set the reason (printf-style) and return -1, so: return perr_set(e, ...). */
int perr_set(struct perr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix an existing reason: "PREFIX: old reason".  Returns -1. */
int perr_prefix(struct perr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
