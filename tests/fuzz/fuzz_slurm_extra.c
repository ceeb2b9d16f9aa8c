/* libFuzzer target: the slurm backend's `extra` options (one per line) never crash the checker. */
#include "orchestrator/slurm/slurm_extra.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *opts[64];
	int n = 0;
	for (char *p = text; n < 64;) {
		opts[n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	struct perr err;
	slurm_extra_check(n, opts, &err);
	free(text);
	return 0;
}
