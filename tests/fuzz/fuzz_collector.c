/* libFuzzer target: the regex collector on a memory buffer.  The input's
   first line is the pattern (ERE, translated for PCRE2), the rest the
   output it scans, bytes and all; the display escaping on the same bytes. */
#include "collectors/regex_collect.h"
#include "common/display.h"
#include "common/strbuf.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nl = memchr(text, '\n', size);
	size_t plen = nl ? (size_t)(nl - text) : size;
	if (plen > 512)
		return 0;
	char pattern[513];
	memcpy(pattern, text, plen);
	pattern[plen] = '\0';
	if (strlen(pattern) != plen)    /* a config string never holds a NUL */
		return 0;
	struct regex_prog *re;
	char msg[256];
	int groups;
	if (!regex_prog_compile(&re, pattern, &groups, msg, sizeof(msg))) {
		static const char *const aggs[] = { "last", "first", "sum", "mean", "max", "min" };
		const char *out = nl ? nl + 1 : text + size;
		size_t olen = (size_t)(text + size - out);
		struct collect_limits lim = { .cpu_seconds = 1, .memory_mb = 64 };
		double v;
		int interrupted;
		struct perr err;
		regex_scan_mem(re, aggs[size % 6], out, olen, &lim, &v, &interrupted, &err);
		regex_prog_free(re);
	}
	struct strbuf sb;
	strbuf_init(&sb);
	display_escape(&sb, text, size);
	strbuf_release(&sb);
	return 0;
}
