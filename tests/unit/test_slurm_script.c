/*
 * The SLURM job script renderer (orchestrator/slurm/slurm_script.c) against
 * hostile values, without a cluster: every field that reaches job.sh gets
 * each value of a table (newline, carriage return, $(...), backticks,
 * quotes, ';', '#', a leading '-', backslash, '%').
 *
 *  - A control character in a field that is not an application argument or
 *    environment value is refused with an error naming the field.
 *  - Otherwise the script really runs under /bin/sh with a stand-in srun (it
 *    drops its options and starts each of --ntasks ranks in turn): nothing executes that was not
 *    asked for, and the application receives its arguments byte-exact.
 *  - Each #SBATCH line, read the way sbatch reads it (src/sbatch/opt.c
 *    _get_argument: quotes and backslash escapes, '#' or blank ends the
 *    word), yields exactly the option that was meant.
 */
#include "orchestrator/slurm/slurm_script.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *const hostile[] = {
	"a\nb", "a\rb", "$(touch MARK)", "`touch MARK`", "it's", "say \"hi\"", "a;touch MARK",
	"#x", "-x", "back\\slash", "100%j", "a b", "'; touch MARK; '", "\"; touch MARK; \"",
	"$HOME", "\\", "x'", "*", NULL,
};

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static char *tmp;   /* scratch directory */

/* sbatch's reading of one #SBATCH word (SLURM 22.05 src/sbatch/opt.c). */
static char *sbatch_word(const char *line, const char **rest)
{
	struct strbuf sb;
	strbuf_init(&sb);
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	char q = 0;
	int esc = 0;
	for (; *p; p++) {
		if (esc) {
			esc = 0;
		} else if (*p == '\\') {
			esc = 1;
			continue;
		} else if (q) {
			if (*p == q) {
				q = 0;
				continue;
			}
		} else if (*p == '"' || *p == '\'') {
			q = *p;
			continue;
		} else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '#') {
			break;
		}
		strbuf_addch(&sb, *p);
	}
	*rest = p;
	return strbuf_detach(&sb);
}

/* The value of "#SBATCH OPT..." in script (the whole word when opt is ""),
   and whether the line holds exactly that one word. */
static char *sbatch_value(const char *script, const char *opt, int nth, int *one_word)
{
	const char *p = script;
	int seen = 0;
	while ((p = strstr(p, "\n#SBATCH "))) {
		p += 9;
		const char *rest;
		char *w = sbatch_word(p, &rest);
		if (!strncmp(w, opt, strlen(opt)) && seen++ == nth) {
			while (*rest == ' ')
				rest++;
			*one_word = *rest == '\n' || *rest == '\0';
			char *v = xstrdup(w + strlen(opt));
			free(w);
			return v;
		}
		free(w);
	}
	return NULL;
}

/* Where the stand-in srun is: tmp/bin unless set. */
static const char *srun_dir;

/* Run the script at path with sh and a stand-in srun; returns its exit status. */
static int run_script_at(const char *path)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *bin = srun_dir ? xasprintf("%s:%s", srun_dir, getenv("PATH"))
				     : xasprintf("%s/bin:%s", tmp, getenv("PATH"));
		setenv("PATH", bin, 1);
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(tmp) == 0)
			execl("/bin/sh", "sh", path, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* Save script as run_dir/job.sh (as the backend does) and run it. */
static int run_script(const char *script, const char *run_dir)
{
	char *path = xasprintf("%s/job.sh", run_dir);
	write_text(path, script);
	int st = run_script_at(path);
	free(path);
	return st;
}

/* The arguments the application wrote, NUL-separated, into run_dir/args. */
static int args_equal(const char *run_dir, char *const *argv)
{
	struct strbuf sb;
	strbuf_init(&sb);
	char *path = xasprintf("%s/args", run_dir);
	int rc = strbuf_read_file(&sb, path);
	free(path);
	size_t off = 0;
	int same = !rc;
	for (char *const *a = argv + 1; same && *a; a++) {
		size_t n = strlen(*a);
		same = off + n < sb.len + 1 && !memcmp(sb.buf + off, *a, n) && sb.buf[off + n] == '\0';
		off += n + 1;
	}
	same = same && off == sb.len;
	strbuf_release(&sb);
	return same;
}

static int marker_made(void)
{
	char *m = xasprintf("%s/MARK", tmp);
	int made = !access(m, F_OK);
	remove(m);
	free(m);
	return made;
}

static void write_exec(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
}

static void setup(void)
{
	tmp = xstrdup(tap_tmpdir());
	char *bin = xasprintf("%s/bin", tmp);
	mkdir(bin, 0755);
	char *p = xasprintf("%s/srun", bin);
	/* every rank of --ntasks, one after another; the last one's status, or
	   the first failure's, as srun's */
	write_exec(p, "#!/bin/sh\nn=1\nwhile [ $# -gt 0 ]; do case \"$1\" in --ntasks=*) n=${1#--ntasks=}; shift;; "
		      "--*) shift;; *) break;; esac; done\n"
		      "r=0; rc=0\nwhile [ $r -lt $n ]; do SLURM_PROCID=$r \"$@\"; c=$?; [ $rc -ne 0 ] || rc=$c; r=$((r + 1)); done\n"
		      "exit $rc\n");
	free(p);
	p = xasprintf("%s/dumpargs", tmp);
	write_exec(p, "#!/bin/sh\n: >\"$PERFSWEEP_RUN_DIR/args\"\n"
		      "for a in \"$@\"; do printf '%s\\0' \"$a\" >>\"$PERFSWEEP_RUN_DIR/args\"; done\n"
		      "printf '%s' \"$PSVAR\" >\"$PERFSWEEP_RUN_DIR/env\"\n");
	free(p);
	p = xasprintf("%s/bind", tmp);
	write_exec(p, "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n");
	free(p);
	free(bin);
}

enum field { F_CAMPAIGN, F_CDIR, F_RUNDIR, F_WORKDIR, F_PARTITION, F_ACCOUNT, F_QOS, F_EXTRA,
	     F_POLICY, F_BIND, F_ARG, F_ENV, NFIELDS };
static const char *const field_name[] = { "campaign name", "campaign dir", "run dir", "workdir",
	"partition", "account", "qos", "extra", "policy", "bind path", "argument", "env value" };

/* One hostile value through one field. */
static void try_value(enum field f, const char *v, int k)
{
	char *rundir = f == F_RUNDIR ? xasprintf("%s/rd-%s", tmp, v) : xasprintf("%s/run-%d-%d", tmp, f, k);
	char *workdir = f == F_WORKDIR ? xasprintf("%s/wd-%s", tmp, v) : NULL;
	char *bind = f == F_BIND ? xasprintf("%s/bind-%s", tmp, v) : xasprintf("%s/bind", tmp);
	char *app = xasprintf("%s/dumpargs", tmp);
	char *extra = xasprintf("--constraint=%s", v);
	char *envkv = xasprintf("PSVAR=%s", v);
	char *argv[] = { app, "plain", (char *)(f == F_ARG ? v : "x"), NULL };
	char *env[] = { f == F_ENV ? envkv : "PSVAR=", NULL };
	char *extras[] = { extra };
	struct run_spec rs = {
		.id = 7, .campaign = f == F_CAMPAIGN ? v : "camp", .campaign_dir = f == F_CDIR ? v : tmp,
		.argv = argv, .env = env, .workdir = workdir, .run_dir = rundir, .ranks = 2,
		.policy = f == F_POLICY ? v : f == F_BIND ? "block" : NULL, .bind_path = bind,
		.attempt = 1,
	};
	struct slurm_script_opts o = {
		.partition = f == F_PARTITION ? v : NULL, .account = f == F_ACCOUNT ? v : NULL,
		.qos = f == F_QOS ? v : NULL, .nextra = f == F_EXTRA, .extra = extras,
	};
	char *script = NULL;
	struct perr err = { 0 };
	int rc = slurm_script_render(&o, &rs, &script, &err);
	const char *fn = field_name[f];
	if (has_control(v) && f != F_ARG && f != F_ENV) {
		ok(rc == -1 && strstr(err.msg, "control character"), "%s %d: refused (%s)", fn, k, err.msg);
		goto out;
	}
	if (!ok(rc == 0, "%s %d: rendered", fn, k)) {
		diag("%s", err.msg);
		goto out;
	}
	mkdir(rundir, 0755);
	if (workdir)
		mkdir(workdir, 0755);
	if (f == F_BIND)
		write_exec(bind, "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n");
	int st = run_script(script, rundir);
	int made = marker_made();
	int same = args_equal(rundir, argv);
	ok(st == 0 && !made && same, "%s %d: runs, nothing injected, arguments byte-exact", fn, k);
	if (st || made || !same)
		diag("exit %d, marker %d, args %s\n%s", st, made, same ? "same" : "differ", script);
	if (f == F_ENV) {
		struct strbuf got;
		strbuf_init(&got);
		char *p = xasprintf("%s/env", rundir);
		strbuf_read_file(&got, p);
		is_str(got.buf, v, "%s %d: the value arrives byte-exact", fn, k);
		strbuf_release(&got);
		free(p);
	}
	const char *opt = f == F_PARTITION ? "--partition=" : f == F_ACCOUNT ? "--account=" :
			  f == F_QOS ? "--qos=" : f == F_EXTRA ? "--constraint=" : f == F_CAMPAIGN ? "--job-name=" :
			  f == F_RUNDIR ? "--output=" : NULL;
	if (opt) {
		int one = 0;
		char *got = sbatch_value(script, opt, 0, &one);
		char *pat = slurm_file_pattern(rundir);
		char *want = f == F_CAMPAIGN ? xasprintf("ps:%s:7.1", v) : f == F_RUNDIR ?
			     xasprintf("%s/job.out", pat) : xstrdup(v);
		ok(got && one && !strcmp(got, want), "%s %d: sbatch reads #SBATCH %s as meant", fn, k, opt);
		if (!got || !one || strcmp(got, want))
			diag("got '%s' (%s), want '%s'", got ? got : "(none)", one ? "one word" : "more", want);
		free(got);
		free(want);
		free(pat);
	}
out:
	free(script);
	free(rundir);
	free(workdir);
	free(bind);
	free(app);
	free(extra);
	free(envkv);
}

/* Hand resubmission: the script sets its own run directory and environment. */
static void test_self_contained(void)
{
	char *rundir = xasprintf("%s/self", tmp);
	mkdir(rundir, 0755);
	char *app = xasprintf("%s/dumpargs", tmp);
	char *argv[] = { app, "a b", NULL };
	/* as the runner passes it: PERFSWEEP_RUN_ID and _CAMPAIGN among the run's variables */
	char *env[] = { "PERFSWEEP_RUN_ID=3", "PSVAR=from the config", "PERFSWEEP_CAMPAIGN=c", NULL };
	struct run_spec rs = { .id = 3, .campaign = "c", .campaign_dir = tmp, .argv = argv, .env = env,
			       .run_dir = rundir, .ranks = 1 };
	struct slurm_script_opts o = { 0 };
	char *script;
	struct perr err;
	is_int(slurm_script_render(&o, &rs, &script, &err), 0, "rendered");
	int nid = 0, ncamp = 0;
	for (const char *q = script; (q = strstr(q, "\nPERFSWEEP_RUN_ID=")); q++)
		nid++;
	for (const char *q = script; (q = strstr(q, "\nPERFSWEEP_CAMPAIGN=")); q++)
		ncamp++;
	ok(nid == 1 && ncamp == 1, "the script sets PERFSWEEP_RUN_ID and PERFSWEEP_CAMPAIGN once each (%d, %d)",
	   nid, ncamp);
	contains(script, "\nPSVAR='from the config'; export PSVAR\n", "the run's other variables are set");
	unsetenv("PERFSWEEP_RUN_DIR");
	unsetenv("PSVAR");
	is_int(run_script(script, rundir), 0, "runs with no PERFSWEEP_RUN_DIR in its environment");
	ok(args_equal(rundir, argv), "its output lands in the run directory");
	struct strbuf sb;
	strbuf_init(&sb);
	char *p = xasprintf("%s/env", rundir);
	strbuf_read_file(&sb, p);
	is_str(sb.buf, "from the config", "the run's environment is set by the script");
	free(p);
	strbuf_reset(&sb);
	p = xasprintf("%s/job.done", rundir);
	strbuf_read_file(&sb, p);
	contains(sb.buf, "exit=0 ", "job.done records the exit status");
	contains(sb.buf, " end=", "job.done records the end time");
	free(p);
	char *events = xasprintf("%s/.events", tmp), *note = xasprintf("%s/42.done", events);
	static const char *const dirs[][2] = {
		{ "/c/runs/7", "/c/runs/.events" }, { "runs/7", "runs/.events" }, { "7", ".events" }, { "/7", "/.events" },
	};
	for (size_t k = 0; k < sizeof(dirs) / sizeof(*dirs); k++) {
		char *ev = slurm_events_dir(dirs[k][0]);
		is_str(ev, dirs[k][1], "the events directory of run directory %s", dirs[k][0]);
		free(ev);
	}

	/* Inside SLURM: notes in runs/.events, and none (and no error) when it cannot. */
	setenv("SLURM_JOB_ID", "42", 1);
	is_int(run_script(script, rundir), 0, "with no events directory the job still succeeds");
	ok(access(note, F_OK) != 0, "... and leaves no note");
	mkdir(events, 0755);
	is_int(run_script(script, rundir), 0, "with the events directory the job succeeds");
	ok(access(note, F_OK) == 0, "it leaves the note 42.done");
	free(note);
	note = xasprintf("%s/42.start", events);
	ok(access(note, F_OK) == 0, "and the note 42.start");
	strbuf_reset(&sb);
	p = xasprintf("%s/job.done", rundir);
	strbuf_read_file(&sb, p);
	contains(sb.buf, "job=42 ", "job.done names the job");
	free(p);
	unsetenv("SLURM_JOB_ID");
	unlink(note);
	is_int(run_script(script, rundir), 0, "outside SLURM (no SLURM_JOB_ID) the job succeeds");
	ok(access(note, F_OK) != 0, "... and leaves no note");
	free(note);
	free(events);
	strbuf_release(&sb);
	free(script);

	char *envbad[] = { "BAD-NAME=1", NULL };
	rs.env = envbad;
	ok(slurm_script_render(&o, &rs, &script, &err) == -1 && strstr(err.msg, "BAD-NAME"),
	   "an environment name sh cannot assign is refused (%s)", err.msg);
	free(rundir);
	free(app);
}

/*
 * srun says 0 when the controller aborts its step (a node set down under
 * it) before the ranks end (seen on the test cluster: "srun: error: Node
 * failure on n1 ... Job step aborted", exit 0).  Stand in for it with an
 * srun that starts rank 0 only and then says 0 for a 2-rank run.
 */
static void test_aborted_step(void)
{
	char *rundir = xasprintf("%s/aborted", tmp);
	mkdir(rundir, 0755);
	char *bin = xasprintf("%s/bin-aborting", tmp);
	mkdir(bin, 0755);
	char *srun = xasprintf("%s/srun", bin);
	write_exec(srun, "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in --*) shift;; *) break;; esac; done\n"
			 "SLURM_PROCID=0 \"$@\"; exit 0\n");
	char *argv[] = { "/bin/true", NULL };
	struct run_spec rs = { .id = 4, .campaign = "c", .campaign_dir = tmp, .argv = argv,
			       .run_dir = rundir, .ranks = 2 };
	struct slurm_script_opts o = { 0 };
	char *script;
	struct perr err;
	is_int(slurm_script_render(&o, &rs, &script, &err), 0, "a 2-rank script rendered");
	srun_dir = bin;
	int st = run_script(script, rundir);
	srun_dir = NULL;
	ok(st != 0, "srun's 0 with one of two ranks never ended is not a success (exit %d)", st);
	char *marker = xasprintf("%s/job.step-aborted", rundir), *done = xasprintf("%s/job.done", rundir);
	ok(access(marker, F_OK) == 0, "it leaves job.step-aborted");
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_read_file(&sb, done);
	sb.buf[strcspn(sb.buf, "\n")] = '\0';
	ok(sb.len && !strstr(sb.buf, "exit=0 "), "job.done does not record a success (%s)", sb.buf);
	/* the same script with an srun that runs both ranks: a success */
	is_int(run_script(script, rundir), 0, "with both ranks ended the job succeeds");
	ok(access(marker, F_OK) != 0, "and the marker of the aborted attempt is gone");
	strbuf_release(&sb);
	free(marker);
	free(done);
	free(script);
	free(srun);
	free(bin);
	free(rundir);
}

#define STORE_A "0123456789abcdef0123456789abcdef"
#define STORE_B "fedcba9876543210fedcba9876543210"

/* The comment names store, directory, run and attempt, and parses back;
   so does the comment of perfsweep before store ids. */
static void test_comment(void)
{
	char *argv[] = { "/bin/true", NULL };
	struct run_spec rs = { .id = 7, .campaign = "c", .campaign_dir = "/x/a run 5 attempt 2",
			       .store_id = STORE_A, .argv = argv, .run_dir = "/x/runs/7", .ranks = 1,
			       .attempt = 2 };
	char *c = slurm_job_comment(&rs);
	is_str(c, "perfsweep " STORE_A " /x/a run 5 attempt 2 run 7 attempt 2", "the job comment");
	struct slurm_comment pc;
	ok(!slurm_comment_parse(c, &pc) && !strcmp(pc.store, STORE_A) && pc.run == 7 && pc.attempt == 2 &&
	   pc.dir_len == strlen(rs.campaign_dir) && !strncmp(pc.dir, rs.campaign_dir, pc.dir_len),
	   "parses back, a directory with ' run ' in it too");
	ok(slurm_comment_is(&pc, STORE_A, rs.campaign_dir, 7), "it is run 7's of store A in its directory");
	ok(!slurm_comment_is(&pc, STORE_B, rs.campaign_dir, 7), "not store B's");
	ok(!slurm_comment_is(&pc, STORE_A, "/x/a", 7), "not of another directory");
	ok(!slurm_comment_is(&pc, STORE_A, rs.campaign_dir, 8), "not of another run");
	ok(!slurm_comment_is(&pc, NULL, rs.campaign_dir, 7), "not of a store without an id");
	free(c);
	ok(!slurm_comment_parse("perfsweep /x/c run 12", &pc) && !pc.store[0] && pc.run == 12 &&
	   pc.attempt == 0 && pc.dir_len == 4, "the comment of perfsweep before store ids parses, with no store");
	ok(slurm_comment_is(&pc, "", "/x/c", 12) && !slurm_comment_is(&pc, STORE_A, "/x/c", 12),
	   "and belongs to no store");
	static const char *const bad[] = { "", "perfsweep", "perfsweep /x run", "perfsweep /x run 0",
		"perfsweep /x run 3 attempt 1", "perfsweep " STORE_A " /x run 3", "perfsweep " STORE_A " /x run 3 attempt 0",
		"other /x run 3", "perfsweep /x run 3x", NULL };
	for (int k = 0; bad[k]; k++)
		is_int(slurm_comment_parse(bad[k], &pc), -1, "'%s' is not a perfsweep job comment", bad[k]);
	is_int(slurm_comment_parse(NULL, &pc), -1, "nor is no comment");

	struct slurm_done d;
	is_int(slurm_done_parse("job=5 attempt=2 exit=0 start=1 end=2 store=" STORE_A "\n", &d), 0, "job.done parses");
	is_str(d.store, STORE_A, "with its store");
	is_int(slurm_done_parse("job=5 attempt=2 exit=0 start=1 end=2\n", &d), 0, "job.done of perfsweep before store ids");
	is_str(d.store, "", "has no store");
	is_int(slurm_done_parse("job=5 attempt=2 exit=0 start=1 end=2 store=-\n", &d), 0, "nor one written without");
	is_str(d.store, "", "has none");

	rs.store_id = "01234\n#SBATCH --x";
	char *script = NULL;
	struct perr err = { 0 };
	is_int(slurm_script_render(&(struct slurm_script_opts){ 0 }, &rs, &script, &err), -1,
	       "a store id that is not hex digits is refused");
	contains(err.msg, "store id", "naming it (%s)", err.msg);
	free(script);
}

/* A job leaves its run directory alone once job.sh there is another
   attempt's or another store's. */
static void test_owner(void)
{
	char *rundir = xasprintf("%s/owned", tmp);
	mkdir(rundir, 0755);
	char *app = xasprintf("%s/dumpargs", tmp);
	char *argv[] = { app, "mine", NULL };
	struct run_spec rs = { .id = 4, .campaign = "c", .campaign_dir = tmp, .store_id = STORE_A,
			       .argv = argv, .run_dir = rundir, .ranks = 1, .attempt = 1 };
	struct slurm_script_opts o = { 0 };
	struct perr err;
	char *a1 = NULL, *a2 = NULL, *b1 = NULL;
	slurm_script_render(&o, &rs, &a1, &err);
	rs.attempt = 2;
	slurm_script_render(&o, &rs, &a2, &err);
	rs.attempt = 1;
	rs.store_id = STORE_B;
	slurm_script_render(&o, &rs, &b1, &err);
	ok(a1 && a2 && b1, "scripts of attempts 1 and 2 of store A and attempt 1 of store B");
	contains(a1, "\n# perfsweep job: store " STORE_A " run 4 attempt 1\n", "a script names its attempt");
	is_int(run_script(a1, rundir), 0, "a job runs while job.sh is its own");
	ok(args_equal(rundir, argv), "and writes into its run directory");
	struct strbuf sb;
	strbuf_init(&sb);
	char *done = xasprintf("%s/job.done", rundir), *args = xasprintf("%s/args", rundir);
	strbuf_read_file(&sb, done);
	contains(sb.buf, " store=" STORE_A "\n", "job.done names its store");
	char *other = xasprintf("%s/other.sh", tmp), *jobsh = xasprintf("%s/job.sh", rundir);
	const char *const owners[] = { a2, b1 };
	const char *const whose[] = { "another attempt", "another store" };
	for (int k = 0; k < 2; k++) {
		unlink(done);
		unlink(args);
		write_text(other, a1);
		write_text(jobsh, owners[k]);
		is_int(run_script_at(other), 1, "a job whose job.sh is now %s's fails at once", whose[k]);
		ok(access(args, F_OK) && access(done, F_OK), "it neither runs nor leaves job.done");
	}
	strbuf_release(&sb);
	free(done);
	free(args);
	free(other);
	free(jobsh);
	free(a1);
	free(a2);
	free(b1);
	free(app);
	free(rundir);
}

/* Job arrays: the array's comment, its map, and a task's job.done. */
static void test_array(void)
{
	char *c = slurm_array_comment(STORE_A, "/x/a run 5 attempt 2", "0123456789abcdef");
	is_str(c, "perfsweep " STORE_A " /x/a run 5 attempt 2 array 0123456789abcdef", "an array's comment");
	struct slurm_comment pc;
	ok(!slurm_comment_parse(c, &pc) && !strcmp(pc.array, "0123456789abcdef") && pc.run == 0 &&
	   pc.dir_len == strlen("/x/a run 5 attempt 2") && !strcmp(pc.store, STORE_A),
	   "parses back: its tag, store and directory (with ' run ' in it)");
	ok(slurm_comment_is_dir(&pc, STORE_A, "/x/a run 5 attempt 2") &&
	   !slurm_comment_is_dir(&pc, STORE_B, "/x/a run 5 attempt 2"), "it is store A's, not B's");
	ok(!slurm_comment_is(&pc, STORE_A, "/x/a run 5 attempt 2", 5), "and no single run's");
	free(c);
	is_int(slurm_comment_parse("perfsweep " STORE_A " /x array 0123", &pc), -1, "a short tag is no array's");

	struct slurm_array_task t[] = { { 7, 1, "/x/runs/7" }, { 9, 2, "/x/runs/9" } };
	char *map = NULL;
	struct perr err = { 0 };
	is_int(slurm_array_render(STORE_A, t, 2, &map, &err), 0, "the array's script renders");
	long long run = 0;
	int attempt = 0;
	ok(!slurm_array_lookup(map, 1, &run, &attempt) && run == 9 && attempt == 2, "task 1 is run 9, attempt 2");
	ok(!slurm_array_lookup(map, 0, &run, &attempt) && run == 7 && attempt == 1, "task 0 is run 7, attempt 1");
	is_int(slurm_array_lookup(map, 2, &run, &attempt), -1, "there is no task 2");
	free(map);
	is_int(slurm_array_render("01234", t, 2, &map, &err), -1, "a store id that is not hex digits is refused");

	struct slurm_done d;
	is_int(slurm_done_parse("job=41_3 attempt=2 exit=0 start=1 end=2 store=" STORE_A "\n", &d), 0,
	       "an array task's job.done parses");
	ok(d.job == 41 && d.task == 3 && d.attempt == 2, "job 41, task 3");
	is_int(slurm_done_parse("job=41 attempt=2 exit=0 start=1 end=2\n", &d), 0, "a single job's still does");
	is_int((int)d.task, -1, "with no task");
	is_int(slurm_done_parse("job=41_ attempt=2 exit=0 start=1 end=2\n", &d), -1, "'41_' is no job");
}

/* A rank of several cores (threads per rank): its srun step gives each task as many. */
static void test_cpus_per_task(void)
{
	char *argv[] = { "/bin/true", NULL };
	struct run_spec rs = { .id = 5, .campaign = "c", .campaign_dir = tmp, .store_id = STORE_A, .argv = argv,
			       .run_dir = tmp, .ranks = 2, .ranks_per_node = 2, .policy = "compact",
			       .cores_per_rank = "3", .bind_path = "/usr/bin/perfsweep-bind" };
	struct slurm_script_opts o = { 0 };
	char *script;
	struct perr err;
	is_int(slurm_script_render(&o, &rs, &script, &err), 0, "a script of 2 ranks of 3 cores rendered");
	contains(script, " --ntasks-per-node=2 --cpus-per-task=3 ", "srun gives each task its 3 cores");
	contains(script, "--cores-per-rank '3'", "which perfsweep-bind binds");
	free(script);
	rs.cores_per_rank = NULL;
	is_int(slurm_script_render(&o, &rs, &script, &err), 0, "one core a rank rendered");
	ok(!strstr(script, "--cpus-per-task"), "without --cpus-per-task");
	free(script);
}

int main(void)
{
	setup();
	test_cpus_per_task();
	test_comment();
	test_array();
	test_owner();
	for (int f = 0; f < NFIELDS; f++)
		for (int k = 0; hostile[k]; k++)
			try_value((enum field)f, hostile[k], k);
	test_self_contained();
	test_aborted_step();
	return done_testing();
}
