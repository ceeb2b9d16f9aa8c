/*
 * The launcher's command line: how both backends start a rank through
 * perfsweep-bind.  One function builds it, so the local backend's argv and
 * the SLURM job script's srun line never disagree.
 */
#ifndef PS_LAUNCH_H
#define PS_LAUNCH_H

struct launch_placement {
	const char *policy;         /* "compact", "spread" or "explicit" */
	int ranks_per_node;         /* 0: perfsweep-bind takes it from the launcher */
	const char *cores_per_rank; /* "N" or "all"; NULL: one core per rank */
	const char *map;            /* explicit: the map file */
	const char *within;         /* the cores a core allocator handed out, or NULL */
};

/*
 * The words `BIND --policy P [--ranks-per-node R] [--cores-per-rank C]
 * [--within W] | --map M --` to put before the application, NULL-terminated.
 * Free with launch_argv_free.
 */
char **launch_argv(const char *bind_path, const struct launch_placement *lp);
void launch_argv_free(char **argv);

#endif
