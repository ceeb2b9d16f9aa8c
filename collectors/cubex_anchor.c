/* The anchor layer of the CUBE4 reader: anchor.xml through libxml2 into struct cubex. */
#include "collectors/cubex_anchor.h"
#include "collectors/cubex_tar.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* libxml2's last error for ctxt into msg without trailing blanks, and its line; 0 when there is none. */
static int xml_error(xmlParserCtxtPtr ctxt, char *msg, size_t size, int *line)
{
	const xmlError *e = xmlCtxtGetLastError(ctxt);
	if (!e || !e->message)
		return 0;
	snprintf(msg, size, "%s", e->message);
	size_t l = strlen(msg);
	while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
		msg[--l] = '\0';
	*line = e->line;
	return 1;
}

/* *doc: anchor.xml of the archive, inflated if need be and parsed; -1 with err. */
static int read_doc(struct cubex *c, xmlDocPtr *doc, struct perr *err)
{
	const struct cubex_member *a = cubex_member(c, "anchor.xml");
	if (!a)
		return perr_set(err, "%s: missing anchor.xml in the archive", c->path);
	const unsigned char *xml = c->buf + a->off;
	size_t xlen = a->size;
	unsigned char *gunz = NULL;
	if (xlen >= 2 && xml[0] == 0x1f && xml[1] == 0x8b) {
		if (cubex_inflate(xml, xlen, 1, &gunz, &xlen, CUBEX_MAX_GUNZIP) < 0)
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
	*doc = xmlCtxtReadMemory(ctxt, (const char *)xml, (int)xlen, "anchor.xml", NULL,
				 XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				 XML_PARSE_HUGE);
	free(gunz);
	if (!*doc) {
		char msg[256];
		int line;
		if (xml_error(ctxt, msg, sizeof(msg), &line))
			perr_set(err, "%s: anchor.xml:%d: malformed XML: %s", c->path, line, msg);
		else
			perr_set(err, "%s: anchor.xml: malformed XML", c->path);
	}
	xmlFreeParserCtxt(ctxt);
	return *doc ? 0 : -1;
}

/* A metric has data when the archive holds both its index and its data. */
static void mark_data(struct cubex *c)
{
	for (int i = 0; i < c->nmetrics; i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "%d.index", c->metrics[i].id);
		int hi = cubex_member(c, nm) != NULL;
		snprintf(nm, sizeof(nm), "%d.data", c->metrics[i].id);
		c->metrics[i].has_data = hi && cubex_member(c, nm) != NULL;
	}
}

/* The <metrics>, <program> and <system> sections of <cube> into c. */
static int walk(struct cubex *c, const xmlNode *root, struct perr *err)
{
	if (!root || !is_elem(root, "cube"))
		return perr_set(err, "%s: anchor.xml: root element is not <cube>", c->path);
	const xmlNode *metrics = NULL, *program = NULL, *system = NULL;
	for (const xmlNode *n = root->children; n; n = n->next) {
		if (is_elem(n, "metrics"))
			metrics = n;
		else if (is_elem(n, "program"))
			program = n;
		else if (is_elem(n, "system"))
			system = n;
	}
	if (!metrics || !program || !system)
		return perr_set(err, "%s: anchor.xml: missing <%s> section", c->path,
				!metrics ? "metrics" : !program ? "program" : "system");
	struct anchor_ctx ax;
	memset(&ax, 0, sizeof(ax));
	ax.c = c;
	strmap_init(&ax.region_ids);
	struct strmap cnode_ids;
	strmap_init(&cnode_ids);
	struct strbuf path;
	strbuf_init(&path);
	int rc = -1;
	if (parse_metrics(&ax, metrics, err) == 0 && parse_regions(&ax, program, err) == 0 &&
	    parse_cnodes(&ax, program, -1, &path, &cnode_ids, err) == 0 &&
	    parse_system(&ax, system, 0, err) == 0) {
		if (c->ncnodes == 0)
			perr_set(err, "%s: anchor.xml: the call tree has no cnodes", c->path);
		else if (c->nlocations == 0)
			perr_set(err, "%s: anchor.xml: the system tree has no locations", c->path);
		else
			rc = 0;
	}
	strbuf_release(&path);
	strmap_release(&cnode_ids);
	strmap_release(&ax.region_ids);
	return rc;
}

int cubex_parse_anchor(struct cubex *c, struct perr *err)
{
	xmlDocPtr doc;
	if (read_doc(c, &doc, err) < 0)
		return -1;
	int rc = walk(c, xmlDocGetRootElement(doc), err);
	if (rc == 0)
		mark_data(c);
	xmlFreeDoc(doc);
	return rc;
}
