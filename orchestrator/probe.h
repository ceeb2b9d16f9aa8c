/*
 * `perfsweep probe`: is this machine quiet enough for a campaign now?  The
 * campaign's cheapest point runs a few times on the local backend, in a
 * scratch campaign of its own (removed afterwards unless kept), and its
 * runs are judged as a campaign's are (validator/disturbed.h): how many
 * were disturbed and by whom, how noisy they were, and what the campaign's
 * repetitions can detect at that noise (validator/power.h, alpha 0.01,
 * power 0.8): the smallest relative difference between two points, and
 * the smallest growth along each parameter over its values (the slope
 * test's standard error for one line of the parameter's values, each with
 * the campaign's repetitions).  The machine is busy when one of the
 * probe's runs was disturbed.  A point whose runs all last too short to be
 * judged says nothing: the next dearer one is run instead (PROBE_TRIES).
 *
 * Nothing here prints; the CLI says it (cli/cmd_probe.c).
 */
#ifndef PS_PROBE_H
#define PS_PROBE_H
#include "campaign/config.h"
#include "placement/census.h"
#include "validator/disturbed.h"
#include <signal.h>

#define PROBE_RUNS 5
#define PROBE_TRIES 4   /* points tried, the cheapest first, until one's runs can be judged */
#define PROBE_ALPHA 0.01
#define PROBE_POWER 0.8

struct probe_options {
	int runs;                           /* 0: PROBE_RUNS */
	const char *dir;                    /* keep the scratch campaign here, or NULL: a removed temporary one */
	const char *bind_path;              /* perfsweep-bind */
	volatile sig_atomic_t *stop;
};

/* One region's repetitions of the probe's metric. */
struct probe_region {
	char *region;
	double mean;
	double cov, cov_kept;               /* over every run, and over the undisturbed ones (NaN: < 2) */
	int n, kept;
};

struct probe_result {
	char *point;                        /* "n=64, np=1": the point judged */
	char **too_short;                   /* the cheaper points tried before it, whose runs all
	                                       lasted too short to be judged (validator/disturbed.h) */
	int ntoo_short;
	char *metric;
	int runs, done;                     /* asked for, and done */
	double seconds;                     /* the probe's wall time */
	struct census_signals signals;
	struct disturbed_result disturbed;
	struct disturbed_cause *causes;     /* over the disturbed runs, once per process and core, largest first */
	int ncauses;
	int nregions;
	struct probe_region *regions;       /* the largest mean first */
	double cov;                         /* the noise the figures below assume: the largest region's */
	int repetitions;                    /* the campaign's (its minimum when adaptive) */
	double detectable_difference;       /* relative; NaN: none */
	int nparams;
	char **params;                      /* the parameters with two values or more */
	double *detectable_growth;          /* relative, over each one's values; NaN: none */
	int busy;                           /* a run was disturbed */
	int unjudged;                       /* or none could be judged (every point tried too short) */
};

/* Probe cfg's machine (this one).  0, or -1 with err; release r either way. */
int probe_run(const struct campaign_config *cfg, const struct probe_options *o, struct probe_result *r,
	      struct perr *err);
void probe_result_release(struct probe_result *r);

#endif
