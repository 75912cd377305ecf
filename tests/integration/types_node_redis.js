/* types_node_redis.js -- hashes, sets, sorted sets and lists driven by node-redis (v4).
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and, through
 * node-redis, makes the calls applications make for each group: hSet with an
 * object, hGetAll (an object back), hIncrBy, sAdd/sMembers/sIsMember (booleans),
 * zAdd with {score, value}, zRangeWithScores and zRangeByScoreWithScores
 * ({value, score} objects), zPopMin, lPush/rPop/lRange, multi().exec() of every
 * group, blPop on a duplicate() connection and on executeIsolated woken by an
 * lPush from another client, bzPopMin woken by a zAdd, blMove (the reliable
 * queue) and blmPop. Every case asserts the exact values node-redis returns.
 * Every client is quit and the server stopped, so the process exits by itself. */
'use strict';

const path = require('path');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, expectError, sleep} = sp;

const redis = sp.requireClient('redis');
const {commandOptions} = redis;

let server;
const nodeRedis = new sp.NodeRedisClients(redis);
const clients = nodeRedis.list;
let R; /* the main client */

/* A connected client that does not reconnect. */
const connect = (opts = {}) => nodeRedis.connect(server.port, opts);
/* A duplicate() of client c, connected, quit at the end like the others. */
const dup = (c) => nodeRedis.dup(c);

const WT = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/* node-redis builds hGetAll's object without a prototype: compare its entries. */
const plain = (o) => ({...o});

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
    const c = R;
    eq(await c.hSet('nr:h', {name: 'agent-1', state: 'idle', tries: 0}), 3, 'hSet of an object');
    eq(await c.hSet('nr:h', 'state', 'busy'), 0, 'hSet of one field');
    eq(await c.hSet('nr:h', [['owner', 'w1'], ['state', 'busy']]), 1, 'hSet of tuples');
    eq(plain(await c.hGetAll('nr:h')), {name: 'agent-1', state: 'busy', tries: '0', owner: 'w1'}, 'hGetAll');
    eq(await c.hGet('nr:h', 'name'), 'agent-1');
    eq(await c.hGet('nr:h', 'none'), null);
    eq(await c.hmGet('nr:h', ['name', 'none', 'tries']), ['agent-1', null, '0']);
    eq(await c.hIncrBy('nr:h', 'tries', 3), 3);
    eq(await c.hIncrByFloat('nr:h', 'tries', 0.5), '3.5');
    eq(await c.hExists('nr:h', 'owner'), true);
    eq(await c.hExists('nr:h', 'none'), false);
    eq(await c.hSetNX('nr:h', 'name', 'x'), false);
    eq(await c.hLen('nr:h'), 4);
    eq((await c.hVals('nr:h')).sort(), ['3.5', 'agent-1', 'busy', 'w1']);
    eq(await c.hDel('nr:h', ['owner', 'none']), 1);
    eq(plain(await c.hGetAll('nr:none')), {}, 'hGetAll of a missing key');
    await expectError(c.hIncrBy('nr:h', 'name', 1), 'ERR hash value is not an integer');
    eq(await c.hDel('nr:h', ['name', 'state', 'tries']), 3);
    eq(await c.exists('nr:h'), 0, 'a hash emptied by hDel is deleted');
    await c.set('nr:str', 'v');
    await expectError(c.hSet('nr:str', 'f', 'v'), WT, 'hSet on a string');
}

async function tSets() {
    const c = R;
    eq(await c.sAdd('nr:s', ['a', 'b', 'c']), 3);
    eq(await c.sAdd('nr:s', 'c'), 0);
    eq((await c.sMembers('nr:s')).sort(), ['a', 'b', 'c']);
    eq(await c.sIsMember('nr:s', 'a'), true);
    eq(await c.sIsMember('nr:s', 'z'), false);
    eq(await c.smIsMember('nr:s', ['a', 'z']), [true, false]);
    eq(await c.sCard('nr:s'), 3);
    eq(await c.sRem('nr:s', ['a', 'z']), 1);
    await c.sAdd('nr:s2', ['c', 'd']);
    eq(await c.sInter(['nr:s', 'nr:s2']), ['c']);
    eq((await c.sUnion(['nr:s', 'nr:s2'])).sort(), ['b', 'c', 'd']);
    eq(await c.sDiff(['nr:s', 'nr:s2']), ['b']);
    eq(await c.sInterStore('nr:s3', ['nr:s', 'nr:s2']), 1);
    eq(await c.sMove('nr:s', 'nr:s2', 'b'), true);
    eq((await c.sMembers('nr:s2')).sort(), ['b', 'c', 'd']);
    eq(await c.sPop('nr:s'), 'c');
    eq(await c.exists('nr:s'), 0, 'a set emptied by sPop is deleted');
    eq(await c.sMembers('nr:none'), []);
    await expectError(c.sAdd('nr:str', 'x'), WT, 'sAdd on a string');
}

async function tZsets() {
    const c = R;
    const due = 1700000000;
    eq(await c.zAdd('nr:z', [{score: due + 30, value: 'job-c'}, {score: due + 10, value: 'job-a'},
        {score: due + 20, value: 'job-b'}]), 3, 'zAdd of {score, value} objects');
    eq(await c.zAdd('nr:z', {score: due, value: 'job-a'}, {NX: true}), 0, 'zAdd NX');
    eq(await c.zAdd('nr:z', {score: due + 40, value: 'job-a'}, {GT: true, CH: true}), 1, 'zAdd GT CH');
    eq(await c.zRangeWithScores('nr:z', 0, -1),
        [{value: 'job-b', score: due + 20}, {value: 'job-c', score: due + 30}, {value: 'job-a', score: due + 40}],
        'zRangeWithScores');
    eq(await c.zRangeByScoreWithScores('nr:z', '-inf', due + 30),
        [{value: 'job-b', score: due + 20}, {value: 'job-c', score: due + 30}], 'zRangeByScoreWithScores');
    eq(await c.zRangeByScore('nr:z', `(${due + 20}`, '+inf', {LIMIT: {offset: 0, count: 1}}), ['job-c']);
    eq(await c.zRange('nr:z', 0, -1, {REV: true}), ['job-a', 'job-c', 'job-b'], 'zRange REV');
    eq(await c.zRange('nr:z', due + 25, '+inf', {BY: 'SCORE'}), ['job-c', 'job-a'], 'zRange BY SCORE');
    eq(await c.zScore('nr:z', 'job-c'), due + 30);
    eq(await c.zScore('nr:z', 'none'), null);
    eq(await c.zRank('nr:z', 'job-a'), 2);
    eq(await c.zCard('nr:z'), 3);
    eq(await c.zCount('nr:z', due + 25, '+inf'), 2);
    eq(await c.zIncrBy('nr:z', 0.25, 'job-b'), due + 20.25);
    eq(await c.zmScore('nr:z', ['job-b', 'none']), [due + 20.25, null]);
    eq(await c.zPopMin('nr:z'), {value: 'job-b', score: due + 20.25}, 'zPopMin');
    eq(await c.zPopMaxCount('nr:z', 5), [{value: 'job-a', score: due + 40}, {value: 'job-c', score: due + 30}]);
    eq(await c.exists('nr:z'), 0, 'a sorted set emptied by pops is deleted');
    eq(await c.zPopMin('nr:z'), null, 'zPopMin of a missing key');
    /* node-redis reads "+inf" only; the wire carries Redis's "inf", checked raw. */
    eq(await c.zAdd('nr:zi', [{score: Infinity, value: 'top'}, {score: -Infinity, value: 'bottom'}]), 2);
    eq(await c.sendCommand(['ZRANGE', 'nr:zi', '0', '-1', 'WITHSCORES']), ['bottom', '-inf', 'top', 'inf']);
    await expectError(c.zAdd('nr:str', {score: 1, value: 'x'}), WT, 'zAdd on a string');
}

async function tLists() {
    const c = R;
    eq(await c.lPush('nr:l', ['a', 'b', 'c']), 3);
    eq(await c.rPush('nr:l', 'x'), 4);
    eq(await c.lRange('nr:l', 0, -1), ['c', 'b', 'a', 'x']);
    eq(await c.rPop('nr:l'), 'x');
    eq(await c.lPopCount('nr:l', 2), ['c', 'b'], 'lPopCount');
    eq(await c.lLen('nr:l'), 1);
    eq(await c.lIndex('nr:l', 0), 'a');
    eq(await c.lPos('nr:l', 'a'), 0);
    eq(await c.lInsert('nr:l', 'AFTER', 'a', 'z'), 2);
    eq(await c.lSet('nr:l', -1, 'y'), 'OK');
    eq(await c.lRange('nr:l', 0, -1), ['a', 'y']);
    eq(await c.lMove('nr:l', 'nr:l2', 'LEFT', 'RIGHT'), 'a');
    eq(await c.rPop('nr:l'), 'y');
    eq(await c.exists('nr:l'), 0, 'a list emptied by pops is deleted');
    eq(await c.rPop('nr:l'), null);
    eq(await c.lmPop(['nr:none', 'nr:l2'], 'LEFT', {COUNT: 3}), ['nr:l2', ['a']], 'lmPop');
    await expectError(c.lSet('nr:none', 0, 'v'), 'ERR no such key');
    await expectError(c.lPush('nr:str', 'x'), WT, 'lPush on a string');
}

async function tMulti() {
    const c = R;
    const res = await c.multi()
        .hSet('nr:m:h', {state: 'claimed', n: 1})
        .hIncrBy('nr:m:h', 'n', 1)
        .hGetAll('nr:m:h')
        .sAdd('nr:m:s', 'job-1')
        .sIsMember('nr:m:s', 'job-1')
        .zAdd('nr:m:z', {score: 5, value: 'job-1'})
        .zRangeWithScores('nr:m:z', 0, -1)
        .zPopMin('nr:m:z')
        .lPush('nr:m:l', 'job-1')
        .rPop('nr:m:l')
        .exec();
    eq(res.length, 10);
    eq(res[0], 2);
    eq(res[1], 2);
    eq(plain(res[2]), {state: 'claimed', n: '2'}, 'hGetAll inside multi');
    eq(res.slice(3), [1, true, 1, [{value: 'job-1', score: 5}], {value: 'job-1', score: 5}, 1, 'job-1'],
        'EXEC results transformed per command');
    eq(await c.exists(['nr:m:z', 'nr:m:l']), 0, 'keys emptied inside the transaction are deleted');
    /* An error at run time is per command: multi().exec() rejects with it. */
    await c.set('nr:m:str', 'v');
    let err;
    try {
        await c.multi().lPush('nr:m:str', 'x').sAdd('nr:m:s', 'job-2').exec();
    } catch (e) {
        err = e;
    }
    ok(err && Array.isArray(err.replies), 'multi().exec() rejects with the replies');
    eq(err.replies[0].message, WT);
    eq(err.replies[1], 1);
    /* Many commands of every group in one transaction. */
    const m = c.multi();
    for (let i = 0; i < 1000; i++) {
        m.hIncrBy('nr:m:cnt', `f${i % 4}`, 1);
        m.zIncrBy('nr:m:rank', 1, `m${i % 3}`);
        m.rPush('nr:m:q', String(i));
    }
    eq((await m.exec()).length, 3000);
    eq(plain(await c.hGetAll('nr:m:cnt')), {f0: '250', f1: '250', f2: '250', f3: '250'});
    eq(await c.zScore('nr:m:rank', 'm0'), 334);
    eq(await c.lLen('nr:m:q'), 1000);
}

async function tBlPop() {
    const waiter = await dup(R);
    const pusher = await connect();
    const t0 = Date.now();
    const p = waiter.blPop(['nr:b:q1', 'nr:b:q2'], 5);
    await waitBlocked(1);
    eq(await pusher.lPush('nr:b:q2', 'task-1'), 1);
    eq(await p, {key: 'nr:b:q2', element: 'task-1'}, 'blPop on a duplicate() woken by another client');
    ok(Date.now() - t0 < 4000, 'blPop woke before its timeout');
    eq(await pusher.exists('nr:b:q2'), 0);
    const t1 = Date.now();
    eq(await waiter.blPop('nr:b:none', 0.2), null, 'blPop timeout answers null');
    const dt = Date.now() - t1;
    ok(dt >= 150 && dt < 3000, `blPop 0.2 took ${dt} ms`);
    /* On the shared client: an isolated connection (commandOptions, then
     * executeIsolated; node-redis's isolation pool holds one connection by default). */
    const p2 = R.blPop(commandOptions({isolated: true}), 'nr:b:iso', 5);
    await waitBlocked(1);
    eq(await R.ping(), 'PONG', 'the shared connection is not blocked');
    eq(await pusher.rPush('nr:b:iso', ['e1', 'e2']), 2);
    eq(await p2, {key: 'nr:b:iso', element: 'e1'}, 'blPop isolated');
    const p3 = R.executeIsolated((iso) => iso.brPop('nr:b:iso2', 5));
    await waitBlocked(1);
    eq(await pusher.rPush('nr:b:iso2', ['f1', 'f2']), 2);
    eq(await p3, {key: 'nr:b:iso2', element: 'f2'}, 'brPop in executeIsolated');
    /* Woken by a multi().exec() of another client. */
    const p4 = waiter.blPop('nr:b:m', 5);
    await waitBlocked(1);
    eq(await pusher.multi().del('nr:b:m').rPush('nr:b:m', ['m1', 'm2']).exec(), [0, 2]);
    eq(await p4, {key: 'nr:b:m', element: 'm1'}, 'woken by multi().exec()');
}

async function tBzPopMin() {
    const waiter = await dup(R);
    const adder = await connect();
    const p = waiter.bzPopMin('nr:bz:sched', 5);
    await waitBlocked(1);
    eq(await adder.zAdd('nr:bz:sched', [{score: 1700000005, value: 'job-b'}, {score: 1700000001, value: 'job-a'}]), 2);
    eq(await p, {key: 'nr:bz:sched', value: 'job-a', score: 1700000001}, 'bzPopMin woken by zAdd');
    eq(await waiter.bzPopMax('nr:bz:sched', 1), {key: 'nr:bz:sched', value: 'job-b', score: 1700000005});
    eq(await waiter.bzPopMin('nr:bz:sched', 0.1), null, 'bzPopMin timeout answers null');
}

async function tBlMove() {
    const worker = await dup(R);
    const producer = await connect();
    const p = worker.blMove('nr:q:pending', 'nr:q:processing', 'RIGHT', 'LEFT', 5);
    await waitBlocked(1);
    eq(await producer.lPush('nr:q:pending', ['task-1', 'task-2']), 2);
    eq(await p, 'task-1', 'blMove answers the moved element');
    eq(await producer.lRange('nr:q:processing', 0, -1), ['task-1']);
    eq(await worker.lRem('nr:q:processing', 1, 'task-1'), 1, 'acknowledged with lRem');
    eq(await worker.blMove('nr:q:pending', 'nr:q:processing', 'RIGHT', 'LEFT', 1), 'task-2');
    eq(await worker.blMove('nr:q:pending', 'nr:q:processing', 'RIGHT', 'LEFT', 0.1), null, 'blMove timeout');
    eq(await worker.blmPop(1, ['nr:q:none', 'nr:q:processing'], 'LEFT', {COUNT: 2}),
        ['nr:q:processing', ['task-2']], 'blmPop');
}

async function main() {
    const rep = new sp.Reporter(120000);
    rep.onAbort = async () => {
        for (const c of clients) c.disconnect().catch(() => {});
        if (server) await server.stop();
    };
    server = new sp.Server();
    try {
        await server.start();
    } catch (e) {
        rep.fail('the server starts and answers PING', e);
        rep.finish();
        return;
    }
    try {
        if (await rep.case('node-redis connects', async () => { R = await connect(); eq(await R.ping(), 'PONG'); })) {
            await rep.case('node-redis hashes: hSet of an object and tuples, hGetAll, hIncrBy, hExists', tHashes);
            await rep.case('node-redis sets: sAdd, sMembers, sIsMember booleans, set algebra, sMove, sPop', tSets);
            await rep.case('node-redis sorted sets: zAdd {score, value}, zRangeWithScores, zPopMin, options', tZsets);
            await rep.case('node-redis lists: lPush, rPop, lRange, lPopCount, lMove, lmPop, errors', tLists);
            await rep.case('node-redis multi().exec() of every group, replies transformed, errors in place', tMulti);
            await rep.case('node-redis blPop on duplicate() and executeIsolated woken by other clients', tBlPop);
            await rep.case('node-redis bzPopMin woken by a zAdd of another client, bzPopMax, timeout', tBzPopMin);
            await rep.case('node-redis blMove reliable-queue step and blmPop', tBlMove);
        }
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
    } finally {
        await nodeRedis.quitAll();
        const status = await server.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
