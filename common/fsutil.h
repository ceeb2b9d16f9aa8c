/*
 * File system helpers shared by the store and the campaign lock.
 */
#ifndef PS_FSUTIL_H
#define PS_FSUTIL_H

/* Create path and its missing parents (mode 0755).  0, or -1 with errno:
   ENOENT for an empty path, ENOTDIR when path or a parent exists and is not
   a directory. */
int fs_mkdir_p(const char *path);

#endif
