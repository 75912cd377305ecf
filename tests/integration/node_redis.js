/* node_redis.js -- the server driven by node-redis (v4) the way node applications use it.
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and, through
 * node-redis, connects (it sends CLIENT SETINFO, SELECT and CLIENT SETNAME at
 * connect), runs strings with the SET options, multi().exec() of thousands of
 * commands, auto-pipelining of many concurrent commands (node-redis writes
 * every command issued in one tick as one batch), scanIterator over thousands of
 * keys, millisecond expiry, Buffers with every byte value, a 10 MB value,
 * WATCH conflicts through executeIsolated, 50 concurrent clients, and the
 * ErrorReply messages. node-redis v4 speaks RESP2 only, so RESP3 is skipped
 * here (tests/integration/redis_py.py checks RESP3 on a raw socket). Every
 * client is quit and the server stopped, so the process exits by itself. */
'use strict';

const path = require('path');
const crypto = require('crypto');
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

const buf = commandOptions({returnBuffers: true});

async function tConnect() {
    const c = await connect({name: 'nr-main'});
    R = c;
    eq(c.isReady, true, 'isReady');
    eq(await c.ping(), 'PONG');
    eq(await c.clientGetName(), 'nr-main', 'name set at connect');
    const me = await c.clientInfo();
    eq(me.name, 'nr-main');
    const raw = await c.sendCommand(['CLIENT', 'INFO']);
    if (/lib-name=/.test(raw)) ok(/lib-name=node-redis /.test(raw), `CLIENT SETINFO LIB-NAME recorded: ${raw}`);
    const info = await c.info();
    ok(/\r\nloading:0\r\n/.test(info), 'INFO has loading:0');
    const d5 = await connect({database: 5});
    await d5.set('nr:db5', 'x');
    eq(await R.get('nr:db5'), null, 'db 5 key not visible in db 0');
    eq(await d5.get('nr:db5'), 'x', 'database option selects at connect');
}

async function tStrings() {
    const c = R;
    eq(await c.set('nr:s', 'v1'), 'OK');
    eq(await c.set('nr:s', 'v2', {NX: true}), null);
    eq(await c.set('nr:s', 'v2', {XX: true}), 'OK');
    eq(await c.set('nr:none', 'v', {XX: true}), null);
    eq(await c.set('nr:s', 'v3', {EX: 100}), 'OK');
    eq(await c.ttl('nr:s'), 100);
    eq(await c.set('nr:s', 'v4', {PX: 5000, GET: true}), 'v3');
    const t = await c.pTTL('nr:s');
    ok(t > 4000 && t <= 5000, `PTTL ${t}`);
    eq(await c.set('nr:s', 'v5', {KEEPTTL: true}), 'OK');
    ok((await c.pTTL('nr:s')) > 4000, 'KEEPTTL keeps the TTL');
    eq(await c.set('nr:s', 'v6', {EXAT: Math.floor(Date.now() / 1000) + 100}), 'OK');
    ok((await c.ttl('nr:s')) >= 98, 'EXAT');
    eq(await c.set('nr:s', 'v7'), 'OK');
    eq(await c.ttl('nr:s'), -1, 'a plain SET removes the TTL');
    eq(await c.append('nr:s', '+'), 3);
    eq(await c.getRange('nr:s', 0, 1), 'v7');
    eq(await c.setRange('nr:s', 1, 'XY'), 3);
    eq(await c.get('nr:s'), 'vXY');
    eq(await c.incr('nr:n'), 1);
    eq(await c.incrBy('nr:n', 99), 100);
    eq(await c.decr('nr:n'), 99);
    eq(await c.incrByFloat('nr:f', 2.5), '2.5');
    eq(await c.mSet({'nr:a': '1', 'nr:b': '2'}), 'OK');
    eq(await c.mGet(['nr:a', 'nr:x', 'nr:b']), ['1', null, '2']);
    eq(await c.mSetNX({'nr:b': '3', 'nr:c': '3'}), false);
    eq(await c.getDel('nr:a'), '1');
    eq(await c.getEx('nr:b', {PX: 10000}), '2');
    ok((await c.pTTL('nr:b')) > 9000, 'GETEX PX');
    eq(await c.strLen('nr:b'), 1);
}

async function tMulti() {
    const c = R;
    const n = 4000;
    const m = c.multi();
    for (let i = 0; i < n; i++) m.set(`nr:m:${i}`, String(i));
    for (let i = 0; i < n; i++) m.incr(`nr:m:${i}`);
    const res = await m.exec();
    eq(res.length, 2 * n);
    ok(res.slice(0, n).every((x) => x === 'OK'), 'every SET in EXEC answered OK');
    for (let i = 0; i < n; i++) if (res[n + i] !== i + 1) throw new Error(`INCR ${i}: ${res[n + i]}`);
    /* A runtime error inside EXEC: node-redis raises MultiErrorReply with the replies. */
    await c.set('nr:m:str', 'abc');
    let err;
    try {
        await c.multi().incr('nr:m:str').set('nr:m:after', '1').exec();
    } catch (e) {
        err = e;
    }
    ok(err && Array.isArray(err.errorIndexes), 'MultiErrorReply raised');
    eq(err.errorIndexes, [0]);
    eq(err.replies[0].message, 'ERR value is not an integer or out of range');
    eq(err.replies[1], 'OK');
    /* execAsPipeline: the same commands without MULTI/EXEC. */
    const p = c.multi();
    for (let i = 0; i < n; i++) p.get(`nr:m:${i}`);
    const got = await p.execAsPipeline();
    for (let i = 0; i < n; i++) if (got[i] !== String(i + 1)) throw new Error(`GET ${i}: ${got[i]}`);
    /* A queueing error aborts the transaction. */
    await expectError(c.multi().set('nr:m:q', '1').addCommand(['GET']).exec(),
        'EXECABORT Transaction discarded because of previous errors.');
    eq(await c.exists('nr:m:q'), 0, 'nothing of an aborted transaction ran');
}

async function tAutoPipeline() {
    const c = R;
    const n = 10000;
    const sets = [];
    for (let i = 0; i < n; i++) sets.push(c.set(`nr:ap:${i}`, `v${i}`));
    ok((await Promise.all(sets)).every((x) => x === 'OK'), 'every SET answered OK');
    const ops = [];
    for (let i = 0; i < n; i++) {
        ops.push(c.get(`nr:ap:${i}`));
        ops.push(c.incr('nr:ap:counter'));
    }
    const res = await Promise.all(ops);
    for (let i = 0; i < n; i++) {
        if (res[2 * i] !== `v${i}`) throw new Error(`GET ${i}: ${res[2 * i]}`);
        if (res[2 * i + 1] !== i + 1) throw new Error(`INCR ${i}: ${res[2 * i + 1]}`);
    }
}

async function tScan() {
    const c = await connect({database: 9});
    await c.flushDb();
    const n = 5000;
    const want = new Set();
    const m = c.multi();
    for (let i = 0; i < n; i++) {
        want.add(`nr:scan:${i}`);
        m.set(`nr:scan:${i}`, String(i));
    }
    for (let i = 0; i < 50; i++) m.set(`nr:other:${i}`, 'x');
    await m.execAsPipeline();
    const collect = async (opts) => {
        const got = [];
        for await (const k of c.scanIterator(opts)) got.push(k);
        return got;
    };
    const got = new Set(await collect({MATCH: 'nr:scan:*', COUNT: 100}));
    const missing = [...want].filter((k) => !got.has(k)).length;
    const extra = [...got].filter((k) => !want.has(k)).length;
    eq([missing, extra], [0, 0], 'missing and extra keys of SCAN MATCH');
    eq(new Set(await collect({COUNT: 1000})).size, n + 50, 'SCAN without MATCH sees every key');
    eq(new Set(await collect({MATCH: 'nr:other:*', TYPE: 'string'})).size, 50, 'SCAN TYPE string');
    eq(await c.dbSize(), n + 50);
    await c.flushDb();
    eq(await c.dbSize(), 0);
}

async function tExpiry() {
    const c = R;
    await c.set('nr:e', 'v');
    eq(await c.pExpire('nr:e', 2500), true);
    const t = await c.pTTL('nr:e');
    ok(t > 2400 && t <= 2500, `PTTL ${t} after PEXPIRE 2500`);
    eq(await c.expire('nr:e', 100, 'NX'), false);
    eq(await c.expire('nr:e', 100, 'XX'), true);
    eq(await c.ttl('nr:e'), 100);
    eq(await c.persist('nr:e'), true);
    eq(await c.pTTL('nr:e'), -1);
    eq(await c.pTTL('nr:missing'), -2);
    await c.set('nr:e2', 'v', {PX: 80});
    await sleep(30);
    eq(await c.get('nr:e2'), 'v', 'alive at 30 ms of 80');
    await sleep(90);
    eq(await c.get('nr:e2'), null, 'gone at 120 ms of 80');
    const at = Date.now() + 20000;
    eq(await c.pExpireAt('nr:e', at), true);
    eq(await c.pExpireTime('nr:e'), at);
}

async function tBuffers() {
    const c = R;
    const all = Buffer.from(Array.from({length: 256}, (_, i) => i));
    eq(await c.set('nr:bin', all), 'OK');
    eq(await c.get(buf, 'nr:bin'), all, 'every byte value round-trips');
    eq(await c.set(all, 'binary key'), 'OK');
    eq(await c.get(all), 'binary key', 'a key with every byte value');
    eq(await c.exists(all), 1);
    eq(await c.getRange(buf, 'nr:bin', 0, 3), Buffer.from([0, 1, 2, 3]));
    const m = c.multi();
    for (let b = 0; b < 256; b++) m.set(Buffer.from([0x6e, b]), Buffer.alloc(b + 1, b));
    await m.exec();
    const keys = Array.from({length: 256}, (_, b) => Buffer.from([0x6e, b]));
    const vals = await c.mGet(buf, keys);
    for (let b = 0; b < 256; b++) eq(vals[b], Buffer.alloc(b + 1, b), `value of key byte ${b}`);
}

async function tBigValue() {
    const c = R;
    const size = 10 * 1024 * 1024;
    const big = crypto.randomBytes(size);
    eq(await c.set('nr:big', big), 'OK');
    eq(await c.strLen('nr:big'), size);
    ok((await c.get(buf, 'nr:big')).equals(big), '10 MB value round-trips');
    const tail = await c.getRange(buf, 'nr:big', size - 100, -1);
    ok(tail.equals(big.subarray(size - 100)), 'GETRANGE of the last 100 bytes');
    const [a, b] = await Promise.all([c.get(buf, 'nr:big'), c.get(buf, 'nr:big')]);
    ok(a.equals(big) && b.equals(big), 'two concurrent 10 MB reads');
    await c.del('nr:big');
}

async function tWatch() {
    const other = await connect();
    await R.set('nr:w', '1');
    let err;
    try {
        await R.executeIsolated(async (iso) => {
            await iso.watch('nr:w');
            eq(await iso.get('nr:w'), '1');
            await other.set('nr:w', '2');
            return iso.multi().set('nr:w', '3').exec();
        });
    } catch (e) {
        err = e;
    }
    eq(err && err.constructor.name, 'WatchError', 'EXEC after the watched key changed');
    eq(await R.get('nr:w'), '2');
    const res = await R.executeIsolated(async (iso) => {
        await iso.watch('nr:w');
        return iso.multi().set('nr:w', '4').exec();
    });
    eq(res, ['OK'], 'EXEC with the watched key untouched');
    /* 10 isolated connections racing with optimistic increments. */
    await R.set('nr:wc', '0');
    let retries = 0;
    await Promise.all(Array.from({length: 10}, () => R.executeIsolated(async (iso) => {
        for (let i = 0; i < 50; i++) {
            for (;;) {
                await iso.watch('nr:wc');
                const v = Number(await iso.get('nr:wc'));
                try {
                    await iso.multi().set('nr:wc', String(v + 1)).exec();
                    break;
                } catch (e) {
                    if (e.constructor.name !== 'WatchError') throw e;
                    retries++;
                }
            }
        }
    })));
    eq(await R.get('nr:wc'), '500', `counter after 500 optimistic increments (${retries} retries)`);
}

async function tManyClients() {
    const n = 50;
    const cs = await Promise.all(Array.from({length: n}, (_, i) => connect({name: `nr-many-${i}`})));
    await R.set('nr:many', '0');
    await Promise.all(cs.map(async (c, i) => {
        const ops = [];
        for (let j = 0; j < 100; j++) ops.push(c.incr('nr:many'), c.set(`nr:many:${i}`, String(j)));
        await Promise.all(ops);
    }));
    eq(await R.get('nr:many'), String(n * 100), 'counter after 50 clients x 100 INCR');
    const list = await R.clientList();
    eq(list.filter((x) => /^nr-many-\d+$/.test(x.name)).length, n, 'named clients in CLIENT LIST');
    const id = await R.clientId();
    ok(list.some((x) => Number(x.id) === id), 'own CLIENT ID in CLIENT LIST');
    await Promise.all(cs.map((c) => c.quit()));
}

async function tErrors() {
    const c = R;
    await expectError(c.sendCommand(['GET']), "ERR wrong number of arguments for 'get' command");
    await expectError(c.sendCommand(['FOOBAR', 'x']), "ERR unknown command 'FOOBAR', with args beginning with: 'x' ");
    await c.set('nr:err', 'abc');
    await expectError(c.incr('nr:err'), 'ERR value is not an integer or out of range');
    await expectError(c.sendCommand(['SET', 'nr:err', 'v', 'PX', '0']), "ERR invalid expire time in 'set' command");
    await expectError(c.sendCommand(['SELECT', '100']), 'ERR DB index is out of range');
    const e = await expectError(c.sendCommand(['CLIENT', 'NOPE']), "ERR unknown subcommand 'NOPE'. Try CLIENT HELP.");
    eq(e.constructor.name, 'ErrorReply', 'error class');
    eq(await c.get('nr:err'), 'abc', 'the connection still works after errors');
}

/* A key holding a non-string value: a scratchpad on Scratchpad, a list on Redis. */
async function makeNonString(c, key) {
    try {
        await c.sendCommand(['SP.WRITE', key, 'notes.md', 'hello']);
    } catch (e) {
        if (!/^ERR unknown command/.test(e.message)) throw e;
        await c.lPush(key, 'hello');
    }
}

async function tWrongType() {
    const c = R;
    const wt = 'WRONGTYPE Operation against a key holding the wrong kind of value';
    await makeNonString(c, 'nr:wt');
    await expectError(c.get('nr:wt'), wt, 'GET');
    await expectError(c.incrBy('nr:wt', 2), wt, 'INCRBY');
    await expectError(c.strLen('nr:wt'), wt, 'STRLEN');
    eq(await c.mGet(['nr:wt']), [null], 'MGET answers nil for a key of another type');
    eq(await c.type('nr:wt') !== 'string', true, 'TYPE is not string');
    eq(await c.set('nr:wt', 'v'), 'OK', 'SET replaces a value of another type');
}

async function tConfigInfo() {
    const c = R;
    eq({...await c.configGet('hz')}, {hz: '10'});
    eq(await c.configSet('hz', '30'), 'OK');
    eq({...await c.configGet('hz')}, {hz: '30'});
    eq(await c.configSet({hz: '10', timeout: '0'}), 'OK');
    eq({...await c.configGet('hz')}, {hz: '10'});
    const info = await c.info('server');
    ok(/\r\nredis_version:7\./.test(info), 'INFO server redis_version 7.x');
    ok(/\r\ntcp_port:\d+\r\n/.test(info) && info.includes(`tcp_port:${server.port}\r\n`), 'INFO tcp_port');
    eq(await c.swapDb(10, 11), 'OK');
    ok(/ cmd=client\|info /.test(await c.sendCommand(['CLIENT', 'INFO'])), 'CLIENT INFO shows cmd=client|info for itself');
}

async function main() {
    const rep = new sp.Reporter(240000);
    rep.onAbort = async () => { for (const c of clients) { try { await c.disconnect(); } catch (e) { /* closed */ } } if (server) await server.stop(); };
    server = new sp.Server();
    try {
        await server.start();
    } catch (e) {
        rep.fail('the server starts and answers PING', e);
        rep.finish();
        return;
    }
    try {
        await rep.case('node-redis connects with name and database (CLIENT SETINFO, SETNAME, SELECT), INFO', tConnect);
        if (R) {
            await rep.case('strings with SET NX/XX/EX/PX/EXAT/KEEPTTL/GET and the other string commands', tStrings);
            await rep.case('multi().exec() of 8k commands, MultiErrorReply, execAsPipeline, EXECABORT', tMulti);
            await rep.case('auto-pipelining of 30k concurrent commands answers each in order', tAutoPipeline);
            await rep.case('scanIterator over 5k keys returns every key, with MATCH, COUNT and TYPE', tScan);
            await rep.case('expiry in milliseconds: PEXPIRE/PTTL/EXPIRE NX XX/PERSIST/PEXPIRETIME', tExpiry);
            await rep.case('Buffer values and keys with every byte value round-trip', tBuffers);
            await rep.case('a 10 MB value round-trips as a Buffer', tBigValue, 120000);
            await rep.case('WATCH through executeIsolated: conflicts raise WatchError, 10 racers count exactly', tWatch);
            await rep.case('50 concurrent clients each with its own connection count exactly', tManyClients);
            await rep.case('errors reject with ErrorReply carrying Redis\'s messages', tErrors);
            await rep.case('string commands on a key of another type reject with WRONGTYPE', tWrongType);
            await rep.case('CONFIG GET/SET, INFO and SWAPDB through node-redis', tConfigInfo);
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
