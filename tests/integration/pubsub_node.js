/* pubsub_node.js -- pub/sub and keyspace notifications through ioredis and node-redis.
 *
 * ioredis: subscribe/psubscribe with 'message' and 'pmessage' events, the
 * subscriber's count, unsubscribe, a subscriber that keeps publishing on a
 * second connection, and keyspace notifications of an agent's plan (a
 * string, a list, a scratchpad's sp.write) delivered in command order.
 * node-redis v4 (the installed version, 4.x, speaks RESP2 only: its RESP3
 * push messages come with v5, tested by resp3_node.js): subscribe and
 * pSubscribe listeners on a duplicate() connection, sSubscribe and sPublish,
 * pubSubChannels and pubSubNumSub. Every client is quit and the server
 * stopped, so the process exits by itself. */
'use strict';

const path = require('path');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, sleep} = sp;

const Redis = sp.requireClient('ioredis');
const redis = sp.requireClient('redis');

let server;
const closers = [];

async function ioConnect() {
    const r = new Redis({host: '127.0.0.1', port: server.port, lazyConnect: true, retryStrategy: () => null,
        maxRetriesPerRequest: 0, connectTimeout: 10000});
    r.on('error', () => {});
    closers.push(async () => { try { await sp.withTimeout(r.quit(), 5000, 'QUIT'); } catch (e) { r.disconnect(); } });
    await r.connect();
    return r;
}

async function nodeConnect() {
    const c = redis.createClient({socket: {host: '127.0.0.1', port: server.port, reconnectStrategy: false}});
    c.on('error', () => {});
    closers.push(async () => { if (c.isOpen) { try { await c.quit(); } catch (e) { await c.disconnect(); } } });
    await c.connect();
    return c;
}

/* Resolve with the first n values pushed by register(push). */
function collect(n, register, ms = 5000) {
    return new Promise((resolve, reject) => {
        const got = [];
        const t = setTimeout(() => reject(new Error(`got ${got.length} of ${n}: ${JSON.stringify(got)}`)), ms);
        register((v) => {
            got.push(v);
            if (got.length === n) {
                clearTimeout(t);
                resolve(got);
            }
        });
    });
}

async function tIoredis() {
    const sub = await ioConnect();
    const pub = await ioConnect();
    eq(await sub.subscribe('news', 'plan'), 2, 'subscribe resolves with the count');
    eq(await sub.psubscribe('task.*'), 3, 'psubscribe counts channels and patterns');
    const msgs = collect(4, (push) => {
        sub.on('message', (ch, m) => push(['message', ch, m]));
        sub.on('pmessage', (p, ch, m) => push(['pmessage', p, ch, m]));
    });
    eq(await pub.publish('news', 'hello'), 1);
    eq(await pub.publish('task.17', 'yours'), 1);
    eq(await pub.publish('plan', 'changed'), 1);
    eq(await pub.publish('nobody', 'x'), 0);
    eq(await pub.publish('task.18', ''), 1);
    eq(await msgs, [['message', 'news', 'hello'], ['pmessage', 'task.*', 'task.17', 'yours'],
        ['message', 'plan', 'changed'], ['pmessage', 'task.*', 'task.18', '']]);
    eq(await pub.pubsub('NUMSUB', 'news', 'x'), ['news', 1, 'x', 0]);
    eq(await pub.pubsub('NUMPAT'), 1);
    eq(await sub.unsubscribe('news'), 2);
    eq(await sub.punsubscribe('task.*'), 1);
    eq(await pub.publish('news', 'gone'), 0);
}

async function tIoredisKeyspace() {
    const sub = await ioConnect();
    const r = await ioConnect();
    await r.config('SET', 'notify-keyspace-events', 'KA$lp');
    eq(await r.config('GET', 'notify-keyspace-events'), ['notify-keyspace-events', 'ApK']);
    await sub.psubscribe('__keyspace@0__:team-*');
    const events = collect(5, (push) => sub.on('pmessage', (p, ch, m) => push([ch, m])));
    await r.set('team-a:plan', 'v1');
    await r.rpush('team-a:queue', 'step');
    await r.call('SP.WRITE', 'team-a', 'notes', 'first');
    await r.del('team-a:plan');
    await r.set('other', 'x');
    await r.expire('team-a:queue', 100);
    eq(await events, [['__keyspace@0__:team-a:plan', 'set'], ['__keyspace@0__:team-a:queue', 'rpush'],
        ['__keyspace@0__:team-a', 'sp.write'], ['__keyspace@0__:team-a:plan', 'del'],
        ['__keyspace@0__:team-a:queue', 'expire']]);
    await r.config('SET', 'notify-keyspace-events', '');
}

async function tNodeRedis() {
    const c = await nodeConnect();
    const sub = c.duplicate();
    sub.on('error', () => {});
    closers.push(async () => { if (sub.isOpen) { try { await sub.quit(); } catch (e) { await sub.disconnect(); } } });
    await sub.connect();
    const got = collect(3, (push) => {
        sub.subscribe('n:plan', (m, ch) => push(['message', ch, m]));
        sub.pSubscribe('n:task.*', (m, ch) => push(['pmessage', ch, m]));
        sub.sSubscribe('orders', (m, ch) => push(['smessage', ch, m]));
    });
    for (let i = 0; i < 100; i++) {
        const n = await c.pubSubNumSub(['n:plan']);
        if (n['n:plan'] === 1 && (await c.pubSubNumPat()) === 2 && (await c.pubSubShardChannels()).length === 1) break;
        await sleep(10);
    }
    eq(await c.pubSubChannels('n:*'), ['n:plan']);
    eq(await c.publish('n:plan', 'v2'), 1);
    eq(await c.publish('n:task.9', 'do it'), 1);
    eq(await c.sPublish('orders', 'o-17'), 1);
    eq(await got, [['message', 'n:plan', 'v2'], ['pmessage', 'n:task.9', 'do it'], ['smessage', 'orders', 'o-17']]);
    await sub.unsubscribe('n:plan');
    await sub.pUnsubscribe('n:task.*');
    await sub.sUnsubscribe('orders');
    eq((await c.pubSubNumSub(['n:plan']))['n:plan'], 0);
}

async function main() {
    const rep = new sp.Reporter();
    server = new sp.Server();
    try {
        await server.start();
    } catch (e) {
        rep.fail('the server starts and answers PING', e);
        rep.finish();
        return;
    }
    rep.onAbort = () => server.stop();
    try {
        await rep.case('ioredis subscribe/psubscribe: message and pmessage events in order, counts, NUMSUB, ' +
            'NUMPAT, unsubscribe', tIoredis);
        await rep.case('ioredis keyspace notifications (KA$lp): a string, a list and a scratchpad of team-a, ' +
            'in command order', tIoredisKeyspace);
        await rep.case('node-redis v4 (RESP2) subscribe, pSubscribe and sSubscribe listeners on a duplicate(), ' +
            'publish, sPublish, pubSubChannels, pubSubNumSub', tNodeRedis);
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
    } finally {
        for (const close of closers.splice(0)) await close();
        const status = await server.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
