/* Fuzz SLURM_TASKS_PER_NODE parsing ("4(x2),3") as perfsweep-bind reads it. */
#include "placement/bind.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	int tasks = -1;
	if (bind_parse_tasks_per_node(s, data[0] % 64, &tasks) == 0 && tasks < 0)
		abort();
	free(s);
	return 0;
}
