/* String -> int hash map with linear probing (FNV-1a hash). */
#include "common/strmap.h"
#include "common/xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	/* FNV's low bits, which pick the slot, vary little between keys that
	   differ only near their end (a plan's points): mix the high bits in */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

void strmap_init(struct strmap *m)
{
	m->cap = 0;
	m->count = 0;
	m->keys = NULL;
	m->vals = NULL;
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	strmap_init(m);
}

int strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return -1;
	for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return -1;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

static void insert(struct strmap *m, char *key, int val)
{
	size_t i = hash(key) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = val;
}

void strmap_put(struct strmap *m, const char *key, int val)
{
	if (m->cap) {
		for (size_t i = hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
			if (!strcmp(m->keys[i], key)) {
				m->vals[i] = val;
				return;
			}
	}
	if ((m->count + 1) * 2 > m->cap) {
		struct strmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 16;
		m->keys = xcalloc(m->cap, sizeof(*m->keys));
		m->vals = xcalloc(m->cap, sizeof(*m->vals));
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				insert(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	insert(m, xstrdup(key), val);
	m->count++;
}
