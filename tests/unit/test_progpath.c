/* common/progpath: companion programs beside the executable, then in PATH. */
#include "common/progpath.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *make_file(const char *dir, const char *sub, mode_t mode)
{
	char *d = xasprintf("%s/%s", dir, sub);
	mkdir(d, 0755);
	char *f = xasprintf("%s/tool", d);
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd >= 0)
		close(fd);
	chmod(f, mode);
	free(f);
	return d;
}

int main(void)
{
	const char *tmp = tap_tmpdir();
	char *self = make_file(tmp, "self", 0755);
	char *a = make_file(tmp, "a", 0755);
	char *noexec = make_file(tmp, "noexec", 0644);
	char *empty = xasprintf("%s/empty", tmp);
	mkdir(empty, 0755);
	char *want_self = xasprintf("%s/tool", self), *want_a = xasprintf("%s/tool", a);
	char *path = xasprintf("%s:%s:%s", noexec, empty, a);

	char *got = progpath_find_in("tool", self, path);
	is_str(got, want_self, "beside the executable wins over PATH");
	free(got);
	got = progpath_find_in("tool", empty, path);
	is_str(got, want_a, "else the first executable in PATH, skipping a non-executable file");
	free(got);
	got = progpath_find_in("tool", NULL, path);
	is_str(got, want_a, "without the executable's directory: PATH alone");
	free(got);
	ok(progpath_find_in("tool", empty, noexec) == NULL, "a non-executable file is never returned");
	ok(progpath_find_in("tool", NULL, NULL) == NULL, "no directory, no PATH: NULL");
	ok(progpath_find_in("tool", NULL, "::relative/dir:") == NULL, "empty and relative PATH entries are skipped");
	got = progpath_find("sh");
	ok(got && got[0] == '/', "progpath_find finds sh in PATH as an absolute path (%s)", got ? got : "NULL");
	free(got);
	free(self); free(a); free(noexec); free(empty); free(want_self); free(want_a); free(path);
	return done_testing();
}
