/*
 * A string -> int hash map (open addressing).  Keys are copied.  Used for
 * name lookups (callpaths, metrics, parameters) that must stay O(1) when a
 * profile has thousands of call paths.
 */
#ifndef PS_STRMAP_H
#define PS_STRMAP_H
#include <stddef.h>

struct strmap {
	char **keys;
	int *vals;
	size_t cap, count;
};

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);
/* Returns the value for key, or -1 if absent. */
int strmap_get(const struct strmap *m, const char *key);
/* Set key to val (replacing any previous value). */
void strmap_put(struct strmap *m, const char *key, int val);

#endif
