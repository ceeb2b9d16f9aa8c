/* Wall time per run and per rank. */
#include "collectors/wall.h"
#include "placement/bind.h"

int collect_wall(const char *run_dir, double run_wall, struct measurement_list *out,
		 struct perr *err)
{
	(void)err;
	if (run_wall >= 0)
		measurement_list_add(out, -1, WALL_REGION, WALL_METRIC, run_wall);
	struct bind_info *bi;
	int n;
	bind_records_in(run_dir, &bi, &n);
	for (int i = 0; i < n; i++)
		if (bi[i].wall >= 0)
			measurement_list_add(out, bi[i].rank, WALL_REGION, WALL_METRIC, bi[i].wall);
	bind_infos_free(bi, n);
	return 0;
}
