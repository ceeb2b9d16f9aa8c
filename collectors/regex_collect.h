/*
 * The regex collector: POSIX extended patterns over a run's stdout or
 * stderr, each capturing one number into a named region and metric.  Rank 0
 * (or the only process) writes `stdout`/`stderr`, other ranks
 * `rank-<r>.stdout`/`.stderr`; each file's value is stored for its rank.
 * A pattern that matches nothing is a collection error, never a zero.
 */
#ifndef PS_REGEX_COLLECT_H
#define PS_REGEX_COLLECT_H
#include "collectors/measurement.h"
#include "common/error.h"

struct regex_pattern {
	char *region, *metric;
	char *pattern;              /* POSIX extended regex, capture group 1 is the number */
	char *stream;               /* "stdout" or "stderr" */
	char *aggregate;            /* several matches in one file: "last", "first", "sum", "mean", "max", "min" */
};

/* Is this a valid aggregate name? */
int regex_aggregate_valid(const char *name);

/*
 * Apply every pattern to the run's output files.  Adds the values to out.
 * Returns 0; *collect_error (caller frees) names the patterns that never
 * matched, or stays NULL.  -1 with err only for an invalid pattern.
 */
int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  struct measurement_list *out, char **collect_error, struct perr *err);

#endif
