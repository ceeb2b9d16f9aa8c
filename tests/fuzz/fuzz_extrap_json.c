/* libFuzzer target: Extra-P JSON and JSON Lines readers, then the writers on what was read. */
#include "collectors/extrap_json.h"
#include "collectors/scorep_dir.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perr err;
	FILE *null = fopen("/dev/null", "w");
	for (int form = 0; form < 2; form++) {
		struct experiment e;
		experiment_init(&e);
		int rc = form ? extrap_jsonl_read_mem(&e, "fuzz.jsonl", (const char *)data, size, &err)
			      : extrap_json_read_mem(&e, "fuzz.json", (const char *)data, size, &err);
		if (rc == 0 && null) {
			extrap_json_write(null, &e, &err);
			extrap_jsonl_write(null, &e, &err);
		}
		experiment_release(&e);
	}
	if (null)
		fclose(null);
	/* experiment-directory names: the first line of the input */
	char name[256];
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	struct scorep_name sn;
	if (scorep_name_parse(&sn, name, &err) == 0)
		scorep_name_release(&sn);
	return 0;
}
