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
#include "core/sp/sp.h"
#include "core/util.h"
#include "types/sp/sptype.h"
#include "types/string/value.h"

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

static left_out *left_find(const replay *r, int dbid, const aof_arg *key, const aof_arg *entry)
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

/* A value that does not decode, in an intact record: key (and entry, NULL for
 * a string) of database dbid. With aof-load-bad-values refuse: -1 and why
 * (r->bad names it fully); with skip: logged, remembered, 0 (the effect is
 * left out). */
static int bad_value(replay *r, int dbid, const aof_arg *key, const aof_arg *entry, char *why, size_t whylen)
{
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

/* A BYTES argument as a long long. */
static int arg_num(const aof_arg *a, long long *v)
{
    return a->kind == AOF_ARG_BYTES && str_to_ll(a->p, a->len, v) == 0 ? 0 : -1;
}

static int fail(char *why, size_t whylen, const char *msg, const aof_arg *cmd)
{
    snprintf(why, whylen, "%s (effect %.*s)", msg, (int)(cmd->len > 32 ? 32 : cmd->len), cmd->p);
    return -1;
}

/* _SETSTR key value expire */
static int apply_setstr(replay *r, db *d, int dbid, aof_arg *a, uint32_t argc, char *why, size_t whylen)
{
    long long expire;
    left_out *o;
    dbent *e;

    if (argc != 4 || a[1].kind != AOF_ARG_BYTES || arg_num(&a[3], &expire) < 0)
        return fail(why, whylen, "malformed arguments", &a[0]);
    if (r->out && (o = left_find(r, dbid, &a[1], NULL)))
        left_forget(r, o); /* a whole new value: the key is back */
    if (a[2].kind == AOF_ARG_LZVAL) {
        lzval *v = aof_arg_lzval(&a[2]);
        if (!v) {
            db_delete(d, a[1].p, a[1].len);
            return bad_value(r, dbid, &a[1], NULL, why, whylen);
        }
        e = sv_set_lzval(d, a[1].p, a[1].len, v);
    } else {
        e = sv_set(d, a[1].p, a[1].len, a[2].p, a[2].len, 0);
    }
    if (expire >= 0)
        db_set_expire(d, e, expire);
    return 0;
}

/* The scratchpad at key a (created if absent). NULL if the key holds a string. */
static sp *replay_ns(db *d, const aof_arg *a, dbent **out)
{
    dbent *e = db_find_raw(d, a->p, a->len);
    if (e) {
        *out = e;
        return e->type == OBJ_SCRATCHPAD ? dbent_ptr(e) : NULL;
    }
    return sp_key_create(d, a->p, a->len, out);
}

/* _SPENTRY ns name kind version created updated expire offload_seq content
 * _SPAPPEND ns name version updated content
 * _SPEXPIREAT ns name expire */
static int apply_sp(replay *r, db *d, int dbid, int op, aof_arg *a, uint32_t argc, char *why, size_t whylen)
{
    left_out *o;
    static const uint32_t want[3] = {10, 6, 4};
    sp_params pr = sp_server_params();
    long long n[6] = {0};
    uint32_t i, nnum = op == 0 ? 6 : op == 1 ? 2 : 1;
    dbent *ke;
    sp_entry *e;
    sp *s;

    if (argc != want[op] || a[1].kind != AOF_ARG_BYTES || a[2].kind != AOF_ARG_BYTES ||
        !sp_name_valid(a[2].p, a[2].len))
        return fail(why, whylen, "malformed arguments", &a[0]);
    for (i = 0; i < nnum; i++)
        if (arg_num(&a[3 + i], &n[i]) < 0)
            return fail(why, whylen, "malformed number", &a[0]);
    if (!(s = replay_ns(d, &a[1], &ke)))
        return fail(why, whylen, "the key holds a string", &a[0]);
    e = sp_find(s, a[2].p, a[2].len);
    o = r->out ? left_find(r, dbid, &a[1], &a[2]) : NULL;
    if (o && op == 0) {
        left_forget(r, o); /* a whole new state: the entry is back */
    } else if (o && !e) {
        /* An append or expiry of an entry left out: left out too. */
        r->nskipped++;
        log_warning("Left out of the load (aof-load-bad-values skip): %s/%s at offset %llu: %.*s of key '%.*s' "
                    "(db %d), entry '%.*s', which was left out", r->dir, r->cur->name,
                    (unsigned long long)r->rec->offset, (int)a[0].len, a[0].p, (int)(a[1].len > 200 ? 200 : a[1].len),
                    a[1].p, dbid, (int)a[2].len, a[2].p);
        if (s->n == 0)
            db_delete_entry(d, ke);
        return 0;
    }
    if (op == 0) {
        const aof_arg *content = &a[9];
        if ((n[0] != SP_TEXT && n[0] != SP_BINARY) || n[1] < 1)
            return fail(why, whylen, "malformed entry", &a[0]);
        if (!e)
            e = sp_add(s, a[2].p, a[2].len, n[2]);
        if (content->kind == AOF_ARG_LZVAL) {
            lzval *v = aof_arg_lzval(content);
            if (!v) {
                sp_remove(s, e); /* its earlier state, if any, is not the entry's state any more */
                if (s->n == 0)
                    db_delete_entry(d, ke);
                else
                    db_set_subexpire(d, ke, sp_next_expire(s));
                return bad_value(r, dbid, &a[1], &a[2], why, whylen);
            }
            sp_entry_set_lz(s, e, v, (int)n[0]);
        } else {
            sp_entry_set(s, e, content->p, content->len, (int)n[0], &pr);
        }
        e->version = (uint64_t)n[1];
        e->created = n[2];
        e->updated = n[3];
        sp_set_expire(s, e, n[4] >= 0 ? n[4] : -1);
        if ((uint64_t)n[5] > s->offload_seq)
            s->offload_seq = (uint64_t)n[5];
    } else if (op == 1) {
        const aof_arg *content = &a[5];
        if (!e || content->kind != AOF_ARG_BYTES)
            return fail(why, whylen, "append to a missing entry", &a[0]);
        if (sp_entry_append(s, e, content->p, content->len, &pr) < 0)
            return fail(why, whylen, "the entry is corrupt", &a[0]);
        e->version = (uint64_t)n[0];
        e->updated = n[1];
    } else {
        if (!e)
            return fail(why, whylen, "expiry of a missing entry", &a[0]);
        sp_set_expire(s, e, n[0] >= 0 ? n[0] : -1);
    }
    if (s->n == 0)
        db_delete_entry(d, ke);
    else
        db_set_subexpire(d, ke, sp_next_expire(s));
    return 0;
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
        left_out *o = left_find(r, dbid, &a[cmd->first_key], NULL);
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
        if (is_name(&r->args[0], "_SETSTR"))
            rc = apply_setstr(r, d, eff.db, r->args, argc, why, whylen);
        else if (is_name(&r->args[0], "_SPENTRY"))
            rc = apply_sp(r, d, eff.db, 0, r->args, argc, why, whylen);
        else if (is_name(&r->args[0], "_SPAPPEND"))
            rc = apply_sp(r, d, eff.db, 1, r->args, argc, why, whylen);
        else if (is_name(&r->args[0], "_SPEXPIREAT"))
            rc = apply_sp(r, d, eff.db, 2, r->args, argc, why, whylen);
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
    return rc;
}

