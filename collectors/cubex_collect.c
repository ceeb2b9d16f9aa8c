/* The campaign collector "cubex": find a run's Score-P profile and collect it (cubex_collect.h). */
#include "collectors/cubex_collect.h"
#include "collectors/cubex.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cubex_list_profiles(const char *dir, char ***out, int *n)
{
	DIR *d = opendir(dir);
	*out = NULL;
	*n = 0;
	if (!d)
		return -1;
	struct dirent *de;
	size_t alloc = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 6, ".cubex"))
			continue;
		XGROW(*out, (size_t)*n + 1, alloc);
		(*out)[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*out, (size_t)*n, sizeof(char *), cmp_str);
	return 0;
}

/* The single .cubex in dir (profile.cubex preferred, else the first by name), or NULL. */
static char *one_cubex(const char *dir)
{
	char *p = xasprintf("%s/profile.cubex", dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	char **files;
	int n;
	if (cubex_list_profiles(dir, &files, &n) < 0 || n == 0)
		return NULL;
	for (int i = 1; i < n; i++)
		free(files[i]);
	p = files[0];
	free(files);
	return p;
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
