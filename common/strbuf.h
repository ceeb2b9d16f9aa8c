/*
 * A growable string.  buf is never NULL after strbuf_init and is always
 * NUL-terminated; len excludes the terminator.
 */
#ifndef PS_STRBUF_H
#define PS_STRBUF_H
#include <stddef.h>

/*
 * libconfig 1.5 exports its own strbuf_release() and strbuf_append(); a
 * program that defines a global strbuf_release interposes on libconfig's
 * and corrupts its scanner (invalid free while parsing any string).  Our
 * symbols therefore carry a ps_ prefix; the API names stay the same.
 */
#define strbuf_release ps_strbuf_release

struct strbuf {
	char *buf;
	size_t len, alloc;
};

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the buffer to the caller, who frees it; sb is re-initialised. */
char *strbuf_detach(struct strbuf *sb);
/* Read a whole file; returns -1 with errno set on failure. */
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
