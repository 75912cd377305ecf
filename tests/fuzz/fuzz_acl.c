/* fuzz_acl.c -- libFuzzer target: the ACL rule parser (server/cmd/aclrules.c).
 *
 * The input is a list of ACL SETUSER arguments, one per line (at most 64,
 * '\n'-separated; any bytes, NUL included, inside an argument). They are
 * applied as ACL SETUSER applies them, to a fresh user, over a small fixed
 * catalog (commands, a container with subcommands, first arguments,
 * categories) so that the parser is tested alone. Whatever was accepted:
 * the user's description must replay, on another fresh user, to the same
 * description and the same permissions (ACL LIST and ACL SAVE rely on it);
 * a copy must describe the same; the checks (commands, keys, channels,
 * passwords) must run on it. Any difference aborts. As in Redis, a pattern
 * or a first argument with a space or a parenthesis makes a description that
 * does not replay: such users are only copied, not replayed.
 *
 * Built alone (the parser needs only core/util.c, core/mem.c and nettle):
 *   clang -O1 -g -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE -Iserver -Iserver/core \
 *     -o fuzz_acl tests/fuzz/fuzz_acl.c server/cmd/aclrules.c server/core/util.c server/core/mem.c \
 *     $(pkg-config --libs nettle) -lm
 *   ./fuzz_acl -max_len=512 tests/fuzz/corpus/acl */
#include "cmd/aclrules.h"
#include "core/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define B(x) (1u << (x))
static const aclr_cmd catalog[] = {
    {"get", -1, 0, 0, B(1) | B(7) | B(14)},
    {"set", -1, 0, 0, B(2) | B(7) | B(15)},
    {"config", -1, 3, 2, B(15)},
    {"config|get", 2, 0, 0, B(13) | B(15) | B(17)},
    {"config|set", 2, 0, 0, B(13) | B(15) | B(17)},
    {"hset", -1, 0, 0, B(2) | B(6) | B(14)},
    {"select", -1, 0, 0, B(18) | B(14)},
    {"flushall", -1, 0, 0, B(0) | B(2) | B(15) | B(17)},
    {"sp.read", -1, 0, 0, B(1) | B(21) | B(15)},
    {"sp.write", -1, 0, 0, B(2) | B(21) | B(15)},
};
#define NCMD ((int)(sizeof(catalog) / sizeof(catalog[0])))
#define MAXARGS 64

static int same_perms(const aclr_user *a, const aclr_user *b)
{
    static const char *const keys[] = {"", "k", "k1", "agent-a:x", "r", "*", "[", "a?b"};
    int i, j, k;

    if (a->nsels != b->nsels || a->flags != b->flags || a->npw != b->npw)
        return 0;
    for (i = 0; i < a->nsels; i++) {
        for (k = 0; k < NCMD; k++)
            if (aclr_sel_cmd(&a->sels[i], k, "0", 1) != aclr_sel_cmd(&b->sels[i], k, "0", 1) ||
                aclr_sel_cmd(&a->sels[i], k, NULL, 0) != aclr_sel_cmd(&b->sels[i], k, NULL, 0))
                return 0;
        for (j = 0; j < (int)(sizeof(keys) / sizeof(keys[0])); j++) {
            size_t n = strlen(keys[j]);
            for (k = 1; k <= 3; k++)
                if (aclr_sel_key(&a->sels[i], keys[j], n, k) != aclr_sel_key(&b->sels[i], keys[j], n, k))
                    return 0;
            if (aclr_sel_chan(&a->sels[i], keys[j], n, 0) != aclr_sel_chan(&b->sels[i], keys[j], n, 0) ||
                aclr_sel_chan(&a->sels[i], keys[j], n, 1) != aclr_sel_chan(&b->sels[i], keys[j], n, 1))
                return 0;
        }
    }
    return 1;
}

static int odd(const char *p, size_t n)
{
    return memchr(p, ' ', n) || memchr(p, '(', n) || memchr(p, ')', n);
}

/* 1 if a pattern or first argument of u would not survive being written on
 * one line of space-separated words. */
static int unreplayable(const aclr_user *u)
{
    int i, j, k;

    for (i = 0; i < u->nsels; i++) {
        const aclr_sel *s = &u->sels[i];
        for (j = 0; j < s->nkeys; j++)
            if (odd(s->keys[j].p, s->keys[j].len))
                return 1;
        for (j = 0; j < s->nchans; j++)
            if (odd(s->chans[j].p, s->chans[j].len))
                return 1;
        for (j = 0; s->firstargs && j < ACLR_MAX_CMDS; j++)
            for (k = 0; s->firstargs[j] && s->firstargs[j][k]; k++)
                if (odd(s->firstargs[j][k], strlen(s->firstargs[j][k])))
                    return 1;
    }
    return 0;
}

/* Split s on spaces into argv (in place); the number of words. */
static int split(char *s, const char **argv, size_t *lens, int max)
{
    int n = 0;
    char *p = s;

    while (*p && n < max) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        argv[n] = p;
        while (*p && *p != ' ')
            p++;
        lens[n] = (size_t)(p - argv[n]);
        n++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    const char *argv[MAXARGS], *dargv[4096];
    size_t lens[MAXARGS], dlens[4096];
    char err[1024];
    char *copy, *d1, *d2, *d3, *dsplit;
    aclr_user *u, *r, *dup;
    size_t i, start = 0;
    int argc = 0, dargc;

    if (!ready) {
        aclr_set_catalog(catalog, NCMD);
        ready = 1;
    }
    copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    for (i = 0; i <= size && argc < MAXARGS; i++) {
        if (i == size || copy[i] == '\n') {
            argv[argc] = copy + start;
            lens[argc++] = i - start;
            start = i + 1;
        }
    }
    u = aclr_user_new("u", 1);
    aclr_apply_args(u, argc, argv, lens, err, sizeof(err));
    aclr_check_password(u, "secret", 6);

    /* The description replays to the same user (a NUL inside a pattern or a
     * password cannot appear in a description: those users are skipped). */
    d1 = aclr_describe_user(u);
    dsplit = xstrdup(d1);
    dargc = split(dsplit, dargv, dlens, 4096);
    r = aclr_user_new("u", 1);
    if (memchr(copy, '\0', size) == NULL && dargc < 4096 && !unreplayable(u)) {
        /* A "*" pattern given as %RW~* is described "~*", which replays as
         * allkeys (Redis does the same): with other patterns after it the
         * replay fails or differs; only that may. */
        int star = strstr(d1, " ~* ") || strstr(d1, "~* ~") || strstr(d1, " ~*)") || strstr(d1, "(~* ");
        if (aclr_apply_args(r, dargc, dargv, dlens, err, sizeof(err)) != 0) {
            if (!star)
                abort();
        } else {
            d2 = aclr_describe_user(r);
            if ((strcmp(d1, d2) != 0 || !same_perms(u, r)) && !star)
                abort();
            xfree(d2);
        }
    }
    dup = aclr_user_dup(u);
    d3 = aclr_describe_user(dup);
    if (strcmp(d1, d3) != 0 || !same_perms(u, dup))
        abort();
    xfree(d3);
    xfree(dsplit);
    xfree(d1);
    aclr_user_free(dup);
    aclr_user_free(r);
    aclr_user_free(u);
    xfree(copy);
    return 0;
}
