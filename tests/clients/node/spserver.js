/* spserver.js -- start and stop a scratchpad-server for a node test, and report cases.
 *
 * The node integration tests (tests/integration/ioredis.js, node_redis.js) use
 * this to run a server of their own: a free port on 127.0.0.1 (the kernel's
 * choice), a fresh temporary directory holding server.log, the binary named by
 * $SERVER (else <repo>/build/scratchpad-server), ready once PING answers. It is
 * stopped by its PID only: SIGTERM, then SIGKILL after a timeout.
 *
 * Reporter prints "ok - <sentence>" / "not ok - <sentence>" (the error
 * indented) per case, bounds every case and the whole program in time, and at
 * the end checks that the program would exit by itself: if anything (a client
 * left open) keeps the event loop alive, that is reported as a failure and the
 * process exits anyway.
 *
 * requireClient(name) loads a client from $NODE_PATH or tests/clients/node/node_modules,
 * so the tests also work when run directly with `node FILE`. */
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const TOP = path.resolve(__dirname, '..', '..', '..');

function requireClient(name) {
    const dirs = [process.env.NODE_PATH, path.join(__dirname, 'node_modules')].filter(Boolean);
    let last;
    for (const d of dirs) {
        try {
            return require(path.join(d, name));
        } catch (e) {
            last = e;
        }
    }
    throw last;
}

function serverBinary() {
    return process.env.SERVER || path.join(TOP, 'build', 'scratchpad-server');
}

/* A port nobody listens on right now. */
function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.unref();
        s.on('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const port = s.address().port;
            s.close(() => resolve(port));
        });
    });
}

/* Send PING on a new connection; resolve with the first reply line, reject on
 * error or after timeoutMs. */
function ping(port, timeoutMs) {
    return new Promise((resolve, reject) => {
        const sock = net.connect(port, '127.0.0.1');
        let buf = '';
        const done = (err, line) => {
            clearTimeout(timer);
            sock.destroy();
            if (err) reject(err);
            else resolve(line);
        };
        const timer = setTimeout(() => done(new Error('PING timed out')), timeoutMs);
        sock.on('connect', () => sock.write('*1\r\n$4\r\nPING\r\n'));
        sock.on('data', (d) => {
            buf += d.toString('latin1');
            const i = buf.indexOf('\r\n');
            if (i >= 0) done(null, buf.slice(0, i));
        });
        sock.on('error', (e) => done(e));
        sock.on('close', () => done(new Error('closed before a reply')));
    });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Server {
    constructor(extraArgs = [], opts = {}) {
        this.extraArgs = extraArgs.map(String);
        this.binary = opts.binary || serverBinary(); /* e.g. redis-server, for a differential test */
        this.startTimeout = opts.startTimeout || 10000;
        this.stopTimeout = opts.stopTimeout || 10000;
        this.proc = null;
        this.port = null;
        this.dir = null;
        this.exitStatus = undefined;
    }

    /* Start and wait for PING; rejects with the end of the log on failure.
     * samePort: start again on the port and in the directory of the last run
     * (a restart underneath clients). */
    async start(samePort = false) {
        if (!samePort) this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-node-test-'));
        this.logPath = path.join(this.dir, 'server.log');
        return this.spawnReady(samePort ? this.port : undefined);
    }

    /* Stop the server (SIGTERM) and start it again in the same directory, so
     * it loads what it logged; on the same port if that is still free. */
    async restart() {
        await this.kill();
        return this.spawnReady(this.port);
    }

    async spawnReady(port) {
        for (let attempt = 0; attempt < 3; attempt++) {
            this.port = attempt === 0 && port ? port : await freePort();
            const log = fs.openSync(this.logPath, 'a');
            this.exitStatus = undefined;
            this.proc = childProcess.spawn(this.binary,
                ['--port', String(this.port), '--bind', '127.0.0.1', '--enable-debug-command', 'yes',
                    ...this.extraArgs],
                {cwd: this.dir, stdio: ['ignore', log, log]});
            fs.closeSync(log);
            this.exited = new Promise((resolve) => {
                this.proc.on('exit', (code, sig) => {
                    this.exitStatus = sig ? sig : code;
                    resolve(this.exitStatus);
                });
                this.proc.on('error', (e) => {
                    this.exitStatus = String(e);
                    resolve(this.exitStatus);
                });
            });
            if (await this.waitReady()) return this;
            await this.kill();
            if (!/in use/.test(this.logTail())) break;
        }
        throw new Error(`server did not answer PING on port ${this.port}; log:\n${this.logTail()}`);
    }

    async waitReady() {
        const deadline = Date.now() + this.startTimeout;
        while (Date.now() < deadline) {
            if (this.exitStatus !== undefined) return false;
            try {
                const line = await ping(this.port, 1000);
                if (line === '+PONG' || line.startsWith('-NOAUTH')) return true;
            } catch (e) {
                /* not listening yet */
            }
            await sleep(20);
        }
        return false;
    }

    logTail(n = 40) {
        try {
            return fs.readFileSync(this.logPath, 'latin1').split('\n').slice(-n).join('\n');
        } catch (e) {
            return '';
        }
    }

    alive() {
        return this.proc !== null && this.exitStatus === undefined;
    }

    /* SIGTERM by PID, SIGKILL after stopTimeout; resolves with the exit code,
     * the signal name, or null if it had to be killed. */
    async kill() {
        if (!this.proc) return null;
        const pid = this.proc.pid;
        let status = this.exitStatus;
        if (status === undefined) {
            try {
                process.kill(pid, 'SIGTERM');
            } catch (e) {
                /* already gone */
            }
            let timer;
            const timeout = new Promise((r) => { timer = setTimeout(() => r('timeout'), this.stopTimeout); });
            status = await Promise.race([this.exited, timeout]);
            clearTimeout(timer);
            if (status === 'timeout') {
                try {
                    process.kill(pid, 'SIGKILL');
                } catch (e) {
                    /* already gone */
                }
                await this.exited;
                status = null;
            }
        }
        this.proc = null;
        return status;
    }

    /* Stop the server and remove its directory (kept if $KEEP_TEST_DIRS). */
    async stop() {
        const status = await this.kill();
        if (this.dir && !process.env.KEEP_TEST_DIRS) fs.rmSync(this.dir, {recursive: true, force: true});
        return status;
    }
}

function withTimeout(promise, ms, what) {
    let timer;
    const t = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    });
    return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

class Reporter {
    /* limitMs bounds the whole program: past it, "not ok" is printed, onAbort
     * (e.g. stopping the server) runs and the process exits with status 1. */
    constructor(limitMs = 240000) {
        this.passed = 0;
        this.failed = 0;
        this.onAbort = null;
        this.watchdog = setTimeout(() => this.abort(`the program did not finish within ${limitMs} ms`), limitMs);
        this.watchdog.unref();
    }

    async abort(why) {
        this.print(false, why, '');
        try {
            if (this.onAbort) await withTimeout(Promise.resolve(this.onAbort()), 15000, 'clean-up');
        } finally {
            process.exit(1);
        }
    }

    print(ok, sentence, err) {
        process.stdout.write(`${ok ? 'ok' : 'not ok'} - ${sentence}\n`);
        if (!ok && err) {
            const text = err && err.stack ? err.stack : String(err);
            process.stdout.write(text.split('\n').map((l) => '    ' + l).join('\n') + '\n');
        }
    }

    /* Run fn (async) bounded by timeoutMs; report it. Returns true if it passed. */
    async case(sentence, fn, timeoutMs = 60000) {
        try {
            await withTimeout(Promise.resolve().then(fn), timeoutMs, 'the case');
        } catch (e) {
            this.failed++;
            this.print(false, sentence, e);
            return false;
        }
        this.passed++;
        this.print(true, sentence);
        return true;
    }

    fail(sentence, err) {
        this.failed++;
        this.print(false, sentence, err);
    }

    skip(sentence, why) {
        process.stdout.write(`ok - ${sentence} # SKIP ${why}\n`);
    }

    /* Set the exit status, then check that nothing keeps the process alive:
     * an unref'd timer only fires if some other handle is still open. */
    finish() {
        clearTimeout(this.watchdog);
        process.exitCode = this.failed ? 1 : 0;
        const t = setTimeout(() => {
            const handles = process._getActiveHandles ? process._getActiveHandles().map((h) => h.constructor.name) : [];
            this.print(false, 'the program exits by itself once the cases are done',
                       `still open: ${handles.join(', ')}`);
            process.exit(1);
        }, 5000);
        t.unref();
    }
}

/* Assertions: eq compares with deep equality for arrays/objects/Buffers. */
function eq(got, want, what = 'value') {
    const util = require('util');
    if (!util.isDeepStrictEqual(got, want)) {
        const show = (v) => (Buffer.isBuffer(v) && v.length > 64 ? `<Buffer of ${v.length} bytes>` : util.inspect(v, {depth: 4}));
        throw new Error(`${what}: got ${show(got)}, want ${show(want)}`);
    }
}

function ok(cond, what) {
    if (!cond) throw new Error(`${what}: not true`);
}

/* await expectError(promise, message): the promise must reject with exactly message. */
async function expectError(promise, message, what = 'error') {
    let got;
    try {
        got = await promise;
    } catch (e) {
        eq(e.message, message, `${what} message`);
        return e;
    }
    throw new Error(`${what}: no error (reply ${require('util').inspect(got)}), want ${JSON.stringify(message)}`);
}

/* node-redis clients (v4 or v5: the module is given) that do not reconnect,
 * kept in a list so that quitAll() ends every one. */
class NodeRedisClients {
    constructor(lib) {
        this.lib = lib;
        this.list = [];
    }

    /* A client connected to port (opts added to createClient's); its errors
     * surface through the commands' promises. */
    async connect(port, opts = {}) {
        const c = this.lib.createClient({
            ...opts,
            socket: {host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 10000, ...(opts.socket || {})},
        });
        c.on('error', () => {});
        this.list.push(c);
        await c.connect();
        return c;
    }

    /* A duplicate() of c, connected, ended by quitAll like the others. */
    async dup(c) {
        const d = c.duplicate();
        d.on('error', () => {});
        this.list.push(d);
        await d.connect();
        return d;
    }

    /* QUIT every open client (bounded), else close it. */
    async quitAll() {
        for (const c of this.list.splice(0)) {
            if (!c.isOpen) continue;
            try {
                await withTimeout(c.quit(), 5000, 'QUIT');
            } catch (e) {
                try {
                    if (c.destroy) c.destroy();
                    else await c.disconnect();
                } catch (e2) {
                    /* already closed */
                }
            }
        }
    }
}

module.exports = {Server, Reporter, NodeRedisClients, requireClient, freePort, sleep, withTimeout, eq, ok, expectError};
