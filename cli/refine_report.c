/* The text and JSON forms of a refinement (refine_report.h). */
#include "cli/refine_report.h"
#include "campaign/template.h"
#include <string.h>

static int nparams(const struct refine_campaign *rc)
{
	return rc->store_params;
}

static void print_row(FILE *f, const struct refine_campaign *rc, const struct refine_proposal *p)
{
	for (int k = 0; k < nparams(rc); k++) {
		char v[64];
		template_format_value(v, sizeof(v), p->coords[k], rc->is_int[k]);
		fprintf(f, "%10s ", v);
	}
	struct refine_place pl = refine_campaign_placement(rc, p);
	if (pl.nodes > 0 || pl.ranks_per_node > 0)
		fprintf(f, "%6d %5d %-8s ", pl.nodes, pl.ranks_per_node, pl.policy ? pl.policy : "-");
	fprintf(f, "%5d %12.4g  %-13s %s\n", p->repetitions, p->core_hours, refine_kind_name(p->kind),
		p->reason);
}

static void print_header(FILE *f, const struct refine_campaign *rc, int placed)
{
	for (int k = 0; k < nparams(rc); k++)
		fprintf(f, "%10s ", rc->cv.in.e.params[k]);
	if (placed)
		fprintf(f, "%6s %5s %-8s ", "nodes", "rpn", "policy");
	fprintf(f, "%5s %12s  %-13s %s\n", "runs", "core-hours", "finding", "reason");
}

static int any_placed(const struct refine_campaign *rc)
{
	int n = rc->r.nproposals + rc->r.ndropped;
	for (int i = 0; i < n; i++) {
		struct refine_place pl = refine_campaign_placement(rc, &rc->r.proposals[i]);
		if (pl.nodes > 0 || pl.ranks_per_node > 0)
			return 1;
	}
	return 0;
}

void refine_print_text(FILE *f, const struct refine_campaign *rc, const char *dir, long long written,
		       int dry_run)
{
	const struct refine_result *r = &rc->r;
	long long runs = 0;
	for (int i = 0; i < r->nproposals; i++)
		runs += r->proposals[i].repetitions;
	fprintf(f, "campaign %s: %s, %d findings; %d proposals, %lld runs, %.4g core-hours\n", dir,
		rc->publishable ? "publishable" : "blocked", rc->nfindings, r->nproposals, runs, r->used);
	if (r->remaining >= 0)
		fprintf(f, "budget: %.4g core-hours remaining, %.4g for these runs\n", r->remaining, r->used);
	else
		fprintf(f, "budget: none\n");
	if (rc->pending) {
		fprintf(f, "%lld runs not yet executed: run them first (perfsweep run %s), then refine again\n",
			rc->pending, dir);
		return;
	}
	if (rc->accuracy && rc->acc.nregions)
		fprintf(f, "accuracy at %s: %s's prediction there spreads %.1f%% (bootstrap and competing "
			"hypotheses, the widest of %d region%s); %.1f%% with these runs\n", rc->acc.target_text,
			rc->acc.region, 100 * rc->acc.before, rc->acc.nregions, rc->acc.nregions == 1 ? "" : "s",
			100 * rc->acc.after);
	else if (rc->accuracy)
		fprintf(f, "accuracy at %s: no modelled region to weigh\n", rc->acc.target_text);
	int placed = any_placed(rc);
	if (r->nproposals) {
		fputc('\n', f);
		print_header(f, rc, placed);
		for (int i = 0; i < r->nproposals; i++)
			print_row(f, rc, &r->proposals[i]);
	}
	if (r->ndropped) {
		fprintf(f, "\ndropped (over the remaining budget, least valuable first):\n");
		print_header(f, rc, placed);
		for (int i = 0; i < r->ndropped; i++)
			print_row(f, rc, &r->dropped[i]);
	}
	if (!r->nproposals)
		fprintf(f, "nothing to refine%s\n", r->ndropped ? " within the budget" : "");
	else if (dry_run)
		fprintf(f, "\ndry run: nothing written\n");
	else
		fprintf(f, "\nwrote %lld runs: execute them with perfsweep run %s\n", written, dir);
}

static json_t *proposal_json(const struct refine_campaign *rc, const struct refine_proposal *p)
{
	json_t *o = json_object(), *params = json_object(), *place = json_object();
	for (int k = 0; k < nparams(rc); k++)
		json_object_set_new(params, rc->cv.in.e.params[k],
				    rc->is_int[k] ? json_integer((json_int_t)p->coords[k]) : json_real(p->coords[k]));
	struct refine_place pl = refine_campaign_placement(rc, p);
	json_object_set_new(place, "nodes", json_integer(pl.nodes));
	json_object_set_new(place, "ranks_per_node", json_integer(pl.ranks_per_node));
	json_object_set_new(place, "policy", pl.policy ? json_string(pl.policy) : json_null());
	json_object_set_new(o, "params", params);
	json_object_set_new(o, "placement", place);
	json_object_set_new(o, "repetitions", json_integer(p->repetitions));
	json_object_set_new(o, "core_hours", json_real(p->core_hours));
	json_object_set_new(o, "reason", json_string(p->reason));
	json_object_set_new(o, "finding", json_string(refine_kind_name(p->kind)));
	return o;
}

/* refine --for accuracy: the target and the widest spread there, before and after the proposals. */
static json_t *accuracy_json(const struct refine_campaign *rc)
{
	json_t *o = json_object(), *t = json_object();
	for (int k = 0; k < nparams(rc); k++)
		json_object_set_new(t, rc->cv.in.e.params[k], rc->is_int[k] ? json_integer((json_int_t)rc->acc.target[k])
									      : json_real(rc->acc.target[k]));
	json_object_set_new(o, "target", t);
	json_object_set_new(o, "regions", json_integer(rc->acc.nregions));
	json_object_set_new(o, "region", rc->acc.region ? json_string(rc->acc.region) : json_null());
	json_object_set_new(o, "spread_before", rc->acc.nregions ? json_real(rc->acc.before) : json_null());
	json_object_set_new(o, "spread_after", rc->acc.nregions ? json_real(rc->acc.after) : json_null());
	return o;
}

json_t *refine_json(const struct refine_campaign *rc, long long written)
{
	json_t *root = json_object(), *props = json_array(), *dropped = json_array(), *b = json_object();
	for (int i = 0; i < rc->r.nproposals; i++)
		json_array_append_new(props, proposal_json(rc, &rc->r.proposals[i]));
	for (int i = 0; i < rc->r.ndropped; i++)
		json_array_append_new(dropped, proposal_json(rc, &rc->r.dropped[i]));
	json_object_set_new(b, "remaining", rc->r.remaining >= 0 ? json_real(rc->r.remaining) : json_null());
	json_object_set_new(b, "used_by_proposals", json_real(rc->r.used));
	json_object_set_new(root, "proposals", props);
	json_object_set_new(root, "budget", b);
	json_object_set_new(root, "dropped", dropped);
	json_object_set_new(root, "verdict", json_string(rc->publishable ? "publishable" : "blocked"));
	json_object_set_new(root, "pending", json_integer(rc->pending));
	json_object_set_new(root, "runs", json_integer(written));
	if (rc->accuracy)
		json_object_set_new(root, "accuracy", accuracy_json(rc));
	return root;
}
