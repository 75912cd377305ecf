/* agent_session.c -- one session of an AI agent's harness using libscratchpad.
 *
 * What a harness does with the scratchpad, in order: list what the session
 * already holds (the agent's memory from earlier turns), write the plan, park a
 * large tool output with SP.OFFLOAD so only its name and a preview go into the
 * model's context, read back just the slices it needs (head, tail, the lines
 * around an error), tick a step of the plan with an exact edit guarded by the
 * version it read, and fetch several things in one round trip with a batch.
 *
 *   cc agent_session.c $(pkg-config --cflags --libs scratchpad) -o agent_session
 *   ./agent_session [host] [port] [session]      (127.0.0.1 6379 agent-demo)
 *
 * Exits 0 when every step worked, 1 otherwise (with the library's message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scratchpad.h>

static int fail(spc_ctx *c, const char *step)
{
    fprintf(stderr, "agent_session: %s: %s (%s)\n", step, spc_errstr(c), spc_status_name(spc_err(c)));
    return 1;
}

/* A tool output of the kind agents offload: a build log of n lines, a few of
 * them errors. The caller frees it. */
static char *make_log(int n, size_t *len)
{
    size_t cap = (size_t)n * 96, off = 0;
    char *s = malloc(cap);
    int i;

    if (!s)
        return NULL;
    for (i = 1; i <= n; i++) {
        const char *lvl = i % 997 == 0 ? "ERROR" : i % 101 == 0 ? "WARN" : "INFO";
        off += (size_t)snprintf(s + off, cap - off, "2024-05-01T12:%02d:%02d %-5s compile unit %d of %d: %s\n",
                                (i / 60) % 60, i % 60, lvl, i, n,
                                lvl[0] == 'E' ? "undefined reference to `frobnicate'" : "ok");
    }
    *len = off;
    return s;
}

int main(int argc, char **argv)
{
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    int port = argc > 2 ? atoi(argv[2]) : 6379;
    const char *ns = argc > 3 ? argv[3] : "agent-demo";
    const char *plan = "# plan\n[ ] 1. build the project\n[ ] 2. fix the link errors\n[ ] 3. run the tests\n";
    spc_options opts = {0};
    spc_ctx *c;
    spc_list_iter *it = NULL;
    const spc_list_item *item;
    spc_offload *obs = NULL;
    spc_content *head = NULL, *tail = NULL, *again = NULL, *peek = NULL;
    spc_grep *errors = NULL;
    spc_read_opts ro = {0};
    spc_grep_opts go = {0};
    spc_edit_opts eo = {0};
    spc_stat st;
    uint64_t plan_version = 0, v = 0;
    size_t log_len = 0, replaced = 0, i, n = 0;
    char *log = NULL, obs_name[300];
    int status[2], rc = 1;

    opts.host = host;
    opts.port = port;
    opts.connect_timeout_ms = 5000;
    opts.timeout_ms = 10000;
    opts.password = getenv("SCRATCHPAD_PASSWORD");
    c = spc_connect_with(&opts);
    if (!c) {
        fprintf(stderr, "agent_session: out of memory\n");
        return 1;
    }
    if (spc_err(c) != SP_OK) {
        rc = fail(c, "connect");
        goto done;
    }

    /* 1. What does this session already know? (call list at the start) */
    if (spc_list_iter_new(c, ns, &(spc_list_opts){.withmeta = 1}, &it) != SP_OK)
        goto err_list;
    while (spc_list_iter_next(it, &item) == SP_OK && item) {
        printf("  have %-24s %8zu bytes, version %llu\n", item->name, item->size,
               (unsigned long long)item->version);
        n++;
    }
    if (spc_err(c) != SP_OK)
        goto err_list;
    printf("list: %zu entries in %s\n", n, ns);

    /* 2. The plan. */
    if (sp_write(c, ns, "plan", plan, strlen(plan), NULL, &plan_version) != SP_OK) {
        rc = fail(c, "write plan");
        goto done;
    }
    printf("plan: version %llu\n", (unsigned long long)plan_version);

    /* 3. A large tool output: stored by the server, only a preview comes back. */
    if (!(log = make_log(5000, &log_len)))
        goto done;
    if (sp_offload(c, ns, log, log_len, &(spc_offload_opts){.prefix = "build-log"}, &obs) != SP_OK) {
        rc = fail(c, "offload");
        goto done;
    }
    if (!obs->stored) {
        fprintf(stderr, "agent_session: a %zu-byte output was not offloaded\n", log_len);
        goto done;
    }
    snprintf(obs_name, sizeof(obs_name), "%s", obs->name);
    printf("offload: %zu bytes stored as %s, preview of %zu bytes\n", obs->size, obs_name, obs->preview_len);

    /* 4. Read only the slices needed: head and tail. */
    ro.window = SPC_HEAD;
    ro.count = 120;
    if (sp_read(c, ns, obs_name, &ro, &head) != SP_OK) {
        rc = fail(c, "read head");
        goto done;
    }
    ro.window = SPC_TAIL;
    if (sp_read(c, ns, obs_name, &ro, &tail) != SP_OK) {
        rc = fail(c, "read tail");
        goto done;
    }
    printf("head: %.*s", (int)strcspn(head->data, "\n") + 1, head->data);
    printf("tail: %zu characters\n", tail->len);

    /* 5. The errors, with a line of context around each. */
    go.context = 1;
    go.withmeta = 1;
    if (sp_grep(c, ns, obs_name, "ERROR .*undefined reference", &go, &errors) != SP_OK) {
        rc = fail(c, "grep");
        goto done;
    }
    printf("grep: %zu matching lines\n", errors->matched);
    for (i = 0; i < errors->n && i < 6; i++)
        printf("  %zu%c%s\n", errors->lines[i].lineno, errors->lines[i].is_match ? ':' : '-', errors->lines[i].text);

    /* 6. Tick step 1, only if nobody changed the plan since it was written. */
    eo.ifversion = (long long)plan_version;
    if (sp_edit(c, ns, "plan", "[ ] 1.", 6, "[x] 1.", 6, &eo, &replaced, &v) != SP_OK) {
        rc = fail(c, "edit plan");
        goto done;
    }
    printf("edit: %zu replacement, plan now at version %llu\n", replaced, (unsigned long long)v);

    /* 7. Two reads in one round trip. */
    if (spc_batch_begin(c) != SP_OK) {
        rc = fail(c, "batch");
        goto done;
    }
    sp_read(c, ns, "plan", NULL, &again);
    sp_stat(c, ns, obs_name, &st);
    if (spc_batch_exec(c, status, 2) != SP_OK) {
        rc = fail(c, "batch");
        goto done;
    }
    printf("batch: plan is %zu bytes; %s is %zu bytes stored in %zu (%s, %zu chunks)\n", again->len, obs_name,
           st.size, st.stored, st.encoding, st.chunks);
    if (!strstr(again->data, "[x] 1. build")) {
        fprintf(stderr, "agent_session: the edit is not in the plan\n");
        goto done;
    }

    /* 8. What goes into the model's context for the log. */
    if (sp_peek(c, ns, obs_name, &(spc_peek_opts){.head = 80, .tail = 80}, &peek) != SP_OK) {
        rc = fail(c, "peek");
        goto done;
    }
    printf("peek: %zu bytes\n", peek->len);
    printf("session ok\n");
    rc = 0;
    goto done;

err_list:
    rc = fail(c, "list");
done:
    spc_content_free(peek);
    spc_content_free(again);
    spc_grep_free(errors);
    spc_content_free(tail);
    spc_content_free(head);
    spc_offload_free(obs);
    free(log);
    spc_list_iter_free(it);
    spc_free(c);
    return rc;
}
