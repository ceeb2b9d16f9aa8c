/* The data layer of the CUBE4 reader: <id>.index and <id>.data rows decoded to doubles, per view. */
#include "collectors/cubex.h"
#include "collectors/cubex_tar.h"
#include "common/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---------- values ---------- */

enum vtype { V_U8, V_I8, V_U16, V_I16, V_U32, V_I32, V_U64, V_I64, V_DOUBLE, V_MIN, V_MAX,
	     V_TAU, V_RATE, V_BAD };

static enum vtype parse_dtype(const char *d, size_t *size)
{
	static const struct { const char *name; enum vtype t; size_t size; } tab[] = {
		{ "CHAR", V_U8, 1 }, { "UINT8", V_U8, 1 }, { "INT8", V_I8, 1 },
		{ "UINT16", V_U16, 2 }, { "UNSIGNED SHORT INT", V_U16, 2 },
		{ "INT16", V_I16, 2 }, { "SHORT INT", V_I16, 2 }, { "SIGNED SHORT INT", V_I16, 2 },
		{ "UINT32", V_U32, 4 }, { "UNSIGNED INT", V_U32, 4 },
		{ "INT32", V_I32, 4 }, { "INT", V_I32, 4 }, { "SIGNED INT", V_I32, 4 },
		{ "UINT64", V_U64, 8 }, { "UNSIGNED INTEGER", V_U64, 8 },
		{ "INT64", V_I64, 8 }, { "INTEGER", V_I64, 8 }, { "SIGNED INTEGER", V_I64, 8 },
		{ "DOUBLE", V_DOUBLE, 8 }, { "FLOAT", V_DOUBLE, 8 },
		{ "MINDOUBLE", V_MIN, 8 }, { "MAXDOUBLE", V_MAX, 8 },
		{ "TAU_ATOMIC", V_TAU, 36 }, { "RATE", V_RATE, 16 },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(d, tab[i].name)) {
			*size = tab[i].size;
			return tab[i].t;
		}
	return V_BAD;
}

static uint64_t get_u(const unsigned char *p, size_t n, int swap)
{
	uint64_t v = 0;
	if (swap)
		for (size_t i = 0; i < n; i++)
			v = (v << 8) | p[i];
	else
		for (size_t i = n; i-- > 0;)
			v = (v << 8) | p[i];
	return v;
}

static double get_d(const unsigned char *p, int swap)
{
	uint64_t u = get_u(p, 8, swap);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static double decode(const unsigned char *p, enum vtype t, int swap)
{
	switch (t) {
	case V_U8: return (double)p[0];
	case V_I8: return (double)(int8_t)p[0];
	case V_U16: return (double)(uint16_t)get_u(p, 2, swap);
	case V_I16: return (double)(int16_t)(uint16_t)get_u(p, 2, swap);
	case V_U32: return (double)(uint32_t)get_u(p, 4, swap);
	case V_I32: return (double)(int32_t)(uint32_t)get_u(p, 4, swap);
	case V_U64: return (double)get_u(p, 8, swap);
	case V_I64: return (double)(int64_t)get_u(p, 8, swap);
	case V_DOUBLE: case V_MIN: case V_MAX: return get_d(p, swap);
	case V_TAU: {
		double n = (double)(uint32_t)get_u(p, 4, swap);
		double sum = get_d(p + 4 + 16, swap);
		return n == 0 ? 0.0 : sum / n;
	}
	case V_RATE: {
		double main = get_d(p, swap), dur = get_d(p + 8, swap);
		return dur == 0 ? 0.0 : main / dur;
	}
	default: return 0.0;
	}
}

/* Row order of a metric: position -> cnode index. */
static void wide_order(const struct cubex *c, int node, int *seq, int *k)
{
	const struct cubex_cnode *cn = &c->cnodes[node];
	for (int i = 0; i < cn->nchildren; i++)
		seq[(*k)++] = cn->children[i];
	for (int i = 0; i < cn->nchildren; i++)
		wide_order(c, cn->children[i], seq, k);
}

static int cmp_id(const void *a, const void *b, void *ctx)
{
	const struct cubex *c = ctx;
	int x = c->cnodes[*(const int *)a].id, y = c->cnodes[*(const int *)b].id;
	return (x > y) - (x < y);
}

static void row_order(const struct cubex *c, enum cubex_kind kind, int *seq)
{
	int k = 0;
	if (kind == CUBEX_INCLUSIVE) {
		for (int i = 0; i < c->ncnodes; i++)
			if (c->cnodes[i].parent < 0) {
				seq[k++] = i;
				wide_order(c, i, seq, &k);
			}
	} else {
		for (int i = 0; i < c->ncnodes; i++)
			seq[i] = i;    /* document order is depth-first pre-order */
		if (kind == CUBEX_SIMPLE)
			qsort_r(seq, (size_t)c->ncnodes, sizeof(int), cmp_id, (void *)c);
	}
}

/* *pos: the cnode positions of m's *nrows rows from <id>.index (caller frees); -1 with err. */
static int read_index(const struct cubex *c, const struct cubex_metric *m, int **pos, int *nrows, int *swap,
		      struct perr *err)
{
	char nm[32];
	snprintf(nm, sizeof(nm), "%d.index", m->id);
	const struct cubex_member *ix = cubex_member(c, nm);
	const unsigned char *ip = c->buf + ix->off;
	size_t ilen = ix->size;
	if (ilen < 18 || memcmp(ip, "CUBEX.INDEX", 11))
		return perr_set(err, "%s: %d.index: bad index header", c->path, m->id);
	uint32_t one = (uint32_t)get_u(ip + 11, 4, 0);
	if (one == 1)
		*swap = 0;
	else if (one == 0x01000000u)
		*swap = 1;
	else
		return perr_set(err, "%s: %d.index: bad endianness marker", c->path, m->id);
	int format = ip[17];
	int n, *p;
	if (format == 3) {              /* dense */
		if (ilen != 18)
			return perr_set(err, "%s: %d.index: dense index with %zu trailing bytes", c->path,
					m->id, ilen - 18);
		n = c->ncnodes;
		p = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++)
			p[i] = i;
	} else if (format == 1) {       /* sparse */
		if (ilen < 22)
			return perr_set(err, "%s: %d.index: truncated sparse index", c->path, m->id);
		uint32_t cnt = (uint32_t)get_u(ip + 18, 4, *swap);
		if (cnt > (uint32_t)c->ncnodes || ilen != 22 + (size_t)cnt * 4)
			return perr_set(err, "%s: %d.index: bad index: %u entries in %zu bytes for %d cnodes",
					c->path, m->id, cnt, ilen, c->ncnodes);
		n = (int)cnt;
		p = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++) {
			uint32_t v = (uint32_t)get_u(ip + 22 + 4 * (size_t)i, 4, *swap);
			if (v >= (uint32_t)c->ncnodes) {
				free(p);
				return perr_set(err, "%s: %d.index: bad index: entry %d is %u, but there are %d cnodes",
						c->path, m->id, i, v, c->ncnodes);
			}
			p[i] = (int)v;
		}
	} else {
		return perr_set(err, "%s: %d.index: unknown index format %d", c->path, m->id, format);
	}
	*pos = p;
	*nrows = n;
	return 0;
}

/* Inflate one compressed segment of want - *got bytes into out + *got; 0, or a zlib code. */
static int inflate_segment(const unsigned char *in, uint64_t zsize, unsigned char *out, size_t want,
			   size_t *got)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return Z_VERSION_ERROR;
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (unsigned)zsize;
	zs.next_out = out + *got;
	zs.avail_out = (unsigned)(want - *got);
	int rc = inflate(&zs, Z_FINISH);
	*got += (want - *got) - zs.avail_out;
	inflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : rc;
}

/* *rows: the want bytes of a "ZCUBEX.DATA" file (dp, dlen bytes); -1 with err. */
static int read_zdata(const struct cubex *c, const struct cubex_metric *m, const unsigned char *dp,
		      size_t dlen, size_t want, int swap, unsigned char **rows, struct perr *err)
{
	uint64_t nseg = get_u(dp + 11, 8, swap);
	if (nseg > (dlen - 19) / 24)
		return perr_set(err, "%s: %d.data: truncated compressed data (%llu segments)", c->path,
				m->id, (unsigned long long)nseg);
	size_t at = 19 + (size_t)nseg * 24, got = 0;
	unsigned char *out = xmalloc(want ? want : 1);
	for (uint64_t s = 0; s < nseg; s++) {
		uint64_t zsize = get_u(dp + 19 + s * 24 + 16, 8, swap);
		if (zsize == 0)
			continue;
		if (zsize > dlen - at) {
			free(out);
			return perr_set(err, "%s: %d.data: truncated compressed segment %llu", c->path,
					m->id, (unsigned long long)s);
		}
		int rc = inflate_segment(dp + at, zsize, out, want, &got);
		if (rc == Z_VERSION_ERROR) {
			free(out);
			return perr_set(err, "%s: %d.data: cannot start zlib", c->path, m->id);
		}
		if (rc != 0) {
			free(out);
			return perr_set(err, "%s: %d.data: corrupt compressed segment %llu (%s)", c->path,
					m->id, (unsigned long long)s,
					rc == Z_BUF_ERROR ? "more data than the index allows" : "zlib error");
		}
		at += zsize;
	}
	if (got != want) {
		free(out);
		return perr_set(err, "%s: %d.data: compressed data holds %zu bytes, expected %zu",
				c->path, m->id, got, want);
	}
	*rows = out;
	return 0;
}

/* *rows: the n rows of m from <id>.data, plain or compressed (caller frees); -1 with err. */
static int read_data(const struct cubex *c, const struct cubex_metric *m, int n, int swap, unsigned char **rows,
		     struct perr *err)
{
	char nm[32];
	snprintf(nm, sizeof(nm), "%d.data", m->id);
	const struct cubex_member *dx = cubex_member(c, nm);
	size_t vsize = 8;
	parse_dtype(m->dtype, &vsize);
	size_t want = (size_t)n * (size_t)c->nlocations * vsize;
	const unsigned char *dp = c->buf + dx->off;
	size_t dlen = dx->size;
	if (dlen >= 10 && !memcmp(dp, "CUBEX.DATA", 10)) {
		if (dlen - 10 != want)
			return perr_set(err, "%s: %d.data: %s data: %zu bytes for %d cnodes x %d locations, expected %zu",
					c->path, m->id, dlen - 10 < want ? "truncated" : "oversized", dlen - 10, n,
					c->nlocations, want);
		*rows = xmalloc(want ? want : 1);
		memcpy(*rows, dp + 10, want);
		return 0;
	}
	if (dlen >= 19 && !memcmp(dp, "ZCUBEX.DATA", 11))
		return read_zdata(c, m, dp, dlen, want, swap, rows, err);
	return perr_set(err, "%s: %d.data: bad data header", c->path, m->id);
}

/* m's stored rows, their cnode positions and byte order; -1 with err. */
static int load_rows(const struct cubex *c, const struct cubex_metric *m, unsigned char **rows,
		     int **pos, int *nrows, int *swap, struct perr *err)
{
	if (read_index(c, m, pos, nrows, swap, err) < 0)
		return -1;
	if (read_data(c, m, *nrows, *swap, rows, err) < 0) {
		free(*pos);
		return -1;
	}
	return 0;
}

static double combine(enum vtype t, double a, double b)
{
	if (t == V_MIN)
		return a < b ? a : b;
	if (t == V_MAX)
		return a > b ? a : b;
	return a + b;
}

/* Inclusive from exclusive, post-order (children are complete first). */
static void to_inclusive(const struct cubex *c, enum vtype t, double *v)
{
	size_t L = (size_t)c->nlocations;
	for (int i = c->ncnodes - 1; i >= 0; i--) {
		const struct cubex_cnode *cn = &c->cnodes[i];
		for (int k = 0; k < cn->nchildren; k++)
			for (size_t l = 0; l < L; l++)
				v[(size_t)i * L + l] = combine(t, v[(size_t)i * L + l],
							       v[(size_t)cn->children[k] * L + l]);
	}
}

static void to_exclusive(const struct cubex *c, double *v)
{
	size_t L = (size_t)c->nlocations;
	for (int i = 0; i < c->ncnodes; i++) {
		const struct cubex_cnode *cn = &c->cnodes[i];
		for (int k = 0; k < cn->nchildren; k++)
			for (size_t l = 0; l < L; l++)
				v[(size_t)i * L + l] -= v[(size_t)cn->children[k] * L + l];
	}
}

int cubex_read_metric(const struct cubex *c, int metric, enum cubex_view view, double **values,
		      struct perr *err)
{
	if (metric < 0 || metric >= c->nmetrics)
		return perr_set(err, "%s: no metric %d", c->path, metric);
	const struct cubex_metric *m = &c->metrics[metric];
	size_t vsize = 8;
	enum vtype t = parse_dtype(m->dtype, &vsize);
	if (t == V_BAD)
		return perr_set(err, "%s: metric '%s' has unknown or unsupported data type '%s'", c->path,
				m->name, m->dtype);
	if (m->kind == CUBEX_DERIVED)
		return perr_set(err, "%s: metric '%s' is derived and has no stored values", c->path, m->name);
	size_t L = (size_t)c->nlocations;
	double *v = xcalloc((size_t)c->ncnodes * L, sizeof(double));
	if (m->has_data) {
		unsigned char *rows = NULL;
		int *pos = NULL, nrows = 0, swap = 0;
		if (load_rows(c, m, &rows, &pos, &nrows, &swap, err) < 0) {
			free(v);
			return -1;
		}
		int *seq = xmalloc(sizeof(int) * (size_t)c->ncnodes);
		row_order(c, m->kind, seq);
		for (int r = 0; r < nrows; r++) {
			int node = seq[pos[r]];
			const unsigned char *row = rows + (size_t)r * L * vsize;
			for (size_t l = 0; l < L; l++)
				v[(size_t)node * L + l] = decode(row + l * vsize, t, swap);
		}
		free(seq);
		free(pos);
		free(rows);
	}
	if (view == CUBEX_EXCL && m->kind == CUBEX_INCLUSIVE)
		to_exclusive(c, v);
	else if (view == CUBEX_INCL && m->kind == CUBEX_EXCLUSIVE)
		to_inclusive(c, t, v);
	*values = v;
	return 0;
}
