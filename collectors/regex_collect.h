/*
 * The regex collector: patterns over a run's stdout or stderr, each
 * capturing one number into a named region and metric.  Rank 0 (or the
 * only process) writes `stdout`/`stderr`, other ranks
 * `rank-<r>.stdout`/`.stderr`; each file's value is stored for its rank.
 * With `file`, the pattern reads that one file of the run directory instead
 * (an application's own result file, e.g. HPCC's hpccoutf.txt), stored as
 * rank 0; a missing file is a collection error naming it.
 * A pattern that matches nothing is a collection error, never a zero,
 * unless it is optional: then the region has no value in that run (a
 * region that exists only at some points, GROMACS's "Comm. coord." with
 * more than one rank).
 *
 * Output is read as bytes: NUL bytes and invalid UTF-8 are characters like
 * any other.  Files are opened through fs_open_beneath: regular files in
 * the run directory only, never through a symbolic link.  Each file is
 * read once, for every pattern that reads it, in reads of 64 KiB between
 * which the stop flag is looked at.
 *
 * Patterns are POSIX extended regular expressions, matched by PCRE2 (whose
 * backtracking is bounded, see struct collect_limits).  They keep
 * REG_EXTENDED | REG_NEWLINE meaning: `^` and `$` match at the start and
 * end of every line, `.` and `[^...]` never match a newline (a pattern
 * spans lines only through an explicit newline), a backslash inside
 * brackets is itself, \< and \> are word boundaries.  Where PCRE2 differs
 * (docs/config.md): the leftmost alternative wins rather than the longest
 * match, `*?`, `+?`, `??` are lazy and `*+` possessive, `\d`, `\s`, `\w` are
 * classes, `(?` starts a PCRE2 group.
 */
#ifndef PS_REGEX_COLLECT_H
#define PS_REGEX_COLLECT_H
#include "collectors/measurement.h"
#include "common/error.h"
#include <signal.h>
#include <stddef.h>

/*
 * The reserved metric a region's own CPU share goes by: the cores that
 * region kept busy (1.0 = one core the whole region), e.g. LAMMPS's
 * "98.5% CPU use" with scale = 0.01.  Analysis uses it as the ranks' CPU
 * share instead of the whole process's (start-up outside the region does
 * not count) and never models it unless asked for by name.
 */
#define REGEX_CPU_SHARE_METRIC "cpu_share"

struct regex_pattern {
	char *region, *metric;
	char *pattern;              /* POSIX extended regex, capture group 1 is the number */
	char *stream;               /* "stdout" or "stderr" */
	char *file;                 /* a file in the run directory instead of stream, or NULL */
	char *aggregate;            /* several matches in one file: "last", "first", "sum", "mean", "max", "min" */
	int optional;               /* matching nothing is no collection error: no value in that run */
	double resolution;          /* the smallest step of the value as printed, after scale (0: unknown) */
	double scale;               /* a factor applied to the captured number (0: none, as 1) */
};

/* The defaults of collect.cpu_limit (seconds) and collect.memory_limit (MiB). */
#define COLLECT_CPU_LIMIT_DEFAULT 60.0
#define COLLECT_MEMORY_LIMIT_DEFAULT 1024

/*
 * Bounds of one pattern's collection over one run's files.  Zero fields
 * take the defaults above.  Past a bound the pattern stops with a
 * collection error naming it; stop (set by a signal handler) interrupts
 * the collection within a fraction of a second.
 */
struct collect_limits {
	double cpu_seconds;             /* CPU time over the run's files */
	long memory_mb;                 /* the largest file read, and PCRE2's backtracking heap */
	const volatile sig_atomic_t *stop;  /* NULL: never interrupted */
};

/* The number of matches PCRE2 may try from one starting point: past it a
   pattern is a runaway, stopped with a collection error. */
#define REGEX_MATCH_LIMIT 1000000

/* A compiled collector pattern. */
struct regex_prog;

/*
 * Compile a collector pattern the one way every caller does (the config
 * check and the collector).  0 with *groups its capture groups, or -1 with
 * the reason in msg ("missing closing parenthesis at offset 4").
 */
int regex_prog_compile(struct regex_prog **out, const char *pattern, int *groups, char *msg, size_t n);
void regex_prog_free(struct regex_prog *re);

/*
 * All matches of re in buf[0..len) (bytes, NULs allowed), aggregated by agg
 * into *value: returns the number of matches whose group 1 is a finite
 * number, or -1 with err when a limit stopped the scan (or stop was set:
 * then *interrupted is 1).
 */
int regex_scan_mem(const struct regex_prog *re, const char *agg, const char *buf, size_t len,
		   const struct collect_limits *lim, double *value, int *interrupted, struct perr *err);

/*
 * Does re match anywhere in buf[0..len) (a sanity check: no capture
 * needed)?  1 yes, 0 no, -1 with err ("stopped at line 3 of NAME: ...")
 * when a limit stopped it.
 */
int regex_find_mem(const struct regex_prog *re, const char *buf, size_t len, const char *name,
		   const struct collect_limits *lim, struct perr *err);

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
 * matched (optional ones excepted) or were stopped by a limit, or stays
 * NULL; missed (npats entries, or NULL) gets 1 for each pattern that
 * yielded nothing and is not optional, or was stopped or refused a file,
 * 0 for the others.  Returns 1 when lim->stop interrupted it (out then
 * holds none of its values).  -1 with err only for an invalid pattern.
 */
int collect_regex(const char *run_dir, const struct regex_pattern *pats, int npats,
		  const struct collect_limits *lim, struct measurement_list *out, char **collect_error,
		  unsigned char *missed, struct perr *err);

#endif
