/*
 * Set-up steps (app.setup) and set-up templates (app.template with into =
 * "setup"): what prepares a run's input, made once per distinct set of
 * values it uses and kept in <campaign dir>/setup/<key>/ (docs/config.md,
 * "Set-up steps").  The key names the values of the parameters the steps
 * and set-up templates use ("L=3,n=2"; "all" when none); a stamp of what
 * ran (.perfsweep-setup) marks a finished set-up, so a run at the same
 * values, in this `perfsweep run` or a later one, reuses it, and a changed
 * step or template makes it again.  Steps run through common/run_command,
 * one after another, in that directory; nothing here prints.
 */
#ifndef PS_RUN_SETUP_H
#define PS_RUN_SETUP_H
#include "campaign/config.h"
#include "campaign/store.h"
#include "campaign/template.h"
#include "common/error.h"
#include <signal.h>

struct run_setup {
	const struct campaign_config *c;
	int active;                 /* the campaign has set-up steps or set-up templates */
	char *root;                 /* <campaign dir>/setup */
	int nused;
	int *used;                  /* store parameters the set-up uses, in store order */
	int nready, nfailed;
	char **ready;               /* directories ready in this engine's life */
	char **failed, **why;       /* directories whose set-up failed, and why */
};

/* For campaign c in store st: which parameters the set-up uses (reading the
   set-up templates).  Release it either way. */
void run_setup_init(struct run_setup *s, const struct campaign_config *c, struct store *st);
void run_setup_release(struct run_setup *s);

/* The set-up directory of a run with store values v (absolute; caller
   frees), or NULL when the campaign has no set-up. */
char *run_setup_dir(const struct run_setup *s, const struct store *st, const double *v);

/*
 * Make the set-up directory dir ready for a run: nothing when it is (its
 * stamp matches), else the set-up templates and steps there, the steps'
 * placeholders from vars (parameters, {config_dir}, {setup}).  Returns 0
 * ready; 1 failed, *why says how (owned by s; later calls for dir give it
 * again without running anything); 2 stopped by *stop (the run waits); -1
 * err (the directory cannot be made).
 */
int run_setup_prepare(struct run_setup *s, const char *dir, const struct template_var *vars, int nvars,
		      const volatile sig_atomic_t *stop, const char **why, struct perr *err);

/* Remove dir and all it holds (never through a link), then make it again,
   empty: 0, or -1 with err naming it.  A run's attempt starts this way too. */
int run_dir_afresh(const char *dir, struct perr *err);

#endif
