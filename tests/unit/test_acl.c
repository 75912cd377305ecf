/* test_acl.c -- unit tests of the ACL rule parser (server/cmd/aclrules.c).
 *
 * A small catalog stands for the registry: a few commands, a container with
 * two subcommands, and their categories. Each case applies rules as ACL
 * SETUSER would and checks what the user then allows and how it is
 * described (the texts are redis-server 7.0's for the same rules;
 * tests/integration/diff_acl.py compares the real thing). The last case is a
 * property over random rule sequences: replaying a user's description on a
 * fresh user gives the same permissions and the same description. */
#include "cmd/aclrules.h"
#include "core/mem.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

enum {
    C_READ = 1,
    C_WRITE = 2,
    C_STRING = 7,
    C_HASH = 6,
    C_ADMIN = 13,
    C_FAST = 14,
    C_SLOW = 15,
    C_DANGER = 17,
    C_CONN = 18,
    C_KEYSPACE = 0
};
#define B(x) (1u << (x))

static const aclr_cmd cat[] = {
    {"get", -1, 0, 0, B(C_READ) | B(C_STRING) | B(C_FAST)},
    {"set", -1, 0, 0, B(C_WRITE) | B(C_STRING) | B(C_SLOW)},
    {"config", -1, 3, 2, B(C_SLOW)},
    {"config|get", 2, 0, 0, B(C_ADMIN) | B(C_SLOW) | B(C_DANGER)},
    {"config|set", 2, 0, 0, B(C_ADMIN) | B(C_SLOW) | B(C_DANGER)},
    {"hset", -1, 0, 0, B(C_WRITE) | B(C_HASH) | B(C_FAST)},
    {"select", -1, 0, 0, B(C_CONN) | B(C_FAST)},
    {"flushall", -1, 0, 0, B(C_KEYSPACE) | B(C_WRITE) | B(C_SLOW) | B(C_DANGER)},
    {"mget", -1, 0, 0, B(C_READ) | B(C_STRING) | B(C_FAST)},
    {"hget", -1, 0, 0, B(C_READ) | B(C_HASH) | B(C_FAST)},
    {"del", -1, 0, 0, B(C_KEYSPACE) | B(C_WRITE) | B(C_SLOW)},
};
#define NCMD ((int)(sizeof(cat) / sizeof(cat[0])))

/* Apply space-separated rules (a word "(a b)" may not contain spaces here:
 * use apply_args for selectors). 0 / -1. */
static int apply(aclr_user *u, const char *rules)
{
    char buf[1024], *save = NULL, *w;
    const char *err;

    snprintf(buf, sizeof(buf), "%s", rules);
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (aclr_apply(u, w, strlen(w), &err) < 0)
            return -1;
    return 0;
}

static int apply_args(aclr_user *u, int argc, const char **argv, char *err, size_t cap)
{
    size_t lens[16];
    int i;

    for (i = 0; i < argc; i++)
        lens[i] = strlen(argv[i]);
    return aclr_apply_args(u, argc, argv, lens, err, cap);
}

static aclr_user *user(const char *rules)
{
    aclr_user *u = aclr_user_new("u", 1);
    CHECK(apply(u, rules) == 0);
    return u;
}

static int described_as(const aclr_user *u, const char *want)
{
    char *d = aclr_describe_user(u);
    int ok = strcmp(d, want) == 0;
    if (!ok)
        fprintf(stderr, "    described as '%s', want '%s'\n", d, want);
    xfree(d);
    return ok;
}

static int can(const aclr_user *u, const char *name)
{
    int id = aclr_lookup(name, strlen(name));
    return id >= 0 && aclr_sel_cmd(&u->sels[0], id, NULL, 0);
}

static void test_new_user(void)
{
    aclr_user *u = aclr_user_new("u", 1);
    CHECK(described_as(u, "off resetchannels -@all"));
    CHECK(!u->allow_all && u->npw == 0);
    CHECK(!can(u, "get"));
    aclr_user_free(u);
}

static void test_default_user(void)
{
    aclr_user *u = user("+@all ~* &* on nopass");
    CHECK(described_as(u, "on nopass ~* &* +@all"));
    CHECK(u->allow_all);
    CHECK(aclr_check_password(u, "anything", 8));
    CHECK(apply(u, "-flushall") == 0);
    CHECK(!u->allow_all && can(u, "get") && !can(u, "flushall"));
    CHECK(described_as(u, "on nopass ~* &* +@all -flushall"));
    aclr_user_free(u);
}

static void test_passwords(void)
{
    static const char h1[] = "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a"; /* sha256("p1") */
    aclr_user *u = user("on >p1 >p2 >p1");
    char want[256];
    const char *err = NULL;

    CHECK(u->npw == 2);
    CHECK(aclr_check_password(u, "p1", 2) && aclr_check_password(u, "p2", 2));
    CHECK(!aclr_check_password(u, "p3", 2) && !aclr_check_password(u, "", 0) && !aclr_check_password(u, "p", 1));
    CHECK(apply(u, "<p2") == 0 && u->npw == 1 && !aclr_check_password(u, "p2", 2));
    snprintf(want, sizeof(want), "on #%s resetchannels -@all", h1);
    CHECK(described_as(u, want));
    CHECK(aclr_apply(u, "<p2", 3, &err) < 0 &&
          strcmp(err, "The password you are trying to remove from the user does not exist") == 0);
    CHECK(aclr_apply(u, "#abc", 4, &err) < 0 &&
          strcmp(err, "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
                      "characters") == 0);
    snprintf(want, sizeof(want), "!%s", h1);
    CHECK(aclr_apply(u, want, strlen(want), &err) == 0 && u->npw == 0);
    want[0] = '#';
    CHECK(aclr_apply(u, want, strlen(want), &err) == 0 && aclr_check_password(u, "p1", 2));
    CHECK(apply(u, "nopass") == 0 && u->npw == 0 && aclr_check_password(u, "x", 1));
    CHECK(apply(u, "resetpass") == 0 && !aclr_check_password(u, "x", 1));
    aclr_user_free(u);
}

static void test_commands(void)
{
    aclr_user *u = user("+@all -get");
    const char *err = NULL;

    CHECK(described_as(u, "off resetchannels +@all -get"));
    CHECK(!can(u, "get") && can(u, "set") && can(u, "config|get"));
    aclr_user_free(u);
    u = user("+config -config|set");
    CHECK(can(u, "config|get") && !can(u, "config|set"));
    aclr_user_free(u);
    u = user("+@hash +get +config|get");
    CHECK(can(u, "hset") && can(u, "get") && can(u, "config|get") && !can(u, "set") && !can(u, "config"));
    CHECK(described_as(u, "off resetchannels -@all +@hash +get +config|get"));
    CHECK(aclr_apply(u, "+nosuch", 7, &err) < 0 && strcmp(err, "Unknown command or category name in ACL") == 0);
    CHECK(aclr_apply(u, "+@nosuch", 8, &err) < 0);
    CHECK(aclr_apply(u, "-get|x", 6, &err) < 0);
    CHECK(aclr_apply(u, "+config|nosuch", 14, &err) < 0);
    CHECK(aclr_apply(u, "+config|get|x", 13, &err) < 0 &&
          strcmp(err, "Allowing first-arg of a subcommand is not supported") == 0);
    CHECK(aclr_apply(u, "bogus", 5, &err) < 0 && strcmp(err, "Syntax error") == 0);
    aclr_user_free(u);
}

static void test_first_args(void)
{
    aclr_user *u = user("+select|0");
    int id = aclr_lookup("select", 6);

    CHECK(aclr_sel_cmd(&u->sels[0], id, "0", 1) && !aclr_sel_cmd(&u->sels[0], id, "1", 1));
    CHECK(!aclr_sel_cmd(&u->sels[0], id, NULL, 0));
    CHECK(described_as(u, "off resetchannels -@all +select|0"));
    CHECK(apply(u, "-select") == 0 && !aclr_sel_cmd(&u->sels[0], id, "0", 1));
    aclr_user_free(u);
}

static void test_keys(void)
{
    aclr_user *u = user("~k* %R~r* %W~w*");
    const char *err = NULL;
    const aclr_sel *s = &u->sels[0];

    CHECK(aclr_sel_key(s, "k1", 2, ACLR_READ | ACLR_WRITE));
    CHECK(aclr_sel_key(s, "r1", 2, ACLR_READ) && !aclr_sel_key(s, "r1", 2, ACLR_WRITE));
    CHECK(aclr_sel_key(s, "w1", 2, ACLR_WRITE) && !aclr_sel_key(s, "w1", 2, ACLR_READ));
    CHECK(!aclr_sel_key(s, "x", 1, ACLR_READ));
    CHECK(described_as(u, "off ~k* %R~r* %W~w* resetchannels -@all"));
    CHECK(apply(u, "%W~r*") == 0 && aclr_sel_key(s, "r1", 2, ACLR_READ | ACLR_WRITE));
    CHECK(apply(u, "allkeys") == 0 && u->sels[0].nkeys == 0 && aclr_sel_key(&u->sels[0], "x", 1, ACLR_RW));
    CHECK(aclr_apply(u, "~x", 2, &err) < 0 && strncmp(err, "Adding a pattern after the * pattern", 36) == 0);
    CHECK(aclr_apply(u, "%X~x", 4, &err) < 0 && aclr_apply(u, "%~x", 3, &err) < 0);
    CHECK(apply(u, "resetkeys %RW~*") == 0 && !(u->sels[0].flags & ACLR_ALLKEYS) && u->sels[0].nkeys == 1);
    aclr_user_free(u);
}

static void test_channels(void)
{
    aclr_user *u = user("&c* &d1");
    const char *err = NULL;

    CHECK(aclr_sel_chan(&u->sels[0], "c1", 2, 0) && aclr_sel_chan(&u->sels[0], "d1", 2, 0));
    CHECK(!aclr_sel_chan(&u->sels[0], "d2", 2, 0));
    CHECK(aclr_sel_chan(&u->sels[0], "c*", 2, 1) && !aclr_sel_chan(&u->sels[0], "c1*", 3, 1));
    CHECK(described_as(u, "off resetchannels &c* &d1 -@all"));
    CHECK(apply(u, "allchannels") == 0 && aclr_apply(u, "&x", 2, &err) < 0);
    aclr_user_free(u);
}

static void test_selectors(void)
{
    aclr_user *u = aclr_user_new("u", 1);
    const char *a1[] = {"on", "(+get", "~s*)", "+set", "~k*"};
    const char *a2[] = {"+get", "(~x", "+hset"};
    const char *a3[] = {"(+get", "(+set", "~a)"};
    char err[512];

    CHECK(apply_args(u, 5, a1, err, sizeof(err)) == 0);
    CHECK(u->nsels == 2);
    CHECK(described_as(u, "on ~k* resetchannels -@all +set (~s* resetchannels -@all +get)"));
    CHECK(apply_args(u, 3, a2, err, sizeof(err)) < 0);
    CHECK(strcmp(err, "Unmatched parenthesis in acl selector starting at '(~x'.") == 0);
    CHECK(!can(u, "get")); /* nothing applied: the parenthesis is checked first */
    CHECK(apply_args(u, 3, a3, err, sizeof(err)) == 0 && u->nsels == 3); /* a '(' restarts an open selector */
    CHECK(described_as(u, "on ~k* resetchannels -@all +set (~s* resetchannels -@all +get) (~a resetchannels -@all "
                          "+set)"));
    CHECK(apply(u, "clearselectors") == 0 && u->nsels == 1);
    aclr_user_free(u);
}

static void test_reset(void)
{
    aclr_user *u = user("on >p ~* &* +@all (+get)");
    CHECK(apply(u, "reset") == 0);
    CHECK(described_as(u, "off sanitize-payload resetchannels -@all"));
    CHECK(u->nsels == 1 && u->npw == 0);
    aclr_user_free(u);
}

/* Apply the description of u (split on spaces, selectors joined back) to
 * a fresh user. */
static aclr_user *replay(const aclr_user *u)
{
    char *d = aclr_describe_user(u), *save = NULL, *w;
    const char *argv[256];
    size_t lens[256];
    int argc = 0;
    char err[512];
    aclr_user *r = aclr_user_new("r", 1);

    for (w = strtok_r(d, " ", &save); w && argc < 256; w = strtok_r(NULL, " ", &save)) {
        argv[argc] = w;
        lens[argc++] = strlen(w);
    }
    CHECK(aclr_apply_args(r, argc, argv, lens, err, sizeof(err)) == 0);
    xfree(d);
    return r;
}

static void test_replay_property(void)
{
    static const char *rules[] = {"+get",        "-get",        "+set",     "-set",        "+config",   "-config",
                                  "+config|get", "-config|set", "+@read",   "-@read",      "+@write",   "-@write",
                                  "+@admin",     "-@admin",     "+@all",    "-@all",       "+@fast",    "-@slow",
                                  "+select|0",   "+select|1",   "~k*",      "%R~r*",       "&c*",       "allkeys",
                                  "resetkeys",   "+hset",       "-@string", "+@dangerous", "-flushall", "+flushall"};
    int round, i, bad = 0;

    rng_seed(20);
    for (round = 0; round < 2000; round++) {
        aclr_user *u = aclr_user_new("u", 1), *r;
        char *d1, *d2;
        int n = (int)rng_below(8), k;
        const char *err;
        for (i = 0; i < n; i++) {
            const char *op = rules[rng_below(sizeof(rules) / sizeof(rules[0]))];
            aclr_apply(u, op, strlen(op), &err);
        }
        r = replay(u);
        d1 = aclr_describe_user(u);
        d2 = aclr_describe_user(r);
        for (k = 0; k < NCMD; k++)
            if (aclr_sel_cmd(&u->sels[0], k, "0", 1) != aclr_sel_cmd(&r->sels[0], k, "0", 1))
                bad++;
        if (strcmp(d1, d2) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "    '%s' replays as '%s'\n", d1, d2);
        }
        xfree(d1);
        xfree(d2);
        aclr_user_free(u);
        aclr_user_free(r);
    }
    CHECK(bad == 0);
}

static void test_dup_is_deep(void)
{
    aclr_user *u = user("on >p ~k* &c +get (+set) +select|0"), *d = aclr_user_dup(u);
    CHECK(apply(u, "reset") == 0);
    CHECK(described_as(d, "on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 ~k* resetchannels &c "
                          "-@all +get +select|0 (resetchannels -@all +set)"));
    aclr_user_free(u);
    aclr_user_free(d);
}

int main(void)
{
    aclr_set_catalog(cat, NCMD);
    RUN(test_new_user, "a new user is off, without passwords, keys, channels or commands");
    RUN(test_default_user, "the default user's rules allow everything (the fast path) until one is taken away");
    RUN(test_passwords, ">, <, # and ! add and remove SHA-256 digests; nopass and resetpass; Redis's errors");
    RUN(test_commands, "commands, categories, containers and subcommands; unknown names are Redis's errors");
    RUN(test_first_args, "+select|0 allows SELECT with that first argument only, until -select");
    RUN(test_keys, "~, %R~ and %W~ patterns allow the access they name; allkeys; a pattern after it is an error");
    RUN(test_channels, "channels match & patterns; a PSUBSCRIBE pattern must equal one; allchannels");
    RUN(test_selectors, "selectors across arguments, an unclosed one refused before any rule applies");
    RUN(test_reset, "reset leaves an off user with sanitize-payload and nothing else");
    RUN(test_dup_is_deep, "a copy of a user keeps its rules when the original is reset");
    RUN(test_replay_property, "2000 random rule sequences: a user's description replays to the same permissions");
    return test_failed ? 1 : 0;
}
