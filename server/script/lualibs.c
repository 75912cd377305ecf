/* lualibs.c -- struct and cmsgpack for scripts (see lualibs.h).
 *
 * Both build their output in a luaL_Buffer or read from a Lua string with
 * every length checked against what is left; neither keeps state between
 * calls. Errors are raised with luaL_error / luaL_argerror as the libraries
 * document them. */
#include "script/lualibs.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "core/util.h"

/* ---- struct ---- */

static int bad_option(lua_State *L, char opt)
{
    return luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
}

#define STRUCT_MAXINTSIZE 32
#define STRUCT_MAXALIGN 8

typedef struct fmt_state {
    int little;   /* endianness of what follows */
    int maxalign; /* '!' */
} fmt_state;

static int fmt_digit(int c)
{
    return c >= '0' && c <= '9';
}

static size_t fmt_num(const char **f, size_t dflt)
{
    size_t n = 0;
    if (!fmt_digit(**f))
        return dflt;
    do {
        n = n * 10 + (size_t)(*(*f)++ - '0');
    } while (fmt_digit(**f) && n < (SIZE_MAX - 9) / 10);
    return n;
}

/* The size of the option at *f (moved past it and its number), 0 for
 * options of no size. */
static size_t opt_size(lua_State *L, char opt, const char **f)
{
    switch (opt) {
    case 'B':
    case 'b':
        return 1;
    case 'H':
    case 'h':
        return sizeof(short);
    case 'L':
    case 'l':
        return sizeof(long);
    case 'T':
        return sizeof(size_t);
    case 'f':
        return sizeof(float);
    case 'd':
        return sizeof(double);
    case 'x':
        return 1;
    case 'c':
        return fmt_num(f, 1);
    case 'i':
    case 'I': {
        size_t sz = fmt_num(f, sizeof(int));
        if (sz > STRUCT_MAXINTSIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", (int)sz, STRUCT_MAXINTSIZE);
        return sz;
    }
    default:
        return 0;
    }
}

/* Padding before an item of size sz at offset len. */
static size_t opt_pad(const fmt_state *h, size_t len, size_t sz, char opt)
{
    size_t align = sz;
    if (opt == 'c' || opt == 's')
        return 0;
    if (align <= 1 || h->maxalign <= 1)
        return 0;
    if (align > (size_t)h->maxalign)
        align = (size_t)h->maxalign;
    if ((align & (align - 1)) != 0)
        return 0;
    return (align - (len & (align - 1))) & (align - 1);
}

/* Options that change the state: '<', '>', '=', '!', ' '. 1 if opt was one. */
static int fmt_control(lua_State *L, char opt, const char **f, fmt_state *h)
{
    switch (opt) {
    case ' ':
        return 1;
    case '>':
        h->little = 0;
        return 1;
    case '<':
        h->little = 1;
        return 1;
    case '!': {
        size_t a = fmt_num(f, STRUCT_MAXALIGN);
        if ((a & (a - 1)) != 0)
            luaL_error(L, "alignment %d is not a power of 2", (int)a);
        h->maxalign = (int)a;
        return 1;
    }
    default:
        return 0;
    }
}

/* The integer as redis-server's struct.pack writes it: a negative n through
 * long long, any other through unsigned long long (2^63 and above kept), both
 * converted as its build does (util.h: out of range gives 2^63's bit pattern,
 * without undefined behaviour); bytes past the eighth are 0. */
static void put_int(luaL_Buffer *b, lua_Number n, int little, size_t size)
{
    unsigned char buf[STRUCT_MAXINTSIZE];
    uint64_t u = n < 0 ? (uint64_t)dbl_to_ll_x86(n) : dbl_to_ull_x86(n);
    size_t i;

    for (i = 0; i < size; i++) {
        buf[little ? i : size - 1 - i] = (unsigned char)(i < 8 ? u & 0xff : 0);
        if (i < 8)
            u >>= 8;
    }
    luaL_addlstring(b, (const char *)buf, size);
}

static void put_bytes(luaL_Buffer *b, const void *p, size_t n, int little)
{
    const unsigned char *s = p;
    size_t i;
    if (little)
        luaL_addlstring(b, (const char *)s, n);
    else
        for (i = 0; i < n; i++)
            luaL_addchar(b, (char)s[n - 1 - i]);
}

static int l_struct_pack(lua_State *L)
{
    luaL_Buffer b;
    const char *f = luaL_checkstring(L, 1);
    fmt_state h = {1, 1};
    int arg = 2;
    size_t total = 0;

    lua_pushnil(L); /* a missing argument is this nil ("got nil"), as Redis's struct */
    luaL_buffinit(L, &b);
    while (*f) {
        char opt = *f++;
        size_t size, pad;
        if (fmt_control(L, opt, &f, &h))
            continue;
        size = opt_size(L, opt, &f);
        pad = opt_pad(&h, total, size, opt);
        while (pad-- > 0) {
            luaL_addchar(&b, '\0');
            total++;
        }
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I':
            put_int(&b, luaL_checknumber(L, arg++), h.little, size);
            break;
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float v = (float)luaL_checknumber(L, arg++);
            put_bytes(&b, &v, sizeof(v), h.little);
            break;
        }
        case 'd': {
            double v = luaL_checknumber(L, arg++);
            put_bytes(&b, &v, sizeof(v), h.little);
            break;
        }
        case 'c':
        case 's': {
            size_t l;
            const char *s = luaL_checklstring(L, arg, &l);
            if (size == 0)
                size = l;
            luaL_argcheck(L, l >= size, arg + 1, "string too short"); /* Redis names the argument after it */
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_argcheck(L, strlen(s) == l, arg + 1, "string contains zeros");
                luaL_addchar(&b, '\0');
                size++;
            }
            arg++;
            break;
        }
        default:
            bad_option(L, opt);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

static lua_Number get_int(const unsigned char *p, int little, int is_signed, size_t size)
{
    uint64_t u = 0;
    size_t i, n = size > 8 ? 8 : size;

    for (i = 0; i < n; i++)
        u |= (uint64_t)p[little ? i : size - 1 - i] << (8 * i);
    if (is_signed && n < 8 && (u >> (8 * n - 1)) & 1)
        u |= ~(uint64_t)0 << (8 * n); /* sign extension */
    return is_signed ? (lua_Number)(int64_t)u : (lua_Number)u;
}

static void get_bytes(void *out, const unsigned char *p, size_t n, int little)
{
    unsigned char *o = out;
    size_t i;
    for (i = 0; i < n; i++)
        o[i] = p[little ? i : n - 1 - i];
}

static int l_struct_unpack(lua_State *L)
{
    fmt_state h = {1, 1};
    const char *f = luaL_checkstring(L, 1);
    size_t ld, pos;
    const unsigned char *data = (const unsigned char *)luaL_checklstring(L, 2, &ld);
    int n = 0;

    pos = (size_t)luaL_optinteger(L, 3, 1) - 1;
    luaL_argcheck(L, pos <= ld, 3, "offset must be 1 or greater");
    while (*f) {
        char opt = *f++;
        size_t size;
        if (fmt_control(L, opt, &f, &h))
            continue;
        size = opt_size(L, opt, &f);
        pos += opt_pad(&h, pos, size, opt);
        luaL_argcheck(L, pos <= ld && size <= ld - pos, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I':
            lua_pushnumber(L, get_int(data + pos, h.little, opt >= 'a', size));
            n++;
            break;
        case 'x':
            break;
        case 'f': {
            float v;
            get_bytes(&v, data + pos, sizeof(v), h.little);
            lua_pushnumber(L, v);
            n++;
            break;
        }
        case 'd': {
            double v;
            get_bytes(&v, data + pos, sizeof(v), h.little);
            lua_pushnumber(L, v);
            n++;
            break;
        }
        case 'c':
            if (size == 0) {
                if (n == 0 || !lua_isnumber(L, -1))
                    luaL_error(L, "format 'c0' needs a previous size");
                size = (size_t)lua_tonumber(L, -1);
                lua_pop(L, 1);
                n--;
                luaL_argcheck(L, size <= ld - pos, 2, "data string too short");
            }
            lua_pushlstring(L, (const char *)data + pos, size);
            n++;
            break;
        case 's': {
            const unsigned char *e = memchr(data + pos, '\0', ld - pos);
            if (!e)
                luaL_error(L, "unfinished string in data");
            size = (size_t)(e - (data + pos)) + 1;
            lua_pushlstring(L, (const char *)data + pos, size - 1);
            n++;
            break;
        }
        default:
            bad_option(L, opt);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos + 1);
    return n + 1;
}

static int l_struct_size(lua_State *L)
{
    fmt_state h = {1, 1};
    const char *f = luaL_checkstring(L, 1);
    size_t pos = 0;

    while (*f) {
        char opt = *f++;
        size_t size;
        if (fmt_control(L, opt, &f, &h))
            continue;
        size = opt_size(L, opt, &f);
        pos += opt_pad(&h, pos, size, opt);
        if (opt == 's')
            luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0)
            luaL_argerror(L, 1, "option 'c0' has no fixed size");
        else if (!strchr("bBhHlLTiIxfdc", opt))
            bad_option(L, opt);
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos);
    return 1;
}

int luaopen_struct(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"pack", l_struct_pack},
        {"unpack", l_struct_unpack},
        {"size", l_struct_size},
        {NULL, NULL},
    };
    lua_newtable(L);
    luaL_register(L, NULL, fns);
    return 1;
}

/* ---- cmsgpack ---- */

#define MP_MAX_NESTING 16

/* The output of a pack: one buffer reused by every call (single thread;
 * nothing raises while it is filled, so it is never left owned by a call). */
static struct {
    unsigned char *p;
    size_t len, cap;
} mpb;

static void mp_put(const unsigned char *p, size_t n)
{
    if (mpb.cap - mpb.len < n) {
        size_t cap = mpb.cap ? mpb.cap : 256;
        while (cap - mpb.len < n)
            cap *= 2;
        mpb.p = xrealloc(mpb.p, cap);
        mpb.cap = cap;
    }
    memcpy(mpb.p + mpb.len, p, n);
    mpb.len += n;
}

static void mp_be(unsigned char *out, uint64_t v, int n)
{
    int i;
    for (i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static void mp_code(unsigned char code, uint64_t v, int n)
{
    unsigned char h[9];
    h[0] = code;
    mp_be(h + 1, v, n);
    mp_put(h, (size_t)n + 1);
}

static void mp_int(int64_t n)
{
    if (n >= 0) {
        if (n <= 127) {
            unsigned char c = (unsigned char)n;
            mp_put(&c, 1);
        } else if (n <= 0xff)
            mp_code(0xcc, (uint64_t)n, 1);
        else if (n <= 0xffff)
            mp_code(0xcd, (uint64_t)n, 2);
        else if (n <= 0xffffffffLL)
            mp_code(0xce, (uint64_t)n, 4);
        else
            mp_code(0xcf, (uint64_t)n, 8);
    } else if (n >= -32) {
        unsigned char c = (unsigned char)(int8_t)n;
        mp_put(&c, 1);
    } else if (n >= -128)
        mp_code(0xd0, (uint64_t)n, 1);
    else if (n >= -32768)
        mp_code(0xd1, (uint64_t)n, 2);
    else if (n >= -2147483648LL)
        mp_code(0xd2, (uint64_t)n, 4);
    else
        mp_code(0xd3, (uint64_t)n, 8);
}

/* A header of n: fix | n below fixmax, else c8 (if any), c16 or c32. */
static void mp_len_hdr(size_t n, unsigned char fix, size_t fixmax, unsigned char c8, unsigned char c16,
                       unsigned char c32)
{
    if (n < fixmax) {
        unsigned char c = (unsigned char)(fix | n);
        mp_put(&c, 1);
    } else if (c8 && n <= 0xff)
        mp_code(c8, n, 1);
    else if (n <= 0xffff)
        mp_code(c16, n, 2);
    else
        mp_code(c32, n, 4);
}

static int mp_is_int(lua_Number n)
{
    return !isinf(n) && !isnan(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
           (lua_Number)(int64_t)n == n;
}

/* 1 if the table at the top has only the keys 1..n (an empty one too). */
static int mp_is_array(lua_State *L)
{
    lua_Number max = 0, count = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_Number k;
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER || (k = lua_tonumber(L, -1)) <= 0 || !mp_is_int(k)) {
            lua_pop(L, 1);
            return 0;
        }
        if (k > max)
            max = k;
        count++;
    }
    return max == count;
}

/* Pack the value at the top (left there), level tables deep. */
static void mp_encode(lua_State *L, int level)
{
    int t = lua_type(L, -1);

    if (t == LUA_TTABLE && level == MP_MAX_NESTING)
        t = LUA_TNIL;
    switch (t) {
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, -1, &n);
        mp_len_hdr(n, 0xa0, 32, 0xd9, 0xda, 0xdb);
        mp_put((const unsigned char *)s, n);
        break;
    }
    case LUA_TBOOLEAN: {
        unsigned char c = lua_toboolean(L, -1) ? 0xc3 : 0xc2;
        mp_put(&c, 1);
        break;
    }
    case LUA_TNUMBER: {
        lua_Number n = lua_tonumber(L, -1);
        if (mp_is_int(n)) {
            mp_int((int64_t)n);
        } else {
            float fl = (float)n;
            if ((double)fl == n) {
                uint32_t u;
                memcpy(&u, &fl, 4);
                mp_code(0xca, u, 4);
            } else {
                uint64_t u;
                memcpy(&u, &n, 8);
                mp_code(0xcb, u, 8);
            }
        }
        break;
    }
    case LUA_TTABLE:
        luaL_checkstack(L, 4, "too deep");
        if (mp_is_array(L)) {
            size_t n = lua_objlen(L, -1), i;
            mp_len_hdr(n, 0x90, 16, 0, 0xdc, 0xdd);
            for (i = 1; i <= n; i++) {
                lua_rawgeti(L, -1, (int)i);
                mp_encode(L, level + 1);
                lua_pop(L, 1);
            }
        } else {
            size_t n = 0;
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pop(L, 1);
                n++;
            }
            mp_len_hdr(n, 0x80, 16, 0, 0xde, 0xdf);
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pushvalue(L, -2);
                mp_encode(L, level + 1);
                lua_pop(L, 1);
                mp_encode(L, level + 1);
                lua_pop(L, 1);
            }
        }
        break;
    default: {
        unsigned char c = 0xc0;
        mp_put(&c, 1);
        break;
    }
    }
}

static int l_mp_pack(lua_State *L)
{
    int n = lua_gettop(L), i;

    if (n == 0)
        return luaL_argerror(L, 0, "MessagePack pack needs input.");
    mpb.len = 0;
    for (i = 1; i <= n; i++) {
        lua_pushvalue(L, i);
        mp_encode(L, 0);
        lua_pop(L, 1);
    }
    lua_pushlstring(L, (const char *)mpb.p, mpb.len);
    if (mpb.cap > 1024 * 1024) { /* give back a buffer a large pack grew */
        xfree(mpb.p);
        mpb.p = NULL;
        mpb.cap = 0;
    }
    return 1;
}

/* The decoder's cursor. */
typedef struct mp_cur {
    const unsigned char *p;
    size_t left;
    int err; /* 0, MP_EOF, MP_BADFMT */
} mp_cur;

enum { MP_EOF = 1, MP_BADFMT = 2 };

static uint64_t mp_rd(mp_cur *c, int n)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < n; i++)
        v = (v << 8) | c->p[i];
    c->p += n;
    c->left -= (size_t)n;
    return v;
}

#define MP_NEED(c, n)                  \
    do {                               \
        if ((c)->left < (size_t)(n)) { \
            (c)->err = MP_EOF;         \
            return;                    \
        }                              \
    } while (0)

static void mp_decode(lua_State *L, mp_cur *c);

static void mp_decode_str(lua_State *L, mp_cur *c, size_t n)
{
    MP_NEED(c, n);
    lua_pushlstring(L, (const char *)c->p, n);
    c->p += n;
    c->left -= n;
}

static void mp_decode_array(lua_State *L, mp_cur *c, size_t n)
{
    size_t i;
    lua_newtable(L);
    for (i = 1; i <= n; i++) {
        mp_decode(L, c);
        if (c->err)
            return;
        lua_rawseti(L, -2, (int)i);
    }
}

static void mp_decode_map(lua_State *L, mp_cur *c, size_t n)
{
    size_t i;
    lua_newtable(L);
    for (i = 0; i < n; i++) {
        mp_decode(L, c);
        if (c->err)
            return;
        mp_decode(L, c);
        if (c->err)
            return;
        if (lua_isnil(L, -2)) { /* a nil key cannot be stored */
            lua_pop(L, 2);
            continue;
        }
        lua_rawset(L, -3);
    }
}

/* Push the next value (one Lua value whatever happens; c->err on failure). */
static void mp_decode(lua_State *L, mp_cur *c)
{
    unsigned char b;

    luaL_checkstack(L, 4, "too deep");
    if (c->left < 1) {
        lua_pushnil(L);
        c->err = MP_EOF;
        return;
    }
    b = c->p[0];
    if (b <= 0x7f || b >= 0xe0) { /* fixints */
        lua_pushnumber(L, b <= 0x7f ? (lua_Number)b : (lua_Number)(int8_t)b);
        c->p++;
        c->left--;
        return;
    }
    if ((b & 0xe0) == 0xa0) { /* fixstr */
        c->p++;
        c->left--;
        if (c->left < (size_t)(b & 0x1f)) {
            lua_pushnil(L);
            c->err = MP_EOF;
            return;
        }
        mp_decode_str(L, c, b & 0x1f);
        return;
    }
    if ((b & 0xf0) == 0x90 || (b & 0xf0) == 0x80) {
        c->p++;
        c->left--;
        if ((b & 0xf0) == 0x90)
            mp_decode_array(L, c, b & 0x0f);
        else
            mp_decode_map(L, c, b & 0x0f);
        return;
    }
    {
        static const signed char extra[32] = {
            /* c0 */ 0, -1, 0, 0, -1, -1, -1, -1,
            -1,         -1, 4, 8, 1,  2,  4,  8, /* no bin types, as lua-cmsgpack 0.4 */
            /* d0 */ 1, 2,  4, 8, -1, -1, -1, -1,
            -1,         1,  2, 4, 2,  4,  2,  4,
        };
        int k = extra[b - 0xc0];
        uint64_t v;
        if (k < 0) {
            lua_pushnil(L);
            c->err = MP_BADFMT;
            return;
        }
        if (c->left < (size_t)k + 1) {
            lua_pushnil(L);
            c->err = MP_EOF;
            return;
        }
        c->p++;
        c->left--;
        v = mp_rd(c, k);
        switch (b) {
        case 0xc0:
            lua_pushnil(L);
            break;
        case 0xc2:
        case 0xc3:
            lua_pushboolean(L, b == 0xc3);
            break;
        case 0xc4:
        case 0xc5:
        case 0xc6:
        case 0xd9:
        case 0xda:
        case 0xdb:
            if (c->left < v) {
                lua_pushnil(L);
                c->err = MP_EOF;
                return;
            }
            mp_decode_str(L, c, (size_t)v);
            break;
        case 0xca: {
            float f;
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, 4);
            lua_pushnumber(L, f);
            break;
        }
        case 0xcb: {
            double d;
            memcpy(&d, &v, 8);
            lua_pushnumber(L, d);
            break;
        }
        case 0xcc:
        case 0xcd:
        case 0xce:
            lua_pushnumber(L, (lua_Number)v);
            break;
        case 0xd0:
            lua_pushnumber(L, (int8_t)v);
            break;
        case 0xd1:
            lua_pushnumber(L, (int16_t)v);
            break;
        case 0xd2:
            lua_pushnumber(L, (int32_t)v);
            break;
        case 0xcf: /* uint 64 read as signed, as Redis's cmsgpack does: 2^63 and up come out negative */
        case 0xd3:
            lua_pushnumber(L, (lua_Number)(int64_t)v);
            break;
        case 0xdc:
        case 0xdd:
            mp_decode_array(L, c, (size_t)v);
            break;
        case 0xde:
        case 0xdf:
            mp_decode_map(L, c, (size_t)v);
            break;
        }
    }
}

/* Decode at most limit values from offset of the string at 1; with
 * with_offset, the next offset (-1 at the end) comes first. */
static int mp_unpack_full(lua_State *L, int limit, int offset, int with_offset)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    mp_cur c;
    int n = 0;

    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, (int)len);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", offset, (int)len);
    c.p = (const unsigned char *)s + offset;
    c.left = len - (size_t)offset;
    c.err = 0;
    while (c.left > 0 && n < limit) {
        mp_decode(L, &c);
        if (c.err == MP_EOF)
            return luaL_error(L, "Missing bytes in input.");
        if (c.err == MP_BADFMT)
            return luaL_error(L, "Bad data format in input.");
        n++;
    }
    if (with_offset) {
        lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
        lua_insert(L, 2);
        n++;
    }
    return n;
}

static int l_mp_unpack(lua_State *L)
{
    return mp_unpack_full(L, INT_MAX, 0, 0);
}

static int l_mp_unpack_one(lua_State *L)
{
    int offset = (int)luaL_optinteger(L, 2, 0);
    lua_settop(L, 1);
    return mp_unpack_full(L, 1, offset, 1);
}

static int l_mp_unpack_limit(lua_State *L)
{
    int limit = (int)luaL_checkinteger(L, 2), offset = (int)luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return mp_unpack_full(L, limit, offset, 1);
}

int luaopen_cmsgpack(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"pack", l_mp_pack},
        {"unpack", l_mp_unpack},
        {"unpack_one", l_mp_unpack_one},
        {"unpack_limit", l_mp_unpack_limit},
        {NULL, NULL},
    };
    lua_newtable(L);
    luaL_register(L, NULL, fns);
    lua_pushliteral(L, "cmsgpack");
    lua_setfield(L, -2, "_NAME");
    lua_pushliteral(L, "lua-cmsgpack 0.4.0");
    lua_setfield(L, -2, "_VERSION");
    lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
    lua_setfield(L, -2, "_COPYRIGHT");
    lua_pushliteral(L, "MessagePack C implementation for Lua");
    lua_setfield(L, -2, "_DESCRIPTION");
    return 1;
}
