/*
 * Allocation wrappers that never return NULL: on out-of-memory they print
 * one line and exit(1), so callers do not repeat the check (as tmux does).
 */
#ifndef PS_XALLOC_H
#define PS_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *p (an array of *alloc elements of size elem) to hold at least need. */
void xgrow(void **p, size_t elem, size_t need, size_t *alloc);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Formatted allocation; the caller frees the result. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array variable in place: XGROW(arr, n + 1, alloc) with size_t alloc. */
#define XGROW(arr, need, alloc) xgrow((void **)&(arr), sizeof(*(arr)), (need), &(alloc))

#endif
