/*
 * The two arms of a two-arm run (perfsweep compare --run; the runs are made
 * by orchestrator/ab_run.c): two ordinary campaigns whose stores name each
 * other in their meta (AB_META_ARM "base" or "new", AB_META_PEER the other
 * store's id), run pass by pass and point by point in turn, on the same
 * cores.  Repetition r of a point in one arm ran next to repetition r of the
 * same point in the other: a pair, which saw the same mood of the machine.
 *
 * compare pairs them: each side keeps only the values of the pairs whose
 * two runs are done and not disturbed (a disturbed run takes its partner
 * out with it: left out on both sides), in repetition order, so that both
 * sides' j-th values at a point are one pair (compare_options.paired).
 */
#ifndef PS_AB_PAIRS_H
#define PS_AB_PAIRS_H
#include "analysis/input.h"
#include "common/error.h"

#define AB_META_ARM "ab_arm"
#define AB_META_PEER "ab_peer"

/* 1 when base_dir and new_dir are the base and the new arm of one two-arm run, else 0 (nothing printed). */
int ab_pair_arms(const char *base_dir, const char *new_dir);

struct ab_pairing {
	int pairs;      /* (point, repetition) that both arms measured: done runs */
	int lost;       /* of those, the pairs left out because one of their runs was disturbed */
};

/*
 * Keep in base->e and new->e (the arms in base_dir and new_dir, loaded by
 * the model pipeline: disturbed runs left out, each value's run recorded in
 * src.usage->runs) only the values of whole pairs, each side's values at a
 * point in repetition order; count the pairs into *p.  0, or -1 with err
 * (a store that cannot be read, arms with different parameters).
 */
int ab_pair_values(struct input_data *base, struct input_data *new, const char *base_dir, const char *new_dir,
		   struct ab_pairing *p, struct perr *err);

#endif
