/*
 * A campaign store of many done runs, made fast for the benchmarks of
 * analysis at scale (tests/bench/bench_store_scale.c): two parameters, n
 * (runs / reps / 10 values) and p (1, 2, 4, ..., 512), reps repetitions,
 * each run done with a measured time of the truth 0.5 + 0.01 n p^0.5 (times
 * factor), 2% noise from a fixed seed (xorshift), a whole-run and a rank-0
 * resource record (with the census) and a binding.  One run in 100 shares its core with
 * another program (CPU share 0.5, a cause named): the disturbed runs an analysis leaves
 * out.  The plan goes in through store_create; the runs' results through
 * SQL in one transaction, which takes a few seconds per 10^6 runs where
 * store_mark_done's transitions would take minutes.
 */
#ifndef PS_GEN_STORE_H
#define PS_GEN_STORE_H
#include "common/error.h"

struct gen_store_spec {
	long runs;                  /* rounded down to a multiple of reps x 10 (at least one point) */
	int reps;                   /* repetitions per point */
	unsigned long long seed;    /* nonzero */
	double factor;              /* the truth's scale (1: the base; 1.1: 10% slower) */
};

/* The config of a campaign of n = 1..nn and p = 1, 2, 4, ... (np values),
   reps repetitions, whose runs print "t: SECONDS" (caller frees). */
char *gen_store_config(int nn, int np, int reps);

/* Make the campaign at dir (which must not hold one) as spec says: 0 or -1 (err). */
int gen_store(const char *dir, const struct gen_store_spec *spec, struct perr *err);

#endif
