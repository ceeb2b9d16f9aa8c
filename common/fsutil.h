/*
 * File system helpers: directories, the one safe way to open a file that
 * someone else wrote (a run's outputs, a dependency file), and the one way
 * perfsweep writes a file for a user (a temporary file renamed on success).
 *
 * The "why" of a refusal is a static phrase that reads after the file's
 * name and a colon: "cannot read 'x': it is a FIFO, not a regular file",
 * or strerror's text for a failed system call.
 */
#ifndef PS_FSUTIL_H
#define PS_FSUTIL_H
#include <signal.h>
#include <stdio.h>

struct strbuf;

/* Create path and its missing parents (mode 0755).  0, or -1 with errno:
   ENOENT for an empty path, ENOTDIR when path or a parent exists and is not
   a directory. */
int fs_mkdir_p(const char *path);
/* Remove path and everything below it, as far as it can; a link in it is
   removed, never followed. */
void fs_remove_tree(const char *path);
/*
 * Open path for reading, a regular file only: never a directory, FIFO,
 * device or socket, and never blocking in open (a FIFO is refused before it
 * is opened).  With nofollow, a symbolic link is refused too.  Returns the
 * descriptor (close-on-exec, blocking reads), or -1 with errno and *why
 * ("it is a FIFO, not a regular file", strerror(errno), ...).
 */
int fs_open_regular(const char *path, int nofollow, const char **why);

/*
 * Open rel, a relative path, inside directory dir: no absolute path, no
 * '..' component, no symbolic link anywhere below dir, and a regular file
 * as for fs_open_regular.  Returns the descriptor or -1 with errno and *why.
 */
int fs_open_beneath(const char *dir, const char *rel, const char **why);

/* Append everything readable from fd to sb; -1 with errno on a read error.
   Unbounded: for a pipe perfsweep made itself; a file goes through
   fs_read_file or fs_read_fd_bounded. */
int fs_read_fd(struct strbuf *sb, int fd);

/*
 * The most perfsweep reads of one input file: a config, a placement map, a
 * dependency file, a template, a run's notes and records (FS_READ_LIMIT);
 * a profile or a file to import (FS_READ_LIMIT_DATA).  A larger file is
 * refused, never read until memory runs out.
 */
#define FS_READ_LIMIT ((size_t)64 << 20)
#define FS_READ_LIMIT_DATA ((size_t)1 << 30)

/*
 * Append what fd holds to sb, at most limit bytes (0: FS_READ_LIMIT):
 * refused when fstat says it is larger, or more comes (it grew, or a file
 * of /proc that says 0).  stop (NULL: never) is looked at between reads of
 * 64 KiB: set, the read ends with EINTR.  0, or -1 with errno (EFBIG past
 * the limit) and *why ("it is larger than 64 MiB", "interrupted").
 */
int fs_read_fd_bounded(struct strbuf *sb, int fd, size_t limit, const volatile sig_atomic_t *stop,
		       const char **why);

/*
 * THE way perfsweep reads a file it is given or finds (configs, maps,
 * dependency files, profiles, templates, notes, records): path, links
 * followed, must be a regular file (fs_open_regular: never a FIFO, device,
 * directory or socket, never blocking) of at most limit bytes (0:
 * FS_READ_LIMIT), read whole and appended to sb.  0, or -1 with errno and
 * *why, which reads after "cannot read 'PATH': ".
 */
int fs_read_file(struct strbuf *sb, const char *path, size_t limit, const char **why);

/* All of buf[0..len) to fd (short writes and EINTR retried): 0, or -1 with errno. */
int fs_write_fd(int fd, const char *buf, size_t len);

/* buf[0..len) as the whole of path, created (mode, less the umask) or
   truncated and written in place: three system calls, for the files of a run
   that only perfsweep and its jobs read (fs_write_file is for a user's).
   0, or -1 with errno. */
int fs_write_in_place(const char *path, const char *buf, size_t len, int mode);

/* fs_read_file with the limit FS_READ_LIMIT. */
int fs_read_regular(struct strbuf *sb, const char *path, const char **why);

/*
 * A file written for a user: written to a temporary file beside path
 * (".NAME.XXXXXX" in the same directory) and renamed over path only by
 * fs_atomic_commit, so a failure leaves an existing path as it was.  The
 * file gets path's mode when path exists, else 0666 less the umask.  A path
 * that exists and is not a regular file (/dev/stdout, a FIFO) is written in
 * place.  Every fs_atomic_open that succeeded ends in exactly one
 * fs_atomic_commit or fs_atomic_abort.
 */
struct fs_atomic {
	FILE *f;                /* write here */
	char *path, *tmp;       /* tmp NULL: written in place */
	int flags;              /* FS_ATOMIC_* */
};

/*
 * FS_ATOMIC_NOSYNC: the file is renamed into place without fsync.  For the
 * notes a run's processes leave each other: a note must outlive its
 * writer's death, which the page cache gives, and one lost in a machine
 * crash only makes its run run again.  A user's file is always synced.
 */
#define FS_ATOMIC_NOSYNC 1

/* 0, or -1 with errno (nothing to abort). */
int fs_atomic_open(struct fs_atomic *a, const char *path);
/* fs_atomic_open with FS_ATOMIC_* flags. */
int fs_atomic_open_as(struct fs_atomic *a, const char *path, int flags);
/* Flush, close and rename: 0, or -1 with errno (the temporary file is removed). */
int fs_atomic_commit(struct fs_atomic *a);
/* Close and remove the temporary file; path stays as it was. */
void fs_atomic_abort(struct fs_atomic *a);

/* buf[0..len) as the whole of path, through fs_atomic (a reader finds the
   old file or the whole new one, never a part): 0, or -1 with errno. */
int fs_write_file(const char *path, const char *buf, size_t len);
/* fs_write_file with FS_ATOMIC_* flags. */
int fs_write_file_as(const char *path, const char *buf, size_t len, int flags);

#endif
