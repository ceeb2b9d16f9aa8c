/*
 * The wall-time collector: the run's process wall time as region `main`,
 * metric `time` (rank -1, the whole run), plus each rank's own wall time
 * from the rank-<r>.json files perfsweep-bind writes (docs/placement.md).
 */
#ifndef PS_WALL_H
#define PS_WALL_H
#include "collectors/measurement.h"
#include "common/error.h"

/* The region and metric of its values: no other collector may use both. */
#define WALL_REGION "main"
#define WALL_METRIC "time"

int collect_wall(const char *run_dir, double run_wall, struct measurement_list *out,
		 struct perr *err);

#endif
