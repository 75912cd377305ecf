/* cmd_stream_int.h -- INTERNAL: what the files of the stream commands share.
 *
 * Why: the X* family is split by job: cmd_stream.c (the commands on a stream's
 * entries and ids: XADD, XTRIM, XLEN, XRANGE, XREVRANGE, XDEL, XSETID; and the
 * family's command table), cmd_xread.c (XREAD and XREADGROUP, blocking
 * included), cmd_xgroup.c (the consumer groups: XACK, XPENDING, XCLAIM,
 * XAUTOCLAIM, XGROUP, XINFO) and cmd_stream_common.c (the lookup, the parsing
 * of ids, the replies of entries and the effects all three use, so that they
 * answer and log alike). This header is their contract with each other; only
 * types/stream/cmd_*.c include it: the rest of the server sees the family
 * through cmd_table_stream (cmd/commands.h) alone.
 *
 * Conventions: Redis 7.0's replies, errors and id rules. A command parses,
 * calls the type's API (stream.h), replies, then signals the change: as Redis
 * 7.0.15, only a change of the entries (XADD, XDEL, XTRIM) or the key's
 * creation is the key modified (signal_key_changed: WATCH, waiters); a change
 * of groups, consumers, pending entries or XSETID's counters only counts as a
 * write (signal_key_written). A helper that returns int returns 0, or -1 after
 * it replied the error (when it was given a client). Nothing here allocates
 * what the caller must free; arguments (sarg) point into the client's request
 * and are valid while the command runs. */
#ifndef SP_CMD_STREAM_INT_H
#define SP_CMD_STREAM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/commands.h"
#include "core/xstream.h"
#include "keyspace/db.h"
#include "types/stream/stream.h"

/* The least and the greatest id: what "-" and "+" stand for. */
static const xs_id ID_MIN = {0, 0};
static const xs_id ID_MAX = {UINT64_MAX, UINT64_MAX};

/* ---- defined in cmd_stream_common.c: lookup and arguments ---- */

/* The stream at key into *out (NULL if the key is absent): 0, or -1 after
 * replying WRONGTYPE if it holds another type. write: looked up for a change
 * (db_lookup_write), else for a read (db_lookup: a hit or miss counted). */
int xc_lookup_stream(client *c, const sarg *key, int write, dbent **out);
/* Parse a into *id (Redis's streamGenericParseIDOrReply): "ms-seq", or "ms"
 * whose seq is missing_seq; "-" and "+" (ID_MIN, ID_MAX) unless strict. With
 * seq_given (may be NULL), "ms-*" is accepted too: *seq_given is 0 for it (the
 * seq is to be chosen), 1 otherwise. 0, or -1 with the invalid-id error
 * replied if c is not NULL (XCLAIM probes its ids with c NULL). */
int xc_parse_id(client *c, const sarg *a, uint64_t missing_seq, int strict, int *seq_given, xs_id *id);
/* An interval's bound into *id: "(" id, exclusive (*exclude 1, the id strict:
 * the caller moves it by one), else "-", "+" or an id (*exclude 0). 0, or -1
 * after replying. */
int xc_parse_interval(client *c, const sarg *a, uint64_t missing_seq, int *exclude, xs_id *id);
/* Whether argument a is the option word w (ASCII, case-insensitive). */
int xc_arg_is(const sarg *a, const char *w);

/* ---- defined in cmd_stream_common.c: replies ---- */

/* Reply id as a bulk string "ms-seq". */
void xc_reply_id(client *c, const xs_id *id);
/* Reply the entry iterator it is on (id and nf fields, as xs_next gave them)
 * as [id, [f, v, ...]]. */
void xc_reply_entry(client *c, xs_iter *it, const xs_id *id, uint64_t nf);
/* Reply the entries of s in [start, end] (count 0: all; rev: from end down)
 * as an array; returns how many. */
size_t xc_reply_range(client *c, const stream *s, const xs_id *start, const xs_id *end, size_t count, int rev);
/* Reply the entry id of s as [id, [f, v, ...]] if it is live: 1; else 0 and
 * nothing replied. */
int xc_reply_one(client *c, const stream *s, const xs_id *id);
/* 1 if the entry id of s is live, else 0. */
int xc_entry_exists(const stream *s, const xs_id *id);

/* ---- defined in cmd_stream_common.c: effects (cmd/propagate.h) ---- */

/* Add id ("ms-seq") as the next argument of the record being built. */
void xc_prop_id(const xs_id *id);
/* Log XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID: the
 * pending entry n as it is now (its consumer, delivery time and count). The
 * next four log nothing when no sink is on. */
void xc_prop_xclaim(client *c, const sarg *key, const xgroup *g, const xnack *n);
/* Log XACK key group id: g's pending entry id was dropped. */
void xc_prop_xack(client *c, const sarg *key, const xgroup *g, const xs_id *id);
/* Log XGROUP SETID key group id ENTRIESREAD n: g's last delivered id and
 * entries-read counter as they are now. */
void xc_prop_setid(client *c, const sarg *key, const xgroup *g);
/* Log XGROUP CREATECONSUMER key group consumer: cons was created in g. */
void xc_prop_createconsumer(client *c, const sarg *key, const xgroup *g, const xconsumer *cons);

/* ---- the handlers of cmd_stream.c's tables defined elsewhere ---- */

/* cmd_xread.c */
void cmd_xread(client *c);
void cmd_xreadgroup(client *c);
/* cmd_xgroup.c */
void cmd_xack(client *c);
void cmd_xpending(client *c);
void cmd_xclaim(client *c);
void cmd_xautoclaim(client *c);
void cmd_xgroup_create(client *c);
void cmd_xgroup_setid(client *c);
void cmd_xgroup_destroy(client *c);
void cmd_xgroup_createconsumer(client *c);
void cmd_xgroup_delconsumer(client *c);
void cmd_xgroup_help(client *c);
void cmd_xinfo_stream(client *c);
void cmd_xinfo_groups(client *c);
void cmd_xinfo_consumers(client *c);
void cmd_xinfo_help(client *c);

#endif
