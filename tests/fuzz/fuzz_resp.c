/* fuzz_resp.c -- libFuzzer target: the RESP request parser (server/net/resp.c).
 *
 * The input's first byte picks the parser's limits (unauthenticated or not, a
 * small or the default proto-max-bulk-len, few or many arguments) and the size
 * of the pieces the stream arrives in; the rest is the byte stream a client
 * sends: multibulk requests, inline commands, RESP3 frames (which a request
 * cannot be: they must be refused cleanly), garbage.
 *
 * The stream is parsed twice, the way a connection does it (net.c): every
 * complete request parsed, the argument array grown on RESP_NEED_ARGS, a NUL
 * written after each argument, consumed bytes dropped from the front of the
 * buffer. Once with the whole stream in the buffer, once with the bytes arriving
 * in pieces. Besides the sanitizers' checks, both must give the same requests
 * (argument bytes compared) and the same final verdict: "a stream split at any
 * byte parses the same". Every argument must lie inside the request it belongs
 * to, and a request must consume at least one byte. */
#include "net/resp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A running digest of the parsed requests (FNV-1a over argc, lengths, bytes). */
typedef struct outcome {
    uint64_t digest;
    size_t requests;
    int error;       /* 1: ended on RESP_ERR */
    char errtxt[80]; /* its message */
} outcome;

static void mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ULL;
    }
}

/* Feed data[0..n) in pieces of at most piece bytes (0: all at once). */
static void run(const uint8_t *data, size_t n, size_t piece, int unauth, long long max_bulk, long long max_args,
                outcome *o)
{
    resp_parser p;
    char *buf = malloc(n + 1);
    size_t len = 0, fed = 0;

    memset(&p, 0, sizeof(p));
    memset(o, 0, sizeof(*o));
    o->digest = 14695981039346656037ULL;
    p.args_cap = 4;
    p.args = malloc(sizeof(resp_arg) * p.args_cap);
    p.unauth = unauth;
    p.max_bulk = max_bulk;
    p.max_args = max_args;
    resp_reset(&p);
    if (!buf || !p.args)
        abort();
    while (fed < n) {
        size_t take = piece == 0 || n - fed < piece ? n - fed : piece;
        memcpy(buf + len, data + fed, take);
        len += take;
        fed += take;
        for (;;) {
            size_t consumed = 0, i;
            resp_status st = resp_parse(&p, buf, len, &consumed);
            if (st == RESP_NEED_ARGS) {
                size_t cap = p.args_cap * 2 < p.argc_want ? p.argc_want : p.args_cap * 2;
                p.args = realloc(p.args, sizeof(resp_arg) * cap);
                if (!p.args)
                    abort();
                p.args_cap = cap;
                continue;
            }
            if (st == RESP_INCOMPLETE)
                break;
            if (st == RESP_ERR) {
                o->error = 1;
                snprintf(o->errtxt, sizeof(o->errtxt), "%s", p.err);
                goto done;
            }
            if (consumed == 0 || consumed > len || p.argc > p.args_cap)
                abort();
            mix(&o->digest, &p.argc, sizeof(p.argc));
            for (i = 0; i < p.argc; i++) {
                if (p.args[i].off > consumed || p.args[i].len > consumed - p.args[i].off ||
                    p.args[i].off + p.args[i].len >= consumed)
                    abort();
                mix(&o->digest, &p.args[i].len, sizeof(p.args[i].len));
                mix(&o->digest, buf + p.args[i].off, p.args[i].len);
            }
            for (i = 0; i < p.argc; i++)
                buf[p.args[i].off + p.args[i].len] = '\0';
            o->requests++;
            memmove(buf, buf + consumed, len - consumed);
            len -= consumed;
            if (len == 0)
                break;
        }
    }
done:
    free(p.args);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long long bulks[4] = {512LL << 20, 16, 1024, 64 * 1024};
    static const size_t pieces[8] = {1, 2, 3, 5, 7, 16, 100, 4096};
    outcome whole, split;
    unsigned mode;

    if (size < 1)
        return 0;
    mode = data[0];
    data++;
    size--;
    run(data, size, 0, mode & 1, bulks[(mode >> 1) & 3], (mode & 8) ? 3 : 1024 * 1024, &whole);
    run(data, size, pieces[(mode >> 4) & 7], mode & 1, bulks[(mode >> 1) & 3], (mode & 8) ? 3 : 1024 * 1024, &split);
    if (whole.error != split.error || whole.requests != split.requests || whole.digest != split.digest ||
        (whole.error && strcmp(whole.errtxt, split.errtxt) != 0)) {
        fprintf(stdout, "whole and split parses differ: %zu/%zu requests, error %d/%d (%s / %s)\n", whole.requests,
                split.requests, whole.error, split.error, whole.error ? whole.errtxt : "",
                split.error ? split.errtxt : "");
        fflush(stdout);
        abort();
    }
    return 0;
}
