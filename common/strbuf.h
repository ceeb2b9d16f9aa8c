/*
 * A growable string.  buf is never NULL after strbuf_init and is always
 * NUL-terminated; len excludes the terminator.
 */
#ifndef PS_STRBUF_H
#define PS_STRBUF_H
#include <stddef.h>

/*
 * libconfig exports strbuf_release/strbuf_append of its own; our functions
 * get prefixed link names so that neither interposes the other.
 */
#define strbuf_init ps_strbuf_init
#define strbuf_release ps_strbuf_release
#define strbuf_reset ps_strbuf_reset
#define strbuf_add ps_strbuf_add
#define strbuf_addstr ps_strbuf_addstr
#define strbuf_addch ps_strbuf_addch
#define strbuf_addf ps_strbuf_addf
#define strbuf_add_html ps_strbuf_add_html
#define strbuf_detach ps_strbuf_detach
#define strbuf_read_file ps_strbuf_read_file

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
/* s with <, >, & and " escaped for HTML text and attributes; NULL adds nothing. */
void strbuf_add_html(struct strbuf *sb, const char *s);
/* Hand the buffer to the caller, who frees it.  sb is left empty: it needs
   no strbuf_release, and strbuf_init before any further use. */
char *strbuf_detach(struct strbuf *sb);
/* Read a whole file through fs_read_file (a regular file of at most
   FS_READ_LIMIT bytes); -1 with errno set on failure.  fs_read_file also
   says why. */
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
