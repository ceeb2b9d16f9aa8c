/*
 * One MPI world per run on the local backend (backend.mpi = "openmpi"): the
 * run's supervisor starts one process, Open MPI's mpirun, which starts the
 * run's p ranks (each through perfsweep-bind when the run has a placement:
 * mpirun's own binding is off, perfsweep-bind binds local rank r,
 * OMPI_COMM_WORLD_LOCAL_RANK, to the cores the placement gives it).  After
 * the world ended, its rank records are checked against it.
 */
#ifndef PS_MPI_WORLD_H
#define PS_MPI_WORLD_H
#include "orchestrator/backend.h"
#include <stddef.h>
#include <sys/types.h>

/* The launcher a world is started with, and the package that has it. */
#define MPI_WORLD_LAUNCHER "mpirun"
#define MPI_WORLD_PACKAGE "openmpi-bin"

/*
 * `mpirun -np P --bind-to none [--allow-run-as-root] [--mca
 * btl_vader_backing_directory DIR --mca orte_tmpdir_base DIR] -x NAME...
 * RANK_ARGV`: NAME for every "NAME=VALUE" of env; DIR (NULL: none) the
 * world's own directory (mpi_world_dir).  NULL-terminated; free the array
 * only (the strings of rank_argv and env are borrowed, the others leak
 * with the supervisor's exit).
 */
char **mpi_world_argv(const struct run_spec *rs, char *const *env, char **rank_argv, const char *dir);

/*
 * A world's own directory, /dev/shm/perfsweep-world.PID.STARTTIME of its
 * supervisor: Open MPI puts the world's shared memory segments (vader's
 * 4 MB per rank) and its session directory there instead of beside every
 * other world's, so that what a world killed by SIGKILL leaves (cancel, a
 * timeout, its supervisor killed) is removed with the directory, and only
 * that world's.  mpi_world_dir makes it (mode 0700) and returns its path
 * (caller frees), or NULL when /dev/shm cannot hold it (Open MPI's
 * defaults then).  mpi_world_remove removes it and all in it.
 */
#define MPI_WORLD_SHM "/dev/shm"
#define MPI_WORLD_DIR_PREFIX "perfsweep-world."
char *mpi_world_dir(pid_t supervisor, unsigned long long starttime);
void mpi_world_remove(const char *dir);
/*
 * Remove the directories of worlds whose supervisor is gone (alive(pid,
 * starttime) says it is not): what a supervisor killed by SIGKILL left.
 * Returns how many were removed.
 */
int mpi_world_sweep(int (*alive)(pid_t pid, unsigned long long starttime));

/*
 * Remove the rank records (rank-N.json) an earlier attempt left in run_dir:
 * the world is checked against the records of its own ranks only.
 */
void mpi_world_clear(const char *run_dir);

/*
 * Check the world of run rs after mpirun ended with exit_status (0, code, or
 * 128 + signal).  Returns 0 when it is right, else 1 with why filled:
 * which rank failed and how, or how its rank records (perfsweep-bind's,
 * only when the run has a placement) disagree with a world of rs->ranks
 * ranks: one record per rank 0..p-1, and, for compact and spread
 * placements, no core shared by two ranks.
 */
int mpi_world_check(const struct run_spec *rs, int exit_status, char *why, size_t size);

#endif
