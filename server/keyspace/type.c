/* type.c -- the type table (see type.h). */
#include "keyspace/type.h"

#include <string.h>

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
