/*
 * `perfsweep topo [CONFIG]`: print the topology placements are computed on
 * (the host's, or CONFIG's `topology` setting, or --topology), and with
 * --policy/--map the cpuset each local rank would get.
 */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include "campaign/config.h"
#include "placement/census.h"
#include "placement/placement_spec.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The `topology` setting of a campaign config (spec NULL when absent). */
static int config_topology(const char *path, char **spec, char **dir, struct perr *err)
{
	struct campaign_config c;
	*spec = *dir = NULL;
	if (config_load(&c, path, err) < 0) {
		config_release(&c);
		return -1;
	}
	int r = 0;
	if (c.topology)
		*spec = xstrdup(c.topology);
	*dir = xstrdup(c.dir);
	config_release(&c);
	return r;
}

static void add_list(struct strbuf *out, hwloc_const_bitmap_t set)
{
	char *s = NULL;
	hwloc_bitmap_list_asprintf(&s, set);
	strbuf_addstr(out, s ? s : "?");
	free(s);
}

static void describe_placement(const struct topology *t, const struct policy *p,
			       const struct placement *pl, struct strbuf *out)
{
	strbuf_addf(out, "\nplacement:  %s, %d rank%s per node", policy_kind_name(p->kind), pl->nranks,
		    pl->nranks == 1 ? "" : "s");
	if (p->kind != POLICY_EXPLICIT) {
		if (p->cores_per_rank)
			strbuf_addf(out, ", %d core%s per rank", p->cores_per_rank,
				    p->cores_per_rank == 1 ? "" : "s");
		else
			strbuf_addstr(out, ", all cores shared");
	}
	strbuf_addch(out, '\n');
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	for (int i = 0; i < pl->nranks; i++) {
		topology_units_of(t, pl->cpusets[i], cores);
		strbuf_addf(out, "rank %d:%*scores ", i, i < 10 ? 5 : i < 100 ? 4 : 3, "");
		add_list(out, cores);
		strbuf_addstr(out, ", pus ");
		add_list(out, pl->cpusets[i]);
		strbuf_addch(out, '\n');
	}
	hwloc_bitmap_free(cores);
}

static json_t *list_json(hwloc_const_bitmap_t set)
{
	char *s = NULL;
	hwloc_bitmap_list_asprintf(&s, set);
	json_t *j = json_string(s ? s : "");
	free(s);
	return j;
}

/* The --json document: the summary, packages, and the placement if any. */
static json_t *topo_json(const struct topology *t, const struct policy *p, const struct placement *pl)
{
	static const char *const kinds[] = { "host", "synthetic", "xml" };
	struct topology_summary s;
	topology_summarize(t, &s);
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(kinds[t->kind]));
	json_object_set_new(o, "source", t->source ? json_string(t->source) : json_null());
	json_object_set_new(o, "packages", json_integer(s.packages));
	json_object_set_new(o, "numa_nodes", json_integer(s.numa_nodes));
	json_object_set_new(o, "cores", json_integer(s.cores));
	json_object_set_new(o, "pus", json_integer(s.pus));
	json_object_set_new(o, "usable_cores", json_integer(s.usable_units));
	json_t *pkgs = json_array();
	hwloc_bitmap_t units = hwloc_bitmap_alloc(), pus = hwloc_bitmap_alloc(), numa = hwloc_bitmap_alloc();
	for (int k = 0; k < t->npackages; k++) {
		topology_package_sets(t, k, units, pus, numa);
		json_t *j = json_object();
		json_object_set_new(j, "numa", list_json(numa));
		json_object_set_new(j, "cores", list_json(units));
		json_object_set_new(j, "pus", list_json(pus));
		json_array_append_new(pkgs, j);
	}
	json_object_set_new(o, "package_list", pkgs);
	if (t->kind == TOPOLOGY_HOST) {     /* what the disturbed check can read on this machine */
		struct census_signals cs;
		census_signals_probe(&cs);
		json_object_set_new(o, "disturbance_signals",
				    json_pack("{s:b, s:b, s:b, s:b}", "census", cs.last_cpu, "run_queue_delay",
					      cs.schedstat, "cpu_pressure", cs.pressure, "steal_time", cs.steal));
	}
	if (pl) {
		json_t *j = json_object();
		json_object_set_new(j, "policy", json_string(policy_kind_name(p->kind)));
		json_object_set_new(j, "ranks_per_node", json_integer(pl->nranks));
		json_object_set_new(j, "cores_per_rank",
				    p->kind == POLICY_EXPLICIT ? json_null()
				    : p->cores_per_rank       ? json_integer(p->cores_per_rank)
							      : json_string("all"));
		json_t *ranks = json_array();
		for (int i = 0; i < pl->nranks; i++) {
			json_t *r = json_object();
			topology_units_of(t, pl->cpusets[i], units);
			json_object_set_new(r, "local_rank", json_integer(i));
			json_object_set_new(r, "cores", list_json(units));
			json_object_set_new(r, "cpuset", list_json(pl->cpusets[i]));
			json_array_append_new(ranks, r);
		}
		json_object_set_new(j, "ranks", ranks);
		json_object_set_new(o, "placement", j);
	}
	hwloc_bitmap_free(units);
	hwloc_bitmap_free(pus);
	hwloc_bitmap_free(numa);
	return o;
}

static int check_policy(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	enum policy_kind k;
	if (policy_parse_kind(o->arg, &k, err) < 0)
		return -1;
	o->i = k;
	return 0;
}

static int check_ranks(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	if (cli_parse_int(o->arg, 1, 1 << 20, &o->i) < 0)
		return perr_set(err, "invalid ranks per node '%s'", o->arg);
	return 0;
}

static int check_cores(const struct cli_args *a, struct cli_opt *o, struct perr *err)
{
	(void)a;
	int cores;
	if (policy_parse_cores_per_rank(o->arg, &cores, err) < 0)
		return -1;
	o->i = cores;
	return 0;
}

struct topo_request {
	struct policy pol;
	int have_policy, have_cores, ranks;
	const char *map, *topology, *config;
};

/* The placement options and how they combine; 0 or a usage error. */
static int topo_request(const struct cli_args *a, struct topo_request *r)
{
	const struct cli_opt *p = cli_opt(a, 'p'), *c = cli_opt(a, 'c'), *n = cli_opt(a, 'r');
	r->have_policy = p != NULL;
	r->have_cores = c != NULL;
	if (p)
		r->pol.kind = (enum policy_kind)p->i;
	if (c)
		r->pol.cores_per_rank = (int)c->i;
	r->ranks = n ? (int)n->i : 0;
	r->map = cli_value(a, 'm');
	r->topology = cli_value(a, 't');
	r->config = a->nargs ? a->args[0] : NULL;
	/* the one placement contract (placement/placement_spec.h) */
	struct placement_spec ps;
	struct perr err;
	if (placement_spec_parse(&ps, p ? p->arg : NULL, c ? c->arg : NULL, r->map, r->ranks, SPEC_OPTIONS, 0,
				 NULL, &err) < 0)
		return cli_usage("topo", "%s", err.msg);
	r->pol.kind = ps.policy;
	r->pol.cores_per_rank = ps.cores_per_rank;
	if (r->have_cores && !r->have_policy)
		return cli_usage("topo", "--cores-per-rank needs --policy");
	if (r->have_policy && !r->ranks)
		return cli_usage("topo", "--policy needs --ranks-per-node");
	if (r->ranks && !r->have_policy && !r->map)
		return cli_usage("topo", "--ranks-per-node needs --policy or --map");
	return 0;
}

/* The topology description: --topology, else CONFIG's `topology`, else the host (NULL). */
static int topo_spec(const struct topo_request *r, char **spec, char **dir, struct perr *err)
{
	*spec = *dir = NULL;
	if (r->config && config_topology(r->config, spec, dir, err) < 0)
		return -1;
	if (r->topology) {
		free(*spec);
		free(*dir);
		*spec = xstrdup(r->topology);
		*dir = NULL;
	}
	return 0;
}

static void print_topo(const struct topology *t, const struct policy *pol, const struct placement *pl,
		       int json)
{
	if (json) {
		json_t *o = topo_json(t, pol, pl);
		char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(text);
		free(text);
		json_decref(o);
		return;
	}
	struct strbuf out;
	strbuf_init(&out);
	topology_describe(t, &out);
	if (t->kind == TOPOLOGY_HOST) {
		struct census_signals cs;
		census_signals_probe(&cs);
		strbuf_addstr(&out, "disturbance signals: ");
		census_signals_describe(&cs, &out);
		strbuf_addch(&out, '\n');
	}
	if (pl)
		describe_placement(t, pol, pl, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
}

static int exec_topo(struct cli_args *a)
{
	struct perr err;
	struct topo_request r = { .have_policy = 0 };
	policy_init(&r.pol);
	char *spec = NULL, *dir = NULL;
	struct topology t = { 0 };
	struct placement pl = { 0 };
	int loaded = 0, placed = 0, ret = topo_request(a, &r);
	if (ret)
		goto out;
	ret = EXIT_USAGE;
	if (topo_spec(&r, &spec, &dir, &err) < 0 || (r.map && policy_load_map(&r.pol, r.map, &err) < 0) ||
	    topology_load(&t, spec, dir, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	loaded = 1;
	if ((r.have_policy || r.map) && policy_place(&r.pol, &t, r.ranks, &pl, &err) < 0) {
		cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	placed = r.have_policy || r.map;
	print_topo(&t, &r.pol, placed ? &pl : NULL, cli_flag(a, 'j') > 0);
	placement_release(&pl);
	ret = EXIT_OK;
out:
	if (loaded)
		topology_release(&t);
	policy_release(&r.pol);
	free(spec);
	free(dir);
	return ret;
}

static const struct cli_option topo_options[] = {
	{ "topology", 't', 1, NULL, NULL, "DESC|FILE.xml", "a synthetic description or an hwloc XML file instead of this machine", NULL, 0 },
	{ "policy", 'p', 1, check_policy, NULL, "P", "compact or spread: show where the ranks go", NULL, 0 },
	{ "ranks-per-node", 'r', 1, check_ranks, NULL, "R", "with --policy: the ranks per node", "policy", 0 },
	{ "cores-per-rank", 'c', 1, check_cores, NULL, "N|all", "with --policy: the cores per rank", "policy", 0 },
	{ "map", 'm', 1, NULL, NULL, "FILE", "an explicit map, one core set per line", NULL, 0 },
	{ "json", 'j', 0, NULL, NULL, NULL, "print one JSON object", NULL, 0 },
	{ 0 },
};

const struct cli_entry cmd_topo_entry = {
	.name = "topo",
	.synopsis = "[CONFIG]",
	.summary = "show the machine topology placements use, and where ranks would go",
	.help = "Without CONFIG or --topology: this machine.  CONFIG's `topology` setting or\n"
		"--topology give a synthetic description (\"pack:2 numa:1 core:18 pu:1\") or an\n"
		"hwloc XML export (lstopo --of xml).  --topology wins over CONFIG.\n"
		"With --policy compact|spread and --ranks-per-node, or --map FILE (explicit:\n"
		"one core set per line), also print each local rank's cores and PUs.\n"
		"--json prints the same as one JSON object.  See docs/placement.md.",
	.options = topo_options,
	.shortopts = "t:p:r:c:m:j",
	.min_args = 0, .max_args = 1,
	.exec = exec_topo,
};
