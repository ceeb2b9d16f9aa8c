/* File system helpers. */
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

/* mkdir that accepts an existing directory, and only a directory. */
static int mkdir_one(const char *p)
{
	if (mkdir(p, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(p, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int fs_mkdir_p(const char *path)
{
	if (!path || !*path) {
		errno = ENOENT;
		return -1;
	}
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir_one(p)) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir_one(p);
	free(p);
	return r;
}
