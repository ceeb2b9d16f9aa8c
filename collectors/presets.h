/*
 * Ready-made collectors for applications whose timing output perfsweep
 * knows: `collect = { preset = "lammps"; }` expands into ordinary regex
 * patterns (regex_collect.h), the same a user would write, so that `plan
 * --explain` shows them and `perfsweep collect` re-reads stored runs with
 * them.  Regions are call paths under the wall collector's "main", so that
 * a region's share of the time is its share of the whole run:
 *
 *   lammps   stdout (rank 0 prints it): main->loop time is the sum of every
 *            run's "Loop time of T"; main->loop->Pair, Neigh, Comm, Output,
 *            Modify and Other the "avg time" column of the MPI task timing
 *            breakdown (Bond, Kspace and Sync when printed: optional);
 *            main->loop cpu_share "98.5% CPU use" / 100 (the loop's CPU per
 *            MPI task, in cores).
 *   gromacs  md.log (mdrun's default -g): main->mdrun time and core_time
 *            from "Time:" (wall, and GROMACS's core time, which Debian's
 *            build prints as wall times threads: no cpu_share is taken
 *            from it), ns_per_day from "Performance:" (higher
 *            is better); each row of the cycle
 *            and time accounting table a region main->mdrun-><row> (its wall
 *            time), the PME mesh breakdown under main->mdrun->PME_mesh.
 *            Row names become identifiers ("Wait + Comm. F" ->
 *            Wait_Comm_F).  Force, Neighbor search and Rest are always
 *            printed; every other row is optional (it appears with some
 *            rank counts or settings only).  The table prints 1 ms steps:
 *            every value's resolution is 0.001.
 *
 * Invariants: a preset's patterns compile, each has one capture group, and
 * no two share a region and metric.
 */
#ifndef PS_PRESETS_H
#define PS_PRESETS_H
#include "collectors/regex_collect.h"
#include <stddef.h>

struct collect_preset;

/* The preset called name, or NULL. */
const struct collect_preset *collect_preset_find(const char *name);

/* "lammps or gromacs": the names, for messages. */
void collect_preset_names(char *buf, size_t n);

/* The number of patterns p expands into. */
int collect_preset_count(const struct collect_preset *p);

/*
 * Fill out[0 .. collect_preset_count(p)) with p's patterns, every string a
 * copy the caller frees (as the config frees its collect.regex).
 */
void collect_preset_expand(const struct collect_preset *p, struct regex_pattern *out);

/* The metrics of p whose higher values are better (NULL-terminated). */
const char *const *collect_preset_higher_is_better(const struct collect_preset *p);

#endif
