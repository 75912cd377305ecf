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
/* The _SPENTRY arguments after the command name for entry e of s at key ns:
 * its full state (docs/aof.md), content in the chunks it is stored in. The
 * commands propagate it after a change; the rewrite writes it. */
struct effect_out;
void sp_entry_effect_args(const struct effect_out *o, const char *ns, size_t nslen, const sp *s, const sp_entry *e);

#endif
