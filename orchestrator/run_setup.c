/* Set-up steps and set-up templates, once per distinct values (run_setup.h). */
#include "orchestrator/run_setup.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/run_command.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAMP ".perfsweep-setup"

/* Does the set-up use parameter name: a step's argument or a set-up template's text? */
static int setup_uses(const struct campaign_config *c, const char *name, char **texts)
{
	for (int i = 0; i < c->nsteps; i++)
		for (int a = 0; a < c->steps[i].argc; a++)
			if (template_uses(c->steps[i].argv[a], name))
				return 1;
	for (int t = 0; t < c->ntemplates; t++)
		if (texts[t] && template_uses(texts[t], name))
			return 1;
	return 0;
}

void run_setup_init(struct run_setup *s, const struct campaign_config *c, struct store *st)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	int ntemplates = 0;
	for (int t = 0; t < c->ntemplates; t++)
		ntemplates += c->templates[t].setup;
	s->active = c->nsteps > 0 || ntemplates > 0;
	if (!s->active)
		return;
	s->root = xasprintf("%s/setup", store_dir(st));
	char **texts = xcalloc((size_t)c->ntemplates + 1, sizeof(char *));
	for (int t = 0; t < c->ntemplates; t++) {
		struct strbuf sb;
		const char *why;
		strbuf_init(&sb);
		if (c->templates[t].setup && !fs_read_regular(&sb, c->templates[t].from, &why))
			texts[t] = strbuf_detach(&sb);      /* unreadable: its filling fails, saying why */
		strbuf_release(&sb);
	}
	s->used = xcalloc((size_t)store_nparams(st) + 1, sizeof(int));
	for (int k = 0; k < store_nparams(st); k++)
		if (setup_uses(c, store_param_name(st, k), texts))
			s->used[s->nused++] = k;
	for (int t = 0; t < c->ntemplates; t++)
		free(texts[t]);
	free(texts);
}

static void free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void run_setup_release(struct run_setup *s)
{
	free(s->root);
	free(s->used);
	free_list(s->ready, s->nready);
	free_list(s->failed, s->nfailed);
	free_list(s->why, s->nfailed);
	memset(s, 0, sizeof(*s));
}

char *run_setup_dir(const struct run_setup *s, const struct store *st, const double *v)
{
	if (!s->active)
		return NULL;
	struct strbuf key;
	strbuf_init(&key);
	for (int i = 0; i < s->nused; i++) {
		int k = s->used[i];
		char val[64];
		int ck = config_find_param(s->c, store_param_name(st, k));
		template_format_value(val, sizeof(val), v[k], ck >= 0 ? s->c->params[ck].is_int : 0);
		strbuf_addf(&key, "%s%s=%s", i ? "," : "", store_param_name(st, k), val);
	}
	if (!s->nused)
		strbuf_addstr(&key, "all");
	if (key.len > 200) {    /* a file name has its limits: the key's hash instead */
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < key.len; i++)
			h = (h ^ (unsigned char)key.buf[i]) * 1099511628211ULL;
		strbuf_reset(&key);
		strbuf_addf(&key, "h%016llx", (unsigned long long)h);
	}
	char *dir = xasprintf("%s/%s", s->root, key.buf);
	strbuf_release(&key);
	return dir;
}


int run_dir_afresh(const char *dir, struct perr *err)
{
	fs_remove_tree(dir);
	if (fs_mkdir_p(dir))
		return perr_set(err, "cannot create directory '%s': %s", dir, strerror(errno));
	return 0;
}

/* The stamp of what the set-up at dir runs: its templates' text and its steps, expanded. */
static char *stamp_of(const struct campaign_config *c, const struct template_var *vars, int nvars)
{
	uint64_t h = 1469598103934665603ULL;
	struct strbuf sb;
	strbuf_init(&sb);
	for (int t = 0; t < c->ntemplates; t++) {
		struct strbuf in;
		const char *why;
		if (!c->templates[t].setup)
			continue;
		strbuf_init(&in);
		strbuf_addf(&sb, "template %s\n", c->templates[t].to);
		if (!fs_read_regular(&in, c->templates[t].from, &why)) {
			char *text = template_expand(in.buf, vars, nvars);
			strbuf_addstr(&sb, text);
			free(text);
		}
		strbuf_release(&in);
	}
	for (int i = 0; i < c->nsteps; i++) {
		strbuf_addstr(&sb, "\nstep");
		for (int a = 0; a < c->steps[i].argc; a++) {
			char *arg = template_expand(c->steps[i].argv[a], vars, nvars);
			strbuf_addch(&sb, ' ');
			strbuf_add(&sb, arg, strlen(arg) + 1);     /* with its NUL: arguments stay apart */
			free(arg);
		}
	}
	for (size_t i = 0; i < sb.len; i++)
		h = (h ^ (unsigned char)sb.buf[i]) * 1099511628211ULL;
	strbuf_release(&sb);
	return xasprintf("%016llx\n", (unsigned long long)h);
}

static int in_list(char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

/* A step that ended (or could not start): why it failed, or NULL. */
static char *step_failure(const struct child_process *cp, int i, const char *prog, const char *dir,
			  int timed_out, double timeout)
{
	if (cp->exec_errno)
		return xasprintf("set-up step %d (%s) could not start: %s", i + 1, prog, strerror(cp->exec_errno));
	if (timed_out)
		return xasprintf("set-up step %d (%s) timed out after %g s (app.timeout); its output is in "
				 "%s/setup-%d.stderr", i + 1, prog, timeout, dir, i + 1);
	int code = command_exit_code(cp->status);
	if (!code)
		return NULL;
	if (code > 128)
		return xasprintf("set-up step %d (%s) was killed by signal %d; its output is in %s/setup-%d.stderr",
				 i + 1, prog, code - 128, dir, i + 1);
	return xasprintf("set-up step %d (%s) exited with status %d; its output is in %s/setup-%d.stderr",
			 i + 1, prog, code, dir, i + 1);
}

/* Run step i in dir until it ends, the timeout passes or *stop is set:
   NULL when it succeeded, else why (caller frees); *stopped when *stop. */
static char *run_step(const struct run_setup *s, int i, const char *dir, const struct template_var *vars,
		      int nvars, const volatile sig_atomic_t *stop, int *stopped)
{
	const struct config_step *step = &s->c->steps[i];
	char **argv = xcalloc((size_t)step->argc + 1, sizeof(char *));
	for (int a = 0; a < step->argc; a++)
		argv[a] = template_expand(step->argv[a], vars, nvars);
	if (argv[0][0] != '/' && strchr(argv[0], '/')) {   /* beside the config, as the command's */
		char *abs = config_resolve(s->c, argv[0]);
		free(argv[0]);
		argv[0] = abs;
	}
	char *out = xasprintf("%s/setup-%d.stdout", dir, i + 1), *errf = xasprintf("%s/setup-%d.stderr", dir, i + 1);
	struct child_process cp = { .argv = argv, .dir = dir, .in = "/dev/null", .out = out, .err = errf,
				    .new_group = 1, .pdeathsig = SIGKILL, .close_fds = 1 };
	char *why = NULL;
	double timeout = s->c->app_timeout, end = mono_now() + timeout;
	int timed_out = 0;
	const char *prog = step->argv[0];
	if (start_command(&cp) < 0) {
		why = cp.exec_errno ? step_failure(&cp, i, prog, dir, 0, 0)
				    : xasprintf("set-up step %d (%s) could not start: %s", i + 1, prog, strerror(errno));
	} else {
		struct child_process *one = &cp;
		while (!cp.finished && wait_commands(&one, 1, 0.25) >= 0) {
			if (cp.finished)
				break;
			if ((stop && *stop) || (timeout > 0 && mono_now() > end)) {
				timed_out = !(stop && *stop);
				*stopped = !timed_out;
				kill(-cp.pid, SIGKILL);
				finish_command(&cp);
			}
		}
		if (!cp.finished)
			finish_command(&cp);
		if (!*stopped)
			why = step_failure(&cp, i, prog, dir, timed_out, timeout);
	}
	for (int a = 0; a < step->argc; a++)
		free(argv[a]);
	free(argv);
	free(out);
	free(errf);
	return why;
}

/* The set-up at dir: its templates, then its steps.  0 done; 1 failed (*why); 2 stopped. */
static int make_setup(struct run_setup *s, const char *dir, const struct template_var *vars, int nvars,
		      const volatile sig_atomic_t *stop, char **why)
{
	const struct campaign_config *c = s->c;
	struct perr e2;
	for (int t = 0; t < c->ntemplates; t++)
		if (c->templates[t].setup &&
		    template_fill_file(c->templates[t].from, dir, c->templates[t].to, vars, nvars, &e2)) {
			*why = xstrdup(e2.msg);
			return 1;
		}
	for (int i = 0; i < c->nsteps; i++) {
		int stopped = 0;
		*why = run_step(s, i, dir, vars, nvars, stop, &stopped);
		if (stopped)
			return 2;
		if (*why)
			return 1;
	}
	return 0;
}

int run_setup_prepare(struct run_setup *s, const char *dir, const struct template_var *vars, int nvars,
		      const volatile sig_atomic_t *stop, const char **why, struct perr *err)
{
	int f = in_list(s->failed, s->nfailed, dir);
	if (f >= 0) {
		*why = s->why[f];
		return 1;
	}
	if (in_list(s->ready, s->nready, dir) >= 0)
		return 0;
	char *stamp = stamp_of(s->c, vars, nvars), *path = xasprintf("%s/" STAMP, dir);
	struct strbuf old;
	const char *ignored;
	strbuf_init(&old);
	int rc = !fs_read_regular(&old, path, &ignored) && !strcmp(old.buf, stamp) ? 0 : -2;
	strbuf_release(&old);
	char *failure = NULL;
	if (rc == -2) {     /* not made, or made by other steps: afresh */
		rc = run_dir_afresh(dir, err);
		if (!rc)
			rc = make_setup(s, dir, vars, nvars, stop, &failure);
		if (!rc && fs_write_file(path, stamp, strlen(stamp)))
			rc = perr_set(err, "cannot write '%s': %s", path, strerror(errno));
	}
	if (rc == 0) {
		s->ready = xrealloc(s->ready, sizeof(char *) * (size_t)(s->nready + 1));
		s->ready[s->nready++] = xstrdup(dir);
	} else if (rc == 1) {
		s->failed = xrealloc(s->failed, sizeof(char *) * (size_t)(s->nfailed + 1));
		s->why = xrealloc(s->why, sizeof(char *) * (size_t)(s->nfailed + 1));
		s->failed[s->nfailed] = xstrdup(dir);
		s->why[s->nfailed] = failure;
		*why = s->why[s->nfailed++];
		failure = NULL;
	}
	free(failure);
	free(stamp);
	free(path);
	return rc;
}
