/*
 * libFuzzer target for the Extra-P text reader: any input either parses or
 * fails with a message; what parses must survive a write/read round trip,
 * and the modeller must not crash on its first series.
 */
#include "collectors/extrap_text.h"
#include "models/modeler.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct experiment e;
	struct perr err;
	experiment_init(&e);
	err.msg[0] = 0;
	if (extrap_text_parse(&e, (const char *)data, size, "fuzz.txt", &err) == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int wrote = extrap_text_write(f, &e, -1, &err);
		fclose(f);
		if (wrote == 0) {
			struct experiment back;
			experiment_init(&back);
			if (extrap_text_parse(&back, buf, len, "roundtrip.txt", &err) != 0 ||
			    back.npoints != e.npoints || back.nparams != e.nparams)
				abort();   /* what we write must read back */
			experiment_release(&back);
		}
		free(buf);
		if (e.nseries > 0 && e.npoints <= 64 && e.nparams <= 3) {
			struct pmnf_model m;
			if (modeler_fit_series(&e, e.series[0].callpath, e.series[0].metric, NULL, NULL, &m, &err) == 0) {
				char *s = pmnf_format(&m, 0);
				free(s);
			}
			pmnf_release(&m);
		}
	} else if (!err.msg[0]) {
		abort();   /* a failure always says why */
	}
	experiment_release(&e);
	return 0;
}
