/* The campaign's run lock: flock on DIR/run.lock. */
#include "campaign/campaign_lock.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* "pid N (since TIME)" from the holder's lock file.  A holder writes it
   just after it locks: give it a moment (at most 0.5 s) to do so. */
static void holder(int fd, char *buf, size_t n)
{
	long pid = 0;
	long long since = 0;
	for (int tries = 0;; tries++) {
		char text[128] = "";
		ssize_t got = pread(fd, text, sizeof(text) - 1, 0);
		text[got > 0 ? got : 0] = '\0';
		if (sscanf(text, "pid %ld since %lld", &pid, &since) == 2)
			break;
		if (tries == 100) {
			snprintf(buf, n, "another process");
			return;
		}
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	time_t t = (time_t)since;
	struct tm tm;
	char when[64] = "?";
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	snprintf(buf, n, "pid %ld (since %s)", pid, when);
}

int campaign_lock_take(struct campaign_lock *l, const char *dir, struct perr *err)
{
	l->fd = -1;
	if (!*dir)
		return perr_set(err, "the campaign directory is empty; give --dir a path");
	for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return perr_set(err, "the campaign directory contains a control character "
					"(byte 0x%02x); give --dir a path without one", *p);
	if (fs_mkdir_p(dir))
		return perr_set(err, "cannot create campaign directory '%s': %s", dir, strerror(errno));
	char *path = xasprintf("%s/run.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perr_set(err, "cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		int e = errno;
		char who[160];
		if (e == EWOULDBLOCK)
			holder(fd, who, sizeof(who));
		close(fd);
		if (e != EWOULDBLOCK)
			return perr_set(err, "cannot lock campaign '%s': %s", dir, strerror(e));
		perr_set(err, "campaign %s is being run by %s", dir, who);
		return 1;
	}
	char text[64];
	int len = snprintf(text, sizeof(text), "pid %ld since %lld\n", (long)getpid(),
			   (long long)time(NULL));
	if (ftruncate(fd, 0) || pwrite(fd, text, (size_t)len, 0) != len) {
		int e = errno;
		close(fd);
		return perr_set(err, "cannot write the lock of campaign '%s': %s", dir, strerror(e));
	}
	l->fd = fd;
	return 0;
}

void campaign_lock_release(struct campaign_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);   /* the kernel drops the flock with the last descriptor */
	l->fd = -1;
}
