/* list.h -- the list type: its API over the quicklist and its row in the type table.
 *
 * A list value is a quicklist (core/quicklist.h) behind the entry's pointer
 * (ENC_PTR); OBJECT ENCODING answers "quicklist" at every size, as Redis 7.0
 * does (its listpack-encoded small lists came in 7.2). Commands reach the
 * elements through the quicklist's positions; this layer creates a list key,
 * deletes one that became empty, and keeps the node settings.
 *
 * The settings: list_fill is list-max-listpack-size (a negative value -1..-5
 * caps a node at 4..64 KB, a positive one its element count), applied to new
 * nodes of every list; list_compress_depth is list-compress-depth, the nodes
 * kept raw at each end of a list (the others are stored LZ4-compressed, 0:
 * none; quicklist.h, ql_set_compress). Both apply to a list when a command
 * changes it. */
#ifndef SP_LIST_H
#define SP_LIST_H

#include <stddef.h>

#include "core/quicklist.h"
#include "keyspace/db.h"

extern int list_fill;
extern int list_compress_depth;

/* The quicklist of list entry e. */
static inline quicklist *list_ql(const dbent *e) { return dbent_ptr(e); }
/* A new empty list under key (which must not exist in d); returns its entry.
 * The caller pushes at least one element before the command ends. */
dbent *list_create(db *d, const char *key, size_t klen);
/* Delete e's key if its list is empty: 1 if deleted, else 0. */
int list_drop_if_empty(db *d, dbent *e);

/* Register the list's row in the type table (keyspace/type.h). */
void list_type_register(void);

#endif
