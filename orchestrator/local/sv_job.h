/*
 * A run as the orchestrator hands it to a supervisor that serves one run
 * after another (supervisor.h): the run's spec, its perfsweep-bind line
 * and its cores, as one frame over a pipe (a length, then the fields in
 * order; strings with their lengths).  The supervisor is a fork of the
 * orchestrator made before the run was known, so nothing of the run can
 * come through its memory.
 */
#ifndef PS_SV_JOB_H
#define PS_SV_JOB_H
#include "orchestrator/backend.h"
#include "placement/launch.h"

/*
 * A run's cores as the supervisor takes them: noted, the cores to note in
 * local.start; cpus, their OS CPUs ("" or NULL: not known), which the
 * supervisor leaves to the ranks; and what the quiet gate (backend_local.c)
 * did before the run started, for the census note.
 */
struct sv_cores {
	const char *noted;
	const char *cpus;
	double quiet_waited;        /* seconds */
	int quiet_gave_up;
	const char *quiet_cause;    /* or NULL */
};

/* A run received: every pointer points into the job's own memory. */
struct sv_job {
	struct run_spec rs;
	struct launch_placement lp;
	int has_lp;                 /* the run has a policy: lp is its line */
	struct sv_cores cores;
	char *buf;                  /* the frame: the strings live in it */
	char **argv, **env;
};

/* Send run rs (lp NULL: no policy) down fd: 0, or -1 (errno; EPIPE: the
   supervisor is gone). */
int sv_job_send(int fd, const struct run_spec *rs, const struct launch_placement *lp,
		const struct sv_cores *cores);
/* Read the next run from fd: 0, or -1 at its end (the orchestrator is
   gone) or on a frame that is not one. */
int sv_job_read(int fd, struct sv_job *job);
void sv_job_release(struct sv_job *job);
/* Write all of buf to pipe fd, whose reader may be gone: -1 with EPIPE
   then, never a SIGPIPE, whatever the caller does with it.  0 or -1. */
int sv_pipe_write(int fd, const void *buf, size_t n);
/* Read exactly n bytes from pipe fd: 0, or -1 at its end or on an error. */
int sv_pipe_read(int fd, void *buf, size_t n);

#endif
