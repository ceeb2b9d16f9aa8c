/*
 * The end note of a local run: runs/<id>/local.end, JSON the local
 * backend's per-run supervisor writes atomically once it has waited for
 * every rank (wait4):
 *
 *   {"attempt": 2, "exit": 0, "signal": 0, "timed_out": false, "timeout": 120,
 *    "error": null, "ranks": 2, "started": 1795643893.47, "ended": 1795643894.52,
 *    "wall": 1.05, "utime": 2.03, "stime": 0.04, "maxrss_kb": 51200,
 *    "nvcsw": 12, "nivcsw": 40}
 *
 * started and ended are Unix seconds, wall comes from a monotonic clock;
 * utime and stime are seconds summed over the ranks, maxrss_kb the largest
 * rank's, the context switches summed.  This reader is what the run engine
 * stores as the run's whole-run resource record (rank -1).
 */
#ifndef PS_LOCAL_END_H
#define PS_LOCAL_END_H
#include "common/error.h"

#define LOCAL_END_FILE "local.end"

struct local_end {
	int attempt;                /* 0 when the note does not say */
	int exit_status, signal, timed_out;
	double timeout;             /* seconds, 0 when none */
	char *error;                /* NULL when none */
	int ranks;                  /* 0 when the note does not say */
	double started, ended, wall;    /* NaN when the note does not say */
	double utime, stime;        /* NaN when the note does not say */
	long long maxrss_kb, nvcsw, nivcsw;     /* -1 when the note does not say */
};

/*
 * Read run_dir's end note.  Returns 0 (le filled), 1 when there is none,
 * -1 when it does not parse or is no such note (err names the file).
 * Release le with local_end_release after 0.
 */
int local_end_read(const char *run_dir, struct local_end *le, struct perr *err);
void local_end_release(struct local_end *le);

#endif
