/* types_ioredis.js -- hashes, sets, sorted sets and lists driven by ioredis.
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and, through
 * ioredis, makes the calls applications make for each group: hset/hgetall
 * (an object back), hincrby, sadd/smembers/sismember, zadd/zrangebyscore
 * WITHSCORES/zpopmin, lpush/rpop/lrange, pipeline() and multi() of these
 * commands, a BLPOP and a BZPOPMIN on one connection woken by an LPUSH and a
 * ZADD on another, a BLPOP that times out, and a BLMOVE reliable-queue step.
 * Every case asserts the exact values ioredis returns. Every client is quit and
 * the server stopped, so the process exits by itself; everything is bounded. */
'use strict';

const path = require('path');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, expectError, sleep} = sp;

const Redis = sp.requireClient('ioredis');

let server;
const clients = [];
let R; /* the main client */

/* A connected ioredis client that never reconnects and fails fast. */
async function connect(opts = {}) {
    const r = new Redis({
        host: '127.0.0.1',
        port: server.port,
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        connectTimeout: 10000,
        ...opts,
    });
    r.on('error', () => {}); /* errors surface through the commands' promises */
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

const WT = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/* Wait until the server counts n blocked clients (INFO clients). */
async function waitBlocked(n) {
    const deadline = Date.now() + 5000;
    for (;;) {
        const m = /\r\nblocked_clients:(\d+)\r\n/.exec(await R.info('clients'));
        if (m && Number(m[1]) === n) return;
        if (Date.now() > deadline) throw new Error(`blocked_clients never reached ${n}: ${m && m[1]}`);
        await sleep(10);
    }
}

async function tHashes() {
    const r = R;
    eq(await r.hset('io:h', {name: 'agent-1', state: 'idle', tries: 0}), 3, 'HSET of an object');
    eq(await r.hset('io:h', 'state', 'busy', 'owner', 'w1'), 1, 'HSET of pairs: one new field');
    eq(await r.hgetall('io:h'), {name: 'agent-1', state: 'busy', tries: '0', owner: 'w1'}, 'HGETALL as an object');
    eq(await r.hget('io:h', 'state'), 'busy');
    eq(await r.hget('io:h', 'none'), null);
    eq(await r.hmget('io:h', 'name', 'none', 'tries'), ['agent-1', null, '0']);
    eq(await r.hincrby('io:h', 'tries', 5), 5);
    eq(await r.hincrby('io:h', 'tries', -7), -2);
    eq(await r.hincrbyfloat('io:h', 'score', '1.5'), '1.5');
    eq(await r.hsetnx('io:h', 'name', 'x'), 0);
    eq(await r.hexists('io:h', 'owner'), 1);
    eq(await r.hlen('io:h'), 5);
    eq(await r.hstrlen('io:h', 'name'), 7);
    eq((await r.hkeys('io:h')).sort(), ['name', 'owner', 'score', 'state', 'tries']);
    eq(await r.hdel('io:h', 'owner', 'none'), 1);
    eq(await r.hgetall('io:none'), {}, 'HGETALL of a missing key is an empty object');
    await expectError(r.hincrby('io:h', 'name', 1), 'ERR hash value is not an integer');
    eq(await r.hdel('io:h', 'name', 'state', 'tries', 'score'), 4);
    eq(await r.exists('io:h'), 0, 'a hash emptied by HDEL is deleted');
    await r.set('io:str', 'v');
    await expectError(r.hset('io:str', 'f', 'v'), WT, 'HSET on a string');
}

async function tSets() {
    const r = R;
    eq(await r.sadd('io:s', 'a', 'b', 'c'), 3);
    eq(await r.sadd('io:s', ['c', 'd']), 1, 'SADD of an array: one new');
    eq((await r.smembers('io:s')).sort(), ['a', 'b', 'c', 'd']);
    eq(await r.sismember('io:s', 'a'), 1);
    eq(await r.sismember('io:s', 'z'), 0);
    eq(await r.smismember('io:s', 'a', 'z', 'd'), [1, 0, 1]);
    eq(await r.scard('io:s'), 4);
    eq(await r.srem('io:s', 'a', 'z'), 1);
    await r.sadd('io:s2', 'c', 'd', 'e');
    eq((await r.sinter('io:s', 'io:s2')).sort(), ['c', 'd']);
    eq((await r.sunion('io:s', 'io:s2')).sort(), ['b', 'c', 'd', 'e']);
    eq(await r.sdiff('io:s', 'io:s2'), ['b']);
    eq(await r.sintercard(2, 'io:s', 'io:s2'), 2);
    eq(await r.smembers('io:none'), []);
    /* A set of integers (intset) answers strings. */
    eq(await r.sadd('io:si', 3, 1, 2), 3);
    eq((await r.smembers('io:si')).sort(), ['1', '2', '3']);
    const popped = await r.spop('io:si', 3);
    eq(popped.sort(), ['1', '2', '3'], 'SPOP count of all members');
    eq(await r.exists('io:si'), 0, 'a set emptied by SPOP is deleted');
    await expectError(r.sadd('io:str', 'x'), WT, 'SADD on a string');
}

async function tZsets() {
    const r = R;
    const now = 1700000000;
    eq(await r.zadd('io:z', now + 30, 'job-c', now + 10, 'job-a', now + 20, 'job-b'), 3);
    eq(await r.zadd('io:z', 'NX', now, 'job-a'), 0, 'ZADD NX of an existing member');
    eq(await r.zadd('io:z', 'CH', 'GT', now + 40, 'job-a'), 1, 'ZADD CH GT');
    eq(await r.zadd('io:z', 'INCR', 5, 'job-b'), String(now + 25), 'ZADD INCR');
    eq(await r.zrangebyscore('io:z', '-inf', now + 30), ['job-b', 'job-c']);
    eq(await r.zrangebyscore('io:z', '-inf', '+inf', 'WITHSCORES'),
        ['job-b', String(now + 25), 'job-c', String(now + 30), 'job-a', String(now + 40)], 'ZRANGEBYSCORE WITHSCORES');
    eq(await r.zrangebyscore('io:z', `(${now + 25}`, '+inf', 'LIMIT', 0, 1), ['job-c'], 'exclusive min and LIMIT');
    eq(await r.zscore('io:z', 'job-c'), String(now + 30));
    eq(await r.zscore('io:z', 'none'), null);
    eq(await r.zrank('io:z', 'job-a'), 2);
    eq(await r.zcard('io:z'), 3);
    eq(await r.zcount('io:z', now + 26, '+inf'), 2);
    eq(await r.zincrby('io:z', '-0.5', 'job-c'), String(now + 29.5));
    eq(await r.zrange('io:z', 0, -1, 'REV'), ['job-a', 'job-c', 'job-b'], 'ZRANGE REV');
    eq(await r.zpopmin('io:z'), ['job-b', String(now + 25)], 'ZPOPMIN');
    eq(await r.zpopmax('io:z', 5), ['job-a', String(now + 40), 'job-c', String(now + 29.5)], 'ZPOPMAX count');
    eq(await r.exists('io:z'), 0, 'a sorted set emptied by pops is deleted');
    eq(await r.zpopmin('io:z'), [], 'ZPOPMIN of a missing key');
    await r.zadd('io:zi', 'inf', 'top', '-inf', 'bottom', 1.5, 'mid');
    eq(await r.zrange('io:zi', 0, -1, 'WITHSCORES'), ['bottom', '-inf', 'mid', '1.5', 'top', 'inf'], 'infinite scores');
    eq(await r.zadd('io:zi', 0.1, 'p'), 1);
    eq(await r.zscore('io:zi', 'p'), '0.10000000000000001', 'a score printed with 17 significant digits');
    await expectError(r.zadd('io:zi', 'abc', 'x'), 'ERR value is not a valid float');
    await expectError(r.zadd('io:str', 1, 'x'), WT, 'ZADD on a string');
}

async function tLists() {
    const r = R;
    eq(await r.lpush('io:l', 'a', 'b', 'c'), 3);
    eq(await r.rpush('io:l', ['x', 'y']), 5);
    eq(await r.lrange('io:l', 0, -1), ['c', 'b', 'a', 'x', 'y']);
    eq(await r.lrange('io:l', -2, -1), ['x', 'y']);
    eq(await r.rpop('io:l'), 'y');
    eq(await r.lpop('io:l', 2), ['c', 'b'], 'LPOP with count');
    eq(await r.llen('io:l'), 2);
    eq(await r.lindex('io:l', -1), 'x');
    eq(await r.lpos('io:l', 'x'), 1);
    eq(await r.linsert('io:l', 'BEFORE', 'x', 'w'), 3);
    eq(await r.lrem('io:l', 0, 'w'), 1);
    eq(await r.lmove('io:l', 'io:l2', 'LEFT', 'RIGHT'), 'a');
    eq(await r.rpop('io:l', 5), ['x']);
    eq(await r.exists('io:l'), 0, 'a list emptied by pops is deleted');
    eq(await r.rpop('io:l'), null);
    eq(await r.lrange('io:none', 0, -1), []);
    await expectError(r.lset('io:none', 0, 'v'), 'ERR no such key');
    await expectError(r.lpush('io:str', 'x'), WT, 'LPUSH on a string');
}

async function tPipeline() {
    const r = R;
    const res = await r.pipeline()
        .hset('io:p:h', {a: 1, b: 2})
        .hgetall('io:p:h')
        .sadd('io:p:s', 'x', 'y')
        .smembers('io:p:s')
        .zadd('io:p:z', 2, 'two', 1, 'one')
        .zrange('io:p:z', 0, -1, 'WITHSCORES')
        .rpush('io:p:l', 'q1', 'q2')
        .lrange('io:p:l', 0, -1)
        .lpush('io:p:h', 'wrong')
        .hincrby('io:p:h', 'a', 10)
        .exec();
    eq(res[0], [null, 2]);
    eq(res[1], [null, {a: '1', b: '2'}], 'HGETALL in a pipeline is an object');
    eq(res[2], [null, 2]);
    eq([res[3][0], res[3][1].sort()], [null, ['x', 'y']]);
    eq(res[4], [null, 2]);
    eq(res[5], [null, ['one', '1', 'two', '2']]);
    eq(res[6], [null, 2]);
    eq(res[7], [null, ['q1', 'q2']]);
    eq(res[8][0] && res[8][0].message, WT, 'WRONGTYPE in place in a pipeline');
    eq(res[9], [null, 11]);
    /* Many commands of every group. */
    const n = 2000;
    const p = r.pipeline();
    for (let i = 0; i < n; i++) {
        p.hincrby('io:p:counts', `f${i % 10}`, 1);
        p.sadd('io:p:seen', i % 100);
        p.zincrby('io:p:rank', 1, `m${i % 7}`);
        p.rpush('io:p:q', i);
    }
    await p.exec();
    const counts = await r.hgetall('io:p:counts');
    eq(Object.keys(counts).length, 10);
    ok(Object.values(counts).every((v) => v === String(n / 10)), 'each hash field counted 200');
    eq(await r.scard('io:p:seen'), 100);
    eq(await r.zscore('io:p:rank', 'm0'), String(Math.ceil(n / 7)));
    eq(await r.llen('io:p:q'), n);
    eq(await r.lindex('io:p:q', -1), String(n - 1));
}

async function tMulti() {
    const r = R;
    const res = await r.multi()
        .hset('io:m:h', 'state', 'claimed')
        .hincrby('io:m:h', 'n', 1)
        .sadd('io:m:s', 'job-1')
        .zadd('io:m:z', 5, 'job-1')
        .zpopmin('io:m:z')
        .lpush('io:m:l', 'job-1')
        .rpop('io:m:l')
        .hgetall('io:m:h')
        .exec();
    eq(res, [[null, 1], [null, 1], [null, 1], [null, 1], [null, ['job-1', '5']], [null, 1], [null, 'job-1'],
        [null, {state: 'claimed', n: '1'}]], 'EXEC results, HGETALL as an object');
    eq(await r.exists('io:m:z', 'io:m:l'), 0, 'keys emptied inside the transaction are deleted');
    /* A watched hash changed by another client aborts the transaction. */
    const b = await connect();
    eq(await r.watch('io:m:h'), 'OK');
    await b.hset('io:m:h', 'state', 'stolen');
    eq(await r.multi().hset('io:m:h', 'state', 'mine').exec(), null, 'EXEC after a watched hash changed');
    eq(await r.hget('io:m:h', 'state'), 'stolen');
}

async function tBlpop() {
    const waiter = await connect();
    const pusher = await connect();
    const t0 = Date.now();
    const p = waiter.blpop('io:b:q1', 'io:b:q2', 5);
    await waitBlocked(1);
    eq(await pusher.lpush('io:b:q2', 'task-1'), 1, 'LPUSH to a key a client waits on');
    eq(await p, ['io:b:q2', 'task-1'], 'BLPOP answers [key, element]');
    ok(Date.now() - t0 < 4000, 'BLPOP woke before its timeout');
    eq(await pusher.exists('io:b:q2'), 0, 'the element was handed over, the list deleted');
    /* A timeout answers null. */
    const t1 = Date.now();
    eq(await waiter.blpop('io:b:none', 0.2), null, 'BLPOP timeout answers null');
    const dt = Date.now() - t1;
    ok(dt >= 150 && dt < 3000, `BLPOP 0.2 took ${dt} ms`);
    /* BRPOP on a list that has data answers at once. */
    await pusher.rpush('io:b:q3', 'a', 'b');
    eq(await waiter.brpop('io:b:q3', 1), ['io:b:q3', 'b']);
    /* Three waiters on one key are served first come, first served. */
    const ws = [await connect(), await connect(), await connect()];
    const ps = [];
    for (let i = 0; i < 3; i++) {
        ps.push(ws[i].blpop('io:b:fifo', 5));
        await waitBlocked(i + 1);
    }
    eq(await pusher.rpush('io:b:fifo', 'e1', 'e2', 'e3'), 3);
    eq(await Promise.all(ps), [['io:b:fifo', 'e1'], ['io:b:fifo', 'e2'], ['io:b:fifo', 'e3']], 'FIFO wake-ups');
}

async function tBzpopmin() {
    const waiter = await connect();
    const adder = await connect();
    const p = waiter.bzpopmin('io:bz:sched', 5);
    await waitBlocked(1);
    eq(await adder.zadd('io:bz:sched', 1700000005, 'job-b', 1700000001, 'job-a'), 2);
    eq(await p, ['io:bz:sched', 'job-a', '1700000001'], 'BZPOPMIN answers [key, member, score]');
    eq(await adder.zrange('io:bz:sched', 0, -1, 'WITHSCORES'), ['job-b', '1700000005'], 'the rest stays');
    eq(await waiter.bzpopmax('io:bz:sched', 1), ['io:bz:sched', 'job-b', '1700000005']);
    eq(await waiter.bzpopmin('io:bz:sched', 0.1), null, 'BZPOPMIN timeout answers null');
    /* A ZADD inside MULTI wakes the waiter once EXEC runs. */
    const p2 = waiter.bzpopmin('io:bz:m', 5);
    await waitBlocked(1);
    eq(await adder.multi().zadd('io:bz:m', 3, 'x').zadd('io:bz:m', 2, 'y').exec(), [[null, 1], [null, 1]]);
    eq(await p2, ['io:bz:m', 'y', '2'], 'woken by MULTI/EXEC with the lowest score');
}

async function tBlmove() {
    const worker = await connect();
    const producer = await connect();
    /* The reliable queue: move a task to a processing list, then LREM it when done. */
    const p = worker.blmove('io:q:pending', 'io:q:processing', 'RIGHT', 'LEFT', 5);
    await waitBlocked(1);
    eq(await producer.lpush('io:q:pending', 'task-1', 'task-2'), 2);
    eq(await p, 'task-1', 'BLMOVE answers the moved element');
    eq(await producer.lrange('io:q:processing', 0, -1), ['task-1'], 'the task is in the processing list');
    eq(await producer.lrange('io:q:pending', 0, -1), ['task-2']);
    eq(await worker.lrem('io:q:processing', 1, 'task-1'), 1, 'acknowledged with LREM');
    eq(await worker.blmove('io:q:pending', 'io:q:processing', 'RIGHT', 'LEFT', 1), 'task-2');
    eq(await worker.blmove('io:q:pending', 'io:q:processing', 'RIGHT', 'LEFT', 0.1), null, 'BLMOVE timeout');
    eq(await worker.brpoplpush('io:q:processing', 'io:q:pending', 1), 'task-2', 'BRPOPLPUSH requeues');
    eq(await worker.call('BLMPOP', 1, 2, 'io:q:none', 'io:q:pending', 'LEFT', 'COUNT', 5),
        ['io:q:pending', ['task-2']], 'BLMPOP answers [key, [elements]]');
}

async function main() {
    const rep = new sp.Reporter(120000);
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
            await rep.case('ioredis hashes: hset of an object, hgetall as an object, hincrby, WRONGTYPE', tHashes);
            await rep.case('ioredis sets: sadd, smembers, sismember, smismember, set algebra, spop', tSets);
            await rep.case('ioredis sorted sets: zadd options, zrangebyscore WITHSCORES, zscore, zpopmin, inf', tZsets);
            await rep.case('ioredis lists: lpush, rpush, lrange, rpop, lpop count, lmove, errors', tLists);
            await rep.case('ioredis pipeline() of hash, set, sorted set and list commands answers in order', tPipeline);
            await rep.case('ioredis multi() of every group, and WATCH on a hash', tMulti);
            await rep.case('ioredis BLPOP woken by an LPUSH on another connection, timeout, FIFO', tBlpop);
            await rep.case('ioredis BZPOPMIN woken by a ZADD on another connection and by MULTI/EXEC', tBzpopmin);
            await rep.case('ioredis BLMOVE reliable-queue step, BRPOPLPUSH and BLMPOP', tBlmove);
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
