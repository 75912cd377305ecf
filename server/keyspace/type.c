/* type.c -- the type table (see type.h). */
#include "keyspace/type.h"

#include <stdio.h>
#include <string.h>

#include "core/lz/lzval.h"

const type_def *type_table[OBJ_NTYPES];
const effect_out *type_effects;
const int *type_effects_on;

void type_register(int type, const type_def *t)
{
    type_table[type] = t;
}

void eo_str(const effect_out *o, const char *s)
{
    o->arg(o->ctx, s, strlen(s));
}

void eo_ll(const effect_out *o, long long v)
{
    char tmp[24], *p = tmp + sizeof(tmp);
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    o->arg(o->ctx, p, (size_t)(tmp + sizeof(tmp) - p));
}

int type_verify_lz(const lzval *v, int dbid, const dbent *e, const char *part, size_t plen, char *why,
                   size_t whylen)
{
    size_t i, blk;
    int kl = dbent_klen(e) > 200 ? 200 : (int)dbent_klen(e);

    for (i = 0; i < lzval_nchunks(v); i++) {
        if (lzval_chunk_verify(v, i, &blk) == 0)
            continue;
        snprintf(why, whylen, "key '%.*s' (db %d)%s%.*s%s, chunk %zu of %zu (sub-block %zu): its stored bytes "
                 "fail their checksum (damaged in memory), so the log is not rewritten",
                 kl, dbent_key(e), dbid, part ? ", entry '" : "", part ? (int)plen : 0, part ? part : "",
                 part ? "'" : "", i, lzval_nchunks(v), blk);
        return -1;
    }
    return 0;
}
