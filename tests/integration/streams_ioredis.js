/* streams_ioredis.js -- streams with consumer groups driven by ioredis.
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and, through
 * ioredis, makes the calls a work queue makes: xadd with `*` and explicit ids,
 * MAXLEN ~ trimming, xrange/xrevrange as [id, [field, value, ...]] pairs,
 * xgroup CREATE MKSTREAM, xreadgroup `>` and history, xack, xpending summary and
 * extended, xclaim and xautoclaim, xinfo; an XREADGROUP BLOCK and an XREAD
 * BLOCK `$` on one connection woken by an XADD on another, one that times out
 * (null), and a pipeline of stream commands. Every case asserts the exact
 * values ioredis returns; every client is quit and the server stopped. */
'use strict';

const path = require('path');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, expectError, sleep} = sp;

const Redis = sp.requireClient('ioredis');

let server;
const clients = [];
let R; /* the main client */

async function connect() {
    const r = new Redis({
        host: '127.0.0.1',
        port: server.port,
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        connectTimeout: 10000,
    });
    r.on('error', () => {});
    clients.push(r);
    await r.connect();
    return r;
}

async function quitAll() {
    for (const r of clients.splice(0)) {
        if (r.status === 'ready') {
            try {
                await sp.withTimeout(r.quit(), 5000, 'QUIT');
            } catch (e) {
                r.disconnect();
            }
        } else {
            r.disconnect();
        }
    }
}

async function waitBlocked(n) {
    const deadline = Date.now() + 5000;
    for (;;) {
        const m = /\r\nblocked_clients:(\d+)\r\n/.exec(await R.info('clients'));
        if (m && Number(m[1]) === n) return;
        if (Date.now() > deadline) throw new Error(`blocked_clients never reached ${n}: ${m && m[1]}`);
        await sleep(10);
    }
}

async function tQueue() {
    const r = R;
    eq(await r.xadd('io:x', '1-1', 'task', '17', 'who', 'ann'), '1-1');
    eq(await r.xadd('io:x', '1-*', 'task', '18'), '1-2', 'ms-* picks the sequence');
    const auto = await r.xadd('io:x', 'MAXLEN', '~', 1000, '*', 'task', '19');
    eq(/^\d+-0$/.test(auto), true, `* gives ms-0: ${auto}`);
    eq(await r.xlen('io:x'), 3);
    eq(await r.xrange('io:x', '-', '+', 'COUNT', 2), [['1-1', ['task', '17', 'who', 'ann']], ['1-2', ['task', '18']]]);
    eq((await r.xrevrange('io:x', '+', '-', 'COUNT', 1))[0][0], auto);
    eq(await r.xrange('io:x', '(1-1', '(1-2'), [], 'exclusive bounds');
    await expectError(r.xadd('io:x', '1-1', 'a', 'b'),
        'ERR The ID specified in XADD is equal or smaller than the target stream top item');
    eq(await r.xgroup('CREATE', 'io:x', 'workers', '0'), 'OK');
    await expectError(r.xgroup('CREATE', 'io:x', 'workers', '0'), 'BUSYGROUP Consumer Group name already exists');
    eq(await r.xreadgroup('GROUP', 'workers', 'w1', 'COUNT', 2, 'STREAMS', 'io:x', '>'),
        [['io:x', [['1-1', ['task', '17', 'who', 'ann']], ['1-2', ['task', '18']]]]]);
    eq(await r.xreadgroup('GROUP', 'workers', 'w1', 'STREAMS', 'io:x', '0'),
        [['io:x', [['1-1', ['task', '17', 'who', 'ann']], ['1-2', ['task', '18']]]]], 'the history');
    eq(await r.xack('io:x', 'workers', '1-1'), 1);
    eq(await r.xpending('io:x', 'workers'), [1, '1-2', '1-2', [['w1', '1']]]);
    const rows = await r.xpending('io:x', 'workers', '-', '+', 10);
    eq([rows[0][0], rows[0][1], rows[0][3]], ['1-2', 'w1', 2], 'delivered twice');
    eq(await r.xclaim('io:x', 'workers', 'w2', 0, '1-2', 'JUSTID'), ['1-2']);
    eq(await r.xautoclaim('io:x', 'workers', 'w3', 0, '0', 'COUNT', 5), ['0-0', [['1-2', ['task', '18']]], []]);
    const groups = await r.xinfo('GROUPS', 'io:x');
    eq(groups[0].slice(0, 8), ['name', 'workers', 'consumers', 3, 'pending', 1, 'last-delivered-id', '1-2']);
    eq(await r.type('io:x'), 'stream');
    await r.set('io:str', 'v');
    await expectError(r.xadd('io:str', '*', 'a', 'b'),
        'WRONGTYPE Operation against a key holding the wrong kind of value');
}

async function tBlocking() {
    const reader = await connect();
    await R.xgroup('CREATE', 'io:b', 'g', '$', 'MKSTREAM');
    const p1 = reader.xreadgroup('GROUP', 'g', 'c', 'BLOCK', 0, 'STREAMS', 'io:b', '>');
    await waitBlocked(1);
    await R.xadd('io:b', '5-1', 'f', 'v');
    eq(await p1, [['io:b', [['5-1', ['f', 'v']]]]], 'XREADGROUP BLOCK woken by XADD');
    const p2 = reader.xread('BLOCK', 0, 'STREAMS', 'io:b', '$');
    await waitBlocked(1);
    await R.multi().xadd('io:b', '6-1', 'g', 'w').exec();
    eq(await p2, [['io:b', [['6-1', ['g', 'w']]]]], 'XREAD BLOCK $ woken by an XADD in MULTI');
    eq(await reader.xread('BLOCK', 50, 'STREAMS', 'io:b', '$'), null, 'a timeout is null');
}

async function tPipeline() {
    const res = await R.pipeline().xadd('io:p', '1-1', 'a', '1').xlen('io:p').xdel('io:p', '1-1').xlen('io:p')
        .xtrim('io:p', 'MAXLEN', 0).exec();
    eq(res.map((x) => x[1]), ['1-1', 1, 1, 0, 0]);
}

async function main() {
    const rep = new sp.Reporter(60000);
    rep.onAbort = async () => { clients.forEach((c) => c.disconnect()); if (server) await server.stop(); };
    server = new sp.Server();
    try {
        await server.start();
    } catch (e) {
        rep.fail('the server starts and answers PING', e);
        rep.finish();
        return;
    }
    try {
        if (await rep.case('ioredis connects', async () => { R = await connect(); eq(await R.ping(), 'PONG'); })) {
            await rep.case('ioredis streams as a work queue: xadd, xrange, xgroup, xreadgroup, xack, xpending, ' +
                'xclaim, xautoclaim, xinfo, errors', tQueue);
            await rep.case('ioredis XREADGROUP BLOCK and XREAD BLOCK $ woken from another connection (also by ' +
                'MULTI), timeout null', tBlocking);
            await rep.case('ioredis pipeline() of stream commands answers in order', tPipeline);
        }
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
    } finally {
        await quitAll();
        const status = await server.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
