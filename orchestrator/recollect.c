/* perfsweep collect: the collectors again over the stored files of done runs. */
#include "orchestrator/recollect.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "campaign/campaign_config.h"
#include "orchestrator/campaign_open.h"
#include "campaign/config_diff.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The config stored with the campaign, parsed (release c either way). */
static int stored_config(struct store *st, struct campaign_config *c, struct perr *err)
{
	int rc = campaign_open_config(st, c, err);
	if (rc > 0)
		return perr_set(err, "'%s' has no stored config; give one: perfsweep collect CONFIG --dir %s",
				store_dir(st), store_dir(st));
	return rc;
}

static char *fingerprint_of(const struct campaign_config *c)
{
	struct collector_set cs;
	config_collectors(c, &cs);
	return collector_set_fingerprint(&cs);
}

/* The fingerprint of the collectors the runs were collected with (caller
   frees): the pinned one, else the stored config's (that of cfg when the
   stored text is cfg's, cfg may be NULL); NULL when the store cannot tell
   (a stored config that no longer reads).  *pinned: it was pinned. */
static char *runs_fingerprint(struct store *st, const struct campaign_config *cfg, int *pinned)
{
	char *fp = store_get_meta(st, "collectors_fingerprint");
	*pinned = fp != NULL;
	if (fp)
		return fp;
	char *text = store_get_meta(st, "config");
	int same = text && cfg && cfg->text && !strcmp(text, cfg->text);
	free(text);
	if (same)
		return fingerprint_of(cfg);
	struct campaign_config c;
	struct perr err;
	if (!stored_config(st, &c, &err))
		fp = fingerprint_of(&c);
	config_release(&c);
	return fp;
}

int campaign_collectors_check(struct store *st, const struct campaign_config *cfg, struct perr *err)
{
	char *pending = store_get_meta(st, "collect_pending");
	if (pending) {
		free(pending);
		return perr_set(err, "a re-collection of '%s' did not finish; finish it first: "
				"perfsweep collect %s --dir %s", store_dir(st), cfg->path, store_dir(st));
	}
	int pinned;
	char *have = runs_fingerprint(st, cfg, &pinned);
	char *want = fingerprint_of(cfg);
	int rc = 0;
	if (have && strcmp(have, want))
		rc = perr_set(err, "%s: the collect section differs from the collectors the runs in '%s' "
			      "were collected with; re-collect them first: perfsweep collect %s --dir %s "
			      "(or give another --dir for a new campaign)", cfg->path, store_dir(st), cfg->path,
			      store_dir(st));
	else if (have && !pinned)
		rc = store_set_meta(st, "collectors_fingerprint", have, err);
	free(have);
	free(want);
	return rc;
}

/* dir is a campaign this command may re-collect: checked read-only, then
   locked and opened for writing.  0, or -1 (err). */
static int open_campaign(const char *dir, struct campaign_open *co, struct perr *err)
{
	struct store *st;
	struct stat sb;
	if (stat(dir, &sb))
		return perr_set(err, "cannot read campaign directory '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return perr_set(err, "'%s' is not a campaign directory", dir);
	if (store_open(&st, dir, STORE_READONLY, err))
		return -1;
	char *backend = store_get_meta(st, "backend");
	int imported = backend && !strcmp(backend, "import");
	free(backend);
	store_close(st);
	if (imported)
		return perr_set(err, "'%s' holds imported measurements: there are no run outputs to "
				"collect from", dir);
	return campaign_open_existing(co, dir, err) ? -1 : 0;
}

/* The collectors' config: the given one, which may change only the collect
   section of the stored one, or the stored one.  0, or -1 (err). */
static int collectors_config(struct store *st, const char *config_path, struct campaign_config *c,
			     struct perr *err)
{
	if (!config_path)
		return stored_config(st, c, err);
	if (config_load(c, config_path, err))
		return -1;
	struct campaign_config old;
	if (stored_config(st, &old, err)) {
		config_release(&old);
		return -1;
	}
	static const char *const skip[] = { "collect", NULL };
	char key[256];
	int line, rc = 0;
	if (campaign_config_diff(&old, c, skip, key, sizeof(key), &line))
		rc = perr_set(err, "%s:%d: '%s' differs from the config stored in '%s'; collect may change "
			      "only the collect section (give another --dir for a new campaign)",
			      config_path, line, key, store_dir(st));
	config_release(&old);
	return rc;
}

static int cmp_measurement(const void *pa, const void *pb)
{
	const struct measurement *a = pa, *b = pb;
	int c = strcmp(a->region, b->region);
	if (!c)
		c = strcmp(a->metric, b->metric);
	if (!c)
		c = (a->rank > b->rank) - (a->rank < b->rank);
	if (!c)
		c = (a->value > b->value) - (a->value < b->value);
	return c;
}

/* The collector of the set that produces region/metric, or NULL. */
static const char *collector_of(const struct collector_set *cs, const char *region, const char *metric)
{
	for (int i = 0; i < cs->nregex; i++)
		if (!strcmp(cs->regex[i].region, region) && !strcmp(cs->regex[i].metric, metric))
			return "regex";
	if (cs->wall && !strcmp(region, "main") && !strcmp(metric, "time"))
		return "wall";
	for (int i = 0; cs->cubex && i < cs->ncubex_metrics; i++)
		if (!strcmp(cs->cubex_metrics[i], metric))
			return "cubex";
	return NULL;
}

/* The report's row for region/metric (created on first use). */
static struct recollect_metric *row(struct recollect_report *rep, struct strmap *index,
				    const struct collector_set *cs, const struct measurement *m)
{
	char *key = xasprintf("%s%c%s", m->region, '\x1f', m->metric);
	int i = strmap_get(index, key);
	if (i < 0) {
		i = rep->nmetrics++;
		rep->metrics = xrealloc(rep->metrics, (size_t)rep->nmetrics * sizeof(*rep->metrics));
		struct recollect_metric *r = &rep->metrics[i];
		memset(r, 0, sizeof(*r));
		r->region = xstrdup(m->region);
		r->metric = xstrdup(m->metric);
		r->collector = collector_of(cs, m->region, m->metric);
		strmap_put(index, key, i);
	}
	free(key);
	return &rep->metrics[i];
}

/* Length of the group of a[i..n) with a[i]'s region and metric. */
static int group_len(const struct measurement_list *l, int i)
{
	int j = i;
	while (j < l->n && !strcmp(l->m[j].region, l->m[i].region) && !strcmp(l->m[j].metric, l->m[i].metric))
		j++;
	return j - i;
}

/* Count one run: per region/metric, were its values added, changed, removed or unchanged? */
static void tally(struct recollect_report *rep, struct strmap *index, const struct collector_set *cs,
		  struct measurement_list *old, struct measurement_list *new)
{
	if (old->n)             /* qsort's array must not be NULL, even empty */
		qsort(old->m, (size_t)old->n, sizeof(*old->m), cmp_measurement);
	if (new->n)
		qsort(new->m, (size_t)new->n, sizeof(*new->m), cmp_measurement);
	int i = 0, j = 0;
	while (i < old->n || j < new->n) {
		int c = i >= old->n ? 1 : j >= new->n ? -1 : strcmp(old->m[i].region, new->m[j].region);
		if (!c)
			c = strcmp(old->m[i].metric, new->m[j].metric);
		int no = c <= 0 ? group_len(old, i) : 0, nn = c >= 0 ? group_len(new, j) : 0;
		struct recollect_metric *r = row(rep, index, cs, c <= 0 ? &old->m[i] : &new->m[j]);
		if (!nn) {
			r->removed++;
		} else if (!no) {
			r->added++;
		} else {
			int same = no == nn;
			for (int k = 0; same && k < no; k++)
				same = !cmp_measurement(&old->m[i + k], &new->m[j + k]);
			if (same)
				r->unchanged++;
			else
				r->changed++;
		}
		i += no;
		j += nn;
	}
}

static int interrupted(struct store *st, struct perr *err)
{
	return perr_set(err, "interrupted: the re-collection of '%s' did not finish; run the same "
			"command again to finish it", store_dir(st));
}

/* One done run: collected again and stored in one transaction.  0, or -1
   (an interrupted collection stores nothing). */
static int recollect_run(struct store *st, const struct collector_set *cs, const struct run *r,
			 struct recollect_report *rep, struct strmap *index, struct perr *err)
{
	char *dir = store_run_path(st, r->id);
	struct stat sb;
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		free(dir);
		rep->no_files++;
		return 0;
	}
	struct collect_result cr;
	struct measurement_list old;
	measurement_list_init(&old);
	collector_set_run(cs, dir, r->wall, &cr);
	int rc = cr.interrupted ? interrupted(st, err) : store_recollect(st, r->id, &cr, &old, err);
	if (rc == 0) {
		rep->runs++;
		tally(rep, index, cs, &old, &cr.ml);
	}
	collect_result_release(&cr);
	measurement_list_release(&old);
	free(dir);
	return rc < 0 ? -1 : 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct recollect_metric *a = pa, *b = pb;
	int c = strcmp(a->region, b->region);
	return c ? c : strcmp(a->metric, b->metric);
}

/* Every done run, then the new collectors pinned.  0, or -1 (err). */
static int recollect_all(struct store *st, const struct campaign_config *c, const char *config_text,
			 const volatile sig_atomic_t *stop, struct recollect_report *rep, struct perr *err)
{
	struct collector_set cs;
	config_collectors(c, &cs);
	cs.limits.stop = stop;
	if (store_set_meta(st, "collect_pending", rep->fingerprint, err))
		return -1;
	struct run *runs;
	int n, rc = 0;
	if (store_load_runs(st, 0, &runs, &n, err))
		return -1;
	struct strmap index;
	strmap_init(&index);
	for (int i = 0; i < n && !rc; i++)
		if (stop && *stop)
			rc = interrupted(st, err);
		else if (runs[i].state == RUN_DONE)
			rc = recollect_run(st, &cs, &runs[i], rep, &index, err);
	strmap_release(&index);
	runs_free(runs, n);
	if (rc)
		return -1;
	if (rep->nmetrics)      /* qsort's array must not be NULL, even empty */
		qsort(rep->metrics, (size_t)rep->nmetrics, sizeof(*rep->metrics), cmp_row);
	const char *keys[] = { "collectors_fingerprint", "collect_pending", "config" };
	const char *values[] = { rep->fingerprint, NULL, config_text };
	if (store_set_metas(st, keys, values, config_text ? 3 : 2, err))
		return -1;
	rep->config_stored = config_text != NULL;
	return store_collect_misses(st, &rep->misses, &rep->nmisses, err);
}

int campaign_recollect(const char *dir, const char *config_path, const volatile sig_atomic_t *stop,
		       struct recollect_report *rep, struct perr *err)
{
	struct campaign_config c;
	struct campaign_open co;
	int ret = -1, loaded = 0;
	memset(rep, 0, sizeof(*rep));
	campaign_open_init(&co);
	if (!dir && config_path) {
		int rc = config_load(&c, config_path, err);
		rep->dir = rc ? NULL : config_default_dir(&c);
		config_release(&c);
		if (rc)
			return -1;
	} else {
		rep->dir = xstrdup(dir);
	}
	if (open_campaign(rep->dir, &co, err))
		goto out;
	struct store *st = co.st;
	loaded = 1;
	if (collectors_config(st, config_path, &c, err))
		goto out;
	int pinned;
	char *had = runs_fingerprint(st, NULL, &pinned);
	rep->name = xstrdup(c.name);
	rep->fingerprint = fingerprint_of(&c);
	rep->collectors_changed = !had || strcmp(had, rep->fingerprint);
	free(had);
	ret = recollect_all(st, &c, config_path ? c.text : NULL, stop, rep, err);
	/* the stored config is now this file's: its paths resolve beside it */
	if (!ret && config_path)
		ret = campaign_save_config(st, &c, err);
out:
	campaign_open_release(&co);
	if (loaded)
		config_release(&c);
	if (ret)
		recollect_report_release(rep);
	return ret;
}

void recollect_report_release(struct recollect_report *rep)
{
	for (int i = 0; i < rep->nmetrics; i++) {
		free(rep->metrics[i].region);
		free(rep->metrics[i].metric);
	}
	free(rep->metrics);
	store_misses_free(rep->misses, rep->nmisses);
	free(rep->name);
	free(rep->dir);
	free(rep->fingerprint);
	memset(rep, 0, sizeof(*rep));
}
