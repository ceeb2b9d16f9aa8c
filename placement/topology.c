/*
 * Loading a topology through hwloc and listing its usable cores (units) in
 * logical order, with the package and NUMA node each belongs to.
 */
#include "placement/topology.h"
#include "common/xalloc.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int ends_with_xml(const char *s)
{
	size_t n = strlen(s);
	return n >= 4 && !strcasecmp(s + n - 4, ".xml");
}

/* Index of v in the small array ids[0..*n), appending it when absent. */
static int index_of(unsigned *ids, int *n, unsigned v)
{
	for (int i = 0; i < *n; i++)
		if (ids[i] == v)
			return i;
	ids[*n] = v;
	return (*n)++;
}

static void collect_units(struct topology *t)
{
	hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
										  : HWLOC_OBJ_PU;
	int n = hwloc_get_nbobjs_by_type(t->hw, type);
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t->hw);
	t->units = xcalloc((size_t)n + 1, sizeof(*t->units));
	t->unit_pus = xcalloc((size_t)n + 1, sizeof(*t->unit_pus));
	t->unit_package = xcalloc((size_t)n + 1, sizeof(int));
	t->unit_numa = xcalloc((size_t)n + 1, sizeof(int));
	t->unit_id = xcalloc((size_t)n + 1, sizeof(int));
	unsigned *pkg_ids = xcalloc((size_t)n + 1, sizeof(unsigned));
	unsigned *numa_ids = xcalloc((size_t)n + 1, sizeof(unsigned));
	int npkg = 0, nnuma = 0;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->hw, type, (unsigned)i);
		hwloc_bitmap_t pus = hwloc_bitmap_alloc();
		hwloc_bitmap_and(pus, o->cpuset, allowed);
		if (hwloc_bitmap_iszero(pus)) {
			hwloc_bitmap_free(pus);
			continue;
		}
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, o);
		int numa = o->nodeset ? hwloc_bitmap_first(o->nodeset) : -1;
		int k = t->nunits++;
		t->units[k] = o;
		t->unit_pus[k] = pus;
		t->unit_id[k] = k;
		t->unit_package[k] = index_of(pkg_ids, &npkg, pkg ? pkg->logical_index : 0);
		t->unit_numa[k] = index_of(numa_ids, &nnuma, numa < 0 ? 0 : (unsigned)numa);
	}
	t->npackages = npkg;
	t->nnuma = nnuma;
	free(pkg_ids);
	free(numa_ids);
}

/* hwloc builds every object of a synthetic topology: bound its size. */
#define MAX_SYNTHETIC_PUS 65536

/* The product of the level counts of a synthetic description ("pack:2
   core:18 pu:1" -> 36), saturating above MAX_SYNTHETIC_PUS. */
static unsigned long long synthetic_pus(const char *spec)
{
	unsigned long long n = 1;
	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, " \t");
		const char *colon = memchr(p, ':', len);
		if (colon && colon[1] >= '0' && colon[1] <= '9') {
			unsigned long long k = strtoull(colon + 1, NULL, 10);
			n = k > MAX_SYNTHETIC_PUS || n * k > MAX_SYNTHETIC_PUS ? MAX_SYNTHETIC_PUS + 1ULL
									      : n * k;
		}
		p += len;
		p += strspn(p, " \t");
	}
	return n;
}

int topology_load(struct topology *t, const char *spec, const char *basedir, struct perr *err)
{
	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&t->hw) < 0)
		return perr_set(err, "cannot initialise hwloc: %s", strerror(errno));
	if (!spec || !*spec) {
		t->kind = TOPOLOGY_HOST;
	} else if (ends_with_xml(spec)) {
		t->kind = TOPOLOGY_XML;
		t->source = basedir && spec[0] != '/' ? xasprintf("%s/%s", basedir, spec) : xstrdup(spec);
		if (access(t->source, R_OK) < 0) {
			perr_set(err, "cannot read topology file '%s': %s", t->source, strerror(errno));
			goto fail;
		}
		if (hwloc_topology_set_xml(t->hw, t->source) < 0) {
			perr_set(err, "'%s' is not a usable hwloc XML topology", t->source);
			goto fail;
		}
	} else {
		t->kind = TOPOLOGY_SYNTHETIC;
		t->source = xstrdup(spec);
		unsigned long long pus = synthetic_pus(spec);
		if (pus > MAX_SYNTHETIC_PUS) {
			perr_set(err, "synthetic topology '%s' has more than %d processing units; "
				 "describe a smaller machine", spec, MAX_SYNTHETIC_PUS);
			goto fail;
		}
		if (hwloc_topology_set_synthetic(t->hw, spec) < 0) {
			perr_set(err, "invalid synthetic topology '%s' (write e.g. \"pack:2 numa:1 core:18 pu:1\")",
				 spec);
			goto fail;
		}
	}
	if (hwloc_topology_load(t->hw) < 0) {
		if (t->kind == TOPOLOGY_XML)
			perr_set(err, "'%s' is not a usable hwloc XML topology", t->source);
		else
			perr_set(err, "cannot load the %s topology: %s",
				 t->kind == TOPOLOGY_HOST ? "host's" : "synthetic", strerror(errno));
		goto fail;
	}
	collect_units(t);
	if (t->nunits == 0) {
		perr_set(err, "the topology has no usable core");
		goto fail;
	}
	return 0;
fail:
	topology_release(t);
	return -1;
}

void topology_release(struct topology *t)
{
	if (t->hw)
		hwloc_topology_destroy(t->hw);
	for (int i = 0; i < t->nunits; i++)
		hwloc_bitmap_free(t->unit_pus[i]);
	free(t->units);
	free(t->unit_pus);
	free(t->unit_package);
	free(t->unit_numa);
	free(t->unit_id);
	free(t->source);
	memset(t, 0, sizeof(*t));
}

/* Renumber ids[0..n) densely in order of first appearance. */
static int renumber(int *ids, int n)
{
	int *seen = xcalloc((size_t)n + 1, sizeof(int)), m = 0;
	for (int i = 0; i < n; i++) {
		int k = 0;
		while (k < m && seen[k] != ids[i])
			k++;
		if (k == m)
			seen[m++] = ids[i];
		ids[i] = k;
	}
	free(seen);
	return m;
}

int topology_restrict(struct topology *t, hwloc_const_bitmap_t units, struct perr *err)
{
	int last = hwloc_bitmap_last(units);
	if (hwloc_bitmap_iszero(units) || last < 0)
		return perr_set(err, "no cores to restrict the placement to");
	if (last >= t->nunits)
		return perr_set(err, "core %d does not exist (cores are 0-%d)", last, t->nunits - 1);
	int k = 0;
	for (int u = 0; u < t->nunits; u++) {
		if (!hwloc_bitmap_isset(units, (unsigned)u)) {
			hwloc_bitmap_free(t->unit_pus[u]);
			continue;
		}
		t->units[k] = t->units[u];
		t->unit_pus[k] = t->unit_pus[u];
		t->unit_package[k] = t->unit_package[u];
		t->unit_numa[k] = t->unit_numa[u];
		t->unit_id[k] = t->unit_id[u];
		k++;
	}
	t->nunits = k;
	t->npackages = renumber(t->unit_package, k);
	t->nnuma = renumber(t->unit_numa, k);
	return 0;
}

int topology_is_this_system(const struct topology *t)
{
	return t->kind == TOPOLOGY_HOST && hwloc_topology_is_thissystem(t->hw);
}

void topology_summarize(const struct topology *t, struct topology_summary *s)
{
	int n;
	n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PACKAGE);
	s->packages = n < 0 ? 0 : n;
	n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
	s->numa_nodes = n < 0 ? 0 : n;
	n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE);
	s->cores = n < 0 ? 0 : n;
	n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PU);
	s->pus = n < 0 ? 0 : n;
	s->usable_units = t->nunits;
}

/* Append the list string of a bitmap ("0-5,8"). */
static void add_list(struct strbuf *out, hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s) {
		strbuf_addstr(out, "?");
		return;
	}
	strbuf_addstr(out, s);
	free(s);
}

void topology_describe(const struct topology *t, struct strbuf *out)
{
	struct topology_summary s;
	topology_summarize(t, &s);
	switch (t->kind) {
	case TOPOLOGY_HOST: {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		strbuf_addf(out, "topology:   this machine (%s)\n", host);
		break;
	}
	case TOPOLOGY_SYNTHETIC:
		strbuf_addf(out, "topology:   synthetic \"%s\"\n", t->source);
		break;
	case TOPOLOGY_XML:
		strbuf_addf(out, "topology:   xml '%s'\n", t->source);
		break;
	}
	strbuf_addf(out, "packages:   %d\nnuma nodes: %d\ncores:      %d\npus:        %d\n", s.packages,
		    s.numa_nodes, s.cores, s.pus);
	if (s.usable_units != (s.cores ? s.cores : s.pus))
		strbuf_addf(out, "usable:     %d %s\n", s.usable_units, s.cores ? "cores" : "pus");
	/* one line per package: its usable cores (logical) and PUs (OS indexes) */
	hwloc_bitmap_t cores = hwloc_bitmap_alloc(), pus = hwloc_bitmap_alloc(),
		       numa = hwloc_bitmap_alloc();
	for (int p = 0; p < t->npackages; p++) {
		topology_package_sets(t, p, cores, pus, numa);
		strbuf_addf(out, "package %d:  numa ", p);
		add_list(out, numa);
		strbuf_addf(out, ", %s ", s.cores ? "cores" : "units");
		add_list(out, cores);
		strbuf_addstr(out, ", pus ");
		add_list(out, pus);
		strbuf_addch(out, '\n');
	}
	hwloc_bitmap_free(cores);
	hwloc_bitmap_free(pus);
	hwloc_bitmap_free(numa);
}

void topology_package_sets(const struct topology *t, int pkg, hwloc_bitmap_t units, hwloc_bitmap_t pus,
			   hwloc_bitmap_t numa)
{
	hwloc_bitmap_zero(units);
	hwloc_bitmap_zero(pus);
	hwloc_bitmap_zero(numa);
	for (int u = 0; u < t->nunits; u++) {
		if (t->unit_package[u] != pkg)
			continue;
		hwloc_bitmap_set(units, (unsigned)u);
		hwloc_bitmap_or(pus, pus, t->unit_pus[u]);
		if (t->units[u]->nodeset)
			hwloc_bitmap_or(numa, numa, t->units[u]->nodeset);
	}
}

void topology_units_of(const struct topology *t, hwloc_const_bitmap_t pus, hwloc_bitmap_t units)
{
	hwloc_bitmap_zero(units);
	for (int u = 0; u < t->nunits; u++)
		if (hwloc_bitmap_intersects(t->unit_pus[u], pus))
			hwloc_bitmap_set(units, (unsigned)t->unit_id[u]);
}
