/*
 * The one place that knows about differences between SLURM releases.
 * perfsweep builds against Debian 12's SLURM 22.05 and later releases; code
 * includes this header instead of <slurm/slurm.h>.
 *
 *  - slurm_job_state_string() and slurm_job_reason_string() are exported by
 *    22.05's libslurm but declared in slurm.h only from 23.02 on.
 *  - the rate-limit error codes 1804 and 1805 are named from 23.02 on.
 *  - --gres values travel in job_desc.tres_per_node with a "gres:" prefix up
 *    to 22.05 and "gres/" from 23.02 on.
 */
#ifndef PS_SLURM_COMPAT_H
#define PS_SLURM_COMPAT_H
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_job_reason_string(enum job_state_reason inx);
#define PS_SLURM_GRES_PREFIX "gres:"
#else
#define PS_SLURM_GRES_PREFIX "gres/"
#endif

/* Rate limiting (23.02 on): "Rate limit exceeded, please retry momentarily"
   and the RPC queue's hard drop.  Their numbers are fixed; older headers
   lack the names. */
#define PS_SLURMCTLD_COMMUNICATIONS_BACKOFF 1804
#define PS_SLURMCTLD_COMMUNICATIONS_HARD_DROP 1805

/* Where libslurm looks when SLURM_CONF is unset (Debian and upstream default). */
#ifndef PS_SLURM_DEFAULT_CONF
#define PS_SLURM_DEFAULT_CONF "/etc/slurm/slurm.conf"
#endif

#endif
