/*
 * The one way to start a process (shaped like git's run-command.h): fill a
 * struct child_process, start_command() forks it and returns once it runs
 * (an exec failure is reported here, not as an exit status), then
 * poll_command(), wait_commands() or finish_command() reap it with its
 * resource usage.
 *
 * A program (argv) is vforked: the caller waits only until it execs, and
 * its pages are not copied.
 *
 * Invariants: the child starts with no signal blocked and every signal the
 * caller catches back at its default (ignored ones stay ignored, as exec
 * keeps them, but for SIGPIPE, which a program gets at its default however
 * its caller writes); nothing here prints or exits.
 */
#ifndef PS_RUN_COMMAND_H
#define PS_RUN_COMMAND_H
#include <sys/resource.h>
#include <sys/types.h>

/* How many descriptors close_fds may keep beside 0-2. */
#define CHILD_KEEP_FDS 4

struct child_process {
	/* What runs: argv (NULL-terminated; argv[0] searched in PATH when it
	   has no '/'), or, with argv NULL, fn(data) in the forked child, whose
	   return value becomes its exit status (it must not return into the
	   caller's code: the child _exits). */
	char *const *argv;
	int (*fn)(void *data);
	void *data;
	char *const *env;           /* applied to the environment by putenv's rule, or NULL:
	                               "KEY=VALUE" replaces or adds KEY, "KEY" removes it */
	const char *dir;            /* chdir here first, or NULL */
	const char *in, *out, *err; /* stdin from / stdout, stderr to (created, truncated) these
	                               files, or NULL: inherited */
	int err_to_out;             /* stderr goes where stdout goes */
	int capture;                /* 1 (stdout) or 2 (stderr): that descriptor to a pipe
	                               whose read end start_command leaves in pipe_fd, for the
	                               caller to read to EOF and close; 0: none */
	int new_session;            /* setsid(): a session and process group of its own */
	int new_group;              /* a process group of its own */
	pid_t join_group;           /* > 0: join this process group */
	int pdeathsig;              /* > 0: the signal it gets when the caller dies (and it
	                               does not start if the caller is gone already) */
	int close_fds;              /* close every descriptor above 2 but keep_fd[0..nkeep) */
	int keep_fd[CHILD_KEEP_FDS];
	int nkeep;

	/* Filled in. */
	pid_t pid;                  /* > 0 once started */
	int pipe_fd;                /* capture: the pipe's read end, or -1 */
	int exec_errno;             /* start_command failed: why (exec, chdir, redirection) */
	int exec_stage;             /* and where: enum child_stage */
	int finished;               /* reaped: status and ru are set */
	int status;                 /* wait status */
	struct rusage ru;           /* its and its waited-for children's usage */
};

/* Where a child that could not start failed. */
enum child_stage {
	CHILD_REDIRECT = 1,         /* in, out or err */
	CHILD_DIR,                  /* chdir to dir */
	CHILD_EXEC,
};

/* Start cp.  0, or -1 with errno (and cp->exec_errno when the child could
   not exec; the child is reaped then).  fork's EAGAIN means: try later. */
int start_command(struct child_process *cp);
/* Reap cp if it has ended: 1 ended (now or before), 0 still running, -1 (errno). */
int poll_command(struct child_process *cp);
/* Wait until one of the n children (finished ones are skipped) ends or
   timeout seconds pass (< 0: no limit): the number reaped, or -1 (errno).
   Sleeps until SIGCHLD, which it blocks meanwhile. */
int wait_commands(struct child_process *const *cps, int n, double timeout);
/* Wait for cp to end: its exit code (below). */
int finish_command(struct child_process *cp);
/* A wait status as a shell says it: the exit code, or 128 + signal. */
int command_exit_code(int status);

#endif
