/*
 * `perfsweep plan CONFIG --evaluate DATA [--json] [--html FILE]`: the
 * config's design against full factorial, lines only, cheapest first and
 * the ensemble's disagreement, at budgets from the design's own cost and
 * 10% to 100% of the full factorial's (analysis/design_eval.h), printed
 * as a table (or the --json contract of docs/designs.md), and with --html
 * a page with the error against core-hours, one line per strategy.
 */
#ifndef PS_PLAN_EVAL_H
#define PS_PLAN_EVAL_H
#include "campaign/config.h"

/* Evaluate and print; the exit code (EXIT_OK, or EXIT_USAGE after the error line). */
int plan_evaluate(const struct campaign_config *cfg, const char *data, int json, const char *html);

#endif
