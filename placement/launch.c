/* The perfsweep-bind command line both backends put before the application. */
#include "placement/launch.h"
#include "common/xalloc.h"
#include <stdlib.h>
#include <string.h>

char **launch_argv(const char *bind_path, const struct launch_placement *lp)
{
	char **av = xcalloc(12, sizeof(char *));
	int k = 0;
	av[k++] = xstrdup(bind_path);
	int explicit_map = lp->map && !strcmp(lp->policy, "explicit");
	av[k++] = xstrdup("--policy");
	av[k++] = xstrdup(lp->policy);
	if (lp->ranks_per_node > 0) {
		av[k++] = xstrdup("--ranks-per-node");
		av[k++] = xasprintf("%d", lp->ranks_per_node);
	}
	if (explicit_map) {
		av[k++] = xstrdup("--map");
		av[k++] = xstrdup(lp->map);
	} else {
		if (lp->cores_per_rank) {
			av[k++] = xstrdup("--cores-per-rank");
			av[k++] = xstrdup(lp->cores_per_rank);
		}
		if (lp->within) {
			av[k++] = xstrdup("--within");
			av[k++] = xstrdup(lp->within);
		}
	}
	av[k++] = xstrdup("--");
	return av;
}

void launch_argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}
