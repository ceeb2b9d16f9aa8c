/* The lammps and gromacs presets over the programs' real output
   (tests/data/apps/README.md): every value as printed, the optional rows,
   and the config around them. */
#include "campaign/config.h"
#include "collectors/collector_set.h"
#include "collectors/presets.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/lib/tap.h"

/* The value of region/metric at rank 0 in l, or -1 when absent (values here are positive). */
static double value(const struct measurement_list *l, const char *region, const char *metric)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].region, region) && !strcmp(l->m[i].metric, metric) && l->m[i].rank == 0)
			return l->m[i].value;
	return -1;
}

/* A config whose collect section is collect (its other sections the least there is). */
static int load(struct campaign_config *c, const char *collect, struct perr *err)
{
	char *text = xasprintf("name = \"t\";\napp = { command = [ \"true\" ]; };\n"
			       "parameters = ( { name = \"n\"; values = [ 1 ]; } );\ncollect = %s;\n", collect);
	int rc = config_load_text(c, text, "t.cfg", tap_tmpdir(), err);
	free(text);
	return rc;
}

/* Run the config's collectors over a run directory holding sample as name. */
static void collect_sample(const char *collect, const char *sample, const char *name, struct collect_result *r)
{
	static int seq;
	char *dir = xasprintf("%s/run%d", tap_tmpdir(), seq++);
	char *to = xasprintf("%s/%s", dir, name);
	struct strbuf text;
	strbuf_init(&text);
	fs_mkdir_p(dir);
	if (sample && strbuf_read_file(&text, tap_src(sample)) < 0)
		diag("cannot read %s", sample);
	FILE *f = fopen(to, "w");
	fwrite(text.buf, 1, text.len, f);
	fclose(f);
	struct campaign_config c;
	struct perr err = { 0 };
	memset(r, 0, sizeof(*r));
	if (load(&c, collect, &err) < 0) {
		ok(0, "the config loads: %s", err.msg);
	} else {
		struct collector_set cs;
		config_collectors(&c, &cs);
		collector_set_run(&cs, dir, -1, r);
	}
	config_release(&c);
	strbuf_release(&text);
	free(to);
	free(dir);
}

static void lammps_one_rank(void)
{
	struct collect_result r;
	collect_sample("{ preset = \"lammps\"; }", "tests/data/apps/lammps/lj-1rank.stdout", "stdout", &r);
	ok(!r.error && !r.nmissed, "lammps, 1 rank: no collection error (%s)", r.error ? r.error : "none");
	is_rel(value(&r.ml, "main->loop", "time"), 0.383538, 1e-12, "Loop time of 0.383538");
	is_rel(value(&r.ml, "main->loop", "cpu_share"), 0.848, 1e-12, "84.8%% CPU use is a share of 0.848 cores");
	is_rel(value(&r.ml, "main->loop->Pair", "time"), 0.3084, 1e-12, "Pair's avg time");
	is_rel(value(&r.ml, "main->loop->Neigh", "time"), 0.062411, 1e-12, "Neigh");
	is_rel(value(&r.ml, "main->loop->Comm", "time"), 0.0069444, 1e-12, "Comm");
	is_rel(value(&r.ml, "main->loop->Output", "time"), 0.00024534, 1e-12, "Output");
	is_rel(value(&r.ml, "main->loop->Modify", "time"), 0.0046625, 1e-12, "Modify");
	is_rel(value(&r.ml, "main->loop->Other", "time"), 0.000871, 1e-12, "Other (no min and max columns)");
	is_rel(value(&r.ml, "main->loop->Kspace", "time"), -1, 0, "no Kspace row: no value, no error");
	collect_result_release(&r);
}

static void lammps_two_ranks(void)
{
	struct collect_result r;
	collect_sample("{ preset = \"lammps\"; }", "tests/data/apps/lammps/lj-2ranks.stdout", "stdout", &r);
	ok(!r.error, "lammps, 2 ranks: no collection error");
	is_rel(value(&r.ml, "main->loop->Pair", "time"), 0.56481, 1e-12, "the avg column, not min 0.52596 or max 0.60367");
	is_rel(value(&r.ml, "main->loop->Output", "time"), 0.00042711, 1e-12, "Output's avg");
	is_rel(value(&r.ml, "main->loop", "cpu_share"), 0.23, 1e-12, "23.0%% CPU use on a busy machine: 0.23");
	collect_result_release(&r);
}

static void lammps_two_runs(void)
{
	struct collect_result r;
	collect_sample("{ preset = \"lammps\"; }", "tests/data/apps/lammps/charged-2runs.stdout", "stdout", &r);
	ok(!r.error, "lammps, two runs: no collection error");
	is_rel(value(&r.ml, "main->loop", "time"), 0.430167 + 0.772871, 1e-12, "the loops' times summed");
	is_rel(value(&r.ml, "main->loop->Kspace", "time"), 0.34825 + 0.63193, 1e-12, "the optional Kspace row, summed");
	is_rel(value(&r.ml, "main->loop->Pair", "time"), 0.066648 + 0.099854, 1e-12, "Pair summed");
	is_rel(value(&r.ml, "main->loop", "cpu_share"), (0.513 + 0.586) / 2, 1e-12, "the CPU shares' mean");
	collect_result_release(&r);
}

static void gromacs_logs(void)
{
	struct collect_result r;
	collect_sample("{ preset = \"gromacs\"; }", "tests/data/apps/gromacs/water-ntmpi1.md.log", "md.log", &r);
	ok(!r.error && !r.nmissed, "gromacs, 1 rank: no collection error (%s)", r.error ? r.error : "none");
	is_rel(value(&r.ml, "main->mdrun", "time"), 0.288, 1e-12, "Time: wall");
	is_rel(value(&r.ml, "main->mdrun", "core_time"), 0.288, 1e-12, "Time: core");
	is_rel(value(&r.ml, "main->mdrun", "cpu_share"), -1, 0, "Time:'s percentage is no CPU measurement: no cpu_share");
	is_rel(value(&r.ml, "main->mdrun", "ns_per_day"), 120.565, 1e-12, "Performance: ns/day");
	is_rel(value(&r.ml, "main->mdrun->Force", "time"), 0.167, 1e-12, "the Force row's wall time");
	is_rel(value(&r.ml, "main->mdrun->NB_X_F_buffer_ops", "time"), 0.001, 1e-12, "'NB X/F buffer ops.' as an identifier");
	is_rel(value(&r.ml, "main->mdrun->Rest", "time"), 0.001, 1e-12, "Rest (no count columns)");
	is_rel(value(&r.ml, "main->mdrun->PME_mesh->PME_3D_FFT", "time"), 0.017, 1e-12, "the PME breakdown under PME mesh");
	is_rel(value(&r.ml, "main->mdrun->Comm_coord", "time"), -1, 0, "1 rank: no Comm. coord., and no error");
	collect_result_release(&r);

	collect_sample("{ preset = \"gromacs\"; }", "tests/data/apps/gromacs/water-ntmpi2.md.log", "md.log", &r);
	ok(!r.error && !r.nmissed, "gromacs, 2 ranks: no collection error");
	is_rel(value(&r.ml, "main->mdrun->Comm_coord", "time"), 0.075, 1e-12, "2 ranks: Comm. coord.");
	is_rel(value(&r.ml, "main->mdrun->Wait_Comm_F", "time"), 0.096, 1e-12, "Wait + Comm. F");
	is_rel(value(&r.ml, "main->mdrun->PME_mesh->PME_3D_FFT_Comm", "time"), 0.242, 1e-12,
	       "PME 3D-FFT Comm. apart from PME 3D-FFT");
	is_rel(value(&r.ml, "main->mdrun", "core_time"), 3.839, 1e-12, "2 ranks: GROMACS's core time");
	collect_result_release(&r);

	/* no md.log at all: the rows every run prints are errors, the optional ones not */
	collect_sample("{ preset = \"gromacs\"; }", NULL, "stdout", &r);
	ok(r.error && strstr(r.error, "main->mdrun->Force/time: file 'md.log' is missing"),
	   "without md.log, Force is a collection error: %s", r.error ? r.error : "(none)");
	ok(r.error && !strstr(r.error, "Comm_coord"), "an optional row is not");
	collect_result_release(&r);
}

/* What the config makes of a preset: its patterns, replaced ones, its metric directions, errors. */
static void config_of_presets(void)
{
	struct campaign_config c;
	struct perr err = { 0 };
	is_int(load(&c, "{ preset = \"gromacs\"; regex = ( { region = \"main->mdrun->Force\"; pattern = "
			"\"^ +Force +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +([0-9.]+)\"; file = \"md.log\"; metric = \"time\"; },"
			" { region = \"x\"; pattern = \"x=([0-9]+)\"; } ); }", &err), 0, "a preset with regex entries loads");
	const struct collect_preset *p = collect_preset_find("gromacs");
	int n = p ? collect_preset_count(p) : 0;
	is_int(c.nregex, n + 1, "one entry replaced a preset pattern, one came on top");
	int found = 0;
	for (int i = 0; i < c.nregex; i++)
		if (!strcmp(c.regex[i].region, "main->mdrun->Force")) {
			found++;
			contains(c.regex[i].pattern, "[0-9.]+ +([0-9.]+)", "the user's Force pattern (giga-cycles) is the one kept");
		}
	is_int(found, 1, "Force once");
	int higher = 0;
	for (int i = 0; i < c.nbetter[1]; i++)
		higher += !strcmp(c.better[1][i], "ns_per_day");
	is_int(higher, 1, "ns_per_day is higher-is-better");
	config_release(&c);

	is_int(load(&c, "{ preset = \"gromacs\"; }; analysis = { lower_is_better = [ \"ns_per_day\" ]; }", &err), 0,
	       "analysis may say otherwise");
	is_int(c.nbetter[1], 0, "then the preset adds nothing");
	config_release(&c);

	is_int(load(&c, "{ preset = \"namd\"; }", &err), -1, "an unknown preset is refused");
	contains(err.msg, "t.cfg:4: unknown preset 'namd'; use lammps or gromacs", "naming the file, line and presets");
	config_release(&c);
	is_int(load(&c, "{ regex = ( { region = \"r\"; pattern = \"r=([0-9]+)\"; resolution = 0; } ); }", &err), -1,
	       "a resolution of 0 is refused");
	contains(err.msg, "resolution must be a number above 0", "saying what to write");
	config_release(&c);
	is_int(load(&c, "{ regex = ( { region = \"r\"; pattern = \"r=([0-9]+)\"; optional = 1; } ); }", &err), -1,
	       "optional is true or false");
	config_release(&c);
}

int main(void)
{
	lammps_one_rank();
	lammps_two_ranks();
	lammps_two_runs();
	gromacs_logs();
	config_of_presets();
	return done_testing();
}
