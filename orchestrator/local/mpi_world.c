/* The local backend's MPI world: mpirun's command line and the check after it. */
#include "orchestrator/local/mpi_world.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "placement/bind.h"
#include "placement/policy.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char **mpi_world_argv(const struct run_spec *rs, char *const *env, char **rank_argv, const char *dir)
{
	int nenv = 0, nrank = 0, k = 0;
	while (env && env[nenv])
		nenv++;
	while (rank_argv[nrank])
		nrank++;
	char **av = xcalloc((size_t)(14 + 2 * nenv + nrank), sizeof(char *));
	av[k++] = MPI_WORLD_LAUNCHER;
	av[k++] = "-np";
	av[k++] = xasprintf("%d", rs->ranks > 0 ? rs->ranks : 1);
	/* perfsweep-bind binds, inside the cores the run was given */
	av[k++] = "--bind-to";
	av[k++] = "none";
	/* Open MPI refuses root without it (docs/placement.md) */
	if (geteuid() == 0)
		av[k++] = "--allow-run-as-root";
	if (dir) {   /* the world's segments and session files in its own directory */
		av[k++] = "--mca";
		av[k++] = "btl_vader_backing_directory";
		av[k++] = (char *)dir;
		av[k++] = "--mca";
		av[k++] = "orte_tmpdir_base";
		av[k++] = (char *)dir;
	}
	for (int i = 0; i < nenv; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq)
			continue;
		av[k++] = "-x";
		av[k++] = xstrndup(env[i], (size_t)(eq - env[i]));
	}
	for (int i = 0; i < nrank; i++)
		av[k++] = rank_argv[i];
	return av;
}

char *mpi_world_dir(pid_t supervisor, unsigned long long starttime)
{
	char *dir = xasprintf("%s/%s%d.%llu", MPI_WORLD_SHM, MPI_WORLD_DIR_PREFIX, (int)supervisor, starttime);
	if (mkdir(dir, 0700) == 0 || (errno == EEXIST && !access(dir, W_OK)))
		return dir;
	free(dir);
	return NULL;
}


void mpi_world_remove(const char *dir)
{
	fs_remove_tree(dir);
}

int mpi_world_sweep(int (*alive)(pid_t pid, unsigned long long starttime))
{
	DIR *d = opendir(MPI_WORLD_SHM);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	size_t plen = strlen(MPI_WORLD_DIR_PREFIX);
	while ((e = readdir(d))) {
		int pid, len = 0;
		unsigned long long start;
		if (strncmp(e->d_name, MPI_WORLD_DIR_PREFIX, plen) ||
		    sscanf(e->d_name + plen, "%d.%llu%n", &pid, &start, &len) != 2 || e->d_name[plen + len] ||
		    alive((pid_t)pid, start))
			continue;
		char *dir = xasprintf("%s/%s", MPI_WORLD_SHM, e->d_name);
		mpi_world_remove(dir);
		free(dir);
		n++;
	}
	closedir(d);
	return n;
}

void mpi_world_clear(const char *run_dir)
{
	DIR *d = opendir(run_dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int r, len = 0;
		if (sscanf(e->d_name, "rank-%d.json%n", &r, &len) != 1 || e->d_name[len])
			continue;
		char *path = xasprintf("%s/%s", run_dir, e->d_name);
		unlink(path);
		free(path);
	}
	closedir(d);
}

static void how(int status, char *buf, size_t size)
{
	if (status > 128)
		snprintf(buf, size, "killed by signal %d (%s)", status - 128, strsignal(status - 128));
	else
		snprintf(buf, size, "exit status %d", status);
}

static int killed_by_launcher(int status)
{
	return status == 128 + SIGTERM || status == 128 + SIGKILL;
}

/* The rank that failed, as the records tell: one that ended by itself
   before one that mpirun killed when the others failed, then the lowest. */
static const struct bind_info *failed_rank(const struct bind_info *bi, int n)
{
	const struct bind_info *got = NULL;
	for (int i = 0; i < n; i++) {
		if (!bi[i].exit_status)
			continue;
		int k = killed_by_launcher(bi[i].exit_status);
		if (!got || k < killed_by_launcher(got->exit_status) ||
		    (k == killed_by_launcher(got->exit_status) && bi[i].rank < got->rank))
			got = &bi[i];
	}
	return got;
}

/* Two ranks' records share a core: 1, with a and b set. */
static int shared_core(const struct bind_info *bi, int n, int *a, int *b)
{
	hwloc_bitmap_t *sets = xcalloc((size_t)n, sizeof(*sets));
	int found = 0;
	for (int i = 0; i < n && !found; i++) {
		sets[i] = hwloc_bitmap_alloc();
		struct perr err;
		if (bi[i].cores)
			policy_parse_cores(bi[i].cores, sets[i], &err);
		for (int j = 0; j < i && !found; j++)
			if (hwloc_bitmap_intersects(sets[i], sets[j])) {
				*a = bi[j].rank;
				*b = bi[i].rank;
				found = 1;
			}
	}
	for (int i = 0; i < n; i++)
		if (sets[i])
			hwloc_bitmap_free(sets[i]);
	free(sets);
	return found;
}

/* How the records disagree with a world of p ranks, or 0. */
static int records_mismatch(const struct run_spec *rs, const struct bind_info *bi, int n, char *why,
			    size_t size)
{
	int p = rs->ranks > 0 ? rs->ranks : 1, a, b;
	char *seen = xcalloc((size_t)p, 1);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		if (bi[i].rank >= p)
			bad = snprintf(why, size, "rank %d's record is outside a world of %d rank%s", bi[i].rank, p,
				       p == 1 ? "" : "s");
		else if (seen[bi[i].rank]++)
			bad = snprintf(why, size, "rank %d has two records", bi[i].rank);
	}
	for (int r = 0; r < p && !bad; r++)
		if (!seen[r])
			bad = snprintf(why, size, "the world of %d rank%s left %d rank record%s (rank-N.json); "
				       "rank %d has none", p, p == 1 ? "" : "s", n, n == 1 ? "" : "s", r);
	free(seen);
	if (!bad && rs->policy && strcmp(rs->policy, "explicit") && shared_core(bi, n, &a, &b))
		bad = snprintf(why, size, "ranks %d and %d of the %s world share a core; each rank "
			       "should have cores of its own", a, b, rs->policy);
	return bad > 0;
}

int mpi_world_check(const struct run_spec *rs, int exit_status, char *why, size_t size)
{
	struct bind_info *bi = NULL;
	int n = 0, bad = 0;
	if (rs->policy)
		bind_records_in(rs->run_dir, &bi, &n);
	const struct bind_info *f = failed_rank(bi, n);
	char h[96];
	if (exit_status && f) {
		how(f->exit_status, h, sizeof(h));
		bad = snprintf(why, size, "rank %d of %d: %s%s%s", f->rank, rs->ranks, h,
			       f->error ? ": " : "", f->error ? f->error : "") > 0;
	} else if (exit_status) {
		how(exit_status, h, sizeof(h));
		bad = snprintf(why, size, "%s (a world of %d rank%s): %s; see stderr", MPI_WORLD_LAUNCHER,
			       rs->ranks, rs->ranks == 1 ? "" : "s", h) > 0;
	} else if (rs->policy) {
		bad = records_mismatch(rs, bi, n, why, size);
	}
	bind_infos_free(bi, n);
	return bad;
}
