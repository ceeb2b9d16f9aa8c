/*
 * Rendering a run's batch script.  srun starts every rank through a tiny
 * sh that sends its output to the run directory (rank 0 to stdout/stderr,
 * rank r to rank-<r>.stdout/.stderr); the script's own output goes to
 * job.out/job.err.
 *
 * Every value that comes from outside (names, paths, partition, extra
 * options, the application's arguments and environment) reaches the script
 * through script_quote() and nothing else (the store id, refused unless it
 * is hex digits, is also written as is in the owner line): single-quoted for sh, or
 * double-quoted for sbatch's own #SBATCH parser.  A value that cannot be
 * written safely in its place is refused, never written: control
 * characters outside an sh string, an environment name that is not an sh
 * name.
 *
 * The script is complete on its own, so `sbatch runs/<id>/job.sh` reruns a
 * run by hand: it sets PERFSWEEP_RUN_DIR and the run's environment itself,
 * and on its way out leaves the completion record job.done ("job=ID
 * attempt=N exit=RC start=T end=T store=ID") that a later orchestrator
 * reads when the controller has forgotten the job.  It works in the run
 * directory only while the job.sh there is its own attempt's (the owner
 * line, slurm_script.h).  Inside SLURM it also drops the
 * notes JOB.start and JOB.done into runs/.events (slurm_events_dir), where
 * the running orchestrator sees a job start and end without asking the
 * controller, and JOB.gone when SLURM ends it with SIGTERM (backend_slurm.c).
 */
#include "orchestrator/slurm/slurm_script.h"
#include "placement/launch.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the run directory is still this job's: its job.sh has the
   script's owner line (PERFSWEEP_JOB); sh, inside single quotes too. */
#define MINE "grep -qxF -e \"$PERFSWEEP_JOB\" \"$PERFSWEEP_RUN_DIR/job.sh\" 2>/dev/null"

/* Where a value goes. */
enum quote_ctx {
	Q_SH,        /* an sh word: single quotes; may span lines (arguments) */
	Q_SH_LINE,   /* an sh word on a line of its own kind: no control characters */
	Q_SBATCH,    /* a word of a #SBATCH line, as sbatch reads it: double quotes */
	Q_PATTERN,   /* a #SBATCH file name: as Q_SBATCH, '%' written as "%%" */
};

static int has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

/* The one quoting function: append v, quoted for ctx, or refuse it (-1, err
   naming what). */
static int script_quote(struct strbuf *sb, const char *what, const char *v, enum quote_ctx ctx,
			struct perr *err)
{
	if (ctx != Q_SH && has_control(v))
		return perr_set(err, "%s contains a control character", what);
	/* spans between the characters that need escaping go in whole */
	if (ctx == Q_SH || ctx == Q_SH_LINE) {
		strbuf_addch(sb, '\'');
		for (const char *s = v;; s++) {
			size_t n = strcspn(s, "'");
			strbuf_add(sb, s, n);
			s += n;
			if (!*s)
				break;
			strbuf_addstr(sb, "'\\''");
		}
		strbuf_addch(sb, '\'');
		return 0;
	}
	const char *special = ctx == Q_PATTERN ? "\"\\%" : "\"\\";
	strbuf_addch(sb, '"');
	for (const char *s = v;; s++) {
		size_t n = strcspn(s, special);
		strbuf_add(sb, s, n);
		s += n;
		if (!*s)
			break;
		strbuf_addch(sb, *s == '%' ? '%' : '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
	return 0;
}

int slurm_job_nodes(const struct run_spec *rs)
{
	if (rs->nodes > 0)
		return rs->nodes;
	if (rs->ranks_per_node > 0)
		return (rs->ranks + rs->ranks_per_node - 1) / rs->ranks_per_node;
	return 0;
}

/* One name per attempt, so that a job an earlier orchestrator submitted and
   never recorded is told apart from the recorded jobs of earlier attempts. */
char *slurm_job_name(const char *campaign, long long id, int attempt)
{
	return xasprintf("ps:%s:%lld.%d", campaign ? campaign : "", id, attempt > 0 ? attempt : 1);
}

static const char *store_or_dash(const struct run_spec *rs)
{
	return rs->store_id && *rs->store_id ? rs->store_id : "-";
}

char *slurm_job_comment(const struct run_spec *rs)
{
	return xasprintf("perfsweep %s %s run %lld attempt %d", store_or_dash(rs),
			 rs->campaign_dir ? rs->campaign_dir : "", rs->id, rs->attempt > 0 ? rs->attempt : 1);
}

/* STORE_ID_LEN lower-case hex digits at s, then end (a space in a comment). */
static int is_store_id(const char *s, char end)
{
	for (int i = 0; i < STORE_ID_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[STORE_ID_LEN] == end;
}

int slurm_comment_parse(const char *comment, struct slurm_comment *c)
{
	memset(c, 0, sizeof(*c));
	static const char head[] = "perfsweep ";
	if (!comment || strncmp(comment, head, sizeof(head) - 1))
		return -1;
	const char *p = comment + sizeof(head) - 1;
	if (is_store_id(p, ' ')) {
		memcpy(c->store, p, STORE_ID_LEN);
		p += STORE_ID_LEN + 1;
	}
	/* " array TAG" at the end: a job array, its runs in its map */
	size_t len = strlen(p);
	static const char arr[] = " array ";
	if (c->store[0] && len > SLURM_ARRAY_TAG_LEN + sizeof(arr) - 1 &&
	    !strncmp(p + len - SLURM_ARRAY_TAG_LEN - (sizeof(arr) - 1), arr, sizeof(arr) - 1) &&
	    strspn(p + len - SLURM_ARRAY_TAG_LEN, "0123456789abcdef") == SLURM_ARRAY_TAG_LEN) {
		memcpy(c->array, p + len - SLURM_ARRAY_TAG_LEN, SLURM_ARRAY_TAG_LEN);
		c->dir = p;
		c->dir_len = len - SLURM_ARRAY_TAG_LEN - (sizeof(arr) - 1);
		return 0;
	}
	/* the directory may hold " run ": the last one ends it */
	const char *tail = NULL;
	for (const char *q = strstr(p, " run "); q; q = strstr(q + 1, " run "))
		tail = q;
	if (!tail)
		return -1;
	int n = -1;
	if (c->store[0])
		sscanf(tail, " run %lld attempt %d%n", &c->run, &c->attempt, &n);
	else
		sscanf(tail, " run %lld%n", &c->run, &n);
	if (n < 0 || tail[n] || c->run <= 0 || (c->store[0] && c->attempt <= 0))
		return -1;
	c->dir = p;
	c->dir_len = (size_t)(tail - p);
	return 0;
}

int slurm_comment_is_dir(const struct slurm_comment *c, const char *store_id, const char *dir)
{
	return store_id && !strcmp(c->store, store_id) && dir && strlen(dir) == c->dir_len &&
	       !strncmp(c->dir, dir, c->dir_len);
}

int slurm_comment_is(const struct slurm_comment *c, const char *store_id, const char *dir, long long run)
{
	return !c->array[0] && store_id && !strcmp(c->store, store_id) && dir && strlen(dir) == c->dir_len &&
	       !strncmp(c->dir, dir, c->dir_len) && c->run == run;
}

/* The line naming the attempt a job script was rendered for (caller frees). */
static char *owner_line(const struct run_spec *rs)
{
	return xasprintf("# perfsweep job: store %s run %lld attempt %d", store_or_dash(rs), rs->id,
			 rs->attempt > 0 ? rs->attempt : 1);
}

char *slurm_file_pattern(const char *path)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (; *path; path++) {
		if (*path == '%')
			strbuf_addch(&sb, '%');
		strbuf_addch(&sb, *path);
	}
	return strbuf_detach(&sb);
}

/* "#SBATCH OPT<value>\n", the value quoted; value NULL: "#SBATCH OPT\n". */
static int sbatch_line(struct strbuf *sc, const char *opt, const char *what, const char *value,
		       enum quote_ctx ctx, struct perr *err)
{
	strbuf_addf(sc, "#SBATCH %s", opt);
	if (value && script_quote(sc, what, value, ctx, err))
		return -1;
	strbuf_addch(sc, '\n');
	return 0;
}

/* For the reader and for resubmitting by hand: libslurm applies these
   settings through the job description, not by parsing these lines. */
static int script_sbatch_lines(struct strbuf *sc, const struct slurm_script_opts *o,
			       const struct run_spec *rs, struct perr *err)
{
	char *name = slurm_job_name(rs->campaign, rs->id, rs->attempt);
	int rc = sbatch_line(sc, "--job-name=", "the campaign name", name, Q_SBATCH, err);
	free(name);
	if (rc)
		return -1;
	if (o->nodes > 0)
		strbuf_addf(sc, "#SBATCH --nodes=%d\n", o->nodes);
	strbuf_addf(sc, "#SBATCH --ntasks=%d\n", rs->ranks);
	if (rs->ranks_per_node > 0)
		strbuf_addf(sc, "#SBATCH --ntasks-per-node=%d\n", rs->ranks_per_node);
	strbuf_addstr(sc, "#SBATCH --exclusive\n");
	if (o->time_limit)
		strbuf_addf(sc, "#SBATCH --time=%u\n", o->time_limit);
	if ((o->partition && sbatch_line(sc, "--partition=", "backend.partition", o->partition,
					 Q_SBATCH, err)) ||
	    (o->account && sbatch_line(sc, "--account=", "backend.account", o->account, Q_SBATCH,
				       err)) ||
	    (o->qos && sbatch_line(sc, "--qos=", "backend.qos", o->qos, Q_SBATCH, err)))
		return -1;
	for (int i = 0; i < o->nextra; i++)
		if (sbatch_line(sc, "", "backend.extra", o->extra[i], Q_SBATCH, err))
			return -1;
	char *out = xasprintf("%s/job.out", rs->run_dir), *errf = xasprintf("%s/job.err", rs->run_dir);
	rc = sbatch_line(sc, "--output=", "the run directory", out, Q_PATTERN, err) ||
	     sbatch_line(sc, "--error=", "the run directory", errf, Q_PATTERN, err);
	free(out);
	free(errf);
	return rc ? -1 : 0;
}

/* A name sh can assign to. */
static int sh_name(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* "NAME='value'; export NAME\n" */
static int export_line(struct strbuf *sc, const char *kv, struct perr *err)
{
	size_t klen = strcspn(kv, "=");
	if (!kv[klen])
		return 0;
	if (!sh_name(kv, klen))
		return perr_set(err, "environment name '%.*s' is not a valid shell name", (int)klen, kv);
	strbuf_add(sc, kv, klen);
	strbuf_addch(sc, '=');
	script_quote(sc, "an environment value", kv + klen + 1, Q_SH, err);
	strbuf_addstr(sc, "; export ");
	strbuf_add(sc, kv, klen);
	strbuf_addch(sc, '\n');
	return 0;
}

/* The run's environment, so that a job resubmitted by hand has it too. */
static int script_env(struct strbuf *sc, const struct run_spec *rs, struct perr *err)
{
	/* the three set below win, as in job_env(): written once */
	static const char *const ours[] = { "PERFSWEEP_RUN_DIR=", "PERFSWEEP_RUN_ID=", "PERFSWEEP_CAMPAIGN=" };
	for (char *const *e = rs->env; e && *e; e++) {
		int own = 0;
		for (size_t k = 0; k < sizeof(ours) / sizeof(*ours); k++)
			own |= !strncmp(*e, ours[k], strlen(ours[k]));
		if (!own && export_line(sc, *e, err))
			return -1;
	}
	char *dir = xasprintf("PERFSWEEP_RUN_DIR=%s", rs->run_dir);
	char *id = xasprintf("PERFSWEEP_RUN_ID=%lld", rs->id);
	char *camp = xasprintf("PERFSWEEP_CAMPAIGN=%s", rs->campaign ? rs->campaign : "");
	int rc = export_line(sc, dir, err) || export_line(sc, id, err) || export_line(sc, camp, err);
	free(dir);
	free(id);
	free(camp);
	return rc ? -1 : 0;
}

/* srun, the per-rank sh, the binder and the application, on one line. */
static int script_srun(struct strbuf *sc, const struct slurm_script_opts *o,
		       const struct run_spec *rs, struct perr *err)
{
	int nodes = o->nodes;
	if (rs->timeout > 0)
		strbuf_addf(sc, "timeout --kill-after=10 %.3f ", rs->timeout);
	strbuf_addf(sc, "srun --cpu-bind=none --ntasks=%d", rs->ranks);
	if (o->mpi) {
		strbuf_addstr(sc, " --mpi=");
		if (script_quote(sc, "backend.mpi", o->mpi, Q_SH_LINE, err))
			return -1;
	}
	if (nodes > 0)
		strbuf_addf(sc, " --nodes=%d", nodes);
	if (rs->ranks_per_node > 0)
		strbuf_addf(sc, " --ntasks-per-node=%d", rs->ranks_per_node);
	/* a rank of several cores (threads per rank): the step gives each task its
	   cores, which perfsweep-bind binds (the job holds its nodes whole) */
	int cpt = rs->policy && rs->cores_per_rank ? atoi(rs->cores_per_rank) : 0;
	if (cpt > 1)
		strbuf_addf(sc, " --cpus-per-task=%d", cpt);
	strbuf_addstr(sc, " /bin/sh -c '" MINE " || exit 1; "
		      "r=${SLURM_PROCID:-0}; "
		      "if [ \"$r\" = 0 ]; then exec >\"$PERFSWEEP_RUN_DIR/stdout\" 2>\"$PERFSWEEP_RUN_DIR/stderr\"; "
		      "else exec >\"$PERFSWEEP_RUN_DIR/rank-$r.stdout\" 2>\"$PERFSWEEP_RUN_DIR/rank-$r.stderr\"; fi; "
		      "\"$@\"; c=$?; echo $c >\"$PERFSWEEP_RUN_DIR/job.rank-$r.exit\"; exit $c' perfsweep-rank");
	if (rs->policy && rs->bind_path) {
		struct launch_placement lp = {
			.policy = rs->policy,
			.ranks_per_node = rs->ranks_per_node > 0 ? rs->ranks_per_node
				: nodes > 0 ? (rs->ranks + nodes - 1) / nodes : 0,
			.cores_per_rank = rs->cores_per_rank,
			.map = rs->map,
		};
		/* launch_argv gives BIND, then option/value pairs, then "--": the
		   option names and the rank count (printed by launch_argv) go bare,
		   the program and every other value through the quoting function */
		char **pre = launch_argv(rs->bind_path, &lp);
		int bad = 0;
		for (int k = 0; pre[k] && !bad; k++) {
			strbuf_addch(sc, ' ');
			if (k % 2 == 1 || (k > 0 && !strcmp(pre[k - 1], "--ranks-per-node")))
				strbuf_addstr(sc, pre[k]);
			else
				bad = script_quote(sc, "the launcher's command line", pre[k], Q_SH_LINE, err);
		}
		launch_argv_free(pre);
		if (bad)
			return -1;
	}
	for (char *const *a = rs->argv; *a; a++) {
		strbuf_addch(sc, ' ');
		script_quote(sc, "an application argument", *a, a == rs->argv ? Q_SH_LINE : Q_SH, err);
	}
	return has_control(rs->argv[0]) ? perr_set(err, "the program name contains a control character")
					: 0;
}

static int script_head(struct strbuf *sc, const struct slurm_script_opts *o,
		       const struct run_spec *rs, struct perr *err)
{
	strbuf_addf(sc, "#!/bin/sh\n# perfsweep: run %lld of campaign ", rs->id);
	if (script_quote(sc, "the campaign name", rs->campaign ? rs->campaign : "", Q_SH_LINE, err))
		return -1;
	strbuf_addstr(sc, " in ");
	if (script_quote(sc, "the campaign directory", rs->campaign_dir ? rs->campaign_dir : "",
			 Q_SH_LINE, err))
		return -1;
	strbuf_addch(sc, '\n');
	char *owner = owner_line(rs);
	strbuf_addf(sc, "%s\n", owner);
	free(owner);
	return script_sbatch_lines(sc, o, rs, err);
}

int slurm_script_render(const struct slurm_script_opts *o, const struct run_spec *rs, char **out,
			struct perr *err)
{
	struct strbuf sc;
	strbuf_init(&sc);
	*out = NULL;
	if (!rs->run_dir || !rs->argv || !rs->argv[0]) {
		strbuf_release(&sc);
		return perr_set(err, "run %lld: no run directory or no command", rs->id);
	}
	/* the store id goes into the script's owner line as it is */
	if (rs->store_id && *rs->store_id && !is_store_id(rs->store_id, '\0')) {
		strbuf_release(&sc);
		return perr_set(err, "run %lld: the store id is not %d hex digits", rs->id, STORE_ID_LEN);
	}
	if (script_head(&sc, o, rs, err) || script_env(&sc, rs, err))
		goto fail;
	/* job.done: how this job ended, for an orchestrator that finds the job
	   purged from the controller; and the notes JOB.start (its start time)
	   and JOB.done (empty) in the campaign's events directory, which tell a
	   running orchestrator at once (a note it cannot leave is no error: the
	   controller knows too; printf, not a special built-in such as `:`,
	   because a failed redirection of one ends sh).  SLURM ends a cancelled
	   or timed-out job with SIGTERM: the note JOB.gone then asks the
	   orchestrator to hear how from the controller now. */
	char *events = slurm_events_dir(rs->run_dir);
	strbuf_addstr(&sc, "d=$PERFSWEEP_RUN_DIR\ne=");
	int bad = script_quote(&sc, "the events directory", events, Q_SH_LINE, err);
	free(events);
	if (bad)
		goto fail;
	/* the run directory is this job's only while its job.sh names this
	   attempt (owner_line): a job of an earlier attempt, or of a store
	   since made afresh at the same path, leaves it alone; checked when
	   the script starts, by every rank before it opens its output, and
	   before the completion record and note */
	char *owner = owner_line(rs);
	strbuf_addstr(&sc, "\nPERFSWEEP_JOB=");
	script_quote(&sc, "the owner line", owner, Q_SH_LINE, err);
	free(owner);
	strbuf_addstr(&sc, "; export PERFSWEEP_JOB\n"
		      "mine() { " MINE "; }\n"
		      "mine || { echo \"perfsweep: $d belongs to another attempt or campaign store now: nothing done\" >&2; exit 1; }\n"
		      "j=${SLURM_JOB_ID:-}\n"
		      "[ -z \"${SLURM_ARRAY_TASK_ID:-}\" ] || j=${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID\n"
		      "s=$(date +%s)\n"
		      "note() { [ -z \"$j\" ] || { printf '%s\\n' \"$2\" >\"$e/$j.$1\"; } 2>/dev/null; }\n");
	strbuf_addstr(&sc, "finish() { mine || exit \"$1\"; "
		      "printf 'job=%s attempt=%s exit=%s start=%s end=%s store=%s\\n' \"${j:-0}\" ");
	strbuf_addf(&sc, "%d", rs->attempt > 0 ? rs->attempt : 1);
	strbuf_addstr(&sc, " \"$1\" \"$s\" \"$(date +%s)\" ");
	script_quote(&sc, "the store id", store_or_dash(rs), Q_SH_LINE, err);
	strbuf_addstr(&sc, " >\"$d/job.done.tmp\" && "
		      "mv -f \"$d/job.done.tmp\" \"$d/job.done\"; note done; exit \"$1\"; }\n"
		      "rm -f \"$d/stdout\" \"$d/job.step-failed\" \"$d/job.step-aborted\" \"$d/job.done\" \"$d\"/job.rank-*.exit\n"
		      "note start \"$s\"\n"
		      "trap 'note gone; exit 143' TERM\n"
		      "cd -- ");
	if (script_quote(&sc, "the working directory", rs->workdir ? rs->workdir : rs->run_dir,
			 Q_SH_LINE, err))
		goto fail;
	/* srun needs the controller to start its step.  When no rank started
	   (rank 0 creates stdout first thing), wait for the controller and try
	   again; give up after SLURM_STEP_TRIES and leave job.step-failed behind. */
	strbuf_addstr(&sc, " || finish 125\nn=0\nwhile :; do\n\t");
	if (script_srun(&sc, o, rs, err))
		goto fail;
	/* srun says 0 when the controller aborted the step (a node set down
	   under it) before its ranks ended: each rank leaves
	   job.rank-R.exit as it ends, and 0 without all of them is an
	   aborted step (job.step-aborted), not a success */
	strbuf_addstr(&sc, "\n\trc=$?\n"
		      "\tmine || exit 1\n"
		      "\tif [ $rc -eq 0 ]; then k=0; for f in \"$d\"/job.rank-*.exit; do [ -e \"$f\" ] && k=$((k + 1)); done; ");
	strbuf_addf(&sc, "[ $k -ge %d ]", rs->ranks);
	strbuf_addstr(&sc, " || { : >\"$d/job.step-aborted\"; rc=1; }; fi\n"
		      "\tif [ $rc -eq 0 ] || [ -e \"$d/stdout\" ]; then finish $rc; fi\n"
		      "\tn=$((n + 1))\n");
	strbuf_addf(&sc, "\tif [ $n -ge %d ]; then : >\"$d/job.step-failed\"; finish $rc; fi\n"
		    "\tsleep ${PERFSWEEP_STEP_PAUSE:-%d}\ndone\n", SLURM_STEP_TRIES, SLURM_STEP_PAUSE);
	*out = strbuf_detach(&sc);
	return 0;
fail:
	strbuf_release(&sc);
	return -1;
}

char *slurm_events_dir(const char *run_dir)
{
	const char *slash = strrchr(run_dir, '/');
	/* a run directory without a slash lies in the current directory, not in / */
	return slash ? xasprintf("%.*s/.events", (int)(slash - run_dir), run_dir) : xstrdup(".events");
}

int slurm_done_parse(const char *text, struct slurm_done *d)
{
	memset(d, 0, sizeof(*d));
	d->task = -1;
	int n = 0, m = 0;
	if (!text || strncmp(text, "job=", 4) || text[4] < '0' || text[4] > '9')
		return -1;
	char *end;
	unsigned long job = strtoul(text + 4, &end, 10);
	if (*end == '_') {   /* an array task: job=JOB_TASK */
		if (end[1] < '0' || end[1] > '9')
			return -1;
		d->task = (long)strtoul(end + 1, &end, 10);
	}
	text = end;
	if (sscanf(text, " attempt=%d exit=%d start=%lld end=%lld%n", &d->attempt,
		   &d->exit_status, &d->start, &d->end, &n) != 4 || n == 0)
		return -1;
	d->job = (unsigned)job;
	/* " store=ID" since store ids; "-": a script rendered without one */
	char store[STORE_ID_LEN + 1];
	if (sscanf(text + n, " store=%32[0-9a-f-]%n", store, &m) == 1 && m > 0 && strcmp(store, "-"))
		memcpy(d->store, store, sizeof(store));
	return 0;
}

char *slurm_arrays_dir(const char *campaign_dir)
{
	return xasprintf("%s/runs/.arrays", campaign_dir ? campaign_dir : ".");
}

char *slurm_array_comment(const char *store_id, const char *campaign_dir, const char *tag)
{
	return xasprintf("perfsweep %s %s array %s", store_id && *store_id ? store_id : "-",
			 campaign_dir ? campaign_dir : "", tag);
}

int slurm_array_render(const char *store_id, const struct slurm_array_task *t, int n, char **out,
		       struct perr *err)
{
	struct strbuf sc;
	strbuf_init(&sc);
	*out = NULL;
	if (!store_id || !is_store_id(store_id, '\0')) {
		strbuf_release(&sc);
		return perr_set(err, "the store id is not %d hex digits", STORE_ID_LEN);
	}
	strbuf_addf(&sc, "#!/bin/sh\n# perfsweep job array of store %s: task T runs the run's own "
		    "runs/<id>/job.sh\n", store_id);
	for (int i = 0; i < n; i++)
		strbuf_addf(&sc, "# task %d run %lld attempt %d\n", i, t[i].run,
			    t[i].attempt > 0 ? t[i].attempt : 1);
	strbuf_addstr(&sc, "case ${SLURM_ARRAY_TASK_ID:-} in\n");
	for (int i = 0; i < n; i++) {
		strbuf_addf(&sc, "%d) d=", i);
		if (script_quote(&sc, "the run directory", t[i].run_dir, Q_SH_LINE, err))
			goto fail;
		strbuf_addf(&sc, "; o='# perfsweep job: store %s run %lld attempt %d' ;;\n", store_id,
			    t[i].run, t[i].attempt > 0 ? t[i].attempt : 1);
	}
	/* the script is read once and checked before it runs: a later attempt
	   that takes the run directory meanwhile is never run by this task */
	strbuf_addstr(&sc, "*) echo \"perfsweep: no run for array task ${SLURM_ARRAY_TASK_ID:-}\" >&2; exit 1 ;;\n"
		      "esac\n"
		      "exec >\"$d/job.out\" 2>\"$d/job.err\" </dev/null\n"
		      "s=$(cat -- \"$d/job.sh\") || exit 1\n"
		      "printf '%s\\n' \"$s\" | grep -qxF -e \"$o\" || { echo \"perfsweep: $d belongs to another "
		      "attempt or campaign store now: nothing done\" >&2; exit 1; }\n"
		      "exec /bin/sh -c \"$s\" \"$d/job.sh\"\n");
	*out = strbuf_detach(&sc);
	return 0;
fail:
	strbuf_release(&sc);
	return -1;
}

int slurm_array_lookup(const char *text, unsigned long task, long long *run, int *attempt)
{
	char head[48];
	int hn = snprintf(head, sizeof(head), "# task %lu run ", task);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p != '#')
			break;   /* the map lines come first */
		if (strncmp(p, head, (size_t)hn))
			continue;
		int n = -1;
		if (sscanf(p + hn, "%lld attempt %d%n", run, attempt, &n) == 2 && n > 0 && *run > 0)
			return 0;
	}
	return -1;
}
