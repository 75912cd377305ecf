/* sp_hiredis.c -- the SP.* commands (scratchpads) through hiredis, command by
 * command: every option and every error of the issue "Scratchpads: the SP.*
 * family", the data model seen through the ordinary key commands, and the large
 * values (a 10 MB entry, a 10 MB string) that live compressed.
 *
 * Why: this is what agents and their harnesses call; the replies checked here
 * are the contract documented in docs/commands.md. RESP3 shapes (maps, doubles,
 * the RESP3 null) are read with itest.h's raw reader after HELLO 3, because
 * Debian's hiredis 0.14 speaks RESP2 only.
 *
 * Invariants: each case works in namespaces of its own (and a database of its
 * own where it measures the keyspace or memory), so cases do not depend on one
 * another's data; every wait is bounded. */
#include <hiredis/hiredis.h>
#include <nettle/sha2.h>

#include "itest.h"

static it_server server;
static int port;

#define NAME_RULE "names are 1 to 255 bytes of A-Z a-z 0-9 _ - . : / with no empty, '.' or '..' path segment"

/* ---- helpers ---- */

static redisContext *conn(void)
{
    return it_redis(port);
}

/* Check that r is a bulk string of exactly p[0..n); frees r. */
static int expect_bin(const char *file, int line, redisReply *r, const char *p, size_t n)
{
    int ok = r && r->type == REDIS_REPLY_STRING && (size_t)r->len == n && memcmp(r->str, p, n) == 0;
    if (!ok) {
        fprintf(stderr, "    %s:%d: expected a bulk of %zu bytes \"%.*s\"", file, line, n, n > 120 ? 120 : (int)n, p);
        if (!r)
            fprintf(stderr, ", got no reply\n");
        else if (r->str)
            fprintf(stderr, ", got %s of %zu bytes \"%.*s\"\n", it_type_name(r->type), (size_t)r->len,
                    r->len > 120 ? 120 : (int)r->len, r->str);
        else
            fprintf(stderr, ", got %s\n", it_type_name(r->type));
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
    return ok;
}
#define EXPECT_BIN(c, p, n, ...) expect_bin(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), (p), (n))

/* An error reply whose text starts with prefix; frees r. */
static int expect_err_prefix(const char *file, int line, redisReply *r, const char *prefix)
{
    int ok = r && r->type == REDIS_REPLY_ERROR && strncmp(r->str, prefix, strlen(prefix)) == 0;
    if (!ok) {
        fprintf(stderr, "    %s:%d: expected an error starting \"%s\", got %s %s\n", file, line, prefix,
                r ? it_type_name(r->type) : "no reply", r && r->str ? r->str : "");
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
    return ok;
}
#define EXPECT_ERR_PREFIX(c, prefix, ...) \
    expect_err_prefix(__FILE__, __LINE__, redisCommand(c, __VA_ARGS__), (prefix))

/* The value under key of a flat RESP2 map (key, value, ...), or NULL. */
static const redisReply *map_get(const redisReply *r, const char *key)
{
    size_t i;
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (i = 0; i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING && strcmp(r->element[i]->str, key) == 0)
            return r->element[i + 1];
    return NULL;
}

/* The integer under key of a flat map, or LLONG_MIN. */
static long long map_int(const redisReply *r, const char *key)
{
    const redisReply *v = map_get(r, key);
    return v && v->type == REDIS_REPLY_INTEGER ? v->integer : LLONG_MIN;
}

/* 1 if the string under key of a flat map is s. */
static int map_str_is(const redisReply *r, const char *key, const char *s)
{
    const redisReply *v = map_get(r, key);
    return v && v->type == REDIS_REPLY_STRING && strcmp(v->str, s) == 0;
}

/* The integer reply of a command, or LLONG_MIN (and the case fails). */
static long long int_cmd(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    redisReply *r;
    long long v = LLONG_MIN;
    va_start(ap, fmt);
    r = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (r && r->type == REDIS_REPLY_INTEGER)
        v = r->integer;
    else {
        fprintf(stderr, "    %s: expected an integer, got %s %s\n", fmt, r ? it_type_name(r->type) : "no reply",
                r && r->str ? r->str : "");
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
    return v;
}

/* The value of "field:" (or "field=") in INFO text, or -1. */
static long long info_num(redisContext *c, const char *section, const char *field)
{
    redisReply *r = redisCommand(c, "INFO %s", section);
    long long v = -1;
    char pat[128];
    const char *p;
    if (r && r->type == REDIS_REPLY_STRING) {
        snprintf(pat, sizeof(pat), "%s:", field);
        if ((p = strstr(r->str, pat)) != NULL)
            v = atoll(p + strlen(pat));
        else {
            snprintf(pat, sizeof(pat), "%s=", field);
            if ((p = strstr(r->str, pat)) != NULL)
                v = atoll(p + strlen(pat));
        }
    }
    if (r)
        freeReplyObject(r);
    return v;
}

/* The number of keys INFO keyspace shows for database db (0 if not listed). */
static long long keyspace_keys(redisContext *c, int db)
{
    redisReply *r = redisCommand(c, "INFO keyspace");
    long long v = -1;
    char pat[32];
    const char *p;
    if (r && r->type == REDIS_REPLY_STRING) {
        snprintf(pat, sizeof(pat), "db%d:keys=", db);
        p = strstr(r->str, pat);
        v = p ? atoll(p + strlen(pat)) : 0;
    }
    if (r)
        freeReplyObject(r);
    return v;
}

/* Byte offset of character ch of valid UTF-8 text p[0..n) (n if past the end). */
static size_t char_to_byte(const char *p, size_t n, size_t ch)
{
    size_t i, seen = 0;
    for (i = 0; i < n; i++) {
        if (((unsigned char)p[i] & 0xC0) != 0x80) {
            if (seen == ch)
                return i;
            seen++;
        }
    }
    return n;
}

static size_t count_chars(const char *p, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++)
        k += ((unsigned char)p[i] & 0xC0) != 0x80;
    return k;
}

/* Byte offset where 1-based line `line` starts in p[0..n) (n past the last). */
static size_t line_start(const char *p, size_t n, size_t line)
{
    size_t i, l = 1;
    if (line <= 1)
        return 0;
    for (i = 0; i < n; i++)
        if (p[i] == '\n' && ++l == line)
            return i + 1;
    return n;
}

static void sha256_hex(const char *p, size_t n, char out[65])
{
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    int k;
    sha256_init(&ctx);
    sha256_update(&ctx, n, (const uint8_t *)p);
    sha256_digest(&ctx, sizeof(d), d);
    for (k = 0; k < 32; k++)
        snprintf(out + 2 * k, 3, "%02x", d[k]);
}

/* A log-like text of at least n bytes with a 2-byte and a 3-byte character on
 * every line, so character and byte offsets differ all along. Caller frees. */
static char *make_log(size_t n, size_t *len)
{
    size_t cap = n + 256, o = 0;
    char *b = malloc(cap);
    unsigned i = 0;
    while (o < n) {
        o += (size_t)snprintf(b + o, cap - o,
                              "2024-05-01T12:%02u:%02u.%03u INFO wörker-%u handled request id=%u in %u ms ✓\n",
                              (i / 60) % 60, i % 60, i % 1000, i % 7, i * 31, i % 97);
        i++;
    }
    *len = o;
    return b;
}

/* Write n bytes of p in one SP.WRITE; 1 on a version reply. */
static int sp_write_bin(redisContext *c, const char *ns, const char *name, const char *p, size_t n)
{
    redisReply *r = redisCommand(c, "SP.WRITE %s %s %b", ns, name, p, n);
    int ok = r && r->type == REDIS_REPLY_INTEGER && r->integer >= 1;
    if (!ok) {
        fprintf(stderr, "    SP.WRITE %s %s (%zu bytes) failed: %s\n", ns, name, n, r && r->str ? r->str : "?");
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
    return ok;
}

/* ---- SP.WRITE ---- */

static void test_write_versions(void)
{
    redisContext *c = conn();
    static const char bin[] = {'a', 0, 'b', (char)0xff};
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE w:ns plan %s", "step 1\nstep 2\n");
    EXPECT_INT(c, 2, "SP.WRITE w:ns plan %s", "step 1 done\nstep 2\n");
    EXPECT_STR(c, "step 1 done\nstep 2\n", "SP.READ w:ns plan");
    EXPECT_INT(c, 3, "SP.WRITE w:ns plan again");
    EXPECT_INT(c, 1, "SP.WRITE w:ns Plan other");
    EXPECT_STR(c, "again", "SP.READ w:ns plan");
    EXPECT_STR(c, "other", "SP.READ w:ns Plan");
    EXPECT_INT(c, 1, "SP.WRITE w:ns blob %b", bin, sizeof(bin));
    EXPECT_BIN(c, bin, sizeof(bin), "SP.READ w:ns blob");
    EXPECT_INT(c, 1, "SP.WRITE w:ns empty %s", "");
    EXPECT_STR(c, "", "SP.READ w:ns empty");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.write' command", "SP.WRITE w:ns plan");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE w:ns plan x BOGUS");
    redisFree(c);
}

static void test_write_ttl_options(void)
{
    redisContext *c = conn();
    long long v;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE wt:ns a x EX 100");
    v = int_cmd(c, "SP.TTL wt:ns a");
    CHECKF(v >= 99 && v <= 100, "TTL after EX 100: %lld", v);
    EXPECT_INT(c, 1, "SP.WRITE wt:ns b x PX 50000");
    v = int_cmd(c, "SP.PTTL wt:ns b");
    CHECKF(v > 49000 && v <= 50000, "PTTL after PX 50000: %lld", v);
    /* KEEPTTL keeps it; a plain overwrite clears it, as SET does. */
    EXPECT_INT(c, 2, "SP.WRITE wt:ns b y KEEPTTL");
    v = int_cmd(c, "SP.PTTL wt:ns b");
    CHECKF(v > 49000 && v <= 50000, "PTTL after KEEPTTL: %lld", v);
    EXPECT_INT(c, 3, "SP.WRITE wt:ns b z");
    EXPECT_INT(c, -1, "SP.TTL wt:ns b");
    EXPECT_INT(c, 1, "SP.WRITE wt:ns c x KEEPTTL");
    EXPECT_INT(c, -1, "SP.TTL wt:ns c");
    EXPECT_ERR(c, "ERR invalid expire time in 'sp.write' command", "SP.WRITE wt:ns a x EX 0");
    EXPECT_ERR(c, "ERR invalid expire time in 'sp.write' command", "SP.WRITE wt:ns a x PX -5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.WRITE wt:ns a x EX soon");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wt:ns a x EX 5 PX 5000");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wt:ns a x EX 5 KEEPTTL");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wt:ns a x EX");
    /* A refused write changed nothing. */
    EXPECT_STR(c, "x", "SP.READ wt:ns a");
    v = int_cmd(c, "SP.TTL wt:ns a");
    CHECK(v >= 99 && v <= 100);
    redisFree(c);
}

static void test_write_conditions(void)
{
    redisContext *c = conn();
    int i;
    if (!c) { CHECK(0); return; }
    EXPECT_NIL(c, "SP.WRITE wc:ns a first XX");
    EXPECT_NIL(c, "SP.READ wc:ns a");
    EXPECT_INT(c, 0, "EXISTS wc:ns");
    EXPECT_INT(c, 1, "SP.WRITE wc:ns a first NX");
    EXPECT_NIL(c, "SP.WRITE wc:ns a second NX");
    EXPECT_STR(c, "first", "SP.READ wc:ns a");
    EXPECT_INT(c, 2, "SP.WRITE wc:ns a second XX");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x NX XX");
    /* A repeated option is a syntax error, as documented, and writes nothing. */
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x NX NX");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x XX XX");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x KIND text KIND binary");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x IFVERSION 2 IFVERSION 2");
    EXPECT_ERR(c, "ERR syntax error", "SP.WRITE wc:ns a x KEEPTTL KEEPTTL");
    EXPECT_STR(c, "second", "SP.READ wc:ns a");
    for (i = 3; i <= 7; i++)
        EXPECT_INT(c, i, "SP.WRITE wc:ns a v%d", i);
    /* The exact words of the issue. */
    EXPECT_ERR(c, "VERSION entry is at version 7, not 5", "SP.WRITE wc:ns a stale IFVERSION 5");
    EXPECT_STR(c, "v7", "SP.READ wc:ns a");
    EXPECT_INT(c, 8, "SP.WRITE wc:ns a fresh IFVERSION 7");
    EXPECT_ERR(c, "VERSION entry is at version 8, not 0", "SP.WRITE wc:ns a again IFVERSION 0");
    /* IFVERSION 0: must not exist. */
    EXPECT_INT(c, 1, "SP.WRITE wc:ns b new IFVERSION 0");
    EXPECT_ERR(c, "VERSION entry does not exist, not at version 3", "SP.WRITE wc:ns nosuch x IFVERSION 3");
    EXPECT_NIL(c, "SP.READ wc:ns nosuch");
    EXPECT_ERR(c, "ERR IFVERSION must not be negative", "SP.WRITE wc:ns a x IFVERSION -1");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.WRITE wc:ns a x IFVERSION one");
    /* NX on an existing entry wins over a matching IFVERSION: nil, nothing written. */
    EXPECT_NIL(c, "SP.WRITE wc:ns a x NX IFVERSION 8");
    EXPECT_STR(c, "fresh", "SP.READ wc:ns a");
    redisFree(c);
}

static void test_names(void)
{
    static const char *const bad[] = {".", "..", "a/./b", "a/../b", "/a", "a/", "a//b", "a b", "a*", "tab\tx",
                                      NULL};
    redisContext *c = conn();
    char msg[1024], longname[300];
    int i;
    if (!c) { CHECK(0); return; }
    for (i = 0; bad[i]; i++) {
        char shown[64];
        size_t k, o = 0;
        for (k = 0; bad[i][k]; k++) {
            if (bad[i][k] == '\t')
                o += (size_t)snprintf(shown + o, sizeof(shown) - o, "\\x09");
            else
                shown[o++] = bad[i][k];
        }
        shown[o] = '\0';
        snprintf(msg, sizeof(msg), "ERR invalid entry name '%s' (%zu bytes): " NAME_RULE, shown, strlen(bad[i]));
        EXPECT_ERR(c, msg, "SP.WRITE nm:ns %s x", bad[i]);
        EXPECT_ERR(c, msg, "SP.READ nm:ns %s", bad[i]);
    }
    EXPECT_ERR(c, "ERR invalid entry name '' (0 bytes): " NAME_RULE, "SP.WRITE nm:ns %s x", "");
    EXPECT_ERR(c, "ERR invalid entry name '\\xc3\\xa9t\\xc3\\xa9' (5 bytes): " NAME_RULE, "SP.WRITE nm:ns %s x",
               "été");
    memset(longname, 'n', 256);
    longname[255] = '\0';
    EXPECT_INT(c, 1, "SP.WRITE nm:ns %s x", longname);
    longname[255] = 'n';
    longname[256] = '\0';
    snprintf(msg, sizeof(msg), "ERR invalid entry name '%s' (256 bytes): " NAME_RULE, longname);
    EXPECT_ERR(c, msg, "SP.WRITE nm:ns %s x", longname);
    /* Never a silent rewrite: a valid name is kept byte for byte. */
    EXPECT_INT(c, 1, "SP.WRITE nm:ns %s x", "A-z_0.9:tool/out..v2");
    EXPECT_INT(c, 1, "SP.WRITE nm:ns %s x", ".hidden/a.b");
    {
        redisReply *r = CMD_ARRAY(c, "SP.LIST nm:ns MATCH *o*");
        if (r) {
            CHECK(r->elements == 2 && r->element[1]->elements == 1);
            CHECK(it_elem_is(r->element[1], 0, REDIS_REPLY_STRING, "A-z_0.9:tool/out..v2"));
            freeReplyObject(r);
        }
    }
    EXPECT_INT(c, 0, "SP.DEL nm:ns plan");
    EXPECT_ERR_PREFIX(c, "ERR invalid entry name 'bad name'", "SP.DEL nm:ns a %s", "bad name");
    redisFree(c);
}

static void test_kinds(void)
{
    redisContext *c = conn();
    static const char badutf[] = {'o', 'k', (char)0xff, (char)0xfe};
    static const char nul[] = {'a', 0, 'b'};
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE k:ns t %s", "naïve ✓");
    EXPECT_INT(c, 1, "SP.WRITE k:ns b %b", badutf, sizeof(badutf));
    EXPECT_INT(c, 1, "SP.WRITE k:ns z %b", nul, sizeof(nul));
    EXPECT_INT(c, 1, "SP.WRITE k:ns forced %s KIND binary", "naïve");
    r = CMD_ARRAY(c, "SP.STAT k:ns t");
    CHECK(map_str_is(r, "kind", "text") && map_int(r, "size") == 10 && map_int(r, "length") == 7);
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.STAT k:ns b");
    CHECK(map_str_is(r, "kind", "binary") && map_int(r, "length") == 4);
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.STAT k:ns z");
    CHECK(map_str_is(r, "kind", "binary"));
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.STAT k:ns forced");
    CHECK(map_str_is(r, "kind", "binary") && map_int(r, "length") == 6);
    if (r) freeReplyObject(r);
    /* KIND text on invalid UTF-8 is refused and writes nothing. */
    EXPECT_ERR(c, "ERR KIND text requires valid UTF-8 content", "SP.WRITE k:ns b2 %b KIND text", badutf,
               sizeof(badutf));
    EXPECT_NIL(c, "SP.READ k:ns b2");
    EXPECT_ERR(c, "ERR KIND must be text or binary", "SP.WRITE k:ns t x KIND utf8");
    /* Appending invalid UTF-8 to a text entry is refused. */
    EXPECT_ERR(c, "ERR cannot append invalid UTF-8 to a text entry", "SP.APPEND k:ns t %b", badutf,
               sizeof(badutf));
    EXPECT_STR(c, "naïve ✓", "SP.READ k:ns t");
    /* Units: binary entries count bytes. */
    EXPECT_BIN(c, "na\xc3", 3, "SP.READ k:ns forced HEAD 3");
    EXPECT_STR(c, "naï", "SP.READ k:ns t HEAD 3");
    redisFree(c);
}

/* ---- SP.APPEND ---- */

static void test_append(void)
{
    redisContext *c = conn();
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 5, "SP.APPEND ap:ns log %s", "héllo");
    EXPECT_INT(c, 7, "SP.APPEND ap:ns log %s", " ✓");
    EXPECT_STR(c, "héllo ✓", "SP.READ ap:ns log");
    {
        redisReply *r = CMD_ARRAY(c, "SP.STAT ap:ns log");
        CHECK(map_int(r, "size") == 10 && map_int(r, "length") == 7 && map_int(r, "version") == 2);
        if (r) freeReplyObject(r);
    }
    /* A binary entry answers in bytes. */
    EXPECT_INT(c, 3, "SP.APPEND ap:ns bin %b", "\x01\x02\x00", (size_t)3);
    EXPECT_INT(c, 8, "SP.APPEND ap:ns bin %s", "héé");
    EXPECT_ERR(c, "VERSION entry is at version 2, not 1", "SP.APPEND ap:ns log x IFVERSION 1");
    EXPECT_INT(c, 8, "SP.APPEND ap:ns log ! IFVERSION 2");
    EXPECT_INT(c, 2, "SP.APPEND ap:ns new ab IFVERSION 0");
    EXPECT_ERR(c, "VERSION entry does not exist, not at version 4", "SP.APPEND ap:ns nope x IFVERSION 4");
    EXPECT_ERR(c, "ERR syntax error", "SP.APPEND ap:ns log x EX 10");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.append' command", "SP.APPEND ap:ns log");
    redisFree(c);
}

/* ---- SP.READ ---- */

static void test_read_windows(void)
{
    redisContext *c = conn();
    const char *t = "héllo wörld ✓";  /* 13 characters, 17 bytes */
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE rd:ns t %s", t);
    EXPECT_STR(c, t, "SP.READ rd:ns t");
    EXPECT_STR(c, "hé", "SP.READ rd:ns t HEAD 2");
    EXPECT_STR(c, " ✓", "SP.READ rd:ns t TAIL 2");
    EXPECT_STR(c, t, "SP.READ rd:ns t HEAD 100");
    EXPECT_STR(c, t, "SP.READ rd:ns t TAIL 100");
    EXPECT_STR(c, "", "SP.READ rd:ns t HEAD 0");
    EXPECT_STR(c, "éllo", "SP.READ rd:ns t OFFSET 1 LIMIT 4");
    EXPECT_STR(c, "éllo", "SP.READ rd:ns t LIMIT 4 OFFSET 1");
    EXPECT_STR(c, "wörld ✓", "SP.READ rd:ns t OFFSET 6");
    EXPECT_STR(c, "hél", "SP.READ rd:ns t LIMIT 3");
    EXPECT_STR(c, "", "SP.READ rd:ns t OFFSET 13");
    EXPECT_STR(c, "", "SP.READ rd:ns t OFFSET 1000 LIMIT 5");
    /* BYTES: exactly the bytes asked for, even inside a character. */
    EXPECT_BIN(c, "h\xc3", 2, "SP.READ rd:ns t HEAD 2 BYTES");
    EXPECT_BIN(c, "\xc3\xa9l", 3, "SP.READ rd:ns t OFFSET 1 LIMIT 3 BYTES");
    EXPECT_BIN(c, "\x9c\x93", 2, "SP.READ rd:ns t TAIL 2 BYTES");
    EXPECT_ERR(c, "ERR OFFSET must not be negative", "SP.READ rd:ns t OFFSET -1");
    EXPECT_ERR(c, "ERR LIMIT must not be negative", "SP.READ rd:ns t LIMIT -1");
    EXPECT_ERR(c, "ERR HEAD must not be negative", "SP.READ rd:ns t HEAD -3");
    EXPECT_ERR(c, "ERR syntax error", "SP.READ rd:ns t HEAD 2 TAIL 2");
    EXPECT_ERR(c, "ERR syntax error", "SP.READ rd:ns t HEAD 2 LINES 1 2");
    EXPECT_ERR(c, "ERR syntax error", "SP.READ rd:ns t LINES 1");
    EXPECT_ERR(c, "ERR syntax error", "SP.READ rd:ns t SIDEWAYS");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.READ rd:ns t HEAD many");
    redisFree(c);
}

static void test_read_lines_edges(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"1 2", "l1\nl2\n"},       {"2 -1", "l2\nl3\nl4\nl5\n"}, {"-2 -1", "l4\nl5\n"},
        {"-1 -1", "l5\n"},         {"5 5", "l5\n"},              {"0 2", "l1\nl2\n"},
        {"1 100", "l1\nl2\nl3\nl4\nl5\n"}, {"-100 1", "l1\n"},  {"3 2", ""},
        {"6 8", ""},               {"4 -3", ""},                 {"0 0", ""},
        {"-10 -8", ""},            {NULL, NULL},
    };
    redisContext *c = conn();
    char cmd[128];
    int i;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE ln:ns f %s", "l1\nl2\nl3\nl4\nl5\n");
    for (i = 0; cases[i].args; i++) {
        redisReply *r;
        snprintf(cmd, sizeof(cmd), "SP.READ ln:ns f LINES %s", cases[i].args);
        r = redisCommand(c, cmd);
        CHECKF(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, cases[i].want) == 0, "%s gave \"%s\"", cmd,
               r && r->str ? r->str : "?");
        if (r) freeReplyObject(r);
    }
    /* No final newline: the last line is still a line; a final "\n" adds none. */
    EXPECT_INT(c, 1, "SP.WRITE ln:ns g %s", "a\nb");
    EXPECT_STR(c, "b", "SP.READ ln:ns g LINES -1 -1");
    EXPECT_STR(c, "a\n", "SP.READ ln:ns g LINES 1 1");
    EXPECT_INT(c, 1, "SP.WRITE ln:ns h %s", "\n\nx\n");
    EXPECT_STR(c, "\n", "SP.READ ln:ns h LINES 2 2");
    EXPECT_STR(c, "x\n", "SP.READ ln:ns h LINES -1 -1");
    EXPECT_INT(c, 1, "SP.WRITE ln:ns e %s", "");
    EXPECT_STR(c, "", "SP.READ ln:ns e LINES 1 -1");
    {
        redisReply *r = CMD_ARRAY(c, "SP.STAT ln:ns h");
        CHECK(map_int(r, "lines") == 3);
        if (r) freeReplyObject(r);
        r = CMD_ARRAY(c, "SP.STAT ln:ns e");
        CHECK(map_int(r, "lines") == 0);
        if (r) freeReplyObject(r);
    }
    redisFree(c);
}

/* SP.READ ... WITHMETA on a window; checks the shape and returns the map's
 * next_offset (-1 when nil), appending the content to *acc. */
static long long read_page(redisContext *c, const char *cmd, long long want_offset, char *acc, size_t *acclen,
                           size_t cap, long long *length)
{
    redisReply *r = redisCommand(c, cmd);
    const redisReply *m, *nx;
    long long next = -2;
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
        r->element[1]->type != REDIS_REPLY_ARRAY || r->element[1]->elements != 16) {
        fprintf(stderr, "    %s: not [content, map of 8]\n", cmd);
        it_case_failed = 1;
        goto done;
    }
    m = r->element[1];
    CHECKF(map_int(m, "offset") == want_offset, "%s: offset %lld, not %lld", cmd, map_int(m, "offset"), want_offset);
    CHECK(map_int(m, "version") >= 1 && map_int(m, "size") > 0 && map_get(m, "kind"));
    *length = map_int(m, "length");
    nx = map_get(m, "next_offset");
    next = nx && nx->type == REDIS_REPLY_INTEGER ? nx->integer : -1;
    CHECKF(map_int(m, "truncated") == (next >= 0), "%s: truncated %lld with next_offset %lld", cmd,
           map_int(m, "truncated"), next);
    if (*acclen + r->element[0]->len <= cap) {
        memcpy(acc + *acclen, r->element[0]->str, r->element[0]->len);
        *acclen += r->element[0]->len;
    } else {
        it_case_failed = 1;
    }
done:
    if (r)
        freeReplyObject(r);
    return next;
}

static void test_read_withmeta_paging(void)
{
    redisContext *c = conn();
    size_t len, got = 0;
    char *text = make_log(300000, &len), *acc = malloc(len + 1), cmd[160];
    long long off = 0, length = -1, next;
    int pages = 0;
    if (!c || !acc) { CHECK(0); goto done; }
    if (!sp_write_bin(c, "pg:ns", "log", text, len))
        goto done;
    /* In characters: pages of 7001 characters until next_offset is nil. */
    do {
        snprintf(cmd, sizeof(cmd), "SP.READ pg:ns log OFFSET %lld LIMIT 7001 WITHMETA", off);
        next = read_page(c, cmd, off, acc, &got, len, &length);
        CHECKF(next < 0 || next == off + 7001, "next_offset %lld after %lld", next, off);
        off = next;
    } while (next >= 0 && ++pages < 1000 && !it_case_failed);
    CHECKF(got == len && memcmp(acc, text, len) == 0, "the pages rebuild the entry (%zu of %zu bytes)", got, len);
    CHECK(length == (long long)count_chars(text, len));
    /* In bytes. */
    got = 0;
    off = 0;
    pages = 0;
    do {
        snprintf(cmd, sizeof(cmd), "SP.READ pg:ns log OFFSET %lld LIMIT 65536 BYTES WITHMETA", off);
        next = read_page(c, cmd, off, acc, &got, len, &length);
        off = next;
    } while (next >= 0 && ++pages < 1000 && !it_case_failed);
    CHECK(got == len && memcmp(acc, text, len) == 0);
    /* By lines: LINES from to, next_offset is the next line. */
    got = 0;
    off = 1;
    pages = 0;
    do {
        snprintf(cmd, sizeof(cmd), "SP.READ pg:ns log LINES %lld %lld WITHMETA", off, off + 499);
        next = read_page(c, cmd, off, acc, &got, len, &length);
        CHECK(next < 0 || next == off + 500);
        off = next;
    } while (next >= 0 && ++pages < 1000 && !it_case_failed);
    CHECK(got == len && memcmp(acc, text, len) == 0);
    /* A window past the end: empty, not truncated, next_offset nil. */
    got = 0;
    snprintf(cmd, sizeof(cmd), "SP.READ pg:ns log OFFSET 99999999 WITHMETA");
    CHECK(read_page(c, cmd, (long long)count_chars(text, len), acc, &got, len, &length) == -1 && got == 0);
done:
    if (c)
        redisFree(c);
    free(text);
    free(acc);
}

static void test_missing_is_nil(void)
{
    redisContext *c = conn();
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE ms:ns there x");
    EXPECT_NIL(c, "SP.READ ms:ns nosuch");
    EXPECT_NIL(c, "SP.READ ms:none nosuch");
    EXPECT_NIL(c, "SP.READ ms:none nosuch HEAD 5 WITHMETA");
    EXPECT_NIL(c, "SP.RANGE ms:ns nosuch 0");
    EXPECT_NIL(c, "SP.RANGE ms:none nosuch -10");
    EXPECT_NIL(c, "SP.PEEK ms:ns nosuch");
    EXPECT_NIL(c, "SP.PEEK ms:none nosuch");
    EXPECT_NIL(c, "SP.STAT ms:ns nosuch");
    EXPECT_NIL(c, "SP.STAT ms:none nosuch");
    EXPECT_NIL(c, "SP.GREP ms:none nosuch x");
    EXPECT_NIL(c, "SP.INFO ms:none");
    EXPECT_INT(c, -2, "SP.TTL ms:ns nosuch");
    EXPECT_INT(c, -2, "SP.PTTL ms:none nosuch");
    EXPECT_INT(c, 0, "SP.EXPIRE ms:none nosuch 10");
    EXPECT_INT(c, 0, "SP.PERSIST ms:none nosuch");
    EXPECT_INT(c, 0, "SP.DEL ms:none nosuch");
    EXPECT_ERR(c, "ERR no such entry 'nosuch'", "SP.EDIT ms:ns nosuch a b");
    EXPECT_ERR(c, "ERR no such entry 'nosuch'", "SP.INSERT ms:none nosuch 0 x");
    r = CMD_ARRAY(c, "SP.LIST ms:none");
    CHECK(r && r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "0") && r->element[1]->elements == 0);
    if (r) freeReplyObject(r);
    /* Reads create nothing. */
    EXPECT_INT(c, 0, "EXISTS ms:none");
    redisFree(c);
}

/* ---- SP.RANGE ---- */

static void test_range_edges(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"0", "héllo wörld"},  {"0 2", "hé"},       {"6", "wörld"},        {"-5", "wörld"},
        {"-5 -3", "wö"},       {"0 -1", "héllo wörl"}, {"3 3", ""},         {"5 2", ""},
        {"-2 -5", ""},         {"11", ""},          {"100", ""},            {"100 200", ""},
        {"-100", "héllo wörld"}, {"-100 2", "hé"},  {"-100 -50", ""},       {"0 100", "héllo wörld"},
        {"9 1000", "ld"},      {"-9223372036854775808 2", "hé"}, {"0 9223372036854775807", "héllo wörld"},
        {NULL, NULL},
    };
    redisContext *c = conn();
    char cmd[128];
    int i;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE rg:ns t %s", "héllo wörld");
    for (i = 0; cases[i].args; i++) {
        redisReply *r;
        snprintf(cmd, sizeof(cmd), "SP.RANGE rg:ns t %s", cases[i].args);
        r = redisCommand(c, cmd);
        CHECKF(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, cases[i].want) == 0, "%s gave \"%s\"", cmd,
               r && r->str ? r->str : "?");
        if (r) freeReplyObject(r);
    }
    EXPECT_BIN(c, "h\xc3", 2, "SP.RANGE rg:ns t 0 2 BYTES");
    EXPECT_BIN(c, "rld", 3, "SP.RANGE rg:ns t -3 BYTES");
    EXPECT_STR(c, "wörld", "SP.RANGE rg:ns t 7 BYTES");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.RANGE rg:ns t BYTES 0 3");
    EXPECT_INT(c, 1, "SP.WRITE rg:ns e %s", "");
    EXPECT_STR(c, "", "SP.RANGE rg:ns e 0");
    EXPECT_STR(c, "", "SP.RANGE rg:ns e -5 5");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.RANGE rg:ns t x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.RANGE rg:ns t 0 y");
    EXPECT_ERR(c, "ERR syntax error", "SP.RANGE rg:ns t 0 2 3");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.range' command", "SP.RANGE rg:ns t");
    redisFree(c);
}

/* ---- SP.GREP ---- */

static const char *const GREP_LOG =
    "INFO start v1.2\n"
    "ERROR disk 42 full\n"
    "warn: low mem\n"
    "error again 7\n"
    "INFO done\n"
    "a.b literal dot\n"
    "Übergröße ÉRROR\n";

/* Check that array r holds exactly the strings of want (NULL-terminated), in order. */
static int array_is(const redisReply *r, const char *const *want)
{
    size_t n = 0, i;
    while (want[n])
        n++;
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != n)
        return 0;
    for (i = 0; i < n; i++)
        if (!it_elem_is(r, i, REDIS_REPLY_STRING, want[i]))
            return 0;
    return 1;
}

/* Check that SP.GREP gr:ns log <pattern> <opts> replies exactly the lines of want. */
static void check_grep(const char *file, int line, redisContext *c, const char *pattern, const char *opts,
                       const char *const *want)
{
    char fmt[256];
    redisReply *r;
    snprintf(fmt, sizeof(fmt), "SP.GREP gr:ns log %%s %s", opts);
    r = redisCommand(c, fmt, pattern);
    if (!array_is(r, want)) {
        size_t i;
        fprintf(stderr, "    %s:%d: SP.GREP %s %s gave:", file, line, pattern, opts);
        for (i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
            fprintf(stderr, " [%s]", r->element[i]->str ? r->element[i]->str : "?");
        if (r && r->type != REDIS_REPLY_ARRAY)
            fprintf(stderr, " %s %s", it_type_name(r->type), r->str ? r->str : "");
        fputc('\n', stderr);
        it_case_failed = 1;
    }
    if (r)
        freeReplyObject(r);
}
#define CHECK_GREP(c, pattern, opts, ...)                                 \
    do {                                                                  \
        const char *want_[] = {__VA_ARGS__, NULL};                        \
        check_grep(__FILE__, __LINE__, c, pattern, opts, want_);          \
    } while (0)

static void test_grep(void)
{
    redisContext *c = conn();
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE gr:ns log %s", GREP_LOG);
    CHECK_GREP(c, "ERROR", "", "2:ERROR disk 42 full");
    CHECK_GREP(c, "\\d+", "", "1:INFO start v1.2", "2:ERROR disk 42 full", "4:error again 7");
    CHECK_GREP(c, "^\\w+:", "", "3:warn: low mem");
    CHECK_GREP(c, "(?i)error", "", "2:ERROR disk 42 full", "4:error again 7");
    CHECK_GREP(c, "error", "NOCASE", "2:ERROR disk 42 full", "4:error again 7");
    /* A text entry is matched by characters: case folding beyond ASCII; \w is
     * ASCII unless the pattern starts with (*UCP). */
    CHECK_GREP(c, "érror", "NOCASE", "7:Übergröße ÉRROR");
    CHECK_GREP(c, "(*UCP)^\\w+ö", "", "7:Übergröße ÉRROR");
    CHECK_GREP(c, "^Ü.{7}e", "", "7:Übergröße ÉRROR");
    /* LITERAL: "." and "(" are plain characters. */
    CHECK_GREP(c, "a.b", "LITERAL", "6:a.b literal dot");
    CHECK_GREP(c, "v1.2", "LITERAL", "1:INFO start v1.2");
    CHECK_GREP(c, "(", "LITERAL", NULL);
    CHECK_GREP(c, "INFO", "LITERAL NOCASE", "1:INFO start v1.2", "5:INFO done");
    /* CONTEXT: "n-line" around matches, each line once, in line order. */
    CHECK_GREP(c, "error", "NOCASE CONTEXT 1", "1-INFO start v1.2", "2:ERROR disk 42 full", "3-warn: low mem",
               "4:error again 7", "5-INFO done");
    CHECK_GREP(c, "done", "CONTEXT 2", "3-warn: low mem", "4-error again 7", "5:INFO done", "6-a.b literal dot",
               "7-Übergröße ÉRROR");
    /* MAX. */
    CHECK_GREP(c, "\\d", "MAX 2", "1:INFO start v1.2", "2:ERROR disk 42 full");
    /* Past MAX, the trailing context of the last shown match is its next
     * lines, matching or not (as grep -m 1 -A 1), and nothing further. */
    CHECK_GREP(c, "o", "MAX 1 CONTEXT 1", "2-ERROR disk 42 full", "3:warn: low mem", "4-error again 7");
    CHECK_GREP(c, "o", "MAX 2 CONTEXT 1", "2-ERROR disk 42 full", "3:warn: low mem", "4:error again 7",
               "5-INFO done");
    /* WITHMETA: [lines, {matched, shown, truncated}]. */
    r = CMD_ARRAY(c, "SP.GREP gr:ns log o MAX 2 WITHMETA");
    if (r) {
        CHECK(r->elements == 2 && r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 2);
        CHECK(map_int(r->element[1], "matched") == 4 && map_int(r->element[1], "shown") == 2 &&
              map_int(r->element[1], "truncated") == 1);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.GREP gr:ns log INFO WITHMETA");
    if (r) {
        CHECK(r->elements == 2 && r->element[0]->elements == 2);
        CHECK(map_int(r->element[1], "matched") == 2 && map_int(r->element[1], "shown") == 2 &&
              map_int(r->element[1], "truncated") == 0);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.GREP gr:ns log nothing-like-this WITHMETA");
    if (r) {
        CHECK(r->elements == 2 && r->element[0]->elements == 0 && map_int(r->element[1], "matched") == 0);
        freeReplyObject(r);
    }
    /* Patterns that do not compile: the problem and its offset. */
    EXPECT_ERR(c, "ERR invalid pattern at offset 2: missing closing parenthesis", "SP.GREP gr:ns log %s", "e(");
    EXPECT_ERR(c, "ERR invalid pattern at offset 3: missing terminating ] for character class",
               "SP.GREP gr:ns log %s", "[a-");
    EXPECT_ERR(c, "ERR invalid pattern at offset 0: quantifier does not follow a repeatable item",
               "SP.GREP gr:ns log %s", "*x");
    EXPECT_ERR_PREFIX(c, "ERR invalid pattern at offset ", "SP.GREP gr:ns log %s WITHMETA", "(?<n");
    EXPECT_ERR(c, "ERR CONTEXT must be at most 1000", "SP.GREP gr:ns log x CONTEXT 1001");
    EXPECT_ERR(c, "ERR MAX must not be negative", "SP.GREP gr:ns log x MAX -1");
    EXPECT_ERR(c, "ERR syntax error", "SP.GREP gr:ns log x FAST");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.grep' command", "SP.GREP gr:ns log");
    /* A binary entry is searched byte by byte. */
    EXPECT_INT(c, 1, "SP.WRITE gr:ns bin %b", "ab\0cd\nzz\xff\n", (size_t)10);
    {
        redisReply *b = CMD_ARRAY(c, "SP.GREP gr:ns bin %s", "z+\\xff");
        CHECK(b && b->elements == 1 && b->element[0]->len == 5 && memcmp(b->element[0]->str, "2:zz\xff", 5) == 0);
        if (b) freeReplyObject(b);
    }
    redisFree(c);
}

/* A catastrophic pattern on one long line hits the match limit: an error reply
 * (not an array with an error inside), at once. */
static void test_grep_match_limit(void)
{
    redisContext *c = conn();
    char *line = malloc(6002);
    int64_t t0;
    if (!c || !line) { CHECK(0); goto done; }
    memset(line, 'a', 6000);
    line[6000] = '!';
    line[6001] = '\n';
    if (!sp_write_bin(c, "gl:ns", "cat", line, 6002))
        goto done;
    t0 = it_now_ms();
    EXPECT_ERR_PREFIX(c, "ERR SP.GREP stopped at line 1: match limit exceeded", "SP.GREP gl:ns cat %s", "(a+)+$");
    EXPECT_ERR_PREFIX(c, "ERR SP.GREP stopped at line 1: match limit exceeded", "SP.GREP gl:ns cat %s WITHMETA",
                      "(a+)+$");
    CHECKF(it_now_ms() - t0 < 2000, "the two greps took %lld ms", (long long)(it_now_ms() - t0));
    /* The connection is still in step after the error. */
    EXPECT_STATUS(c, "PONG", "PING");
    /* A lower sp-grep-match-limit stops a pattern earlier. */
    EXPECT_INT(c, 1, "SP.WRITE gl:ns small %s", "aaaaaaaaaaaaaaaa!\n");
    {
        redisReply *r = CMD_ARRAY(c, "SP.GREP gl:ns small %s", "(a+)+$");
        CHECK(r && r->elements == 0);
        if (r) freeReplyObject(r);
    }
    EXPECT_OK(c, "CONFIG SET sp-grep-match-limit 1000");
    EXPECT_ERR_PREFIX(c, "ERR SP.GREP stopped at line 1: match limit exceeded", "SP.GREP gl:ns small %s", "(a+)+$");
    EXPECT_OK(c, "CONFIG SET sp-grep-match-limit 1000000");
    /* LITERAL searches the same text with no backtracking at all. */
    {
        redisReply *r = CMD_ARRAY(c, "SP.GREP gl:ns cat %s LITERAL", "(a+)+$");
        CHECK(r && r->elements == 0);
        if (r) freeReplyObject(r);
    }
    /* sp-grep-max-scan bounds the bytes one call searches. */
    EXPECT_OK(c, "CONFIG SET sp-grep-max-scan 4096");
    EXPECT_ERR(c, "ERR entry is 6002 bytes, over sp-grep-max-scan (4096): narrow the search with SP.READ LINES or "
                  "raise the limit", "SP.GREP gl:ns cat a");
    EXPECT_OK(c, "CONFIG SET sp-grep-max-scan 64mb");
done:
    if (c)
        redisFree(c);
    free(line);
}

/* Many lines, each just under the per-line match limit: the whole call must
 * still be bounded (an error), and other clients keep being served meanwhile. */
static void test_grep_work_bound(void)
{
    redisContext *c = conn(), *other = conn();
    it_conn g;
    size_t n = 3000 * 18, i;
    char *text = malloc(n);
    const char *argv[4] = {"SP.GREP", "gb:ns", "cat", "(a+)+$"};
    it_reply *gr = NULL;
    int64_t t0, ping_ms = -1, grep_ms;
    if (!c || !other || !text || it_conn_open(&g, port) < 0) { CHECK(0); goto done; }
    for (i = 0; i < n; i += 18) {
        memset(text + i, 'a', 16);
        text[i + 16] = '!';
        text[i + 17] = '\n';
    }
    if (!sp_write_bin(c, "gb:ns", "cat", text, n))
        goto out;
    t0 = it_now_ms();
    it_conn_sendv(&g, 4, argv, NULL);
    it_sleep_ms(50);
    {
        int64_t p0 = it_now_ms();
        redisReply *r = redisCommand(other, "PING");
        ping_ms = it_now_ms() - p0;
        CHECK(r && r->type == REDIS_REPLY_STATUS);
        if (r) freeReplyObject(r);
    }
    gr = it_conn_reply(&g, 60000);
    grep_ms = it_now_ms() - t0;
    CHECKF(ping_ms >= 0 && ping_ms < 500, "another client's PING waited %lld ms behind the grep",
           (long long)ping_ms);
    CHECKF(gr && gr->type == '-', "the grep answered %s after %lld ms (an error was expected)",
           gr ? (gr->type == '*' ? "an array" : "another reply") : "nothing", (long long)grep_ms);
out:
    it_conn_close(&g);
done:
    it_reply_free(gr);
    if (c)
        redisFree(c);
    if (other)
        redisFree(other);
    free(text);
}

/* SP.GREP ns pattern ENTRIES glob ...: a harness searching its observations
 * (one of them compressed) and its plan in one call. */
static void test_grep_entries(void)
{
    redisContext *c = conn();
    redisReply *r;
    size_t len;
    char *big = make_log(200000, &len);
    if (!c || !big) {
        CHECK(0);
        goto done;
    }
    EXPECT_INT(c, 1, "SP.WRITE ge:ns obs/1 %s", "GET /a 200\nGET /b 500 ERROR\n");
    EXPECT_INT(c, 1, "SP.WRITE ge:ns obs/2 %s", "ok\n");
    EXPECT_INT(c, 1, "SP.WRITE ge:ns plan %s", "- [ ] fix the ERROR\n");
    if (!sp_write_bin(c, "ge:ns", "obs/big", big, len))
        goto done;
    {
        const char *want[] = {"obs/1:2:GET /b 500 ERROR", "plan:1:- [ ] fix the ERROR", NULL};
        r = CMD_ARRAY(c, "SP.GREP ge:ns %s ENTRIES obs/? plan", "ERROR");
        CHECK(array_is(r, want));
        if (r)
            freeReplyObject(r);
    }
    {
        const char *want[] = {"obs/1-1-GET /a 200", "obs/1:2:GET /b 500 ERROR", NULL};
        r = CMD_ARRAY(c, "SP.GREP ge:ns %s ENTRIES obs/* MAX 1 CONTEXT 1", "ERROR");
        CHECK(array_is(r, want));
        if (r)
            freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.GREP ge:ns %s ENTRIES * WITHMETA", "T12:00:00\\.000 INFO");
    if (r) {
        CHECK(r->elements == 2 && r->element[0]->elements == 1 &&
              strncmp(r->element[0]->element[0]->str, "obs/big:1:2024-05-01T12:00:00.000", 33) == 0);
        CHECK(map_int(r->element[1], "matched") == 1 && map_int(r->element[1], "entries") == 4);
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.GREP ge:ns x ENTRIES none*");
    CHECK(r && r->elements == 0);
    if (r)
        freeReplyObject(r);
    EXPECT_ERR(c, "ERR invalid pattern at offset 2: missing closing parenthesis", "SP.GREP ge:ns %s ENTRIES none*",
               "e(");
    EXPECT_OK(c, "CONFIG SET sp-grep-max-scan 1024");
    EXPECT_ERR_PREFIX(c, "ERR entries are ", "SP.GREP ge:ns x ENTRIES *");
    EXPECT_OK(c, "CONFIG SET sp-grep-max-scan 64mb");
done:
    if (c)
        redisFree(c);
    free(big);
}

/* Metadata as a harness keeps it beside each observation: written with the
 * content, changed without rewriting it, listed and filtered. */
static void test_meta(void)
{
    redisContext *c = conn();
    redisReply *r;
    const redisReply *m;
    if (!c) {
        CHECK(0);
        return;
    }
    EXPECT_INT(c, 1, "SP.WRITE md:ns obs-1 %s META source %s META tool read_file", "int main() {}\n", "src/a.c");
    EXPECT_INT(c, 1, "SP.WRITE md:ns obs-2 %s META source %s META tool grep", "3 matches\n", "src/b.c");
    EXPECT_INT(c, 2, "SP.META md:ns obs-1 SET step 4");
    r = CMD_ARRAY(c, "SP.STAT md:ns obs-1");
    if (r) {
        CHECK(r->elements == 26 && map_int(r, "version") == 2);
        m = map_get(r, "meta");
        CHECK(m && m->type == REDIS_REPLY_ARRAY && m->elements == 6 && map_str_is(m, "source", "src/a.c") &&
              map_str_is(m, "step", "4") && map_str_is(m, "tool", "read_file"));
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.LIST md:ns WHERE tool grep WITHMETA");
    if (r) {
        CHECK(r->elements == 2 && r->element[1]->elements == 1 &&
              map_str_is(r->element[1]->element[0], "name", "obs-2") &&
              map_str_is(map_get(r->element[1]->element[0], "meta"), "source", "src/b.c"));
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.META md:ns obs-1 DEL step nope");
    CHECK(r && r->elements == 2 && r->element[0]->integer == 1 && r->element[1]->integer == 3);
    if (r)
        freeReplyObject(r);
    EXPECT_INT(c, 4, "SP.WRITE md:ns obs-1 %s", "int main() { return 0; }\n");
    r = CMD_ARRAY(c, "SP.STAT md:ns obs-1");
    CHECK(r && map_str_is(map_get(r, "meta"), "tool", "read_file"));
    if (r)
        freeReplyObject(r);
    EXPECT_ERR(c, "ERR metadata would have more than 32 fields",
               "SP.META md:ns obs-1 SET a 1 b 1 c 1 d 1 e 1 f 1 g 1 h 1 i 1 j 1 k 1 l 1 m 1 n 1 o 1 p 1 q 1 r 1 s 1 t "
               "1 u 1 v 1 w 1 x 1 y 1 z 1 A 1 B 1 C 1 D 1 E 1");
    EXPECT_ERR(c, "ERR no such entry 'nosuch'", "SP.META md:ns nosuch SET a b");
    redisFree(c);
}

/* ---- SP.LIST ---- */

static void test_list(void)
{
    redisContext *c = conn();
    redisReply *r;
    int i;
    if (!c) { CHECK(0); return; }
    for (i = 0; i < 5; i++)
        EXPECT_INT(c, 1, "SP.WRITE ls:ns obs-%d %s", i, "data");
    EXPECT_INT(c, 1, "SP.WRITE ls:ns plan %s", "héllo");
    EXPECT_INT(c, 1, "SP.WRITE ls:ns notes/a x");
    EXPECT_INT(c, 1, "SP.WRITE ls:ns Zeta x");
    {
        const char *all[] = {"Zeta", "notes/a", "obs-0", "obs-1", "obs-2", "obs-3", "obs-4", "plan", NULL};
        const char *obs[] = {"obs-1", "obs-3", NULL};
        r = CMD_ARRAY(c, "SP.LIST ls:ns");
        CHECK(r && r->elements == 2 && it_elem_is(r, 0, REDIS_REPLY_STRING, "0") && array_is(r->element[1], all));
        if (r) freeReplyObject(r);
        r = CMD_ARRAY(c, "SP.LIST ls:ns MATCH obs-[13]");
        CHECK(r && r->elements == 2 && array_is(r->element[1], obs));
        if (r) freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.LIST ls:ns MATCH plan WITHMETA");
    if (r) {
        const redisReply *m = r->element[1]->elements == 1 ? r->element[1]->element[0] : NULL;
        CHECK(m && m->elements == 16);
        CHECK(map_str_is(m, "name", "plan") && map_str_is(m, "kind", "text") && map_int(m, "size") == 6 &&
              map_int(m, "length") == 5 && map_int(m, "version") == 1 && map_int(m, "ttl") == -1 &&
              map_int(m, "created") > 1600000000000LL && map_int(m, "updated") >= map_int(m, "created"));
        freeReplyObject(r);
    }
    /* Paging: COUNT entries per call, a cursor to resume, "0" at the end. */
    r = CMD_ARRAY(c, "SP.LIST ls:ns COUNT 3");
    if (r) {
        const char *p1[] = {"Zeta", "notes/a", "obs-0", NULL};
        CHECK(it_elem_is(r, 0, REDIS_REPLY_STRING, ">obs-0") && array_is(r->element[1], p1));
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.LIST ls:ns COUNT 3 CURSOR >obs-0");
    if (r) {
        const char *p2[] = {"obs-1", "obs-2", "obs-3", NULL};
        CHECK(it_elem_is(r, 0, REDIS_REPLY_STRING, ">obs-3") && array_is(r->element[1], p2));
        freeReplyObject(r);
    }
    r = CMD_ARRAY(c, "SP.LIST ls:ns COUNT 3 CURSOR >obs-3");
    if (r) {
        const char *p3[] = {"obs-4", "plan", NULL};
        CHECK(it_elem_is(r, 0, REDIS_REPLY_STRING, "0") && array_is(r->element[1], p3));
        freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR invalid cursor", "SP.LIST ls:ns CURSOR 17");
    EXPECT_ERR(c, "ERR invalid cursor", "SP.LIST ls:ns CURSOR >");
    EXPECT_ERR(c, "ERR syntax error", "SP.LIST ls:ns COUNT 0");
    EXPECT_ERR(c, "ERR syntax error", "SP.LIST ls:ns SORT");
    redisFree(c);
}

/* The cursor stays valid while entries come and go: every entry present for the
 * whole listing is returned exactly once. */
static void test_list_cursor_stable(void)
{
    redisContext *c = conn();
    char cursor[300] = "0", seen[200];
    int i, calls = 0;
    if (!c) { CHECK(0); return; }
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < 200; i++)
        redisAppendCommand(c, "SP.WRITE lc:ns e%03d x", i * 2);
    for (i = 0; i < 200; i++) {
        void *r = NULL;
        if (redisGetReply(c, &r) == REDIS_OK)
            freeReplyObject(r);
    }
    do {
        redisReply *r = redisCommand(c, "SP.LIST lc:ns COUNT 9 CURSOR %s", cursor);
        size_t k;
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
            CHECK(0);
            if (r) freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
        for (k = 0; k < r->element[1]->elements; k++) {
            int v = atoi(r->element[1]->element[k]->str + 1);
            if (v % 2 == 0 && v < 400)
                seen[v / 2]++;
        }
        freeReplyObject(r);
        /* Between pages: add odd names all over, delete even names >= 300. */
        {
            redisReply *w = redisCommand(c, "SP.WRITE lc:ns e%03d new", (calls * 7 % 400) | 1);
            CHECK(w && w->type == REDIS_REPLY_INTEGER);
            if (w) freeReplyObject(w);
        }
        if (calls < 50)
            EXPECT_INT(c, 1, "SP.DEL lc:ns e%03d", 300 + calls * 2);
        calls++;
    } while (strcmp(cursor, "0") != 0 && calls < 200);
    for (i = 0; i < 150; i++)
        CHECKF(seen[i] == 1, "e%03d was returned %d times", i * 2, seen[i]);
    for (i = 150; i < 200; i++)
        CHECKF(seen[i] <= 1, "e%03d was returned %d times", i * 2, seen[i]);
    redisFree(c);
}

/* ---- SP.EDIT and SP.INSERT ---- */

static void test_edit(void)
{
    redisContext *c = conn();
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE ed:ns plan %s", "- [ ] read the code\n- [ ] write tests\n\tindented\n- [x] done\n");
    r = CMD_ARRAY(c, "SP.EDIT ed:ns plan %s %s", "- [ ] read", "- [x] read");
    CHECK(r && r->elements == 2 && r->element[0]->integer == 1 && r->element[1]->integer == 2);
    if (r) freeReplyObject(r);
    /* Byte-exact: a tab is not four spaces. */
    EXPECT_ERR(c, "ERR old text not found in entry 'plan' (the match is byte-exact, whitespace included)",
               "SP.EDIT ed:ns plan %s %s", "    indented", "x");
    EXPECT_ERR(c, "ERR old text occurs 3 times in entry 'plan' (at lines 1, 2, 4): include more context to make it "
                  "unique, or use ALL", "SP.EDIT ed:ns plan %s %s", "- [", "* [");
    /* One line number per occurrence, repeated when a line holds several. */
    EXPECT_ERR(c, "ERR old text occurs 3 times in entry 'plan' (at lines 2, 2, 3): include more context to make it "
                  "unique, or use ALL", "SP.EDIT ed:ns plan %s %s", "te", "TE");
    /* Refused edits wrote nothing: still version 2. */
    r = CMD_ARRAY(c, "SP.STAT ed:ns plan");
    CHECK(map_int(r, "version") == 2);
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.EDIT ed:ns plan %s %s ALL", "- [", "* [");
    CHECK(r && r->elements == 2 && r->element[0]->integer == 3 && r->element[1]->integer == 3);
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.EDIT ed:ns plan %s %s", "\tindented\n", "");
    CHECK(r && r->elements == 2 && r->element[0]->integer == 1 && r->element[1]->integer == 4);
    if (r) freeReplyObject(r);
    EXPECT_STR(c, "* [x] read the code\n* [ ] write tests\n* [x] done\n", "SP.READ ed:ns plan");
    EXPECT_ERR(c, "VERSION entry is at version 4, not 3", "SP.EDIT ed:ns plan %s %s IFVERSION 3", "tests", "docs");
    r = CMD_ARRAY(c, "SP.EDIT ed:ns plan %s %s IFVERSION 4", "tests", "docs");
    CHECK(r && r->elements == 2 && r->element[1]->integer == 5);
    if (r) freeReplyObject(r);
    EXPECT_ERR(c, "ERR the text to replace must not be empty", "SP.EDIT ed:ns plan %s x", "");
    EXPECT_ERR(c, "ERR syntax error", "SP.EDIT ed:ns plan a b EVERY");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.edit' command", "SP.EDIT ed:ns plan a");
    /* A text entry stays valid UTF-8. */
    EXPECT_INT(c, 1, "SP.WRITE ed:ns u %s", "café");
    EXPECT_ERR(c, "ERR the edit would make a text entry invalid UTF-8", "SP.EDIT ed:ns u %b x", "\xa9", (size_t)1);
    EXPECT_STR(c, "café", "SP.READ ed:ns u");
    /* Several occurrences on many lines: the first 20 line numbers, then "...". */
    {
        char buf[2000];
        size_t o = 0;
        int i;
        for (i = 0; i < 25; i++)
            o += (size_t)snprintf(buf + o, sizeof(buf) - o, "item TODO\n");
        EXPECT_INT(c, 1, "SP.WRITE ed:ns many %b", buf, o);
        EXPECT_ERR(c, "ERR old text occurs 25 times in entry 'many' (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, "
                      "13, 14, 15, 16, 17, 18, 19, 20, ...): include more context to make it unique, or use ALL",
                   "SP.EDIT ed:ns many TODO DONE");
    }
    redisFree(c);
}

static void test_insert(void)
{
    redisContext *c = conn();
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE in:ns f %s", "one\ntwo\nthree\n");
    EXPECT_INT(c, 2, "SP.INSERT in:ns f 0 %s", "zero");
    EXPECT_STR(c, "zero\none\ntwo\nthree\n", "SP.READ in:ns f");
    EXPECT_INT(c, 3, "SP.INSERT in:ns f 2 %s", "one and a half\n");
    EXPECT_STR(c, "zero\none\none and a half\ntwo\nthree\n", "SP.READ in:ns f");
    EXPECT_INT(c, 4, "SP.INSERT in:ns f -1 %s", "four\n");
    EXPECT_STR(c, "zero\none\none and a half\ntwo\nthree\nfour\n", "SP.READ in:ns f");
    EXPECT_INT(c, 5, "SP.INSERT in:ns f 99 %s", "five");
    EXPECT_STR(c, "five", "SP.READ in:ns f LINES -1 -1");
    /* Appending after a last line without "\n" starts a new line. */
    EXPECT_INT(c, 6, "SP.INSERT in:ns f -1 %s", "six");
    EXPECT_STR(c, "five\nsix", "SP.READ in:ns f LINES -2 -1");
    EXPECT_STR(c, "one and a half\n", "SP.READ in:ns f LINES 3 3");
    EXPECT_ERR(c, "VERSION entry is at version 6, not 2", "SP.INSERT in:ns f 0 x IFVERSION 2");
    EXPECT_INT(c, 7, "SP.INSERT in:ns f 0 x IFVERSION 6");
    EXPECT_ERR(c, "ERR line must be -1 (the end), 0 (the top) or a line number", "SP.INSERT in:ns f -2 x");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.INSERT in:ns f top x");
    EXPECT_ERR(c, "ERR syntax error", "SP.INSERT in:ns f 0 x IFVERSION");
    EXPECT_INT(c, 1, "SP.WRITE in:ns e %s", "");
    EXPECT_INT(c, 2, "SP.INSERT in:ns e 0 %s", "first");
    EXPECT_STR(c, "first", "SP.READ in:ns e");
    redisFree(c);
}

/* ---- SP.DEL ---- */

static void test_del(void)
{
    redisContext *c = conn();
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE dl:ns a x");
    EXPECT_INT(c, 1, "SP.WRITE dl:ns b x");
    EXPECT_INT(c, 1, "SP.WRITE dl:ns c x");
    EXPECT_INT(c, 2, "SP.DEL dl:ns a b nosuch a");
    EXPECT_INT(c, 1, "EXISTS dl:ns");
    EXPECT_NIL(c, "SP.READ dl:ns a");
    EXPECT_INT(c, 1, "SP.DEL dl:ns c");
    /* The last entry took the scratchpad key with it. */
    EXPECT_INT(c, 0, "EXISTS dl:ns");
    EXPECT_STATUS(c, "none", "TYPE dl:ns");
    EXPECT_INT(c, 0, "SP.DEL dl:ns c");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.del' command", "SP.DEL dl:ns");
    /* So does the last entry's expiry. */
    EXPECT_INT(c, 1, "SP.WRITE dl:ns2 a x");
    EXPECT_INT(c, 1, "SP.EXPIRE dl:ns2 a 0");
    EXPECT_INT(c, 0, "EXISTS dl:ns2");
    redisFree(c);
}

/* ---- SP.STAT ---- */

static void test_stat(void)
{
    redisContext *c = conn();
    redisReply *r;
    size_t len;
    char *big = make_log(200000, &len), hex[65];
    long long created;
    if (!c) { CHECK(0); goto done; }
    EXPECT_INT(c, 1, "SP.WRITE st:ns abc abc EX 1000");
    r = CMD_ARRAY(c, "SP.STAT st:ns abc");
    if (r) {
        static const char *const keys[] = {"kind", "size", "length", "lines", "version", "created", "updated",
                                           "ttl", "encoding", "stored", "chunks", "sha256", NULL};
        int i;
        CHECK(r->elements == 24);
        for (i = 0; keys[i]; i++)
            CHECKF(map_get(r, keys[i]) != NULL, "no %s field", keys[i]);
        CHECK(map_str_is(r, "kind", "text") && map_int(r, "size") == 3 && map_int(r, "length") == 3 &&
              map_int(r, "lines") == 1 && map_int(r, "version") == 1 && map_int(r, "chunks") == 0);
        CHECK(map_str_is(r, "encoding", "raw") && map_int(r, "stored") > 0);
        CHECK(map_int(r, "ttl") > 990000 && map_int(r, "ttl") <= 1000000);
        CHECK(map_str_is(r, "sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        created = map_int(r, "created");
        CHECK(created > 1600000000000LL && map_int(r, "updated") == created);
        freeReplyObject(r);
    }
    it_sleep_ms(5);
    EXPECT_INT(c, 4, "SP.APPEND st:ns abc d");
    r = CMD_ARRAY(c, "SP.STAT st:ns abc");
    CHECK(map_str_is(r, "sha256", "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589"));
    CHECK(map_int(r, "version") == 2 && map_int(r, "updated") > map_int(r, "created"));
    if (r) freeReplyObject(r);
    /* A large entry is stored lz4 in chunks, smaller than it is. */
    if (sp_write_bin(c, "st:ns", "big", big, len)) {
        r = CMD_ARRAY(c, "SP.STAT st:ns big");
        sha256_hex(big, len, hex);
        CHECK(map_str_is(r, "encoding", "lz4") && map_int(r, "chunks") == (long long)((len + 65535) / 65536));
        CHECK(map_int(r, "stored") > 0 && map_int(r, "stored") < (long long)len / 2);
        CHECK(map_int(r, "size") == (long long)len && map_int(r, "length") == (long long)count_chars(big, len));
        CHECKF(map_str_is(r, "sha256", hex), "sha256 of the large entry");
        if (r) freeReplyObject(r);
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.stat' command", "SP.STAT st:ns abc extra");
done:
    if (c)
        redisFree(c);
    free(big);
}

/* ---- SP.PEEK ---- */

static void test_peek(void)
{
    redisContext *c = conn();
    char text[3000], want[1200], hex[65];
    static const char bin[] = {0, 1, 2, 3, (char)0xff};
    size_t o = 0;
    int i;
    if (!c) { CHECK(0); return; }
    /* 1500 characters of which 500 are 2-byte: "é" then "a" ... */
    for (i = 0; i < 1500; i++)
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s", i % 3 == 0 ? "é" : "a");
    EXPECT_INT(c, 1, "SP.WRITE pk:ns t %b", text, o);
    /* Default: 500 head + marker + 500 tail, the exact count in between. */
    {
        size_t hb = char_to_byte(text, o, 500), tb = char_to_byte(text, o, 1000), w = 0;
        memcpy(want, text, hb);
        w = hb;
        w += (size_t)snprintf(want + w, sizeof(want) - w, "\n[... 500 characters omitted ...]\n");
        {
            char *full = malloc(w + (o - tb));
            memcpy(full, want, w);
            memcpy(full + w, text + tb, o - tb);
            EXPECT_BIN(c, full, w + (o - tb), "SP.PEEK pk:ns t");
            free(full);
        }
    }
    EXPECT_STR(c, "éa\n[... 1496 characters omitted ...]\naa", "SP.PEEK pk:ns t HEAD 2 TAIL 2");
    EXPECT_STR(c, "\n[... 1500 characters omitted ...]\n", "SP.PEEK pk:ns t HEAD 0 TAIL 0");
    EXPECT_STR(c, "éaa\n[... 1497 characters omitted ...]\n", "SP.PEEK pk:ns t HEAD 3 TAIL 0");
    /* Short content comes back whole, with no marker. */
    EXPECT_INT(c, 1, "SP.WRITE pk:ns short %s", "héllo");
    EXPECT_STR(c, "héllo", "SP.PEEK pk:ns short");
    EXPECT_STR(c, "héllo", "SP.PEEK pk:ns short HEAD 3 TAIL 2");
    EXPECT_STR(c, "h\n[... 2 characters omitted ...]\nlo", "SP.PEEK pk:ns short HEAD 1 TAIL 2");
    /* Binary: a summary with the size and the sha256. */
    EXPECT_INT(c, 1, "SP.WRITE pk:ns bin %b", bin, sizeof(bin));
    sha256_hex(bin, sizeof(bin), hex);
    snprintf(want, sizeof(want), "[BINARY: 5 bytes, sha256=%s]", hex);
    EXPECT_STR(c, want, "SP.PEEK pk:ns bin");
    EXPECT_ERR(c, "ERR HEAD must not be negative", "SP.PEEK pk:ns t HEAD -1");
    EXPECT_ERR(c, "ERR syntax error", "SP.PEEK pk:ns t MIDDLE 3");
    redisFree(c);
}

/* ---- SP.OFFLOAD ---- */

static void test_offload(void)
{
    redisContext *c = conn();
    redisReply *r;
    char *big = malloc(50001), name[64];
    long long v;
    int i;
    if (!c || !big) { CHECK(0); goto done; }
    for (i = 0; i < 50000; i++)
        big[i] = i % 80 == 79 ? '\n' : (char)('a' + i % 26);
    /* Up to the threshold (4096 by default): returned as is, nothing stored. */
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %b", big, (size_t)4096);
    CHECK(r && r->elements == 4 && map_int(r, "stored") == 0);
    {
        const redisReply *ct = map_get(r, "content");
        CHECK(ct && ct->type == REDIS_REPLY_STRING && ct->len == 4096 && memcmp(ct->str, big, 4096) == 0);
    }
    if (r) freeReplyObject(r);
    EXPECT_INT(c, 0, "EXISTS of:ns");
    /* Above it: stored under obs-1 with a preview. */
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %b", big, (size_t)50000);
    CHECK(r && r->elements == 12 && map_int(r, "stored") == 1 && map_str_is(r, "name", "obs-1"));
    CHECK(map_int(r, "size") == 50000 && map_int(r, "length") == 50000 && map_str_is(r, "kind", "text"));
    {
        redisReply *pk = CMD_STRING(c, "SP.PEEK of:ns obs-1");
        const redisReply *pv = map_get(r, "preview");
        CHECK(pk && pv && pv->len == pk->len && memcmp(pv->str, pk->str, pk->len) == 0);
        CHECK(pk && strstr(pk->str, "[... 49000 characters omitted ...]") != NULL);
        if (pk) freeReplyObject(pk);
    }
    if (r) freeReplyObject(r);
    EXPECT_BIN(c, big, 50000, "SP.READ of:ns obs-1");
    /* THRESHOLD, PREFIX; one counter per prefix. */
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 5 PREFIX tool/grep", "0123456789");
    CHECK(map_int(r, "stored") == 1 && map_str_is(r, "name", "tool/grep-1") && map_str_is(r, "preview", "0123456789"));
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 10", "0123456789");
    CHECK(map_int(r, "stored") == 0);
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 0", "x");
    CHECK(map_int(r, "stored") == 1 && map_str_is(r, "name", "obs-2"));
    if (r) freeReplyObject(r);
    /* A generated name never takes a live one. */
    EXPECT_INT(c, 1, "SP.WRITE of:ns obs-3 mine");
    EXPECT_INT(c, 1, "SP.WRITE of:ns obs-4 mine");
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 0", "y");
    CHECK(map_str_is(r, "name", "obs-5"));
    if (r) freeReplyObject(r);
    EXPECT_STR(c, "mine", "SP.READ of:ns obs-3");
    EXPECT_STR(c, "mine", "SP.READ of:ns obs-4");
    /* CHARS: the threshold counts the characters of text ("héllo": 6 bytes, 5
     * characters), the bytes of binary content. */
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 5 PREFIX u", "h\xc3\xa9llo");
    CHECK(map_int(r, "stored") == 1 && map_str_is(r, "name", "u-1"));
    if (r)
        freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 5 CHARS PREFIX u", "h\xc3\xa9llo");
    CHECK(map_int(r, "stored") == 0);
    if (r)
        freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %b THRESHOLD 5 CHARS PREFIX u", "\xff\xfe\xfd\xfc\xfb\xfa", (size_t)6);
    CHECK(map_int(r, "stored") == 1 && map_str_is(r, "name", "u-2") && map_str_is(r, "kind", "binary"));
    if (r)
        freeReplyObject(r);
    /* EX and KIND. */
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 0 EX 100 KIND binary", "z");
    snprintf(name, sizeof(name), "%s", map_get(r, "name") ? map_get(r, "name")->str : "?");
    CHECK(map_str_is(r, "kind", "binary") && map_str_is(r, "preview",
          "[BINARY: 1 bytes, sha256=594e519ae499312b29433b7dd8a97ff068defcba9755b6d5d00e84c524d67b06]"));
    if (r) freeReplyObject(r);
    v = int_cmd(c, "SP.TTL of:ns %s", name);
    CHECKF(v >= 99 && v <= 100, "TTL of %s: %lld", name, v);
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns %s THRESHOLD 0 PX 100000", "w");
    CHECK(map_str_is(r, "name", "obs-7"));
    if (r) freeReplyObject(r);
    EXPECT_ERR_PREFIX(c, "ERR invalid PREFIX: it must be a valid entry name of at most 234 bytes",
                      "SP.OFFLOAD of:ns x PREFIX %s", "bad prefix");
    EXPECT_ERR_PREFIX(c, "ERR invalid PREFIX", "SP.OFFLOAD of:ns x PREFIX %s", "..");
    EXPECT_ERR(c, "ERR KIND text requires valid UTF-8 content", "SP.OFFLOAD of:ns %b KIND text", "\xff\xfe",
               (size_t)2);
    EXPECT_ERR(c, "ERR THRESHOLD must not be negative", "SP.OFFLOAD of:ns x THRESHOLD -1");
    EXPECT_ERR(c, "ERR syntax error", "SP.OFFLOAD of:ns x NX");
    /* The default threshold follows sp-offload-threshold. */
    EXPECT_OK(c, "CONFIG SET sp-offload-threshold 8");
    r = CMD_ARRAY(c, "SP.OFFLOAD of:ns2 %s", "123456789");
    CHECK(map_int(r, "stored") == 1 && map_str_is(r, "name", "obs-1"));
    if (r) freeReplyObject(r);
    EXPECT_OK(c, "CONFIG SET sp-offload-threshold 4096");
done:
    if (c)
        redisFree(c);
    free(big);
}

/* ---- lifetimes ---- */

static void test_entry_ttl(void)
{
    redisContext *c = conn();
    long long v;
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_INT(c, 1, "SP.WRITE tl:ns keep x");
    EXPECT_INT(c, 1, "SP.WRITE tl:ns a x");
    EXPECT_INT(c, -1, "SP.TTL tl:ns a");
    EXPECT_INT(c, -1, "SP.PTTL tl:ns a");
    EXPECT_INT(c, 1, "SP.EXPIRE tl:ns a 100");
    v = int_cmd(c, "SP.TTL tl:ns a");
    CHECK(v >= 99 && v <= 100);
    EXPECT_INT(c, 1, "SP.PEXPIRE tl:ns a 5000");
    v = int_cmd(c, "SP.PTTL tl:ns a");
    CHECK(v > 4900 && v <= 5000);
    EXPECT_INT(c, 1, "SP.PERSIST tl:ns a");
    EXPECT_INT(c, 0, "SP.PERSIST tl:ns a");
    EXPECT_INT(c, -1, "SP.TTL tl:ns a");
    /* The entry's lifetime is its own: the key has none. */
    EXPECT_INT(c, 1, "SP.EXPIRE tl:ns a 50");
    EXPECT_INT(c, -1, "TTL tl:ns");
    /* Expired: invisible at once, everywhere. */
    EXPECT_INT(c, 1, "SP.PEXPIRE tl:ns a 100");
    it_sleep_ms(150);
    EXPECT_NIL(c, "SP.READ tl:ns a");
    EXPECT_NIL(c, "SP.STAT tl:ns a");
    EXPECT_NIL(c, "SP.PEEK tl:ns a");
    EXPECT_INT(c, -2, "SP.TTL tl:ns a");
    r = CMD_ARRAY(c, "SP.LIST tl:ns");
    CHECK(r && r->element[1]->elements == 1 && it_elem_is(r->element[1], 0, REDIS_REPLY_STRING, "keep"));
    if (r) freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.INFO tl:ns");
    CHECK(map_int(r, "entries") == 1);
    if (r) freeReplyObject(r);
    /* Rewritten after expiry: a new entry, version 1. */
    EXPECT_INT(c, 1, "SP.WRITE tl:ns a again");
    EXPECT_INT(c, 1, "SP.EXPIRE tl:ns a -1");
    EXPECT_NIL(c, "SP.READ tl:ns a");
    EXPECT_INT(c, 0, "SP.EXPIRE tl:ns a 10");
    EXPECT_ERR(c, "ERR value is not an integer or out of range", "SP.EXPIRE tl:ns keep soon");
    EXPECT_ERR(c, "ERR invalid expire time in 'sp.expire' command", "SP.EXPIRE tl:ns keep 9223372036854775807");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.ttl' command", "SP.TTL tl:ns");
    /* The scratchpad's own lifetime covers all its entries. */
    EXPECT_INT(c, 1, "SP.WRITE tl:ns2 a x");
    EXPECT_INT(c, 1, "SP.WRITE tl:ns2 b x EX 1000");
    EXPECT_INT(c, 1, "PEXPIRE tl:ns2 100");
    it_sleep_ms(150);
    EXPECT_NIL(c, "SP.READ tl:ns2 b");
    EXPECT_INT(c, 0, "EXISTS tl:ns2");
    redisFree(c);
}

/* Entries nobody touches after they expire: the server reclaims them by itself
 * (INFO keyspace counts fewer keys, used_memory falls). */
static void test_active_reclaim(void)
{
    redisContext *c = conn();
    char *val = malloc(2000);
    long long before, peak = 0, after = 0, keys = -1;
    int ns, i, n = 0;
    int64_t end;
    if (!c || !val) { CHECK(0); goto done; }
    memset(val, 'q', 2000);
    EXPECT_OK(c, "SELECT 9");
    before = info_num(c, "memory", "used_memory");
    for (ns = 0; ns < 40; ns++)
        for (i = 0; i < 100; i++, n++)
            redisAppendCommand(c, "SP.WRITE ar:ns%d e%d %b PX 3000", ns, i, val, (size_t)2000);
    /* One scratchpad keeps a lasting entry among expiring ones. */
    for (i = 0; i < 1000; i++, n++)
        redisAppendCommand(c, "SP.WRITE ar:keep e%d %b PX 3000", i, val, (size_t)2000);
    redisAppendCommand(c, "SP.WRITE ar:keep lasting x");
    n++;
    for (i = 0; i < n; i++) {
        void *r = NULL;
        if (redisGetReply(c, &r) == REDIS_OK)
            freeReplyObject(r);
    }
    peak = info_num(c, "memory", "used_memory");
    CHECK(keyspace_keys(c, 9) == 41);
    end = it_now_ms() + 20000;
    while (it_now_ms() < end) {
        it_sleep_ms(100);
        keys = keyspace_keys(c, 9);
        after = info_num(c, "memory", "used_memory");
        if (keys == 1 && after - before < (peak - before) / 10)
            break;
    }
    CHECKF(keys == 1, "INFO keyspace still shows %lld keys in db9", keys);
    CHECKF(after - before < (peak - before) / 10, "used_memory %lld -> %lld -> %lld", before, peak, after);
    EXPECT_STR(c, "x", "SP.READ ar:keep lasting");
    EXPECT_OK(c, "FLUSHDB");
    EXPECT_OK(c, "SELECT 0");
done:
    if (c)
        redisFree(c);
    free(val);
}

static void test_default_ttl(void)
{
    redisContext *c = conn();
    redisReply *r;
    long long v;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "CONFIG SET sp-default-ttl 300");
    r = CMD_ARRAY(c, "CONFIG GET sp-default-ttl");
    CHECK(r && it_elem_is(r, 1, REDIS_REPLY_STRING, "300"));
    if (r) freeReplyObject(r);
    EXPECT_INT(c, 1, "SP.WRITE dt:ns a x");
    v = int_cmd(c, "SP.TTL dt:ns a");
    CHECKF(v >= 299 && v <= 300, "SP.WRITE got TTL %lld", v);
    EXPECT_INT(c, 1, "SP.APPEND dt:ns b x");
    v = int_cmd(c, "SP.TTL dt:ns b");
    CHECKF(v >= 299 && v <= 300, "SP.APPEND got TTL %lld", v);
    r = CMD_ARRAY(c, "SP.OFFLOAD dt:ns %s THRESHOLD 0", "data");
    if (r) freeReplyObject(r);
    v = int_cmd(c, "SP.TTL dt:ns obs-1");
    CHECKF(v >= 299 && v <= 300, "SP.OFFLOAD got TTL %lld", v);
    /* An explicit lifetime wins; KEEPTTL keeps; PERSIST removes. */
    EXPECT_INT(c, 1, "SP.WRITE dt:ns c x EX 10");
    v = int_cmd(c, "SP.TTL dt:ns c");
    CHECK(v >= 9 && v <= 10);
    EXPECT_INT(c, 2, "SP.WRITE dt:ns c y KEEPTTL");
    v = int_cmd(c, "SP.TTL dt:ns c");
    CHECK(v >= 9 && v <= 10);
    EXPECT_INT(c, 1, "SP.PERSIST dt:ns c");
    EXPECT_INT(c, -1, "SP.TTL dt:ns c");
    EXPECT_ERR_PREFIX(c, "ERR", "CONFIG SET sp-default-ttl -1");
    EXPECT_OK(c, "CONFIG SET sp-default-ttl 0");
    EXPECT_INT(c, 1, "SP.WRITE dt:ns d x");
    EXPECT_INT(c, -1, "SP.TTL dt:ns d");
    redisFree(c);
}

/* ---- SP.INFO ---- */

static void test_info(void)
{
    redisContext *c = conn();
    redisReply *r;
    size_t len;
    char *big = make_log(100000, &len);
    long long t0;
    if (!c) { CHECK(0); goto done; }
    EXPECT_INT(c, 1, "SP.WRITE if:ns a %s", "hello");
    it_sleep_ms(3);
    EXPECT_INT(c, 1, "SP.WRITE if:ns b %s", "wörld");
    r = CMD_ARRAY(c, "SP.INFO if:ns");
    if (r) {
        CHECK(r->elements == 22 && map_int(r, "entries") == 2 && map_int(r, "bytes") == 11);
        CHECK(map_int(r, "snapshots") == 0 && map_int(r, "snapshot_bytes") == 0);
        CHECK(map_int(r, "leases") == 0 && map_int(r, "changes") == 2 && map_int(r, "feed_bytes") > 0);
        CHECK(map_int(r, "stored_bytes") > 0);
        CHECK(map_get(r, "compression_ratio") && map_get(r, "compression_ratio")->type == REDIS_REPLY_STRING);
        t0 = map_int(r, "oldest_update");
        CHECK(t0 > 1600000000000LL && map_int(r, "newest_update") > t0);
        freeReplyObject(r);
    }
    if (sp_write_bin(c, "if:ns", "big", big, len)) {
        r = CMD_ARRAY(c, "SP.INFO if:ns");
        if (r) {
            const redisReply *ratio = map_get(r, "compression_ratio");
            CHECK(map_int(r, "entries") == 3 && map_int(r, "bytes") == (long long)len + 11);
            CHECK(map_int(r, "stored_bytes") < map_int(r, "bytes"));
            CHECKF(ratio && atof(ratio->str) > 2.0, "compression ratio %s", ratio ? ratio->str : "?");
            freeReplyObject(r);
        }
    }
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.info' command", "SP.INFO if:ns extra");
done:
    if (c)
        redisFree(c);
    free(big);
}

/* ---- the data model through the key commands ---- */

static void test_data_model(void)
{
    redisContext *c = conn();
    redisReply *r;
    long long v;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "SELECT 3");
    EXPECT_INT(c, 1, "SP.WRITE session:1 plan %s", "first plan");
    EXPECT_INT(c, 1, "SP.WRITE session:2 plan %s", "second plan");
    EXPECT_STR(c, "first plan", "SP.READ session:1 plan");
    EXPECT_STR(c, "second plan", "SP.READ session:2 plan");
    EXPECT_STATUS(c, "scratchpad", "TYPE session:1");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "GET session:1");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "APPEND session:1 x");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "STRLEN session:1");
    EXPECT_OK(c, "SET str value");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SP.READ str plan");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SP.WRITE str plan x");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SP.LIST str");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SP.OFFLOAD str x");
    EXPECT_ERR(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SP.DEL str a");
    EXPECT_STR(c, "value", "GET str");
    /* SET replaces a scratchpad, as it replaces any type. */
    EXPECT_INT(c, 1, "SP.WRITE replaced a x");
    EXPECT_OK(c, "SET replaced now-a-string");
    EXPECT_STATUS(c, "string", "TYPE replaced");
    /* SCAN ... TYPE scratchpad lists the sessions only. */
    r = CMD_ARRAY(c, "SCAN 0 COUNT 1000 TYPE scratchpad");
    if (r) {
        const redisReply *k = r->element[1];
        CHECK(k->elements == 2);
        CHECK((it_elem_is(k, 0, REDIS_REPLY_STRING, "session:1") && it_elem_is(k, 1, REDIS_REPLY_STRING, "session:2")) ||
              (it_elem_is(k, 1, REDIS_REPLY_STRING, "session:1") && it_elem_is(k, 0, REDIS_REPLY_STRING, "session:2")));
        freeReplyObject(r);
    }
    /* COPY makes an independent scratchpad; RENAME moves one. */
    EXPECT_INT(c, 1, "COPY session:1 session:1-copy");
    EXPECT_INT(c, 2, "SP.WRITE session:1-copy plan changed");
    EXPECT_STR(c, "first plan", "SP.READ session:1 plan");
    EXPECT_STR(c, "changed", "SP.READ session:1-copy plan");
    EXPECT_OK(c, "RENAME session:1-copy session:3");
    EXPECT_INT(c, 0, "EXISTS session:1-copy");
    EXPECT_STATUS(c, "scratchpad", "TYPE session:3");
    EXPECT_STR(c, "changed", "SP.READ session:3 plan");
    EXPECT_STR(c, "sortedarray", "OBJECT ENCODING session:3");
    /* EXPIRE gives a whole session a lifetime; DEL ends it with everything in it. */
    EXPECT_INT(c, 1, "EXPIRE session:3 100");
    v = int_cmd(c, "TTL session:3");
    CHECK(v >= 99 && v <= 100);
    EXPECT_INT(c, 1, "SP.WRITE session:3 notes x");
    v = int_cmd(c, "TTL session:3");
    CHECKF(v >= 99 && v <= 100, "an SP.WRITE kept the key's TTL: %lld", v);
    EXPECT_INT(c, 1, "DEL session:3");
    EXPECT_NIL(c, "SP.READ session:3 plan");
    EXPECT_INT(c, 0, "EXISTS session:3");
    EXPECT_OK(c, "FLUSHDB");
    EXPECT_OK(c, "SELECT 0");
    redisFree(c);
}

static void test_multi_exec(void)
{
    redisContext *c = conn();
    redisReply *r;
    if (!c) { CHECK(0); return; }
    EXPECT_OK(c, "MULTI");
    EXPECT_STATUS(c, "QUEUED", "SP.WRITE tx:ns a %s", "hello");
    EXPECT_STATUS(c, "QUEUED", "SP.APPEND tx:ns a %s", " world");
    EXPECT_STATUS(c, "QUEUED", "SP.READ tx:ns a HEAD 5");
    EXPECT_STATUS(c, "QUEUED", "SP.EDIT tx:ns a world there");
    EXPECT_STATUS(c, "QUEUED", "SP.WRITE tx:ns a x IFVERSION 1");
    EXPECT_STATUS(c, "QUEUED", "SP.DEL tx:ns a");
    r = CMD_ARRAY(c, "EXEC");
    if (r) {
        CHECK(r->elements == 6);
        CHECK(r->element[0]->type == REDIS_REPLY_INTEGER && r->element[0]->integer == 1);
        CHECK(r->element[1]->type == REDIS_REPLY_INTEGER && r->element[1]->integer == 11);
        CHECK(it_elem_is(r, 2, REDIS_REPLY_STRING, "hello"));
        CHECK(r->element[3]->type == REDIS_REPLY_ARRAY && r->element[3]->elements == 2 &&
              r->element[3]->element[1]->integer == 3);
        CHECK(it_elem_is(r, 4, REDIS_REPLY_ERROR, "VERSION entry is at version 3, not 1"));
        CHECK(r->element[5]->type == REDIS_REPLY_INTEGER && r->element[5]->integer == 1);
        freeReplyObject(r);
    }
    EXPECT_INT(c, 0, "EXISTS tx:ns");
    /* A command refused while queueing aborts the transaction. */
    EXPECT_OK(c, "MULTI");
    EXPECT_ERR(c, "ERR wrong number of arguments for 'sp.write' command", "SP.WRITE tx:ns a");
    EXPECT_ERR(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    redisFree(c);
}

static void test_watch(void)
{
    redisContext *a = conn(), *b = conn();
    if (!a || !b) { CHECK(0); goto done; }
    EXPECT_INT(a, 1, "SP.WRITE wa:ns plan v1");
    /* Another client's SP.WRITE to the watched scratchpad aborts EXEC. */
    EXPECT_OK(a, "WATCH wa:ns");
    EXPECT_INT(b, 1, "SP.WRITE wa:ns other x");
    EXPECT_OK(a, "MULTI");
    EXPECT_STATUS(a, "QUEUED", "SP.WRITE wa:ns plan v2");
    EXPECT_NIL(a, "EXEC");
    EXPECT_STR(a, "v1", "SP.READ wa:ns plan");
    /* Reads and writes elsewhere do not. */
    EXPECT_OK(a, "WATCH wa:ns");
    EXPECT_STR(b, "v1", "SP.READ wa:ns plan");
    EXPECT_INT(b, 1, "SP.WRITE wa:elsewhere plan x");
    EXPECT_OK(a, "MULTI");
    EXPECT_STATUS(a, "QUEUED", "SP.WRITE wa:ns plan v2");
    {
        redisReply *r = CMD_ARRAY(a, "EXEC");
        CHECK(r && r->elements == 1 && r->element[0]->integer == 2);
        if (r) freeReplyObject(r);
    }
    /* Every kind of change counts: SP.APPEND, SP.EDIT, SP.DEL, SP.EXPIRE. */
    {
        static const char *const changes[] = {"SP.APPEND wa:ns plan !", "SP.EDIT wa:ns plan v2 v3",
                                              "SP.EXPIRE wa:ns other 1000", "SP.DEL wa:ns other", NULL};
        int i;
        for (i = 0; changes[i]; i++) {
            redisReply *r;
            EXPECT_OK(a, "WATCH wa:ns");
            r = redisCommand(b, changes[i]);
            CHECKF(r && r->type != REDIS_REPLY_ERROR, "%s failed", changes[i]);
            if (r) freeReplyObject(r);
            EXPECT_OK(a, "MULTI");
            EXPECT_STATUS(a, "QUEUED", "SP.READ wa:ns plan");
            r = redisCommand(a, "EXEC");
            CHECKF(r && r->type == REDIS_REPLY_NIL, "EXEC after %s was not aborted", changes[i]);
            if (r) freeReplyObject(r);
        }
    }
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
}

/* ---- RESP3 ---- */

/* 1 if r is a RESP3 map whose key k holds an integer v. */
static int r3_int_is(const it_reply *m, const char *k, long long v)
{
    const it_reply *x = it_reply_map_get(m, k);
    return x && x->type == ':' && x->integer == v;
}

static void test_resp3(void)
{
    it_conn c;
    it_reply *r;
    if (it_conn_open(&c, port) < 0) { CHECK(0); return; }
    r = it_conn_cmd(&c, "HELLO 3");
    CHECK(r && r->type == '%');
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.WRITE r3:ns a hello\nworld\n");
    CHECK(r && r->type == ':' && r->integer == 1);
    it_reply_free(r);
    /* Nils are RESP3 nulls. */
    r = it_conn_cmd(&c, "SP.WRITE r3:ns a x NX");
    CHECK(r && r->type == '_');
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.READ r3:ns nosuch");
    CHECK(r && r->type == '_');
    it_reply_free(r);
    /* SP.STAT: a map. */
    r = it_conn_cmd(&c, "SP.STAT r3:ns a");
    CHECK(r && r->type == '%' && r->elements == 24 && r3_int_is(r, "size", 12) && r3_int_is(r, "lines", 2));
    CHECK(it_reply_is(it_reply_map_get(r, "encoding"), '$', "raw"));
    it_reply_free(r);
    /* SP.READ WITHMETA: [content, map]; next_offset is null at the end. */
    r = it_conn_cmd(&c, "SP.READ r3:ns a HEAD 3 WITHMETA");
    CHECK(r && r->type == '*' && r->elements == 2 && it_reply_is(r->element[0], '$', "hel"));
    if (r && r->elements == 2) {
        CHECK(r->element[1]->type == '%' && r3_int_is(r->element[1], "next_offset", 3) &&
              r3_int_is(r->element[1], "truncated", 1));
    }
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.READ r3:ns a TAIL 3 WITHMETA");
    if (r && r->elements == 2) {
        const it_reply *nx = it_reply_map_get(r->element[1], "next_offset");
        CHECK(nx && nx->type == '_' && r3_int_is(r->element[1], "offset", 9));
    } else {
        CHECK(0);
    }
    it_reply_free(r);
    /* SP.GREP WITHMETA: [array, map]. */
    r = it_conn_cmd(&c, "SP.GREP r3:ns a o WITHMETA");
    CHECK(r && r->type == '*' && r->elements == 2 && r->element[0]->type == '*' && r->element[0]->elements == 2);
    if (r && r->elements == 2)
        CHECK(r->element[1]->type == '%' && r3_int_is(r->element[1], "matched", 2));
    it_reply_free(r);
    /* SP.LIST WITHMETA: [cursor, [map, ...]]. */
    r = it_conn_cmd(&c, "SP.LIST r3:ns WITHMETA");
    CHECK(r && r->type == '*' && r->elements == 2 && it_reply_is(r->element[0], '$', "0"));
    if (r && r->elements == 2) {
        CHECK(r->element[1]->elements == 1 && r->element[1]->element[0]->type == '%');
        CHECK(it_reply_is(it_reply_map_get(r->element[1]->element[0], "name"), '$', "a"));
    }
    it_reply_free(r);
    /* SP.OFFLOAD and SP.INFO: maps; the ratio is a double. */
    r = it_conn_cmd(&c, "SP.OFFLOAD r3:ns small");
    CHECK(r && r->type == '%' && r->elements == 4 && r3_int_is(r, "stored", 0));
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.OFFLOAD r3:ns 0123456789 THRESHOLD 4");
    CHECK(r && r->type == '%' && r->elements == 12 && it_reply_is(it_reply_map_get(r, "name"), '$', "obs-1"));
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.INFO r3:ns");
    CHECK(r && r->type == '%' && r3_int_is(r, "entries", 2));
    {
        const it_reply *ratio = it_reply_map_get(r, "compression_ratio");
        CHECK(ratio && ratio->type == ',');
    }
    it_reply_free(r);
    /* SP.EDIT: an array of two integers in both protocols. */
    r = it_conn_cmd(&c, "SP.EDIT r3:ns a hello bye");
    CHECK(r && r->type == '*' && r->elements == 2 && r->element[1]->integer == 2);
    it_reply_free(r);
    r = it_conn_cmd(&c, "SP.WRITE r3:ns a x IFVERSION 1");
    CHECK(it_reply_is(r, '-', "VERSION entry is at version 2, not 1"));
    it_reply_free(r);
    it_conn_close(&c);
}

/* ---- leases, fenced writes and the change feed ---- */

/* An agent harness on hiredis: agent A takes a lease and writes with its
 * token; agent B waits for the lease on a second connection (the command is
 * sent, the reply read after A releases); a reader blocked on SP.CHANGES gets
 * A's next write with its client name; a stale token is -FENCED. */
static void test_leases_and_feed(void)
{
    redisContext *a = conn(), *b = conn(), *rd = conn();
    redisReply *r = NULL, *w = NULL;
    long long tok = 0, tokb = 0, last = 0;
    void *vr = NULL;
    it_conn c3;
    it_reply *m;

    if (!a || !b || !rd) {
        CHECK(0);
        goto done;
    }
    EXPECT_OK(a, "CLIENT SETNAME harness-a");
    freeReplyObject(redisCommand(a, "DEL lf:ns"));
    r = CMD_ARRAY(a, "SP.LEASE lf:ns plan harness-a 10000");
    CHECK(r && r->elements == 2 && r->element[0]->type == REDIS_REPLY_INTEGER &&
          r->element[1]->type == REDIS_REPLY_INTEGER && r->element[1]->integer > 1600000000000LL);
    if (r)
        tok = r->element[0]->integer;
    freeReplyObject(r);
    EXPECT_INT(a, 1, "SP.WRITE lf:ns plan %s FENCE plan %lld", "step 1", tok);
    EXPECT_ERR_PREFIX(b, "LEASED held by harness-a for ", "SP.LEASE lf:ns plan harness-b 10000");
    /* B waits; A releases; B gets the next token. */
    CHECK(redisAppendCommand(b, "SP.LEASE lf:ns plan harness-b 10000 WAIT 3000") == REDIS_OK);
    CHECK(redisBufferWrite(b, &(int){0}) == REDIS_OK);
    it_sleep_ms(50);
    EXPECT_INT(a, 1, "SP.RELEASE lf:ns plan harness-a %lld", tok);
    if (redisGetReply(b, &vr) == REDIS_OK && vr) {
        w = vr;
        CHECK(w->type == REDIS_REPLY_ARRAY && w->elements == 2 && w->element[0]->integer == tok + 1);
        tokb = w->element[0]->integer;
        freeReplyObject(w);
    } else {
        CHECK(0);
    }
    EXPECT_ERR_PREFIX(a, "FENCED token ", "SP.WRITE lf:ns plan %s FENCE plan %lld", "late", tok);
    EXPECT_INT(b, 2, "SP.WRITE lf:ns plan %s FENCE plan %lld", "step 2", tokb);
    /* The feed: a reader blocked after the last change gets the next one. */
    r = CMD_ARRAY(rd, "SP.CHANGES lf:ns");
    CHECK(r && r->elements == 8 && map_int(r, "gap") == 0);
    if (r) {
        const redisReply *ch = map_get(r, "changes");
        CHECK(ch && ch->elements == 2 && ch->element[0]->elements == 7);
        if (ch && ch->elements == 2)
            CHECK(it_elem_is(ch->element[0], 6, REDIS_REPLY_STRING, "harness-a") &&
                  it_elem_is(ch->element[1], 2, REDIS_REPLY_STRING, "write"));
        last = map_int(r, "last");
    }
    freeReplyObject(r);
    CHECK(redisAppendCommand(rd, "SP.CHANGES lf:ns SINCE %lld BLOCK 3000", last) == REDIS_OK);
    CHECK(redisBufferWrite(rd, &(int){0}) == REDIS_OK);
    it_sleep_ms(50);
    EXPECT_INT(a, 8, "SP.APPEND lf:ns log %s", "line one");
    vr = NULL;
    if (redisGetReply(rd, &vr) == REDIS_OK && vr) {
        const redisReply *ch;
        w = vr;
        ch = map_get(w, "changes");
        CHECK(ch && ch->elements == 1 && ch->element[0]->element[0]->integer == last + 1);
        if (ch && ch->elements == 1)
            CHECK(it_elem_is(ch->element[0], 2, REDIS_REPLY_STRING, "append") &&
                  it_elem_is(ch->element[0], 3, REDIS_REPLY_STRING, "log") &&
                  it_elem_is(ch->element[0], 6, REDIS_REPLY_STRING, "harness-a"));
        freeReplyObject(w);
    } else {
        CHECK(0);
    }
    EXPECT_NIL(rd, "SP.CHANGES lf:ns SINCE %lld BLOCK 50", last + 1);
    /* RESP3: SP.CHANGES is a map, a change an array; SP.LEASE an array. */
    if (it_conn_open(&c3, port) == 0) {
        it_reply_free(it_conn_cmd(&c3, "HELLO 3"));
        m = it_conn_cmd(&c3, "SP.CHANGES lf:ns COUNT 1");
        CHECK(m && m->type == '%' && r3_int_is(m, "gap", 0));
        if (m) {
            const it_reply *ch = it_reply_map_get(m, "changes");
            CHECK(ch && ch->type == '*' && ch->elements == 1 && ch->element[0]->elements == 7);
        }
        it_reply_free(m);
        m = it_conn_cmd(&c3, "SP.LEASES lf:ns");
        CHECK(m && m->type == '*' && m->elements == 1 && m->element[0]->elements == 4);
        it_reply_free(m);
        it_conn_close(&c3);
    } else {
        CHECK(0);
    }
done:
    if (a)
        redisFree(a);
    if (b)
        redisFree(b);
    if (rd)
        redisFree(rd);
}

/* ---- large values ---- */

static void test_large_entry_windows(void)
{
    redisContext *c = conn();
    size_t len, chars, i;
    char *text = make_log(10 * 1024 * 1024, &len), cmd[200];
    size_t lines = 0;
    static const size_t starts[] = {0, 1, 65535, 65536, 65537, 131070, 1000000, 5242880, 9999999};
    if (!c) { CHECK(0); goto done; }
    for (i = 0; i < len; i++)
        lines += text[i] == '\n';
    chars = count_chars(text, len);
    if (!sp_write_bin(c, "lg:ns", "log", text, len))
        goto done;
    {
        redisReply *r = CMD_ARRAY(c, "SP.STAT lg:ns log");
        CHECK(map_str_is(r, "encoding", "lz4") && map_int(r, "size") == (long long)len &&
              map_int(r, "length") == (long long)chars && map_int(r, "lines") == (long long)lines);
        if (r) freeReplyObject(r);
    }
    {
        size_t hb = char_to_byte(text, len, 2000), tb = char_to_byte(text, len, chars - 2000);
        EXPECT_BIN(c, text, hb, "SP.READ lg:ns log HEAD 2000");
        EXPECT_BIN(c, text + tb, len - tb, "SP.READ lg:ns log TAIL 2000");
        EXPECT_BIN(c, text + tb, len - tb, "SP.RANGE lg:ns log -2000");
        EXPECT_BIN(c, text, 4000, "SP.READ lg:ns log HEAD 4000 BYTES");
        EXPECT_BIN(c, text + len - 4000, 4000, "SP.READ lg:ns log TAIL 4000 BYTES");
    }
    /* Windows across chunk boundaries, in characters and in bytes. */
    for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        size_t s = starts[i], b0 = char_to_byte(text, len, s), b1 = char_to_byte(text, len, s + 2048);
        snprintf(cmd, sizeof(cmd), "SP.RANGE lg:ns log %zu %zu", s, s + 2048);
        EXPECT_BIN(c, text + b0, b1 - b0, cmd);
        snprintf(cmd, sizeof(cmd), "SP.READ lg:ns log OFFSET %zu LIMIT 2048", s);
        EXPECT_BIN(c, text + b0, b1 - b0, cmd);
        snprintf(cmd, sizeof(cmd), "SP.RANGE lg:ns log %zu %zu BYTES", s, s + 2048);
        EXPECT_BIN(c, text + s, 2048, cmd);
    }
    /* LINES near the start, the middle, across chunks and at the end. */
    {
        static const long long ls[][2] = {{1, 3}, {800, 830}, {50000, 50100}, {-5, -1}, {-1, -1}};
        for (i = 0; i < 5; i++) {
            long long a = ls[i][0] < 0 ? (long long)lines + 1 + ls[i][0] : ls[i][0];
            long long b = ls[i][1] < 0 ? (long long)lines + 1 + ls[i][1] : ls[i][1];
            size_t b0 = line_start(text, len, (size_t)a), b1 = line_start(text, len, (size_t)b + 1);
            snprintf(cmd, sizeof(cmd), "SP.READ lg:ns log LINES %lld %lld", ls[i][0], ls[i][1]);
            EXPECT_BIN(c, text + b0, b1 - b0, cmd);
        }
    }
    /* A grep on 10 MB finds a line in the middle. */
    {
        redisReply *r = CMD_ARRAY(c, "SP.GREP lg:ns log %s WITHMETA", "id=1550000 in");
        CHECK(r && r->elements == 2 && r->element[0]->elements == 1 && map_int(r->element[1], "matched") == 1);
        if (r) freeReplyObject(r);
    }
done:
    if (c)
        redisFree(c);
    free(text);
}

static void test_large_entry_append(void)
{
    redisContext *c = conn();
    size_t len, cap, i, chars;
    char *text = make_log(10 * 1024 * 1024, &len), chunk[1024], hex[65];
    int ok = 1;
    if (!c) { CHECK(0); goto done; }
    cap = len + 300 * 1024;
    text = realloc(text, cap);
    if (!sp_write_bin(c, "la:ns", "log", text, len))
        goto done;
    chars = count_chars(text, len);
    for (i = 0; i < 300 && ok; i++) {
        size_t k;
        /* 1 KB: 1000 ASCII bytes around a 3-byte and a 2-byte character. */
        memset(chunk, 'a' + (int)(i % 26), sizeof(chunk));
        memcpy(chunk + 500, "✓", 3);
        memcpy(chunk + 1000, "é", 2);
        chunk[1023] = '\n';
        memcpy(text + len, chunk, sizeof(chunk));
        len += sizeof(chunk);
        for (k = 0; k < sizeof(chunk); k++)
            chars += ((unsigned char)chunk[k] & 0xC0) != 0x80;
        {
            redisReply *r = redisCommand(c, "SP.APPEND la:ns log %b", chunk, sizeof(chunk));
            ok = r && r->type == REDIS_REPLY_INTEGER && r->integer == (long long)chars;
            CHECKF(ok, "append %zu answered %lld, not %zu", i, r ? r->integer : -1, chars);
            if (r) freeReplyObject(r);
        }
    }
    {
        size_t tb = char_to_byte(text, len, chars - 5000);
        EXPECT_BIN(c, text + tb, len - tb, "SP.READ la:ns log TAIL 5000");
        EXPECT_BIN(c, text + len - 100000, 100000, "SP.RANGE la:ns log -100000 BYTES");
    }
    {
        redisReply *r = CMD_ARRAY(c, "SP.STAT la:ns log");
        sha256_hex(text, len, hex);
        CHECK(map_int(r, "size") == (long long)len && map_int(r, "version") == 301 && map_str_is(r, "sha256", hex));
        CHECK(map_str_is(r, "encoding", "lz4") && map_int(r, "stored") < (long long)len / 2);
        if (r) freeReplyObject(r);
    }
    {
        redisReply *r = redisCommand(c, "SP.READ la:ns log");
        CHECK(r && r->type == REDIS_REPLY_STRING && (size_t)r->len == len && memcmp(r->str, text, len) == 0);
        if (r) freeReplyObject(r);
    }
done:
    if (c)
        redisFree(c);
    free(text);
}

static void test_large_string(void)
{
    redisContext *c = conn();
    size_t len;
    char *text = make_log(10 * 1024 * 1024, &len), enc[32] = "";
    int64_t end;
    if (!c) { CHECK(0); goto done; }
    text = realloc(text, len + 200000);
    {
        redisReply *r = redisCommand(c, "SET bigstr %b", text, len);
        CHECK(r && r->type == REDIS_REPLY_STATUS);
        if (r) freeReplyObject(r);
    }
    /* Compressed after a moment (possibly at once). */
    end = it_now_ms() + 5000;
    while (it_now_ms() < end) {
        redisReply *r = redisCommand(c, "OBJECT ENCODING bigstr");
        if (r && r->str)
            snprintf(enc, sizeof(enc), "%s", r->str);
        if (r) freeReplyObject(r);
        if (!strcmp(enc, "lz4"))
            break;
        it_sleep_ms(50);
    }
    CHECKF(!strcmp(enc, "lz4"), "OBJECT ENCODING says %s", enc);
    EXPECT_INT(c, (long long)len, "STRLEN bigstr");
    EXPECT_BIN(c, text, len, "GET bigstr");
    EXPECT_BIN(c, text + 65530, 20, "GETRANGE bigstr 65530 65549");
    EXPECT_BIN(c, text + len - 1000, 1000, "GETRANGE bigstr -1000 -1");
    EXPECT_BIN(c, text + 5000000, 4096, "GETRANGE bigstr 5000000 5004095");
    EXPECT_INT(c, (long long)len + 5, "APPEND bigstr %s", "tail!");
    memcpy(text + len, "tail!", 5);
    len += 5;
    EXPECT_BIN(c, text + len - 10, 10, "GETRANGE bigstr -10 -1");
    /* SETRANGE across a chunk boundary and past the end (zero padding). */
    EXPECT_INT(c, (long long)len, "SETRANGE bigstr 65530 %s", "XXXXXXXXXXXX");
    memcpy(text + 65530, "XXXXXXXXXXXX", 12);
    EXPECT_INT(c, (long long)len + 110, "SETRANGE bigstr %lld %s", (long long)len + 100, "0123456789");
    memset(text + len, 0, 100);
    memcpy(text + len + 100, "0123456789", 10);
    len += 110;
    EXPECT_BIN(c, text + 65520, 40, "GETRANGE bigstr 65520 65559");
    EXPECT_BIN(c, text, len, "GET bigstr");
    EXPECT_INT(c, (long long)len, "STRLEN bigstr");
    {
        long long logical = info_num(c, "memory", "dataset_logical_bytes");
        long long stored = info_num(c, "memory", "dataset_stored_bytes");
        CHECKF(logical < 0 || stored < logical, "INFO memory: logical %lld, stored %lld", logical, stored);
    }
    EXPECT_INT(c, 1, "DEL bigstr");
done:
    if (c)
        redisFree(c);
    free(text);
}

/* An agent harness's cycle: snapshot before, let the agent work, read the
 * diff, go back; a sub-agent works in a fork of the parent's scratchpad. */
static void test_snapshots_and_forks(void)
{
    redisContext *c = conn();
    redisReply *r = NULL;
    size_t len;
    char *big = make_log(300000, &len);

    if (!c || !big) {
        CHECK(0);
        goto done;
    }
    freeReplyObject(redisCommand(c, "DEL sn:h sn:sub"));
    EXPECT_INT(c, 1, "SP.WRITE sn:h plan %s", "step 1");
    EXPECT_INT(c, 1, "SP.WRITE sn:h log %b", big, len);
    EXPECT_INT(c, 2, "SP.SNAPSHOT sn:h before");
    EXPECT_ERR(c, "ERR snapshot 'before' exists", "SP.SNAPSHOT sn:h before");
    EXPECT_ERR_PREFIX(c, "ERR invalid snapshot label", "SP.SNAPSHOT sn:h NOW");
    EXPECT_ERR(c, "ERR no such scratchpad", "SP.SNAPSHOT sn:none x");
    /* The agent's cycle. */
    EXPECT_INT(c, 2, "SP.WRITE sn:h plan %s", "step 2");
    r = redisCommand(c, "SP.APPEND sn:h log %s", "end\n");
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer > 0);
    freeReplyObject(r);
    EXPECT_INT(c, 1, "SP.WRITE sn:h found %s", "x");
    r = CMD_ARRAY(c, "SP.DIFF sn:h before NOW");
    CHECK(r && r->elements == 3);
    if (r && r->elements == 3) {
        CHECK(strcmp(r->element[0]->element[0]->str, "added") == 0 &&
              strcmp(r->element[0]->element[1]->str, "found") == 0 &&
              r->element[0]->element[2]->type == REDIS_REPLY_NIL);
        CHECK(strcmp(r->element[1]->element[0]->str, "changed") == 0 &&
              strcmp(r->element[1]->element[1]->str, "log") == 0 &&
              r->element[1]->element[4]->integer == (long long)len &&
              r->element[1]->element[5]->integer == (long long)len + 4);
        CHECK(strcmp(r->element[2]->element[1]->str, "plan") == 0 && r->element[2]->element[3]->integer == 2);
    }
    freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.SNAPSHOTS sn:h");
    CHECK(r && r->elements == 1 && strcmp(r->element[0]->element[0]->str, "before") == 0 &&
          r->element[0]->element[2]->integer == 2);
    freeReplyObject(r);
    r = CMD_ARRAY(c, "SP.INFO sn:h");
    CHECK(r && map_int(r, "snapshots") == 1 && map_int(r, "snapshot_bytes") > 0);
    freeReplyObject(r);
    /* A sub-agent forks the state before the cycle and works there. */
    EXPECT_INT(c, 2, "SP.FORK sn:h sn:sub FROM before");
    EXPECT_ERR(c, "ERR target key exists", "SP.FORK sn:h sn:sub");
    EXPECT_INT(c, 2, "SP.WRITE sn:sub plan %s", "sub's plan");
    EXPECT_BIN(c, big, len, "SP.READ sn:sub log");
    /* Back to before: new versions, the fork untouched. */
    EXPECT_INT(c, 3, "SP.RESTORE sn:h before");
    EXPECT_STR(c, "step 1", "SP.READ sn:h plan");
    EXPECT_BIN(c, big, len, "SP.READ sn:h log");
    EXPECT_NIL(c, "SP.READ sn:h found");
    r = CMD_ARRAY(c, "SP.STAT sn:h plan");
    CHECK(r && map_int(r, "version") > 2);
    freeReplyObject(r);
    EXPECT_ERR_PREFIX(c, "VERSION", "SP.WRITE sn:h plan %s IFVERSION 2", "stale");
    EXPECT_STR(c, "sub's plan", "SP.READ sn:sub plan");
    EXPECT_ERR(c, "ERR no such snapshot 'nope'", "SP.RESTORE sn:h nope");
    EXPECT_INT(c, 1, "SP.DROPSNAPSHOT sn:h before");
    EXPECT_INT(c, 0, "SP.DROPSNAPSHOT sn:h before");
    freeReplyObject(redisCommand(c, "DEL sn:h sn:sub"));
done:
    free(big);
    if (c)
        redisFree(c);
}

int main(void)
{
    it_init(280);
    if (it_server_start(&server, NULL) < 0) {
        printf("not ok - the server starts and answers PING\n");
        return 1;
    }
    port = server.port;

    RUN(test_write_versions, "SP.WRITE creates and silently overwrites, replying 1, 2, 3...; names are case-sensitive");
    RUN(test_write_ttl_options, "SP.WRITE EX, PX and KEEPTTL set, keep or clear an entry's lifetime; bad ones are refused");
    RUN(test_write_conditions, "SP.WRITE NX/XX answer nil and IFVERSION a VERSION error, changing nothing; IFVERSION 0 means absent");
    RUN(test_names, "an invalid entry name is refused with the name and the rule, never rewritten");
    RUN(test_kinds, "kind is detected on write, KIND text on invalid UTF-8 is refused, binary entries count bytes");
    RUN(test_append, "SP.APPEND creates, appends and replies the new length in the entry's units, with IFVERSION");
    RUN(test_read_windows, "SP.READ returns the whole entry or an OFFSET/LIMIT, HEAD or TAIL window, in characters or BYTES");
    RUN(test_read_lines_edges, "SP.READ LINES is 1-based and inclusive, -1 is the last line, out-of-range windows are clipped or empty");
    RUN(test_read_withmeta_paging, "SP.READ WITHMETA pages through a 300 KB entry by next_offset in characters, bytes and lines");
    RUN(test_missing_is_nil, "a missing entry or scratchpad reads as nil in SP.READ, SP.RANGE, SP.PEEK, SP.STAT and lists nothing");
    RUN(test_range_edges, "SP.RANGE slices [start, end) like Python: negative, reversed, empty and out-of-range bounds");
    RUN(test_grep, "SP.GREP finds lines by PCRE (\\d, \\w, (?i)), NOCASE, LITERAL, CONTEXT, MAX and WITHMETA, and names bad patterns");
    RUN(test_grep_match_limit, "SP.GREP answers a catastrophic pattern with an error at once, and obeys its two limits");
    RUN(test_grep_work_bound, "SP.GREP bounds the work of one call: other clients are served and the grep ends in an error");
    RUN(test_grep_entries,
        "SP.GREP ... ENTRIES searches the entries matching globs, compressed ones too, as name:n:line with MAX, CONTEXT, WITHMETA and the same errors");
    RUN(test_meta,
        "an agent harness on hiredis: SP.WRITE ... META, SP.META SET and DEL, SP.STAT's meta map, SP.LIST WHERE with WITHMETA, an overwrite keeping the metadata, the bounds");
    RUN(test_list, "SP.LIST lists names in order, with MATCH, WITHMETA, and pages by COUNT and CURSOR");
    RUN(test_list_cursor_stable, "SP.LIST's cursor returns every entry present throughout exactly once while entries come and go");
    RUN(test_edit, "SP.EDIT replaces a unique byte-exact string, reports none or several with line numbers, and ALL");
    RUN(test_insert, "SP.INSERT puts whole lines at the top (0), the end (-1) or after any line, with IFVERSION");
    RUN(test_del, "SP.DEL counts what it deleted and the scratchpad key goes with its last entry");
    RUN(test_stat, "SP.STAT gives kind, sizes, lines, version, times, ttl, encoding lz4 for a large entry, chunks and sha256");
    RUN(test_peek, "SP.PEEK shows head, the exact omitted count and tail, the whole of short text, a summary of binary");
    RUN(test_offload, "SP.OFFLOAD stores above the threshold under a fresh generated name with a preview, returns smaller content");
    RUN(test_entry_ttl, "SP.EXPIRE, PEXPIRE, TTL, PTTL and PERSIST manage entry lifetimes; an expired entry is gone at once");
    RUN(test_active_reclaim, "expired entries nobody touches are reclaimed: INFO keyspace and used_memory fall by themselves");
    RUN(test_default_ttl, "sp-default-ttl set by CONFIG SET applies to entries written without a lifetime");
    RUN(test_info, "SP.INFO gives entries, logical and stored bytes, the compression ratio and update times");
    RUN(test_data_model, "a scratchpad is a key of TYPE scratchpad: WRONGTYPE both ways, SCAN TYPE, COPY, RENAME, EXPIRE, DEL");
    RUN(test_multi_exec, "SP commands run inside MULTI/EXEC, their errors in place, and a bad one aborts EXEC");
    RUN(test_watch, "a WATCHed scratchpad changed by another client's SP command aborts EXEC; reads do not");
    RUN(test_resp3, "after HELLO 3 SP.STAT, SP.INFO and SP.OFFLOAD are maps, WITHMETA carries a map, nils are nulls");
    RUN(test_leases_and_feed,
        "an agent harness on hiredis: a lease, fenced writes, a WAIT served by a release, a stale token FENCED, a blocked SP.CHANGES reader woken with the writer's name, RESP3 shapes");
    RUN(test_snapshots_and_forks,
        "an agent harness on hiredis: SP.SNAPSHOT before a cycle, SP.DIFF after, SP.FORK for a sub-agent, SP.RESTORE with new versions");
    RUN(test_large_entry_windows, "a 10 MB log entry is stored lz4 and HEAD, TAIL, RANGE, OFFSET and LINES windows are exact");
    RUN(test_large_entry_append, "300 appends of 1 KB to a 10 MB entry reply the right lengths and leave the exact content");
    RUN(test_large_string, "a 10 MB string becomes lz4 and GET, GETRANGE, STRLEN, APPEND and SETRANGE stay exact");
    it_server_finish(&server);
    return TEST_DONE();
}
