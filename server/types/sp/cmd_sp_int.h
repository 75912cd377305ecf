/* cmd_sp_int.h -- INTERNAL: what the files of the SP.* commands share.
 *
 * Why: the SP.* family is split by job: cmd_sp.c (the commands that change a
 * scratchpad, and the family's command table), cmd_sp_read.c (the commands that
 * read one), cmd_sp_grep.c (SP.GREP) and cmd_sp_common.c (the lookups, checks
 * and replies all three use, so that they answer alike). This header is their
 * contract with each other; only types/sp/cmd_sp*.c include it: the rest of the
 * server sees the family through cmd_table_sp (cmd/commands.h) alone.
 *
 * Conventions: every helper works on the command being run by client c, whose
 * argv[1] is the scratchpad's key and argv[2], where a helper reads it, an
 * entry's name. A helper that fails has replied already (an error, or nil where
 * GET would answer nil), so the command only returns. Pointers returned into a
 * scratchpad stay valid until the scratchpad changes; nothing here allocates
 * what the caller must free. */
#ifndef SP_CMD_SP_INT_H
#define SP_CMD_SP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/commands.h"
#include "core/sp/sp.h"
#include "keyspace/db.h"

/* The rule of entry names, as error replies state it. */
#define NAME_RULE "names are 1 to 255 bytes of A-Z a-z 0-9 _ - . : / with no empty, '.' or '..' path segment"
/* The reply when a compressed chunk of an entry does not decode. */
#define ERR_CORRUPT "ERR entry is corrupt: a compressed chunk failed to decompress"
/* Characters of head and of tail in a preview (SP.PEEK's default, SP.OFFLOAD's). */
#define PEEK_DEFAULT 500

/* ---- defined in cmd_sp_common.c: lookups ---- */

/* The scratchpad at argv[1] for reading (a keyspace hit or miss is counted), or
 * NULL: absent (*replied = 0, nothing sent) or of another type (*replied = 1,
 * WRONGTYPE sent). *out (if out is not NULL) gets its key's entry, or NULL.
 * Entries due to expire were removed by the lookup. */
sp *spc_ns_read(client *c, dbent **out, int *replied);
/* As spc_ns_read, for a command about to change the scratchpad: no hit or miss
 * counted; out must not be NULL. */
sp *spc_ns_write(client *c, dbent **out, int *replied);
/* The entry named by argv[2] of the scratchpad at argv[1], for reading, or NULL
 * after a reply was sent: the invalid-name error, WRONGTYPE, or nil for a
 * missing entry or scratchpad (as GET on a missing key). */
sp_entry *spc_entry_for_read(client *c);
/* The entry named by argv[2] for the TTL commands (write: looked up as by
 * spc_ns_write, else as by spc_ns_read), or NULL: absent (*replied = 0, nothing
 * sent) or after an error reply (*replied = 1). *sp_out gets the scratchpad
 * (NULL if absent), *ke its key's entry. */
sp_entry *spc_ttl_target(client *c, dbent **ke, sp **sp_out, int write, int *replied);

/* ---- defined in cmd_sp_common.c: checks and options ---- */

/* 0 if name is a valid entry name; else replies the error that shows the name
 * (escaped, cut at 2 x SP_NAME_MAX bytes) and NAME_RULE, and returns -1. */
int spc_check_name(client *c, const sarg *name);
/* Whether argument a is the option word w (ASCII, case-insensitive). */
int spc_arg_is(const sarg *a, const char *w);
/* Parse argv[i] into *out as an integer that must not be negative (what: the
 * option's name in the error). 0, or -1 after replying. */
int spc_arg_nonneg(client *c, int i, const char *what, long long *out);

/* ---- defined in cmd_sp_common.c: fences, leases and the feed ---- */

/* A FENCE resource token option (docs/commands.md). */
typedef struct spc_fence {
    int given;
    const sarg *res;
    uint64_t token;
} spc_fence;

/* If the last three arguments are FENCE resource token and argc leaves at
 * least min arguments before them, fill *f and return argc - 3: the arguments
 * the command parses end there. Else f->given = 0 and return argc (always
 * while the log is replayed: its records carry no fence). -1 after replying an
 * error (a malformed resource or token). */
int spc_fence_parse(client *c, int min, spc_fence *f);
/* Whether f (if given) is the current, unexpired grant of its lease in s
 * (NULL: no scratchpad) at db_now: 0, or -1 after replying -FENCED. */
int spc_fence_check(client *c, const sp *s, const spc_fence *f);
/* 0 if a is a valid resource or holder name (1..255 bytes, printable ASCII
 * without spaces); else replies an error naming what and returns -1. */
int spc_check_lease_name(client *c, const sarg *a, const char *what);
/* Record in s's feed that client c changed entry name (e: its new state, NULL
 * if deleted), and log the change after the command's effect; nothing while
 * the log is being replayed (the log's own _SPCHANGE records rebuild the feed). */
void spc_note(client *c, sp *s, int op, const char *name, size_t nlen, const sp_entry *e);

/* ---- defined in cmd_sp_common.c: replies ---- */

/* "text" or "binary": e's kind as replies name it (a static string). */
const char *spc_kind_name(const sp_entry *e);
/* Reply bytes [b0, b1) of e (b0 <= b1 <= e->size) as a bulk string, or
 * ERR_CORRUPT if a chunk does not decode. */
void spc_reply_entry_bytes(client *c, const sp_entry *e, size_t b0, size_t b1);
/* Reply the preview of e: a text entry whole if it has at most head + tail
 * characters, else its first head and last tail characters around a line
 * "[... N characters omitted ...]"; a binary entry as "[BINARY: N bytes,
 * sha256=...]" (the digest is computed once and kept in e). ERR_CORRUPT if a
 * chunk does not decode. */
void spc_reply_preview(client *c, sp_entry *e, size_t head, size_t tail);

/* ---- the handlers of cmd_sp.c's table defined elsewhere ---- */

/* cmd_sp_read.c */
void cmd_sp_read(client *c);
void cmd_sp_range(client *c);
void cmd_sp_list(client *c);
void cmd_sp_stat(client *c);
void cmd_sp_info(client *c);
void cmd_sp_peek(client *c);
void cmd_sp_ttl(client *c);
void cmd_sp_pttl(client *c);
/* cmd_sp_grep.c */
void cmd_sp_grep(client *c);
/* cmd_sp_coord.c */
void cmd_sp_lease(client *c);
void cmd_sp_release(client *c);
void cmd_sp_leases(client *c);
void cmd_sp_changes(client *c);
/* cmd_sp_snap.c */
void cmd_sp_snapshot(client *c);
void cmd_sp_snapshots(client *c);
void cmd_sp_restore(client *c);
void cmd_sp_dropsnapshot(client *c);
void cmd_sp_diff(client *c);
void cmd_sp_fork(client *c);
/* cmd_sp_hist.c */
void cmd_sp_history(client *c);
void cmd_sp_revert(client *c);

#endif
