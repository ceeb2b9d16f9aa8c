/* libFuzzer target: the reference file of `perfsweep compare`, read from
   memory and, when it reads, written again. */
#include "validator/reference.h"
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment e;
	struct perr err;
	experiment_init(&e);
	if (reference_read_mem(&e, "fuzz.json", (const char *)data, size, &err) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			reference_write(null, &e, &err);
			fclose(null);
		}
	}
	experiment_release(&e);
	return 0;
}
