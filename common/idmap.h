/*
 * A uint64 -> index hash map (open addressing, linear probing, deletion by
 * backward shift: no tombstones).  For lookups by a numeric id that must
 * stay O(1) when thousands are held: the SLURM backend's tracked jobs.
 */
#ifndef PS_IDMAP_H
#define PS_IDMAP_H
#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE ((size_t)-1)

struct idmap {
	uint64_t *keys;
	size_t *vals;         /* IDMAP_NONE: an empty slot */
	size_t cap, count;
};

void idmap_init(struct idmap *m);
void idmap_release(struct idmap *m);
/* The value for key, or IDMAP_NONE. */
size_t idmap_get(const struct idmap *m, uint64_t key);
/* Set key to val (not IDMAP_NONE), replacing any previous value. */
void idmap_put(struct idmap *m, uint64_t key, size_t val);
/* Remove key, if present. */
void idmap_del(struct idmap *m, uint64_t key);

#endif
