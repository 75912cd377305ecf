/* propagate.c -- effects to the sinks (see propagate.h). */
#include "cmd/propagate.h"

#include "keyspace/type.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROP_MAX_SINKS 4

static const prop_sink *sinks[PROP_MAX_SINKS];
static int nsinks;
int prop_on;
prop_log_admin prop_admin;
void (*prop_rewrite_state)(const struct effect_out *o);
unsigned prop_gen;

void prop_attach(const prop_sink *s)
{
    int i;

    prop_gen++;
    for (i = 0; i < nsinks; i++)
        if (sinks[i] == s)
            return;
    if (nsinks == PROP_MAX_SINKS) {
        fprintf(stderr, "propagate: more than %d sinks\n", PROP_MAX_SINKS);
        abort();
    }
    sinks[nsinks++] = s;
    prop_on = 1;
}

void prop_detach(const prop_sink *s)
{
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i] == s) {
            sinks[i] = sinks[--nsinks];
            break;
        }
    prop_on = nsinks > 0;
    prop_gen++;
}

void prop_begin(int dbid)
{
    int i;
    for (i = 0; i < nsinks; i++)
        sinks[i]->begin(dbid);
}

void prop_bytes(const void *p, size_t n)
{
    int i;
    for (i = 0; i < nsinks; i++)
        sinks[i]->arg(p, n);
}

void prop_str(const char *s)
{
    prop_bytes(s, strlen(s));
}

void prop_ll(long long v)
{
    char tmp[24], *p = tmp + sizeof(tmp);
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    prop_bytes(p, (size_t)(tmp + sizeof(tmp) - p));
}

void prop_lzval(const struct lzval *v)
{
    int i;
    for (i = 0; i < nsinks; i++)
        sinks[i]->arg_lzval(v);
}

void prop_end(void)
{
    int i;
    for (i = 0; i < nsinks; i++)
        sinks[i]->end();
}

void prop_del(int dbid, const char *key, size_t klen)
{
    prop_begin(dbid);
    prop_bytes("DEL", 3);
    prop_bytes(key, klen);
    prop_end();
}

void prop_argv(int dbid, int argc, const sarg *argv)
{
    int i;

    prop_begin(dbid);
    for (i = 0; i < argc; i++)
        prop_bytes(argv[i].p, argv[i].len);
    prop_end();
}

uint64_t prop_mark(void)
{
    uint64_t m = 0, x;
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i]->mark && (x = sinks[i]->mark()) > m)
            m = x;
    return m;
}

const char *prop_refusing(void)
{
    const char *why;
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i]->refusing && (why = sinks[i]->refusing()))
            return why;
    return NULL;
}

int prop_wants_keys(void)
{
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i]->wants_keys && *sinks[i]->wants_keys)
            return 1;
    return 0;
}

void prop_key(int dbid, const char *key, size_t klen)
{
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i]->wants_keys && *sinks[i]->wants_keys && sinks[i]->keyed)
            sinks[i]->keyed(dbid, key, klen);
}

void prop_keyless(const char *cmdname)
{
    int i;

    for (i = 0; i < nsinks; i++)
        if (sinks[i]->wants_keys && *sinks[i]->wants_keys && sinks[i]->keyless)
            sinks[i]->keyless(cmdname);
}

static void eo_prop_begin(void *ctx, int dbid)
{
    (void)ctx;
    prop_begin(dbid);
}

static void eo_prop_arg(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    prop_bytes(p, n);
}

static void eo_prop_lzval(void *ctx, const struct lzval *v)
{
    (void)ctx;
    prop_lzval(v);
}

static void eo_prop_end(void *ctx)
{
    (void)ctx;
    prop_end();
}

const effect_out prop_effects = {
    .begin = eo_prop_begin, .arg = eo_prop_arg, .arg_lzval = eo_prop_lzval, .end = eo_prop_end};
