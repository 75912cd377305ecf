/* ops.c -- the agents' logical operations, each expressed for scratchpad
 * (SP.* commands, one per operation: the windows, grep and edits happen in the
 * server) and for Redis (--baseline redis: SET, GET, GETRANGE, APPEND, SCAN,
 * DEL; a grep, a LINES read or an edit GETs the whole value and does the work in
 * the client, an edit SETs the result back, as an agent harness on Redis does).
 *
 * The model. Each agent knows what its namespace holds: a plan of N steps and
 * which are ticked, findings in --keep-findings slots rewritten in turn, up to
 * --keep-tools tool outputs (oldest first, with their sizes and line counts),
 * the running log's size. An operation that makes no sense in the current state
 * becomes one that does (resolve_op), so every command is meaningful: an edit
 * ticks a step still open and matches exactly once, a read names an entry that
 * exists. Every choice and every byte come from the agent's generator.
 *
 * Content. Plans and log lines are generated (small); findings, tool outputs
 * and small values are slices of the run's corpus (loggen.h), sent from where
 * they lie: a command is formatted once into the thread's scratch buffer and
 * copied once more by hiredis. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "agent.h"

const char *const bench_op_names[OP_COUNT] = {
    "list", "plan_write", "plan_read", "plan_edit",   "finding_write", "finding_read", "offload",
    "peek", "head",       "tail",      "range",       "lines",         "grep",         "append",
    "del",  "kv_write",   "kv_read",   "lease_write", "changes",       "snapshot",     "diff",
};

const char *const bench_cmd_names[CMD_COUNT] = {
    "sp.write", "sp.append",  "sp.read",    "sp.range",    "sp.grep",         "sp.list", "sp.edit", "sp.del",
    "sp.peek",  "sp.offload", "set",        "get",         "getrange",        "append",  "scan",    "del",
    "sp.lease", "sp.release", "sp.changes", "sp.snapshot", "sp.dropsnapshot", "sp.diff",
};

#define PEEK_CHARS 500 /* SP.PEEK's default head and tail */

static volatile size_t sink; /* results of client-side work, so it is not optimised away */

/* ---- formatting commands (RESP) into the worker's scratch buffer ---- */

static void fmt_reserve(worker *w, size_t more)
{
    if (w->fmt_len + more <= w->fmt_cap)
        return;
    while (w->fmt_len + more > w->fmt_cap)
        w->fmt_cap = w->fmt_cap ? 2 * w->fmt_cap : 4096;
    w->fmt = realloc(w->fmt, w->fmt_cap);
    if (!w->fmt) {
        fprintf(stderr, "scratchpad-bench: out of memory\n");
        exit(1);
    }
}

static void c_begin(agent *a, int argc)
{
    worker *w = a->w;
    w->fmt_len = 0;
    fmt_reserve(w, 32);
    w->fmt_len += (size_t)sprintf(w->fmt, "*%d\r\n", argc);
}

typedef struct piece {
    const char *p;
    size_t n;
} piece;

/* One argument made of n pieces laid end to end. */
static void c_pieces(agent *a, const piece *pc, int n)
{
    worker *w = a->w;
    size_t len = 0;
    int i;

    for (i = 0; i < n; i++)
        len += pc[i].n;
    fmt_reserve(w, len + 32);
    w->fmt_len += (size_t)sprintf(w->fmt + w->fmt_len, "$%zu\r\n", len);
    for (i = 0; i < n; i++) {
        memcpy(w->fmt + w->fmt_len, pc[i].p, pc[i].n);
        w->fmt_len += pc[i].n;
    }
    memcpy(w->fmt + w->fmt_len, "\r\n", 2);
    w->fmt_len += 2;
}

static void c_arg(agent *a, const char *p, size_t n)
{
    piece pc = {p, n};
    c_pieces(a, &pc, 1);
}

static void c_str(agent *a, const char *s)
{
    c_arg(a, s, strlen(s));
}

static void c_num(agent *a, long long v)
{
    char b[24];
    c_arg(a, b, (size_t)sprintf(b, "%lld", v));
}

/* The entry of the operation as it is named on the target: the namespace and the
 * name (two arguments) on scratchpad, the key <ns>:<name> on Redis. */
static void c_entry(agent *a)
{
    if (a->w->o->redis) {
        piece pc[3] = {{a->ns, a->nslen}, {":", 1}, {a->name, a->namelen}};
        c_pieces(a, pc, 3);
    } else {
        c_arg(a, a->ns, a->nslen);
        c_arg(a, a->name, a->namelen);
    }
}

/* ---- the model: choosing an operation ---- */

static int tool_reads(const bench_opts *o)
{
    int k, any = 0;
    for (k = OP_OFFLOAD; k <= OP_GREP; k++)
        any |= o->weight[k] > 0;
    return any || o->weight[OP_DEL] > 0;
}

static int pick_weighted(agent *a)
{
    const bench_opts *o = a->w->o;
    uint64_t total = 0, x;
    int k;

    for (k = 0; k < OP_COUNT; k++)
        if (k != OP_LIST)
            total += o->weight[k];
    x = rng_below(&a->r, total);
    for (k = 0; k < OP_COUNT; k++) {
        if (k == OP_LIST)
            continue;
        if (x < o->weight[k])
            return k;
        x -= o->weight[k];
    }
    return OP_KV_READ;
}

/* Turn the wanted operation into one that makes sense in the agent's current
 * state (a read of a tool output when there is none becomes an offload, an
 * offload past --keep-tools deletes the oldest first...). Terminates: every
 * chain of replacements ends in a few steps. */
static int resolve_op(agent *a, int op)
{
    const bench_opts *o = a->w->o;
    uint64_t all_done;

    for (;;) {
        all_done = a->plan_steps >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << a->plan_steps) - 1;
        switch (op) {
        case OP_PLAN_READ:
            if (!a->has_plan)
                op = OP_PLAN_WRITE;
            return op;
        case OP_PLAN_EDIT:
            if (!a->has_plan || a->plan_done == all_done)
                op = OP_PLAN_WRITE;
            return op;
        case OP_FINDING_READ:
            if (!a->findings)
                op = OP_FINDING_WRITE;
            return op;
        case OP_PEEK: case OP_HEAD: case OP_TAIL: case OP_RANGE: case OP_LINES: case OP_GREP:
            if (a->ntools)
                return op;
            op = OP_OFFLOAD;
            continue;
        case OP_OFFLOAD:
            if (a->ntools < (int)o->keep_tools)
                return op;
            a->del_log = 0;
            return OP_DEL;
        case OP_APPEND:
            if (a->log_size && a->log_size + o->append.max > o->log_max) {
                a->del_log = 1;
                return OP_DEL;
            }
            return op;
        case OP_DIFF:
            if (!a->has_snap)
                op = OP_SNAPSHOT;
            return op;
        case OP_DEL:
            if (a->ntools) {
                a->del_log = 0;
                return op;
            }
            if (a->log_size) {
                a->del_log = 1;
                return op;
            }
            op = OP_APPEND;
            continue;
        default:
            return op;
        }
    }
}

static void set_name(agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_name(agent *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(a->name, sizeof(a->name), fmt, ap);
    va_end(ap);
    a->namelen = n < 0 ? 0 : (size_t)n < sizeof(a->name) ? (size_t)n : sizeof(a->name) - 1;
}

static void text_reserve(worker *w, size_t n)
{
    if (n <= w->text_cap)
        return;
    w->text = realloc(w->text, n);
    w->text_cap = n;
    if (!w->text) {
        fprintf(stderr, "scratchpad-bench: out of memory\n");
        exit(1);
    }
}

/* ---- the operations: first step (rep == NULL) and every reply ---- */

static void run_plan_write(agent *a)
{
    const bench_opts *o = a->w->o;
    worker *w = a->w;
    size_t target = rng_between(&a->r, o->plan.min, o->plan.max), n;

    text_reserve(w, target + 512);
    n = loggen_plan(&a->r, target, w->text, w->text_cap, &a->plan_steps);
    a->has_plan = 1;
    a->plan_done = 0;
    set_name(a, "plan");
    c_begin(a, o->redis ? 3 : 4);
    c_str(a, o->redis ? "SET" : "SP.WRITE");
    c_entry(a);
    c_arg(a, w->text, n);
    agent_send(a, o->redis ? CMD_SET : CMD_SP_WRITE);
}

static void run_read_whole(agent *a)
{
    int redis = a->w->o->redis;
    c_begin(a, redis ? 2 : 3);
    c_str(a, redis ? "GET" : "SP.READ");
    c_entry(a);
    agent_send(a, redis ? CMD_GET : CMD_SP_READ);
}

static void run_plan_edit(agent *a, const redisReply *rep)
{
    const bench_opts *o = a->w->o;
    char old[32], new[32];
    size_t ol, nl;
    const char *hit;

    ol = (size_t)sprintf(old, "- [ ] step %d:", a->edit_k);
    nl = (size_t)sprintf(new, "- [x] step %d:", a->edit_k);
    if (!o->redis) {
        if (rep)
            return;
        c_begin(a, 5);
        c_str(a, "SP.EDIT");
        c_entry(a);
        c_arg(a, old, ol);
        c_arg(a, new, nl);
        agent_send(a, CMD_SP_EDIT);
        return;
    }
    /* Redis: read, replace in the client, write back */
    if (!rep) {
        run_read_whole(a);
        return;
    }
    if (rep->type == REDIS_REPLY_STATUS)
        return; /* the SET's OK */
    if (rep->type != REDIS_REPLY_STRING) {
        a->err = 1; /* the plan vanished */
        return;
    }
    hit = memmem(rep->str, rep->len, old, ol);
    if (!hit || memmem(hit + ol, rep->len - (size_t)(hit + ol - rep->str), old, ol)) {
        a->err = 1; /* an edit must match exactly once */
        return;
    }
    {
        piece pc[3] = {{rep->str, (size_t)(hit - rep->str)},
                       {new, nl},
                       {hit + ol, rep->len - (size_t)(hit + ol - rep->str)}};
        c_begin(a, 3);
        c_str(a, "SET");
        c_entry(a);
        c_pieces(a, pc, 3);
        agent_send(a, CMD_SET);
    }
}

static void run_finding_write(agent *a)
{
    const bench_opts *o = a->w->o;
    const corpus *cp = a->w->sh->corpus;
    size_t size = rng_between(&a->r, o->finding.min, o->finding.max), off, len;
    unsigned slot = a->findings % o->keep_findings;
    unsigned src = (unsigned)rng_below(&a->r, 100), from = (unsigned)rng_below(&a->r, 500);
    unsigned to = (unsigned)rng_between(&a->r, 500, 2000);
    const char *conf = rng_below(&a->r, 2) ? "high" : "medium";
    char head[256];
    size_t hl;

    hl = (size_t)snprintf(head, sizeof(head),
                          "## Finding %u\n\nSource: tool-%u, lines %u-%u. Confidence: %s.\n\nEvidence:\n",
                          a->findings + 1, src, from, to, conf);
    corpus_slice(cp, &a->r, size > hl ? size - hl : 1, &off, &len);
    a->findings++;
    set_name(a, "finding-%u", slot);
    {
        piece pc[2] = {{head, hl}, {cp->text + off, len}};
        int fenced = a->op == OP_LEASE_WRITE; /* written under the lease: FENCE findings <token> */
        c_begin(a, o->redis ? 3 : fenced ? 7 : 4);
        c_str(a, o->redis ? "SET" : "SP.WRITE");
        c_entry(a);
        c_pieces(a, pc, 2);
        if (fenced) {
            c_str(a, "FENCE");
            c_str(a, "findings");
            c_num(a, a->token);
        }
        agent_send(a, o->redis ? CMD_SET : CMD_SP_WRITE);
    }
}

static const char *const tool_cmds[] = {
    "kubectl logs deploy/api --since=1h", "pytest -x tests/", "make 2>&1", "journalctl -u worker",
    "grep -rn timeout src/", "cat /var/log/app/server.log",
};

static void run_offload(agent *a, const redisReply *rep)
{
    const bench_opts *o = a->w->o;
    const corpus *cp = a->w->sh->corpus;
    tool_ref *t;
    size_t i;

    if (rep) {
        /* scratchpad: the generated name is in the reply map (flat in RESP2) */
        t = &a->tools[a->ntools - 1];
        if (rep->type != REDIS_REPLY_ARRAY) {
            a->ntools--;
            return;
        }
        for (i = 0; i + 1 < rep->elements; i += 2) {
            const redisReply *k = rep->element[i], *v = rep->element[i + 1];
            if (k->type == REDIS_REPLY_STRING && k->len == 4 && memcmp(k->str, "name", 4) == 0 &&
                v->type == REDIS_REPLY_STRING && v->len > 5 && memcmp(v->str, "tool-", 5) == 0)
                t->num = (uint32_t)strtoul(v->str + 5, NULL, 10);
        }
        return;
    }
    {
        size_t size = rng_logu(&a->r, o->tool.min, o->tool.max), off, len, lines;
        char head[160];
        const char *cmd = tool_cmds[rng_below(&a->r, sizeof(tool_cmds) / sizeof(tool_cmds[0]))];
        size_t hl = (size_t)snprintf(head, sizeof(head), "$ %s  # call %u\n", cmd, a->tool_seq + 1);
        /* --tool-size starts above the offload threshold (checked by the options),
         * so every tool output is stored */
        lines = corpus_slice(cp, &a->r, size > hl ? size - hl : 1, &off, &len);
        t = &a->tools[a->ntools++];
        t->num = ++a->tool_seq;
        t->size = hl + len;
        t->lines = (uint32_t)(lines + 1);
        {
            piece pc[2] = {{head, hl}, {cp->text + off, len}};
            if (o->redis) {
                set_name(a, "tool-%u", t->num);
                c_begin(a, 3);
                c_str(a, "SET");
                c_entry(a);
                c_pieces(a, pc, 2);
                agent_send(a, CMD_SET);
            } else {
                char th[24];
                c_begin(a, 7);
                c_str(a, "SP.OFFLOAD");
                c_arg(a, a->ns, a->nslen);
                c_pieces(a, pc, 2);
                c_str(a, "THRESHOLD");
                c_arg(a, th, (size_t)sprintf(th, "%zu", o->offload_threshold));
                c_str(a, "PREFIX");
                c_str(a, "tool");
                agent_send(a, CMD_SP_OFFLOAD);
            }
        }
    }
}

/* Pick the tool output a read is about. */
static void pick_tool(agent *a)
{
    a->tidx = (int)rng_below(&a->r, (uint64_t)a->ntools);
    set_name(a, "tool-%u", a->tools[a->tidx].num);
}

static void run_window(agent *a)
{
    const bench_opts *o = a->w->o;
    const tool_ref *t = &a->tools[a->tidx];
    size_t win = o->window;

    switch (a->op) {
    case OP_PEEK:
        if (o->redis) {
            /* the preview: first and last 500 characters, one round trip */
            c_begin(a, 4);
            c_str(a, "GETRANGE");
            c_entry(a);
            c_num(a, 0);
            c_num(a, PEEK_CHARS - 1);
            agent_send(a, CMD_GETRANGE);
            c_begin(a, 4);
            c_str(a, "GETRANGE");
            c_entry(a);
            c_num(a, -PEEK_CHARS);
            c_num(a, -1);
            agent_send(a, CMD_GETRANGE);
        } else {
            c_begin(a, 3);
            c_str(a, "SP.PEEK");
            c_entry(a);
            agent_send(a, CMD_SP_PEEK);
        }
        return;
    case OP_HEAD:
    case OP_TAIL:
        if (o->redis) {
            c_begin(a, 4);
            c_str(a, "GETRANGE");
            c_entry(a);
            c_num(a, a->op == OP_HEAD ? 0 : -(long long)win);
            c_num(a, a->op == OP_HEAD ? (long long)win - 1 : -1);
            agent_send(a, CMD_GETRANGE);
        } else {
            c_begin(a, 5);
            c_str(a, "SP.READ");
            c_entry(a);
            c_str(a, a->op == OP_HEAD ? "HEAD" : "TAIL");
            c_num(a, (long long)win);
            agent_send(a, CMD_SP_READ);
        }
        return;
    default: /* OP_RANGE */
        a->a1 = t->size > win ? rng_below(&a->r, t->size - win) : 0;
        a->a2 = a->a1 + win;
        c_begin(a, o->redis ? 4 : 5);
        c_str(a, o->redis ? "GETRANGE" : "SP.RANGE");
        c_entry(a);
        c_num(a, (long long)a->a1);
        c_num(a, (long long)(o->redis ? a->a2 - 1 : a->a2));
        agent_send(a, o->redis ? CMD_GETRANGE : CMD_SP_RANGE);
        return;
    }
}

/* Redis: lines a1..a2 of the whole value, found in the client. */
static void client_lines(agent *a, const redisReply *rep)
{
    const char *p = rep->str, *end = rep->str + rep->len, *from;
    size_t line = 1;

    while (line < a->a1 && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        line++;
    }
    from = p;
    while (line <= a->a2 && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        line++;
    }
    sink += (size_t)(p - from);
}

/* Redis: the first grep_max lines matching the pattern, found in the client. */
static void client_grep(agent *a, const redisReply *rep)
{
    worker *w = a->w;
    pcre2_code *code = w->grep_code[a->pat];
    pcre2_match_data *md = w->grep_match;
    const char *s = rep->str;
    size_t at = 0, found = 0, len = rep->len;

    if (!code || !md) {
        a->err = 1;
        return;
    }
    while (found < w->o->grep_max && at < len) {
        PCRE2_SIZE *ov;
        const char *ls, *le;
        int rc = pcre2_match(code, (PCRE2_SPTR)s, len, at, 0, md, NULL);
        if (rc < 0)
            break;
        ov = pcre2_get_ovector_pointer(md);
        /* the matching line, then carry on after it */
        for (ls = s + ov[0]; ls > s && ls[-1] != '\n'; ls--)
            ;
        le = memchr(s + ov[0], '\n', len - ov[0]);
        le = le ? le + 1 : s + len;
        sink += (size_t)(le - ls);
        found++;
        at = (size_t)(le - s);
    }
}

static void run_lines_or_grep(agent *a, const redisReply *rep)
{
    const bench_opts *o = a->w->o;
    const tool_ref *t = &a->tools[a->tidx];

    if (rep) {
        if (o->redis && rep->type == REDIS_REPLY_STRING) {
            if (a->op == OP_LINES)
                client_lines(a, rep);
            else
                client_grep(a, rep);
        }
        return;
    }
    if (a->op == OP_LINES) {
        a->a1 = 1 + (t->lines > o->lines ? rng_below(&a->r, t->lines - o->lines + 1) : 0);
        a->a2 = a->a1 + o->lines - 1;
    } else {
        a->pat = (int)rng_below(&a->r, (uint64_t)loggen_npatterns);
    }
    if (o->redis) {
        run_read_whole(a);
        return;
    }
    if (a->op == OP_LINES) {
        c_begin(a, 6);
        c_str(a, "SP.READ");
        c_entry(a);
        c_str(a, "LINES");
        c_num(a, (long long)a->a1);
        c_num(a, (long long)a->a2);
        agent_send(a, CMD_SP_READ);
    } else {
        c_begin(a, 6);
        c_str(a, "SP.GREP");
        c_entry(a);
        c_str(a, loggen_patterns[a->pat]);
        c_str(a, "MAX");
        c_num(a, (long long)o->grep_max);
        agent_send(a, CMD_SP_GREP);
    }
}

static void run_append(agent *a)
{
    const bench_opts *o = a->w->o;
    worker *w = a->w;
    size_t target = rng_between(&a->r, o->append.min, o->append.max), n = 0;

    text_reserve(w, target + 1024);
    while (n < target)
        n += loggen_line(&a->lg, &a->r, w->text + n, w->text_cap - n);
    a->log_size += n;
    set_name(a, "log");
    c_begin(a, o->redis ? 3 : 4);
    c_str(a, o->redis ? "APPEND" : "SP.APPEND");
    c_entry(a);
    c_arg(a, w->text, n);
    agent_send(a, o->redis ? CMD_APPEND : CMD_SP_APPEND);
}

static void run_del(agent *a)
{
    int redis = a->w->o->redis;

    if (a->del_log) {
        set_name(a, "log");
        a->log_size = 0;
    } else {
        set_name(a, "tool-%u", a->tools[0].num);
        memmove(a->tools, a->tools + 1, (size_t)(a->ntools - 1) * sizeof(a->tools[0]));
        a->ntools--;
    }
    c_begin(a, redis ? 2 : 3);
    c_str(a, redis ? "DEL" : "SP.DEL");
    c_entry(a);
    agent_send(a, redis ? CMD_DEL : CMD_SP_DEL);
}

static void run_list(agent *a, const redisReply *rep)
{
    const bench_opts *o = a->w->o;
    const redisReply *cur;

    if (rep) {
        /* both replies are [cursor, items]: go on until the cursor is 0 */
        if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 || rep->element[0]->type != REDIS_REPLY_STRING)
            return;
        cur = rep->element[0];
        if (cur->len == 1 && cur->str[0] == '0')
            return;
    }
    if (o->redis) {
        piece pat[2] = {{a->ns, a->nslen}, {":*", 2}};
        c_begin(a, 6);
        c_str(a, "SCAN");
        if (rep)
            c_arg(a, cur->str, cur->len);
        else
            c_str(a, "0");
        c_str(a, "MATCH");
        c_pieces(a, pat, 2);
        c_str(a, "COUNT");
        c_str(a, "1000");
        agent_send(a, CMD_SCAN);
    } else {
        c_begin(a, rep ? 4 : 2);
        c_str(a, "SP.LIST");
        c_arg(a, a->ns, a->nslen);
        if (rep) {
            c_str(a, "CURSOR");
            c_arg(a, cur->str, cur->len);
        }
        agent_send(a, CMD_SP_LIST);
    }
}

static void run_kv(agent *a)
{
    const bench_opts *o = a->w->o;
    const corpus *cp = a->w->sh->corpus;
    unsigned k = (unsigned)rng_below(&a->r, o->kv_keys);

    set_name(a, "kv-%u", k);
    if (a->op == OP_KV_READ) {
        run_read_whole(a);
        return;
    }
    {
        size_t size = rng_between(&a->r, o->kv.min, o->kv.max);
        size_t off = size < cp->len ? rng_below(&a->r, cp->len - size) : 0;
        if (size > cp->len)
            size = cp->len;
        c_begin(a, o->redis ? 3 : 4);
        c_str(a, o->redis ? "SET" : "SP.WRITE");
        c_entry(a);
        c_arg(a, cp->text + off, size);
        agent_send(a, o->redis ? CMD_SET : CMD_SP_WRITE);
    }
}

/* ---- agent-coord: leases, the change feed, snapshots (scratchpad only) ---- */

/* The lease pattern of a harness whose agents share findings: take the lease
 * on them, write a finding fenced with its token, release it; three round
 * trips, each waiting for the last. */
static void run_lease_write(agent *a, const redisReply *rep)
{
    char holder[32];
    size_t hl = (size_t)snprintf(holder, sizeof(holder), "agent-%u", a->id);

    if (!rep) {
        a->lease_step = 0;
        c_begin(a, 5);
        c_str(a, "SP.LEASE");
        c_arg(a, a->ns, a->nslen);
        c_str(a, "findings");
        c_arg(a, holder, hl);
        c_str(a, "10000");
        agent_send(a, CMD_SP_LEASE);
        return;
    }
    if (a->lease_step == 0) {
        if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 || rep->element[0]->type != REDIS_REPLY_INTEGER) {
            a->err = 1;
            return;
        }
        a->token = rep->element[0]->integer;
        a->lease_step = 1;
        run_finding_write(a); /* formats SP.WRITE ns name content; the fence is added below */
        return;
    }
    if (a->lease_step == 1) {
        a->lease_step = 2;
        c_begin(a, 5);
        c_str(a, "SP.RELEASE");
        c_arg(a, a->ns, a->nslen);
        c_str(a, "findings");
        c_arg(a, holder, hl);
        c_num(a, a->token);
        agent_send(a, CMD_SP_RELEASE);
    }
}

/* Catch up with the feed: the changes after the last one seen, 100 at most. */
static void run_changes(agent *a, const redisReply *rep)
{
    size_t i;

    if (!rep) {
        c_begin(a, 6);
        c_str(a, "SP.CHANGES");
        c_arg(a, a->ns, a->nslen);
        c_str(a, "SINCE");
        c_num(a, a->feed_seq);
        c_str(a, "COUNT");
        c_str(a, "100");
        agent_send(a, CMD_SP_CHANGES);
        return;
    }
    /* {first, last, gap, changes}, flat in RESP2: resume after the last change
     * listed, or from `last` after a gap */
    if (rep->type != REDIS_REPLY_ARRAY)
        return;
    {
        long long last = -1, gap = 0, listed = -1;
        for (i = 0; i + 1 < rep->elements; i += 2) {
            const redisReply *k = rep->element[i], *v = rep->element[i + 1];
            if (k->type != REDIS_REPLY_STRING)
                continue;
            if (k->len == 4 && memcmp(k->str, "last", 4) == 0 && v->type == REDIS_REPLY_INTEGER)
                last = v->integer;
            else if (k->len == 3 && memcmp(k->str, "gap", 3) == 0 && v->type == REDIS_REPLY_INTEGER)
                gap = v->integer;
            else if (k->len == 7 && memcmp(k->str, "changes", 7) == 0 && v->type == REDIS_REPLY_ARRAY &&
                     v->elements > 0) {
                const redisReply *c = v->element[v->elements - 1];
                if (c->type == REDIS_REPLY_ARRAY && c->elements > 0 && c->element[0]->type == REDIS_REPLY_INTEGER)
                    listed = c->element[0]->integer;
            }
        }
        if (listed >= 0)
            a->feed_seq = listed;
        else if (gap && last >= 0)
            a->feed_seq = last;
    }
}

/* The before-snapshot of an agent cycle: the last one dropped, a new one taken
 * (two commands in flight). */
static void run_snapshot(agent *a)
{
    c_begin(a, 3);
    c_str(a, "SP.DROPSNAPSHOT");
    c_arg(a, a->ns, a->nslen);
    c_str(a, "cycle");
    agent_send(a, CMD_SP_DROPSNAPSHOT);
    c_begin(a, 3);
    c_str(a, "SP.SNAPSHOT");
    c_arg(a, a->ns, a->nslen);
    c_str(a, "cycle");
    agent_send(a, CMD_SP_SNAPSHOT);
    a->has_snap = 1;
}

static void run_diff(agent *a)
{
    c_begin(a, 4);
    c_str(a, "SP.DIFF");
    c_arg(a, a->ns, a->nslen);
    c_str(a, "cycle");
    c_str(a, "NOW");
    agent_send(a, CMD_SP_DIFF);
}

/* Advance the operation in flight: rep is NULL to start it, else a reply to one
 * of its commands. May queue more commands; the operation is over when none is
 * pending after this returns. */
static void op_run(agent *a, const redisReply *rep)
{
    switch (a->op) {
    case OP_LIST:
        run_list(a, rep);
        break;
    case OP_PLAN_WRITE:
        if (!rep)
            run_plan_write(a);
        break;
    case OP_PLAN_READ:
        if (!rep) {
            set_name(a, "plan");
            run_read_whole(a);
        }
        break;
    case OP_PLAN_EDIT:
        run_plan_edit(a, rep);
        break;
    case OP_FINDING_WRITE:
        if (!rep)
            run_finding_write(a);
        break;
    case OP_FINDING_READ:
        if (!rep) {
            unsigned have = a->findings < a->w->o->keep_findings ? a->findings : a->w->o->keep_findings;
            set_name(a, "finding-%u", (unsigned)rng_below(&a->r, have));
            run_read_whole(a);
        }
        break;
    case OP_OFFLOAD:
        if (!rep || !a->w->o->redis)
            run_offload(a, rep);
        break;
    case OP_PEEK: case OP_HEAD: case OP_TAIL: case OP_RANGE:
        if (!rep)
            run_window(a);
        break;
    case OP_LINES: case OP_GREP:
        run_lines_or_grep(a, rep);
        break;
    case OP_APPEND:
        if (!rep)
            run_append(a);
        break;
    case OP_DEL:
        if (!rep)
            run_del(a);
        break;
    case OP_LEASE_WRITE:
        run_lease_write(a, rep);
        break;
    case OP_CHANGES:
        run_changes(a, rep);
        break;
    case OP_SNAPSHOT:
        if (!rep)
            run_snapshot(a);
        break;
    case OP_DIFF:
        if (!rep)
            run_diff(a);
        break;
    default:
        if (!rep)
            run_kv(a);
        break;
    }
}

/* ---- the interface to agent.c ---- */

int ops_next(agent *a)
{
    const bench_opts *o = a->w->o;

    if (o->session_ops && a->session_left == 0) {
        a->session_left = o->session_ops;
        return OP_LIST;
    }
    if (o->session_ops)
        a->session_left--;
    return pick_weighted(a);
}

void ops_begin(agent *a, int op)
{
    a->op = resolve_op(a, op);
    if (a->op >= OP_PEEK && a->op <= OP_GREP)
        pick_tool(a);
    if (a->op == OP_PLAN_EDIT) {
        /* a step still open, at random */
        uint64_t open = ~a->plan_done & (a->plan_steps >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << a->plan_steps) - 1);
        unsigned k = (unsigned)rng_below(&a->r, (uint64_t)__builtin_popcountll(open));
        while (k--)
            open &= open - 1;
        a->edit_k = __builtin_ctzll(open) + 1;
        a->plan_done |= UINT64_C(1) << (a->edit_k - 1);
        set_name(a, "plan");
    }
    op_run(a, NULL);
}

void ops_reply(agent *a, const redisReply *rep)
{
    op_run(a, rep);
}

void ops_failed(agent *a)
{
    if (a->op == OP_OFFLOAD && !a->w->o->redis && a->ntools > 0)
        a->ntools--; /* not stored, so not there to read */
}

void ops_plan_setup(agent *a)
{
    const bench_opts *o = a->w->o;

    a->nsetup = 0;
    if (o->weight[OP_PLAN_READ] || o->weight[OP_PLAN_EDIT] || o->weight[OP_PLAN_WRITE])
        a->setup[a->nsetup++] = OP_PLAN_WRITE;
    if (o->weight[OP_FINDING_READ] || o->weight[OP_FINDING_WRITE]) {
        a->setup[a->nsetup++] = OP_FINDING_WRITE;
        a->setup[a->nsetup++] = OP_FINDING_WRITE;
    }
    if (tool_reads(o)) {
        a->setup[a->nsetup++] = OP_OFFLOAD;
        a->setup[a->nsetup++] = OP_OFFLOAD;
    }
    if (o->weight[OP_APPEND])
        a->setup[a->nsetup++] = OP_APPEND;
    a->setup_pos = 0;
}

void ops_worker_init(worker *w)
{
    int i, errc;
    PCRE2_SIZE eoff;
    uint32_t cap = 1;

    if (!w->o->redis)
        return;
    /* The text is ASCII: no UTF mode, so no validation of the whole subject on
     * every call; JIT as the server uses it. */
    for (i = 0; i < loggen_npatterns && i < GREP_PATTERNS_MAX; i++) {
        pcre2_code *c = pcre2_compile((PCRE2_SPTR)loggen_patterns[i], PCRE2_ZERO_TERMINATED, 0, &errc, &eoff, NULL);
        if (c) {
            uint32_t n = 0;
            pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
            pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &n);
            if (n + 1 > cap)
                cap = n + 1;
        }
        w->grep_code[i] = c;
    }
    w->grep_match = pcre2_match_data_create(cap, NULL);
}

void ops_worker_free(worker *w)
{
    int i;

    for (i = 0; i < GREP_PATTERNS_MAX; i++) {
        pcre2_code_free(w->grep_code[i]);
        w->grep_code[i] = NULL;
    }
    pcre2_match_data_free(w->grep_match);
    w->grep_match = NULL;
    free(w->fmt);
    free(w->text);
    w->fmt = w->text = NULL;
    w->fmt_cap = w->text_cap = 0;
}
