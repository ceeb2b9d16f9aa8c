/*
 * The sections of a campaign config that the planner reads (design, budget,
 * cost_model, placement's axis, contention; schema: docs/config.md and
 * docs/designs.md), typed and checked when the config is loaded, so that
 * orchestrator/plan_build.c turns them into a design_spec without reading
 * the file itself.  What needs more than the config (the placement map's
 * file, an earlier campaign to fit a cost model to, the dependency file) is
 * checked by the planner, its errors placed with config_error_in.
 */
#ifndef PS_CONFIG_PLAN_H
#define PS_CONFIG_PLAN_H

struct config_planning {
	/* design = { strategy; baseline; min_values; sparse_extra; min_run_seconds; } */
	int strategy;               /* enum design_strategy (full without the section) */
	double *baseline;           /* one value per swept parameter (NAN: unset), or NULL */
	int min_values;             /* 0: the planner's default */
	int sparse_extra;           /* as design_spec: 0 the default, -1 none */
	double min_run_seconds;     /* 0: the default */
	/* budget = { core_hours; overrun; min_repetitions; charge; cores_per_node; } */
	double core_hours;          /* 0: no budget (before campaign_config.budget_share) */
	double overrun;             /* 0.1 unless given */
	int min_repetitions, cores_per_node;
	int charge;                 /* enum design_charge */
	/* cost_model = "expr"; or { expression = "expr"; } or { campaign = "DIR"; } */
	char *cost_expression;      /* seconds per run over swept and derived parameters, or NULL */
	char *cost_campaign;        /* an earlier campaign to fit the cost to, as written, or NULL */
	/* placement: a ranks-per-node axis and what it attaches to */
	int have_placement;         /* the section is there */
	int nrpn;
	int *rpn;                   /* placement.ranks_per_node, or NULL (no axis) */
	int nattach;
	char **attach;              /* "all", "baseline" or parameter names; NULL-terminated, or NULL */
	/* contention = { point; ranks_per_node; repetitions; } */
	int have_contention;
	double *contention_point;   /* one value per swept parameter (NAN: the baseline's) */
	int ncontention;
	int *contention_rpn;
	int contention_repetitions; /* 0: repetitions */
};

#endif
