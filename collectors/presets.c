/* Ready-made collectors: the patterns of LAMMPS's and GROMACS's timing output. */
#include "collectors/presets.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A pattern as the tables write it: strings borrowed until expanded. */
struct preset_pattern {
	const char *region, *metric, *pattern, *file, *aggregate;
	int optional;
	double resolution, scale;
};

/* A row of a timing table: its name as printed, whether every run prints it. */
struct preset_row {
	const char *name;
	int always;
};

struct collect_preset {
	const char *name;
	const struct preset_pattern *fixed;     /* ends with a NULL region */
	const char *rows_parent;                /* the rows' region: parent->Row_name */
	const struct preset_row *rows;          /* ends with a NULL name */
	const char *row_head, *row_tail;        /* a row's pattern: head NAME tail */
	const struct preset_row *subrows;       /* a breakdown under one row, or NULL */
	const char *subrows_parent;
	const char *file;                       /* the rows' file, NULL: stdout */
	const char *aggregate;                  /* the rows' aggregate */
	double resolution;                      /* the rows' resolution */
	const char *const *higher_is_better;
};

/* LAMMPS: from the header of each MPI task timing breakdown, at most 12
   lines on (the table's own), so that the thread breakdown that follows it
   with OpenMP is never read and an absent row never looks further. */
#define LAMMPS_TABLE "^MPI task timing breakdown:\\n(?:.*\\n){0,12}?"

static const struct preset_pattern lammps_fixed[] = {
	{ "main->loop", "time", "^Loop time of ([0-9.eE+-]+) on ", NULL, "sum", 0, 0, 0 },
	{ "main->loop", "cpu_share", "^([0-9.eE+-]+)% CPU use with ", NULL, "mean", 0, 0, 0.01 },
	{ "main->loop->Other", "time", LAMMPS_TABLE "Other +\\| +\\| *([0-9.eE+-]+) ", NULL, "sum", 0, 0, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, 0, 0 },
};

static const struct preset_row lammps_rows[] = {
	{ "Pair", 1 }, { "Bond", 0 }, { "Kspace", 0 }, { "Neigh", 1 }, { "Comm", 1 },
	{ "Output", 1 }, { "Modify", 1 }, { "Sync", 0 }, { NULL, 0 },
};

/* GROMACS 2022's md.log: "Time:" (core, wall), "Performance:" ns/day.  Its
   core time and percentage are no CPU measurement in Debian's build (3.887 s
   "core", equal to the wall time, for 1.29 s of CPU), so no cpu_share. */
static const struct preset_pattern gromacs_fixed[] = {
	{ "main->mdrun", "time", "^ +Time: +[0-9.]+ +([0-9.]+)", "md.log", NULL, 0, 0.001, 0 },
	{ "main->mdrun", "core_time", "^ +Time: +([0-9.]+) +[0-9.]+", "md.log", NULL, 0, 0.001, 0 },
	{ "main->mdrun", "ns_per_day", "^Performance: +([0-9.]+)", "md.log", NULL, 0, 0.001, 0 },
	{ "main->mdrun->Rest", "time", "^ +Rest +([0-9.]+) ", "md.log", NULL, 0, 0.001, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, 0, 0 },
};

/* The rows a CPU run of GROMACS 2022 can print (src/gromacs/timing/wallcycle.cpp). */
static const struct preset_row gromacs_rows[] = {
	{ "Domain decomp.", 0 }, { "DD comm. load", 0 }, { "DD comm. bounds", 0 },
	{ "Vsite constr.", 0 }, { "Send X to PME", 0 }, { "Neighbor search", 1 },
	{ "Comm. coord.", 0 }, { "Force", 1 }, { "Wait + Comm. F", 0 }, { "PME mesh", 0 },
	{ "PME wait for PP", 0 }, { "Wait + Recv. PME F", 0 }, { "NB X/F buffer ops.", 0 },
	{ "Vsite spread", 0 }, { "COM pull force", 0 }, { "AWH", 0 }, { "Write traj.", 0 },
	{ "Update", 0 }, { "Constraints", 0 }, { "Comm. energies", 0 }, { "Enforced rotation", 0 },
	{ "Add rot. forces", 0 }, { "Position swapping", 0 }, { "IMD", 0 }, { NULL, 0 },
};

static const struct preset_row gromacs_pme_rows[] = {
	{ "PME redist. X/F", 0 }, { "PME spread", 0 }, { "PME gather", 0 }, { "PME 3D-FFT", 0 },
	{ "PME 3D-FFT Comm.", 0 }, { "PME solve LJ", 0 }, { "PME solve Elec", 0 }, { NULL, 0 },
};

static const char *const gromacs_higher[] = { "ns_per_day", NULL };
static const char *const none_higher[] = { NULL };

static const struct collect_preset presets[] = {
	{ "lammps", lammps_fixed, "main->loop", lammps_rows, LAMMPS_TABLE,
	  /* min time, then avg time: the value */
	  " +\\| *[0-9.eE+-]+ +\\| *([0-9.eE+-]+) +\\|",
	  NULL, NULL, NULL, "sum", 0, none_higher },
	/* Num Ranks, Num Threads and Call Count, then the row's wall time */
	{ "gromacs", gromacs_fixed, "main->mdrun", gromacs_rows, "^ +", " +[0-9]+ +[0-9]+ +[0-9]+ +([0-9.]+) ",
	  gromacs_pme_rows, "main->mdrun->PME_mesh", "md.log", NULL, 0.001, gromacs_higher },
};

#define NPRESETS (sizeof(presets) / sizeof(*presets))

const struct collect_preset *collect_preset_find(const char *name)
{
	for (size_t i = 0; name && i < NPRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

void collect_preset_names(char *buf, size_t n)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (size_t i = 0; i < NPRESETS; i++)
		strbuf_addf(&sb, "%s%s", i == 0 ? "" : i + 1 == NPRESETS ? " or " : ", ", presets[i].name);
	snprintf(buf, n, "%s", sb.buf);
	strbuf_release(&sb);
}

static int count_rows(const struct preset_row *r)
{
	int n = 0;
	while (r && r[n].name)
		n++;
	return n;
}

int collect_preset_count(const struct collect_preset *p)
{
	int n = 0;
	while (p->fixed[n].region)
		n++;
	return n + count_rows(p->rows) + count_rows(p->subrows);
}

/* "Wait + Comm. F" -> "Wait_Comm_F": letters and digits, one '_' between runs of them. */
static void row_region(struct strbuf *sb, const char *parent, const char *name)
{
	strbuf_addf(sb, "%s->", parent);
	int gap = 0, any = 0;
	for (const char *c = name; *c; c++) {
		if (!isalnum((unsigned char)*c)) {
			gap = 1;
			continue;
		}
		if (gap && any)
			strbuf_addch(sb, '_');
		strbuf_addch(sb, *c);
		gap = 0;
		any = 1;
	}
}

/* A row name as a literal in a pattern. */
static void row_literal(struct strbuf *sb, const char *name)
{
	for (const char *c = name; *c; c++) {
		if (strchr(".[]()*+?{}|^$\\", *c))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *c);
	}
}

static void expand_row(const struct collect_preset *p, const char *parent, const struct preset_row *row,
		       struct regex_pattern *out)
{
	struct strbuf sb;
	strbuf_init(&sb);
	row_region(&sb, parent, row->name);
	out->region = strbuf_detach(&sb);
	strbuf_init(&sb);
	strbuf_addstr(&sb, p->row_head);
	row_literal(&sb, row->name);
	strbuf_addstr(&sb, p->row_tail);
	out->pattern = strbuf_detach(&sb);
	out->metric = xstrdup("time");
	out->stream = xstrdup("stdout");
	out->file = p->file ? xstrdup(p->file) : NULL;
	out->aggregate = p->aggregate ? xstrdup(p->aggregate) : NULL;
	out->optional = !row->always;
	out->resolution = p->resolution;
}

void collect_preset_expand(const struct collect_preset *p, struct regex_pattern *out)
{
	int n = 0;
	for (const struct preset_pattern *f = p->fixed; f->region; f++, n++) {
		struct regex_pattern *o = &out[n];
		memset(o, 0, sizeof(*o));
		o->region = xstrdup(f->region);
		o->metric = xstrdup(f->metric);
		o->pattern = xstrdup(f->pattern);
		o->stream = xstrdup("stdout");
		o->file = f->file ? xstrdup(f->file) : NULL;
		o->aggregate = f->aggregate ? xstrdup(f->aggregate) : NULL;
		o->optional = f->optional;
		o->resolution = f->resolution;
		o->scale = f->scale;
	}
	for (const struct preset_row *r = p->rows; r && r->name; r++) {
		memset(&out[n], 0, sizeof(out[n]));
		expand_row(p, p->rows_parent, r, &out[n++]);
	}
	for (const struct preset_row *r = p->subrows; r && r->name; r++) {
		memset(&out[n], 0, sizeof(out[n]));
		expand_row(p, p->subrows_parent, r, &out[n++]);
	}
}

const char *const *collect_preset_higher_is_better(const struct collect_preset *p)
{
	return p->higher_is_better;
}
