/*
 * What the details pane shows for one run: its fields, the command line, the
 * binding each rank really got (runs/<id>/rank-<r>.json, written by
 * perfsweep-bind), what each rank used (the store's resources: CPU time
 * and share, RSS, context switches, load, run-queue delay, foreign time
 * on its cores) and whether the run counts as disturbed and who took its
 * time (pid, command, core, share), its state history, and the tails of its stdout and stderr.  Plain C; the pane reloads it on every refresh while the run is
 * live, so the tails follow the output.
 */
#ifndef PS_TUI_DETAILS_H
#define PS_TUI_DETAILS_H
#include "common/error.h"
#include "campaign/store.h"
#include "validator/disturbed.h"

struct top_model;

struct top_lines {
	int n;
	char **v;
};

struct top_details {
	long long id;
	struct run run;
	char *argv;             /* the command line (runs/<id>/argv.json), or NULL */
	struct top_lines bind;  /* "rank 0: ..." per rank */
	struct top_lines res;   /* "rank 0: CPU share 0.99 ..." per resource record */
	char *disturbed;        /* why the run counts as disturbed (left out of the models), or NULL */
	struct disturbed_cause *causes; /* who took its time (with disturbed), the largest first */
	int ncauses;
	int nev;
	struct run_event *ev;
	struct top_lines out, err;   /* last lines of stdout and stderr */
	int live;               /* submitted or running */
};

/* Load a run's details, keeping at most maxlines lines of each output tail. */
int top_details_load(struct top_details *d, struct top_model *m, long long id, int maxlines,
		     struct perr *err);
void top_details_release(struct top_details *d);

/* The last maxlines lines of a file (empty when it does not exist). */
void top_lines_tail(struct top_lines *l, const char *path, int maxlines);
void top_lines_release(struct top_lines *l);

#endif
