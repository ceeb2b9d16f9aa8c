/* Sanity checks over a finished run's output (sanity.h). */
#include "collectors/sanity.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Look for re in the file name of run_dir: 1 found, 0 not (*absent when the
   file is not there), -1 err. */
static int find_in(const char *run_dir, const char *name, const struct regex_prog *re,
		   const struct collect_limits *lim, int *absent, struct perr *err)
{
	const char *why;
	long mb = lim && lim->memory_mb > 0 ? lim->memory_mb : COLLECT_MEMORY_LIMIT_DEFAULT;
	*absent = 0;
	int fd = fs_open_beneath(run_dir, name, &why);
	if (fd < 0) {
		if (errno == ENOENT)
			return *absent = 1, 0;
		return perr_set(err, "cannot read '%s' in the run directory: %s", name, why);
	}
	struct stat st;
	struct strbuf text;
	strbuf_init(&text);
	int rc;
	if (!fstat(fd, &st) && st.st_size > (off_t)mb << 20)
		rc = perr_set(err, "'%s' is larger than the memory limit of %ld MiB (collect.memory_limit)", name, mb);
	else if (fs_read_fd(&text, fd))
		rc = perr_set(err, "cannot read '%s' in the run directory: %s", name, strerror(errno));
	else
		rc = regex_find_mem(re, text.buf, text.len, name, lim, err);
	close(fd);
	strbuf_release(&text);
	return rc;
}

/* One check: 1 found, 0 not (*why), -1 err. */
static int check_one(const char *run_dir, const struct sanity_check *k, const struct regex_prog *re,
		     const struct collect_limits *lim, char **why, struct perr *err)
{
	const char *names[2] = { k->file ? k->file : k->stream ? k->stream : "stdout",
				 !k->file && !k->stream ? "stderr" : NULL };
	int absent[2] = { 0, 0 };
	for (int i = 0; i < 2 && names[i]; i++) {
		int rc = find_in(run_dir, names[i], re, lim, &absent[i], err);
		if (rc)
			return rc;
	}
	if (k->file && absent[0])
		*why = xasprintf("sanity check failed: file '%s' is missing in the run directory (looking for "
				 "\"%s\")", k->file, k->pattern);
	else
		*why = xasprintf("sanity check failed: \"%s\" not found in %s%s%s", k->pattern, names[0],
				 names[1] ? " or " : "", names[1] ? names[1] : "");
	return 0;
}

int sanity_check_run(const char *run_dir, const struct sanity_check *checks, int n,
		     const struct collect_limits *lim, char **why, struct perr *err)
{
	*why = NULL;
	for (int i = 0; i < n; i++) {
		struct regex_prog *re;
		char msg[256];
		int groups;
		if (regex_prog_compile(&re, checks[i].pattern, &groups, msg, sizeof(msg)))
			return perr_set(err, "sanity pattern \"%s\": %s", checks[i].pattern, msg);
		int rc = check_one(run_dir, &checks[i], re, lim, why, err);
		regex_prog_free(re);
		if (rc < 0)
			return -1;
		if (!rc)
			return 1;
	}
	return 0;
}
