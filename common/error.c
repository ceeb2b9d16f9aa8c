/* Error reasons carried back to the CLI instead of printed. */
#include "common/error.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void set_reason(struct perr *e, enum perr_kind kind, const char *fmt, va_list ap)
{
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	e->kind = kind;
}

int perr_set(struct perr *e, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	set_reason(e, PERR_GENERIC, fmt, ap);
	va_end(ap);
	return -1;
}

int perr_set_kind(struct perr *e, enum perr_kind kind, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	set_reason(e, kind, fmt, ap);
	va_end(ap);
	return -1;
}

int perr_prefix(struct perr *e, const char *fmt, ...)
{
	if (!e)
		return -1;
	char old[sizeof(e->msg)];
	memcpy(old, e->msg, sizeof(old));
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n + 2 < sizeof(e->msg)) {
		size_t room = sizeof(e->msg) - (size_t)n - 3, len = strlen(old);
		memcpy(e->msg + n, ": ", 2);
		memcpy(e->msg + n + 2, old, len < room ? len : room);
		e->msg[n + 2 + (len < room ? len : room)] = '\0';
	}
	return -1;
}
