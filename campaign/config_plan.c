/* The planner's sections of a campaign config, read and checked (config_plan.h). */
#include "campaign/config_get.h"
#include "campaign/config_parse.h"
#include "common/xalloc.h"
#include "designs/expr.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ranks_per_node = [2, 4, 8]; or { from = 2; to = 18; step = 2; } of group g. */
static int get_rpn(const struct campaign_config *c, const config_setting_t *g, int **out, int *n,
		   struct perr *err)
{
	const config_setting_t *s = config_setting_get_member(g, "ranks_per_node");
	*n = 0;
	if (!s)
		return config_error(c, g, err, "missing 'ranks_per_node'; write ranks_per_node = [16, 32];");
	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const k[] = { "from", "to", "step", NULL };
		int from = 0, to = 0, step = 1;
		if (config_check_keys(c, s, k, "ranks_per_node", err) || config_get_int(c, s, "from", 1, &from, err) ||
		    config_get_int(c, s, "to", 1, &to, err) || config_get_int(c, s, "step", 1, &step, err))
			return -1;
		if (!from || !to || to < from)
			return config_error(c, s, err, "ranks_per_node needs from <= to; write { from = 2; to = 18; step = 2; }");
		*out = xmalloc(sizeof(int) * (size_t)((to - from) / step + 1));
		for (int v = from; v <= to; v += step)
			(*out)[(*n)++] = v;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return config_error(c, s, err, "'ranks_per_node' must be a list of integers, like [16, 32], or { from; to; step; }");
	int len = config_setting_length(s);
	if (len == 0)
		return config_error(c, s, err, "'ranks_per_node' is empty");
	*out = xmalloc(sizeof(int) * (size_t)len);
	for (int i = 0; i < len; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		int t = config_setting_type(e);
		if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || config_setting_get_int64(e) < 1 ||
		    config_setting_get_int64(e) > 1 << 20)
			return config_error(c, s, err, "ranks_per_node values must be positive integers (element %d)", i + 1);
		for (int j = 0; j < *n; j++)
			if ((*out)[j] == (int)config_setting_get_int64(e))
				return config_error(c, s, err, "ranks_per_node lists %d twice", (*out)[j]);
		(*out)[(*n)++] = (int)config_setting_get_int64(e);
	}
	return 0;
}

/* A group { param = value; ... } of parameter values (NAN where absent);
   member: each value one of its parameter's. */
static int get_point(const struct campaign_config *c, const config_setting_t *g, const char *what,
		     double **out, int member, struct perr *err)
{
	*out = xmalloc(sizeof(double) * (size_t)c->nparams);
	for (int k = 0; k < c->nparams; k++)
		(*out)[k] = NAN;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_error(c, g, err, "'%s' must be a group of parameter values: %s = { %s = %g; };", what, what,
			   c->params[0].name, c->params[0].values[0]);
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		int k = config_find_param(c, config_setting_name(s));
		if (k < 0)
			return config_error(c, s, err, "unknown parameter '%s' in %s", config_setting_name(s), what);
		if (!config_setting_is_number(s))
			return config_error(c, s, err, "the %s value of '%s' must be a number", what, config_setting_name(s));
		double v = config_number(s);
		if (member) {
			int found = 0;
			for (int j = 0; j < c->params[k].nvalues; j++)
				found |= c->params[k].values[j] == v;
			if (!found)
				return config_error(c, s, err, "%s %g of '%s' is not one of its values", what, v, c->params[k].name);
		}
		(*out)[k] = v;
	}
	return 0;
}

static int parse_design(struct campaign_config *c, const config_setting_t *root, struct perr *err)
{
	struct config_planning *p = &c->planning;
	const config_setting_t *d = config_setting_get_member(root, "design");
	p->strategy = DESIGN_FULL;
	if (!d)
		return 0;
	static const char *const k[] = { "strategy", "baseline", "min_values", "sparse_extra",
					 "min_run_seconds", NULL };
	if (config_check_group(c, d, "design", err) || config_check_keys(c, d, k, "design", err))
		return -1;
	const char *st;
	if (config_get_text(c, d, "strategy", &st, err))
		return -1;
	if (st) {
		if (!strcmp(st, "full"))
			p->strategy = DESIGN_FULL;
		else if (!strcmp(st, "taint"))
			p->strategy = DESIGN_TAINT;
		else if (!strcmp(st, "sparse"))
			p->strategy = DESIGN_SPARSE;
		else
			return config_error(c, config_setting_get_member(d, "strategy"), err,
				   "unknown strategy '%s'; write strategy = \"full\", \"taint\" or \"sparse\";", st);
		if (p->strategy != DESIGN_FULL && !c->dependencies)
			return config_error(c, config_setting_get_member(d, "strategy"), err,
				   "strategy \"%s\" needs a dependency file; add dependencies = \"app.deps\";", st);
	}
	const config_setting_t *bs = config_setting_get_member(d, "baseline");
	if (bs && get_point(c, bs, "baseline", &p->baseline, 1, err))
		return -1;
	int extra = 1;
	if (config_get_int(c, d, "min_values", 1, &p->min_values, err) ||
	    config_get_int(c, d, "sparse_extra", 0, &extra, err))
		return -1;
	p->sparse_extra = extra == 0 ? -1 : extra;
	const config_setting_t *mr = config_setting_get_member(d, "min_run_seconds");
	if (mr && (!config_setting_is_number(mr) || config_number(mr) <= 0))
		return config_error(c, mr, err, "'min_run_seconds' must be a positive number of seconds; write "
			   "min_run_seconds = 0.1;");
	if (mr)
		p->min_run_seconds = config_number(mr);
	return 0;
}

static int parse_budget(struct campaign_config *c, const config_setting_t *root, struct perr *err)
{
	struct config_planning *p = &c->planning;
	const config_setting_t *g = config_setting_get_member(root, "budget");
	p->overrun = 0.1;
	if (!g)
		return 0;
	static const char *const k[] = { "core_hours", "min_repetitions", "charge", "cores_per_node",
					 "overrun", NULL };
	if (config_check_group(c, g, "budget", err) || config_check_keys(c, g, k, "budget", err))
		return -1;
	const config_setting_t *ch = config_setting_get_member(g, "core_hours");
	if (ch) {
		if (!config_setting_is_number(ch) || config_number(ch) <= 0)
			return config_error(c, ch, err, "'core_hours' must be a positive number; write core_hours = 500.0;");
		p->core_hours = config_number(ch);
	}
	const config_setting_t *ov = config_setting_get_member(g, "overrun");
	if (ov && (!config_setting_is_number(ov) || config_number(ov) < 0))
		return config_error(c, ov, err, "'overrun' must be a fraction >= 0; write overrun = 0.1; (10%%)");
	if (ov)
		p->overrun = config_number(ov);
	if (config_get_int(c, g, "min_repetitions", 1, &p->min_repetitions, err) ||
	    config_get_int(c, g, "cores_per_node", 1, &p->cores_per_node, err))
		return -1;
	const char *charge;
	if (config_get_text(c, g, "charge", &charge, err))
		return -1;
	if (charge && !strcmp(charge, "node")) {
		p->charge = CHARGE_NODE;
		if (!p->cores_per_node)
			return config_error(c, config_setting_get_member(g, "charge"), err,
				   "charge = \"node\" needs the node size; add cores_per_node = 36; to budget");
	} else if (charge && strcmp(charge, "core")) {
		return config_error(c, config_setting_get_member(g, "charge"), err,
			   "unknown charge '%s'; write charge = \"core\" (ranks x time) or \"node\" "
			   "(nodes x cores_per_node x time);", charge);
	}
	if (p->core_hours > 0 && !config_setting_get_member(root, "cost_model"))
		return config_error(c, g, err, "a budget needs a cost model to price runs; add cost_model = \"...\";");
	return 0;
}

/* The cost expression parses over the swept and derived parameters. */
static int check_cost_expression(const struct campaign_config *c, const config_setting_t *s, const char *text,
				 struct perr *err)
{
	char **names = xmalloc(sizeof(char *) * (size_t)(c->nparams + c->nderived + 1));
	for (int k = 0; k < c->nparams; k++)
		names[k] = c->params[k].name;
	for (int d = 0; d < c->nderived; d++)
		names[c->nparams + d] = c->derived[d].name;
	struct perr e2;
	struct expr *e = expr_parse(text, c->nparams + c->nderived, names, &e2);
	free(names);
	if (!e)
		return config_error(c, s, err, "bad cost model \"%.60s%s\": %s", text,
				    strlen(text) > 60 ? "..." : "", e2.msg);   /* the error ends the line */
	expr_free(e);
	return 0;
}

static int parse_cost(struct campaign_config *c, const config_setting_t *root, struct perr *err)
{
	struct config_planning *p = &c->planning;
	const config_setting_t *s = config_setting_get_member(root, "cost_model");
	if (!s)
		return 0;
	const char *text = NULL, *camp = NULL;
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		text = config_setting_get_string(s);
	} else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		static const char *const k[] = { "expression", "campaign", NULL };
		if (config_check_keys(c, s, k, "cost_model", err))
			return -1;
		if (config_get_text(c, s, "campaign", &camp, err) || config_get_text(c, s, "expression", &text, err))
			return -1;
		if (camp && text)
			return config_error(c, s, err, "cost_model takes an expression or a campaign, not both");
		if (!camp && !text)
			return config_error(c, s, err, "cost_model needs expression = \"...\"; or campaign = \"DIR\";");
	} else {
		return config_error(c, s, err, "'cost_model' must be an expression string (seconds per run), like "
			   "cost_model = \"2e-3 * size^3 / p + 1\";");
	}
	if (camp) {
		p->cost_campaign = xstrdup(camp);
		return 0;
	}
	if (check_cost_expression(c, s, text, err))
		return -1;
	p->cost_expression = xstrdup(text);
	return 0;
}

/* The parameter with this role, or -1. */
static int role_param(const struct campaign_config *c, const char *role)
{
	for (int k = 0; k < c->nparams; k++)
		if (c->params[k].role && !strcmp(c->params[k].role, role))
			return k;
	return -1;
}

/* A placement section that only binds (policy, cores or threads per rank) and places no axis. */
static int placement_without_axis(const struct campaign_config *c, const config_setting_t *g)
{
	return !config_setting_get_member(g, "ranks_per_node") && !config_setting_get_member(g, "attach") &&
	       (config_has_threads(c) || config_setting_get_member(g, "policy") ||
		config_setting_get_member(g, "cores_per_rank"));
}

/* placement.attach = "all" | "baseline" | [ parameter names ]. */
static int parse_attach(struct campaign_config *c, const config_setting_t *a, struct perr *err)
{
	struct config_planning *p = &c->planning;
	int t = config_setting_type(a);
	int len = t == CONFIG_TYPE_STRING ? 1 : config_setting_length(a);
	if (t != CONFIG_TYPE_STRING && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return config_error(c, a, err, "'attach' must be \"all\", \"baseline\" or a list of parameter names");
	p->attach = xcalloc((size_t)len + 1, sizeof(char *));
	for (int i = 0; i < len; i++) {
		const config_setting_t *e = t == CONFIG_TYPE_STRING ? a : config_setting_get_elem(a, (unsigned)i);
		const char *w = config_setting_get_string(e);
		if (!w)
			return config_error(c, a, err, "'attach' lists strings: \"all\", \"baseline\" or parameter names");
		if (strcmp(w, "all") && strcmp(w, "baseline") && config_find_param(c, w) < 0)
			return config_error(c, a, err, "placement attaches to '%s', which is not all, baseline "
				   "or a parameter", w);
		p->attach[p->nattach++] = xstrdup(w);
	}
	return 0;
}

static int parse_axis(struct campaign_config *c, const config_setting_t *root, struct perr *err)
{
	struct config_planning *p = &c->planning;
	const config_setting_t *g = config_setting_get_member(root, "placement");
	if (!g)
		return 0;
	p->have_placement = 1;
	static const char *const k[] = { "ranks_per_node", "policy", "attach", "map",
					 "cores_per_rank", "threads_per_rank", NULL };
	if (config_check_group(c, g, "placement", err) || config_check_keys(c, g, k, "placement", err))
		return -1;
	int rpn_k = role_param(c, "ranks_per_node");
	const config_setting_t *rs = config_setting_get_member(g, "ranks_per_node");
	/* without ranks_per_node (threads per rank, a policy alone) there is no axis */
	if (role_param(c, "ranks") < 0 && rpn_k < 0 && (rs || !placement_without_axis(c, g)))
		return config_error(c, g, err, "a placement axis needs a parameter with role = \"ranks\"");
	if (rpn_k >= 0 && rs)
		return config_error(c, rs, err, "parameter '%s' (role \"ranks_per_node\") sets the ranks per node; "
			   "remove placement.ranks_per_node", c->params[rpn_k].name);
	if (rpn_k < 0 && (rs || !placement_without_axis(c, g)) && get_rpn(c, g, &p->rpn, &p->nrpn, err))
		return -1;
	const config_setting_t *a = config_setting_get_member(g, "attach");
	return a ? parse_attach(c, a, err) : 0;
}

static int parse_contention(struct campaign_config *c, const config_setting_t *root, struct perr *err)
{
	struct config_planning *p = &c->planning;
	const config_setting_t *ct = config_setting_get_member(root, "contention");
	if (!ct)
		return 0;
	p->have_contention = 1;
	static const char *const k[] = { "point", "ranks_per_node", "repetitions", NULL };
	if (config_check_group(c, ct, "contention", err) || config_check_keys(c, ct, k, "contention", err))
		return -1;
	int rk = role_param(c, "ranks");
	if (rk < 0)
		return config_error(c, ct, err, "a contention experiment needs a parameter with role = \"ranks\"");
	int rpn_k = role_param(c, "ranks_per_node");
	if (rpn_k >= 0)
		return config_error(c, ct, err, "parameter '%s' (role \"ranks_per_node\") is the study axis already; "
			   "remove the contention block or the role", c->params[rpn_k].name);
	const config_setting_t *pt = config_setting_get_member(ct, "point");
	if (!pt)
		return config_error(c, ct, err, "contention needs the fixed point: point = { p = 64; size = 30; };");
	if (get_point(c, pt, "point", &p->contention_point, 0, err) ||
	    get_rpn(c, ct, &p->contention_rpn, &p->ncontention, err) ||
	    config_get_int(c, ct, "repetitions", 1, &p->contention_repetitions, err))
		return -1;
	double v = p->contention_point[rk];
	if (!isnan(v) && (v < 1 || v != floor(v)))
		return config_error(c, pt, err, "the contention rank count must be a positive integer");
	return 0;
}

int config_parse_planning(struct campaign_config *c, struct perr *err)
{
	const config_setting_t *root = config_root_setting(&c->cfg);
	return parse_design(c, root, err) || parse_budget(c, root, err) || parse_cost(c, root, err) ||
	       parse_axis(c, root, err) || parse_contention(c, root, err) ? -1 : 0;
}

void config_release_planning(struct config_planning *p)
{
	free(p->baseline);
	free(p->cost_expression);
	free(p->cost_campaign);
	free(p->rpn);
	for (int i = 0; i < p->nattach; i++)
		free(p->attach[i]);
	free(p->attach);
	free(p->contention_point);
	free(p->contention_rpn);
	memset(p, 0, sizeof(*p));
}
