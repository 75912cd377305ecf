/* sptype.h -- the scratchpad as a type of the keyspace: its row in the type
 * table, its keys, and the parameters its values are written with.
 *
 * Why: the data structure (core/sp/sp.h) knows no server; the commands
 * (cmd_sp.c, cmd_sp_read.c) speak to clients. Between them, this is what the
 * keyspace, the log's replay and the commands share about a scratchpad key:
 * how it is freed, copied, measured and expired (its type row), how one is
 * created, and the thresholds and registries its content is compressed with
 * (keyspace/vcomp.h). No client, no command layer, no log: testable with the
 * keyspace alone. */
#ifndef SP_SPTYPE_H
#define SP_SPTYPE_H

#include <stddef.h>

#include "core/sp/sp.h"
#include "keyspace/db.h"

/* Register the scratchpad's row in the type table (keyspace/type.h). */
void sp_type_register(void);
/* The thresholds and chunk cache scratchpad content is written with now. */
sp_params sp_server_params(void);
/* Create key as an empty scratchpad (which must not exist) in d; sets *out to
 * its entry and returns the scratchpad. */
sp *sp_key_create(db *d, const char *key, size_t klen, dbent **out);
/* DEBUG LZ4-CORRUPT's scratchpad case: the compressed content of entry name of
 * scratchpad key ke, or NULL. */
struct lzval *sp_debug_lzval(dbent *ke, const char *name, size_t nlen);

#endif
