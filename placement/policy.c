/*
 * Placement policies (compact, spread, explicit) computed on a topology's
 * usable cores; see policy.h for the rules.
 */
#include "placement/policy.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CORE_INDEX (1 << 20)

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = POLICY_COMPACT;
	p->cores_per_rank = 1;
}

void policy_release(struct policy *p)
{
	for (int i = 0; i < p->nsets; i++)
		hwloc_bitmap_free(p->sets[i]);
	free(p->sets);
	policy_init(p);
}

static const char *const kind_names[] = { "compact", "spread", "explicit" };

int policy_parse_kind(const char *name, enum policy_kind *kind, struct perr *err)
{
	for (int i = 0; i < 3; i++)
		if (name && !strcmp(name, kind_names[i])) {
			*kind = (enum policy_kind)i;
			return 0;
		}
	return perr_set(err, "unknown placement policy '%s' (use compact, spread or explicit)",
			name ? name : "");
}

const char *policy_kind_name(enum policy_kind kind)
{
	return (unsigned)kind < 3 ? kind_names[kind] : "?";
}

int policy_parse_cores_per_rank(const char *s, int *cores, struct perr *err)
{
	if (!strcmp(s, "all")) {
		*cores = 0;
		return 0;
	}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 1 || v > MAX_CORE_INDEX)
		return perr_set(err, "invalid cores per rank '%s' (a positive number or \"all\")", s);
	*cores = (int)v;
	return 0;
}

/* One decimal index at *p; advances *p. */
static int parse_index(const char **p, long *v)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	long n = 0;
	while (isdigit((unsigned char)*s)) {
		n = n * 10 + (*s++ - '0');
		if (n > MAX_CORE_INDEX)
			return -1;
	}
	*v = n;
	*p = s;
	return 0;
}

int policy_parse_cores(const char *s, hwloc_bitmap_t set, struct perr *err)
{
	const char *p = s;
	hwloc_bitmap_zero(set);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		long lo, hi;
		if (parse_index(&p, &lo) < 0)
			goto bad;
		hi = lo;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '-') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (parse_index(&p, &hi) < 0 || hi < lo)
				goto bad;
			while (*p == ' ' || *p == '\t')
				p++;
		}
		hwloc_bitmap_set_range(set, (unsigned)lo, (int)hi);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p)
			goto bad;
		return 0;
	}
bad:
	return perr_set(err, "invalid core set '%s' at column %d (write e.g. \"0-3,8\")", s,
			(int)(p - s) + 1);
}

int policy_add_set(struct policy *p, const char *cores, struct perr *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (policy_parse_cores(cores, set, err) < 0) {
		hwloc_bitmap_free(set);
		return perr_prefix(err, "rank %d", p->nsets);
	}
	p->sets = xrealloc(p->sets, sizeof(*p->sets) * (size_t)(p->nsets + 1));
	p->sets[p->nsets++] = set;
	p->kind = POLICY_EXPLICIT;
	return 0;
}

int policy_parse_map(struct policy *p, const char *text, size_t len, const char *name,
		     struct perr *err)
{
	const char *s = text, *end = text + len;
	int line = 0, nsets0 = p->nsets;
	while (s < end) {
		line++;
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		if (memchr(s, '\0', (size_t)(e - s))) {
			perr_set(err, "%s:%d: NUL byte in the map", name, line);
			goto fail;
		}
		char *l = xstrndup(s, (size_t)(e - s));
		s = nl ? nl + 1 : end;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		size_t n = strlen(l);
		while (n && isspace((unsigned char)l[n - 1]))
			l[--n] = '\0';
		char *b = l;
		while (isspace((unsigned char)*b))
			b++;
		if (*b) {
			hwloc_bitmap_t set = hwloc_bitmap_alloc();
			if (policy_parse_cores(b, set, err) < 0) {
				hwloc_bitmap_free(set);
				free(l);
				perr_prefix(err, "%s:%d", name, line);
				goto fail;
			}
			p->sets = xrealloc(p->sets, sizeof(*p->sets) * (size_t)(p->nsets + 1));
			p->sets[p->nsets++] = set;
		}
		free(l);
	}
	if (p->nsets == nsets0)
		return perr_set(err, "%s: no core set in the map (one line per local rank, e.g. \"0-3\")",
				name);
	p->kind = POLICY_EXPLICIT;
	return 0;
fail:
	while (p->nsets > nsets0)
		hwloc_bitmap_free(p->sets[--p->nsets]);
	return -1;
}

int policy_load_map(struct policy *p, const char *path, struct perr *err)
{
	struct strbuf sb;
	const char *why;
	strbuf_init(&sb);
	if (fs_read_file(&sb, path, 0, &why) < 0) {   /* never /dev/zero, never a FIFO */
		strbuf_release(&sb);
		return perr_set(err, "cannot read placement map '%s': %s", path, why);
	}
	int r = policy_parse_map(p, sb.buf, sb.len, path, err);
	strbuf_release(&sb);
	return r;
}

void placement_release(struct placement *pl)
{
	for (int i = 0; i < pl->nranks; i++)
		hwloc_bitmap_free(pl->cpusets[i]);
	free(pl->cpusets);
	pl->cpusets = NULL;
	pl->nranks = 0;
}

static void placement_alloc(struct placement *out, int nranks)
{
	out->nranks = nranks;
	out->cpusets = xcalloc((size_t)nranks, sizeof(*out->cpusets));
	for (int i = 0; i < nranks; i++)
		out->cpusets[i] = hwloc_bitmap_alloc();
}

/* Turn per-rank unit sets into PU sets. */
static void units_to_cpusets(const struct topology *t, hwloc_bitmap_t *units, struct placement *out)
{
	for (int i = 0; i < out->nranks; i++) {
		int u;
		hwloc_bitmap_zero(out->cpusets[i]);
		hwloc_bitmap_foreach_begin(u, units[i])
			hwloc_bitmap_or(out->cpusets[i], out->cpusets[i], t->unit_pus[u]);
		hwloc_bitmap_foreach_end();
	}
}

/* Take up to want free units of package pkg (-1: any), starting with NUMA node
   numa (-1: in logical order), then the package's other units in order. */
static int take_units(const struct topology *t, char *used, int pkg, int numa, int want,
		      hwloc_bitmap_t into)
{
	int got = 0;
	for (int pass = 0; pass < 2 && got < want; pass++)
		for (int u = 0; u < t->nunits && got < want; u++) {
			if (used[u] || (pkg >= 0 && t->unit_package[u] != pkg))
				continue;
			if (pass == 0 && numa >= 0 && t->unit_numa[u] != numa)
				continue;
			used[u] = 1;
			hwloc_bitmap_set(into, (unsigned)u);
			got++;
		}
	return got;
}

static int free_units(const struct topology *t, const char *used, int pkg)
{
	int n = 0;
	for (int u = 0; u < t->nunits; u++)
		n += !used[u] && (pkg < 0 || t->unit_package[u] == pkg);
	return n;
}

/* The NUMA nodes of package pkg, in logical order of their first unit. */
static int package_numas(const struct topology *t, int pkg, int *numas)
{
	int n = 0;
	for (int u = 0; u < t->nunits; u++) {
		if (t->unit_package[u] != pkg)
			continue;
		int k;
		for (k = 0; k < n && numas[k] != t->unit_numa[u]; k++)
			;
		if (k == n)
			numas[n++] = t->unit_numa[u];
	}
	return n;
}

static void place_spread(const struct topology *t, int nranks, int c, hwloc_bitmap_t *units)
{
	char *used = xcalloc((size_t)t->nunits, 1);
	int *numa_next = xcalloc((size_t)t->npackages, sizeof(int));
	int *numas = xcalloc((size_t)t->nnuma + 1, sizeof(int));
	for (int i = 0; i < nranks; i++) {
		int pkg = -1;
		for (int k = 0; k < t->npackages; k++) {
			int q = (i + k) % t->npackages;
			if (free_units(t, used, q) >= c) {
				pkg = q;
				break;
			}
		}
		int numa = -1;
		if (pkg >= 0) {
			int nn = package_numas(t, pkg, numas);
			/* the next NUMA node of this package with a free unit */
			for (int k = 0; k < nn; k++) {
				int cand = numas[(numa_next[pkg] + k) % nn];
				int has = 0;
				for (int u = 0; u < t->nunits && !has; u++)
					has = !used[u] && t->unit_numa[u] == cand && t->unit_package[u] == pkg;
				if (has) {
					numa = cand;
					numa_next[pkg] = (numa_next[pkg] + k + 1) % nn;
					break;
				}
			}
		}
		/* a package without c free cores left: take free cores anywhere */
		take_units(t, used, pkg, numa, c, units[i]);
	}
	free(used);
	free(numa_next);
	free(numas);
}

/* Units of t inside obj's subtree. */
static void units_under(const struct topology *t, hwloc_obj_t obj, hwloc_bitmap_t into)
{
	for (int u = 0; u < t->nunits; u++)
		if (t->units[u] == obj || hwloc_obj_is_in_subtree(t->hw, t->units[u], obj))
			hwloc_bitmap_set(into, (unsigned)u);
}

/*
 * hwloc_distrib's split, counted in usable units: n blocks over the objects
 * roots[], each object getting a share proportional to its units, recursing
 * until a share is one block or the object is a unit.  A root whose share
 * rounds to zero joins the previous block.
 */
static void split_blocks(const struct topology *t, hwloc_obj_t *roots, unsigned nroots,
			 hwloc_bitmap_t *blocks, unsigned n, hwloc_bitmap_t tmp)
{
	unsigned total = 0, given = 0, given_weight = 0;
	unsigned *weight = xcalloc(nroots, sizeof(unsigned));
	for (unsigned i = 0; i < nroots; i++) {
		hwloc_bitmap_zero(tmp);
		units_under(t, roots[i], tmp);
		weight[i] = (unsigned)hwloc_bitmap_weight(tmp);
		total += weight[i];
	}
	for (unsigned i = 0; i < nroots && total; i++) {
		hwloc_obj_t root = roots[i];
		unsigned w = weight[i];
		if (!w)
			continue;
		unsigned chunk = ((given_weight + w) * n + total - 1) / total -
				 (given_weight * n + total - 1) / total;
		int is_unit = 0;
		for (int u = 0; u < t->nunits && !is_unit; u++)
			is_unit = t->units[u] == root;
		if (!root->arity || chunk <= 1 || is_unit) {
			hwloc_bitmap_zero(tmp);
			units_under(t, root, tmp);
			if (chunk)
				for (unsigned j = 0; j < chunk; j++)
					hwloc_bitmap_copy(blocks[given + j], tmp);
			else if (given)
				hwloc_bitmap_or(blocks[given - 1], blocks[given - 1], tmp);
		} else {
			split_blocks(t, root->children, root->arity, blocks + given, chunk, tmp);
		}
		given += chunk;
		given_weight += w;
	}
	free(weight);
}

static void place_shared(const struct topology *t, int nranks, int spread, hwloc_bitmap_t *units)
{
	hwloc_bitmap_t *blocks = xcalloc((size_t)nranks, sizeof(*blocks));
	for (int i = 0; i < nranks; i++)
		blocks[i] = hwloc_bitmap_alloc();
	hwloc_bitmap_t tmp = hwloc_bitmap_alloc();
	hwloc_obj_t root = hwloc_get_root_obj(t->hw);
	split_blocks(t, &root, 1, blocks, (unsigned)nranks, tmp);
	hwloc_bitmap_free(tmp);
	if (!spread) {
		for (int i = 0; i < nranks; i++)
			hwloc_bitmap_copy(units[i], blocks[i]);
	} else {
		/* deal the blocks round-robin over the packages they lie in */
		char *dealt = xcalloc((size_t)nranks, 1);
		for (int i = 0; i < nranks; i++) {
			int pick = -1;
			for (int k = 0; k < t->npackages && pick < 0; k++) {
				int pkg = (i + k) % t->npackages;
				for (int b = 0; b < nranks && pick < 0; b++)
					if (!dealt[b] &&
					    t->unit_package[hwloc_bitmap_first(blocks[b])] == pkg)
						pick = b;
			}
			dealt[pick] = 1;
			hwloc_bitmap_copy(units[i], blocks[pick]);
		}
		free(dealt);
	}
	for (int i = 0; i < nranks; i++)
		hwloc_bitmap_free(blocks[i]);
	free(blocks);
}

static int place_explicit(const struct policy *p, const struct topology *t, int nranks,
			  hwloc_bitmap_t *units, struct perr *err)
{
	if (nranks > p->nsets)
		return perr_set(err, "the explicit placement has %d core set%s but %d ranks run per node",
				p->nsets, p->nsets == 1 ? "" : "s", nranks);
	for (int i = 0; i < nranks; i++) {
		int last = hwloc_bitmap_last(p->sets[i]);
		if (hwloc_bitmap_iszero(p->sets[i]))
			return perr_set(err, "the core set of rank %d is empty", i);
		if (last >= t->nunits) {
			int missing = hwloc_bitmap_next(p->sets[i], t->nunits - 1);
			return perr_set(err, "the core set of rank %d names core %d, which does not exist "
					"(cores are 0-%d)", i, missing, t->nunits - 1);
		}
		/* the same set twice shares those cores on purpose (an oversubscription
		   study); sets that only partly overlap are a slip */
		for (int j = 0; j < i; j++)
			if (hwloc_bitmap_intersects(p->sets[i], p->sets[j]) &&
			    !hwloc_bitmap_isequal(p->sets[i], p->sets[j])) {
				hwloc_bitmap_t both = hwloc_bitmap_alloc();
				hwloc_bitmap_and(both, p->sets[i], p->sets[j]);
				int core = hwloc_bitmap_first(both);
				hwloc_bitmap_free(both);
				return perr_set(err, "the core sets of ranks %d and %d overlap at core %d", j,
						i, core);
			}
		hwloc_bitmap_copy(units[i], p->sets[i]);
	}
	return 0;
}

int policy_place(const struct policy *p, const struct topology *t, int nranks, struct placement *out,
		 struct perr *err)
{
	memset(out, 0, sizeof(*out));
	if (p->kind == POLICY_EXPLICIT && nranks == 0)
		nranks = p->nsets;
	if (nranks < 1)
		return perr_set(err, "ranks per node must be at least 1, not %d", nranks);
	int c = p->cores_per_rank;
	if (p->kind != POLICY_EXPLICIT) {
		long need = c ? (long)nranks * c : nranks;
		if (need > t->nunits) {
			if (c > 1)
				return perr_set(err, "%d ranks of %d cores each need %ld cores, but the "
						"topology has %d usable cores", nranks, c, need, t->nunits);
			return perr_set(err, "%d ranks need %d cores, but the topology has %d usable "
					"core%s", nranks, nranks, t->nunits, t->nunits == 1 ? "" : "s");
		}
	}
	hwloc_bitmap_t *units = xcalloc((size_t)nranks, sizeof(*units));
	for (int i = 0; i < nranks; i++)
		units[i] = hwloc_bitmap_alloc();
	int r = 0;
	if (p->kind == POLICY_EXPLICIT)
		r = place_explicit(p, t, nranks, units, err);
	else if (c == 0)
		place_shared(t, nranks, p->kind == POLICY_SPREAD, units);
	else if (p->kind == POLICY_SPREAD)
		place_spread(t, nranks, c, units);
	else
		for (int i = 0; i < nranks; i++)
			hwloc_bitmap_set_range(units[i], (unsigned)(i * c), i * c + c - 1);
	if (r == 0) {
		placement_alloc(out, nranks);
		units_to_cpusets(t, units, out);
	}
	for (int i = 0; i < nranks; i++)
		hwloc_bitmap_free(units[i]);
	free(units);
	return r;
}
