/* File system helpers. */
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	/* the whole path first: its parents usually exist (a run directory
	   under runs/), and each mkdir of an existing one is a path walk */
	if (mkdir_one(path) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
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

/* -1 with errno e and *why its text. */
static int fail_errno(int e, const char **why)
{
	*why = strerror(e);
	errno = e;
	return -1;
}

/* 0 for a regular file, else -1 with errno and *why naming what it is. */
static int check_regular(mode_t m, const char **why)
{
	if (S_ISREG(m))
		return 0;
	*why = S_ISDIR(m) ? "it is a directory" : S_ISLNK(m) ? "it is a symbolic link"
	     : S_ISFIFO(m) ? "it is a FIFO, not a regular file"
	     : S_ISSOCK(m) ? "it is a socket, not a regular file"
	     : S_ISCHR(m) || S_ISBLK(m) ? "it is a device, not a regular file"
	     : "it is not a regular file";
	errno = S_ISDIR(m) ? EISDIR : S_ISLNK(m) ? ELOOP : EINVAL;
	return -1;
}

/* Open name (relative to dirfd) once it is known to be a regular file:
   O_NONBLOCK so that nothing swapped in meanwhile can block the open, then
   checked again on the descriptor. */
static int open_checked(int dirfd, const char *name, int nofollow, const char **why)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0))
		return fail_errno(errno, why);
	if (check_regular(st.st_mode, why))
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return fail_errno(errno, why);
	int rc = fstat(fd, &st) ? fail_errno(errno, why) : check_regular(st.st_mode, why);
	int flags = rc ? 0 : fcntl(fd, F_GETFL);
	if (!rc && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)))
		rc = fail_errno(errno, why);
	if (rc) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int fs_open_regular(const char *path, int nofollow, const char **why)
{
	return open_checked(AT_FDCWD, path, nofollow, why);
}

int fs_open_beneath(const char *dir, const char *rel, const char **why)
{
	if (!*rel || rel[0] == '/') {
		*why = "it is not a relative path";
		errno = EINVAL;
		return -1;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail_errno(errno, why);
	char *copy = xstrdup(rel), *save = NULL, *comp = strtok_r(copy, "/", &save);
	int fd = -1;
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(comp, "..")) {
			*why = "it leads out of the directory ('..')";
			errno = EINVAL;
			break;
		}
		if (!next) {
			fd = open_checked(dfd, comp, 1, why);
			break;
		}
		if (strcmp(comp, ".")) {
			struct stat st;
			if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW)) {
				fail_errno(errno, why);
				break;
			}
			if (!S_ISDIR(st.st_mode)) {
				*why = S_ISLNK(st.st_mode) ? "it goes through a symbolic link"
							   : "a part of its path is not a directory";
				errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
				break;
			}
			int sub = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				fail_errno(errno, why);
				break;
			}
			close(dfd);
			dfd = sub;
		}
		comp = next;
	}
	int e = errno;
	free(copy);
	close(dfd);
	errno = e;
	return fd;
}

int fs_read_fd(struct strbuf *sb, int fd)
{
	char tmp[65536];
	for (;;) {
		ssize_t n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		strbuf_add(sb, tmp, (size_t)n);
	}
}

int fs_write_fd(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_write_in_place(const char *path, const char *buf, size_t len, int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (fd < 0)
		return -1;
	int rc = fs_write_fd(fd, buf, len);
	int e = errno;
	if (close(fd) && !rc) {
		rc = -1;
		e = errno;
	}
	errno = e;
	return rc;
}

/* -1 with EFBIG and *why naming limit. */
static int too_large(size_t limit, const char **why)
{
	static char msg[64];
	if (limit >= ((size_t)1 << 20))
		snprintf(msg, sizeof(msg), "it is larger than %zu MiB", limit >> 20);
	else
		snprintf(msg, sizeof(msg), "it is larger than %zu bytes", limit);
	*why = msg;
	errno = EFBIG;
	return -1;
}

int fs_read_fd_bounded(struct strbuf *sb, int fd, size_t limit, const volatile sig_atomic_t *stop,
		       const char **why)
{
	if (!limit)
		limit = FS_READ_LIMIT;
	struct stat st;
	if (!fstat(fd, &st) && st.st_size > 0 && (unsigned long long)st.st_size > limit)
		return too_large(limit, why);
	size_t got = 0;
	char tmp[65536];
	for (;;) {
		if (stop && *stop) {
			*why = "interrupted";
			errno = EINTR;
			return -1;
		}
		/* one byte past the limit tells a file that is larger */
		size_t want = limit - got + 1 < sizeof(tmp) ? limit - got + 1 : sizeof(tmp);
		ssize_t n = read(fd, tmp, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_errno(errno, why);
		if (n == 0)
			return 0;
		if ((size_t)n > limit - got)
			return too_large(limit, why);
		strbuf_add(sb, tmp, (size_t)n);
		got += (size_t)n;
	}
}

int fs_read_file(struct strbuf *sb, const char *path, size_t limit, const char **why)
{
	int fd = fs_open_regular(path, 0, why);
	if (fd < 0)
		return -1;
	int rc = fs_read_fd_bounded(sb, fd, limit, NULL, why);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int fs_read_regular(struct strbuf *sb, const char *path, const char **why)
{
	return fs_read_file(sb, path, FS_READ_LIMIT, why);
}

/* The process's umask, which can only be read by setting it. */
static mode_t current_umask(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return mask;
}

int fs_atomic_open(struct fs_atomic *a, const char *path)
{
	return fs_atomic_open_as(a, path, 0);
}

int fs_atomic_open_as(struct fs_atomic *a, const char *path, int flags)
{
	memset(a, 0, sizeof(*a));
	a->flags = flags;
	struct stat st;
	int exists = !stat(path, &st);
	if (exists && !S_ISREG(st.st_mode)) {
		a->f = fopen(path, "w");
		if (!a->f)
			return -1;
		a->path = xstrdup(path);
		return 0;
	}
	/* a link is written through: its target is the file replaced */
	char *real = exists ? realpath(path, NULL) : NULL;
	a->path = real ? real : xstrdup(path);
	char *d = xstrdup(a->path), *b = xstrdup(a->path);
	a->tmp = xasprintf("%s/.%s.XXXXXX", dirname(d), basename(b));
	free(d);
	free(b);
	int fd = mkostemp(a->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(a->tmp);
		free(a->path);
		memset(a, 0, sizeof(*a));
		errno = e;
		return -1;
	}
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~current_umask()) || !(a->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(a->tmp);
		free(a->tmp);
		free(a->path);
		memset(a, 0, sizeof(*a));
		errno = e;
		return -1;
	}
	return 0;
}

int fs_atomic_commit(struct fs_atomic *a)
{
	int bad = fflush(a->f) || ferror(a->f) || (a->tmp && !(a->flags & FS_ATOMIC_NOSYNC) && fsync(fileno(a->f)));
	int e = errno;
	if (fclose(a->f) && !bad) {
		bad = 1;
		e = errno;
	}
	a->f = NULL;
	if (!bad && a->tmp && rename(a->tmp, a->path)) {
		bad = 1;
		e = errno;
	}
	if (bad && a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
	if (bad)
		errno = e ? e : EIO;
	return bad ? -1 : 0;
}

void fs_atomic_abort(struct fs_atomic *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

int fs_write_file(const char *path, const char *buf, size_t len)
{
	return fs_write_file_as(path, buf, len, 0);
}

/* A temporary file beside path, named by our pid and a count (mkostemp's
   random names cost a getrandom and more per file, and a run writes
   several): created with mode, so that the umask applies as to a new file.
   A name that is taken (a recycled pid's leftover) falls back to
   mkostemp.  The descriptor with *tmp set, or -1. */
static int open_beside(const char *path, mode_t mode, char **tmp)
{
	static _Atomic unsigned long count;
	char *d = xstrdup(path), *b = xstrdup(path);
	const char *dir = dirname(d), *base = basename(b);
	*tmp = xasprintf("%s/.%s.%ld-%lu", dir, base, (long)getpid(), ++count);
	int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST) {
		free(*tmp);
		*tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
		fd = mkostemp(*tmp, O_CLOEXEC);
		if (fd >= 0 && fchmod(fd, mode & ~current_umask())) {
			int e = errno;
			close(fd);
			unlink(*tmp);
			errno = e;
			fd = -1;
		}
	}
	free(d);
	free(b);
	if (fd < 0) {
		int e = errno;
		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return fd;
}

int fs_write_file_as(const char *path, const char *buf, size_t len, int flags)
{
	struct stat st;
	if (lstat(path, &st) && errno == ENOENT) {   /* a new file, the common case: no stdio */
		char *tmp;
		int fd = open_beside(path, 0666, &tmp);
		if (fd < 0)
			return -1;
		int bad = fs_write_fd(fd, buf, len) || (!(flags & FS_ATOMIC_NOSYNC) && fsync(fd));
		int e = errno;
		if (close(fd) && !bad) {
			bad = 1;
			e = errno;
		}
		if (!bad && rename(tmp, path)) {
			bad = 1;
			e = errno;
		}
		if (bad)
			unlink(tmp);
		free(tmp);
		errno = e;
		return bad ? -1 : 0;
	}
	struct fs_atomic a;   /* replacing one: its mode, and a link written through */
	if (fs_atomic_open_as(&a, path, flags))
		return -1;
	if (fwrite(buf, 1, len, a.f) != len) {
		int e = errno;
		fs_atomic_abort(&a);
		errno = e;
		return -1;
	}
	return fs_atomic_commit(&a);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void fs_remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
