/*
 * libFuzzer target for the dependency readers (both forms: the content
 * decides) and the analysis.  Every input must either read cleanly or fail
 * with one error line; never crash, leak or hang.
 *   make fuzz && LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
 *     ./build/fuzz/fuzz_deps -max_total_time=60 CORPUS_DIR
 * (seed CORPUS_DIR with the JSON files of tests/data/perf-taint-unit and configs/demo.deps;
 * the suppression covers a leak inside libconfig 1.5 itself)
 */
#include "designs/analysis.h"
#include "designs/deps.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz-deps-%d.in", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct deps d;
	struct perr err;
	if (deps_read(&d, path, &err) == 0) {
		struct deps_analysis a;
		if (deps_analyze(&a, &d, NULL, 0, &err) == 0)
			deps_analysis_release(&a);
		for (int i = 0; i < d.nfuncs; i++)
			(void)deps_find_function(&d, d.funcs[i].name);
		deps_release(&d);
	} else if (strchr(err.msg, '\n')) {
		abort();        /* errors are one line */
	}
	return 0;
}
