/* scripts_node.js -- Lua scripts driven by ioredis and node-redis.
 *
 * Starts a server of its own (tests/clients/node/spserver.js) and makes the
 * calls applications make for scripts: ioredis's defineCommand (a custom
 * command that runs EVALSHA, falls back to EVAL on NOSCRIPT, and works in a
 * pipeline and in multi()), eval with keys and arguments, a script error as a
 * rejected promise; node-redis's scriptLoad, evalSha with keys and arguments,
 * scriptExists, scriptFlush then evalSha rejected with NOSCRIPT, and eval.
 * Every case asserts the exact values the client returns. Every client is quit
 * and the server stopped, so the process exits by itself. */
'use strict';

const path = require('path');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, expectError} = sp;

const Redis = sp.requireClient('ioredis');
const nodeRedis = sp.requireClient('redis');

const sha1 = (s) => require('crypto').createHash('sha1').update(s).digest('hex');

let server;
const ioClients = [];
const nrClients = [];

async function ioConnect() {
    const r = new Redis({host: '127.0.0.1', port: server.port, lazyConnect: true, retryStrategy: () => null,
        maxRetriesPerRequest: 0, connectTimeout: 10000});
    r.on('error', () => {});
    ioClients.push(r);
    await r.connect();
    return r;
}

async function nrConnect() {
    const c = nodeRedis.createClient({socket: {host: '127.0.0.1', port: server.port, reconnectStrategy: false,
        connectTimeout: 10000}});
    c.on('error', () => {});
    nrClients.push(c);
    await c.connect();
    return c;
}

const INCR_CAPPED = `
local v = redis.call('INCR', KEYS[1])
if v > tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
return v`;

async function tDefineCommand() {
    const r = await ioConnect();
    r.defineCommand('incrCapped', {numberOfKeys: 1, lua: INCR_CAPPED});
    await r.del('js:cap');
    eq(await r.incrCapped('js:cap', 2), 1, 'first call (EVALSHA falls back to EVAL)');
    eq(await r.incrCapped('js:cap', 2), 2, 'second call');
    eq(await r.incrCapped('js:cap', 2), 2, 'capped');
    await r.script('FLUSH');
    eq(await r.incrCapped('js:cap', 5), 3, 'after SCRIPT FLUSH: NOSCRIPT, then EVAL again');
    const p = await r.pipeline().incrCapped('js:cap', 5).incrCapped('js:cap', 5).get('js:cap').exec();
    eq(p, [[null, 4], [null, 5], [null, '5']], 'in a pipeline');
    const m = await r.multi().incrCapped('js:cap', 9).incrCapped('js:cap', 9).exec();
    eq(m, [[null, 6], [null, 7]], 'in multi()');
    eq(await r.eval('return {KEYS[1], ARGV[1], redis.call("GET", KEYS[1])}', 1, 'js:cap', 'a'),
        ['js:cap', 'a', '7'], 'eval with keys and arguments');
    const body = 'return redis.call("INCR", KEYS[1])';
    await r.set('js:s0', 'x');
    await expectError(r.eval(body, 1, 'js:s0'),
        `ERR value is not an integer or out of range script: ${sha1(body)}, on @user_script:1.`,
        'a script error rejects the promise');
}

async function tNodeRedis() {
    const c = await nrConnect();
    const body = 'return redis.call("SET", KEYS[1], ARGV[1])';
    const sha = await c.scriptLoad(body);
    eq(sha, sha1(body), 'scriptLoad gives the SHA1 of the body');
    eq(await c.evalSha(sha, {keys: ['nr:k'], arguments: ['v1']}), 'OK', 'evalSha with keys and arguments');
    eq(await c.get('nr:k'), 'v1');
    eq(await c.scriptExists([sha, '0000000000000000000000000000000000000000']), [true, false], 'scriptExists');
    eq(await c.eval('return {1, "two", {3}}'), [1, 'two', [3]], 'eval of nested tables');
    eq(await c.evalRo('return redis.call("GET", KEYS[1])', {keys: ['nr:k']}), 'v1', 'evalRo');
    eq(await c.scriptFlush(), 'OK');
    await expectError(c.evalSha(sha, {keys: ['nr:k'], arguments: ['v2']}),
        'NOSCRIPT No matching script. Please use EVAL.', 'evalSha after scriptFlush');
}

async function main() {
    const rep = new sp.Reporter(120000);
    rep.onAbort = async () => {
        ioClients.forEach((c) => c.disconnect());
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
        await rep.case('ioredis defineCommand runs EVALSHA (EVAL on NOSCRIPT), in pipelines and multi()', tDefineCommand);
        await rep.case('node-redis scriptLoad, evalSha, scriptExists, evalRo, scriptFlush then NOSCRIPT', tNodeRedis);
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
    } finally {
        for (const r of ioClients.splice(0)) {
            try { await sp.withTimeout(r.quit(), 5000, 'QUIT'); } catch (e) { r.disconnect(); }
        }
        for (const c of nrClients.splice(0)) {
            try { await sp.withTimeout(c.quit(), 5000, 'QUIT'); } catch (e) { /* closed */ }
        }
        const status = await server.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
