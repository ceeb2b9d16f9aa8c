/*
 * A campaign's collectors as one set, and the one way a finished run's
 * files become measurements: the run engine calls collector_set_run after
 * each run, `perfsweep collect` calls it again over the stored files of
 * every done run.  The set only points into its owner (the config); it
 * owns nothing.
 *
 * A collector that matched nothing is named in the result: "regex
 * REGION/METRIC" for a regex pattern, "cubex" for the Score-P profile.  The
 * wall collector always finds the run's wall time and is never named.
 */
#ifndef PS_COLLECTOR_SET_H
#define PS_COLLECTOR_SET_H
#include "collectors/measurement.h"
#include "collectors/regex_collect.h"

struct collector_set {
	int wall;                           /* collect.wall */
	int nregex;
	const struct regex_pattern *regex;  /* collect.regex, defaults filled in */
	int cubex;                          /* collect.cubex */
	int ncubex_metrics;
	char *const *cubex_metrics;
	struct collect_limits limits;       /* collect.cpu_limit, memory_limit; the caller's stop flag */
};

struct collect_result {
	struct measurement_list ml;
	char *error;            /* the problems, for the run's collect_error; NULL when none */
	int nmissed;
	char **missed;          /* names of the collectors that matched nothing */
	int interrupted;        /* limits.stop was set: the result is incomplete, store nothing */
};

/*
 * Run every collector of cs over run_dir (the run's stored files; wall is
 * the run's wall time in seconds, or -1 when unknown).  Never fails: what
 * went wrong is in out->error and out->missed; out->interrupted when the
 * stop flag of cs->limits cut it short.  Release out with
 * collect_result_release.
 */
void collector_set_run(const struct collector_set *cs, const char *run_dir, double wall,
		       struct collect_result *out);
void collect_result_release(struct collect_result *r);

/*
 * A fingerprint of what the collectors collect (caller frees): equal for
 * sets that collect the same values from the same files, whatever the
 * config's formatting or which defaults were spelt out.
 */
char *collector_set_fingerprint(const struct collector_set *cs);

#endif
