/* dump_int.h -- what DUMP and RESTORE's files share (cmd_dump.c, the plain
 * types; cmd_dump_stream.c, streams and the types Redis does not have). */
#ifndef SP_DUMP_INT_H
#define SP_DUMP_INT_H

#include "core/rdbval.h"
#include "keyspace/db.h"
#include "net/client.h"

/* The RDB_TYPE_STREAM_LISTPACKS_2 form of the stream e into o. */
void dump_stream(const dbent *e, rdb_out *o);
/* A value of a type Redis does not have (a scratchpad) as RDB_TYPE_SCRATCHPAD:
 * 0, or -1 with *why (a compressed value that does not decode). */
int dump_own(const dbent *e, rdb_out *o, const char **why);
/* Build under key in d the stream (type 15 or 19) / the RDB_TYPE_SCRATCHPAD
 * value at *p (before end): 0, or -1 if malformed (what was built stays in d). */
int load_stream(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end);
int load_own(db *d, const sarg *key, const unsigned char **p, const unsigned char *end);

#endif
