/*
 * The backend registry: one table of the backends this perfsweep has, the
 * default first.  A new backend is a folder orchestrator/<name>/ that
 * defines backend_<name>_entry, a row here, and <name> in the Makefile's
 * BACKENDS.
 */
#include "orchestrator/backend.h"
#include "campaign/config_get.h"
#include "common/strbuf.h"
#include <string.h>

extern const struct backend_entry backend_local_entry, backend_slurm_entry;

static const struct backend_entry *const backends[] = {
	&backend_local_entry,
	&backend_slurm_entry,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct backend_entry *backend_find(const char *name)
{
	for (size_t i = 0; name && i < NBACKENDS; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const struct backend_entry *backend_for_config(const struct campaign_config *c, struct perr *err)
{
	const struct backend_entry *be = backend_find(c->backend.type);
	if (!be) {
		struct strbuf names;
		strbuf_init(&names);
		for (size_t i = 0; i < NBACKENDS; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "", backends[i]->name);
		config_error_at(c, "backend", err, "unknown backend '%s' (there are %s); write backend = "
				"\"%s\"; or backend = { type = \"%s\"; ... };", c->backend.type, names.buf,
				backends[0]->name, backends[NBACKENDS - 1]->name);
		strbuf_release(&names);
		return NULL;
	}
	return be->check_config && be->check_config(c, err) ? NULL : be;
}
