/*
 * The archive layer of the CUBE4 reader (cubex.h): inflating gzip and zlib
 * streams, and indexing the members of a tar archive held in memory (ustar,
 * GNU long names, pax paths).  Private to collectors/cubex*.c; nothing here
 * prints.
 */
#ifndef PS_CUBEX_TAR_H
#define PS_CUBEX_TAR_H
#include "collectors/cubex.h"
#include "common/error.h"
#include <stddef.h>

/* The largest anchor.xml we inflate. */
#define CUBEX_MAX_GUNZIP (1u << 30)

/*
 * Inflate a gzip (gzip set) or zlib stream of unknown output size into a new
 * buffer (*out, caller frees) of at most about limit bytes.  0, or -1 when the
 * stream is corrupt, truncated or too large.
 */
int cubex_inflate(const unsigned char *in, size_t inlen, int gzip, unsigned char **out, size_t *outlen,
		  size_t limit);

/*
 * Fill c->members from the tar archive in c->buf (c->len bytes); names lose
 * any leading "./".  0, or -1 with err naming c->path and the byte offset.
 */
int cubex_tar_index(struct cubex *c, struct perr *err);

/* The last member called name, or NULL. */
const struct cubex_member *cubex_member(const struct cubex *c, const char *name);

#endif
