/* File system helpers. */
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

int fs_write_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r = -1;
	if (fd >= 0) {
		size_t done = 0;
		while (done < len) {
			ssize_t w = write(fd, data + done, len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		if (close(fd) == 0 && done == len && rename(tmp, path) == 0)
			r = 0;
	}
	if (r) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		errno = e;
	}
	free(tmp);
	return r;
}
