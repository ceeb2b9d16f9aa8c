/* What the backends' plan-time placement checks share: a point's ranks and its refusal. */
#include "orchestrator/plan_check.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "campaign/template.h"
#include <stdlib.h>
#include <string.h>

int plan_point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	return pt->nodes > 0 && pt->ranks_per_node > 0 ? pt->nodes * pt->ranks_per_node : 1;
}

/* "point 3 (np=2, n=10): placement 2x1 compact" */
static void describe(struct strbuf *sb, const struct plan *pl, int i, int ranks, int rpn)
{
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
	strbuf_addf(sb, "point %d (", i + 1);
	for (int k = 0; k < pl->nparams; k++) {
		char v[64];
		template_format_value(v, sizeof(v), pt->values[k], pl->params[k].is_int);
		strbuf_addf(sb, "%s%s=%s", k ? ", " : "", pl->params[k].name, v);
	}
	strbuf_addf(sb, "): placement %d rank%s, %d per node, %s", ranks, ranks == 1 ? "" : "s", rpn,
		    pt->policy ? pt->policy : "compact");
	free(vals);
}

int plan_refuse_point(const struct plan *pl, int i, int ranks, int rpn, const char *why,
		      struct perr *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	describe(&sb, pl, i, ranks, rpn);
	perr_set(err, "%s %s", sb.buf, why);
	strbuf_release(&sb);
	return -1;
}
