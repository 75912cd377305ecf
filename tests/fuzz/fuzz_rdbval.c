/* fuzz_rdbval.c -- libFuzzer target: the decoders RESTORE runs on a payload a
 * client sends (server/core/rdbval.c: listpacks, ziplists, zipmaps, intsets,
 * lengths, doubles; server/core/dumpfmt.c: strings, LZF), and the encoders
 * DUMP uses, over arbitrary bytes.
 *
 * The input is one RDB value without its trailer (no checksum to get right):
 * a type byte, then the value, walked as cmd/cmd_dump.c's RESTORE walks it,
 * every container opened and iterated to its end. Beyond the sanitizers'
 * checks: an opened container yields exactly the count it announced; every
 * element of a listpack, written again with rdb_lp_str into a new listpack,
 * opens and reads back the same; every string written again with
 * rdb_put_string decodes back to the same bytes.
 *
 *   clang -fsanitize=fuzzer,address -Iserver/core -I/usr/include/liblzf \
 *     tests/fuzz/fuzz_rdbval.c server/core/rdbval.c server/core/dumpfmt.c \
 *     server/core/mem.c server/core/util.c -llzf -o fuzz_rdbval
 * (or `make fuzz-build`, which links the core library). Seeds: redis-server's
 * DUMP payloads without their 10-byte trailers, in tests/fuzz/corpus/rdbval/. */
#include "dumpfmt.h"
#include "mem.h"
#include "rdbval.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stdout, "%s\n", what);
    fflush(stdout);
    abort();
}

/* s written by rdb_put_string decodes back to s. */
static void string_round_trip(const char *s, size_t n)
{
    rdb_out o = {0};
    const unsigned char *p;
    char *back;
    size_t bn;

    rdb_put_string(&o, s, n);
    p = o.p;
    if (dump_get_string(&p, o.p + o.len, &back, &bn) < 0 || bn != n || memcmp(back, s, n) != 0 || p != o.p + o.len)
        fail("a string written by rdb_put_string does not decode back");
    xfree(back);
    rdb_out_free(&o);
}

/* Iterate an opened container: exactly count elements; a listpack's written
 * again must read back the same. */
static void walk(rdb_iter *it, uint64_t count, int is_lp)
{
    rdb_out lp = {0};
    char **copies = NULL;
    size_t *lens = NULL;
    uint64_t seen = 0, i;
    const char *p;
    size_t n;

    if (is_lp) {
        copies = calloc(count + 1, sizeof(char *));
        lens = calloc(count + 1, sizeof(size_t));
        if (!copies || !lens)
            abort();
        rdb_lp_begin(&lp);
    }
    while (rdb_next(it, &p, &n, NULL)) {
        if (seen >= count)
            fail("a container yields more elements than it counts");
        if (is_lp) {
            copies[seen] = malloc(n + 1);
            if (!copies[seen])
                abort();
            memcpy(copies[seen], p, n);
            lens[seen] = n;
            rdb_lp_str(&lp, p, n);
        }
        seen++;
    }
    if (seen != count)
        fail("a container yields fewer elements than it counts");
    if (is_lp) {
        rdb_iter again;
        uint64_t c2;
        rdb_lp_end(&lp, (uint32_t)(count > 65535 ? 65535 : count));
        if (rdb_lp_open(&again, lp.p, lp.len, &c2) < 0 || c2 != count)
            fail("a listpack written again does not open");
        for (i = 0; i < count; i++)
            if (!rdb_next(&again, &p, &n, NULL) || n != lens[i] || memcmp(p, copies[i], n) != 0)
                fail("a listpack written again reads back other elements");
        for (i = 0; i < count; i++)
            free(copies[i]);
        free(copies);
        free(lens);
        rdb_out_free(&lp);
    }
}

/* A blob string holding a container of kind ('l', 'z', 'm', 'i'), opened and
 * walked. 0, or -1 when the bytes end or do not decode. */
static int blob(const unsigned char **p, const unsigned char *end, int kind)
{
    rdb_iter it;
    uint64_t count;
    char *s;
    size_t n;
    int rc;

    if (dump_get_string(p, end, &s, &n) < 0)
        return -1;
    string_round_trip(s, n);
    rc = kind == 'l'   ? rdb_lp_open(&it, (unsigned char *)s, n, &count)
         : kind == 'z' ? rdb_zl_open(&it, (unsigned char *)s, n, &count)
         : kind == 'm' ? rdb_zm_open(&it, (unsigned char *)s, n, &count)
                       : rdb_is_open(&it, (unsigned char *)s, n, &count);
    if (rc == 0)
        walk(&it, count, kind == 'l');
    xfree(s);
    return rc;
}

static int str(const unsigned char **p, const unsigned char *end)
{
    char *s;
    size_t n;
    if (dump_get_string(p, end, &s, &n) < 0)
        return -1;
    if (s[n] != '\0')
        fail("a decoded string is not terminated");
    string_round_trip(s, n);
    xfree(s);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned char *p = data, *end = data + size;
    uint64_t n, i, c;
    double d;
    int type;

    if (size == 0)
        return 0;
    type = *p++;
    switch (type) {
    case RDB_TYPE_STRING:
        str(&p, end);
        break;
    case RDB_TYPE_LIST:
    case RDB_TYPE_SET:
    case RDB_TYPE_HASH:
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
        if (rdb_get_len(&p, end, &n) < 0)
            break;
        for (i = 0; i < n && p < end; i++) {
            if (str(&p, end) < 0)
                break;
            if (type == RDB_TYPE_HASH && str(&p, end) < 0)
                break;
            if (type == RDB_TYPE_ZSET && rdb_get_text_double(&p, end, &d) < 0)
                break;
            if (type == RDB_TYPE_ZSET_2 && rdb_get_double(&p, end, &d) < 0)
                break;
        }
        break;
    case RDB_TYPE_HASH_ZIPMAP:
        blob(&p, end, 'm');
        break;
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_HASH_ZIPLIST:
        blob(&p, end, 'z');
        break;
    case RDB_TYPE_SET_INTSET:
        blob(&p, end, 'i');
        break;
    case RDB_TYPE_HASH_LISTPACK:
    case RDB_TYPE_ZSET_LISTPACK:
        blob(&p, end, 'l');
        break;
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        if (rdb_get_len(&p, end, &n) < 0)
            break;
        for (i = 0; i < n && p < end; i++) {
            c = 2;
            if (type == RDB_TYPE_LIST_QUICKLIST_2 && rdb_get_len(&p, end, &c) < 0)
                break;
            if ((c == 1 ? str(&p, end) : blob(&p, end, type == RDB_TYPE_LIST_QUICKLIST ? 'z' : 'l')) < 0)
                break;
        }
        break;
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
        if (rdb_get_len(&p, end, &n) < 0)
            break;
        for (i = 0; i < n && p < end; i++)
            if (str(&p, end) < 0 || blob(&p, end, 'l') < 0)
                break;
        for (i = 0; i < 8 && p < end; i++) /* the counters and ids */
            if (rdb_get_len(&p, end, &n) < 0)
                break;
        break;
    default:
        break;
    }
    return 0;
}
