/* The campaign collector "cubex": find a run's Score-P profile and collect it (cubex_collect.h). */
#include "collectors/cubex_collect.h"
#include "collectors/cubex.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The single .cubex in dir (profile.cubex preferred), or NULL. */
static char *one_cubex(const char *dir)
{
	char *p = xasprintf("%s/profile.cubex", dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] != '.' && l > 6 && !strcmp(de->d_name + l - 6, ".cubex")) {
			n++;
			if (!found || strcmp(de->d_name, strrchr(found, '/') + 1) < 0) {
				free(found);
				found = xasprintf("%s/%s", dir, de->d_name);
			}
		}
	}
	closedir(d);
	return found;
}

char *cubex_find_profile(const char *run_dir)
{
	char *sub = xasprintf("%s/%s", run_dir, CUBEX_SCOREP_SUBDIR);
	char *p = one_cubex(sub);
	free(sub);
	return p ? p : one_cubex(run_dir);
}

int collect_cubex(const char *run_dir, char *const *metrics, int nmetrics, struct measurement_list *out,
		  struct perr *err)
{
	char *path = cubex_find_profile(run_dir);
	if (!path)
		return perr_set(err, "no Score-P profile in '%s/%s' (is the application instrumented with Score-P?)",
				run_dir, CUBEX_SCOREP_SUBDIR);
	struct cubex c;
	int rc = cubex_open(&c, path, err);
	free(path);
	if (rc < 0)
		return -1;
	rc = cubex_collect(&c, nmetrics > 0 ? metrics : NULL, nmetrics, CUBEX_MEAN, 0, out, err);
	cubex_release(&c);
	return rc;
}
