/* cmd_pubsub.c -- the pub/sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE,
 * PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB, with
 * Redis 7's replies. The subscriptions and the delivery are cmd/pubsub.c's. */
#include <string.h>

#include "cmd/commands.h"
#include "cmd/pubsub.h"
#include "core/util.h"
#include "net/reply.h"

static void subscribe_kind(client *c, int kind)
{
    int i;
    for (i = 1; i < c->argc; i++)
        ps_subscribe(c, kind, c->argv[i].p, c->argv[i].len);
}

static void unsubscribe_kind(client *c, int kind)
{
    int i;
    if (c->argc == 1) {
        ps_unsubscribe_all(c, kind, 1);
        return;
    }
    for (i = 1; i < c->argc; i++)
        ps_unsubscribe(c, kind, c->argv[i].p, c->argv[i].len);
}

static void cmd_subscribe(client *c)
{
    subscribe_kind(c, PS_CHANNEL);
}

static void cmd_unsubscribe(client *c)
{
    unsubscribe_kind(c, PS_CHANNEL);
}

static void cmd_psubscribe(client *c)
{
    subscribe_kind(c, PS_PATTERN);
}

static void cmd_punsubscribe(client *c)
{
    unsubscribe_kind(c, PS_PATTERN);
}

static void cmd_ssubscribe(client *c)
{
    subscribe_kind(c, PS_SHARD);
}

static void cmd_sunsubscribe(client *c)
{
    unsubscribe_kind(c, PS_SHARD);
}

static void cmd_publish(client *c)
{
    reply_int(c, ps_publish(PS_CHANNEL, c->argv[1].p, c->argv[1].len, c->argv[2].p, c->argv[2].len));
}

static void cmd_spublish(client *c)
{
    reply_int(c, ps_publish(PS_SHARD, c->argv[1].p, c->argv[1].len, c->argv[2].p, c->argv[2].len));
}

/* ---- PUBSUB ---- */

typedef struct list_ctx {
    client *c;
    const sarg *pat; /* NULL: every name */
    long n;
} list_ctx;

static void list_one(void *ctx, const char *name, size_t len)
{
    list_ctx *x = ctx;
    if (x->pat && !glob_match(x->pat->p, x->pat->len, name, len, 0))
        return;
    reply_bulk(x->c, name, len);
    x->n++;
}

static void list_names(client *c, int kind)
{
    list_ctx x = {c, c->argc == 3 ? &c->argv[2] : NULL, 0};
    void *slot;

    if (c->argc > 3) {
        reply_subcommand_syntax(c);
        return;
    }
    slot = reply_defer(c);
    ps_foreach(kind, list_one, &x);
    reply_defer_array(c, slot, x.n);
}

static void count_subscribers(client *c, int kind)
{
    int i;
    reply_array(c, (long)(c->argc - 2) * 2);
    for (i = 2; i < c->argc; i++) {
        reply_bulk(c, c->argv[i].p, c->argv[i].len);
        reply_int(c, ps_subscribers(kind, c->argv[i].p, c->argv[i].len));
    }
}

static void pubsub_channels(client *c)
{
    list_names(c, PS_CHANNEL);
}

static void pubsub_shardchannels(client *c)
{
    list_names(c, PS_SHARD);
}

static void pubsub_numsub(client *c)
{
    count_subscribers(c, PS_CHANNEL);
}

static void pubsub_shardnumsub(client *c)
{
    count_subscribers(c, PS_SHARD);
}

static void pubsub_numpat(client *c)
{
    reply_int(c, ps_count(PS_PATTERN));
}

static void pubsub_help(client *c)
{
    static const char *const lines[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL,
    };
    reply_help(c, lines);
}

#define PS_FLAGS (CMD_PUBSUB | CMD_LOADING | CMD_STALE)
/* clang-format off */
static const cmd_def pubsub_subcommands[] = {
    {.name = "channels", .proc = pubsub_channels, .arity = -2, .flags = PS_FLAGS, .group = "pubsub",
     .summary = "List active channels", .since = "2.8.0",
     .complexity = "O(N) where N is the number of active channels, and assuming constant time pattern matching "
                   "(relatively short channels and patterns)", .acl = "pubsub slow"},
    {.name = "numpat", .proc = pubsub_numpat, .arity = 2, .flags = PS_FLAGS, .group = "pubsub",
     .summary = "Get the count of unique patterns pattern subscriptions", .since = "2.8.0", .complexity = "O(1)",
     .acl = "pubsub slow"},
    {.name = "numsub", .proc = pubsub_numsub, .arity = -2, .flags = PS_FLAGS, .group = "pubsub",
     .summary = "Get the count of subscribers for channels", .since = "2.8.0",
     .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
     .acl = "pubsub slow"},
    {.name = "shardchannels", .proc = pubsub_shardchannels, .arity = -2, .flags = PS_FLAGS, .group = "pubsub",
     .summary = "List active shard channels", .since = "7.0.0",
     .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern "
                   "matching (relatively short shard channels).", .acl = "pubsub slow"},
    {.name = "shardnumsub", .proc = pubsub_shardnumsub, .arity = -2, .flags = PS_FLAGS, .group = "pubsub",
     .summary = "Get the count of subscribers for shard channels", .since = "7.0.0",
     .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
     .acl = "pubsub slow"},
    {.name = "help", .proc = pubsub_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "pubsub",
     .summary = "Show helpful text about the different subcommands", .since = "6.2.0", .complexity = "O(1)",
     .acl = "slow"},
    {0},
};

const cmd_def cmd_table_pubsub[] = {
    {.name = "subscribe", .proc = cmd_subscribe, .arity = -2, .flags = PS_FLAGS | CMD_NOSCRIPT, .group = "pubsub",
     .summary = "Listen for messages published to the given channels", .since = "2.0.0",
     .complexity = "O(N) where N is the number of channels to subscribe to.", .acl = "pubsub slow"},
    {.name = "unsubscribe", .proc = cmd_unsubscribe, .arity = -1, .flags = PS_FLAGS | CMD_NOSCRIPT,
     .group = "pubsub", .summary = "Stop listening for messages posted to the given channels", .since = "2.0.0",
     .complexity = "O(N) where N is the number of clients already subscribed to a channel.", .acl = "pubsub slow"},
    {.name = "psubscribe", .proc = cmd_psubscribe, .arity = -2, .flags = PS_FLAGS | CMD_NOSCRIPT, .group = "pubsub",
     .summary = "Listen for messages published to channels matching the given patterns", .since = "2.0.0",
     .complexity = "O(N) where N is the number of patterns the client is already subscribed to.",
     .acl = "pubsub slow"},
    {.name = "punsubscribe", .proc = cmd_punsubscribe, .arity = -1, .flags = PS_FLAGS | CMD_NOSCRIPT,
     .group = "pubsub", .summary = "Stop listening for messages posted to channels matching the given patterns",
     .since = "2.0.0",
     .complexity = "O(N+M) where N is the number of patterns the client is already subscribed and M is the number "
                   "of total patterns subscribed in the system (by any client).", .acl = "pubsub slow"},
    {.name = "publish", .proc = cmd_publish, .arity = 3, .flags = PS_FLAGS | CMD_FAST | CMD_MAY_REPLICATE,
     .group = "pubsub",
     .summary = "Post a message to a channel", .since = "2.0.0",
     .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total "
                   "number of subscribed patterns (by any client).", .acl = "pubsub fast"},
    {.name = "pubsub", .proc = cmd_container, .arity = -2, .group = "pubsub",
     .summary = "A container for Pub/Sub commands", .since = "2.8.0", .complexity = "Depends on subcommand.",
     .acl = "slow", .subcommands = pubsub_subcommands},
    {.name = "ssubscribe", .proc = cmd_ssubscribe, .arity = -2, .flags = PS_FLAGS | CMD_NOSCRIPT, KEYS(1, -1, 1),
     .group = "pubsub", .summary = "Listen for messages published to the given shard channels", .since = "7.0.0",
     .complexity = "O(N) where N is the number of shard channels to subscribe to.", .acl = "pubsub slow",
     .key_specs = "not_key"},
    {.name = "sunsubscribe", .proc = cmd_sunsubscribe, .arity = -1, .flags = PS_FLAGS | CMD_NOSCRIPT,
     KEYS(1, -1, 1), .group = "pubsub", .summary = "Stop listening for messages posted to the given shard channels",
     .since = "7.0.0", .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
     .acl = "pubsub slow", .key_specs = "not_key"},
    {.name = "spublish", .proc = cmd_spublish, .arity = 3, .flags = PS_FLAGS | CMD_FAST | CMD_MAY_REPLICATE,
     KEYS(1, 1, 1),
     .group = "pubsub", .summary = "Post a message to a shard channel", .since = "7.0.0",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     .acl = "pubsub fast", .key_specs = "not_key"},
    {0},
};
/* clang-format on */
