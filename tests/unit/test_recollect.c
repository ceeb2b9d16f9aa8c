/* Re-collection over a campaign's stored files: what changed, per
   region/metric; the collectors pinned in the store; a config that changes
   more than its collect section; config_diff itself. */
#include "campaign/config_diff.h"
#include "common/fsutil.h"
#include "orchestrator/plan_build.h"
#include "orchestrator/recollect.h"
#include "tests/lib/tap.h"

static char base[600];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static const char *config_text(const char *extra_collect, const char *program)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf),
		 "name = \"rc\";\n"
		 "app = { command = [ \"%s\", \"{n}\" ]; };\n"
		 "parameters = ( { name = \"n\"; values = [ 1, 2, 3, 4 ]; } );\n"
		 "repetitions = 1;\n"
		 "order = \"grouped\";\n"
		 "collect = { wall = false; regex = ( { region = \"r\"; pattern = \"^t: ([0-9]+)$\"; }%s ); };\n",
		 program, extra_collect);
	return buf;
}

static const struct recollect_metric *metric(const struct recollect_report *r, const char *region,
					     const char *name)
{
	for (int i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].region, region) && !strcmp(r->metrics[i].metric, name))
			return &r->metrics[i];
	return NULL;
}

/* A campaign of four runs, as if `run` had stored them: run 1 with the right
   value and a measurement no collector gives now, run 2 with a wrong one,
   run 3 pending, run 4 done but without its run directory. */
static void make_campaign(const char *cfg_path, const char *dir)
{
	struct campaign_config c;
	struct plan pl;
	struct perr err;
	struct store *st;
	write_file(cfg_path, config_text("", "/bin/true"));
	ok(!config_load(&c, cfg_path, &err) && !plan_build(&pl, &c, &err) &&
	   !store_create(&st, dir, c.name, "local", c.text, &pl, &err), "campaign created");
	struct measurement_list ml;
	for (long long id = 1; id <= 4; id++) {
		char *rd = store_run_path(st, id), path[800];
		fs_mkdir_p(rd);
		snprintf(path, sizeof(path), "%s/stdout", rd);
		write_file(path, id == 1 ? "t: 5\nu: 50\n" : "x t: 6\nt: 7\nu: 70\n");
		free(rd);
		if (id == 3)
			continue;
		measurement_list_init(&ml);
		measurement_list_add(&ml, 0, "r", "time", id == 1 ? 5 : 1);
		if (id == 1)
			measurement_list_add(&ml, 0, "old", "x", 3);
		store_mark_submitted(st, id, "1", 10, &err);
		store_mark_done(st, id, 11, 0, 1, &ml, NULL, &err);
		measurement_list_release(&ml);
	}
	char rd4[800];
	snprintf(rd4, sizeof(rd4), "%s/runs/4/stdout", dir);
	remove(rd4);
	snprintf(rd4, sizeof(rd4), "%s/runs/4", dir);
	rmdir(rd4);
	store_close(st);
	plan_release(&pl);
	config_release(&c);
}

static void recollect(const char *cfg_path, const char *dir)
{
	struct recollect_report r;
	struct perr err;
	write_file(cfg_path, config_text(", { region = \"u\"; metric = \"n\"; pattern = \"u: ([0-9]+)\"; }",
					 "/bin/true"));
	is_int(campaign_recollect(dir, cfg_path, NULL, &r, &err), 0, "re-collect with a second pattern");
	is_int(r.runs, 2, "the two done runs with files");
	is_int(r.no_files, 1, "the done run without a directory is left as it was");
	ok(r.collectors_changed && r.config_stored, "the collectors changed and the config is stored");
	const struct recollect_metric *m = metric(&r, "r", "time");
	ok(m && m->unchanged == 1 && m->changed == 1 && !m->added && !m->removed,
	   "r/time: run 1 unchanged, run 2 changed (1 -> 7)");
	m = metric(&r, "u", "n");
	ok(m && m->added == 2 && m->collector && !strcmp(m->collector, "regex"), "u/n: added in both");
	m = metric(&r, "old", "x");
	ok(m && m->removed == 1 && !m->collector, "old/x: removed in run 1, no collector gives it now");
	is_int(r.nmisses, 0, "every collector matched in every re-collected run");
	recollect_report_release(&r);

	struct store *st;
	struct measurement_list ml;
	measurement_list_init(&ml);
	store_open(&st, dir, 0, &err);
	store_load_measurements(st, 2, &ml, &err);
	ok(ml.n == 2 && ml.m[0].value == 7 && ml.m[1].value == 70, "run 2 holds t = 7 (^...$) and u = 70");
	measurement_list_release(&ml);
	store_load_measurements(st, 4, &ml, &err);
	ok(ml.n == 1 && ml.m[0].value == 1, "run 4 kept its measurement");
	measurement_list_release(&ml);
	struct run run3;
	store_load_run(st, 3, &run3, &err);
	is_int(run3.state, RUN_PENDING, "the pending run stays pending");
	run_release(&run3);
	char *fp = store_get_meta(st, "collectors_fingerprint"), *pending = store_get_meta(st, "collect_pending");
	ok(fp && !pending, "the new collectors are pinned, nothing pending");
	char *text = store_get_meta(st, "config");
	contains(text, "u: ([0-9]+)", "the stored config is the new one");
	free(text);

	struct campaign_config c;
	config_load(&c, cfg_path, &err);
	is_int(campaign_collectors_check(st, &c, &err), 0, "run accepts the collectors it re-collected with");
	store_set_meta(st, "collect_pending", fp, &err);
	is_int(campaign_collectors_check(st, &c, &err), -1, "an unfinished re-collection is refused");
	contains(err.msg, "did not finish", "saying so");
	store_set_meta(st, "collect_pending", NULL, &err);
	config_release(&c);
	write_file(cfg_path, config_text("", "/bin/true"));
	config_load(&c, cfg_path, &err);
	is_int(campaign_collectors_check(st, &c, &err), -1, "the old collectors are refused now");
	contains(err.msg, "perfsweep collect", "with the command that re-collects");
	config_release(&c);
	free(fp);
	store_close(st);
}

static void refusals(const char *cfg_path, const char *dir)
{
	struct recollect_report r;
	struct perr err;
	write_file(cfg_path, config_text("", "/bin/false"));
	is_int(campaign_recollect(dir, cfg_path, NULL, &r, &err), -1, "a changed app command is refused");
	char want[800];
	snprintf(want, sizeof(want), "%s:2: 'app.command[0]' differs", cfg_path);
	contains(err.msg, want, "naming the file, line and key");
	snprintf(want, sizeof(want), "%s/nothing", base);
	is_int(campaign_recollect(want, NULL, NULL, &r, &err), -1, "a missing directory");
	contains(err.msg, "cannot read campaign directory", "is named");
	is_int(campaign_recollect(base, NULL, NULL, &r, &err), -1, "a directory that is no campaign");
	contains(err.msg, "is not a campaign directory", "is named");
	snprintf(want, sizeof(want), "%s/run.lock", base);
	ok(access(want, F_OK) != 0, "and gets no lock file");
}

static int diff_of(const char *a, const char *b, char *key, int *line)
{
	config_t ca, cb;
	config_init(&ca);
	config_init(&cb);
	config_read_string(&ca, a);
	config_read_string(&cb, b);
	static const char *const skip[] = { "collect", NULL };
	int d = config_diff(config_root_setting(&ca), config_root_setting(&cb), skip, key, 256, line);
	config_destroy(&ca);
	config_destroy(&cb);
	return d;
}

static void diffs(void)
{
	char key[256];
	int line;
	is_int(diff_of("a = 1; b = { c = \"x\"; d = [1, 2]; };", "b = { d = [1, 2]; c = \"x\"; };\na = 1;", key, &line),
	       0, "members in another order are the same");
	is_int(diff_of("a = 1; collect = { wall = true; };", "a = 1;", key, &line), 0, "a skipped section may change");
	is_int(diff_of("a = 1;", "a = 1.0;", key, &line), 1, "an int and a float differ");
	is_int(diff_of("p = ( { v = [1, 2]; } );", "p = ( { v = [1, 3]; } );", key, &line), 1, "a changed element");
	is_str(key, "p[0].v[1]", "named by its path");
	is_int(diff_of("a = 1;", "a = 1;\nb = 2;", key, &line), 1, "a new key");
	is_str(key, "b", "is named");
	is_int(line, 2, "with its line");
	is_int(diff_of("a = 1; b = 2;", "a = 1;", key, &line), 1, "a removed key");
	is_str(key, "b", "is named too");
	is_int(diff_of("x = { y = 1; };", "x = { y = 1; collect = 2; };", key, &line), 1,
	       "only top-level members are skipped");
}

/* A campaign where nothing was ever collected: re-collecting it finds no
   region at all (under UBSan: no qsort of a NULL array), and an
   interrupted re-collection stores nothing and leaves collect_pending. */
static void nothing_and_interrupted(void)
{
	char cfg[700], dir[700];
	snprintf(cfg, sizeof(cfg), "%s/none.cfg", base);
	snprintf(dir, sizeof(dir), "%s/none.campaign", base);
	make_campaign(cfg, dir);
	for (long long id = 1; id <= 3; id++) {
		char path[800];
		snprintf(path, sizeof(path), "%s/runs/%lld/stdout", dir, id);
		write_file(path, "nothing here\n");
	}
	struct recollect_report r;
	struct perr err;
	write_file(cfg, config_text("", "/bin/true"));
	is_int(campaign_recollect(dir, NULL, NULL, &r, &err), 0, "re-collect: every value is removed");
	recollect_report_release(&r);
	is_int(campaign_recollect(dir, NULL, NULL, &r, &err), 0, "re-collect a campaign with no value at all");
	is_int(r.nmetrics, 0, "no region/metric in the report");
	recollect_report_release(&r);
	volatile sig_atomic_t stop = 1;
	is_int(campaign_recollect(dir, NULL, &stop, &r, &err), -1, "a set stop flag interrupts a re-collection");
	ok(strstr(err.msg, "interrupted") != NULL, "saying so: %s", err.msg);
	struct store *st;
	if (!store_open(&st, dir, STORE_READONLY, &err)) {
		char *p = store_get_meta(st, "collect_pending");
		ok(p != NULL, "collect_pending stays set");
		free(p);
		store_close(st);
	}
}

int main(void)
{
	snprintf(base, sizeof(base), "%s", tap_tmpdir());
	char cfg[700], dir[700];
	snprintf(cfg, sizeof(cfg), "%s/rc.cfg", base);
	snprintf(dir, sizeof(dir), "%s/rc.campaign", base);
	make_campaign(cfg, dir);
	recollect(cfg, dir);
	refusals(cfg, dir);
	diffs();
	nothing_and_interrupted();
	return done_testing();
}
