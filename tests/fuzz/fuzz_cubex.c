/* libFuzzer target: the .cubex reader (tar, anchor.xml, index and data of every metric). */
#include "collectors/cubex.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cubex c;
	struct perr err;
	if (cubex_open_mem(&c, "fuzz.cubex", data, size, &err) < 0)
		return 0;
	for (int m = 0; m < c.nmetrics; m++)
		for (int view = CUBEX_AS_STORED; view <= CUBEX_INCL; view++) {
			double *v = NULL;
			if (cubex_read_metric(&c, m, (enum cubex_view)view, &v, &err) == 0)
				free(v);
		}
	struct measurement_list ml;
	measurement_list_init(&ml);
	cubex_collect(&c, NULL, 0, CUBEX_MEAN, 1, &ml, &err);
	measurement_list_release(&ml);
	cubex_release(&c);
	return 0;
}
