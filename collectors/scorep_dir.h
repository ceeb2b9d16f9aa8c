/*
 * Score-P experiment directories, named by Extra-P's convention
 *     [prefix.]<param><value>[.<param><value>...][.r<repetition>]
 * e.g. "lulesh.p64.size30.r1", "mm.x1.5y2", "mm.a1,5.b2.r3".  A parameter
 * name is a run of non-digits; a value is digits with at most one decimal
 * point or comma ("1.5", "1,5").  Pairs may be separated by "." or "," or
 * follow each other directly ("x1y1z1").  The first dot-separated part is
 * the prefix when it does not read as pairs.
 *
 * scorep_dir_scan() lists the experiment directories of a folder (those
 * holding a *.cubex file), parses their names and checks that all use the
 * same parameters in the same order.  scorep_dir_read() turns the folder
 * into an experiment the way Extra-P's cube reader does: parameters that
 * never change are dropped (unless selected), every profile adds one
 * repetition value per call path and metric (the mean over ranks by
 * default).
 */
#ifndef PS_SCOREP_DIR_H
#define PS_SCOREP_DIR_H
#include "collectors/cubex.h"
#include "collectors/experiment.h"
#include "common/error.h"

struct scorep_name {
	char *prefix;           /* NULL when the name has none */
	int nparams;
	char **params;
	double *values;
	int repetition;         /* 0 when the name has no .rN */
};

/* Parse a directory name; on failure err says what part did not parse. */
int scorep_name_parse(struct scorep_name *n, const char *name, struct perr *err);
void scorep_name_release(struct scorep_name *n);

struct scorep_run {
	char *dir;              /* the experiment directory */
	char *profile;          /* its .cubex file */
	double *values;         /* one per selected parameter */
	int repetition;         /* from the name, or numbered 1.. per point */
};

struct scorep_scan {
	int nparams;
	char **params;          /* selected parameters, in order */
	int nruns;
	struct scorep_run *runs;        /* sorted by values, then repetition */
};

/*
 * Scan a folder.  select, when given, names the parameters to keep and
 * their order (each must occur in every name); otherwise all parameters
 * whose value varies are kept, in name order.
 */
int scorep_dir_scan(struct scorep_scan *s, const char *dir, char *const *select, int nselect,
		    struct perr *err);
void scorep_scan_release(struct scorep_scan *s);

struct scorep_read_opts {
	char *const *metrics;   /* NULL: every metric that has data */
	int nmetrics;
	enum cubex_aggr aggr;   /* over locations; CUBEX_MEAN as Extra-P */
	char *const *select;    /* parameters, as for scorep_dir_scan */
	int nselect;
};

/* Read a folder of experiment directories into e (which must be empty). */
int scorep_dir_read(struct experiment *e, const char *dir, const struct scorep_read_opts *o,
		    struct perr *err);

/*
 * Add one profile as one repetition at the point coords (one per parameter
 * of e): per call path and metric, the aggregate over locations.
 */
int scorep_profile_add(struct experiment *e, const struct cubex *c, const double *coords,
		       const struct scorep_read_opts *o, struct perr *err);

#endif
