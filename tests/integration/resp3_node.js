/* resp3_node.js -- node-redis v5 over RESP3: its replies, push messages and client-side cache.
 *
 * node-redis v4 (types_node_redis.js, pubsub_node.js) speaks RESP2 only; v5
 * (installed as "redis5") speaks RESP3 when created with {RESP: 3}, and then
 * maps RESP3's types to JavaScript: maps to objects, sets, doubles to
 * numbers, nulls, verbatim strings, and reads pub/sub messages and tracking
 * invalidations as out-of-band push frames on a connection that keeps
 * answering commands.
 *
 * The same calls run through v5 against redis-server (7.0, started here on a
 * free port) and against Scratchpad, and what node-redis hands the
 * application must be deeply equal: a reply type Scratchpad got wrong (an
 * integer where Redis sends a double, an array where it sends a map) shows
 * as a JavaScript value of another shape. Then, against Scratchpad:
 * subscribe/pSubscribe/sSubscribe messages arrive as pushes while the same
 * connection goes on running commands; keyspace notifications of an agent's
 * plan arrive in command order; and v5's client-side cache (CLIENT TRACKING
 * with invalidation pushes) serves repeated GETs from memory and drops an
 * entry as soon as another client changes the key, an entry's hash field, or
 * flushes the database. Every client is quit and both servers stopped by PID. */
'use strict';

const path = require('path');
const util = require('util');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, sleep} = sp;

const redis = sp.requireClient('redis5');

let server;
let reference;
const nodeRedis = new sp.NodeRedisClients(redis);

/* A node-redis v5 client over RESP3. */
const connect = (port, opts = {}) => nodeRedis.connect(port, {RESP: 3, ...opts});

/* Wait until cond() holds, up to ms. */
async function until(cond, ms, what) {
    const deadline = Date.now() + ms;
    while (!cond()) {
        if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
        await sleep(5);
    }
}

/* The calls an application makes, each returning what node-redis hands it;
 * an error becomes {error: message}. Sets come back in hash order, which
 * differs between servers, so they are sorted. */
const sorted = (a) => [...a].sort();
const CALLS = [
    ['HELLO 3 reply', (c) => c.sendCommand(['HELLO', '3']).then((h) => ({proto: h.proto, server: typeof h.server}))],
    ['SET/GET/GETEX', async (c) => [await c.set('s', 'v'), await c.get('s'), await c.getEx('s', {EX: 100}),
        await c.get('nosuch')]],
    ['INCRBYFLOAT and a double score', async (c) => [await c.incrByFloat('f', 1.5),
        await c.zAdd('z', [{score: 1.5, value: 'a'}, {score: 2, value: 'b'}, {score: -Infinity, value: 'c'}]),
        await c.zScore('z', 'a'), await c.zScore('z', 'c'), await c.zScore('z', 'nosuch'),
        await c.zMScore('z', ['a', 'x', 'b'])]],
    ['ZRANGE WITHSCORES, ZPOPMIN, ZRANDMEMBER count, ZINCRBY', async (c) => [
        await c.zRangeWithScores('z', 0, -1), await c.zIncrBy('z', 0.25, 'a'), await c.zPopMin('z'),
        await c.zPopMinCount('z', 5), await c.zRandMemberCount('nosuch', 2)]],
    ['HGETALL is a map, HRANDFIELD WITHVALUES pairs', async (c) => [await c.hSet('h', {a: '1', b: '2'}),
        {...await c.hGetAll('h')}, {...await c.hGetAll('nosuch')}, await c.hRandFieldCountWithValues('nosuch', 2),
        await c.hIncrByFloat('h', 'a', 0.5), await c.hmGet('h', ['a', 'x'])]],
    ['SMEMBERS and SINTER are sets, SISMEMBER/SMISMEMBER booleans', async (c) => [await c.sAdd('t', ['x', 'y', '1']),
        sorted(await c.sMembers('t')), sorted(await c.sInter(['t', 't'])), await c.sIsMember('t', 'x'),
        await c.smIsMember('t', ['x', 'q'])]],
    ['lists: LPOS, LMPOP, BLPOP timing out with a null', async (c) => [await c.rPush('l', ['a', 'b', 'a']),
        await c.lPos('l', 'a'), await c.lPosCount('l', 'a', 0), await c.lmPop(['nosuch', 'l'], 'LEFT', {COUNT: 2}),
        await c.blPop('nosuch', 0.05)]],
    ['streams: XADD, XRANGE, XREADGROUP, XPENDING, XINFO STREAM', async (c) => [
        await c.xAdd('x', '1-1', {f: 'v'}), await c.xAdd('x', '2-1', {g: 'w', h: 'u'}),
        await c.xRange('x', '-', '+'), await c.xGroupCreate('x', 'g', '0'),
        await c.xReadGroup('g', 'c1', {key: 'x', id: '>'}, {COUNT: 1}),
        await c.xPending('x', 'g'), await c.xLen('x'),
        await c.sendCommand(['XINFO', 'STREAM', 'x']).then((i) => Object.keys(i).sort())]],
    ['CONFIG GET is a map, TYPE, OBJECT ENCODING, TTL', async (c) => [{...await c.configGet('maxmemory-policy')},
        await c.type('z'), await c.objectEncoding('h'), await c.ttl('s'), await c.pTtl('nosuch')]],
    ['errors: WRONGTYPE, a bad integer, an unknown command', async (c) => {
        const out = [];
        for (const f of [() => c.lPush('s', 'x'), () => c.incr('h'), () => c.sendCommand(['NOSUCHCMD', 'a'])]) {
            try {
                out.push(await f());
            } catch (e) {
                out.push({error: e.message});
            }
        }
        return out;
    }],
    ['MULTI/EXEC of mixed types', (c) => c.multi().set('m', '1').incr('m').hGetAll('h').zScore('z', 'b')
        .sMembers('nosuch').exec()],
    ['EVAL returning a table, a double through RESP3, nil', (c) => c.eval(
        "redis.setresp(3); return {1, 'two', redis.call('ZSCORE', 'z', 'b'), false}", {keys: ['z']})],
];

async function tSameValues() {
    const a = await connect(reference.port);
    const b = await connect(server.port);
    await a.flushAll();
    await b.flushAll();
    const diffs = [];
    for (const [name, call] of CALLS) {
        const want = await call(a).catch((e) => ({error: e.message}));
        const got = await call(b).catch((e) => ({error: e.message}));
        if (!util.isDeepStrictEqual(want, got)) {
            diffs.push(`${name}:\n  redis-server ${util.inspect(want, {depth: 6})}\n  scratchpad   ` +
                util.inspect(got, {depth: 6}));
        }
    }
    if (diffs.length) throw new Error(diffs.join('\n'));
}

async function tPush() {
    const c = await connect(server.port);
    const pub = await connect(server.port);
    const got = [];
    await c.subscribe('plan', (m, ch) => got.push(['sub', ch, m]));
    await c.pSubscribe('task.*', (m, ch) => got.push(['psub', ch, m]));
    await c.sSubscribe('shard', (m, ch) => got.push(['ssub', ch, m]));
    eq(await pub.publish('plan', 'step 1'), 1, 'PUBLISH reaches the one subscriber');
    /* the subscribed connection still answers commands between pushes */
    eq(await c.set('k', 'v'), 'OK', 'SET on the subscribed connection');
    eq(await pub.publish('task.7', 'done'), 1, 'PUBLISH to a pattern');
    eq(await c.get('k'), 'v', 'GET on the subscribed connection');
    eq(await pub.sPublish('shard', 'x'), 1, 'SPUBLISH');
    eq(await pub.publish('other', 'nobody'), 0, 'PUBLISH to no one');
    await until(() => got.length >= 3, 5000, 'three messages');
    eq(got, [['sub', 'plan', 'step 1'], ['psub', 'task.7', 'done'], ['ssub', 'shard', 'x']], 'the messages, in order');
    eq({...await pub.pubSubNumSub(['plan', 'other'])}, {plan: 1, other: 0}, 'PUBSUB NUMSUB');
    await c.unsubscribe('plan');
    eq(await pub.publish('plan', 'step 2'), 0, 'after UNSUBSCRIBE no one hears it');
    eq(await c.ping(), 'PONG', 'PING on the connection still subscribed to a pattern');
}

async function tKeyspace() {
    const admin = await connect(server.port);
    await admin.configSet('notify-keyspace-events', 'KAp'); /* p: scratchpad events, not part of A */
    const sub = await connect(server.port);
    const got = [];
    await sub.pSubscribe('__keyspace@0__:team-a:*', (m, ch) => got.push(`${ch.split(':').slice(1).join(':')} ${m}`));
    const agent = await connect(server.port);
    await agent.set('team-a:goal', 'ship');
    await agent.rPush('team-a:queue', ['t1', 't2']);
    await agent.lPop('team-a:queue');
    await agent.sendCommand(['SP.WRITE', 'team-a:pad', 'plan', 'line 1']);
    await agent.expire('team-a:goal', 100);
    await agent.del('team-a:goal');
    await agent.set('team-b:goal', 'other team');
    await until(() => got.length >= 6, 5000, `six events (got ${JSON.stringify(got)})`);
    await admin.configSet('notify-keyspace-events', '');
    eq(got, ['team-a:goal set', 'team-a:queue rpush', 'team-a:queue lpop', 'team-a:pad sp.write',
        'team-a:goal expire', 'team-a:goal del'], 'events of team-a in command order, none of team-b');
}

async function tClientSideCache() {
    const c = await connect(server.port, {clientSideCache: {ttl: 0, maxEntries: 0}});
    const w = await connect(server.port);
    const stats = () => c.clientSideCache.stats();
    await w.set('cfg', 'v1');
    await w.hSet('hcfg', {a: '1'});
    eq(await c.get('cfg'), 'v1', 'first GET');
    eq(await c.get('cfg'), 'v1', 'second GET');
    eq({...await c.hGetAll('hcfg')}, {a: '1'}, 'first HGETALL');
    eq({...await c.hGetAll('hcfg')}, {a: '1'}, 'second HGETALL');
    eq([stats().hitCount, stats().missCount], [2, 2], 'the second reads came from the cache');
    await w.set('cfg', 'v2');
    await until(() => c.clientSideCache.size() < 2, 5000, 'the invalidation of cfg');
    eq(await c.get('cfg'), 'v2', 'GET after another client SET reads the new value');
    await w.hSet('hcfg', 'b', '2');
    await until(() => c.clientSideCache.size() < 2, 5000, 'the invalidation of hcfg');
    eq({...await c.hGetAll('hcfg')}, {a: '1', b: '2'}, 'HGETALL after another client HSET');
    eq(await c.get('cfg'), 'v2', 'cached again');
    ok(c.clientSideCache.size() === 2, 'both keys cached');
    await w.flushAll();
    await until(() => c.clientSideCache.size() === 0, 5000, 'FLUSHALL invalidating everything');
    eq(await c.get('cfg'), null, 'after FLUSHALL the key is gone, not served from the cache');
    eq(stats().missCount, 5, 'every read after an invalidation went to the server');
}

async function main() {
    const rep = new sp.Reporter();
    server = new sp.Server();
    reference = new sp.Server(['--save', '', '--appendonly', 'no'], {binary: process.env.REDIS_SERVER || 'redis-server'});
    try {
        await server.start();
        await reference.start();
    } catch (e) {
        rep.fail('scratchpad-server and redis-server start and answer PING', e);
        await server.stop();
        await reference.stop();
        rep.finish();
        return;
    }
    rep.onAbort = () => Promise.all([server.stop(), reference.stop()]);
    try {
        await rep.case('node-redis v5 over RESP3 hands the application the same values from Scratchpad as from ' +
            'redis-server: maps, sets, doubles, nulls, streams, errors, MULTI, EVAL', tSameValues);
        await rep.case('subscribe, pSubscribe and sSubscribe messages arrive as RESP3 pushes while the same ' +
            'connection goes on answering commands', tPush);
        await rep.case('keyspace notifications of one team\'s keys arrive as pushes in command order', tKeyspace);
        await rep.case('the client-side cache (CLIENT TRACKING, invalidation pushes) serves repeated reads and ' +
            'drops an entry when another client changes the key or flushes', tClientSideCache);
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
    } finally {
        await nodeRedis.quitAll();
        const status = await server.stop();
        await reference.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
