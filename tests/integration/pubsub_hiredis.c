/* pubsub_hiredis.c -- pub/sub through hiredis's async API on libevent, as a C
 * agent would listen: SUBSCRIBE and PSUBSCRIBE on one async connection, a
 * publisher on a sync connection started from a timer of the same loop, every
 * message received once and in order, keyspace notifications (KEA) of a SET
 * and a DEL on __keyevent@0__:*, then UNSUBSCRIBE/PUNSUBSCRIBE confirmations
 * and a clean disconnect. Debian's hiredis (0.14) speaks RESP2 only. */
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

#include "itest.h"

#define NMSG 200

static it_server server;
static int port;

typedef struct sub_state {
    struct event_base *base;
    int confirmations;       /* subscribe + psubscribe + the keyevent psubscribe */
    int messages, pmessages; /* of the NMSG sent on each */
    int out_of_order;
    int keyevents; /* set, del */
    int keyevent_wrong;
    int unsubscribed;
    int disconnected;
} sub_state;

static int is_str(const redisReply *r, size_t i, const char *s)
{
    return r->element[i]->type == REDIS_REPLY_STRING && strcmp(r->element[i]->str, s) == 0;
}

static void on_message(redisAsyncContext *ac, void *reply, void *priv)
{
    sub_state *st = ac->data;
    redisReply *r = reply;
    char want[64];
    (void)priv;

    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements < 3)
        return;
    if (is_str(r, 0, "subscribe") || is_str(r, 0, "psubscribe")) {
        st->confirmations++;
        return;
    }
    if (is_str(r, 0, "unsubscribe") || is_str(r, 0, "punsubscribe")) {
        if (++st->unsubscribed == 3)
            redisAsyncDisconnect(ac);
        return;
    }
    if (is_str(r, 0, "message") && is_str(r, 1, "plan")) {
        snprintf(want, sizeof(want), "step %d", st->messages);
        if (!is_str(r, 2, want))
            st->out_of_order++;
        st->messages++;
    } else if (is_str(r, 0, "pmessage") && is_str(r, 1, "__keyevent@0__:*")) {
        if ((st->keyevents == 0 && is_str(r, 2, "__keyevent@0__:set") && is_str(r, 3, "agent:plan")) ||
            (st->keyevents == 1 && is_str(r, 2, "__keyevent@0__:del") && is_str(r, 3, "agent:plan")))
            st->keyevents++;
        else
            st->keyevent_wrong++;
    } else if (is_str(r, 0, "pmessage") && is_str(r, 1, "task.*")) {
        snprintf(want, sizeof(want), "task.%d", st->pmessages);
        if (!is_str(r, 2, want))
            st->out_of_order++;
        st->pmessages++;
    }
    if (st->messages == NMSG && st->pmessages == NMSG && st->keyevents == 2 && st->unsubscribed == 0) {
        redisAsyncCommand(ac, on_message, NULL, "UNSUBSCRIBE plan");
        redisAsyncCommand(ac, on_message, NULL, "PUNSUBSCRIBE task.* __keyevent@0__:*");
    }
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    sub_state *st = ac->data;
    (void)status;
    st->disconnected = 1;
    event_base_loopbreak(st->base);
}

/* From the loop, once the subscriptions are confirmed: publish from a sync
 * connection (the publisher does not wait for the subscriber). */
static void publish_cb(evutil_socket_t fd, short what, void *arg)
{
    sub_state *st = arg;
    redisContext *c;
    redisReply *r;
    int i;
    (void)fd;
    (void)what;

    if (st->confirmations < 3) {
        struct timeval again = {0, 10000};
        event_base_once(st->base, -1, EV_TIMEOUT, publish_cb, st, &again);
        return;
    }
    c = it_redis(port);
    if (!c)
        return;
    freeReplyObject(redisCommand(c, "CONFIG SET notify-keyspace-events KEA"));
    for (i = 0; i < NMSG; i++) {
        r = redisCommand(c, "PUBLISH plan %s%d", "step ", i);
        freeReplyObject(r);
        r = redisCommand(c, "PUBLISH task.%d %s", i, "do it");
        freeReplyObject(r);
    }
    freeReplyObject(redisCommand(c, "SET agent:plan v2"));
    freeReplyObject(redisCommand(c, "DEL agent:plan"));
    freeReplyObject(redisCommand(c, "CONFIG SET notify-keyspace-events %s", ""));
    redisFree(c);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopbreak(arg);
}

static void test_async_subscribe(void)
{
    sub_state st;
    redisAsyncContext *ac;
    struct event *timer;
    struct timeval limit = {20, 0}, soon = {0, 10000};

    memset(&st, 0, sizeof(st));
    st.base = event_base_new();
    ac = redisAsyncConnect("127.0.0.1", port);
    if (!ac || ac->err) {
        CHECKF(0, "redisAsyncConnect: %s", ac ? ac->errstr : "NULL");
        event_base_free(st.base);
        return;
    }
    ac->data = &st;
    redisLibeventAttach(ac, st.base);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    redisAsyncCommand(ac, on_message, NULL, "SUBSCRIBE plan");
    redisAsyncCommand(ac, on_message, NULL, "PSUBSCRIBE task.* __keyevent@0__:*");
    event_base_once(st.base, -1, EV_TIMEOUT, publish_cb, &st, &soon);
    timer = evtimer_new(st.base, stop_cb, st.base);
    evtimer_add(timer, &limit);
    event_base_dispatch(st.base);
    CHECKF(st.confirmations == 3, "%d subscribe confirmations", st.confirmations);
    CHECKF(st.messages == NMSG, "%d of %d messages", st.messages, NMSG);
    CHECKF(st.pmessages == NMSG, "%d of %d pmessages", st.pmessages, NMSG);
    CHECKF(st.out_of_order == 0, "%d out of order", st.out_of_order);
    CHECKF(st.keyevents == 2 && st.keyevent_wrong == 0, "%d keyevents, %d wrong", st.keyevents, st.keyevent_wrong);
    CHECKF(st.unsubscribed == 3, "%d unsubscribe confirmations", st.unsubscribed);
    CHECK(st.disconnected);
    event_free(timer);
    event_base_free(st.base);
}

int main(void)
{
    it_init(120);
    if (it_server_start(&server, NULL) < 0) {
        printf("not ok - the server starts and answers PING\n");
        return 1;
    }
    port = server.port;
    RUN(test_async_subscribe, "hiredis async on libevent: SUBSCRIBE and PSUBSCRIBE get 200 messages and 200 "
                              "pmessages in order, the keyevents of a SET and a DEL, then the unsubscribe "
                              "confirmations and a clean disconnect");
    it_server_finish(&server);
    return TEST_DONE();
}
