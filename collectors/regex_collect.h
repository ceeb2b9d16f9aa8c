/*
 * The regex collector: POSIX extended patterns over a run's stdout or
 * stderr, each capturing one number into a named region and metric.  Rank 0
 * (or the only process) writes `stdout`/`stderr`, other ranks
 * `rank-<r>.stdout`/`.stderr`; each file's value is stored for its rank.
 * With `file`, the pattern reads that one file of the run directory instead
 * (an application's own result file, e.g. HPCC's hpccoutf.txt), stored as
 * rank 0; a missing file is a collection error naming it.
 * A pattern that matches nothing is a collection error, never a zero.
 * Patterns are compiled with REG_EXTENDED | REG_NEWLINE: `^` and `$` match
 * at the start and end of every line, and `.` or `[^...]` never match a
 * newline, so a pattern never spans lines.
 */
#ifndef PS_REGEX_COLLECT_H
#define PS_REGEX_COLLECT_H
#include "collectors/measurement.h"
#include "common/error.h"
#include <regex.h>
#include <stddef.h>

struct regex_pattern {
	char *region, *metric;
	char *pattern;              /* POSIX extended regex, capture group 1 is the number */
	char *stream;               /* "stdout" or "stderr" */
	char *file;                 /* a file in the run directory instead of stream, or NULL */
	char *aggregate;            /* several matches in one file: "last", "first", "sum", "mean", "max", "min" */
};

/*
 * Compile a collector pattern the one way every caller does (the config
 * check and the collector): REG_EXTENDED | REG_NEWLINE.  0, or -1 with
 * regerror's message in msg (re is then not to be freed).
 */
int regex_compile(regex_t *re, const char *pattern, char *msg, size_t n);

/* Is this a valid aggregate name? */
int regex_aggregate_valid(const char *name);

/*
 * Is this a valid `file` setting: a relative path inside the run directory
 * (no leading '/', no '..' component, no empty or control characters)?
 * Returns 1, or 0 with *why set to a static reason.
 */
int regex_file_valid(const char *file, const char **why);

/*
 * Apply every pattern to the run's output files.  Adds the values to out.
 * Returns 0; *collect_error (caller frees) names the patterns that never
 * matched, or stays NULL; missed (npats entries, or NULL) gets 1 for each
 * pattern that matched nothing, 0 for the others.  -1 with err only for an
 * invalid pattern.
 */
int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  struct measurement_list *out, char **collect_error, unsigned char *missed,
		  struct perr *err);

#endif
