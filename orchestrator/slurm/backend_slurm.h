/*
 * The SLURM backend's own entry points, beside its registry entry
 * (backend_slurm_entry, slurm_entry.c): opening it on a backend section,
 * asking the controller about a partition, and what it knows of SLURM's
 * errors and of the paths its jobs can write.
 */
#ifndef PS_BACKEND_SLURM_H
#define PS_BACKEND_SLURM_H
#include "orchestrator/backend.h"

int backend_slurm_new(struct backend **b, const struct backend_config *cfg, struct perr *err);
/*
 * What a SLURM partition offers a job, as its controller says: its nodes'
 * CPU counts and the most nodes one job may have (0: no limit).
 */
struct slurm_partition {
	char name[64];
	int nnodes;
	int *cpus;              /* nnodes entries */
	int max_nodes;
};
/*
 * Ask the controller about partition (NULL: the default one).  Returns 1
 * with *out filled (release with slurm_partition_release), 0 when it cannot
 * be asked (no slurm config, controller not answering), -1 with err (kind
 * PERR_BACKEND) when it has no such partition.
 */
int backend_slurm_partition(const char *partition, struct slurm_partition *out, struct perr *err);
void slurm_partition_release(struct slurm_partition *p);
/* SLURM error codes that may pass by themselves (controller unreachable,
   rate limits, busy nodes, QOS or association limits): wait and retry. */
int backend_slurm_transient(int slurm_errno);
/* A directory whose runs SLURM jobs cannot write their output into (a
   backslash in it): -1 with err saying why, else 0. */
int backend_slurm_check_dir(const char *dir, struct perr *err);

#endif
