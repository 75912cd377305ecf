/* ioredis.js -- the server driven by ioredis the way node applications use it.
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and, through
 * ioredis, connects (ioredis sends CLIENT SETINFO and INFO at connect and waits
 * for loading:0, so connecting checks INFO), runs strings with the SET options,
 * pipeline() and multi() of thousands of commands, auto-pipelining, scanStream
 * over thousands of keys, millisecond expiry, Buffers with every byte value, a
 * 10 MB value, a WATCH/MULTI conflict, 50 concurrent clients, and checks the
 * ReplyError messages. Every client is quit and the server stopped, so the
 * process exits by itself; every case and the whole program are bounded. */
'use strict';

const path = require('path');
const crypto = require('crypto');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, expectError, sleep} = sp;

const Redis = sp.requireClient('ioredis');

let server;
const clients = [];

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

let R; /* the main client */

async function tConnect() {
    const r = await connect({connectionName: 'io-main', db: 0});
    eq(r.status, 'ready', 'status after connect');
    const info = await r.info();
    ok(/\r\nloading:0\r\n/.test(info), 'INFO has loading:0');
    ok(/\r\nredis_version:7\./.test(info), 'INFO has redis_version:7.x');
    eq(await r.client('GETNAME'), 'io-main', 'connectionName set by CLIENT SETNAME at connect');
    const me = await r.client('INFO');
    if (/lib-name=/.test(me)) ok(/lib-name=ioredis /.test(me), `CLIENT SETINFO LIB-NAME recorded: ${me}`);
    eq(await r.ping(), 'PONG');
    eq(await r.echo('hello'), 'hello');
    R = r;
    const d3 = await connect({db: 3});
    await d3.set('io:db3', 'x');
    eq(await R.get('io:db3'), null, 'a key of db 3 is not visible in db 0');
    eq(await d3.get('io:db3'), 'x', 'the db option selects the database at connect');
}

async function tStrings() {
    const r = R;
    eq(await r.set('io:s', 'v1'), 'OK');
    eq(await r.get('io:s'), 'v1');
    eq(await r.set('io:s', 'v2', 'NX'), null);
    eq(await r.set('io:s', 'v2', 'XX'), 'OK');
    eq(await r.set('io:nx', 'v', 'XX'), null);
    eq(await r.get('io:nx'), null);
    eq(await r.set('io:s', 'v3', 'EX', 100), 'OK');
    eq(await r.ttl('io:s'), 100);
    eq(await r.set('io:s', 'v4', 'PX', 5000, 'GET'), 'v3');
    const pttl = await r.pttl('io:s');
    ok(pttl > 4000 && pttl <= 5000, `PTTL ${pttl} in (4000, 5000]`);
    eq(await r.set('io:s', 'v5', 'KEEPTTL'), 'OK');
    ok((await r.pttl('io:s')) > 4000, 'KEEPTTL keeps the TTL');
    eq(await r.set('io:s', 'v6', 'PXAT', Date.now() + 60000), 'OK');
    ok((await r.ttl('io:s')) >= 59, 'PXAT sets the TTL');
    eq(await r.append('io:s', '-tail'), 7);
    eq(await r.strlen('io:s'), 7);
    eq(await r.getrange('io:s', -4, -1), 'tail');
    eq(await r.incr('io:n'), 1);
    eq(await r.incrby('io:n', 10), 11);
    eq(await r.decrby('io:n', 20), -9);
    eq(await r.incrbyfloat('io:f', '0.1'), '0.1');
    eq(await r.incrbyfloat('io:f', '0.2'), '0.3');
    eq(await r.mset({'io:m1': 'a', 'io:m2': 'b'}), 'OK');
    eq(await r.mget('io:m1', 'io:none', 'io:m2'), ['a', null, 'b']);
    eq(await r.getdel('io:m1'), 'a');
    eq(await r.getex('io:m2', 'PX', 10000), 'b');
    ok((await r.pttl('io:m2')) > 9000, 'GETEX PX sets the TTL');
    eq(await r.setnx('io:m2', 'x'), 0);
    eq(await r.msetnx('io:m2', 'x', 'io:m3', 'y'), 0);
    eq(await r.exists('io:m3'), 0);
    await expectError(r.set('io:s', 'v', 'EX', 0), "ERR invalid expire time in 'set' command");
    await expectError(r.set('io:s', 'v', 'NX', 'XX'), 'ERR syntax error');
}

async function tPipeline() {
    const r = R;
    const n = 5000;
    const p = r.pipeline();
    for (let i = 0; i < n; i++) p.set(`io:p:${i}`, i);
    for (let i = 0; i < n; i++) p.get(`io:p:${i}`);
    p.incr('io:p:0');
    p.incr('io:p:string-value-check');
    const res = await p.exec();
    eq(res.length, 2 * n + 2, 'pipeline results');
    for (let i = 0; i < n; i++) {
        if (res[i][0] || res[i][1] !== 'OK') throw new Error(`SET ${i}: ${res[i]}`);
        if (res[n + i][0] || res[n + i][1] !== String(i)) throw new Error(`GET ${i}: ${res[n + i]}`);
    }
    eq(res[2 * n], [null, 1]);
    eq(res[2 * n + 1], [null, 1]);
    /* An error in the middle: the others still answer. */
    await r.set('io:p:str', 'abc');
    const res2 = await r.pipeline().incr('io:p:str').get('io:p:str').exec();
    eq(res2[0][0] && res2[0][0].message, 'ERR value is not an integer or out of range');
    eq(res2[1], [null, 'abc']);
}

async function tMulti() {
    const r = R;
    const n = 3000;
    const m = r.multi();
    for (let i = 0; i < n; i++) m.incr('io:m:counter');
    m.get('io:m:counter');
    const res = await m.exec();
    eq(res.length, n + 1);
    eq(res[n - 1], [null, n]);
    eq(res[n], [null, String(n)]);
    /* A runtime error inside EXEC is per command. */
    await r.set('io:m:str', 'abc');
    const res2 = await r.multi().incr('io:m:str').set('io:m:after', '1').exec();
    eq(res2[0][0] && res2[0][0].message, 'ERR value is not an integer or out of range');
    eq(res2[1], [null, 'OK']);
    /* A queueing error aborts the whole transaction. */
    const e = await expectError(r.multi().set('io:m:x', '1').call('GET').exec(),
        'EXECABORT Transaction discarded because of previous errors.');
    ok(Array.isArray(e.previousErrors) && e.previousErrors.length === 1, 'previousErrors lists the queueing error');
    eq(e.previousErrors[0].message, "ERR wrong number of arguments for 'get' command");
    eq(await r.exists('io:m:x'), 0, 'nothing of an aborted transaction ran');
    /* multi({pipeline: false}) sends MULTI/EXEC as separate commands. */
    await r.multi({pipeline: false});
    eq(await r.set('io:m:np', '1'), 'QUEUED');
    eq(await r.exec(), [[null, 'OK']]);
}

async function tAutoPipelining() {
    const r = await connect({enableAutoPipelining: true});
    const n = 10000;
    const sets = [];
    for (let i = 0; i < n; i++) sets.push(r.set(`io:ap:${i}`, `v${i}`));
    eq((await Promise.all(sets)).every((x) => x === 'OK'), true, 'every SET answered OK');
    const gets = [];
    for (let i = 0; i < n; i++) gets.push(r.get(`io:ap:${i}`));
    const vals = await Promise.all(gets);
    for (let i = 0; i < n; i++) if (vals[i] !== `v${i}`) throw new Error(`GET ${i}: ${vals[i]}`);
    ok(r.autoPipelineQueueSize === 0, 'the auto-pipeline queue is drained');
}

async function tScanStream() {
    const r = await connect({db: 6});
    await r.flushdb();
    const n = 5000;
    const want = new Set();
    const p = r.pipeline();
    for (let i = 0; i < n; i++) {
        want.add(`io:scan:${i}`);
        p.set(`io:scan:${i}`, i);
    }
    for (let i = 0; i < 50; i++) p.set(`io:other:${i}`, i);
    await p.exec();
    const scan = (opts) => new Promise((resolve, reject) => {
        const got = [];
        const s = r.scanStream(opts);
        s.on('data', (keys) => got.push(...keys));
        s.on('end', () => resolve(got));
        s.on('error', reject);
    });
    const got = await scan({match: 'io:scan:*', count: 100});
    const gotSet = new Set(got);
    const missing = [...want].filter((k) => !gotSet.has(k));
    const extra = [...gotSet].filter((k) => !want.has(k));
    eq([missing.length, extra.length], [0, 0], 'missing and extra keys of SCAN MATCH');
    eq(new Set(await scan({count: 1000})).size, n + 50, 'SCAN without MATCH sees every key');
    eq(new Set(await scan({match: 'io:other:*', type: 'string'})).size, 50, 'SCAN TYPE string');
    eq(await r.dbsize(), n + 50);
    await r.flushdb();
    eq(await r.dbsize(), 0);
}

async function tExpiry() {
    const r = R;
    await r.set('io:e', 'v');
    eq(await r.pttl('io:e'), -1);
    eq(await r.pexpire('io:e', 1500), 1);
    const t = await r.pttl('io:e');
    ok(t > 1400 && t <= 1500, `PTTL ${t} after PEXPIRE 1500`);
    eq(await r.persist('io:e'), 1);
    eq(await r.ttl('io:e'), -1);
    eq(await r.pttl('io:none'), -2);
    await r.set('io:e2', 'v', 'PX', 100);
    await sleep(40);
    eq(await r.get('io:e2'), 'v', 'alive at 40 ms of 100');
    await sleep(110);
    eq(await r.get('io:e2'), null, 'gone at 150 ms of 100');
    eq(await r.exists('io:e2'), 0);
    const at = Date.now() + 30000;
    eq(await r.pexpireat('io:e', at), 1);
    eq(await r.pexpiretime('io:e'), at);
    eq(await r.expire('io:e', 10, 'GT'), 0);
    eq(await r.expire('io:e', 10, 'LT'), 1);
    eq(await r.ttl('io:e'), 10);
}

async function tBuffers() {
    const r = R;
    const all = Buffer.alloc(256);
    for (let i = 0; i < 256; i++) all[i] = i;
    eq(await r.set('io:bin', all), 'OK');
    eq(await r.getBuffer('io:bin'), all, 'all 256 byte values round-trip');
    eq(await r.strlen('io:bin'), 256);
    eq(await r.set(all, Buffer.from('value of a binary key')), 'OK');
    eq(await r.getBuffer(all), Buffer.from('value of a binary key'), 'a key with every byte value');
    eq(await r.getrangeBuffer('io:bin', 250, 255), all.subarray(250));
    eq(await r.append('io:bin', Buffer.from('\r\n$-1\r\n\0', 'latin1')), 256 + 8);
    eq((await r.getBuffer('io:bin')).subarray(256), Buffer.from('\r\n$-1\r\n\0', 'latin1'));
    const p = r.pipeline();
    for (let b = 0; b < 256; b++) p.set(Buffer.from([0x62, b]), Buffer.alloc(b + 1, b));
    await p.exec();
    const vals = await r.mgetBuffer(...Array.from({length: 256}, (_, b) => Buffer.from([0x62, b])));
    for (let b = 0; b < 256; b++) eq(vals[b], Buffer.alloc(b + 1, b), `value of key byte ${b}`);
}

async function tBigValue() {
    const r = R;
    const size = 10 * 1024 * 1024;
    const big = crypto.randomBytes(size);
    eq(await r.set('io:big', big), 'OK');
    eq(await r.strlen('io:big'), size);
    ok((await r.getBuffer('io:big')).equals(big), '10 MB random value round-trips');
    const text = Buffer.from('note: the agent remembered something\n'.repeat(Math.ceil(size / 37))).subarray(0, size);
    eq(await r.set('io:bigtxt', text), 'OK');
    ok((await r.getBuffer('io:bigtxt')).equals(text), '10 MB compressible value round-trips');
    eq(await r.getrangeBuffer('io:bigtxt', 5000000, 5000099), text.subarray(5000000, 5000100));
    await r.del('io:big', 'io:bigtxt');
}

async function tWatch() {
    const a = await connect();
    const b = await connect();
    await a.set('io:w', '1');
    eq(await a.watch('io:w'), 'OK');
    eq(await a.get('io:w'), '1');
    await b.set('io:w', '2');
    eq(await a.multi().set('io:w', '3').exec(), null, 'EXEC after a watched key changed');
    eq(await a.get('io:w'), '2');
    eq(await a.watch('io:w'), 'OK');
    eq(await a.multi().set('io:w', '4').exec(), [[null, 'OK']], 'EXEC with the watched key untouched');
    eq(await a.watch('io:w'), 'OK');
    eq(await a.unwatch(), 'OK');
    await b.set('io:w', '5');
    eq(await a.multi().set('io:w', '6').exec(), [[null, 'OK']], 'EXEC after UNWATCH');
    /* Contention: 10 clients x 50 optimistic increments, exact total. */
    await a.set('io:wc', '0');
    const workers = [];
    let retries = 0;
    for (let w = 0; w < 10; w++) {
        workers.push((async () => {
            const c = await connect();
            for (let i = 0; i < 50; i++) {
                for (;;) {
                    await c.watch('io:wc');
                    const v = Number(await c.get('io:wc'));
                    const res = await c.multi().set('io:wc', String(v + 1)).exec();
                    if (res) break;
                    retries++;
                }
            }
        })());
    }
    await Promise.all(workers);
    eq(await a.get('io:wc'), '500', `counter after 500 optimistic increments (${retries} retries)`);
}

async function tManyClients() {
    const n = 50;
    const cs = await Promise.all(Array.from({length: n}, (_, i) => connect({connectionName: `io-many-${i}`})));
    await R.set('io:many', 0);
    await Promise.all(cs.map(async (c, i) => {
        for (let j = 0; j < 100; j++) {
            await c.incr('io:many');
            await c.set(`io:many:${i}`, j);
        }
    }));
    eq(await R.get('io:many'), String(n * 100), 'counter after 50 clients x 100 INCR');
    const list = await R.client('LIST');
    const named = list.split('\n').filter((l) => / name=io-many-\d+ /.test(l)).length;
    eq(named, n, 'clients named io-many-* in CLIENT LIST');
    await Promise.all(cs.map((c) => c.quit()));
    const deadline = Date.now() + 5000;
    let left;
    do {
        left = (await R.client('LIST')).split('\n').filter((l) => / name=io-many-/.test(l)).length;
        if (left) await sleep(20);
    } while (left && Date.now() < deadline);
    eq(left, 0, 'clients left after QUIT');
}

async function tErrors() {
    const r = R;
    await expectError(r.call('GET'), "ERR wrong number of arguments for 'get' command");
    await expectError(r.call('FOOBAR', 'a', 'b'), "ERR unknown command 'FOOBAR', with args beginning with: 'a' 'b' ");
    await r.set('io:err', 'abc');
    await expectError(r.incr('io:err'), 'ERR value is not an integer or out of range');
    await expectError(r.incrbyfloat('io:err', 1), 'ERR value is not a valid float');
    await expectError(r.select(99), 'ERR DB index is out of range');
    await expectError(r.call('EXEC'), 'ERR EXEC without MULTI');
    await expectError(r.config('SET', 'nosuch', '1'), "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
    const e = await expectError(r.call('FOOBAR'), "ERR unknown command 'FOOBAR', with args beginning with: ");
    eq(e.name, 'ReplyError', 'error class');
    eq(await r.get('io:err'), 'abc', 'the connection still works after errors');
}

/* A key holding a non-string value: a scratchpad on Scratchpad, a list on Redis. */
async function makeNonString(r, key) {
    try {
        await r.call('SP.WRITE', key, 'notes.md', 'hello');
    } catch (e) {
        if (!/^ERR unknown command/.test(e.message)) throw e;
        await r.lpush(key, 'hello');
    }
}

async function tWrongType() {
    const r = R;
    const wt = 'WRONGTYPE Operation against a key holding the wrong kind of value';
    await makeNonString(r, 'io:wt');
    await expectError(r.get('io:wt'), wt, 'GET');
    await expectError(r.incr('io:wt'), wt, 'INCR');
    await expectError(r.append('io:wt', 'x'), wt, 'APPEND');
    const res = await r.pipeline().get('io:wt').set('io:wt2', 'v').exec();
    eq(res[0][0] && res[0][0].message, wt, 'WRONGTYPE in a pipeline');
    eq(res[1], [null, 'OK']);
    eq(await r.set('io:wt', 'v'), 'OK', 'SET replaces a value of another type');
}

async function tConfigInfo() {
    const r = R;
    eq(await r.config('GET', 'hz'), ['hz', '10']);
    eq(await r.config('SET', 'hz', '25'), 'OK');
    eq(await r.config('GET', 'hz'), ['hz', '25']);
    eq(await r.config('SET', 'hz', '10'), 'OK');
    const keyspace = await r.info('keyspace');
    ok(/\r\ndb0:keys=\d+,expires=\d+,avg_ttl=\d+\r\n/.test(keyspace), `INFO keyspace db0 line: ${JSON.stringify(keyspace)}`);
    const stats = await r.info('commandstats');
    ok(/\r\ncmdstat_exec:calls=\d+,/.test(stats), `INFO commandstats counts EXEC: ${JSON.stringify(stats.slice(0, 200))}`);
    const id = await r.client('ID');
    ok(Number.isInteger(id) && id > 0, 'CLIENT ID');
}

async function main() {
    const rep = new sp.Reporter(240000);
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
        if (await rep.case('ioredis connects: CLIENT SETINFO/SETNAME, INFO ready check with loading:0, SELECT', tConnect)) {
            await rep.case('strings with SET NX/XX/EX/PX/PXAT/KEEPTTL/GET and the other string commands', tStrings);
            await rep.case('pipeline() of 10k commands answers each in order, errors in place', tPipeline);
            await rep.case('multi() of 3k commands runs as one transaction; EXECABORT on queueing errors', tMulti);
            await rep.case('auto-pipelining of 20k concurrent commands answers each one', tAutoPipelining);
            await rep.case('scanStream over 5k keys returns every key, with MATCH, COUNT and TYPE', tScanStream);
            await rep.case('expiry in milliseconds: PEXPIRE/PTTL/PERSIST/PEXPIREAT/PEXPIRETIME, GT/LT', tExpiry);
            await rep.case('Buffer values and keys with every byte value round-trip', tBuffers);
            await rep.case('a 10 MB value round-trips as a Buffer', tBigValue, 120000);
            await rep.case('WATCH/MULTI conflicts return null and 10 contending clients count exactly', tWatch);
            await rep.case('50 concurrent clients each with its own connection count exactly', tManyClients);
            await rep.case('errors reject with ReplyError carrying Redis\'s messages', tErrors);
            await rep.case('string commands on a key of another type reject with WRONGTYPE', tWrongType);
            await rep.case('CONFIG GET/SET, INFO keyspace and CLIENT ID through ioredis', tConfigInfo);
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
