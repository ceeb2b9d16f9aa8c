/* Plans: the design points a campaign executes. */
#include "designs/plan.h"
#include "designs/plan_internal.h"
#include "designs/plan_points.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

double plan_step_beyond(double top, double next, int is_int)
{
	double x = next > 0 && top / next >= 1.5 ? top * top / next : top + (top - next);
	return is_int ? round(x) : x;
}

void plan_copy_params(struct plan *pl, const struct design_spec *spec)
{
	pl->nparams = spec->nparams;
	pl->params = xcalloc((size_t)spec->nparams, sizeof(*pl->params));
	for (int k = 0; k < spec->nparams; k++) {
		const struct plan_param *s = &spec->params[k];
		struct plan_param *d = &pl->params[k];
		d->name = xstrdup(s->name);
		d->role = s->role ? xstrdup(s->role) : NULL;
		d->nvalues = s->nvalues;
		d->is_int = s->is_int;
		d->values = xmalloc(sizeof(double) * (size_t)s->nvalues);
		memcpy(d->values, s->values, sizeof(double) * (size_t)s->nvalues);
	}
}

int plan_full_factorial(struct plan *pl, const struct design_spec *spec, struct perr *err)
{
	memset(pl, 0, sizeof(*pl));
	long long n = 1;
	for (int k = 0; k < spec->nparams; k++) {
		n *= spec->params[k].nvalues;
		if (n > 10000000)
			return perr_set(err, "full factorial has more than 10000000 points");
	}
	plan_copy_params(pl, spec);
	pl->npoints = (int)n;
	pl->points = xcalloc((size_t)n, sizeof(*pl->points));
	int *idx = xcalloc((size_t)spec->nparams + 1, sizeof(int));
	for (long long i = 0; i < n; i++) {
		struct plan_point *pt = &pl->points[i];
		pt->values = xmalloc(sizeof(double) * (size_t)(spec->nparams ? spec->nparams : 1));
		for (int k = 0; k < spec->nparams; k++)
			pt->values[k] = spec->params[k].values[idx[k]];
		pt->repetitions = spec->repetitions;
		pt->reason = xstrdup("full factorial");
		pl->runs += spec->repetitions;
		/* odometer, last parameter fastest */
		for (int k = spec->nparams - 1; k >= 0; k--) {
			if (++idx[k] < spec->params[k].nvalues)
				break;
			idx[k] = 0;
		}
	}
	free(idx);
	return 0;
}

const struct plan_point *plan_point_at(const struct plan *pl, int i, struct plan_point *buf, double *vals)
{
	if (!pl->compact)
		return &pl->points[i];
	plan_points_get(pl->compact, i, buf, vals);
	return buf;
}

void plan_materialize(struct plan *pl)
{
	if (!pl->compact)
		return;
	pl->points = xcalloc((size_t)pl->npoints + 1, sizeof(*pl->points));
	for (int i = 0; i < pl->npoints; i++) {
		struct plan_point *pt = &pl->points[i], tmp;
		pt->values = xmalloc(sizeof(double) * (size_t)(pl->nparams ? pl->nparams : 1));
		plan_points_get(pl->compact, i, &tmp, pt->values);
		*pt = (struct plan_point){
			.values = pt->values, .nodes = tmp.nodes, .ranks_per_node = tmp.ranks_per_node,
			.policy = tmp.policy ? xstrdup(tmp.policy) : NULL,
			.map = tmp.map ? xstrdup(tmp.map) : NULL,
			.cores_per_rank = tmp.cores_per_rank ? xstrdup(tmp.cores_per_rank) : NULL,
			.repetitions = tmp.repetitions, .core_hours = tmp.core_hours,
			.reason = xstrdup(tmp.reason),
		};
	}
	plan_points_free(pl->compact);
	pl->compact = NULL;
}

int plan_param_is_study_axis(const struct plan_param *p)
{
	return p->role && (!strcmp(p->role, "ranks") || !strcmp(p->role, "ranks_per_node") ||
			   !strcmp(p->role, "threads"));
}

void plan_release(struct plan *pl)
{
	for (int k = 0; k < pl->nparams; k++) {
		free(pl->params[k].name);
		free(pl->params[k].role);
		free(pl->params[k].values);
	}
	plan_points_free(pl->compact);
	for (int i = 0; pl->points && i < pl->npoints; i++) {
		free(pl->points[i].values);
		free(pl->points[i].policy);
		free(pl->points[i].map);
		free(pl->points[i].cores_per_rank);
		free(pl->points[i].reason);
	}
	for (int i = 0; i < pl->npruned; i++) {
		free(pl->pruned[i]);
		free(pl->pruned_why[i]);
	}
	for (int g = 0; g < pl->ngroups; g++) {
		for (int i = 0; i < pl->groups[g].nparams; i++)
			free(pl->groups[g].params[i]);
		for (int i = 0; i < pl->groups[g].nfuncs; i++)
			free(pl->groups[g].funcs[i]);
		free(pl->groups[g].params);
		free(pl->groups[g].funcs);
	}
	for (int i = 0; i < pl->nnotes; i++)
		free(pl->notes[i]);
	free(pl->pruned);
	free(pl->pruned_why);
	free(pl->groups);
	free(pl->notes);
	free(pl->params);
	free(pl->points);
	memset(pl, 0, sizeof(*pl));
}
