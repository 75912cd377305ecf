/* cmd_zset_int.h -- what the sorted set commands' files share (internal:
 * included by cmd_zset.c, cmd_zset_ops.c and cmd_geo.c, the geo commands,
 * which are a view of sorted sets, only). */
#ifndef SP_CMD_ZSET_INT_H
#define SP_CMD_ZSET_INT_H

#include "net/client.h"
#include "server.h"
#include "types/zset/zset.h"

/* The sorted set at key for reading or writing: 0 with *out (NULL if absent),
 * or -1 after replying WRONGTYPE. */
int zc_lookup(client *c, const sarg *key, int write, dbent **out);
/* argv[i] as a long long (Redis's getLongFromObjectOrReply): 0, or -1 after
 * replying msg (NULL: "value is not an integer or out of range"). */
int zc_arg_long(client *c, int i, long long *out, const char *msg);
/* One member of a reply: the member, then with withscores its score (a pair
 * in RESP3). */
void zc_reply_member(client *c, const char *m, size_t len, double score, int withscores);
/* The header of a reply of n members (2n entries in RESP2 with scores). */
void zc_reply_members_len(client *c, long n, int withscores);
/* Store acc (taken over) under dst, replacing what it held, and reply its
 * size; an empty acc deletes dst and replies 0. */
void zc_store_result(client *c, const sarg *dst, zs_acc *acc, const char *event);

/* The handlers of cmd_zset_ops.c. */
void cmd_zrandmember(client *c);
void cmd_zunion(client *c);
void cmd_zinter(client *c);
void cmd_zdiff(client *c);
void cmd_zunionstore(client *c);
void cmd_zinterstore(client *c);
void cmd_zdiffstore(client *c);
void cmd_zintercard(client *c);
void cmd_zscan(client *c);

#endif
