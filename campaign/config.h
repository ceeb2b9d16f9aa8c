/*
 * Campaign configuration, read with libconfig (schema: docs/config.md): the
 * one libconfig kit of the campaign layer.  config_load validates everything
 * it knows and reports the first problem as "FILE:LINE: message" with what
 * to write instead; every path the config names is made absolute against
 * the config's directory as it is loaded.  The files themselves are read by
 * those who use them (orchestrator/plan_build.c: the dependency file, the
 * placement map).  The planner's sections (design, budget, cost_model,
 * placement's axis, contention) are read here too, into c->planning
 * (config_plan.h).  The
 * config a campaign ran with is read back through campaign_config.h.
 */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H
#include "collectors/collector_set.h"
#include "collectors/regex_collect.h"
#include "collectors/sanity.h"
#include "campaign/config_plan.h"
#include "common/error.h"
#include "designs/plan.h"
#include "placement/placement_spec.h"
#include <libconfig.h>

/* analysis.min_share's default: a region under 1% of the time drives no refinement. */
#define CONFIG_MIN_SHARE 0.01

/* The backend section: which backend runs the campaign, and its settings. */
struct backend_config {
	char *type;                 /* "local" or "slurm" */
	char *partition, *account, *qos;   /* slurm; NULL when unset */
	char *mpi;                  /* slurm: srun --mpi= plugin ("pmix"), a plain word; local:
	                               "openmpi", one mpirun world per run; or NULL */
	int time_limit;             /* minutes, 0 = from the cost estimate */
	int max_inflight;           /* slurm: jobs queued or running at once, 0 = 64; with
	                               job arrays each array's task throttle ("%N") */
	int no_arrays;              /* slurm: backend.arrays = false: one batch job per run */
	double wait_quiet;          /* local: the quiet gate's bound, seconds (0: no gate) */
	int nextra;
	char **extra;               /* extra "#SBATCH" lines, verbatim options */
	/* slurm polling (seconds; 0 = default): right after a change, the
	   growth factor while nothing changes, and the longest interval; and
	   the longest while the jobs' own notes tell of their ends; and
	   between reads of those notes */
	double poll_min, poll_max, poll_factor, poll_safety, poll_notes;
};

/* A derived parameter (value = "expr"): its value at each point from the others. */
struct config_derived {
	char *name;
	char *expr;                 /* over the swept parameters, then the derived ones before it */
};

/* An input template (app.template): `from` filled in and written to `to`. */
struct config_template {
	char *from;                 /* absolute (resolved beside the config) */
	char *to;                   /* relative, inside its directory */
	int setup;                  /* into = "setup": the set-up directory; else the run's */
};

/* A set-up step (app.setup): one argument list, placeholders unexpanded. */
struct config_step {
	int argc;
	char **argv;                /* NULL-terminated */
};

struct campaign_config {
	char *path;                 /* the config file */
	char *dir;                  /* its directory (relative paths resolve here) */
	char *name;
	/* app */
	int app_argc;
	char **app_argv;            /* templates with {param} placeholders */
	char *app_workdir;          /* absolute (resolved against dir); NULL: the run directory */
	int app_nenv;
	char **app_env;             /* "KEY=VALUE" templates */
	double app_timeout;         /* seconds, 0 = none */
	/* parameters, in file order */
	int nparams;
	struct plan_param *params;
	/* derived parameters, in file order: in plans and stores after the swept ones */
	int nderived;
	struct config_derived *derived;
	unsigned char *unmodelled;  /* model = false: per parameter, swept then derived */
	/* input templates, set-up steps (app.template, app.setup) */
	int ntemplates;
	struct config_template *templates;
	int nsteps;
	struct config_step *steps;
	int repetitions;            /* fixed, or adaptive: the minimum */
	/* adaptive repetitions (repetitions = { min; max; target; }): target 0 when fixed */
	int repetitions_max;
	double repetitions_target;  /* relative half-width of the median's 95% confidence interval */
	int max_attempts;
	int order;                  /* enum plan_order (default interleaved) */
	int have_order_seed;        /* order_seed was given */
	unsigned long order_seed;
	struct backend_config backend;
	/* collectors */
	int collect_wall;
	int nregex;
	struct regex_pattern *regex;        /* a preset's patterns first, then collect.regex's */
	char *collect_preset;       /* collect.preset, or NULL */
	int npreset_regex;          /* the patterns the preset gave (some replaced by collect.regex) */
	int collect_cubex;
	int ncubex_metrics;
	char **cubex_metrics;
	int nsanity;
	struct sanity_check *sanity;    /* collect.sanity */
	double collect_cpu_limit;   /* collect.cpu_limit, seconds (0: the default) */
	long collect_memory_limit;  /* collect.memory_limit, MiB (0: the default) */
	/* paths, absolute: resolved against dir when loaded */
	char *dependencies;         /* NULL when unset */
	char *aggregate;            /* analysis.aggregate: "mean", "median", "min", or NULL */
	double min_cpu_share;       /* analysis.min_cpu_share (validator/disturbed.h), NAN when unset */
	double min_share;           /* analysis.min_share: regions below this share of the time drive no new runs */
	/* analysis.lower_is_better [0] and higher_is_better [1]: metric names */
	char **better[2];
	int nbetter[2];
	/* the placement section's contract (placement_spec_parse; the planner
	   reads its ranks-per-node axis and attach) */
	struct placement_spec placement_spec;   /* defaults without the section */
	char *placement_map;        /* placement.map resolved (placement_spec.map points here), or NULL */
	char *cores_per_rank;       /* placement.cores_per_rank as written ("N", "all"), or NULL;
	                               "T" when only threads_per_rank = T is given */
	int threads_per_rank;       /* placement.threads_per_rank, or 0 */
	int threads_param;          /* the parameter with role "threads", or -1 */
	/* the planner's sections: design, budget, cost_model, placement's axis, contention */
	struct config_planning planning;
	config_t cfg;               /* the parsed file, for the kit (config_get.h) */
	char *topology;             /* topology: a synthetic description or an .xml file as written, or NULL */
	char *text;                 /* the file's text, stored with the campaign */
	/* set by the caller, not read from the file: the share of budget.core_hours this campaign
	   may plan and spend (a two-arm run, orchestrator/ab_run.h, gives each arm half); 0: all */
	double budget_share;
};

int config_load(struct campaign_config *c, const char *path, struct perr *err);
/*
 * The same from a config's text (e.g. the one stored with a campaign):
 * label stands for the file in messages ("LABEL:LINE: ..."), dir is where
 * relative paths and @include resolve.  Release c either way.
 */
int config_load_text(struct campaign_config *c, const char *text, const char *label, const char *dir,
		     struct perr *err);
/* Path p of the config, absolute (relative paths resolve beside the config
   file, c->dir): the map, the dependency file, the work directory and a
   relative program, which runs read from their own directories.  Caller frees. */
char *config_resolve(const struct campaign_config *c, const char *p);
/* The config file's directory, absolute ({config_dir}).  Caller frees. */
char *config_dir_abs(const struct campaign_config *c);
/* The campaign directory when none is given: <name>.campaign beside the config (caller frees). */
char *config_default_dir(const struct campaign_config *c);
/* The config's collectors as a set (pointing into c), with no stop flag. */
void config_collectors(const struct campaign_config *c, struct collector_set *cs);
void config_release(struct campaign_config *c);
/* "FILE:LINE" of a setting, for error messages. */
const char *config_where(const struct campaign_config *c, const config_setting_t *s, char *buf,
			 size_t n);
int config_find_param(const struct campaign_config *c, const char *name);
/* The derived parameter called name, or -1. */
int config_find_derived(const struct campaign_config *c, const char *name);
/* A campaign whose ranks run threads (threads_per_rank or a role "threads" parameter). */
int config_has_threads(const struct campaign_config *c);
/* The value of a numeric setting (integer or float; test with config_setting_is_number). */
double config_number(const config_setting_t *s);

#endif
