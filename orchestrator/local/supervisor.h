/*
 * A local run's supervisor: a process forked by the local backend into a
 * session of its own, so that neither the orchestrator's death (kill -9, a
 * closed terminal) nor a signal to the orchestrator's process group
 * reaches it.  There is one per slot (--jobs), serving one run after
 * another as the orchestrator sends them (sv_job.h).  For each, it notes
 * the run's start in the run directory, starts the ranks (a process group
 * of their own, dying with the supervisor), waits for them with wait4
 * (killing them at the run's timeout), kills what they left behind in its
 * session, notes how the run ended, and reports that end.  With its
 * orchestrator gone it finishes the run it serves and exits.  It writes
 * nothing else: its stdio is /dev/null and a closed pipe to a dead
 * orchestrator is an error, never a SIGPIPE.
 *
 * The notes, JSON, each written atomically (temporary file, then rename):
 *   local.start  {"attempt", "store", "supervisor": "PID:STARTTIME", "started",
 *                 "cores"} before any rank starts
 *   local.end    {"attempt", "store", "supervisor", "exit", "signal", "timed_out", "timeout",
 *                 "error", "ranks", "started", "ended", "wall", "utime",
 *                 "stime", "maxrss_kb", "nvcsw", "nivcsw", "census"}
 *                after the last rank ended: "exit" is the first failing
 *                rank's status (128 + signal when a signal ended it, then
 *                "signal" names it), "error" why the ranks could not
 *                start, or how an MPI world failed (orchestrator/local/mpi_world.h); times are Unix seconds, "wall" from a monotonic
 *                clock; CPU times (seconds), the largest resident set (KiB)
 *                and the context switches are wait4's, summed over the
 *                ranks (max for maxrss_kb).  "census" (absent when the
 *                ranks never ran):
 *                {"attempt", "wall", "cpus", "samples", "cost", "quiet_wait",
 *                 "quiet_gave_up", "quiet_cause", "schedstat", "pressure",
 *                 "foreign", "steal", "busy", "ours", "bind", "ranks",
 *                 "causes"}
 *                what the census of the run's cores
 *                (placement/census.h) saw while its ranks ran, sampled every
 *                CENSUS_INTERVAL by a thread of the supervisor started with
 *                the ranks, on cores the run was not given when the machine
 *                has others: "foreign" and "steal" are seconds per CPU (the
 *                OS's numbers; steal null when the kernel has none),
 *                and so are "busy" (what ran on each CPU, /proc/stat), "ours"
 *                (perfsweep's own processes there and the census) and "bind"
 *                (the run's perfsweep-bind processes),
 *                "ranks" [{"rank", "run_delay", "cpu"}] the run-queue delay
 *                and CPU time of each rank's threads as last sampled (empty
 *                without schedstat), "causes" [{"pid", "comm", "cpu",
 *                "seconds"}] the foreign processes with the most time on a
 *                CPU (at most SV_CENSUS_CAUSES), "pressure" the seconds PSI
 *                counted some task waiting for a CPU (null: no PSI), "cost"
 *                the census's own CPU seconds, "quiet_wait" the seconds the
 *                quiet gate waited before the ranks started.  Runs noted
 *                before 2026-12 have it as a note of its own, local.census,
 *                which is read where the end note has none.
 * "store" is the id of the campaign store whose run it is (store_id(), as
 * in a SLURM job's comment): a store made afresh at the same path never
 * takes another store's notes for its own (notes from before store ids
 * have none, and count only for the supervisor the store recorded).  A
 * supervisor writes its end note only while the start note is its own: a
 * run directory given meanwhile to another attempt or store is left alone.
 * A later orchestrator reads them (backend_local.c): the end note of the
 * attempt it expects means collect; a start note whose supervisor lives
 * (pid and start time, so a recycled pid is never taken for it) means
 * adopt; a start note alone means killed mid-way; no note, never started.
 *
 * With rs->mpi the supervisor starts one process, mpirun, whose ranks are
 * in its session too (orchestrator/local/mpi_world.h); at the timeout mpirun gets
 * SIGTERM first, to end its world cleanly, and SIGKILL 3 s later.
 *
 * The supervisor starts the ranks only after the orchestrator has seen its
 * start note: an orchestrator that dies first leaves no rank running, and
 * one that dies later leaves the note for its successor, which takes the
 * campaign lock only after its death.
 *
 * A supervisor is named "PID:STARTTIME" (the start time in clock ticks
 * after boot, from /proc), and that is the local backend's backend id of
 * every run it serves; the notes' attempt and store tell its runs apart.
 */
#ifndef PS_SUPERVISOR_H
#define PS_SUPERVISOR_H
#include "common/error.h"
#include "common/run_command.h"
#include "orchestrator/backend.h"
#include "placement/census.h"
#include "placement/launch.h"
#include "orchestrator/local/sv_job.h"

#define SV_START_NOTE "local.start"
#define SV_END_NOTE "local.end"
#define SV_CENSUS_NOTE "local.census"
/* The census note keeps this many causes, the largest first. */
#define SV_CENSUS_CAUSES 32

/* A supervisor's exit status past the start: 0 its end note is written;
   SV_EXIT_NO_NOTE the ranks ended but the end note could not be written
   (the run directory made again first, when the program removed it);
   SV_EXIT_TAKEN the run directory holds another attempt's or store's start
   note now, so none was written. */
#define SV_EXIT_NO_NOTE 3
#define SV_EXIT_TAKEN 4

#define SV_STORE_LEN 64

struct sv_start {
	int attempt;
	char store[SV_STORE_LEN];   /* the store's id, "" in a note from before store ids */
	pid_t pid;                  /* the supervisor */
	unsigned long long starttime;
	double started;             /* Unix seconds */
	char cores[256];            /* the cores the run was given ("" none) */
};

struct sv_end {
	int attempt;
	char store[SV_STORE_LEN];   /* as in sv_start */
	char supervisor[64];        /* "PID:STARTTIME" ("" before store ids) */
	int exit_status;            /* 0, an exit code, or 128 + signal */
	int signal;                 /* the signal that ended it, 0 none */
	int timed_out;
	double timeout;             /* the run's timeout, 0 none */
	char error[256];            /* why the ranks could not start, or how a world failed; "" */
	int ranks;
	double started, ended, wall;
	double utime, stime;        /* seconds */
	long maxrss_kb, nvcsw, nivcsw;
};

/* The census note, read back. */
struct sv_census {
	int attempt;
	double wall;                /* seconds the census covered */
	char cpus[256];             /* the run's OS CPUs ("" not known) */
	int samples;
	double cost;                /* CPU seconds the census took */
	double quiet_wait;          /* seconds the quiet gate waited (0: none) */
	int quiet_gave_up;          /* the gate reached its bound with the cores busy */
	char quiet_cause[96];       /* then who was busy there ("pid 42 (gmx) on core 0"), else "" */
	int schedstat;              /* ranks' run-queue delays were read */
	double pressure;            /* seconds, NaN unknown */
	int ncpus;
	double *foreign;            /* [ncpus] seconds */
	double *steal;              /* [ncpus] seconds, NULL unknown */
	double *busy, *ours, *bind; /* [ncpus] seconds, NULL unknown */
	struct census_rank *ranks;
	int nranks;
	struct census_cause *causes;        /* the largest first */
	int ncauses;
};

/*
 * A supervisor of the local backend: one per slot, serving one run after
 * another, so that a run costs the orchestrator no fork (a fork copies its
 * page tables, and every page either process writes while the other lives
 * is copied again: most of a short run's cost).  It notes each run in its
 * run directory as above; the runs it serves share its name.  With its
 * orchestrator gone it finishes the run it serves and exits.
 */
struct supervisor {
	struct child_process proc;  /* the orchestrator's child (proc.pid > 0 once started) */
	int up, down;               /* its reports, and runs to it; -1 closed */
	unsigned long long starttime;
	int busy;                   /* it serves a run (sent, until it reports its end) */
	int ended, code;            /* it reported the run's end, with this code (0, SV_EXIT_*) */
	int note_err;               /* the run's start note could not be written: errno */
	int start_err;              /* the run's ranks could not start: errno (0: they did) */
	int start_transient;        /* and trying later may work (no end note then) */
	int gone;                   /* it died; proc.finished once reaped */
};

/*
 * Start run rs on supervisor sv (idle; started first when it has not been,
 * or has died).  lp: the perfsweep-bind line of ranks with a policy;
 * cores: what to note as the run's cores ("" none).  0: the run is sent,
 * *id is its supervisor's name (caller frees), and nothing is waited for:
 * what went wrong on the way comes with the run's end (note_err: its
 * start note could not be written; start_err: its ranks could not start,
 * a program that cannot be executed has an end note that says so), and a
 * supervisor that died once sent the run is an attempt that ended without
 * an end note; 1: transient (no process now, or the supervisor died
 * before it could be sent the run), try later.
 */
/* A new attempt is about to be noted in run_dir: what this thread kept of
   the notes it read there is forgotten (a note is known by its file's
   identity, and a file system whose clock is coarse could give a new
   note an old one's inode, size and time). */
void supervisor_forget_notes(const char *run_dir);
int supervisor_run(struct supervisor *sv, const struct run_spec *rs, const struct launch_placement *lp,
		   const struct sv_cores *cores, char **id);
/* Whether the run sv serves has ended: 1 when it reported its end (code)
   or died (gone; reaped as soon as it can be), 0 not yet.  Never blocks. */
int supervisor_check(struct supervisor *sv);
/* Its reports' descriptor, to poll for readability (-1 none). */
int supervisor_fd(const struct supervisor *sv);
/* Done with sv: an idle one exits and is reaped; one serving a run
   finishes it (its notes are for whoever runs the campaign next). */
void supervisor_close(struct supervisor *sv);

/* The attempt number the notes of rs carry (rs->attempt, 0 meaning 1). */
int supervisor_attempt(const struct run_spec *rs);
/* Read run_dir's notes: 0, or -1 when there is none (or none readable). */
int supervisor_read_start(const char *run_dir, struct sv_start *s);
int supervisor_read_end(const char *run_dir, struct sv_end *e);
/* The census note: 0, or -1 when there is none readable (c is empty then).
   Release with sv_census_release either way. */
int supervisor_read_census(const char *run_dir, struct sv_census *c);
void sv_census_release(struct sv_census *c);

/* "PID:STARTTIME" parsed: 0, or -1 when it is not one. */
int supervisor_parse_id(const char *id, pid_t *pid, unsigned long long *starttime);
/* The process pid is alive (not a zombie) and started at starttime. */
int supervisor_alive(pid_t pid, unsigned long long starttime);
/*
 * Kill what runs of the run supervisor pid (started at starttime) leads:
 * every process of its session, but the supervisor itself when spare (it
 * then notes how the run ended).  Nothing when pid is alive as another
 * process.  A live non-leader pid is the process group of a run started
 * before supervisors existed: that group is killed.  Returns how many
 * processes were signalled.
 */
int supervisor_kill_run(pid_t pid, unsigned long long starttime, int spare);
/*
 * Stop attempt rs (its id and attempt; its run_dir, when known, to check
 * that supervisor pid serves it still) from a process other than its
 * orchestrator: a live supervisor is asked (SIGUSR1 with the attempt's
 * token) to kill that run's ranks, and only that run's, even when it has
 * gone on to the next run meanwhile; a dead one's leftovers are killed.
 * Returns 1 if something was asked or killed.
 */
int supervisor_cancel(const struct run_spec *rs, pid_t pid, unsigned long long starttime);
/* Ask live supervisor pid to kill attempt attempt of run, and only that:
   now, or as its ranks start when they have not yet.  1 asked, 0 not. */
int supervisor_ask_cancel(pid_t pid, long long run, int attempt);

#endif
