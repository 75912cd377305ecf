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
#include "core/sp/spco.h"
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
/* The entry's metadata as field value ... arguments (none if it has none):
 * the end of _SPENTRY, _SPSNAPENTRY, _SPHISTENTRY and _SPMETA (docs/aof.md). */
void sp_meta_effect_args(const struct effect_out *o, const sp_entry *e);

/* ---- leases and the change feed (core/sp/spco.h) ----
 *
 * A scratchpad key exists while it has entries or leases (sp_key_settle
 * deletes it otherwise); its retained changes alone do not keep it. Its token
 * and change counters start, when first used, above every number this server
 * gave out or loaded (any scratchpad) and above the creation time in ms x 1000,
 * so a scratchpad deleted and created again under the same name never gives a
 * token or change number of its earlier life again (it would take over 1000
 * grants or changes per ms of that life to catch up with the clock). */

/* sp-changes-max-len: changes each scratchpad retains. */
extern long long sp_changes_max_len;
/* sp-history-depth: the versions of each entry kept before its live one. */
extern long long sp_history_depth;
/* Keep entry e (its new state, NULL if deleted) of s in its history after a
 * change by op (sp_hist_note at sp_history_depth). An append to a compressed
 * entry drops the entry's history instead: keeping the version before would
 * make every append copy the compressed content (content is shared whole, not
 * by chunk), and an appended log's earlier versions are its prefixes. */
void sp_history_note(sp *s, sp_entry *e, const char *name, size_t nlen, int op, int64_t time, const char *client,
                     size_t clen);
/* s's leases and feed, created (with fresh counters) on first use. */
spco *sp_co(sp *s);
/* The earliest time a part of s is due: an entry's expiry or a lease's, or -1. */
int64_t sp_next_due(sp *s);
/* After a change to s at key ke of d: delete the key if it holds neither
 * entries nor leases (returns 1; s is freed), else keep its sub-expiry exact
 * (returns 0). */
int sp_key_settle(db *d, dbent *ke, sp *s);
/* Record a change of entry name in s's feed at time now by client name
 * client[0..clen) (may be NULL): its version and size from e, 0 and 0 when e is
 * NULL (deleted). When o is not NULL, also writes the _SPCHANGE effect that
 * replays it (docs/aof.md). Returns its number. */
uint64_t sp_change_note(const struct effect_out *o, int dbid, const char *ns, size_t nslen, sp *s, int op,
                        const char *name, size_t nlen, const sp_entry *e, const char *client, size_t clen, int64_t now);
/* A token or change number v was given out: later scratchpads start above it. */
void sp_counter_seen(uint64_t v);
/* The _SPLEASE effect of lease l of the scratchpad at ns (its exact state). */
void sp_lease_effect(const struct effect_out *o, int dbid, const char *ns, size_t nslen, const sp_lease *l);

#endif
