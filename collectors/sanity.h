/*
 * Sanity checks (collect.sanity): patterns a finished run's output must
 * contain, or it did not do what was measured ("Finished mdrun").  A
 * pattern is the regex collector's (regex_collect.h), needs no capture, and
 * is looked for in rank 0's stdout and stderr (either), in one of them, or
 * in a file of the run directory, opened as the collectors open it
 * (fs_open_beneath: a regular file inside the run directory).
 */
#ifndef PS_SANITY_H
#define PS_SANITY_H
#include "collectors/regex_collect.h"
#include "common/error.h"

struct sanity_check {
	char *pattern;
	char *stream;               /* "stdout" or "stderr"; NULL: either, unless file */
	char *file;                 /* a file of the run directory instead, or NULL */
};

/*
 * Every check over the run in run_dir: 0 when each pattern is found; 1 when
 * one is not, *why (caller frees) saying which and where
 * ("sanity check failed: \"Finished mdrun\" not found in stdout or stderr");
 * -1 with err when a pattern is invalid or a limit stopped it.
 */
int sanity_check_run(const char *run_dir, const struct sanity_check *checks, int n,
		     const struct collect_limits *lim, char **why, struct perr *err);

#endif
