/* The collect section of a campaign config: wall time, regex patterns, a preset, Score-P, sanity checks, limits. */
#include "campaign/config_get.h"
#include "campaign/config_parse.h"
#include "collectors/presets.h"
#include "collectors/wall.h"
#include "common/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A regex pattern's `file`: inside the run directory, and not with `stream`. */
static int check_regex_file(struct campaign_config *c, const config_setting_t *g,
			    const struct regex_pattern *p, struct perr *err)
{
	const char *why;
	if (!p->file)
		return 0;
	if (p->stream)
		return config_error(c, config_setting_get_member(g, "file"), err,
			   "a regex pattern reads either a stream or a file; remove stream or file");
	if (!regex_file_valid(p->file, &why))
		return config_error(c, config_setting_get_member(g, "file"), err,
			   "%s; write a path in the run directory, e.g. file = \"hpccoutf.txt\"", why);
	return 0;
}

void config_free_regex_pattern(struct regex_pattern *p)
{
	free(p->region);
	free(p->metric);
	free(p->pattern);
	free(p->stream);
	free(p->file);
	free(p->aggregate);
}

/* The last collect.regex entry, when a preset's pattern has its region and
   metric, takes that pattern's place: presets are defaults. */
static void replace_preset_pattern(struct campaign_config *c)
{
	struct regex_pattern *p = &c->regex[c->nregex - 1];
	for (int i = 0; i < c->npreset_regex; i++)
		if (!strcmp(c->regex[i].region, p->region) && !strcmp(c->regex[i].metric, p->metric)) {
			config_free_regex_pattern(&c->regex[i]);
			c->regex[i] = *p;
			memset(p, 0, sizeof(*p));
			c->nregex--;
			return;
		}
}

/* A regex pattern's `resolution` (above 0) and `scale` (finite, not 0). */
static int parse_regex_numbers(struct campaign_config *c, const config_setting_t *g, struct regex_pattern *p,
			       struct perr *err)
{
	const config_setting_t *res = config_setting_get_member(g, "resolution");
	const config_setting_t *sc = config_setting_get_member(g, "scale");
	if (config_get_number(c, g, "resolution", &p->resolution, err) ||
	    config_get_number(c, g, "scale", &p->scale, err))
		return -1;
	if (res && !(p->resolution > 0 && isfinite(p->resolution)))
		return config_error(c, res, err, "resolution must be a number above 0, the smallest step of the "
			   "value as printed (after scale), e.g. resolution = 0.001; for milliseconds");
	if (sc && !(p->scale != 0 && isfinite(p->scale)))
		return config_error(c, sc, err, "scale must be a finite number other than 0, e.g. scale = 0.01; "
			   "for a percentage");
	return 0;
}

/* One entry of collect.regex: its keys, defaults, and a pattern with one capture group. */
static int parse_regex_entry(struct campaign_config *c, const config_setting_t *g, int i,
			     struct perr *err)
{
	static const char *const rkeys[] = { "region", "metric", "pattern", "stream", "file", "aggregate",
					     "optional", "resolution", "scale", NULL };
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_error(c, g, err, "regex entry %d must be a group { region; metric; pattern; }", i + 1);
	struct regex_pattern *p = &c->regex[c->nregex++];
	if (config_check_keys(c, g, rkeys, "a regex pattern", err) ||
	    config_get_string(c, g, "region", &p->region, 1, err) ||
	    config_get_string(c, g, "metric", &p->metric, 0, err) ||
	    config_get_string(c, g, "pattern", &p->pattern, 1, err) ||
	    config_get_string(c, g, "stream", &p->stream, 0, err) ||
	    config_get_string(c, g, "file", &p->file, 0, err) ||
	    config_get_string(c, g, "aggregate", &p->aggregate, 0, err) ||
	    config_get_bool(c, g, "optional", &p->optional, err) || parse_regex_numbers(c, g, p, err) ||
	    check_regex_file(c, g, p, err))
		return -1;
	if (p->aggregate && !regex_aggregate_valid(p->aggregate))
		return config_error(c, config_setting_get_member(g, "aggregate"), err,
			   "unknown aggregate '%s'; use last, first, sum, mean, max or min", p->aggregate);
	if (!p->metric)
		p->metric = xstrdup("time");
	if (!p->stream)
		p->stream = xstrdup("stdout");
	if (strcmp(p->stream, "stdout") && strcmp(p->stream, "stderr"))
		return config_error(c, config_setting_get_member(g, "stream"), err,
			   "stream must be \"stdout\" or \"stderr\", not '%s'", p->stream);
	struct regex_prog *re;
	char msg[256];
	int groups;
	if (regex_prog_compile(&re, p->pattern, &groups, msg, sizeof(msg)))
		return config_error(c, config_setting_get_member(g, "pattern"), err,
			   "invalid regular expression: %s", msg);
	regex_prog_free(re);
	if (groups < 1)
		return config_error(c, config_setting_get_member(g, "pattern"), err,
			   "pattern needs one capture group around the number, e.g. \"time: ([0-9.eE+-]+)\"");
	replace_preset_pattern(c);
	return 0;
}

/* collect.cpu_limit (seconds) and collect.memory_limit (MiB): positive. */
static int parse_collect_limits(struct campaign_config *c, const config_setting_t *s, struct perr *err)
{
	int mb = 0;
	if (config_get_number(c, s, "cpu_limit", &c->collect_cpu_limit, err) ||
	    config_get_int(c, s, "memory_limit", INT_MIN, &mb, err))
		return -1;
	const config_setting_t *cpu = config_setting_get_member(s, "cpu_limit");
	if (cpu && !(c->collect_cpu_limit > 0 && c->collect_cpu_limit <= 1e6))
		return config_error(c, cpu, err, "collect.cpu_limit must be a number of seconds above 0 (at most 1e6), "
			   "e.g. cpu_limit = %g;", COLLECT_CPU_LIMIT_DEFAULT);
	const config_setting_t *mem = config_setting_get_member(s, "memory_limit");
	if (mem && (mb < 1 || mb > 1048576))
		return config_error(c, mem, err, "collect.memory_limit must be a number of MiB from 1 to 1048576, "
			   "e.g. memory_limit = %d;", COLLECT_MEMORY_LIMIT_DEFAULT);
	c->collect_memory_limit = mb;
	return 0;
}

/* One collect.sanity entry: a pattern string (stdout or stderr), or { pattern; stream | file; }. */
static int parse_sanity_entry(struct campaign_config *c, const config_setting_t *e, struct perr *err)
{
	struct sanity_check *y = &c->sanity[c->nsanity++];
	const config_setting_t *at = e;
	if (config_setting_type(e) == CONFIG_TYPE_STRING) {
		y->pattern = xstrdup(config_setting_get_string(e));
	} else if (config_setting_type(e) == CONFIG_TYPE_GROUP) {
		static const char *const keys[] = { "pattern", "stream", "file", NULL };
		const char *why;
		if (config_check_keys(c, e, keys, "a sanity check", err) ||
		    config_get_string(c, e, "pattern", &y->pattern, 1, err) ||
		    config_get_string(c, e, "stream", &y->stream, 0, err) || config_get_string(c, e, "file", &y->file, 0, err))
			return -1;
		at = config_setting_get_member(e, "pattern");
		if (y->stream && strcmp(y->stream, "stdout") && strcmp(y->stream, "stderr"))
			return config_error(c, config_setting_get_member(e, "stream"), err,
				   "stream must be \"stdout\" or \"stderr\", not '%s'", y->stream);
		if (y->stream && y->file)
			return config_error(c, e, err, "a sanity check reads either a stream or a file; remove stream or file");
		if (y->file && !regex_file_valid(y->file, &why))
			return config_error(c, config_setting_get_member(e, "file"), err,
				   "%s; write a path in the run directory, e.g. file = \"md.log\"", why);
	} else {
		return config_error(c, e, err, "a sanity check is a pattern string or a group { pattern = \"...\"; "
			   "file = \"md.log\"; }, not %s", config_type_name(config_setting_type(e)));
	}
	if (!*y->pattern)
		return config_error(c, at, err, "an empty sanity pattern matches anything; write the text the "
			   "output must contain, e.g. \"Finished mdrun\"");
	struct regex_prog *re;
	char msg[256];
	int groups;
	if (regex_prog_compile(&re, y->pattern, &groups, msg, sizeof(msg)))
		return config_error(c, at, err, "invalid regular expression: %s", msg);
	regex_prog_free(re);
	return 0;
}

/* collect.sanity = ( "Finished mdrun", { pattern = "..."; file = "md.log"; } ). */
static int parse_sanity(struct campaign_config *c, const config_setting_t *s, struct perr *err)
{
	const config_setting_t *l = config_setting_get_member(s, "sanity");
	if (!l)
		return 0;
	int t = config_setting_type(l);
	if (t == CONFIG_TYPE_STRING || (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY))
		return config_error(c, l, err, "collect.sanity must be a list: sanity = ( \"Finished mdrun\" );");
	int n = config_setting_length(l);
	c->sanity = xcalloc((size_t)n + 1, sizeof(*c->sanity));
	for (int i = 0; i < n; i++)
		if (parse_sanity_entry(c, config_setting_get_elem(l, (unsigned)i), err))
			return -1;
	return 0;
}

/*
 * One series per region and metric: two collectors of the same region and
 * metric would be averaged into one (a: n and b: 100 modelled as 50 +
 * 0.5 n), so a regex pattern may not share both with another pattern, nor
 * with the wall collector (collect.wall) its WALL_REGION/WALL_METRIC.
 */
/* An entry's region and metric as parse_regex_entry read them (metric "time" by default). */
static void entry_identity(const config_setting_t *g, const char **region, const char **metric)
{
	if (!config_setting_lookup_string(g, "region", region))
		*region = "";
	if (!config_setting_lookup_string(g, "metric", metric))
		*metric = "time";
}

/* Over the collect.regex entries as written (a preset's patterns that an
   entry replaces are no second series). */
static int check_collector_identity(struct campaign_config *c, const config_setting_t *rx,
				    struct perr *err)
{
	int n = rx ? config_setting_length(rx) : 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(rx, (unsigned)i);
		const char *region, *metric;
		entry_identity(g, &region, &metric);
		if (c->collect_wall && !strcmp(region, WALL_REGION) && !strcmp(metric, WALL_METRIC))
			return config_error(c, g, err, "regex entry %d measures region '%s' metric '%s', which "
					    "the wall collector measures (collect.wall = true); give the pattern "
					    "another region or metric, or set wall = false", i + 1, region, metric);
		for (int k = 0; k < i; k++) {
			const config_setting_t *h = config_setting_get_elem(rx, (unsigned)k);
			const char *r2, *m2;
			entry_identity(h, &r2, &m2);
			if (!strcmp(r2, region) && !strcmp(m2, metric))
				return config_error(c, g, err, "regex entries %d and %d both measure region "
						    "'%s' metric '%s' (line %d), which would average them into "
						    "one series; give each its own metric", k + 1, i + 1, region,
						    metric, config_setting_source_line(h));
		}
	}
	return 0;
}

/*
 * collect.preset = "lammps": the preset's patterns first in c->regex
 * (room for nuser more after them), so that a collect.regex entry of the
 * same region and metric replaces one (parse_regex_entry).
 */
static int parse_preset(struct campaign_config *c, const config_setting_t *s, int nuser, struct perr *err)
{
	const struct collect_preset *p = NULL;
	if (config_get_string(c, s, "preset", &c->collect_preset, 0, err))
		return -1;
	if (c->collect_preset && !(p = collect_preset_find(c->collect_preset))) {
		char names[128];
		collect_preset_names(names, sizeof(names));
		return config_error(c, config_setting_get_member(s, "preset"), err,
				    "unknown preset '%s'; use %s, or write collect.regex patterns", c->collect_preset,
				    names);
	}
	int np = p ? collect_preset_count(p) : 0;
	c->regex = xcalloc((size_t)(np + nuser) + 1, sizeof(*c->regex));
	if (p)
		collect_preset_expand(p, c->regex);
	c->nregex = c->npreset_regex = np;
	return 0;
}

/* The metrics a preset says are better higher, unless analysis lists them as lower. */
void config_add_preset_better(struct campaign_config *c)
{
	const struct collect_preset *p = collect_preset_find(c->collect_preset);
	for (const char *const *m = p ? collect_preset_higher_is_better(p) : NULL; m && *m; m++) {
		int listed = 0;
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < c->nbetter[k]; i++)
				listed |= !strcmp(c->better[k][i], *m);
		if (listed)
			continue;
		c->better[1] = xrealloc(c->better[1], sizeof(char *) * (size_t)(c->nbetter[1] + 2));
		c->better[1][c->nbetter[1]++] = xstrdup(*m);
		c->better[1][c->nbetter[1]] = NULL;
	}
}

int config_parse_collect(struct campaign_config *c, struct perr *err)
{
	c->collect_wall = 1;
	const config_setting_t *s = config_lookup(&c->cfg, "collect");
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return config_error(c, s, err, "'collect' must be a group: collect = { wall = true; regex = ( ... ); };");
	static const char *const keys[] = { "wall", "regex", "cubex", "cpu_limit", "memory_limit", "sanity",
					    "preset", NULL };
	if (config_check_keys(c, s, keys, "collect", err) || config_get_bool(c, s, "wall", &c->collect_wall, err) ||
	    parse_collect_limits(c, s, err) || parse_sanity(c, s, err))
		return -1;
	const config_setting_t *rx = config_setting_get_member(s, "regex");
	if (rx && config_setting_type(rx) != CONFIG_TYPE_LIST)
		return config_error(c, rx, err, "collect.regex must be a list of groups: regex = ( { region = \"r\"; metric = \"time\"; pattern = \"r: ([0-9.eE+-]+)\"; } );");
	int n = rx ? config_setting_length(rx) : 0;
	if (parse_preset(c, s, n, err))
		return -1;
	for (int i = 0; i < n; i++)
		if (parse_regex_entry(c, config_setting_get_elem(rx, (unsigned)i), i, err))
			return -1;
	if (check_collector_identity(c, rx, err))
		return -1;
	const config_setting_t *cx = config_setting_get_member(s, "cubex");
	if (cx) {
		if (config_setting_type(cx) == CONFIG_TYPE_BOOL) {
			c->collect_cubex = config_setting_get_bool(cx);
		} else if (config_setting_type(cx) == CONFIG_TYPE_GROUP) {
			static const char *const ckeys[] = { "metrics", NULL };
			if (config_check_keys(c, cx, ckeys, "collect.cubex", err))
				return -1;
			c->collect_cubex = 1;
			const config_setting_t *m = config_setting_get_member(cx, "metrics");
			if (m && config_get_strings(c, m, "metrics", &c->cubex_metrics, &c->ncubex_metrics, err))
				return -1;
		} else {
			return config_error(c, cx, err, "collect.cubex must be true or a group { metrics = [\"time\", \"visits\"]; }");
		}
		if (c->collect_cubex && !c->ncubex_metrics) {
			c->cubex_metrics = xcalloc(3, sizeof(char *));
			c->cubex_metrics[0] = xstrdup("time");
			c->cubex_metrics[1] = xstrdup("visits");
			c->ncubex_metrics = 2;
		}
	}
	return 0;
}
