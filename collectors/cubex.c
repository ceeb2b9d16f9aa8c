/*
 * Score-P CUBE4 (.cubex) reader: open and release.  The parts live apart:
 * cubex_tar.c (gzip and tar members), cubex_anchor.c (anchor.xml via
 * libxml2), cubex_data.c (index and data rows via zlib), cubex_aggr.c
 * (aggregation) and cubex_collect.c (the campaign collector).
 */
#include "collectors/cubex.h"
#include "collectors/cubex_anchor.h"
#include "collectors/cubex_tar.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int open_buffer(struct cubex *c, struct perr *err)
{
	if (c->len >= 2 && c->buf[0] == 0x1f && c->buf[1] == 0x8b) {
		unsigned char *out;
		size_t outlen;
		if (cubex_inflate(c->buf, c->len, 1, &out, &outlen, (size_t)1 << 34) < 0)
			return perr_set(err, "%s: corrupt gzip-compressed archive", c->path);
		free(c->buf);
		c->buf = out;
		c->len = outlen;
	}
	if (c->len < 512)
		return perr_set(err, "%s: not a tar archive (%zu bytes)", c->path, c->len);
	if (cubex_tar_index(c, err) < 0 || cubex_parse_anchor(c, err) < 0)
		return -1;
	return 0;
}

int cubex_open_mem(struct cubex *c, const char *name, const void *data, size_t len, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(name);
	c->buf = xmalloc(len ? len : 1);
	memcpy(c->buf, data, len);
	c->len = len;
	if (open_buffer(c, err) < 0) {
		cubex_release(c);
		return -1;
	}
	return 0;
}

int cubex_open(struct cubex *c, const char *path, struct perr *err)
{
	memset(c, 0, sizeof(*c));
	struct strbuf sb;
	strbuf_init(&sb);
	const char *why;
	if (fs_read_file(&sb, path, FS_READ_LIMIT_DATA, &why) < 0) {   /* never a FIFO or /dev/zero */
		strbuf_release(&sb);
		return perr_set(err, "cannot read '%s': %s", path, why);
	}
	c->path = xstrdup(path);
	c->len = sb.len;
	c->buf = (unsigned char *)strbuf_detach(&sb);
	strbuf_release(&sb);    /* detach re-initialises sb */
	if (open_buffer(c, err) < 0) {
		cubex_release(c);
		return -1;
	}
	return 0;
}

void cubex_release(struct cubex *c)
{
	for (int i = 0; i < c->nmetrics; i++) {
		free(c->metrics[i].name);
		free(c->metrics[i].disp_name);
		free(c->metrics[i].dtype);
		free(c->metrics[i].uom);
	}
	for (int i = 0; i < c->nregions; i++) {
		free(c->regions[i].name);
		free(c->regions[i].mangled);
		free(c->regions[i].paradigm);
	}
	for (int i = 0; i < c->ncnodes; i++) {
		free(c->cnodes[i].children);
		free(c->cnodes[i].callpath);
	}
	for (int i = 0; i < c->nmembers; i++)
		free(c->members[i].name);
	free(c->metrics);
	free(c->regions);
	free(c->cnodes);
	free(c->locations);
	free(c->members);
	free(c->buf);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

int cubex_find_metric(const struct cubex *c, const char *name)
{
	for (int i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return i;
	for (int i = 0; i < c->nmetrics; i++)
		if (c->metrics[i].disp_name && !strcmp(c->metrics[i].disp_name, name))
			return i;
	return -1;
}

