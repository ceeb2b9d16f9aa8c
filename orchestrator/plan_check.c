/*
 * Plan-time checks: the files a campaign needs (plan_check_files), and what
 * the backends' placement checks share (a point's ranks and cores, its
 * refusal); the checks themselves are in the backends' folders.
 */
#include "orchestrator/plan_check.h"
#include "common/strbuf.h"
#include "common/progpath.h"
#include "common/xalloc.h"
#include "campaign/template.h"
#include "campaign/config_get.h"
#include "common/fsutil.h"
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

int plan_point_ranks(const struct plan *pl, const struct plan_point *pt)
{
	for (int k = 0; k < pl->nparams; k++)
		if (pl->params[k].role && !strcmp(pl->params[k].role, "ranks"))
			return (int)pt->values[k];
	return pt->nodes > 0 && pt->ranks_per_node > 0 ? pt->nodes * pt->ranks_per_node : 1;
}

int plan_point_cores(const struct campaign_config *c, const struct plan_point *pt, int cpr)
{
	if (pt->cores_per_rank && c->threads_param >= 0)
		return atoi(pt->cores_per_rank);
	return cpr;
}

/* "point 3 (np=2, n=10): placement 2x1 compact" */
static void describe(struct strbuf *sb, const struct plan *pl, int i, int ranks, int rpn)
{
	struct plan_point buf;
	double *vals = xmalloc(sizeof(double) * (size_t)(pl->nparams + 1));
	const struct plan_point *pt = plan_point_at(pl, i, &buf, vals);
	strbuf_addf(sb, "point %d (", i + 1);
	for (int k = 0; k < pl->nparams; k++) {
		char v[64];
		template_format_value(v, sizeof(v), pt->values[k], pl->params[k].is_int);
		strbuf_addf(sb, "%s%s=%s", k ? ", " : "", pl->params[k].name, v);
	}
	strbuf_addf(sb, "): placement %d rank%s, %d per node, %s", ranks, ranks == 1 ? "" : "s", rpn,
		    pt->policy ? pt->policy : "compact");
	free(vals);
}

int plan_refuse_point(const struct plan *pl, int i, int ranks, int rpn, const char *why,
		      struct perr *err)
{
	struct strbuf sb;
	strbuf_init(&sb);
	describe(&sb, pl, i, ranks, rpn);
	perr_set(err, "%s %s", sb.buf, why);
	strbuf_release(&sb);
	return -1;
}

/* Set-up step i's program: a path (beside the config when relative), or a name in PATH. */
static int check_step_program(const struct campaign_config *c, int i, struct perr *err)
{
	const char *prog = c->steps[i].argv[0];
	char *abs_dir = config_dir_abs(c), *p;
	struct template_var v = { "config_dir", abs_dir };
	p = template_expand(prog, &v, 1);
	int rc = 0;
	if (strchr(p, '{')) {
		rc = 0;         /* named by a parameter: known at run time */
	} else if (!strchr(p, '/')) {
		char *found = progpath_find_in(p, NULL, getenv("PATH"));
		if (!found)
			rc = config_error_in(c, "app.setup", i, NULL, err, "set-up step %d: program '%s' is not in PATH; install it or "
					  "give its path", i + 1, p);
		free(found);
	} else {
		char *path = p[0] == '/' ? xstrdup(p) : config_resolve(c, p);
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK))
			rc = config_error_in(c, "app.setup", i, NULL, err, "set-up step %d: program '%s' %s (%s)", i + 1, p,
					  stat(path, &st) ? "does not exist" : "is not an executable file", path);
		free(path);
	}
	free(p);
	free(abs_dir);
	return rc;
}

int plan_check_files(const struct campaign_config *c, struct perr *err)
{
	struct stat st;
	if (c->app_workdir && (stat(c->app_workdir, &st) || !S_ISDIR(st.st_mode)))
		return config_error_in(c, "app.workdir", -1, NULL, err, "app.workdir '%s' %s; create it "
				    "or fix the path", c->app_workdir,
				    stat(c->app_workdir, &st) ? "does not exist" : "is not a directory");
	for (int i = 0; i < c->ntemplates; i++) {
		const char *why = NULL;
		int fd = fs_open_regular(c->templates[i].from, 0, &why);
		if (fd < 0)
			return config_error_in(c, "app.template", i, "from", err, "template '%s' cannot "
					    "be read: %s", c->templates[i].from, why ? why : strerror(errno));
		close(fd);
	}
	for (int i = 0; i < c->nsteps; i++)
		if (check_step_program(c, i, err))
			return -1;
	return 0;
}
