/* Score-P CUBE4 (.cubex) reader: tar members, anchor.xml via libxml2, index/data via zlib. */
#include "collectors/cubex.h"
#include "collectors/cubex_collect.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_GUNZIP (1u << 30)

/* ---------- gzip (whole archive or anchor.xml) ---------- */

/* Inflate a gzip or zlib stream of unknown output size; -1 on error. */
static int inflate_all(const unsigned char *in, size_t inlen, int gzip, unsigned char **out,
		       size_t *outlen, size_t limit)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
		return -1;
	size_t cap = inlen * 4 + 1024, n = 0;
	unsigned char *buf = xmalloc(cap);
	int rc;
	size_t consumed = 0;
	do {
		if (n == cap) {
			if (cap >= limit) {
				rc = Z_MEM_ERROR;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t chunk_in = inlen - consumed;
		zs.next_in = (unsigned char *)in + consumed;
		zs.avail_in = chunk_in > UINT_MAX ? UINT_MAX : (unsigned)chunk_in;
		size_t room = cap - n;
		zs.next_out = buf + n;
		zs.avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
		unsigned ai = zs.avail_in, ao = zs.avail_out;
		rc = inflate(&zs, Z_NO_FLUSH);
		consumed += ai - zs.avail_in;
		n += ao - zs.avail_out;
		if (rc == Z_BUF_ERROR && zs.avail_out != 0)
			break;  /* truncated input */
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

/* ---------- tar ---------- */

static int tar_octal(const unsigned char *p, size_t n, size_t *v)
{
	if (p[0] & 0x80) {      /* GNU base-256 */
		size_t r = 0;
		for (size_t i = 1; i < n; i++) {
			if (r > (SIZE_MAX >> 8))
				return -1;
			r = (r << 8) | p[i];
		}
		*v = r;
		return 0;
	}
	size_t i = 0, r = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\0'))
		i++;
	int digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
		if (r > (SIZE_MAX >> 3))
			return -1;
		r = (r << 3) | (size_t)(p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	*v = r;
	return 0;
}

static int tar_checksum_ok(const unsigned char *h)
{
	size_t want;
	if (tar_octal(h + 148, 8, &want) < 0)
		return 0;
	unsigned long s = 0;
	long ss = 0;
	for (int i = 0; i < 512; i++) {
		unsigned char ch = (i >= 148 && i < 156) ? ' ' : h[i];
		s += ch;
		ss += (signed char)ch;
	}
	return want == s || (long)want == ss;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Value of "path=" in a pax extended header, or NULL. */
static char *pax_path(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9' && len < n)
			len = len * 10 + (size_t)(p[j++] - '0');
		if (len == 0 || j >= n || p[j] != ' ' || len > n - i)
			return NULL;
		const char *kv = (const char *)p + j + 1;
		size_t kvlen = i + len - (j + 1);
		if (kvlen > 5 && !memcmp(kv, "path=", 5)) {
			size_t vlen = kvlen - 5;
			if (vlen && kv[5 + vlen - 1] == '\n')
				vlen--;
			return xstrndup(kv + 5, vlen);
		}
		i += len;
	}
	return NULL;
}

static int tar_index(struct cubex *c, struct perr *err)
{
	const unsigned char *b = c->buf;
	size_t len = c->len, off = 0;
	size_t alloc = 0;
	char *longname = NULL;
	int first = 1;
	while (off + 512 <= len) {
		const unsigned char *h = b + off;
		if (all_zero(h, 512))
			break;
		int magic = !memcmp(h + 257, "ustar", 5);
		/* a bad checksum is tolerated with the ustar magic (CubeLib 4.8 wrote such files) */
		if (!tar_checksum_ok(h) && !magic) {
			free(longname);
			if (first)
				return perr_set(err, "%s: not a tar archive (bad header checksum)", c->path);
			return perr_set(err, "%s: corrupt tar header at byte %zu", c->path, off);
		}
		first = 0;
		size_t size;
		if (tar_octal(h + 124, 12, &size) < 0) {
			free(longname);
			return perr_set(err, "%s: corrupt tar header at byte %zu (size field)", c->path, off);
		}
		size_t data = off + 512;
		if (size > len - data) {
			free(longname);
			return perr_set(err, "%s: truncated tar archive (member at byte %zu needs %zu bytes, %zu left)",
					c->path, off, size, len - data);
		}
		char type = (char)h[156];
		if (type == 'L') {              /* GNU long name for the next member */
			free(longname);
			longname = xstrndup((const char *)b + data, size);
		} else if (type == 'x') {       /* pax header */
			free(longname);
			longname = pax_path(b + data, size);
		} else if (type == '0' || type == '\0' || type == '7') {
			char *name;
			if (longname) {
				name = longname;
				longname = NULL;
			} else {
				char nm[101], pre[156];
				memcpy(nm, h, 100);
				nm[100] = '\0';
				pre[0] = '\0';
				if (magic) {
					memcpy(pre, h + 345, 155);
					pre[155] = '\0';
				}
				name = pre[0] ? xasprintf("%s/%s", pre, nm) : xstrdup(nm);
			}
			const char *base = name;
			while (!strncmp(base, "./", 2))
				base += 2;
			XGROW(c->members, (size_t)c->nmembers + 1, alloc);
			c->members[c->nmembers].name = xstrdup(base);
			c->members[c->nmembers].off = data;
			c->members[c->nmembers].size = size;
			c->nmembers++;
			free(name);
		} else {
			free(longname);
			longname = NULL;
		}
		size_t padded = (size + 511) / 512 * 512;
		if (padded > len - data)
			break;
		off = data + padded;
	}
	free(longname);
	if (c->nmembers == 0)
		return perr_set(err, "%s: not a tar archive (no members)", c->path);
	return 0;
}

static const struct cubex_member *member(const struct cubex *c, const char *name)
{
	for (int i = c->nmembers - 1; i >= 0; i--)
		if (!strcmp(c->members[i].name, name))
			return &c->members[i];
	return NULL;
}

/* ---------- anchor.xml ---------- */

static int is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* Text of the child element `name`, newly allocated, or NULL. */
static char *child_text(const xmlNode *n, const char *name)
{
	for (const xmlNode *k = n->children; k; k = k->next)
		if (is_elem(k, name)) {
			xmlChar *t = xmlNodeGetContent(k);
			char *s = xstrdup(t ? (const char *)t : "");
			xmlFree(t);
			return s;
		}
	return NULL;
}

/* Integer attribute; -1 with err when absent or malformed. */
static int int_attr(const struct cubex *c, const xmlNode *n, const char *name, int *v, struct perr *err)
{
	xmlChar *a = xmlGetProp(n, (const xmlChar *)name);
	if (!a)
		return perr_set(err, "%s: anchor.xml:%ld: <%s> has no '%s' attribute", c->path,
				xmlGetLineNo(n), (const char *)n->name, name);
	char *end;
	errno = 0;
	long x = strtol((const char *)a, &end, 10);
	int bad = errno || end == (char *)a || *end || x < 0 || x > INT_MAX;
	xmlFree(a);
	if (bad)
		return perr_set(err, "%s: anchor.xml:%ld: <%s> has a bad '%s' attribute", c->path,
				xmlGetLineNo(n), (const char *)n->name, name);
	*v = (int)x;
	return 0;
}

static int int_text(const xmlNode *n, const char *name, int dflt)
{
	char *t = child_text(n, name);
	if (!t)
		return dflt;
	char *end;
	long x = strtol(t, &end, 10);
	int ok = end != t && x >= INT_MIN && x <= INT_MAX;
	free(t);
	return ok ? (int)x : dflt;
}

struct anchor_ctx {
	struct cubex *c;
	size_t metrics_alloc, regions_alloc, cnodes_alloc, loc_alloc;
	struct strmap region_ids;       /* anchor id -> region index */
	int depth;
};

static int parse_metrics(struct anchor_ctx *ax, const xmlNode *parent, struct perr *err)
{
	struct cubex *c = ax->c;
	for (const xmlNode *n = parent->children; n; n = n->next) {
		if (!is_elem(n, "metric"))
			continue;
		int id;
		if (int_attr(c, n, "id", &id, err) < 0)
			return -1;
		XGROW(c->metrics, (size_t)c->nmetrics + 1, ax->metrics_alloc);
		struct cubex_metric *m = &c->metrics[c->nmetrics++];
		memset(m, 0, sizeof(*m));
		m->id = id;
		m->name = child_text(n, "uniq_name");
		m->disp_name = child_text(n, "disp_name");
		m->dtype = child_text(n, "dtype");
		m->uom = child_text(n, "uom");
		if (!m->name)
			return perr_set(err, "%s: anchor.xml:%ld: metric %d has no <uniq_name>", c->path,
					xmlGetLineNo(n), id);
		if (!m->dtype)
			m->dtype = xstrdup("DOUBLE");
		xmlChar *t = xmlGetProp(n, (const xmlChar *)"type");
		const char *ts = t ? (const char *)t : "EXCLUSIVE";
		if (!strcmp(ts, "INCLUSIVE"))
			m->kind = CUBEX_INCLUSIVE;
		else if (!strcmp(ts, "EXCLUSIVE"))
			m->kind = CUBEX_EXCLUSIVE;
		else if (!strcmp(ts, "SIMPLE"))
			m->kind = CUBEX_SIMPLE;
		else
			m->kind = CUBEX_DERIVED;
		xmlFree(t);
		if (ax->depth > 64)
			return perr_set(err, "%s: anchor.xml: metric tree too deep", c->path);
		ax->depth++;
		int rc = parse_metrics(ax, n, err);
		ax->depth--;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int parse_regions(struct anchor_ctx *ax, const xmlNode *program, struct perr *err)
{
	struct cubex *c = ax->c;
	for (const xmlNode *n = program->children; n; n = n->next) {
		if (!is_elem(n, "region"))
			continue;
		int id;
		if (int_attr(c, n, "id", &id, err) < 0)
			return -1;
		char key[32];
		snprintf(key, sizeof(key), "%d", id);
		if (strmap_get(&ax->region_ids, key) >= 0)
			return perr_set(err, "%s: anchor.xml:%ld: duplicate region id %d", c->path,
					xmlGetLineNo(n), id);
		XGROW(c->regions, (size_t)c->nregions + 1, ax->regions_alloc);
		struct cubex_region *r = &c->regions[c->nregions];
		r->id = id;
		r->name = child_text(n, "name");
		if (!r->name)
			r->name = xstrdup("");
		r->mangled = child_text(n, "mangled_name");
		r->paradigm = child_text(n, "paradigm");
		strmap_put(&ax->region_ids, key, c->nregions);
		c->nregions++;
	}
	return 0;
}

static int parse_cnodes(struct anchor_ctx *ax, const xmlNode *parent, int parent_idx,
			struct strbuf *path, struct strmap *cnode_ids, struct perr *err)
{
	struct cubex *c = ax->c;
	if (ax->depth > 10000)
		return perr_set(err, "%s: anchor.xml: call tree too deep", c->path);
	for (const xmlNode *n = parent->children; n; n = n->next) {
		if (!is_elem(n, "cnode"))
			continue;
		int id, callee;
		if (int_attr(c, n, "id", &id, err) < 0 || int_attr(c, n, "calleeId", &callee, err) < 0)
			return -1;
		char key[32];
		snprintf(key, sizeof(key), "%d", callee);
		int r = strmap_get(&ax->region_ids, key);
		if (r < 0)
			return perr_set(err, "%s: anchor.xml:%ld: cnode %d calls unknown region %d", c->path,
					xmlGetLineNo(n), id, callee);
		snprintf(key, sizeof(key), "%d", id);
		if (strmap_get(cnode_ids, key) >= 0)
			return perr_set(err, "%s: anchor.xml:%ld: duplicate cnode id %d", c->path,
					xmlGetLineNo(n), id);
		XGROW(c->cnodes, (size_t)c->ncnodes + 1, ax->cnodes_alloc);
		int idx = c->ncnodes++;
		strmap_put(cnode_ids, key, idx);
		struct cubex_cnode *cn = &c->cnodes[idx];
		memset(cn, 0, sizeof(*cn));
		cn->id = id;
		cn->region = r;
		cn->parent = parent_idx;
		size_t save = path->len;
		if (save)
			strbuf_addstr(path, "->");
		strbuf_addstr(path, c->regions[r].name);
		cn->callpath = xstrdup(path->buf);
		if (parent_idx >= 0) {
			struct cubex_cnode *p = &c->cnodes[parent_idx];
			p->children = xrealloc(p->children, sizeof(int) * (size_t)(p->nchildren + 1));
			p->children[p->nchildren++] = idx;
		}
		ax->depth++;
		int rc = parse_cnodes(ax, n, idx, path, cnode_ids, err);
		ax->depth--;
		path->len = save;
		path->buf[save] = '\0';
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int parse_system(struct anchor_ctx *ax, const xmlNode *parent, int group_rank, struct perr *err)
{
	struct cubex *c = ax->c;
	if (ax->depth > 1000)
		return perr_set(err, "%s: anchor.xml: system tree too deep", c->path);
	for (const xmlNode *n = parent->children; n; n = n->next) {
		if (is_elem(n, "location")) {
			int id;
			if (int_attr(c, n, "Id", &id, err) < 0)
				return -1;
			XGROW(c->locations, (size_t)c->nlocations + 1, ax->loc_alloc);
			struct cubex_location *l = &c->locations[c->nlocations++];
			l->id = id;
			l->rank = group_rank;
			l->thread = int_text(n, "rank", 0);
		} else if (is_elem(n, "locationgroup") || is_elem(n, "systemtreenode")) {
			int rank = is_elem(n, "locationgroup") ? int_text(n, "rank", group_rank) : group_rank;
			ax->depth++;
			int rc = parse_system(ax, n, rank, err);
			ax->depth--;
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

/* libxml2 must never print: collect nothing, read ctxt->lastError instead. */
static void xml_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static int parse_anchor(struct cubex *c, struct perr *err)
{
	const struct cubex_member *a = member(c, "anchor.xml");
	if (!a)
		return perr_set(err, "%s: missing anchor.xml in the archive", c->path);
	const unsigned char *xml = c->buf + a->off;
	size_t xlen = a->size;
	unsigned char *gunz = NULL;
	if (xlen >= 2 && xml[0] == 0x1f && xml[1] == 0x8b) {
		if (inflate_all(xml, xlen, 1, &gunz, &xlen, MAX_GUNZIP) < 0)
			return perr_set(err, "%s: anchor.xml: corrupt gzip data", c->path);
		xml = gunz;
	}
	if (xlen > INT_MAX) {
		free(gunz);
		return perr_set(err, "%s: anchor.xml: too large", c->path);
	}
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		free(gunz);
		return perr_set(err, "%s: anchor.xml: cannot create an XML parser", c->path);
	}
	xmlSetGenericErrorFunc(NULL, xml_quiet);
	xmlDocPtr doc = xmlCtxtReadMemory(ctxt, (const char *)xml, (int)xlen, "anchor.xml", NULL,
					  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
					  XML_PARSE_HUGE);
	free(gunz);
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		if (e && e->message) {
			char msg[256];
			snprintf(msg, sizeof(msg), "%s", e->message);
			size_t l = strlen(msg);
			while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
				msg[--l] = '\0';
			perr_set(err, "%s: anchor.xml:%d: malformed XML: %s", c->path, e->line, msg);
		} else {
			perr_set(err, "%s: anchor.xml: malformed XML", c->path);
		}
		xmlFreeParserCtxt(ctxt);
		return -1;
	}
	xmlFreeParserCtxt(ctxt);
	int rc = -1;
	struct anchor_ctx ax;
	memset(&ax, 0, sizeof(ax));
	ax.c = c;
	strmap_init(&ax.region_ids);
	struct strmap cnode_ids;
	strmap_init(&cnode_ids);
	struct strbuf path;
	strbuf_init(&path);
	xmlNode *root = xmlDocGetRootElement(doc);
	if (!root || !is_elem(root, "cube")) {
		perr_set(err, "%s: anchor.xml: root element is not <cube>", c->path);
		goto done;
	}
	const xmlNode *metrics = NULL, *program = NULL, *system = NULL;
	for (const xmlNode *n = root->children; n; n = n->next) {
		if (is_elem(n, "metrics"))
			metrics = n;
		else if (is_elem(n, "program"))
			program = n;
		else if (is_elem(n, "system"))
			system = n;
	}
	if (!metrics || !program || !system) {
		perr_set(err, "%s: anchor.xml: missing <%s> section", c->path,
			 !metrics ? "metrics" : !program ? "program" : "system");
		goto done;
	}
	if (parse_metrics(&ax, metrics, err) < 0 || parse_regions(&ax, program, err) < 0 ||
	    parse_cnodes(&ax, program, -1, &path, &cnode_ids, err) < 0 ||
	    parse_system(&ax, system, 0, err) < 0)
		goto done;
	if (c->ncnodes == 0) {
		perr_set(err, "%s: anchor.xml: the call tree has no cnodes", c->path);
		goto done;
	}
	if (c->nlocations == 0) {
		perr_set(err, "%s: anchor.xml: the system tree has no locations", c->path);
		goto done;
	}
	for (int i = 0; i < c->nmetrics; i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "%d.index", c->metrics[i].id);
		int hi = member(c, nm) != NULL;
		snprintf(nm, sizeof(nm), "%d.data", c->metrics[i].id);
		c->metrics[i].has_data = hi && member(c, nm) != NULL;
	}
	rc = 0;
done:
	strbuf_release(&path);
	strmap_release(&cnode_ids);
	strmap_release(&ax.region_ids);
	xmlFreeDoc(doc);
	return rc;
}

/* ---------- open / release ---------- */

static int open_buffer(struct cubex *c, struct perr *err)
{
	if (c->len >= 2 && c->buf[0] == 0x1f && c->buf[1] == 0x8b) {
		unsigned char *out;
		size_t outlen;
		if (inflate_all(c->buf, c->len, 1, &out, &outlen, (size_t)1 << 34) < 0)
			return perr_set(err, "%s: corrupt gzip-compressed archive", c->path);
		free(c->buf);
		c->buf = out;
		c->len = outlen;
	}
	if (c->len < 512)
		return perr_set(err, "%s: not a tar archive (%zu bytes)", c->path, c->len);
	if (tar_index(c, err) < 0 || parse_anchor(c, err) < 0)
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
	if (strbuf_read_file(&sb, path) < 0) {
		int e = errno;
		strbuf_release(&sb);
		return perr_set(err, "cannot read '%s': %s", path, strerror(e));
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

static int load_rows(const struct cubex *c, const struct cubex_metric *m, unsigned char **rows,
		     int **pos, int *nrows, int *swap, struct perr *err)
{
	char nm[32];
	snprintf(nm, sizeof(nm), "%d.index", m->id);
	const struct cubex_member *ix = member(c, nm);
	snprintf(nm, sizeof(nm), "%d.data", m->id);
	const struct cubex_member *dx = member(c, nm);
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
	(void)0;
	int n;
	int *p;
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
	size_t vsize = 8;
	parse_dtype(m->dtype, &vsize);
	size_t want = (size_t)n * (size_t)c->nlocations * vsize;
	const unsigned char *dp = c->buf + dx->off;
	size_t dlen = dx->size;
	unsigned char *out = NULL;
	if (dlen >= 10 && !memcmp(dp, "CUBEX.DATA", 10)) {
		if (dlen - 10 != want) {
			free(p);
			return perr_set(err, "%s: %d.data: %s data: %zu bytes for %d cnodes x %d locations, expected %zu",
					c->path, m->id, dlen - 10 < want ? "truncated" : "oversized", dlen - 10, n,
					c->nlocations, want);
		}
		out = xmalloc(want ? want : 1);
		memcpy(out, dp + 10, want);
	} else if (dlen >= 19 && !memcmp(dp, "ZCUBEX.DATA", 11)) {
		uint64_t nseg = get_u(dp + 11, 8, *swap);
		if (nseg > (dlen - 19) / 24) {
			free(p);
			return perr_set(err, "%s: %d.data: truncated compressed data (%llu segments)", c->path,
					m->id, (unsigned long long)nseg);
		}
		size_t at = 19 + (size_t)nseg * 24, got = 0;
		out = xmalloc(want ? want : 1);
		for (uint64_t s = 0; s < nseg; s++) {
			uint64_t zsize = get_u(dp + 19 + s * 24 + 16, 8, *swap);
			if (zsize == 0)
				continue;
			if (zsize > dlen - at) {
				free(p);
				free(out);
				return perr_set(err, "%s: %d.data: truncated compressed segment %llu", c->path,
						m->id, (unsigned long long)s);
			}
			z_stream zs;
			memset(&zs, 0, sizeof(zs));
			if (inflateInit(&zs) != Z_OK) {
				free(p);
				free(out);
				return perr_set(err, "%s: %d.data: cannot start zlib", c->path, m->id);
			}
			zs.next_in = (unsigned char *)dp + at;
			zs.avail_in = (unsigned)zsize;
			zs.next_out = out + got;
			zs.avail_out = (unsigned)(want - got);
			int rc = inflate(&zs, Z_FINISH);
			got += (want - got) - zs.avail_out;
			inflateEnd(&zs);
			if (rc != Z_STREAM_END) {
				free(p);
				free(out);
				return perr_set(err, "%s: %d.data: corrupt compressed segment %llu (%s)", c->path,
						m->id, (unsigned long long)s,
						rc == Z_BUF_ERROR ? "more data than the index allows" : "zlib error");
			}
			at += zsize;
		}
		if (got != want) {
			free(p);
			free(out);
			return perr_set(err, "%s: %d.data: compressed data holds %zu bytes, expected %zu",
					c->path, m->id, got, want);
		}
	} else {
		free(p);
		return perr_set(err, "%s: %d.data: bad data header", c->path, m->id);
	}
	*rows = out;
	*pos = p;
	*nrows = n;
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

/* ---------- aggregation ---------- */

/* NumPy's pairwise summation (numpy/core/src/umath/loops_utils.h). */
static double pairwise_sum(const double *a, size_t n)
{
	if (n < 8) {
		double r = 0.0;
		for (size_t i = 0; i < n; i++)
			r += a[i];
		return r;
	}
	if (n <= 128) {
		double r[8];
		size_t i;
		for (int j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - (n % 8); i += 8)
			for (int j = 0; j < 8; j++)
				r[j] += a[i + j];
		double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double cubex_aggregate(const double *v, int n, enum cubex_aggr a)
{
	if (n <= 0)
		return 0.0;
	switch (a) {
	case CUBEX_SUM:
		return pairwise_sum(v, (size_t)n);
	case CUBEX_MAX: {
		double m = v[0];
		for (int i = 1; i < n; i++)
			if (v[i] > m)
				m = v[i];
		return m;
	}
	case CUBEX_MIN: {
		double m = v[0];
		for (int i = 1; i < n; i++)
			if (v[i] < m)
				m = v[i];
		return m;
	}
	case CUBEX_MEAN:
	default:
		return pairwise_sum(v, (size_t)n) / n;
	}
}

static const char *const aggr_names[] = { "mean", "sum", "max", "min" };

int cubex_aggr_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, aggr_names[i]))
			return i;
	return -1;
}

const char *cubex_aggr_name(enum cubex_aggr a)
{
	return (unsigned)a < 4 ? aggr_names[a] : "?";
}

/* ---------- collection ---------- */

int cubex_collect(const struct cubex *c, char *const *metrics, int nmetrics, enum cubex_aggr aggr,
		  int per_rank, struct measurement_list *out, struct perr *err)
{
	static char *const dflt[] = { "time", "visits" };
	if (!metrics) {
		metrics = dflt;
		nmetrics = 2;
	}
	size_t L = (size_t)c->nlocations;
	/* distinct call paths, in first-seen order */
	struct strmap cp;
	strmap_init(&cp);
	int *cp_of = xmalloc(sizeof(int) * (size_t)c->ncnodes);
	int *first = xmalloc(sizeof(int) * (size_t)c->ncnodes);
	int ncp = 0;
	for (int i = 0; i < c->ncnodes; i++) {
		int k = strmap_get(&cp, c->cnodes[i].callpath);
		if (k < 0) {
			k = ncp;
			first[ncp++] = i;
			strmap_put(&cp, c->cnodes[i].callpath, k);
		}
		cp_of[i] = k;
	}
	strmap_release(&cp);
	double *acc = xmalloc(sizeof(double) * L * (size_t)(ncp ? ncp : 1));
	int rc = 0;
	for (int mi = 0; mi < nmetrics; mi++) {
		int m = cubex_find_metric(c, metrics[mi]);
		if (m < 0) {
			rc = perr_set(err, "%s: no metric '%s' in the profile", c->path, metrics[mi]);
			break;
		}
		double *v;
		if (cubex_read_metric(c, m, CUBEX_EXCL, &v, err) < 0) {
			rc = -1;
			break;
		}
		memset(acc, 0, sizeof(double) * L * (size_t)ncp);
		for (int i = 0; i < c->ncnodes; i++)
			for (size_t l = 0; l < L; l++)
				acc[(size_t)cp_of[i] * L + l] += v[(size_t)i * L + l];
		free(v);
		for (int k = 0; k < ncp; k++) {
			const char *name = c->cnodes[first[k]].callpath;
			measurement_list_add(out, -1, name, c->metrics[m].name,
					     cubex_aggregate(&acc[(size_t)k * L], (int)L, aggr));
			if (per_rank)
				for (size_t l = 0; l < L; l++)
					measurement_list_add(out, c->locations[l].rank, name, c->metrics[m].name,
							     acc[(size_t)k * L + l]);
		}
	}
	free(acc);
	free(first);
	free(cp_of);
	return rc;
}

/* ---------- the campaign collector (cubex_collect.h) ---------- */

/* The single .cubex in dir (profile.cubex preferred), or NULL. */
static char *one_cubex(const char *dir)
{
	char *p = xasprintf("%s/profile.cubex", dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] != '.' && l > 6 && !strcmp(de->d_name + l - 6, ".cubex")) {
			n++;
			if (!found || strcmp(de->d_name, strrchr(found, '/') + 1) < 0) {
				free(found);
				found = xasprintf("%s/%s", dir, de->d_name);
			}
		}
	}
	closedir(d);
	return found;
}

char *cubex_find_profile(const char *run_dir)
{
	char *sub = xasprintf("%s/%s", run_dir, CUBEX_SCOREP_SUBDIR);
	char *p = one_cubex(sub);
	free(sub);
	return p ? p : one_cubex(run_dir);
}

int collect_cubex(const char *run_dir, char *const *metrics, int nmetrics, struct measurement_list *out,
		  struct perr *err)
{
	char *path = cubex_find_profile(run_dir);
	if (!path)
		return perr_set(err, "no Score-P profile in '%s/%s' (is the application instrumented with Score-P?)",
				run_dir, CUBEX_SCOREP_SUBDIR);
	struct cubex c;
	int rc = cubex_open(&c, path, err);
	free(path);
	if (rc < 0)
		return -1;
	rc = cubex_collect(&c, nmetrics > 0 ? metrics : NULL, nmetrics, CUBEX_MEAN, 0, out, err);
	cubex_release(&c);
	return rc;
}
