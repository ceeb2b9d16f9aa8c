/* Companion programs: beside the running executable, then in PATH. */
#include "common/progpath.h"
#include "common/xalloc.h"
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir/name if that is an executable regular file (absolute), else NULL. */
static char *try_dir(const char *dir, size_t len, const char *name)
{
	struct stat st;
	if (!len)               /* an empty PATH entry is the working directory: skip it */
		return NULL;
	char *p = xasprintf("%.*s/%s", (int)len, dir, name);
	if (!stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK)) {
		char *abs = realpath(p, NULL);
		if (abs) {
			free(p);
			return abs;
		}
	}
	free(p);
	return NULL;
}

char *progpath_find_in(const char *name, const char *self_dir, const char *path)
{
	char *found = self_dir ? try_dir(self_dir, strlen(self_dir), name) : NULL;
	for (const char *p = path; !found && p && *p;) {
		size_t len = strcspn(p, ":");
		if (p[0] == '/')
			found = try_dir(p, len, name);
		p += len;
		p += *p == ':';
	}
	return found;
}

char *progpath_find(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *dir = NULL;
	if (n > 0) {
		self[n] = '\0';
		dir = dirname(self);
	}
	return progpath_find_in(name, dir, getenv("PATH"));
}
