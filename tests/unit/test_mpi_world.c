/* The local MPI world's check against its rank records (orchestrator/local/mpi_world.h),
   on records perfsweep-bind's own writer puts in a real directory. */
#include "../lib/tap.h"
#include "common/xalloc.h"
#include "orchestrator/local/mpi_world.h"
#include "placement/bind.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir;

/* A record of rank r on core (and PU) core, ended with status st. */
static void put(int r, int core, int st)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_set(set, (unsigned)core);
	char *argv[] = { "mpi-stream", NULL };
	struct bind_result res = { .exit_status = st, .signal = st > 128 ? st - 128 : 0 };
	struct bind_record rec = { .rank = r, .local_rank = r, .ranks_per_node = 2, .node = "n",
				   .policy = "compact", .cores_per_rank = 1, .cpuset = set,
				   .cores = set, .result = &res, .argv = argv };
	struct perr err;
	if (bind_record_write(&rec, dir, &err))
		diag("%s", err.msg);
	hwloc_bitmap_free(set);
}

static const char *check(const struct run_spec *rs, int status)
{
	static char why[256];
	why[0] = 0;
	if (!mpi_world_check(rs, status, why, sizeof(why)))
		return "ok";
	return why;
}

int main(void)
{
	dir = tap_tmpdir();
	struct run_spec rs = { .run_dir = dir, .ranks = 2, .policy = "compact", .mpi = "openmpi" };

	put(0, 0, 0);
	put(1, 1, 0);
	is_str(check(&rs, 0), "ok", "two records on two cores: the world checks out");

	mpi_world_clear(dir);
	put(0, 0, 0);
	is_str(check(&rs, 0), "the world of 2 ranks left 1 rank record (rank-N.json); rank 1 has none",
	       "a missing record fails the world");

	put(1, 0, 0);
	is_str(check(&rs, 0), "ranks 0 and 1 of the compact world share a core; each rank should have "
	       "cores of its own", "two ranks on one core fail a compact world");
	rs.policy = "explicit";
	is_str(check(&rs, 0), "ok", "an explicit map may share cores");
	rs.policy = "compact";

	put(5, 1, 0);
	is_str(check(&rs, 0), "rank 5's record is outside a world of 2 ranks", "a record beyond the world");

	mpi_world_clear(dir);
	put(0, 0, 128 + 15);
	put(1, 1, 3);
	is_str(check(&rs, 3), "rank 1 of 2: exit status 3",
	       "the rank that failed by itself is named, not the one mpirun ended");
	put(1, 1, 128 + 11);
	is_str(check(&rs, 139), "rank 1 of 2: killed by signal 11 (Segmentation fault)", "a rank a signal ended");

	mpi_world_clear(dir);
	is_str(check(&rs, 1), "mpirun (a world of 2 ranks): exit status 1; see stderr",
	       "no record: mpirun's own status");
	rs.policy = NULL;
	is_str(check(&rs, 0), "ok", "an unbound world has no records to check");

	char *stray = xasprintf("%s/rank-0.json", dir);
	put(0, 0, 0);
	mpi_world_clear(dir);
	ok(access(stray, F_OK) != 0, "clear removes an earlier attempt's records");
	free(stray);
	rmdir(dir);
	return done_testing();
}
