/* persist_load.c -- start-up replay of the log (see persist_load.h). */
#include "aof/persist_load.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "aof_reader.h"
#include "cmd/commands.h"
#include "config.h"
#include "log.h"
#include "core/mem.h"
#include "core/lz/lzval.h"
#include "core/util.h"
#include "keyspace/type.h"

#define LOAD_PROGRESS_MS 1000 /* a progress line this often during a long load */

uint64_t persist_file_size(const char *dir, const char *name)
{
    char path[AOF_PATH_MAX];
    struct stat st;
    if (aof_path(path, sizeof(path), dir, name) < 0 || stat(path, &st) < 0)
        return 0;
    return (uint64_t)st.st_size;
}

typedef struct replay {
    sarg *argv;
    int cap;
    char *scratch;          /* the bytes arguments, each followed by a NUL */
    size_t scap;
    aof_arg *args;          /* the effect's arguments as decoded */
    int acap;
    effect_arg *eargs;      /* the same as a type's effect sees them */
    int ecap;
    long long errors;
    int64_t last_progress;
    uint64_t total_bytes;
    uint64_t done_bytes;    /* bytes of files completed */
    const aof_mfile *cur;
    const char *dir;        /* the log directory */
    /* Bad values: intact records (their CRC good) holding a compressed value
     * that does not decode (damaged before it was logged). */
    const aof_record *rec;  /* the record being applied */
    char bad[512];          /* the first one, named (key, entry, file, offset), or "" */
    long long nbad;         /* values left out (aof-load-bad-values skip) */
    struct left_out *out;   /* what was left out, so that later effects on it are too */
    long long nskipped;     /* later effects skipped because they name what was left out */
} replay;

/* A string key (entry NULL) or a scratchpad entry left out of the load. */
typedef struct left_out {
    struct left_out *next;
    int db;
    char *key, *entry;      /* xmalloc'd copies; entry NULL for a string */
    size_t klen, elen;
} left_out;

static left_out *left_find(const replay *r, int dbid, const effect_arg *key, const effect_arg *entry)
{
    left_out *o;

    for (o = r->out; o; o = o->next)
        if (o->db == dbid && o->klen == key->len && memcmp(o->key, key->p, key->len) == 0 &&
            (entry ? o->entry && o->elen == entry->len && memcmp(o->entry, entry->p, entry->len) == 0
                   : !o->entry))
            return o;
    return NULL;
}

static void left_forget(replay *r, left_out *o)
{
    left_out **pp;

    for (pp = &r->out; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            xfree(o->key);
            xfree(o->entry);
            xfree(o);
            return;
        }
}

/* ---- the replay as the types see it (keyspace/type.h, effect_replay) ---- */

static lzval *er_take_lzval(effect_replay *er, const effect_arg *a)
{
    (void)er;
    return aof_arg_lzval(a->src);
}

/* A value that does not decode, in an intact record: key (and entry, NULL for
 * a string) of database dbid. With aof-load-bad-values refuse: -1 and why
 * (r->bad names it fully); with skip: logged, remembered, 0 (the effect is
 * left out). */
static int er_bad_value(effect_replay *er, int dbid, const effect_arg *key, const effect_arg *entry, char *why,
                        size_t whylen)
{
    replay *r = er->ctx;
    left_out *o;
    int kl = key->len > 200 ? 200 : (int)key->len;

    snprintf(r->bad, sizeof(r->bad), "%s/%s at offset %llu: key '%.*s' (db %d)%s%.*s%s: a compressed value does "
             "not decode (the record's CRC is good: the value was damaged before it was logged)",
             r->dir, r->cur->name, (unsigned long long)r->rec->offset, kl, key->p, dbid,
             entry ? ", entry '" : "", entry ? (int)entry->len : 0, entry ? entry->p : "", entry ? "'" : "");
    if (srv.cfg.aof_load_bad_values == 0) {
        snprintf(why, whylen, "a compressed value does not decode");
        return -1;
    }
    r->nbad++;
    log_warning("Left out of the load (aof-load-bad-values skip): %s", r->bad);
    if (!left_find(r, dbid, key, entry)) {
        o = xcalloc(1, sizeof(*o));
        o->db = dbid;
        o->key = xmalloc(key->len + 1);
        memcpy(o->key, key->p, key->len);
        o->klen = key->len;
        if (entry) {
            o->entry = xmalloc(entry->len + 1);
            memcpy(o->entry, entry->p, entry->len);
            o->elen = entry->len;
        }
        o->next = r->out;
        r->out = o;
    }
    r->bad[0] = 0;
    return 0;
}

static int er_left_out(effect_replay *er, int dbid, const effect_arg *key, const effect_arg *part, int forget)
{
    replay *r = er->ctx;
    left_out *o = r->out ? left_find(r, dbid, key, part) : NULL;

    if (o && forget)
        left_forget(r, o);
    return o != NULL;
}

static void er_skipped(effect_replay *er, int dbid, const effect_arg *name, const effect_arg *key,
                       const effect_arg *part)
{
    replay *r = er->ctx;

    r->nskipped++;
    log_warning("Left out of the load (aof-load-bad-values skip): %s/%s at offset %llu: %.*s of key '%.*s' "
                "(db %d)%s%.*s%s, which was left out", r->dir, r->cur->name, (unsigned long long)r->rec->offset,
                (int)(name->len > 32 ? 32 : name->len), name->p, (int)(key->len > 200 ? 200 : key->len), key->p,
                dbid, part ? ", entry '" : "", part ? (int)part->len : 0, part ? part->p : "", part ? "'" : "");
}

/* The type effect named a, or NULL: internal names start with '_'. */
static const type_effect *type_effect_named(const aof_arg *a)
{
    int t;
    const type_effect *x;

    if (a->len < 2 || a->p[0] != '_')
        return NULL;
    for (t = 0; t < OBJ_NTYPES; t++)
        if (type_table[t] && type_table[t]->effects)
            for (x = type_table[t]->effects; x->name; x++)
                if (strlen(x->name) == a->len && memcmp(x->name, a->p, a->len) == 0)
                    return x;
    return NULL;
}

/* Apply the type effect x with the record's arguments. */
static int apply_type_effect(replay *r, const type_effect *x, db *d, int dbid, const aof_arg *a, uint32_t argc,
                             char *why, size_t whylen)
{
    effect_replay er = {er_take_lzval, er_bad_value, er_left_out, er_skipped, r};
    uint32_t i;

    if ((int)argc > r->ecap) {
        r->ecap = (int)argc * 2;
        r->eargs = xrealloc(r->eargs, sizeof(effect_arg) * (size_t)r->ecap);
    }
    for (i = 0; i < argc; i++) {
        effect_arg *e = &r->eargs[i];
        e->lz = a[i].kind == AOF_ARG_LZVAL;
        e->p = e->lz ? NULL : a[i].p;
        e->len = e->lz ? 0 : a[i].len;
        e->src = &a[i];
    }
    return x->apply(&er, d, dbid, r->eargs, (int)argc, why, whylen);
}

static int fail(char *why, size_t whylen, const char *msg, const aof_arg *cmd)
{
    snprintf(why, whylen, "%s (effect %.*s)", msg, (int)(cmd->len > 32 ? 32 : cmd->len), cmd->p);
    return -1;
}

static int is_name(const aof_arg *a, const char *name);

/* Run a logged command through the command table (cmd_replay). An effect on a
 * string key left out of the load (aof-load-bad-values skip) is left out too,
 * unless it gives the key a whole new value or deletes it (SET, DEL, UNLINK):
 * an APPEND or an INCR must not build a value on nothing. */
static int apply_command(replay *r, int dbid, aof_arg *a, uint32_t argc, char *why, size_t whylen)
{
    const cmd_def *cmd;
    size_t need = 0, off = 0;
    uint32_t i;

    for (i = 0; i < argc; i++) {
        if (a[i].kind != AOF_ARG_BYTES)
            return fail(why, whylen, "a compressed argument to a command", &a[0]);
        need += a[i].len + 1;
    }
    if (need > r->scap) {
        r->scap = need * 2;
        r->scratch = xrealloc(r->scratch, r->scap);
    }
    if ((int)argc > r->cap) {
        r->cap = (int)argc * 2;
        r->argv = xrealloc(r->argv, sizeof(sarg) * (size_t)r->cap);
    }
    for (i = 0; i < argc; i++) {
        memcpy(r->scratch + off, a[i].p, a[i].len);
        r->scratch[off + a[i].len] = '\0';
        r->argv[i].p = r->scratch + off;
        r->argv[i].len = a[i].len;
        off += a[i].len + 1;
    }
    cmd = cmd_lookup(a[0].p, a[0].len);
    if (r->out && cmd && cmd->first_key > 0 && (uint32_t)cmd->first_key < argc) {
        effect_arg key = {a[cmd->first_key].p, a[cmd->first_key].len, 0, NULL};
        left_out *o = left_find(r, dbid, &key, NULL);
        if (o && (is_name(&a[0], "SET") || is_name(&a[0], "DEL") || is_name(&a[0], "UNLINK"))) {
            left_forget(r, o); /* a whole new value, or none: the key is back */
        } else if (o) {
            r->nskipped++;
            log_warning("Left out of the load (aof-load-bad-values skip): %s/%s at offset %llu: %.*s of key '%.*s' "
                        "(db %d), which was left out", r->dir, r->cur->name, (unsigned long long)r->rec->offset,
                        (int)(a[0].len > 32 ? 32 : a[0].len), a[0].p, (int)(o->klen > 200 ? 200 : o->klen), o->key,
                        dbid);
            return 0;
        }
    }
    switch (cmd_replay(dbid, (int)argc, r->argv)) {
    case CMD_REPLAY_OK:
        return 0;
    case CMD_REPLAY_UNKNOWN:
        return fail(why, whylen, "unknown command", &a[0]);
    case CMD_REPLAY_ARITY:
        return fail(why, whylen, "wrong number of arguments", &a[0]);
    default:
        return fail(why, whylen, "not a write command", &a[0]);
    }
}

static int is_name(const aof_arg *a, const char *name)
{
    size_t n = strlen(name);
    return a->kind == AOF_ARG_BYTES && a->len == n && memcmp(a->p, name, n) == 0;
}

static int apply_record(void *ctx, const aof_mfile *f, const aof_record *rec, char *why, size_t whylen)
{
    replay *r = ctx;
    aof_iter ei, ai;
    aof_effect eff;

    if (r->cur != f) {
        if (r->cur)
            r->done_bytes += persist_file_size(r->dir, r->cur->name);
        r->cur = f;
    }
    r->rec = rec;
    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &eff)) {
        uint32_t argc = 0;
        const type_effect *x;
        db *d;
        int rc;

        if (eff.db >= srv.cfg.databases) {
            snprintf(why, whylen, "database %u out of range (databases is %d)", eff.db, srv.cfg.databases);
            return -1;
        }
        d = &srv.dbs[eff.db];
        if ((int)eff.argc > r->acap) {
            r->acap = (int)eff.argc * 2;
            r->args = xrealloc(r->args, sizeof(aof_arg) * (size_t)r->acap);
        }
        aof_args_begin(&ai, &eff);
        while (aof_args_next(&ai, &r->args[argc]))
            argc++;
        if (r->args[0].kind != AOF_ARG_BYTES) {
            snprintf(why, whylen, "an effect's command name is a compressed value");
            return -1;
        }
        if ((x = type_effect_named(&r->args[0])))
            rc = apply_type_effect(r, x, d, eff.db, r->args, argc, why, whylen);
        else
            rc = apply_command(r, eff.db, r->args, argc, why, whylen);
        if (rc < 0)
            return -1;
    }
    if ((rec->offset & 0xFFF) < 64 || rec->len > 65536) {
        int64_t now = mono_us() / 1000;
        if (now - r->last_progress >= LOAD_PROGRESS_MS) {
            uint64_t at = r->done_bytes + rec->offset;
            r->last_progress = now;
            log_notice("Loading the log: %s at %llu, %.1f%% of %.1f MB", f->name, (unsigned long long)rec->offset,
                       r->total_bytes ? 100.0 * (double)at / (double)r->total_bytes : 100.0,
                       (double)r->total_bytes / 1e6);
        }
    }
    return 0;
}

/* Replay the log the manifest names. 0, or -1 (the server must not start). */
int persist_load(const char *dir, const aof_manifest *m, persist_load_stats *st)
{
    aof_load_result res;
    replay r;
    int64_t t0 = mono_us();
    size_t i;
    long long errs0 = cmd_total_errors();
    int rc = 0;

    memset(&r, 0, sizeof(r));
    r.dir = dir;
    r.last_progress = t0 / 1000;
    for (i = 0; i < m->nfiles; i++)
        r.total_bytes += persist_file_size(dir, m->files[i].name);
    log_notice("Loading the log from %s: %zu file%s, %.1f MB", dir, m->nfiles, m->nfiles == 1 ? "" : "s",
               (double)r.total_bytes / 1e6);
    srv.loading = 1;
    db_expiry_paused = 1;
    db_now = now_ms();
    aof_load(dir, m, apply_record, &r, &res);
    db_expiry_paused = 0;
    srv.loading = 0;
    /* The replay is not traffic: counters start from zero after it. */
    srv.dirty = 0;
    db_stat_hits = db_stat_misses = 0;
    st->records = (long long)res.records;
    st->bytes = (long long)res.bytes;
    st->ms = (mono_us() - t0) / 1000;
    switch (res.status) {
    case AOF_END:
        break;
    case AOF_TORN:
        if (!srv.cfg.aof_load_truncated) {
            log_warning("The log ends in a torn record: %s/%s at offset %llu (%llu bytes to drop). "
                        "aof-load-truncated is no: refusing to start. Run 'scratchpad-check-aof --fix "
                        "%s/" AOF_MANIFEST_NAME "' or set aof-load-truncated yes",
                        dir, res.file, (unsigned long long)res.offset, (unsigned long long)res.dropped, dir);
            rc = -1;
            break;
        }
        {
            char path[AOF_PATH_MAX], err[256];
            if (aof_path(path, sizeof(path), dir, res.file) < 0 ||
                aof_file_truncate(path, res.offset, err, sizeof(err)) < 0) {
                log_warning("Cannot truncate the torn tail of %s/%s: %s", dir, res.file, err);
                rc = -1;
                break;
            }
        }
        st->truncated = (long long)res.dropped;
        log_warning("!!! Warning: the log ended in a torn record (a crash in the middle of a write). "
                    "%s/%s truncated at offset %llu: %llu bytes dropped; every record before it was loaded",
                    dir, res.file, (unsigned long long)res.offset, (unsigned long long)res.dropped);
        break;
    case AOF_IOERR:
        log_warning("Cannot read the log: %s/%s: %s. Scratchpad refuses to start without its whole log: restore "
                    "the file, or fix %s/" AOF_MANIFEST_NAME " so that it names the files that exist",
                    dir, res.file, res.why, dir);
        rc = -1;
        break;
    default:
        if (r.bad[0]) {
            log_warning("Bad value in the log: %s. Scratchpad refuses to start rather than lose that value "
                        "silently. Either start without it (and without each other value that does not decode), "
                        "each logged: aof-load-bad-values skip; or drop just that effect from the log: "
                        "scratchpad-check-aof --fix %s/" AOF_MANIFEST_NAME, r.bad, dir);
            rc = -1;
            break;
        }
        log_warning("Bad log: %s/%s at offset %llu: %s (%s). Scratchpad refuses to start rather than lose or "
                    "invent data. To repair it, either cut the log at that offset (%llu bytes lost): "
                    "scratchpad-check-aof --fix --truncate %s/" AOF_MANIFEST_NAME "; or drop only that record, "
                    "if the next one parses: scratchpad-check-aof --fix --skip-record %s/" AOF_MANIFEST_NAME,
                    dir, res.file, (unsigned long long)res.offset, res.why, aof_status_name(res.status),
                    (unsigned long long)res.dropped, dir, dir);
        rc = -1;
        break;
    }
    r.errors = cmd_total_errors() - errs0;
    if (rc == 0) {
        double secs = (double)(mono_us() - t0) / 1e6;
        log_notice("DB loaded from the log: %llu records, %.1f MB in %.3f seconds (%.0f MB/s)",
                   (unsigned long long)res.records, (double)res.bytes / 1e6, secs,
                   secs > 0 ? (double)res.bytes / 1e6 / secs : 0.0);
        if (r.errors)
            log_warning("%lld logged commands answered an error during the load", r.errors);
    }
    st->bad_values = r.nbad;
    st->bad_effects = r.nskipped;
    if (rc == 0 && (r.nbad || r.nskipped))
        log_warning("!!! Warning: %lld value%s that did not decode and %lld later effect%s on them were left out "
                    "of the load (aof-load-bad-values skip); the log still holds them until the next rewrite",
                    r.nbad, r.nbad == 1 ? "" : "s", r.nskipped, r.nskipped == 1 ? "" : "s");
    while (r.out)
        left_forget(&r, r.out);
    cmd_replay_end();
    xfree(r.argv);
    xfree(r.scratch);
    xfree(r.args);
    xfree(r.eargs);
    return rc;
}

