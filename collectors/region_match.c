/* Match dependency-file functions to call-path regions by qualified name and parameter count. */
#include "collectors/region_match.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int at_operator(const char *s, const char *p)
{
	return p - s >= 8 && !strncmp(p - 8, "operator", 8);
}

const char *region_callpath_leaf(const char *callpath)
{
	const char *leaf = callpath;
	int depth = 0;
	for (const char *p = callpath; *p; p++) {
		if (*p == '(' || *p == '<' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']' || (*p == '>' && !(p > callpath && p[-1] == '-'))) && depth > 0)
			depth--;
		else if (*p == '-' && p[1] == '>' && depth == 0 && !at_operator(callpath, p)) {
			leaf = p + 2;
			p++;
		}
	}
	return leaf;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '~' || c == '$';
}

/* Remove template arguments "<...>" from a name, in place. */
static void strip_templates(char *s)
{
	char *w = s;
	int depth = 0;
	for (char *r = s; *r; r++) {
		if (*r == '<' && !at_operator(s, r))
			depth++;
		else if (*r == '>' && depth > 0)
			depth--;
		else if (depth == 0)
			*w++ = *r;
	}
	*w = '\0';
}

/* The parameter list of sig (len characters): the last top-level "( ... )"; *open and *close, or NULL. */
static void param_list(const char *sig, size_t len, const char **open, const char **close)
{
	*open = *close = NULL;
	for (size_t i = len; i-- > 0;)
		if (sig[i] == ')') {
			*close = sig + i;
			break;
		}
	if (!*close)
		return;
	int depth = 0;
	for (const char *p = *close; p >= sig; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0) {
			*open = p;
			break;
		}
	}
	/* "void (*f(int))(double)" style returns are rare; take the first list at depth 0 instead
	 * when the text before `open` ends in ')' (a parenthesised declarator) */
}

/* Parameters between open and close: top-level commas + 1, 0 for "()" and "(void)". */
static int count_params(const char *open, const char *close)
{
	int depth = 0, n = 0, any = 0;
	for (const char *p = open + 1; p < close; p++) {
		if (*p == '(' || *p == '<' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == '>' || *p == ']') && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			n++;
		if (!isspace((unsigned char)*p))
			any = 1;
	}
	size_t plen = (size_t)(close - open - 1);
	const char *ps = open + 1;
	while (plen && isspace((unsigned char)*ps))
		ps++, plen--;
	while (plen && isspace((unsigned char)ps[plen - 1]))
		plen--;
	if (plen == 4 && !strncmp(ps, "void", 4))
		any = 0;
	return any ? n + 1 : 0;
}

/* Where the name ending at e starts: back over identifier characters and template args. */
static const char *name_start(const char *sig, const char *e)
{
	const char *b = e;
	int depth = 0;
	while (b > sig) {
		char c = b[-1];
		if (c == '>') {
			depth++;
		} else if (c == '<') {
			if (depth == 0)
				break;
			depth--;
		} else if (depth == 0 && !ident_char(c)) {
			/* "operator()" / "operator+=" etc.: include the operator token */
			break;
		}
		b--;
	}
	/* operator names: "Foo::operator()", "operator+=" */
	const char *op = NULL;
	for (const char *p = sig; p + 8 <= e; p++)
		if (!strncmp(p, "operator", 8) && (p == sig || !ident_char(p[-1]) || p[-1] == ':') &&
		    !isalnum((unsigned char)p[8]) && p[8] != '_')
			op = p;
	if (op && op < b) {
		b = op;
		while (b > sig && ident_char(b[-1]))
			b--;
	}
	return b;
}

char *region_function_name(const char *sig, int *nparams)
{
	size_t len = strlen(sig);
	while (len && isspace((unsigned char)sig[len - 1]))
		len--;
	const char *open, *close;
	param_list(sig, len, &open, &close);
	*nparams = open ? count_params(open, close) : -1;
	/* the name: back from the parameter list over identifier characters and template args */
	const char *e = open ? open : sig + len;
	while (e > sig && isspace((unsigned char)e[-1]))
		e--;
	const char *b = name_start(sig, e);
	if (b == e)
		return NULL;
	char *name = xstrndup(b, (size_t)(e - b));
	/* drop a leading "::" and spaces inside */
	char *w = name;
	for (char *r = name; *r; r++)
		if (!isspace((unsigned char)*r))
			*w++ = *r;
	*w = '\0';
	if (!strncmp(name, "::", 2))
		memmove(name, name + 2, strlen(name + 2) + 1);
	if (!*name) {
		free(name);
		return NULL;
	}
	return name;
}

struct fkey {
	char *name;             /* qualified, without template arguments */
	int nparams;
};

void region_match_release(struct region_match *m)
{
	free(m->func);
	for (int i = 0; i < m->nunmatched_regions; i++) {
		free(m->unmatched_regions[i]);
		free(m->unmatched_reasons[i]);
	}
	free(m->unmatched_regions);
	free(m->unmatched_reasons);
	free(m->unmatched_funcs);
	memset(m, 0, sizeof(*m));
}

static const char *func_sig(const struct dep_function *f)
{
	return f->demangled ? f->demangled : f->name;
}

/* The dependency file's functions, findable by mangled and by qualified name. */
struct func_index {
	int n;
	struct fkey *keys;
	struct strmap mangled;
	struct strmap by_name;  /* qualified name -> first function with it */
	int *chain;             /* function -> next one with the same name, or -1 */
};

static void func_index_init(struct func_index *ix, const struct deps *d)
{
	ix->n = d->nfuncs;
	ix->keys = xcalloc((size_t)d->nfuncs + 1, sizeof(*ix->keys));
	strmap_init(&ix->mangled);
	for (int i = 0; i < d->nfuncs; i++) {
		const struct dep_function *f = &d->funcs[i];
		ix->keys[i].name = region_function_name(func_sig(f), &ix->keys[i].nparams);
		if (ix->keys[i].name)
			strip_templates(ix->keys[i].name);
		if (f->mangled)
			strmap_put(&ix->mangled, f->mangled, i);
		if (f->name && strmap_get(&ix->mangled, f->name) < 0 && !strncmp(f->name, "_Z", 2))
			strmap_put(&ix->mangled, f->name, i);
	}
	strmap_init(&ix->by_name);
	ix->chain = xmalloc(sizeof(int) * (size_t)(d->nfuncs + 1));
	for (int i = d->nfuncs - 1; i >= 0; i--) {
		ix->chain[i] = -1;
		if (!ix->keys[i].name)
			continue;
		ix->chain[i] = strmap_get(&ix->by_name, ix->keys[i].name);
		strmap_put(&ix->by_name, ix->keys[i].name, i);
	}
}

static void func_index_release(struct func_index *ix)
{
	for (int i = 0; i < ix->n; i++)
		free(ix->keys[i].name);
	free(ix->keys);
	free(ix->chain);
	strmap_release(&ix->by_name);
	strmap_release(&ix->mangled);
}

/* The function a region (call-path leaf) is, or -1 with *reason. */
static int match_leaf(const struct func_index *ix, const char *leaf, const char **reason)
{
	*reason = NULL;
	int best = strmap_get(&ix->mangled, leaf);
	if (best >= 0)
		return best;
	int np;
	char *qn = region_function_name(leaf, &np);
	if (qn)
		strip_templates(qn);
	int cand = 0, exact = 0, exact_idx = -1;
	for (int i = qn ? strmap_get(&ix->by_name, qn) : -1; i >= 0; i = ix->chain[i]) {
		cand++;
		if (np < 0 || ix->keys[i].nparams < 0 || ix->keys[i].nparams == np) {
			exact++;
			exact_idx = i;
		}
	}
	if (!qn)
		*reason = "no function name in the region name";
	else if (cand == 0)
		*reason = "no function of that name in the dependency file";
	else if (exact == 1)
		best = exact_idx;
	else if (exact == 0)
		*reason = "same name, different parameter count";
	else
		*reason = "ambiguous: several overloads with that parameter count";
	free(qn);
	return best;
}

static void add_unmatched(struct region_match *m, const char *leaf, const char *reason, size_t *alloc)
{
	XGROW(m->unmatched_regions, (size_t)m->nunmatched_regions + 1, *alloc);
	m->unmatched_reasons = xrealloc(m->unmatched_reasons, sizeof(char *) * (size_t)(m->nunmatched_regions + 1));
	m->unmatched_regions[m->nunmatched_regions] = xstrdup(leaf);
	m->unmatched_reasons[m->nunmatched_regions] = xstrdup(reason ? reason : "no match");
	m->nunmatched_regions++;
}

int region_match(struct region_match *m, const struct experiment *e, const struct deps *d,
		 struct perr *err)
{
	memset(m, 0, sizeof(*m));
	if (!e || !d)
		return perr_set(err, "region matching needs an experiment and a dependency file");
	m->ncallpaths = e->ncallpaths;
	m->func = xcalloc((size_t)e->ncallpaths + 1, sizeof(*m->func));
	struct func_index ix;
	func_index_init(&ix, d);
	char *used = xcalloc((size_t)d->nfuncs + 1, 1);
	struct strmap region_seen;      /* leaf -> matched function index, or -2 unmatched */
	strmap_init(&region_seen);
	size_t ua = 0, ra = 0;
	for (int c = 0; c < e->ncallpaths; c++) {
		const char *leaf = region_callpath_leaf(e->callpaths[c]);
		int got = strmap_get(&region_seen, leaf);
		if (got == -1) {
			const char *reason;
			got = match_leaf(&ix, leaf, &reason);
			if (got >= 0) {
				m->nmatched_regions++;
			} else {
				got = -2;
				add_unmatched(m, leaf, reason, &ra);
			}
			strmap_put(&region_seen, leaf, got);
		}
		if (got >= 0) {
			m->func[c] = &d->funcs[got];
			used[got] = 1;
		}
	}
	for (int i = 0; i < d->nfuncs; i++)
		if (!used[i]) {
			XGROW(m->unmatched_funcs, (size_t)m->nunmatched_funcs + 1, ua);
			m->unmatched_funcs[m->nunmatched_funcs++] = &d->funcs[i];
		}
	func_index_release(&ix);
	free(used);
	strmap_release(&region_seen);
	return 0;
}
