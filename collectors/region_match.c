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
		if (*r == '<' && !(r - s >= 8 && !strncmp(r - 8, "operator", 8)))
			depth++;
		else if (*r == '>' && depth > 0)
			depth--;
		else if (depth == 0)
			*w++ = *r;
	}
	*w = '\0';
}

char *region_function_name(const char *sig, int *nparams)
{
	size_t len = strlen(sig);
	while (len && isspace((unsigned char)sig[len - 1]))
		len--;
	/* find the parameter list: the last top-level "( ... )" */
	const char *close = NULL;
	for (size_t i = len; i-- > 0;)
		if (sig[i] == ')') {
			close = sig + i;
			break;
		}
	*nparams = -1;
	const char *open = NULL;
	if (close) {
		int depth = 0;
		for (const char *p = close; p >= sig; p--) {
			if (*p == ')')
				depth++;
			else if (*p == '(' && --depth == 0) {
				open = p;
				break;
			}
		}
		/* "void (*f(int))(double)" style returns are rare; take the first list at depth 0 instead
		 * when the text before `open` ends in ')' (a parenthesised declarator) */
	}
	const char *name_end = open ? open : sig + len;
	if (open) {
		/* count top-level commas */
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
		*nparams = any ? n + 1 : 0;
	}
	/* the name: back from name_end over identifier characters and template args */
	const char *e = name_end;
	while (e > sig && isspace((unsigned char)e[-1]))
		e--;
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

int region_match(struct region_match *m, const struct experiment *e, const struct deps *d,
		 struct perr *err)
{
	memset(m, 0, sizeof(*m));
	if (!e || !d)
		return perr_set(err, "region matching needs an experiment and a dependency file");
	m->ncallpaths = e->ncallpaths;
	m->func = xcalloc((size_t)e->ncallpaths + 1, sizeof(*m->func));
	struct fkey *keys = xcalloc((size_t)d->nfuncs + 1, sizeof(*keys));
	struct strmap mangled;
	strmap_init(&mangled);
	for (int i = 0; i < d->nfuncs; i++) {
		const struct dep_function *f = &d->funcs[i];
		keys[i].name = region_function_name(func_sig(f), &keys[i].nparams);
		if (keys[i].name)
			strip_templates(keys[i].name);
		if (f->mangled)
			strmap_put(&mangled, f->mangled, i);
		if (f->name && strmap_get(&mangled, f->name) < 0 && !strncmp(f->name, "_Z", 2))
			strmap_put(&mangled, f->name, i);
	}
	/* qualified name -> first function with it; chain[i] -> next one */
	struct strmap by_name;
	strmap_init(&by_name);
	int *chain = xmalloc(sizeof(int) * (size_t)(d->nfuncs + 1));
	for (int i = d->nfuncs - 1; i >= 0; i--) {
		chain[i] = -1;
		if (!keys[i].name)
			continue;
		chain[i] = strmap_get(&by_name, keys[i].name);
		strmap_put(&by_name, keys[i].name, i);
	}
	char *used = xcalloc((size_t)d->nfuncs + 1, 1);
	struct strmap region_seen;      /* leaf -> matched function index, or -2 unmatched */
	strmap_init(&region_seen);
	size_t ua = 0, ra = 0;
	for (int c = 0; c < e->ncallpaths; c++) {
		const char *leaf = region_callpath_leaf(e->callpaths[c]);
		int got = strmap_get(&region_seen, leaf);
		if (got == -1) {
			const char *reason = NULL;
			int best = strmap_get(&mangled, leaf);
			if (best < 0) {
				int np;
				char *qn = region_function_name(leaf, &np);
				if (qn)
					strip_templates(qn);
				int cand = 0, exact = 0, exact_idx = -1, any_idx = -1;
				for (int i = qn ? strmap_get(&by_name, qn) : -1; i >= 0; i = chain[i]) {
					cand++;
					any_idx = i;
					if (np < 0 || keys[i].nparams < 0 || keys[i].nparams == np) {
						exact++;
						exact_idx = i;
					}
				}
				if (!qn)
					reason = "no function name in the region name";
				else if (cand == 0)
					reason = "no function of that name in the dependency file";
				else if (exact == 1)
					best = exact_idx;
				else if (exact == 0)
					reason = "same name, different parameter count";
				else
					reason = "ambiguous: several overloads with that parameter count";
				(void)any_idx;
				free(qn);
			}
			if (best >= 0) {
				got = best;
				m->nmatched_regions++;
			} else {
				got = -2;
				XGROW(m->unmatched_regions, (size_t)m->nunmatched_regions + 1, ra);
				m->unmatched_reasons = xrealloc(m->unmatched_reasons,
							      sizeof(char *) * (size_t)(m->nunmatched_regions + 1));
				m->unmatched_regions[m->nunmatched_regions] = xstrdup(leaf);
				m->unmatched_reasons[m->nunmatched_regions] = xstrdup(reason ? reason : "no match");
				m->nunmatched_regions++;
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
	for (int i = 0; i < d->nfuncs; i++)
		free(keys[i].name);
	free(keys);
	free(chain);
	strmap_release(&by_name);
	free(used);
	strmap_release(&mangled);
	strmap_release(&region_seen);
	return 0;
}
