/*
 * File system helpers shared by the store, the campaign lock and the notes
 * runs leave in their directories.
 */
#ifndef PS_FSUTIL_H
#define PS_FSUTIL_H
#include <stddef.h>

/* Create path and its missing parents (mode 0755).  0, or -1 with errno:
   ENOENT for an empty path, ENOTDIR when path or a parent exists and is not
   a directory. */
int fs_mkdir_p(const char *path);
/* Replace path with len bytes of data atomically: a temporary file beside
   it, then rename, so a reader finds the old file or the whole new one,
   never a part.  0, or -1 with errno (the temporary file is removed). */
int fs_write_atomic(const char *path, const char *data, size_t len);

#endif
