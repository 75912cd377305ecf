/* vcomp.c -- the compression settings and registries every type shares (see vcomp.h). */
#include "keyspace/vcomp.h"

#include <string.h>

#include "core/lz/lzcache.h"
#include "core/lz/lzidle.h"
#include "core/lz/lzval.h"
#include "core/mem.h"
#include "core/util.h"

size_t vc_threshold = 4096;
size_t vc_chunk = 64 * 1024;
int vc_accel = 2;
size_t vc_accel_mem_limit;
long long vc_dict_delay = 5000;
static lzcache *vc_cache;
static lzidle *vc_idle;

int vc_write_accel(void)
{
    return vc_accel_mem_limit && mem_used() >= vc_accel_mem_limit ? 1 : vc_accel;
}

static lzcache *cache(void)
{
    if (!vc_cache)
        vc_cache = lzcache_new(8);
    return vc_cache;
}

lzcache *vc_lzcache(void)
{
    return cache();
}

void vc_drop_cache(void)
{
    lzcache_free(vc_cache);
    vc_cache = NULL;
}

size_t vc_cache_bytes(void)
{
    return lzcache_bytes(vc_cache);
}

/* ---- the background dictionary ----
 *
 * One registry for strings and scratchpad entries: a value is compressed
 * without a dictionary and registered, and vc_dict_step (the cron, and the
 * server's idle timer) converts the values that stayed unchanged for
 * vc_dict_delay ms. The registry outlives every value (it is never freed); its
 * clock is the monotonic one, in ms. */

static lzidle *idle_reg(void)
{
    if (!vc_idle) {
        vc_idle = lzidle_new();
        lzidle_clock(vc_idle, mono_us() / 1000);
    }
    return vc_idle;
}

lzidle *vc_lzidle(void)
{
    return vc_dict_delay < 0 ? NULL : idle_reg();
}

void vc_dict_adopt(lzval *v)
{
    if (vc_dict_delay >= 0 && !lzidle_registered(v))
        lzidle_adopt(idle_reg(), v);
}

size_t vc_dict_step(int64_t budget_us)
{
    int64_t start = mono_us(), now = start / 1000;
    size_t done = 0, k;

    if (!vc_idle)
        return 0;
    do {
        k = lzidle_step(vc_idle, now, vc_dict_delay, VC_DICT_STEP);
        done += k;
    } while (k > 0 && mono_us() - start < budget_us);
    return done;
}

void vc_dict_stats(lzidle_stats *st)
{
    if (vc_idle)
        lzidle_get_stats(vc_idle, st);
    else
        memset(st, 0, sizeof(*st));
}

int vc_dict_due(void)
{
    int64_t now = mono_us() / 1000, due = vc_idle ? lzidle_next_due(vc_idle, now, vc_dict_delay) : -1;

    return due >= 0 && due <= now;
}
