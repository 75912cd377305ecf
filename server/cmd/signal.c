/* signal.c -- "a key changed", told to everyone who listens (see signal.h). */
#include "cmd/signal.h"

#include "cmd/block.h"
#include "cmd/multi.h"
#include "cmd/propagate.h"
#include "cmd/pubsub.h"
#include "cmd/tracking.h"
#include "core/mem.h"
#include "core/util.h"
#include "server.h"

#include <stdio.h>
#include <string.h>

void signal_key_changed(db *d, const char *key, size_t klen)
{
    srv.dirty++;
    multi_touch_key(d, key, klen);
    blk_key_ready(d, key, klen);
    if (tracking_clients > 0)
        tracking_invalidate(key, klen, srv.current);
}

void signal_key_written(db *d, const char *key, size_t klen)
{
    (void)d;
    (void)key;
    (void)klen;
    srv.dirty++;
}

void signal_key_expired(db *d, const char *key, size_t klen)
{
    srv.stat_expired_keys++;
    multi_touch_key(d, key, klen);
    signal_event(d, NOTIFY_EXPIRED, "expired", key, klen);
    if (tracking_clients > 0)
        tracking_invalidate(key, klen, NULL);
    if (prop_on)
        prop_del(d->id, key, klen);
}

void signal_key_evicted(db *d, const char *key, size_t klen)
{
    multi_touch_key(d, key, klen);
    if (tracking_clients > 0)
        tracking_invalidate(key, klen, NULL);
    if (prop_on)
        prop_del(d->id, key, klen);
    signal_event(d, NOTIFY_EVICTED, "evicted", key, klen);
}

void signal_db_flushed(db *d)
{
    static long long flush_cmd = -1; /* FLUSHALL flushes every database: one null invalidation */

    multi_touch_db(d);
    blk_db_flushed(d);
    if (tracking_clients > 0 && flush_cmd != srv.stat_commands) {
        flush_cmd = srv.stat_commands;
        tracking_flush();
    }
}

void signal_db_swapped(db *a, db *b)
{
    multi_touch_swap(a, b);
    blk_db_swapped(a, b);
}

/* ---- keyspace notifications ---- */

static const struct {
    char letter;
    int flag;
} notify_letters[] = {
    {'g', NOTIFY_GENERIC},  {'$', NOTIFY_STRING},   {'l', NOTIFY_LIST},     {'s', NOTIFY_SET},
    {'h', NOTIFY_HASH},     {'z', NOTIFY_ZSET},     {'x', NOTIFY_EXPIRED},  {'e', NOTIFY_EVICTED},
    {'t', NOTIFY_STREAM},   {'d', NOTIFY_MODULE},   {'n', NOTIFY_NEW},      {'p', NOTIFY_SCRATCHPAD},
    {'K', NOTIFY_KEYSPACE}, {'E', NOTIFY_KEYEVENT}, {'m', NOTIFY_KEY_MISS}, {0, 0},
};

int notify_flags_parse(const char *s, int *flags)
{
    int f = 0, i;

    for (; *s; s++) {
        if (*s == 'A') {
            f |= NOTIFY_ALL;
            continue;
        }
        for (i = 0; notify_letters[i].letter && notify_letters[i].letter != *s; i++)
            ;
        if (!notify_letters[i].letter)
            return -1;
        f |= notify_letters[i].flag;
    }
    *flags = f;
    return 0;
}

void notify_flags_format(int flags, char *buf)
{
    size_t n = 0;
    int i;

    /* Redis prints A for the whole class set and then leaves n out. */
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL)
        buf[n++] = 'A';
    for (i = 0; notify_letters[i].letter; i++) {
        int f = notify_letters[i].flag;
        if (!(flags & f))
            continue;
        if ((f & NOTIFY_ALL) && (flags & NOTIFY_ALL) == NOTIFY_ALL)
            continue;
        if (f == NOTIFY_NEW && (flags & NOTIFY_ALL) == NOTIFY_ALL)
            continue;
        buf[n++] = notify_letters[i].letter;
    }
    buf[n] = '\0';
}

static void publish_prefixed(const char *prefix, int dbid, const char *name, size_t nlen, const char *msg, size_t mlen)
{
    char small[256], *chan = small;
    int hl;
    size_t need = 32 + strlen(prefix) + nlen;

    if (need > sizeof(small))
        chan = xmalloc(need);
    hl = snprintf(chan, need, "__%s@%d__:", prefix, dbid);
    memcpy(chan + hl, name, nlen);
    ps_publish(PS_CHANNEL, chan, (size_t)hl + nlen, msg, mlen);
    if (chan != small)
        xfree(chan);
}

void signal_event(db *d, int cls, const char *event, const char *key, size_t klen)
{
    int flags = srv.cfg.notify_keyspace_events;
    size_t elen;

    if (!(flags & cls) || !(flags & (NOTIFY_KEYSPACE | NOTIFY_KEYEVENT)) || !ps_any_listener())
        return;
    elen = strlen(event);
    if (flags & NOTIFY_KEYSPACE)
        publish_prefixed("keyspace", d->id, key, klen, event, elen);
    if (flags & NOTIFY_KEYEVENT)
        publish_prefixed("keyevent", d->id, event, elen, key, klen);
}

void signal_key_new(db *d, const char *key, size_t klen)
{
    signal_event(d, NOTIFY_NEW, "new", key, klen);
}

void signal_key_miss(db *d, const char *key, size_t klen)
{
    signal_event(d, NOTIFY_KEY_MISS, "keymiss", key, klen);
}

void signal_entries_expired(db *d, const char *key, size_t klen)
{
    signal_event(d, NOTIFY_SCRATCHPAD, "sp.expired", key, klen);
}
