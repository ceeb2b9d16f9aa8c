/* validate, model and compare's --min-cpu-share and --include-disturbed (analysis_view.h). */
#include "cli/analysis_view.h"
#include <math.h>
#include <string.h>

int analysis_view_check(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_real(o->arg, &o->d) < 0 || o->d < 0 || o->d > 1)
		return perr_set(err, "--min-cpu-share wants a number from 0 to 1 (0.9 for a program that "
				"computes, 0 for one that waits), not '%s'", o->arg);
	return 0;
}

int analysis_view_from(const struct cli_args *a, struct run_usage_view *v)
{
	const struct cli_opt *x = cli_opt(a, OPT_MIN_CPU_SHARE);
	memset(v, 0, sizeof(*v));
	if (x) {
		v->set_min_cpu_share = 1;
		v->min_cpu_share = x->d;
	}
	v->include_disturbed = cli_flag(a, OPT_INCLUDE_DISTURBED) > 0;
	return v->set_min_cpu_share || v->include_disturbed;
}

void analysis_view_note(FILE *f, const struct run_usage_view *v, const struct run_usage *u)
{
	if (!v->set_min_cpu_share && !v->include_disturbed)
		return;
	if (!u) {
		fprintf(f, "analysis view: --min-cpu-share and --include-disturbed change nothing here: the input "
			"is not a campaign (no runs to judge)\n");
		return;
	}
	fprintf(f, "analysis view:");
	if (v->set_min_cpu_share)
		fprintf(f, " --min-cpu-share %g (the campaign's analysis.min_cpu_share is %g)%s", v->min_cpu_share,
			u->campaign_min_cpu_share, v->include_disturbed ? "," : "");
	if (v->include_disturbed)
		fprintf(f, " --include-disturbed (%d of %d runs judged disturbed are in the models; the disturbed "
			"check is off)", u->disturbed.n, u->disturbed.njudged);
	fprintf(f, "; a look at the data, nothing is stored\n");
}

json_t *analysis_view_json(const struct run_usage_view *v, const struct run_usage *u)
{
	double own = u ? u->campaign_min_cpu_share : NAN;
	return json_pack("{s:o, s:o, s:b, s:o}",
			 "min_cpu_share", v->set_min_cpu_share ? json_real(v->min_cpu_share) : isnan(own) ? json_null()
											     : json_real(own),
			 "campaign_min_cpu_share", isnan(own) ? json_null() : json_real(own),
			 "include_disturbed", v->include_disturbed,
			 "disturbed_included", u && v->include_disturbed ? json_integer(u->disturbed.n) : json_null());
}
