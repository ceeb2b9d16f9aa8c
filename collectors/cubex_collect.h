/*
 * The campaign collector "cubex": after a run of a Score-P-instrumented
 * application (SCOREP_EXPERIMENT_DIRECTORY=<run_dir>/scorep, set by the run
 * engine), read its profile and turn it into measurements: per call path
 * and selected metric, the mean over ranks, stored with rank -1.
 */
#ifndef PS_CUBEX_COLLECT_H
#define PS_CUBEX_COLLECT_H
#include "collectors/measurement.h"
#include "common/error.h"

/* The Score-P experiment directory of a run: <run_dir>/scorep. */
#define CUBEX_SCOREP_SUBDIR "scorep"

/*
 * Read the profile of run_dir (<run_dir>/scorep/profile.cubex, else the one
 * .cubex file there, else <run_dir>/profile.cubex or the one .cubex file
 * in run_dir itself, so the experiment directory may be passed too) and
 * append its measurements to out.  Implemented in cubex_collect.c on top of
 * the reader (cubex.h); the run engine calls it directly when a campaign
 * selects the collector.  metrics NULL (or nmetrics 0) selects "time" and
 * "visits".  Returns 0, or -1 with err naming the file and the problem.
 */
int collect_cubex(const char *run_dir, char *const *metrics, int nmetrics, struct measurement_list *out,
		  struct perr *err);

/*
 * The .cubex files of dir (names not starting with '.'), as "dir/name",
 * sorted by name; *out is an array of *n strings, all of which the caller
 * frees.  -1 (and none) when dir cannot be read.
 */
int cubex_list_profiles(const char *dir, char ***out, int *n);

/* The profile path collect_cubex would read (caller frees), or NULL. */
char *cubex_find_profile(const char *run_dir);

#endif
