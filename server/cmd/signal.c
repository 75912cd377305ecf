/* signal.c -- "a key changed", told to everyone who listens (see signal.h). */
#include "cmd/signal.h"

#include "cmd/block.h"
#include "cmd/multi.h"
#include "cmd/propagate.h"
#include "server.h"

void signal_key_changed(db *d, const char *key, size_t klen)
{
    srv.dirty++;
    multi_touch_key(d, key, klen);
    blk_key_ready(d, key, klen);
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
    if (prop_on)
        prop_del(d->id, key, klen);
}

void signal_key_evicted(db *d, const char *key, size_t klen)
{
    /* The keyspace notification "evicted" goes here when notifications exist. */
    multi_touch_key(d, key, klen);
    if (prop_on)
        prop_del(d->id, key, klen);
}

void signal_db_flushed(db *d)
{
    multi_touch_db(d);
    blk_db_flushed(d);
}

void signal_db_swapped(db *a, db *b)
{
    multi_touch_swap(a, b);
    blk_db_swapped(a, b);
}
