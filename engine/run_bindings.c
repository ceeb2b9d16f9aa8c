/* Rank records of a finished run -> the store's bindings table. */
#include "engine/run_bindings.h"
#include "common/xalloc.h"
#include "placement/bind.h"
#include <stdlib.h>

int run_bindings_record(struct store *st, long long id, const char *run_dir, struct perr *err)
{
	struct bind_info *bi;
	int n;
	bind_records_in(run_dir, &bi, &n);
	if (n == 0)
		return 0;
	struct run_binding *b = xcalloc((size_t)n, sizeof(*b));
	for (int i = 0; i < n; i++) {
		b[i].rank = bi[i].rank;
		b[i].node = bi[i].node;
		b[i].cpuset = bi[i].cpuset;
		b[i].cores = bi[i].cores;
	}
	int rc = store_put_bindings(st, id, b, n, err);
	free(b);
	bind_infos_free(bi, n);
	return rc;
}
