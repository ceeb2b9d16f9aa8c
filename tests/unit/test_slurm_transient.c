/*
 * Which SLURM errors wait and retry (backend_slurm_transient): controller
 * outages, rate limits (1804 "Rate limit exceeded", 1805 the RPC queue's
 * hard drop), busy nodes, and QOS or association limits, whether or not
 * the campaign has jobs in flight.  Errors in the job itself fail the run.
 */
#include "orchestrator/slurm/backend_slurm.h"
#include "orchestrator/slurm/slurm_compat.h"
#include "tests/lib/tap.h"

int main(void)
{
	static const struct { int e; const char *what; } wait[] = {
		{ 1804, "rate limit exceeded (SLURMCTLD_COMMUNICATIONS_BACKOFF)" },
		{ 1805, "RPC queue hard drop (SLURMCTLD_COMMUNICATIONS_HARD_DROP)" },
		{ SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR, "controller unreachable" },
		{ SLURM_COMMUNICATIONS_CONNECTION_ERROR, "connection error" },
		{ ESLURM_ACCOUNTING_POLICY, "QOS or association limit" },
		{ ESLURM_QOS_THRES, "QOS threshold" },
		{ ESLURM_NODES_BUSY, "nodes busy" },
		{ ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, "job table full" },
		{ EAGAIN, "EAGAIN" },
	};
	static const struct { int e; const char *what; } fail[] = {
		{ ESLURM_INVALID_PARTITION_NAME, "invalid partition" },
		{ ESLURM_INVALID_QOS, "invalid QOS" },
		{ ESLURM_INVALID_ACCOUNT, "invalid account" },
		{ ESLURM_PATHNAME_TOO_LONG, "path too long" },
		{ ESLURM_INVALID_TIME_LIMIT, "invalid time limit" },
	};
	for (size_t i = 0; i < sizeof(wait) / sizeof(wait[0]); i++)
		is_int(backend_slurm_transient(wait[i].e), 1, "waits and retries: %s", wait[i].what);
	for (size_t i = 0; i < sizeof(fail) / sizeof(fail[0]); i++)
		is_int(backend_slurm_transient(fail[i].e), 0, "fails the run: %s", fail[i].what);
	return done_testing();
}
