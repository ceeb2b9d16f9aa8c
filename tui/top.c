/*
 * The monitor's main loop and key table.  Keys map to handlers through one
 * table (as in htop); a handler changes the app state and the loop redraws.
 * Refresh is incremental: each tick loads only the runs changed since the
 * last one.
 */
#include "common/clock.h"
#include "tui/top.h"
#include "common/xalloc.h"
#include "orchestrator/control.h"
#include "tui/app.h"
#include "tui/term.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define FLAGS_MIN_INTERVAL 5.0
#define CHECK_POLL_MS 50        /* how often a store's check is asked whether it is done */


static void __attribute__((format(printf, 3, 4)))
app_message(struct top_app *a, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->message, sizeof(a->message), fmt, ap);
	va_end(ap);
	a->message_error = error;
}

/* ---- campaigns ---- */

/* paged: the interactive screen's, which comes before the stores are read
   whole and checked (they are, beside it); else each is read and checked first */
static int app_open(struct top_app *a, char *const *dirs, int n, double now, int paged, struct perr *err)
{
	memset(a, 0, sizeof(*a));
	strbuf_init(&a->input);
	a->models = xcalloc((size_t)n, sizeof(*a->models));
	a->flags = xcalloc((size_t)n, sizeof(*a->flags));
	a->flags_at = xcalloc((size_t)n, sizeof(*a->flags_at));
	a->checks = xcalloc((size_t)n, sizeof(*a->checks));
	a->jobs = xcalloc((size_t)n, sizeof(*a->jobs));
	a->jobs_done = xcalloc((size_t)n, sizeof(*a->jobs_done));
	a->beside = paged;
	for (int i = 0; i < n; i++) {
		if ((paged ? top_model_open_paged : top_model_open)(&a->models[i], dirs[i], now, err) < 0)
			return -1;
		a->nmodels++;
		if (paged && !(a->checks[i] = store_task_start(dirs[i], store_check_task, NULL, err)))
			return -1;
	}
	return 0;
}

/* 1 while some store is still being checked, 0 when every one is sound,
   -1 with err when one is not. */
static int app_checks(struct top_app *a, struct perr *err)
{
	int busy = 0;
	for (int i = 0; i < a->nmodels; i++) {
		if (!a->checks[i])
			continue;
		int rc = store_task_poll(a->checks[i], err);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			store_task_stop(a->checks[i]);
			a->checks[i] = NULL;
		}
		busy |= rc > 0;
	}
	return busy;
}

/* A store still being read a page at a time (the next page: at once). */
static int app_loading(const struct top_app *a)
{
	for (int i = 0; i < a->nmodels; i++)
		if (a->models[i].loading)
			return 1;
	return 0;
}

static void app_release(struct top_app *a)
{
	for (int i = 0; i < a->nmodels; i++)
		top_model_release(&a->models[i]);
	for (int i = 0; a->checks && i < a->nmodels; i++) {
		store_task_stop(a->checks[i]);
		store_task_stop(a->jobs[i]);
	}
	free(a->checks);
	free(a->jobs);
	free(a->jobs_done);
	free(a->models);
	free(a->flags);
	free(a->flags_at);
	free(a->confirm_ids);
	top_details_release(&a->details);
	top_lines_release(&a->validate);
	strbuf_release(&a->input);
	memset(a, 0, sizeof(*a));
}

/* When the flags of a computation that took `took` seconds are due again:
   on a big store they read every measurement, so under 5% of the time. */
static double flags_due(double now, double took)
{
	return now + (took * 20 > FLAGS_MIN_INTERVAL ? took * 20 : FLAGS_MIN_INTERVAL);
}

/* Recompute a campaign's flags when runs finished since the last time; in
   the interactive monitor, on a thread (its keys never wait for them). */
static int app_flags(struct top_app *a, int i, double now, int force, struct perr *err)
{
	struct top_flags *f = &a->flags[i];
	long long done = a->models[i].stats.n[RUN_DONE];
	if (a->models[i].loading || a->checks[i])
		return 0;       /* they read the whole store: once it is read and sound */
	if (a->jobs[i]) {
		double took;
		int rc = store_task_poll(a->jobs[i], err);
		if (rc > 0)
			return 0;
		if (rc == 0)
			top_flags_result(a->jobs[i], f, &took);
		store_task_stop(a->jobs[i]);
		a->jobs[i] = NULL;
		if (rc < 0)
			return -1;
		f->done = a->jobs_done[i];
		a->flags_at[i] = flags_due(now, took);
		return 0;
	}
	if (!force && f->computed && (f->done == done || now < a->flags_at[i]))
		return 0;
	if (a->beside) {
		a->jobs_done[i] = done;
		a->jobs[i] = top_flags_start(a->models[i].dir, TOP_FLAGS_COV, TOP_FLAGS_MIN_REPS, err);
		return a->jobs[i] ? 0 : -1;
	}
	double t0 = wall_now();
	if (top_flags_compute(a->models[i].st, TOP_FLAGS_COV, TOP_FLAGS_MIN_REPS, f, err) < 0)
		return -1;
	f->done = done;
	a->flags_at[i] = flags_due(now, wall_now() - t0);
	return 0;
}

/* A flags job still running somewhere (the loop asks it often). */
static int app_computing(const struct top_app *a)
{
	for (int i = 0; i < a->nmodels; i++)
		if (a->jobs[i])
			return 1;
	return 0;
}

static int details_lines(void)
{
	return 200;
}

static int app_refresh(struct top_app *a, double now, struct perr *err)
{
	for (int i = 0; i < a->nmodels; i++) {
		if (top_model_refresh(&a->models[i], now, err) < 0 || app_flags(a, i, now, 0, err) < 0)
			return -1;
	}
	if (a->mode == TOP_MODE_DETAILS && a->details.id)
		if (top_details_load(&a->details, top_app_model(a), a->details.id, details_lines(), err) < 0)
			return -1;
	return 0;
}

/* ---- key handlers ---- */

struct top_ctx {
	struct top_app *a;
	int height;             /* table rows on screen */
	double now;
};

typedef void (*key_fn)(struct top_ctx *c, int key);

static void open_details(struct top_ctx *c)
{
	struct perr err;
	struct top_row *r = top_model_current(top_app_model(c->a));
	if (!r) {
		app_message(c->a, 1, "no run to show");
		return;
	}
	if (top_details_load(&c->a->details, top_app_model(c->a), r->run.id, details_lines(), &err) < 0) {
		app_message(c->a, 1, "%s", err.msg);
		return;
	}
	c->a->mode = TOP_MODE_DETAILS;
}

static void k_move(struct top_ctx *c, int key)
{
	struct top_model *m = top_app_model(c->a);
	long long d;
	if (c->a->mode == TOP_MODE_VALIDATE || c->a->mode == TOP_MODE_HELP) {
		/* panes scroll their text */
		int step = key == TK_PGUP || key == TK_PGDN ? c->height : 1;
		int up = key == TK_UP || key == 'k' || key == TK_PGUP || key == TK_HOME || key == 'g';
		if (key == TK_HOME || key == 'g')
			c->a->pane_scroll = 0;
		else
			c->a->pane_scroll += up ? -step : step;
		if (c->a->pane_scroll < 0)
			c->a->pane_scroll = 0;
		return;
	}
	switch (key) {
	case TK_UP: case 'k': d = -1; break;
	case TK_DOWN: case 'j': d = 1; break;
	case TK_PGUP: d = -(long long)c->height; break;
	case TK_PGDN: d = c->height; break;
	case TK_HOME: case 'g': d = -(long long)m->nview; break;
	default: d = (long long)m->nview; break;
	}
	top_model_move(m, d, c->height);
	if (c->a->mode == TOP_MODE_DETAILS)
		open_details(c);
}

static void k_filter(struct top_ctx *c, int key)
{
	(void)key;
	struct top_model *m = top_app_model(c->a);
	strbuf_reset(&c->a->input);
	if (m->filter.text)
		strbuf_addstr(&c->a->input, m->filter.text);
	c->a->prompt = TOP_PROMPT_FILTER;
}

static void k_sort(struct top_ctx *c, int key)
{
	struct top_model *m = top_app_model(c->a);
	if (key == 'I') {
		top_model_set_sort(m, m->sort_col, !m->sort_desc);
	} else {
		int col = m->sort_col + (key == '<' ? -1 : 1);
		col = (col + TOP_NCOLS) % TOP_NCOLS;
		top_model_set_sort(m, col, m->sort_desc);
	}
	app_message(c->a, 0, "sorted by %s %s", top_col_name((enum top_col)m->sort_col),
		    m->sort_desc ? "descending" : "ascending");
}

static void k_details(struct top_ctx *c, int key)
{
	(void)key;
	open_details(c);
}

static void k_mark(struct top_ctx *c, int key)
{
	struct top_model *m = top_app_model(c->a);
	if (key == ' ') {
		struct top_row *r = top_model_current(m);
		if (r)
			top_model_mark(m, r, !r->marked);
		top_model_move(m, 1, c->height);
	} else if (key == 'a') {
		top_model_mark_view(m, 1);
		app_message(c->a, 0, "marked %lld run%s", m->nmarked, m->nmarked == 1 ? "" : "s");
	} else {
		top_model_mark_view(m, 0);
		app_message(c->a, 0, "no run marked");
	}
}

static int failed(enum run_state s)
{
	return s == RUN_FAILED;
}

/* The selected runs (top_model_selection) whose state passes keep; the caller frees *ids.  Their count. */
static size_t selected_where(const struct top_model *m, int (*keep)(enum run_state), long long **ids)
{
	size_t n = top_model_selection(m, ids), k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = top_model_find(m, (*ids)[i]);
		if (r && keep(r->run.state))
			(*ids)[k++] = (*ids)[i];
	}
	return k;
}

static void ask(struct top_ctx *c, enum top_action act, long long *ids, size_t n)
{
	free(c->a->confirm_ids);
	c->a->confirm_ids = ids;
	c->a->nconfirm = n;
	c->a->confirm = act;
	c->a->prompt = TOP_PROMPT_CONFIRM;
}

static void k_cancel(struct top_ctx *c, int key)
{
	(void)key;
	long long *ids;
	size_t k = selected_where(top_app_model(c->a), run_is_live, &ids);
	if (!k) {
		free(ids);
		app_message(c->a, 1, "nothing to cancel: the selected runs have finished");
		return;
	}
	ask(c, TOP_ACT_CANCEL, ids, k);
}

static void k_retry(struct top_ctx *c, int key)
{
	(void)key;
	struct top_model *m = top_app_model(c->a);
	long long *ids;
	size_t k = selected_where(m, failed, &ids);
	if (!k && !m->nmarked) {
		/* no failed run selected: offer every failed run in the view */
		free(ids);
		ids = xmalloc(sizeof(*ids) * (m->nview ? m->nview : 1));
		for (size_t i = 0; i < m->nview; i++)
			if (top_model_at(m, i)->run.state == RUN_FAILED)
				ids[k++] = top_model_at(m, i)->run.id;
	}
	if (!k) {
		free(ids);
		app_message(c->a, 1, "nothing to retry: no failed run selected or shown");
		return;
	}
	ask(c, TOP_ACT_RETRY, ids, k);
}

static void k_validate(struct top_ctx *c, int key)
{
	(void)key;
	struct perr err;
	struct top_app *a = c->a;
	if (app_flags(a, a->cur, c->now, 1, &err) < 0 ||
	    top_validate(top_app_model(a)->dir, &a->validate, a->validate_title,
			 sizeof(a->validate_title), &err) < 0) {
		app_message(a, 1, "validate: %s", err.msg);
		return;
	}
	a->pane_scroll = 0;
	a->mode = TOP_MODE_VALIDATE;
}

static void k_campaign(struct top_ctx *c, int key)
{
	int n = c->a->nmodels;
	if (n < 2) {
		app_message(c->a, 0, "one campaign only");
		return;
	}
	c->a->cur = (c->a->cur + (key == TK_BTAB || key == '[' ? n - 1 : 1)) % n;
}

static void k_help(struct top_ctx *c, int key)
{
	(void)key;
	c->a->pane_scroll = 0;
	c->a->mode = TOP_MODE_HELP;
}

static void k_back(struct top_ctx *c, int key)
{
	struct top_model *m = top_app_model(c->a);
	if (c->a->mode != TOP_MODE_TABLE) {
		c->a->mode = TOP_MODE_TABLE;
		top_details_release(&c->a->details);
		top_lines_release(&c->a->validate);
	} else if (key == TK_ESC && m->filter.text) {
		struct perr err;
		top_model_set_filter(m, NULL, &err);
		app_message(c->a, 0, "filter cleared");
	}
}

static void k_quit(struct top_ctx *c, int key)
{
	if (key == 'q' && c->a->mode != TOP_MODE_TABLE) {
		k_back(c, key);
		return;
	}
	c->a->quit = 1;
}

struct key_binding {
	int keys[4];
	key_fn fn;
	const char *help;
};

static const struct key_binding bindings[] = {
	{ { TK_UP, 'k', TK_DOWN, 'j' }, k_move, "Up/Down j/k   move (in details: previous/next run)" },
	{ { TK_PGUP, TK_PGDN, 0, 0 }, k_move, "PgUp/PgDn     page" },
	{ { TK_HOME, 'g', TK_END, 'G' }, k_move, "Home/End g/G  first/last run" },
	{ { '/', TK_F4, '\\', 0 }, k_filter, "/ F4          filter: regex, or param=value (p=4 state=failed n>=100)" },
	{ { TK_ESC, TK_LEFT, 0, 0 }, k_back, "Esc           back to the table; clear the filter" },
	{ { '<', '>', TK_F6, 0 }, k_sort, "< > F6        sort by the previous/next column" },
	{ { 'I', 0, 0, 0 }, k_sort, "I             invert the sort order" },
	{ { TK_ENTER, TK_RIGHT, 0, 0 }, k_details, "Enter         details: argv, binding, history, stdout/stderr" },
	{ { ' ', 'a', 'u', 0 }, k_mark, "Space a u     mark a run, mark all shown, unmark all" },
	{ { 'c', TK_F9, 0, 0 }, k_cancel, "c F9          cancel the marked runs (or this one), asks first" },
	{ { 'r', 0, 0, 0 }, k_retry, "r             retry failed runs (marked, this one, or all shown)" },
	{ { 'v', 0, 0, 0 }, k_validate, "v             validate: run the validator (as perfsweep validate DIR)" },
	{ { TK_TAB, ']', TK_BTAB, '[' }, k_campaign, "Tab ] [       next/previous campaign" },
	{ { '?', 'h', TK_F1, 0 }, k_help, "? h F1        this help" },
	{ { 'q', TK_F10, 0, 0 }, k_quit, "q F10         quit (in a pane: back)" },
};

static key_fn key_table[TK_MAX];
static const char *help_lines[sizeof(bindings) / sizeof(bindings[0]) + 1];

static void keys_init(void)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		for (int k = 0; k < 4; k++)
			if (bindings[i].keys[k] > 0)
				key_table[bindings[i].keys[k]] = bindings[i].fn;
		help_lines[i] = bindings[i].help;
	}
}

/* ---- prompts ---- */

/* Cancel the marked runs as `perfsweep cancel` does; the first problem, if any, in err. */
static int cancel_marked(const char *dir, const long long *ids, size_t n, int *ncancelled,
			 struct perr *err)
{
	struct cancel_options o = { .ids = ids, .nids = n, .reason = "cancelled from perfsweep top" };
	struct cancel_result r;
	if (campaign_cancel(dir, &o, &r, err) < 0)
		return -1;
	*ncancelled = r.ncancelled;
	int rc = r.nerrors ? perr_set(err, "%s", r.errors[0]) : 0;
	cancel_result_release(&r);
	return rc;
}

static void do_confirmed(struct top_ctx *c)
{
	struct top_app *a = c->a;
	struct top_model *m = top_app_model(a);
	struct perr err;
	int n = 0, rc;
	if (a->confirm == TOP_ACT_CANCEL)
		rc = cancel_marked(m->dir, a->confirm_ids, a->nconfirm, &n, &err);
	else
		rc = campaign_retry(m->dir, a->confirm_ids, a->nconfirm, "retried from perfsweep top", &n,
				    &err);
	const char *what = a->confirm == TOP_ACT_CANCEL ? "cancelled" : "sent back to pending";
	if (rc < 0)
		app_message(a, 1, "%d %s; %s", n, what, err.msg);
	else
		app_message(a, 0, "%d run%s %s", n, n == 1 ? "" : "s", what);
	top_model_mark_view(m, 0);
	if (top_model_refresh(m, c->now, &err) < 0)
		app_message(a, 1, "%s", err.msg);
}

static void prompt_key(struct top_ctx *c, int key)
{
	struct top_app *a = c->a;
	if (a->prompt == TOP_PROMPT_CONFIRM) {
		a->prompt = TOP_PROMPT_NONE;
		if (key == 'y' || key == 'Y')
			do_confirmed(c);
		else
			app_message(a, 0, "nothing done");
		free(a->confirm_ids);
		a->confirm_ids = NULL;
		a->nconfirm = 0;
		return;
	}
	if (key == TK_ESC) {
		a->prompt = TOP_PROMPT_NONE;
	} else if (key == TK_ENTER) {
		struct perr err;
		struct top_model *m = top_app_model(a);
		a->prompt = TOP_PROMPT_NONE;
		if (top_model_set_filter(m, a->input.buf, &err) < 0)
			app_message(a, 1, "%s", err.msg);
		else if (m->filter.text)
			app_message(a, 0, "%zu of %zu runs match '%s'", m->nview, m->nrows, m->filter.text);
		top_model_move(m, 0, c->height);
	} else if (key == TK_BACKSPACE || key == TK_DELETE) {
		if (a->input.len)
			a->input.buf[--a->input.len] = '\0';
	} else if (key == 21) {    /* Ctrl-U: clear the line */
		strbuf_reset(&a->input);
	} else if (key >= 32 && key < 127) {
		strbuf_addch(&a->input, (char)key);
	}
}

/* ---- main loop ---- */

int top_interactive(char *const *dirs, int ndirs, const struct top_options *o, struct perr *err)
{
	struct top_app a;
	struct screen scr;
	double now = wall_now();
	keys_init();
	if (app_open(&a, dirs, ndirs, now, 1, err) < 0) {
		app_release(&a);
		return -1;
	}
	a.interval = o->interval > 0 ? o->interval : 1;
	a.color = o->color;
	a.help = help_lines;
	if (term_start(o->color, err) < 0) {
		app_release(&a);
		return -1;
	}
	int w, h, ret = 0;
	term_size(&w, &h);
	screen_init(&scr, w, h);
	/* the first screen comes after the first page of runs, before the rest
	   is read, the store checked (beside, on a thread) and the flags
	   computed (they read every run's usage: seconds on a 10^6-run store);
	   until then the loop reads a page a turn and keeps the keys alive */
	double next = now;
	while (!a.quit) {
		int tw, th;
		term_size(&tw, &th);
		if (tw != scr.w || th != scr.h)
			screen_resize(&scr, tw, th);
		view_draw(&scr, &a);
		term_draw(&scr);
		int checking = app_checks(&a, err);
		if (checking < 0) {
			ret = -1;       /* a corrupt store is refused, as any reader refuses it */
			break;
		}
		now = wall_now();
		if (app_loading(&a))
			next = now;
		int wait = next > now ? (int)((next - now) * 1000) + 1 : 0;
		if ((checking || app_computing(&a)) && wait > CHECK_POLL_MS)
			wait = CHECK_POLL_MS;
		int key = term_getkey(wait);
		now = wall_now();
		struct top_ctx c = { .a = &a, .height = top_table_rows(scr.h), .now = now };
		if (key == TK_INTERRUPT)
			break;
		if (key == TK_RESIZE)
			continue;
		if (key != TK_NONE) {
			if (a.prompt != TOP_PROMPT_NONE) {
				prompt_key(&c, key);
			} else {
				a.message[0] = '\0';
				if (key >= 0 && key < TK_MAX && key_table[key])
					key_table[key](&c, key);
			}
		}
		struct perr rerr;
		if (now >= next) {
			if (app_refresh(&a, now, &rerr) < 0)
				app_message(&a, 1, "refresh failed: %s", rerr.msg);
			next = now + a.interval;
		} else {
			/* flags done between refreshes: shown at once */
			for (int i = 0; i < a.nmodels; i++)
				if (a.jobs[i] && app_flags(&a, i, now, 0, &rerr) < 0)
					app_message(&a, 1, "flags failed: %s", rerr.msg);
		}
	}
	term_stop();
	screen_release(&scr);
	app_release(&a);
	return ret;
}

int top_snapshot(char *const *dirs, int ndirs, int width, int height, FILE *out, struct perr *err)
{
	struct top_app a;
	struct screen scr;
	double now = wall_now();
	keys_init();
	if (app_open(&a, dirs, ndirs, now, 0, err) < 0) {
		app_release(&a);
		return -1;
	}
	a.interval = 1;
	a.help = help_lines;
	screen_init(&scr, width, height);
	int ret = 0;
	for (int i = 0; i < a.nmodels && !ret; i++) {
		if (app_flags(&a, i, now, 1, err) < 0) {
			ret = -1;
			break;
		}
		a.cur = i;
		view_draw(&scr, &a);
		if (i)
			fputc('\n', out);
		screen_write(&scr, out);
	}
	screen_release(&scr);
	app_release(&a);
	return ret;
}
