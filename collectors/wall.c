/* Wall time per run and per rank. */
#include "collectors/wall.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int collect_wall(const char *run_dir, double run_wall, struct measurement_list *out,
		 struct perr *err)
{
	(void)err;
	if (run_wall >= 0)
		measurement_list_add(out, -1, "main", "time", run_wall);
	DIR *d = opendir(run_dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int r, len = 0;
		if (sscanf(e->d_name, "rank-%d.json%n", &r, &len) != 1 || e->d_name[len] || r < 0)
			continue;
		char *path = xasprintf("%s/%s", run_dir, e->d_name);
		json_t *j = json_load_file(path, 0, NULL);
		free(path);
		json_t *w = j ? json_object_get(j, "wall") : NULL;
		if (w && json_is_number(w))
			measurement_list_add(out, r, "main", "time", json_number_value(w));
		json_decref(j);
	}
	closedir(d);
	return 0;
}
