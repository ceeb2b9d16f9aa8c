/*
 * libFuzzer target: the .cubex reader (tar, anchor.xml, index and data of
 * every metric).  Inputs starting with '#' are split at "\n@@\n" into
 * anchor.xml, 0.index, 0.data, 1.index, 1.data and packed into a valid tar
 * here, so that mutations reach the XML, index and data parsers instead of
 * stopping at the tar header checksum; other inputs are read as they are.
 */
#include "collectors/cubex.h"
#include "common/strbuf.h"
#include "tests/lib/tar_build.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void exercise(const uint8_t *data, size_t size)
{
	struct cubex c;
	struct perr err;
	if (cubex_open_mem(&c, "fuzz.cubex", data, size, &err) < 0)
		return;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || data[0] != '#') {
		exercise(data, size);
		return 0;
	}
	static const char *names[] = { "anchor.xml", "0.index", "0.data", "1.index", "1.data" };
	struct strbuf sb;
	strbuf_init(&sb);
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	for (int k = 0; k < 5 && p <= end; k++) {
		const char *q = memmem(p, (size_t)(end - p), "\n@@\n", 4);
		size_t len = q ? (size_t)(q - p) : (size_t)(end - p);
		tar_add(&sb, names[k], p, len);
		if (!q)
			break;
		p = q + 4;
	}
	tar_end(&sb);
	exercise((const uint8_t *)sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}
