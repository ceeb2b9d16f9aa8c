/*
 * One orchestrator per campaign.  `perfsweep run` holds an exclusive
 * flock(2) on DIR/run.lock for its whole life; a second `run` on the same
 * directory is refused.  The kernel drops the lock when its holder dies, so
 * a lock left by a dead process is no lock.  The file also says who holds
 * it ("pid N\nsince T\n"), for the refusal message.
 *
 * Who writes the store while `run` holds the lock (each in its own
 * transaction): `run` itself; `cancel` and `top`'s cancel, which only mark
 * runs cancelled (the engine checks a run's state before starting it and
 * when applying its result, so a cancelled run is never started or
 * retried); `top`'s retry, which only turns failed runs pending (the holder
 * does not pick them up; the next `run` does).  `import` into an existing
 * store takes this lock too and so never writes beside a `run`.
 */
#ifndef PS_CAMPAIGN_LOCK_H
#define PS_CAMPAIGN_LOCK_H
#include "common/error.h"

struct campaign_lock {
	int fd;                     /* -1 when not held */
};

/*
 * Take the lock of campaign directory dir, creating dir when it is missing.
 * An empty dir, or one with a control character, is refused (-1).
 * 0: held (release with campaign_lock_release; the descriptor is
 * close-on-exec, so no child keeps it); 1: another live process holds it,
 * err says "campaign DIR is being run by pid N (since TIME)"; -1: err.
 */
int campaign_lock_take(struct campaign_lock *l, const char *dir, struct perr *err);
void campaign_lock_release(struct campaign_lock *l);

#endif
