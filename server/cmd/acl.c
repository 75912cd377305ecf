/* acl.c -- users, the permission check, AUTH, ACL LOG and the ACL command
 * (see acl.h). Replies and errors are Redis 7.0.15's, word for word. */
#include "cmd/acl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/multi.h"
#include "cmd/pubsub.h"
#include "config.h"
#include "core/mem.h"
#include "core/util.h"
#include "log.h"
#include "net/net.h"
#include "net/reply.h"

char *acl_filename;        /* aclfile, "" for none */
int acl_log_max_len = 128; /* acllog-max-len */

/* ---- the catalog: every command and subcommand of the registry ---- */

static aclr_cmd catalog[ACLR_MAX_CMDS];
static int ncatalog;
typedef struct cat_ref {
    const cmd_def *cmd;
    int id;
} cat_ref;
#define ID_SLOTS (ACLR_MAX_CMDS * 2) /* open addressing by the row's address */
static cat_ref byaddr[ID_SLOTS];
/* The channels a command names (by catalog id): none, argv[1] (PUBLISH,
 * SPUBLISH), argv[1..] (SUBSCRIBE, SSUBSCRIBE) or argv[1..] as patterns
 * (PSUBSCRIBE). */
enum { CHAN_NONE, CHAN_FIRST, CHAN_ALL, CHAN_PATTERNS };
static uint8_t chan_kind[ACLR_MAX_CMDS];

uint32_t acl_categories(const cmd_def *cmd)
{
    const char *p = cmd->acl ? cmd->acl : "";
    uint32_t cats = 0;

    while (*p) {
        const char *w;
        int i;
        while (*p == ' ' || *p == '@')
            p++;
        w = p;
        while (*p && *p != ' ')
            p++;
        if (p > w && (i = aclr_cat_index(w, (size_t)(p - w))) >= 0)
            cats |= 1u << i;
    }
#define CAT(name) (1u << aclr_cat_index(name, strlen(name)))
    if (cmd->flags & CMD_WRITE)
        cats |= CAT("write");
    if ((cmd->flags & CMD_READONLY) && !(cats & CAT("scripting"))) /* as Redis: not EVAL_RO's */
        cats |= CAT("read");
    if (cmd->flags & CMD_ADMIN)
        cats |= CAT("admin") | CAT("dangerous");
    if (cmd->flags & CMD_PUBSUB)
        cats |= CAT("pubsub");
    if (cmd->flags & CMD_FAST)
        cats |= CAT("fast");
    if (!(cats & CAT("fast")))
        cats |= CAT("slow");
#undef CAT
    return cats;
}

static int catalog_add(const cmd_def *cmd, int parent)
{
    int id = ncatalog++;

    if (id >= ACLR_MAX_CMDS) {
        log_warning("ACL: more than %d commands; raise ACLR_MAX_CMDS", ACLR_MAX_CMDS);
        exit(1);
    }
    catalog[id].name = cmd_fullname(cmd);
    catalog[id].parent = parent;
    catalog[id].cats = acl_categories(cmd);
    {
        size_t i = ((uintptr_t)cmd >> 4) & (ID_SLOTS - 1);
        while (byaddr[i].cmd)
            i = (i + 1) & (ID_SLOTS - 1);
        byaddr[i].cmd = cmd;
        byaddr[i].id = id;
    }
    chan_kind[id] = !strcmp(cmd->name, "publish") || !strcmp(cmd->name, "spublish")       ? CHAN_FIRST
                    : !strcmp(cmd->name, "subscribe") || !strcmp(cmd->name, "ssubscribe") ? CHAN_ALL
                    : !strcmp(cmd->name, "psubscribe")                                    ? CHAN_PATTERNS
                                                                                          : CHAN_NONE;
    return id;
}

static void catalog_visit(const cmd_def *cmd, void *ctx)
{
    int id = catalog_add(cmd, -1);
    const cmd_def *s;

    (void)ctx;
    if (!cmd->subcommands)
        return;
    catalog[id].first_sub = ncatalog;
    for (s = cmd->subcommands; s->name; s++) {
        catalog_add(s, id);
        catalog[id].nsubs++;
    }
}

static int cmd_id(const cmd_def *cmd)
{
    size_t i = ((uintptr_t)cmd >> 4) & (ID_SLOTS - 1);

    while (byaddr[i].cmd) {
        if (byaddr[i].cmd == cmd)
            return byaddr[i].id;
        i = (i + 1) & (ID_SLOTS - 1);
    }
    return -1;
}

/* ---- users ---- */

static aclr_user **users; /* sorted by name */
static int nusers;
static aclr_user *default_user;
static aclr_user *gone_user; /* what a deleted user's clients hold until they close */

static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int r = memcmp(a, b, al < bl ? al : bl);
    return r ? r : (al > bl) - (al < bl);
}

static aclr_user *user_find(const char *name, size_t len)
{
    int i;

    for (i = 0; i < nusers; i++)
        if (name_cmp(users[i]->name, users[i]->nlen, name, len) == 0)
            return users[i];
    return NULL;
}

static void user_insert(aclr_user *u)
{
    int i;

    users = xrealloc(users, sizeof(aclr_user *) * (size_t)(nusers + 1));
    for (i = nusers; i > 0 && name_cmp(users[i - 1]->name, users[i - 1]->nlen, u->name, u->nlen) > 0; i--)
        users[i] = users[i - 1];
    users[i] = u;
    nusers++;
}

static void user_remove(aclr_user *u)
{
    int i;

    for (i = 0; i < nusers; i++)
        if (users[i] == u) {
            memmove(&users[i], &users[i + 1], sizeof(aclr_user *) * (size_t)(nusers - i - 1));
            nusers--;
            return;
        }
}

/* Replace u's rules by those of n (same name) in place, so that clients
 * keep their pointer; frees n. */
static void user_replace(aclr_user *u, aclr_user *n)
{
    aclr_user tmp = *u;

    *u = *n;
    *n = tmp;
    aclr_user_free(n);
}

/* Close the clients authenticated as u (its deletion): they hold gone_user,
 * which may run nothing, until they are freed. */
static void kill_clients_of(aclr_user *u, client *current)
{
    client *x;

    for (x = srv.clients; x; x = x->next) {
        if (x->user != u)
            continue;
        x->user = gone_user;
        if (x == current)
            x->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else
            client_close_async(x);
    }
}

typedef struct chan_ctx {
    const aclr_user *u;
    int pattern;
} chan_ctx;

/* 1 if no selector of the user allows the channel (or pattern) any more. */
static int chan_denied(void *ctx, const char *name, size_t len)
{
    chan_ctx *x = ctx;
    int i;

    for (i = 0; i < x->u->nsels; i++)
        if (aclr_sel_chan(&x->u->sels[i], name, len, x->pattern))
            return 0;
    return 1;
}

/* After u's channels changed: close its clients subscribed to a channel,
 * pattern or shard channel it may no longer use (as Redis 7.0). */
static void kill_pubsub_clients_of(aclr_user *u, client *current)
{
    client *x;

    for (x = srv.clients; x; x = x->next) {
        chan_ctx cc = {u, 0}, pc = {u, 1};
        if (x->user != u || !(x->flags & CLIENT_PUBSUB))
            continue;
        if (!ps_client_any(x, PS_CHANNEL, chan_denied, &cc) && !ps_client_any(x, PS_SHARD, chan_denied, &cc) &&
            !ps_client_any(x, PS_PATTERN, chan_denied, &pc))
            continue;
        if (x == current)
            x->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else
            client_close_async(x);
    }
}

static aclr_user *make_user(const char *name, const char *rules)
{
    aclr_user *u = aclr_user_new(name, strlen(name));
    const char *p = rules, *err;

    while (*p) {
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        aclr_apply(u, w, (size_t)(p - w), &err);
        while (*p == ' ')
            p++;
    }
    return u;
}

#define DEFAULT_RULES "+@all ~* &* on nopass"

void acl_init(void)
{
    ncatalog = 0;
    cmd_foreach(catalog_visit, NULL);
    aclr_set_catalog(catalog, ncatalog);
    default_user = make_user("default", DEFAULT_RULES);
    user_insert(default_user);
    gone_user = aclr_user_new("(deleted)", 9);
    if (!acl_filename)
        acl_filename = xstrdup("");
}

int acl_apply_requirepass(const char **err)
{
    const char *pw = srv.cfg.requirepass ? srv.cfg.requirepass : "";
    char *op;

    if (!default_user)
        return 0; /* start-up: acl_init applies it */
    aclr_apply(default_user, "resetpass", 9, err);
    if (!pw[0])
        return aclr_apply(default_user, "nopass", 6, err);
    op = xmalloc(strlen(pw) + 2);
    op[0] = '>';
    strcpy(op + 1, pw);
    aclr_apply(default_user, op, strlen(op), err);
    xfree(op);
    return 0;
}

/* ---- `user` lines and the aclfile ---- */

typedef struct pending_user {
    int argc;
    char **argv;
} pending_user;
static pending_user *pending;
static int npending;

int acl_config_user(int argc, char **argv, const char **err)
{
    pending_user *p;
    int i;

    if (argc < 1) {
        *err = "wrong number of arguments";
        return -1;
    }
    pending = xrealloc(pending, sizeof(pending_user) * (size_t)(npending + 1));
    p = &pending[npending++];
    p->argc = argc;
    p->argv = xmalloc(sizeof(char *) * (size_t)argc);
    for (i = 0; i < argc; i++)
        p->argv[i] = xstrdup(argv[i]);
    return 0;
}

static int name_ok(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] == ' ' || p[i] == '\0')
            return 0;
    return 1;
}

/* Apply "name rule rule ..." to a copy of the user in set (or a new one):
 * 0, or -1 with the message in err. The copy goes into *out. */
static int build_user(aclr_user **set, int nset, int argc, char **argv, aclr_user **out, char *err, size_t cap)
{
    size_t *lens = xmalloc(sizeof(size_t) * (size_t)(argc + 1));
    aclr_user *u = NULL;
    int i, rc;

    for (i = 0; i < nset; i++)
        if (strcmp(set[i]->name, argv[0]) == 0)
            u = aclr_user_dup(set[i]);
    if (!u)
        u = aclr_user_new(argv[0], strlen(argv[0]));
    for (i = 1; i < argc; i++)
        lens[i] = strlen(argv[i]);
    rc = aclr_apply_args(u, argc - 1, (const char *const *)argv + 1, lens + 1, err, cap);
    xfree(lens);
    if (rc < 0) {
        aclr_user_free(u);
        return -1;
    }
    *out = u;
    return 0;
}

/* Read the aclfile into a new set of users (default included: a fresh one
 * when the file has none). 0, or -1 with Redis's messages in *errs (xmalloc'd). */
static int acl_read_file(const char *path, aclr_user ***outset, int *outn, char **errs)
{
    FILE *f = fopen(path, "r");
    char line[16384], wbuf[16384], err[1024];
    aclr_user **set = NULL;
    int n = 0, lineno = 0, bad = 0, i;
    size_t elen = 0, ecap = 0;
    char *e = NULL;

#define ADD_ERR(...)                                      \
    do {                                                  \
        int k_ = snprintf(err, sizeof(err), __VA_ARGS__); \
        if (elen + (size_t)k_ + 1 > ecap) {               \
            ecap = (elen + (size_t)k_ + 1) * 2;           \
            e = xrealloc(e, ecap);                        \
        }                                                 \
        memcpy(e + elen, err, (size_t)k_ + 1);            \
        elen += (size_t)k_;                               \
    } while (0)

    if (!f) {
        *errs = xmalloc(512);
        snprintf(*errs, 512, "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        char *words[1024];
        int nw;
        size_t l = strlen(line);
        aclr_user *u;
        lineno++;
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
            line[--l] = '\0';
        if (l == 0)
            continue;
        nw = cfg_split(line, words, 1024, wbuf, sizeof(wbuf));
        if (nw <= 0) {
            ADD_ERR("%s:%d: unbalanced quotes in acl line. ", path, lineno);
            bad = 1;
            continue;
        }
        if (strcmp(words[0], "user") != 0 || nw < 2) {
            ADD_ERR("%s:%d should start with user keyword followed by the username. ", path, lineno);
            bad = 1;
            continue;
        }
        if (!name_ok(words[1], strlen(words[1]))) {
            ADD_ERR("%s:%d: username '%s' contains invalid characters. ", path, lineno, words[1]);
            bad = 1;
            continue;
        }
        for (i = 0; i < n; i++)
            if (strcmp(set[i]->name, words[1]) == 0)
                break;
        if (i < n) {
            ADD_ERR("WARNING: Duplicate user '%s' found on line %d. ", words[1], lineno);
            bad = 1;
            continue;
        }
        {
            char msg[700];
            aclr_user *fresh = aclr_user_new(words[1], strlen(words[1]));
            size_t lens[1024];
            int k;
            for (k = 2; k < nw; k++)
                lens[k] = strlen(words[k]);
            if (aclr_apply_args(fresh, nw - 2, (const char *const *)words + 2, lens + 2, msg, sizeof(msg)) < 0) {
                /* Redis words it "Error in applying operation '<op>': <why>" */
                const char *q = strstr(msg, "modifier '");
                if (q)
                    ADD_ERR("%s:%d: Error in applying operation '%s. ", path, lineno, q + 10);
                else
                    ADD_ERR("%s:%d: %s. ", path, lineno, msg);
                aclr_user_free(fresh);
                bad = 1;
                continue;
            }
            u = fresh;
        }
        set = xrealloc(set, sizeof(aclr_user *) * (size_t)(n + 1));
        set[n++] = u;
    }
    fclose(f);
    if (bad) {
        ADD_ERR("WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
        for (i = 0; i < n; i++)
            aclr_user_free(set[i]);
        xfree(set);
        *errs = e;
        return -1;
    }
    xfree(e);
    *outset = set;
    *outn = n;
    return 0;
#undef ADD_ERR
}

/* Install a set read from the aclfile: the default user's rules are
 * replaced in place, every other user is new, and the clients of the users
 * that were there before are closed (Redis does the same on ACL LOAD). */
static void install_set(aclr_user **set, int n, client *current)
{
    aclr_user *def = NULL;
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(set[i]->name, "default") == 0)
            def = set[i];
    while (nusers > 0) {
        aclr_user *u = users[nusers - 1];
        nusers--;
        if (u == default_user)
            continue;
        kill_clients_of(u, current);
        aclr_user_free(u);
    }
    user_replace(default_user, def ? def : make_user("default", DEFAULT_RULES));
    user_insert(default_user);
    for (i = 0; i < n; i++)
        if (set[i] != def)
            user_insert(set[i]);
    xfree(set);
}

int acl_load_startup(void)
{
    int i;

    if (acl_filename[0] && npending) {
        fprintf(stderr, "Configuring Scratchpad with users defined in the configuration and at the same setting an "
                        "ACL file path is invalid. This setup is very likely to lead to configuration errors and "
                        "security holes, please define either an ACL file or declare users directly in your "
                        "configuration, but not both.\n");
        return -1;
    }
    for (i = 0; i < npending; i++) {
        pending_user *p = &pending[i];
        char err[1024];
        aclr_user *u, *old;
        if (!name_ok(p->argv[0], strlen(p->argv[0]))) {
            fprintf(stderr, "Error in user declaration '%s': Usernames can't contain spaces or null characters\n",
                    p->argv[0]);
            return -1;
        }
        if (build_user(users, nusers, p->argc, p->argv, &u, err, sizeof(err)) < 0) {
            fprintf(stderr, "Error in user declaration '%s': %s\n", p->argv[0], err);
            return -1;
        }
        if ((old = user_find(u->name, u->nlen)) != NULL)
            user_replace(old, u);
        else
            user_insert(u);
    }
    if (acl_filename[0]) {
        aclr_user **set;
        int n;
        char *errs = NULL;
        if (acl_read_file(acl_filename, &set, &n, &errs) < 0) {
            fprintf(stderr, "Aborting Scratchpad startup because of ACL errors: %s\n", errs);
            xfree(errs);
            return -1;
        }
        install_set(set, n, NULL);
    }
    return 0;
}

/* ---- clients ---- */

int acl_default_open(void)
{
    return default_user && (default_user->flags & ACLR_NOPASS) && !(default_user->flags & ACLR_OFF);
}

int acl_default_nopass(void)
{
    return (default_user->flags & ACLR_NOPASS) != 0;
}

void acl_client_init(client *c)
{
    c->user = default_user;
    if (acl_default_open())
        c->flags |= CLIENT_AUTHENTICATED;
    else
        c->flags &= ~CLIENT_AUTHENTICATED;
}

void acl_client_reset(client *c)
{
    acl_client_init(c);
}

int acl_auth_required(const client *c)
{
    return !(c->flags & CLIENT_AUTHENTICATED) && !acl_default_open();
}

const char *acl_user_name(const client *c)
{
    return c->user ? c->user->name : "default";
}

int acl_user_exists(const char *name, size_t len)
{
    return user_find(name, len) != NULL;
}

int acl_client_is(const client *x, const char *name, size_t len)
{
    return x->user && x->user != gone_user && name_cmp(x->user->name, x->user->nlen, name, len) == 0;
}

/* ---- ACL LOG ---- */

typedef struct acl_entry {
    long long count;
    int reason, ctx;
    char *object, *username;
    int64_t ctime; /* ms, creation or last update */
    char *cinfo;   /* CLIENT INFO of the client, at the last update */
} acl_entry;

static acl_entry *alog; /* newest first */
static int nalog;

static void entry_free(acl_entry *e)
{
    xfree(e->object);
    xfree(e->username);
    xfree(e->cinfo);
}

static void log_trim(void)
{
    int max = acl_log_max_len < 0 ? 0 : acl_log_max_len;

    while (nalog > max)
        entry_free(&alog[--nalog]);
}

static char *client_info(client *c)
{
    size_t cap = client_describe_cap(c);
    char *buf = xmalloc(cap + 1);

    client_describe(c, buf, cap);
    return buf;
}

/* Log a denial: object is the command's name, the key or channel, or the
 * name AUTH was given as; who is the client whose info goes in the entry.
 * An entry equal in reason, context, object and user to one less than 60 s
 * old counts there instead (as Redis groups them). */
static void log_add(client *who, int reason, int ctx, const char *object, size_t olen, const char *username,
                    size_t ulen)
{
    int64_t now = now_ms();
    acl_entry e;
    int i;

    for (i = 0; i < nalog && i < 10; i++) { /* Redis looks at the 10 newest */
        acl_entry *x = &alog[i];
        if (x->reason == reason && x->ctx == ctx && strlen(x->object) == olen && memcmp(x->object, object, olen) == 0 &&
            strlen(x->username) == ulen && memcmp(x->username, username, ulen) == 0 && now - x->ctime < 60000) {
            e = *x;
            e.count++;
            e.ctime = now;
            xfree(e.cinfo);
            e.cinfo = client_info(who);
            memmove(&alog[1], &alog[0], sizeof(acl_entry) * (size_t)i);
            alog[0] = e;
            return;
        }
    }
    e.count = 1;
    e.reason = reason;
    e.ctx = ctx;
    e.object = xstrndup(object, olen);
    e.username = xstrndup(username, ulen);
    e.ctime = now;
    e.cinfo = client_info(who);
    alog = xrealloc(alog, sizeof(acl_entry) * (size_t)(nalog + 1));
    memmove(&alog[1], &alog[0], sizeof(acl_entry) * (size_t)nalog);
    alog[0] = e;
    nalog++;
    log_trim();
}

static void log_denial(client *who, const aclr_user *u, int reason, int ctx, const cmd_def *cmd, const sarg *argv,
                       int pos)
{
    const char *obj = cmd_fullname(cmd);
    size_t olen = strlen(obj);

    if (reason == ACL_DENIED_KEY || reason == ACL_DENIED_CHANNEL) {
        obj = argv[pos].p;
        olen = argv[pos].len;
    }
    log_add(who, reason, ctx, obj, olen, u->name, u->nlen);
}

/* ---- AUTH ---- */

int acl_authenticate(client *c, const sarg *user, const sarg *pass)
{
    aclr_user *u = user ? user_find(user->p, user->len) : default_user;
    int ok = 0;

    if (u && !(u->flags & ACLR_OFF))
        ok = aclr_check_password(u, pass->p, pass->len);
    else
        aclr_check_password(gone_user, pass->p, pass->len); /* the same work either way */
    if (ok) {
        c->user = u;
        c->flags |= CLIENT_AUTHENTICATED;
        return 0;
    }
    log_add(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACL_CTX_MULTI : ACL_CTX_TOPLEVEL, c->argv[0].p,
            c->argv[0].len, user ? user->p : "default", user ? user->len : 7);
    return -1;
}

/* ---- the check ---- */

typedef struct key_ctx {
    const aclr_sel *s;
    const sarg *argv;
    int pos;
} key_ctx;

static int key_visit(void *ctx, int pos, int access)
{
    key_ctx *k = ctx;
    int need = ((access & CMD_KEY_READ) ? ACLR_READ : 0) | ((access & CMD_KEY_WRITE) ? ACLR_WRITE : 0);

    if (aclr_sel_key(k->s, k->argv[pos].p, k->argv[pos].len, need))
        return 0;
    k->pos = pos;
    return 1;
}

static int sel_check(const aclr_sel *s, const cmd_def *cmd, int id, int argc, const sarg *argv, int *pos)
{
    int kind = chan_kind[id], i;

    if (!(cmd->flags & CMD_NO_AUTH)) {
        int idx = catalog[id].parent >= 0 ? 2 : 1;
        if (!aclr_sel_cmd(s, id, argc > idx ? argv[idx].p : NULL, argc > idx ? argv[idx].len : 0))
            return ACL_DENIED_CMD;
    }
    if (!(s->flags & ACLR_ALLKEYS)) {
        key_ctx k = {s, argv, 0};
        if (cmd_walk_keys(cmd, argc, argv, key_visit, &k)) {
            *pos = k.pos;
            return ACL_DENIED_KEY;
        }
    }
    if (kind != CHAN_NONE && !(s->flags & ACLR_ALLCHANNELS)) {
        int last = kind == CHAN_FIRST ? 1 : argc - 1;
        for (i = 1; i <= last && i < argc; i++)
            if (!aclr_sel_chan(s, argv[i].p, argv[i].len, kind == CHAN_PATTERNS)) {
                *pos = i;
                return ACL_DENIED_CHANNEL;
            }
    }
    return ACL_OK;
}

int acl_check(const aclr_user *u, const cmd_def *cmd, int argc, const sarg *argv, int *errpos)
{
    int best = ACL_DENIED_CMD, bestpos = 0, id, i;

    *errpos = 0;
    if (!u || u->allow_all)
        return ACL_OK;
    if ((id = cmd_id(cmd)) < 0)
        return ACL_DENIED_CMD;
    for (i = 0; i < u->nsels; i++) {
        int pos = 0, r = sel_check(&u->sels[i], cmd, id, argc, argv, &pos);
        if (r == ACL_OK)
            return ACL_OK;
        if (r > best || (r == best && pos > bestpos)) {
            best = r;
            bestpos = pos;
        }
    }
    *errpos = bestpos;
    return best;
}

int acl_check_dispatch(client *c, const cmd_def *cmd)
{
    int pos, r = acl_check(c->user, cmd, c->argc, c->argv, &pos);
    char msg[256];

    if (r == ACL_OK)
        return 0;
    log_denial(c, c->user, r, (c->flags & CLIENT_MULTI) ? ACL_CTX_MULTI : ACL_CTX_TOPLEVEL, cmd, c->argv, pos);
    if (r == ACL_DENIED_CMD)
        snprintf(msg, sizeof(msg), "NOPERM this user has no permissions to run the '%s' command", cmd_fullname(cmd));
    else
        snprintf(msg, sizeof(msg), "NOPERM this user has no permissions to access one of the %s used as arguments",
                 r == ACL_DENIED_KEY ? "keys" : "channels");
    if (cmd == srv.cmd_exec)
        multi_exec_abort(c, msg); /* EXECABORT even outside MULTI, as Redis */
    else
        reply_error(c, msg);
    return -1;
}

int acl_check_exec(client *c, const cmd_def *cmd)
{
    int pos, r = acl_check(c->user, cmd, c->argc, c->argv, &pos);

    if (r == ACL_OK)
        return 0;
    log_denial(c, c->user, r, ACL_CTX_MULTI, cmd, c->argv, pos);
    reply_errorf(c, "NOPERM ACL failure in transaction: %s",
                 r == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                 : r == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                                       : "no permission to access one of the channels used as arguments");
    return -1;
}

const char *acl_check_script(client *sc, client *caller, const cmd_def *cmd, int argc, const sarg *argv)
{
    int pos, r;

    sc->user = caller ? caller->user : NULL;
    r = acl_check(sc->user, cmd, argc, argv, &pos);
    if (r == ACL_OK)
        return NULL;
    log_denial(caller ? caller : sc, sc->user, r, ACL_CTX_LUA, cmd, argv, pos);
    if (r == ACL_DENIED_CMD)
        return "-ERR The user executing the script can't run this command or subcommand";
    if (r == ACL_DENIED_KEY)
        return "-ERR The user executing the script can't access at least one of the keys mentioned in the command "
               "arguments";
    return "-ERR The user executing the script can't publish to the channel mentioned in the command";
}

int acl_full_key_access(const client *c, const cmd_def *cmd)
{
    int id, i, j;

    if (!c->user || c->user->allow_all)
        return 1;
    id = cmd_id(cmd);
    for (i = 0; i < c->user->nsels; i++) {
        const aclr_sel *s = &c->user->sels[i];
        if (id < 0 || !aclr_sel_cmd(s, id, NULL, 0))
            continue;
        if (s->flags & ACLR_ALLKEYS)
            return 1;
        for (j = 0; j < s->nkeys; j++)
            if ((s->keys[j].flags & ACLR_READ) && s->keys[j].len == 1 && s->keys[j].p[0] == '*')
                return 1;
    }
    return 0;
}

/* ---- the ACL command ---- */

static void acl_setuser(client *c)
{
    const char **argv = xmalloc(sizeof(char *) * (size_t)c->argc);
    size_t *lens = xmalloc(sizeof(size_t) * (size_t)c->argc);
    aclr_user *old = user_find(c->argv[2].p, c->argv[2].len), *u;
    char err[1024];
    int i;

    if (!name_ok(c->argv[2].p, c->argv[2].len)) {
        reply_error(c, "ERR Usernames can't contain spaces or null characters");
        goto done;
    }
    for (i = 3; i < c->argc; i++) {
        argv[i] = c->argv[i].p;
        lens[i] = c->argv[i].len;
    }
    u = old ? aclr_user_dup(old) : aclr_user_new(c->argv[2].p, c->argv[2].len);
    if (aclr_apply_args(u, c->argc - 3, argv + 3, lens + 3, err, sizeof(err)) < 0) {
        aclr_user_free(u);
        reply_errorf(c, "ERR %s", err);
        goto done;
    }
    if (old) {
        user_replace(old, u);
        kill_pubsub_clients_of(old, c);
    } else {
        user_insert(u);
    }
    reply_ok(c);
done:
    xfree(argv);
    xfree(lens);
}

static void reply_user_sel(client *c, const aclr_sel *s)
{
    char *t = aclr_describe_cmds(s);

    reply_bulk_cstr(c, "commands");
    reply_bulk_cstr(c, t);
    xfree(t);
    t = aclr_describe_keys(s);
    reply_bulk_cstr(c, "keys");
    reply_bulk_cstr(c, t);
    xfree(t);
    t = aclr_describe_chans(s);
    reply_bulk_cstr(c, "channels");
    reply_bulk_cstr(c, t);
    xfree(t);
}

static void acl_getuser(client *c)
{
    aclr_user *u = user_find(c->argv[2].p, c->argv[2].len);
    const aclr_flag_name *f;
    char hex[65];
    int n = 0, j;

    if (!u) {
        reply_null(c);
        return;
    }
    reply_map(c, 6);
    reply_bulk_cstr(c, "flags");
    for (f = aclr_flag_names; f->name; f++)
        n += (u->flags & f->flag) != 0;
    reply_set(c, n);
    for (f = aclr_flag_names; f->name; f++)
        if (u->flags & f->flag)
            reply_bulk_cstr(c, f->name);
    reply_bulk_cstr(c, "passwords");
    reply_array(c, u->npw);
    for (j = 0; j < u->npw; j++) {
        aclr_hex(u->pw[j], hex);
        reply_bulk(c, hex, 64);
    }
    reply_user_sel(c, &u->sels[0]);
    reply_bulk_cstr(c, "selectors");
    reply_array(c, u->nsels - 1);
    for (j = 1; j < u->nsels; j++) {
        reply_map(c, 3);
        reply_user_sel(c, &u->sels[j]);
    }
}

static void acl_deluser(client *c)
{
    long long deleted = 0;
    int i;

    for (i = 2; i < c->argc; i++)
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, "default") && c->argv[i].len == 7 &&
            memcmp(c->argv[i].p, "default", 7) == 0) {
            reply_error(c, "ERR The 'default' user cannot be removed");
            return;
        }
    for (i = 2; i < c->argc; i++) {
        aclr_user *u = user_find(c->argv[i].p, c->argv[i].len);
        if (!u)
            continue;
        user_remove(u);
        kill_clients_of(u, c);
        aclr_user_free(u);
        deleted++;
    }
    reply_int(c, deleted);
}

/* "user <name> <rules>" of every user, in name order (ACL LIST, ACL SAVE):
 * line i into *lines[i] (xmalloc'd, the caller frees each and the array). */
static int describe_all(char ***lines)
{
    int i;

    *lines = xmalloc(sizeof(char *) * (size_t)(nusers ? nusers : 1));
    for (i = 0; i < nusers; i++) {
        char *d = aclr_describe_user(users[i]);
        size_t n = users[i]->nlen + strlen(d) + 8;
        (*lines)[i] = xmalloc(n);
        snprintf((*lines)[i], n, "user %s %s", users[i]->name, d);
        xfree(d);
    }
    return nusers;
}

static void acl_list(client *c)
{
    char **lines;
    int n = describe_all(&lines), i;

    reply_array(c, n);
    for (i = 0; i < n; i++) {
        reply_bulk_cstr(c, lines[i]);
        xfree(lines[i]);
    }
    xfree(lines);
}

static void acl_users(client *c)
{
    int i;

    reply_array(c, nusers);
    for (i = 0; i < nusers; i++)
        reply_bulk(c, users[i]->name, users[i]->nlen);
}

static void acl_whoami(client *c)
{
    reply_bulk_cstr(c, acl_user_name(c));
}

static void acl_cat(client *c)
{
    int i, cat, n = 0;

    if (c->argc == 2) {
        reply_array(c, ACLR_NCATS);
        for (i = 0; i < ACLR_NCATS; i++)
            reply_bulk_cstr(c, aclr_cat_names[i]);
        return;
    }
    if ((cat = aclr_cat_index(c->argv[2].p, c->argv[2].len)) < 0) {
        reply_errorf(c, "ERR Unknown category '%.128s'", c->argv[2].p);
        return;
    }
    for (i = 0; i < ncatalog; i++)
        n += (catalog[i].cats >> cat) & 1;
    reply_array(c, n);
    for (i = 0; i < ncatalog; i++)
        if ((catalog[i].cats >> cat) & 1)
            reply_bulk_cstr(c, catalog[i].name);
}

static void acl_genpass(client *c)
{
    static const char hx[] = "0123456789abcdef";
    long long bits = 256;
    unsigned char raw[512];
    char out[1025];
    size_t chars, got = 0, i;

    if (c->argc == 3 && (str_to_ll(c->argv[2].p, c->argv[2].len, &bits) < 0 || bits <= 0 || bits > 4096)) {
        reply_error(c, "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
                       "number up to 4096");
        return;
    }
    chars = (size_t)(bits + 3) / 4;
    while (got < (chars + 1) / 2) {
        ssize_t r = getrandom(raw + got, (chars + 1) / 2 - got, 0);
        if (r < 0 && errno != EINTR) {
            reply_error(c, "ERR Failed to generate a random password");
            return;
        }
        if (r > 0)
            got += (size_t)r;
    }
    for (i = 0; i < chars; i++)
        out[i] = hx[(raw[i / 2] >> ((i % 2) ? 0 : 4)) & 15];
    reply_bulk(c, out, chars);
}

static void acl_log(client *c)
{
    long long count = 10;
    int64_t now = now_ms();
    int i, n;

    if (c->argc == 3) {
        if (str_eq_ci(c->argv[2].p, c->argv[2].len, "reset")) {
            while (nalog > 0)
                entry_free(&alog[--nalog]);
            reply_ok(c);
            return;
        }
        if (arg_ll(c, 2, &count) < 0)
            return;
        if (count < 0)
            count = 0;
    }
    n = count < nalog ? (int)count : nalog;
    reply_array(c, n);
    for (i = 0; i < n; i++) {
        static const char *const reasons[] = {"", "command", "key", "auth", "channel"};
        static const char *const ctxs[] = {"toplevel", "multi", "lua"};
        acl_entry *e = &alog[i];
        reply_map(c, 7);
        reply_bulk_cstr(c, "count");
        reply_int(c, e->count);
        reply_bulk_cstr(c, "reason");
        reply_bulk_cstr(c, reasons[e->reason]);
        reply_bulk_cstr(c, "context");
        reply_bulk_cstr(c, ctxs[e->ctx]);
        reply_bulk_cstr(c, "object");
        reply_bulk_cstr(c, e->object);
        reply_bulk_cstr(c, "username");
        reply_bulk_cstr(c, e->username);
        reply_bulk_cstr(c, "age-seconds");
        reply_double(c, (double)(now - e->ctime) / 1000.0);
        reply_bulk_cstr(c, "client-info");
        reply_bulk_cstr(c, e->cinfo);
    }
}

static void acl_dryrun(client *c)
{
    aclr_user *u = user_find(c->argv[2].p, c->argv[2].len);
    const cmd_def *cmd;
    int argc = c->argc - 3, pos, r;
    const sarg *argv = c->argv + 3;

    if (!u) {
        reply_errorf(c, "ERR User '%.128s' not found", c->argv[2].p);
        return;
    }
    if (!(cmd = cmd_lookup_argv(argc, argv))) {
        reply_errorf(c, "ERR Command '%.128s' not found", argv[0].p);
        return;
    }
    if (cmd->arity > 0 ? argc != cmd->arity : argc < -cmd->arity) {
        reply_errorf(c, "ERR wrong number of arguments for '%s' command", cmd_fullname(cmd));
        return;
    }
    r = acl_check(u, cmd, argc, argv, &pos);
    if (r == ACL_OK)
        reply_ok(c);
    else if (r == ACL_DENIED_CMD)
        reply_bulk_fmt(c, "This user has no permissions to run the '%s' command", cmd_fullname(cmd));
    else
        reply_bulk_fmt(c, "This user has no permissions to access the '%.*s' %s", (int)argv[pos].len, argv[pos].p,
                       r == ACL_DENIED_KEY ? "key" : "channel");
}

#define ERR_NO_ACLFILE                                                                                             \
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL "     \
    "SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order " \
    "to store users in the Redis configuration."

static void acl_save(client *c)
{
    char tmp[4096], **lines;
    FILE *f;
    int n, i, ok = 1;

    if (!acl_filename[0]) {
        reply_error(c, ERR_NO_ACLFILE);
        return;
    }
    snprintf(tmp, sizeof(tmp), "%s.tmp-%d", acl_filename, (int)getpid());
    n = describe_all(&lines);
    f = fopen(tmp, "w");
    for (i = 0; i < n; i++) {
        if (f && fprintf(f, "%s\n", lines[i]) < 0)
            ok = 0;
        xfree(lines[i]);
    }
    xfree(lines);
    if (!f || fflush(f) != 0 || fsync(fileno(f)) != 0)
        ok = 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (ok && rename(tmp, acl_filename) != 0)
        ok = 0;
    if (!ok) {
        log_warning("Saving the ACL file '%s': %s", acl_filename, strerror(errno));
        unlink(tmp);
        reply_error(c, "ERR There was an error trying to save the ACLs. Please check the server logs for more "
                       "information");
        return;
    }
    reply_ok(c);
}

static void acl_load(client *c)
{
    aclr_user **set;
    char *errs = NULL;
    int n;

    if (!acl_filename[0]) {
        reply_error(c, ERR_NO_ACLFILE);
        return;
    }
    if (acl_read_file(acl_filename, &set, &n, &errs) < 0) {
        reply_errorf(c, "ERR %s", errs);
        xfree(errs);
        return;
    }
    install_set(set, n, c);
    reply_ok(c);
}

static void acl_help(client *c)
{
    static const char *const lines[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        NULL,
    };
    reply_help(c, lines);
}

#define ACLF (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
#define ACLN (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
/* clang-format off */
static const cmd_def acl_subs[] = {
    {.name = "cat", .proc = acl_cat, .arity = -2, .flags = ACLN, .group = "server", .since = "6.0.0",
     .summary = "List the ACL categories or the commands inside a category",
     .complexity = "O(1) since the categories and commands are a fixed set."},
    {.name = "deluser", .proc = acl_deluser, .arity = -3, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "Remove the specified ACL users and the associated rules",
     .complexity = "O(1) amortized time considering the typical user."},
    {.name = "dryrun", .proc = acl_dryrun, .arity = -4, .flags = ACLF, .group = "server", .since = "7.0.0",
     .summary = "Returns whether the user can execute the given command without executing the command.",
     .complexity = "O(1)."},
    {.name = "genpass", .proc = acl_genpass, .arity = -2, .flags = ACLN, .group = "server", .since = "6.0.0",
     .summary = "Generate a pseudorandom secure password to use for ACL users", .complexity = "O(1)"},
    {.name = "getuser", .proc = acl_getuser, .arity = 3, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "Get the rules for a specific ACL user",
     .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has."},
    {.name = "help", .proc = acl_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "server",
     .since = "6.0.0", .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "list", .proc = acl_list, .arity = 2, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "List the current ACL rules in ACL config file format",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "load", .proc = acl_load, .arity = 2, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "Reload the ACLs from the configured ACL file",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "log", .proc = acl_log, .arity = -2, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "List latest events denied because of ACLs in place",
     .complexity = "O(N) with N being the number of entries shown."},
    {.name = "save", .proc = acl_save, .arity = 2, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "Save the current ACL rules in the configured ACL file",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "setuser", .proc = acl_setuser, .arity = -3, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "Modify or create the rules for a specific ACL user",
     .complexity = "O(N). Where N is the number of rules provided."},
    {.name = "users", .proc = acl_users, .arity = 2, .flags = ACLF, .group = "server", .since = "6.0.0",
     .summary = "List the username of all the configured ACL rules",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "whoami", .proc = acl_whoami, .arity = 2, .flags = ACLN, .group = "server", .since = "6.0.0",
     .summary = "Return the name of the user associated to the current connection", .complexity = "O(1)"},
    {0},
};

const cmd_def cmd_table_acl[] = {
    {.name = "acl", .proc = cmd_container, .arity = -2, .group = "server", .since = "6.0.0",
     .summary = "A container for Access List Control commands", .complexity = "Depends on subcommand.",
     .subcommands = acl_subs},
    {0},
};
/* clang-format on */
