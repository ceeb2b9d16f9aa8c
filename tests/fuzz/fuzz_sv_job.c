/*
 * libFuzzer target: a run's frame to a local supervisor
 * (orchestrator/local/sv_job.c).  The input is a frame's payload (its
 * length is put before it).  Oracle: reading never crashes nor reads past
 * the frame; a frame that reads is sent again and reads back field for
 * field the same.
 */
#include "orchestrator/local/sv_job.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_strv(char *const *a, char *const *b)
{
	size_t i = 0;
	for (; a && b && a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return (!a || !a[i]) && (!b || !b[i]);
}

static int read_frame(const uint8_t *data, size_t size, struct sv_job *job)
{
	int fd[2];
	if (pipe(fd))
		abort();
	uint32_t len = (uint32_t)size;
	if (write(fd[1], &len, sizeof(len)) != sizeof(len) || write(fd[1], data, size) != (ssize_t)size)
		abort();
	close(fd[1]);
	int rc = sv_job_read(fd[0], job);
	close(fd[0]);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 60000)   /* within a pipe's buffer: written whole before it is read */
		return 0;
	struct sv_job a, b;
	if (read_frame(data, size, &a))
		return 0;
	int fd[2];
	if (pipe(fd))
		abort();
	if (sv_job_send(fd[1], &a.rs, a.has_lp ? &a.lp : NULL, &a.cores))
		abort();
	close(fd[1]);
	if (sv_job_read(fd[0], &b))
		abort();
	close(fd[0]);
	const struct run_spec *x = &a.rs, *y = &b.rs;
	if (x->id != y->id || !same_str(x->campaign, y->campaign) || !same_str(x->run_dir, y->run_dir) ||
	    !same_strv(x->argv, y->argv) || !same_strv(x->env, y->env) || x->ranks != y->ranks ||
	    x->attempt != y->attempt || !same_str(x->policy, y->policy) || !same_str(x->mpi, y->mpi) ||
	    (!!a.has_lp) != (!!b.has_lp) || !same_str(a.lp.within, b.lp.within) ||
	    !same_str(a.cores.cpus, b.cores.cpus) || a.cores.quiet_gave_up != b.cores.quiet_gave_up)
		abort();
	sv_job_release(&a);
	sv_job_release(&b);
	return 0;
}
