/*
 * `perfsweep topo [CONFIG]`: print the topology placements are computed on
 * (the host's, or CONFIG's `topology` setting, or --topology), and with
 * --policy/--map the cpuset each local rank would get.
 */
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "cli/cli.h"
#include "orchestrator/config.h"
#include "placement/placement_spec.h"
#include "placement/policy.h"
#include "placement/topology.h"
#include <getopt.h>
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
	if (c.topology) {
		const char *v = config_setting_get_string(c.topology);
		char where[512];
		if (!v)
			r = perr_set(err, "%s: 'topology' must be a string: a synthetic description "
				     "such as \"pack:2 numa:1 core:18 pu:1\" or an .xml file",
				     config_where(&c, c.topology, where, sizeof(where)));
		else
			*spec = xstrdup(v);
	}
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

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "policy", required_argument, NULL, 'p' },
		{ "ranks-per-node", required_argument, NULL, 'r' },
		{ "cores-per-rank", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct perr err;
	struct policy pol;
	policy_init(&pol);
	const char *topo_opt = NULL, *map = NULL, *policy_s = NULL, *cores_s = NULL;
	int have_policy = 0, have_cores = 0, ranks = 0, json = 0, ret = EXIT_USAGE;
	char *spec = NULL, *dir = NULL;
	struct topology t = { 0 };
	int loaded = 0;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "t:p:r:c:m:j", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 't':
			topo_opt = optarg;
			break;
		case 'p':
			policy_s = optarg;
			break;
		case 'r': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 1 << 20) {
				ret = cli_usage("topo", "invalid ranks per node '%s'", optarg);
				goto out;
			}
			ranks = (int)v;
			break;
		}
		case 'c':
			cores_s = optarg;
			break;
		case 'm':
			map = optarg;
			break;
		default:
			ret = cli_usage("topo", "unknown or incomplete option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (argc - optind > 1) {
		ret = cli_usage("topo", "too many arguments");
		goto out;
	}
	struct placement_spec ps;
	if (placement_spec_parse(&ps, policy_s, cores_s, map, ranks, SPEC_OPTIONS, 0, NULL, &err) < 0) {
		ret = cli_usage("topo", "%s", err.msg);
		goto out;
	}
	pol.kind = ps.policy;
	pol.cores_per_rank = ps.cores_per_rank;
	have_policy = ps.have_policy;
	have_cores = ps.have_cores;
	if (have_cores && !have_policy) {
		ret = cli_usage("topo", "--cores-per-rank needs --policy");
		goto out;
	}
	if (have_policy && !ranks) {
		ret = cli_usage("topo", "--policy needs --ranks-per-node");
		goto out;
	}
	if (ranks && !have_policy && !map) {
		ret = cli_usage("topo", "--ranks-per-node needs --policy or --map");
		goto out;
	}
	if (optind < argc && config_topology(argv[optind], &spec, &dir, &err) < 0) {
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (topo_opt) {
		free(spec);
		free(dir);
		spec = xstrdup(topo_opt);
		dir = NULL;
	}
	if (map && policy_load_map(&pol, map, &err) < 0) {
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (topology_load(&t, spec, dir, &err) < 0) {
		ret = cli_error(EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	loaded = 1;
	struct placement pl = { 0 };
	int placed = 0;
	if (have_policy || map) {
		if (policy_place(&pol, &t, ranks, &pl, &err) < 0) {
			ret = cli_error(EXIT_USAGE, "%s", err.msg);
			goto out;
		}
		placed = 1;
	}
	if (json) {
		json_t *o = topo_json(&t, &pol, placed ? &pl : NULL);
		char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(text);
		free(text);
		json_decref(o);
	} else {
		struct strbuf out;
		strbuf_init(&out);
		topology_describe(&t, &out);
		if (placed)
			describe_placement(&t, &pol, &pl, &out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
	}
	placement_release(&pl);
	ret = EXIT_OK;
out:
	if (loaded)
		topology_release(&t);
	policy_release(&pol);
	free(spec);
	free(dir);
	return ret;
}
