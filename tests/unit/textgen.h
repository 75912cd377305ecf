/* textgen.h -- log-like text for the compressed-value tests (test_lzval.c,
 * test_lzidle.c), from test.h's seeded generator: the same text run after run.
 * Header-only (static functions), like test.h. */
#ifndef SP_TEXTGEN_H
#define SP_TEXTGEN_H

#include <stdio.h>
#include <string.h>

#include "test.h"

/* Service-log lines (as bench/gen_logs.py writes them, roughly): a clock that
 * moves a few ms per line, levels and services from short lists, message
 * templates with low-entropy fields (skewed user ids, paths, status codes) beside
 * high-entropy ones (session and trace ids, latencies). Text like this repeats
 * itself from one 8 KB block to the next, which is what a dictionary is for. */
static void gen_svc(char *buf, size_t n)
{
    static const char *lvl[] = {"INFO ", "INFO ", "INFO ", "INFO ", "INFO ", "DEBUG", "DEBUG", "WARN ", "ERROR"};
    static const char *svc[] = {"api-gateway", "auth-svc", "order-svc", "payment-svc", "inventory", "search-svc",
                                "notifier", "worker-1", "worker-2", "scheduler", "cache-proxy", "billing"};
    static const char *act[] = {"login", "logout", "add_to_cart", "checkout", "view_item", "search"};
    static const char *path[] = {"/api/v1/orders", "/api/v1/users", "/api/v1/cart", "/health", "/api/v1/search",
                                 "/api/v2/items", "/static/app.js", "/api/v1/payments"};
    unsigned long long ms = 8ull * 3600 * 1000;
    char line[320];
    size_t pos = 0, room = sizeof line;

    while (pos < n) {
        unsigned s = (unsigned)rng_below(12), u = 1000 + (unsigned)rng_below(rng_below(600) + 1);
        int k = snprintf(line, room, "2024-07-21T%02llu:%02llu:%02llu.%03lluZ %s [%s] %s-%04x ", ms / 3600000 % 24,
                         ms / 60000 % 60, ms / 1000 % 60, ms % 1000, lvl[rng_below(9)], svc[s], svc[s],
                         s * 7919 % 65536);
        switch (rng_below(5)) {
        case 0:
            k += snprintf(line + k, room - (size_t)k, "user %u action=%s session=%012llx trace_id=%016llx%016llx\n",
                          u, act[rng_below(6)], (unsigned long long)(rng() >> 16), (unsigned long long)rng(),
                          (unsigned long long)rng());
            break;
        case 1:
            k += snprintf(line + k, room - (size_t)k, "cache %s key=user:%u:orders ttl=%u\n",
                          rng_below(3) ? "hit" : "miss", u, 300 * (1 + (unsigned)rng_below(4)));
            break;
        case 2:
            k += snprintf(line + k, room - (size_t)k, "GET %s status=%u bytes=%u duration=%ums\n", path[rng_below(8)],
                          rng_below(20) ? 200 : 500, (unsigned)rng_below(20000), (unsigned)rng_below(300));
            break;
        case 3:
            k += snprintf(line + k, room - (size_t)k,
                          "upstream db-%u.internal:5432 latency p50=%u.%ums p99=%u.%ums pool=%u/64\n",
                          (unsigned)rng_below(4), (unsigned)rng_below(10), (unsigned)rng_below(10),
                          (unsigned)rng_below(90) + 10, (unsigned)rng_below(10), (unsigned)rng_below(64));
            break;
        default:
            k += snprintf(line + k, room - (size_t)k, "job %s-%u finished in %ums retries=%u\n", act[rng_below(6)],
                          (unsigned)rng_below(1000), (unsigned)rng_below(5000),
                          (unsigned)(rng_below(2) * rng_below(4)));
            break;
        }
        ms += rng_below(16);
        if ((size_t)k > n - pos)
            k = (int)(n - pos);
        memcpy(buf + pos, line, (size_t)k);
        pos += (size_t)k;
    }
}

#endif
