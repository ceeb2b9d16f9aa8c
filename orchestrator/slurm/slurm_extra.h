/*
 * backend.extra: the few sbatch options a campaign may add to every SLURM
 * job, parsed and checked without libslurm, so that a config is checked the
 * same way whether or not a controller answers.  The SLURM backend turns
 * the parsed form into its job description.
 */
#ifndef PS_SLURM_EXTRA_H
#define PS_SLURM_EXTRA_H
#include "common/error.h"
#include <stdint.h>

#define SLURM_EXTRA_SUPPORTED "--constraint, --reservation, --exclude, --nodelist, --mem, " \
	"--mem-per-cpu, --gres, --licenses, --cpus-per-task, --wckey, --nice, --requeue, --no-requeue"

struct slurm_extra {
	char *features, *reservation, *exc_nodes, *req_nodes;   /* NULL when unset */
	char *gres;             /* --gres as written ("gpu:2,nic:1"), or NULL */
	char *licenses, *wckey;
	uint64_t mem_mb;        /* --mem or --mem-per-cpu in MB; 0 unset */
	int mem_per_cpu;        /* mem_mb is per CPU (--mem-per-cpu) */
	int cpus_per_task;      /* 0 unset */
	int nice_set, nice;
	int requeue;            /* -1 unset, 0 or 1 */
};

/* Parse n options ("--name=value"); 0, or -1 with err naming the first bad
   one.  Release xo either way. */
int slurm_extra_parse(struct slurm_extra *xo, int n, char *const *extra, struct perr *err);
void slurm_extra_release(struct slurm_extra *xo);
/* Parse and forget: 0, or -1 with err naming the bad option. */
int slurm_extra_check(int n, char *const *extra, struct perr *err);

#endif
