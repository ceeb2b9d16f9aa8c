/*
 * The binding each rank of a finished run really had, from the rank records
 * perfsweep-bind wrote (placement/bind.h), into the store: node and cpuset
 * per rank.  The contention check and `export` read them from there.
 */
#ifndef PS_RUN_BINDINGS_H
#define PS_RUN_BINDINGS_H
#include "campaign/store.h"

/* Store run id's bindings from run_dir's rank records (none: nothing stored). */
int run_bindings_record(struct store *st, long long id, const char *run_dir, struct perr *err);

#endif
