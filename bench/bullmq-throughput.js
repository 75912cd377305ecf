/* bullmq-throughput.js -- BullMQ jobs per second, scratchpad-server and redis-server side by side.
 *
 * One producer adds JOBS small jobs (Queue.add, at most 100 outstanding) while
 * one Worker with concurrency CONCURRENCY processes them (a processor that
 * returns at once); the figure is JOBS divided by the time from the first add
 * to the last 'completed' event, and the time the adds alone took. Every job
 * is two or three Lua scripts on the server (addStandardJob, moveToFinished
 * which also fetches the next job) plus the worker's BZPOPMIN when idle.
 *
 * The servers run on CPU SERVER_CPU and the node load on BENCH_CPU (taskset),
 * each measurement on a freshly started server on a free port, the servers
 * alternating for ROUNDS rounds; the median is reported. Scratchpad runs with
 * its log off and on (appendfsync everysec), Redis with persistence off. Every
 * server is stopped by its PID. BullMQ comes from tests/clients/node
 * (sh tests/install-node-clients.sh). A benchmark, not a test: the report
 * (Markdown) goes to standard output.
 *
 *   node bench/bullmq-throughput.js
 *
 * Environment (all optional):
 *   SERVER, REDIS_SERVER   the binaries (default $BUILD/scratchpad-server, redis-server)
 *   JOBS, CONCURRENCY      jobs per measurement (10000), worker concurrency (10)
 *   ROUNDS                 rounds per server (default 3)
 *   SERVER_CPU, BENCH_CPU  CPUs to pin to (default 0 and 1) */
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const TOP = path.resolve(__dirname, '..');
const MODULES = process.env.NODE_PATH || path.join(TOP, 'tests', 'clients', 'node', 'node_modules');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* The load, run in a child process pinned to BENCH_CPU: prints one JSON line. */
async function load(port, jobs, concurrency) {
    const {Queue, Worker} = require(path.join(MODULES, 'bullmq'));
    const connection = {host: '127.0.0.1', port};
    const q = new Queue('bench', {connection});
    let done = 0;
    let finish;
    const allDone = new Promise((r) => { finish = r; });
    const w = new Worker('bench', async (job) => job.data.i, {connection, concurrency, drainDelay: 1});
    w.on('completed', () => {
        if (++done === jobs) finish();
    });
    await q.waitUntilReady();
    await w.waitUntilReady();
    const t0 = process.hrtime.bigint();
    const inflight = new Set();
    for (let i = 0; i < jobs; i++) {
        const p = q.add('small', {i, s: 'payload'}).then(() => inflight.delete(p));
        inflight.add(p);
        if (inflight.size >= 100) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    const tAdded = process.hrtime.bigint();
    await allDone;
    const t1 = process.hrtime.bigint();
    const counts = await q.getJobCounts('completed', 'failed');
    await w.close();
    await q.close();
    const sec = (a, b) => Number(b - a) / 1e9;
    process.stdout.write(JSON.stringify({total: sec(t0, t1), adds: sec(t0, tAdded), ...counts}) + '\n');
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const port = s.address().port;
            s.close(() => resolve(port));
        });
    });
}

function pingOnce(port) {
    return new Promise((resolve) => {
        const sock = net.connect(port, '127.0.0.1');
        const end = (v) => { sock.destroy(); resolve(v); };
        sock.setTimeout(500, () => end(false));
        sock.on('connect', () => sock.write('PING\r\n'));
        sock.on('data', (d) => end(d.toString().startsWith('+PONG')));
        sock.on('error', () => end(false));
    });
}

function pinned(cpu, argv) {
    return PIN ? ['taskset', ['-c', String(cpu), ...argv]] : [argv[0], argv.slice(1)];
}

const PIN = os.cpus().length >= 2 && childProcess.spawnSync('taskset', ['-V']).status === 0;

/* Start a server (kind: 'redis', 'sp-nolog', 'sp-log'), run the load, stop it by PID. */
async function measure(kind, opt) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bullmq-bench-'));
    const port = await freePort();
    const bin = kind === 'redis' ? opt.redis : opt.sp;
    const args = ['--port', String(port), '--bind', '127.0.0.1'];
    if (kind === 'redis') args.push('--save', '', '--appendonly', 'no');
    if (kind === 'sp-nolog') args.push('--appendonly', 'no');
    const [cmd, argv] = pinned(opt.serverCpu, [bin, ...args]);
    const log = fs.openSync(path.join(dir, 'server.log'), 'w');
    const srv = childProcess.spawn(cmd, argv, {cwd: dir, stdio: ['ignore', log, log]});
    fs.closeSync(log);
    const exited = new Promise((r) => srv.on('exit', r));
    try {
        const deadline = Date.now() + 10000;
        while (!(await pingOnce(port))) {
            if (Date.now() > deadline) throw new Error(`${kind} did not start on port ${port}`);
            await sleep(50);
        }
        const [lcmd, largv] = pinned(opt.benchCpu, [process.execPath, __filename, '--load', String(port),
            String(opt.jobs), String(opt.concurrency)]);
        const r = childProcess.spawnSync(lcmd, largv, {encoding: 'utf8', timeout: 600000,
            env: {...process.env, NODE_PATH: MODULES}});
        if (r.status !== 0) throw new Error(`load failed on ${kind}: ${r.stderr || r.error}`);
        return JSON.parse(r.stdout.trim().split('\n').pop());
    } finally {
        srv.kill('SIGTERM');
        await Promise.race([exited, sleep(10000)]);
        if (srv.exitCode === null && srv.signalCode === null) srv.kill('SIGKILL');
        fs.rmSync(dir, {recursive: true, force: true});
    }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
    const opt = {
        sp: process.env.SERVER || path.join(TOP, process.env.BUILD || 'build', 'scratchpad-server'),
        redis: process.env.REDIS_SERVER || 'redis-server',
        jobs: Number(process.env.JOBS || 10000),
        concurrency: Number(process.env.CONCURRENCY || 10),
        rounds: Number(process.env.ROUNDS || 3),
        serverCpu: process.env.SERVER_CPU || '0',
        benchCpu: process.env.BENCH_CPU || '1',
    };
    const kinds = ['sp-nolog', 'redis', 'sp-log'];
    const res = Object.fromEntries(kinds.map((k) => [k, []]));
    const load0 = os.loadavg()[0].toFixed(2);
    for (let round = 0; round < opt.rounds; round++) {
        for (const k of kinds) {
            const m = await measure(k, opt);
            if (m.completed !== opt.jobs || m.failed !== 0) throw new Error(`${k}: ${JSON.stringify(m)}`);
            res[k].push(m);
            process.stderr.write(`round ${round + 1} ${k}: ${(opt.jobs / m.total).toFixed(0)} jobs/s\n`);
        }
    }
    const rate = (k) => median(res[k].map((m) => opt.jobs / m.total));
    const addRate = (k) => median(res[k].map((m) => opt.jobs / m.adds));
    const bullmqVersion = require(path.join(MODULES, 'bullmq', 'package.json')).version;
    const out = [];
    out.push(`# BullMQ throughput: scratchpad-server vs redis-server`, '');
    out.push(`BullMQ ${bullmqVersion}, node ${process.version}; ${opt.jobs} jobs, worker concurrency ${opt.concurrency}, ` +
        `median of ${opt.rounds} rounds; ` + (PIN ? `servers on CPU ${opt.serverCpu}, node on CPU ${opt.benchCpu}` :
        'unpinned (no taskset or one CPU)') + `; load average ${load0} at the start, ` +
        `${os.loadavg()[0].toFixed(2)} at the end.`, '');
    out.push('| server | add+process jobs/s | adds/s (while processing) | vs redis |', '|---|---:|---:|---:|');
    const names = {'sp-nolog': 'scratchpad (log off)', 'redis': 'redis 7.0 (persistence off)', 'sp-log': 'scratchpad (log on)'};
    for (const k of kinds) {
        out.push(`| ${names[k]} | ${rate(k).toFixed(0)} | ${addRate(k).toFixed(0)} | ${(rate(k) / rate('redis')).toFixed(2)}x |`);
    }
    process.stdout.write(out.join('\n') + '\n');
}

if (process.argv[2] === '--load') {
    load(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])).catch((e) => {
        process.stderr.write(String(e.stack || e) + '\n');
        process.exit(1);
    });
} else {
    main().catch((e) => {
        process.stderr.write(String(e.stack || e) + '\n');
        process.exit(1);
    });
}
