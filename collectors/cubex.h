/*
 * A reader for Score-P's CUBE4 profiles (profile.cubex).  A .cubex file is
 * a tar archive holding anchor.xml (metrics, regions, the call tree of
 * cnodes, the system tree of locations) and, per metric with data, the
 * files <id>.index and <id>.data.  The index is dense or sparse; the data
 * is plain ("CUBEX.DATA") or zlib-compressed per row ("ZCUBEX.DATA").
 * Rows are stored in a per-metric cnode order: breadth-wise ("wide") for
 * inclusive metrics, depth-first for exclusive ones, by id for simple ones.
 *
 * The reader keeps the whole file in memory, parses the anchor at open and
 * decodes a metric's values on request, as stored, exclusive or inclusive.
 * Call paths use Extra-P's notation: region names joined with "->".
 *
 * Invariants after cubex_open: cnodes are in document (pre-order) order,
 * so a parent precedes its children; locations are in system-tree order,
 * which is the column order of the data files.
 */
#ifndef PS_CUBEX_H
#define PS_CUBEX_H
#include "collectors/measurement.h"
#include "common/error.h"
#include <stddef.h>

enum cubex_kind { CUBEX_EXCLUSIVE, CUBEX_INCLUSIVE, CUBEX_SIMPLE, CUBEX_DERIVED };
enum cubex_view { CUBEX_AS_STORED, CUBEX_EXCL, CUBEX_INCL };
enum cubex_aggr { CUBEX_MEAN, CUBEX_SUM, CUBEX_MAX, CUBEX_MIN };

struct cubex_metric {
	int id;                 /* names <id>.index and <id>.data */
	char *name;             /* uniq_name, e.g. "time" */
	char *disp_name;
	char *dtype;            /* "DOUBLE", "UINT64", ... as in the anchor */
	char *uom;
	enum cubex_kind kind;
	int has_data;           /* the archive holds its index and data */
};

struct cubex_region {
	int id;
	char *name;             /* demangled signature as Score-P wrote it */
	char *mangled;          /* NULL when absent */
	char *paradigm;         /* "compiler", "mpi", ... or NULL */
};

struct cubex_cnode {
	int id;                 /* the anchor's id */
	int region;             /* index into regions */
	int parent;             /* cnode index, -1 for a root */
	int nchildren;
	int *children;          /* cnode indices, document order */
	char *callpath;         /* "main->foo->bar" */
};

struct cubex_location {
	int id;
	int rank;               /* rank of its location group (MPI rank) */
	int thread;             /* rank of the location within the group */
};

struct cubex {
	char *path;
	int nmetrics;
	struct cubex_metric *metrics;
	int nregions;
	struct cubex_region *regions;
	int ncnodes;
	struct cubex_cnode *cnodes;
	int nlocations;
	struct cubex_location *locations;
	/* private */
	unsigned char *buf;
	size_t len;
	int nmembers;
	struct cubex_member { char *name; size_t off, size; } *members;
};

/* Open and parse a profile.  On failure c is released and err says why. */
int cubex_open(struct cubex *c, const char *path, struct perr *err);
/* The same from memory (the buffer is copied); name is used in messages. */
int cubex_open_mem(struct cubex *c, const char *name, const void *data, size_t len,
		   struct perr *err);
void cubex_release(struct cubex *c);

/* Metric index by uniq_name (or display name), or -1. */
int cubex_find_metric(const struct cubex *c, const char *name);

/*
 * Decode one metric: *values gets ncnodes x nlocations doubles (row-major by
 * cnode index, then location), which the caller frees.  A metric without
 * data yields zeros.  Exclusive values of an inclusive metric are the
 * cnode's value minus its children's, child by child, as Extra-P does.
 */
int cubex_read_metric(const struct cubex *c, int metric, enum cubex_view view, double **values,
		      struct perr *err);

/*
 * Aggregate n values.  Sums use NumPy's pairwise summation so that the mean
 * equals Extra-P's (numpy.mean) bit for bit.
 */
double cubex_aggregate(const double *v, int n, enum cubex_aggr a);
/* "mean", "sum", "max", "min" -> the enum, or -1. */
int cubex_aggr_parse(const char *s);
const char *cubex_aggr_name(enum cubex_aggr a);

/*
 * Per call path and metric, the value aggregated over locations, appended to
 * out with rank -1 (call paths that occur twice, e.g. through two call
 * sites, add up per location first).  metrics NULL means "time" and
 * "visits".  Time-like metrics are exclusive (Extra-P's convention).  When
 * per_rank is set, each location's value is appended too, with its rank.
 */
int cubex_collect(const struct cubex *c, char *const *metrics, int nmetrics, enum cubex_aggr aggr,
		  int per_rank, struct measurement_list *out, struct perr *err);

#endif
