/*
 * The anchor layer of the CUBE4 reader (cubex.h): parse anchor.xml (plain or
 * gzip-compressed) from the indexed archive into c's metrics, regions, cnodes
 * and locations, and mark which metrics have data.  Private to
 * collectors/cubex*.c; libxml2 is kept silent.
 */
#ifndef PS_CUBEX_ANCHOR_H
#define PS_CUBEX_ANCHOR_H
#include "collectors/cubex.h"
#include "common/error.h"

/*
 * Needs c->members (cubex_tar_index).  0, or -1 with err naming c->path,
 * anchor.xml and the line.  On failure c may hold part of the tree; the
 * caller releases it.
 */
int cubex_parse_anchor(struct cubex *c, struct perr *err);

#endif
