/* Campaign config -> plan (the full factorial x repetitions for now). */
#include "orchestrator/plan_build.h"

int plan_build(struct plan *pl, const struct campaign_config *c, struct perr *err)
{
	struct design_spec spec = {
		.nparams = c->nparams,
		.params = c->params,
		.repetitions = c->repetitions,
	};
	return plan_full_factorial(pl, &spec, err);
}
