/*
 * The sections of the campaign config parser kept in files of their own,
 * for campaign/config*.c only: config.c's config_parse calls them in the
 * order the schema needs (parameters before app, app before collect).
 */
#ifndef PS_CONFIG_PARSE_H
#define PS_CONFIG_PARSE_H
#include "campaign/config.h"

/* app = { command; env; workdir; timeout; template; setup; } (config_app.c). */
int config_parse_app(struct campaign_config *c, struct perr *err);
/* A name taken by a built-in placeholder ({rep}, {ranks}, {config_dir}, ...). */
int config_builtin_placeholder(const char *name);
/* collect = { wall; regex; preset; cubex; sanity; cpu_limit; memory_limit; } (config_collect.c). */
int config_parse_collect(struct campaign_config *c, struct perr *err);
/* The metrics the preset says are better higher, unless analysis lists them as lower. */
void config_add_preset_better(struct campaign_config *c);
void config_free_regex_pattern(struct regex_pattern *p);
/* design, budget, cost_model, placement's axis and contention into c->planning (config_plan.c). */
int config_parse_planning(struct campaign_config *c, struct perr *err);
void config_release_planning(struct config_planning *p);

#endif
