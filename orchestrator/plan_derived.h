/*
 * Derived parameters in a plan (docs/config.md, "Derived parameters"): the
 * design sweeps the swept parameters only; each derived one is then
 * computed at every point from them and the derived ones before it, and
 * joins the plan as a parameter like any other (after the swept ones), so
 * the store, the command's placeholders, exports and models see it.  Also:
 * a cost model may name derived parameters (their expressions are put in
 * its place), and a model = false parameter must not be the only thing
 * that tells two points apart.
 */
#ifndef PS_PLAN_DERIVED_H
#define PS_PLAN_DERIVED_H
#include "campaign/config.h"
#include "designs/plan.h"

/*
 * Give pl (made over c's swept parameters, materialised) c's derived
 * parameters: appended to pl->params (their distinct values sorted,
 * is_int when every value is an integer) and to every point's values.
 * -1 with err ("FILE:LINE: ...", at the parameter) when a value is not
 * finite at some point.
 */
int plan_add_derived(struct plan *pl, const struct campaign_config *c, struct perr *err);

/* text with every derived parameter's name replaced by its expression in
   parentheses (recursively): an expression over the swept parameters only.
   Caller frees. */
char *plan_inline_derived(const struct campaign_config *c, const char *text);

/*
 * The model = false parameters of c against pl (with its derived values):
 * 0 when leaving every one out that has several values keeps the points
 * apart; -1 with err at the parameter otherwise.
 */
int plan_check_unmodelled(const struct plan *pl, const struct campaign_config *c, struct perr *err);

/*
 * A point given by n named values (a store's parameters, a refine
 * proposal's coordinates): every derived parameter of c among names set to
 * its expression's value at the swept ones.  1 when one of them changed,
 * 0 when none did (or the names lack a swept parameter: nothing is set).
 */
int plan_derive_values(const struct campaign_config *c, char *const *names, int n, double *v);

#endif
