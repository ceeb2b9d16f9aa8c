/* uint64 -> index hash map with linear probing (see idmap.h). */
#include "common/idmap.h"
#include "common/xalloc.h"
#include <stdlib.h>

static size_t slot_of(const struct idmap *m, uint64_t key)
{
	/* a 64-bit mix (MurmurHash3's finalizer): ids that differ only in
	   their low or high half spread over the whole table */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (m->cap - 1);
}

void idmap_init(struct idmap *m)
{
	*m = (struct idmap){ 0 };
}

void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	idmap_init(m);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find(const struct idmap *m, uint64_t key)
{
	size_t i = slot_of(m, key);
	while (m->vals[i] != IDMAP_NONE && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

size_t idmap_get(const struct idmap *m, uint64_t key)
{
	return m->cap ? m->vals[find(m, key)] : IDMAP_NONE;
}

static void grow(struct idmap *m)
{
	struct idmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xmalloc(m->cap * sizeof(*m->vals));
	for (size_t i = 0; i < m->cap; i++)
		m->vals[i] = IDMAP_NONE;
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i] != IDMAP_NONE) {
			size_t j = find(m, old.keys[i]);
			m->keys[j] = old.keys[i];
			m->vals[j] = old.vals[i];
		}
	free(old.keys);
	free(old.vals);
}

void idmap_put(struct idmap *m, uint64_t key, size_t val)
{
	if ((m->count + 1) * 2 > m->cap)
		grow(m);
	size_t i = find(m, key);
	if (m->vals[i] == IDMAP_NONE)
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void idmap_del(struct idmap *m, uint64_t key)
{
	if (!m->cap)
		return;
	size_t i = find(m, key);
	if (m->vals[i] == IDMAP_NONE)
		return;
	m->count--;
	/* shift back the entries after i that probed past it, so that no
	   lookup stops early at the hole */
	for (size_t j = (i + 1) & (m->cap - 1); m->vals[j] != IDMAP_NONE; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m, m->keys[j]);
		/* j's entry may move to i when its home is not in (i, j] (cyclically) */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->vals[i] = IDMAP_NONE;
}
