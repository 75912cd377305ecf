/* bullmq.js -- BullMQ job queues on the server: Lua scripts, streams, blocking pops.
 *
 * BullMQ (from npm, in tests/clients/node) runs almost every operation as a
 * Lua script (EVALSHA) that also writes lists, sorted sets, hashes and the
 * queue's events stream (XADD ... MAXLEN ~); its workers block in BZPOPMIN on
 * a marker key and its QueueEvents reads the stream with XREAD BLOCK. The
 * cases make the calls an application makes: a Queue adds jobs and a Worker
 * processes them (data in, progress and return values out); a failing job is
 * retried with backoff, then failed; delayed jobs run after their delay;
 * priorities order the waiting jobs; QueueEvents sees the events; a worker
 * process killed with SIGKILL in the middle of a job loses its lock and
 * another worker completes the job; removeOnComplete, a job scheduler
 * (repeatable job) and getJobCounts. At the end the server is restarted and
 * must load from its log exactly the keys the scripts left (their writes are
 * logged as effects, not as the scripts).
 *
 * The server is scratchpad-server ($SERVER); with SERVER set to a
 * redis-server binary the same cases run against Redis, which checks the test
 * itself. Every queue, worker and client is closed and the server stopped by
 * PID, so the process exits by itself; every wait is bounded.
 *
 * Run as `node bullmq.js --child-worker PORT QUEUE LOCK_MS`, the file is the
 * worker process the kill case starts: it takes one job, prints
 * "started <id>" and then never finishes it. Its stalled check runs every
 * 300 ms like the other worker's (the first check of any worker holds the
 * queue's stalled-check key for its own interval). */
'use strict';

const childProcess = require('child_process');
const path = require('path');
const readline = require('readline');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, sleep} = sp;

const {Queue, Worker, QueueEvents, Job} = sp.requireClient('bullmq');

if (process.argv[2] === '--child-worker') {
    const [port, name, lockMs] = process.argv.slice(3);
    const w = new Worker(name, async (job) => {
        process.stdout.write(`started ${job.id}\n`);
        await new Promise(() => {});
    }, {connection: {host: '127.0.0.1', port: Number(port)}, lockDuration: Number(lockMs), stalledInterval: 300,
        drainDelay: 1});
    w.on('error', () => {});
    return;
}

let server;
const closers = []; /* queues, workers, queue events: closed at the end, newest first */

const conn = () => ({host: '127.0.0.1', port: server.port});

function track(x) {
    x.on('error', () => {}); /* errors surface through the awaited calls */
    closers.push(x);
    return x;
}

const newQueue = (name, opts = {}) => track(new Queue(name, {connection: conn(), ...opts}));
const newWorker = (name, fn, opts = {}) => track(new Worker(name, fn, {connection: conn(), drainDelay: 1, ...opts}));

async function newEvents(name) {
    const qe = track(new QueueEvents(name, {connection: conn(), blockingTimeout: 1000}));
    await qe.waitUntilReady();
    return qe;
}

async function closeAll() {
    for (const x of closers.splice(0).reverse()) {
        try {
            await sp.withTimeout(x.close(), 10000, 'close');
        } catch (e) {
            /* the server may be gone already */
        }
    }
}

/* Resolve once cond() is true; fail after ms. */
async function until(cond, ms, what) {
    const deadline = Date.now() + ms;
    while (!(await cond())) {
        if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
        await sleep(20);
    }
}

/* A promise for the first n events `ev` of emitter e; rejects after ms. */
function collect(e, ev, n, ms) {
    const got = [];
    const p = sp.withTimeout(new Promise((resolve) => {
        e.on(ev, (...args) => {
            got.push(args);
            if (got.length === n) resolve(got);
        });
    }), ms, `${n} '${ev}' events`);
    p.catch(() => {}); /* a case that fails before awaiting it must not end the program */
    return p;
}

async function tAddProcess() {
    const q = newQueue('basic');
    const qe = await newEvents('basic');
    const completedEvents = collect(qe, 'completed', 5, 20000);
    const progressEvents = collect(qe, 'progress', 5, 20000);
    for (let i = 1; i <= 5; i++) await q.add('double', {n: i, text: `job ${i}`});
    eq(await q.getJobCounts('waiting', 'active', 'completed'), {waiting: 5, active: 0, completed: 0},
        'counts before a worker runs');
    const w = newWorker('basic', async (job) => {
        await job.updateProgress({step: 'half', n: job.data.n});
        await job.log(`working on ${job.data.text}`);
        return {doubled: job.data.n * 2, name: job.name};
    });
    const done = collect(w, 'completed', 5, 20000);
    const byWorker = await done;
    eq(byWorker.map(([job, rv]) => rv.doubled).sort((a, b) => a - b), [2, 4, 6, 8, 10], 'return values seen by the worker');
    const events = await completedEvents;
    eq(events.map(([e]) => e.returnvalue.doubled).sort((a, b) => a - b), [2, 4, 6, 8, 10],
        'return values in the completed events of the stream');
    eq((await progressEvents).map(([e]) => e.data.step), ['half', 'half', 'half', 'half', 'half'], 'progress events');
    const job = await Job.fromId(q, events[0][0].jobId);
    eq(job.returnvalue.doubled, job.data.n * 2, 'the stored return value');
    eq(job.progress, {step: 'half', n: job.data.n}, 'the stored progress');
    eq(job.attemptsMade, 1, 'attempts made');
    eq(await job.getState(), 'completed', 'state');
    ok(job.finishedOn >= job.processedOn && job.processedOn >= job.timestamp, 'timestamps in order');
    eq((await q.getJobLogs(job.id)).logs, [`working on ${job.data.text}`], 'the job log');
    eq(await q.getJobCounts('waiting', 'active', 'completed', 'failed'), {waiting: 0, active: 0, completed: 5, failed: 0},
        'counts after');
    const j = await q.add('double', {n: 21, text: 'awaited'});
    eq((await j.waitUntilFinished(qe, 20000)).doubled, 42, 'waitUntilFinished through QueueEvents');
}

async function tRetries() {
    const q = newQueue('retry');
    const qe = await newEvents('retry');
    const failedEvent = collect(qe, 'failed', 1, 20000);
    const tries = {};
    const w = newWorker('retry', async (job) => {
        (tries[job.data.kind] = tries[job.data.kind] || []).push(Date.now());
        if (job.data.kind === 'flaky' && job.attemptsMade >= 2) return 'third time lucky';
        throw new Error(`boom ${job.data.kind} ${job.attemptsMade}`);
    });
    const failed = collect(w, 'failed', 5, 20000);
    const bad = await q.add('x', {kind: 'bad'}, {attempts: 3, backoff: {type: 'fixed', delay: 300}});
    const flaky = await q.add('x', {kind: 'flaky'}, {attempts: 5, backoff: {type: 'exponential', delay: 100}});
    await failed; /* bad fails 3 times, flaky twice */
    await until(async () => (await flaky.getState()) === 'completed', 10000, 'flaky completes');
    await until(async () => (await bad.getState()) === 'failed', 10000, 'bad fails');
    const b = await Job.fromId(q, bad.id);
    eq([b.attemptsMade, b.failedReason], [3, 'boom bad 2'], 'the failed job: attempts and reason');
    eq(b.stacktrace.length, 3, 'one stack trace per attempt');
    const f = await Job.fromId(q, flaky.id);
    eq([f.attemptsMade, f.returnvalue], [3, 'third time lucky'], 'the flaky job');
    const gaps = (t) => t.slice(1).map((x, i) => x - t[i]);
    ok(gaps(tries.bad).every((g) => g >= 290), `fixed backoff of 300 ms between attempts (${gaps(tries.bad)})`);
    const fg = gaps(tries.flaky);
    ok(fg[0] >= 90 && fg[1] >= 190, `exponential backoff of 100 ms, 200 ms (${fg})`);
    const [[ev]] = await failedEvent;
    eq([ev.jobId, ev.failedReason], [bad.id, 'boom bad 2'], 'the failed event in the stream');
    eq(await q.getJobCounts('failed', 'completed', 'delayed', 'waiting'), {failed: 1, completed: 1, delayed: 0, waiting: 0},
        'counts');
    eq((await q.getFailed()).map((j) => j.id), [bad.id], 'getFailed');
    await b.retry();
    await until(async () => (await b.getState()) === 'failed' && tries.bad.length === 4, 10000,
        'a failed job retried by hand runs again');
}

async function tDelayed() {
    const q = newQueue('delayed');
    const ran = {};
    const w = newWorker('delayed', async (job) => {
        ran[job.data.tag] = Date.now();
    });
    await w.waitUntilReady();
    const t0 = Date.now();
    const late = await q.add('d', {tag: 'late'}, {delay: 1200});
    const soon = await q.add('d', {tag: 'soon'}, {delay: 500});
    await q.add('d', {tag: 'now'});
    eq(await late.getState(), 'delayed', 'a delayed job waits in the delayed set');
    eq((await q.getJobCounts('delayed')).delayed, 2, 'two delayed');
    await until(() => ran.late !== undefined, 10000, 'the late job runs');
    ok(ran.now < ran.soon, 'the job without a delay runs first');
    ok(ran.soon - t0 >= 490, `500 ms delay respected (${ran.soon - t0} ms)`);
    ok(ran.late - t0 >= 1190, `1200 ms delay respected (${ran.late - t0} ms)`);
    ok(ran.soon < ran.late, 'in the order of their delays');
    await soon.changeDelay(0).catch(() => {}); /* already processed: an error, and nothing breaks */
    const again = await q.add('d', {tag: 'promoted'}, {delay: 60000});
    await again.promote();
    await until(() => ran.promoted !== undefined, 10000, 'a promoted delayed job runs at once');
}

async function tPriorities() {
    const q = newQueue('prio');
    const order = [];
    await q.add('p', {n: 'low'}, {priority: 10});
    await q.add('p', {n: 'none'});
    await q.add('p', {n: 'high'}, {priority: 1});
    await q.add('p', {n: 'mid'}, {priority: 5});
    await q.add('p', {n: 'high2'}, {priority: 1});
    eq(await q.getJobCounts('prioritized', 'waiting'), {prioritized: 4, waiting: 1}, 'counts');
    const w = newWorker('prio', async (job) => {
        order.push(job.data.n);
    }, {concurrency: 1});
    await until(() => order.length === 5, 10000, 'all five run');
    eq(order, ['none', 'high', 'high2', 'mid', 'low'], 'no priority first, then by priority, FIFO within one');
    await w.close();
}

async function tKilledWorker() {
    const name = 'stall';
    const LOCK_MS = 1500;
    const q = newQueue(name);
    const qe = await newEvents(name);
    const stalled = collect(qe, 'stalled', 1, 20000);
    const job = await q.add('long', {x: 1});
    const child = childProcess.spawn(process.execPath, [__filename, '--child-worker', String(server.port), name,
        String(LOCK_MS)], {stdio: ['ignore', 'pipe', 'inherit']});
    const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve(sig || code)));
    try {
        const started = await sp.withTimeout(new Promise((resolve) => {
            readline.createInterface({input: child.stdout}).on('line', (l) => {
                if (l.startsWith('started ')) resolve(l.slice(8));
            });
        }), 20000, 'the child worker starts the job');
        eq(started, job.id, 'the child took the job');
        eq(await job.getState(), 'active', 'the job is active');
        await sleep(LOCK_MS); /* the child keeps renewing its lock meanwhile */
        eq(await job.getState(), 'active', 'still active while its worker lives');
    } finally {
        process.kill(child.pid, 'SIGKILL');
    }
    eq(await exited, 'SIGKILL', 'the child was killed');
    const rescued = [];
    newWorker(name, async (j) => {
        rescued.push(j.id);
        return 'rescued';
    }, {lockDuration: LOCK_MS, stalledInterval: 300});
    await until(async () => (await job.getState()) === 'completed', 15000, 'another worker completes the job');
    eq(rescued, [job.id], 'the second worker ran it once');
    const [[ev]] = await stalled;
    eq(ev.jobId, job.id, 'the stalled event in the stream');
    const j = await Job.fromId(q, job.id);
    eq([j.returnvalue, j.stalledCounter], ['rescued', 1], 'return value and stalled counter');
}

async function tRemoveAndRepeat() {
    const q = newQueue('rm');
    const seen = [];
    const w = newWorker('rm', async (job) => {
        seen.push(job.name);
        return job.name;
    });
    const kept = await q.add('kept', {}, {removeOnComplete: false});
    const gone = await q.add('gone', {}, {removeOnComplete: true});
    await until(() => seen.length >= 2, 10000, 'both run');
    await until(async () => (await q.getJob(gone.id)) === undefined, 5000, 'removeOnComplete deletes the job');
    eq(await kept.getState(), 'completed', 'the other one is kept');
    for (let i = 0; i < 4; i++) await q.add('capped', {i}, {removeOnComplete: {count: 2}});
    await until(() => seen.filter((n) => n === 'capped').length === 4, 10000, 'the capped jobs run');
    await until(async () => (await q.getCompleted()).filter((j) => j.name === 'capped').length === 2, 5000,
        'removeOnComplete {count: 2} keeps the newest two');
    await q.upsertJobScheduler('tick', {every: 300}, {name: 'tick', data: {}});
    eq((await q.getJobSchedulers()).map((s) => [s.key, s.every]), [['tick', 300]], 'getJobSchedulers');
    await until(() => seen.filter((n) => n === 'tick').length >= 3, 10000, 'the job scheduler repeats every 300 ms');
    eq(await q.removeJobScheduler('tick'), true, 'removeJobScheduler');
    await sleep(400);
    const n = seen.filter((x) => x === 'tick').length;
    await sleep(700);
    eq(seen.filter((x) => x === 'tick').length, n, 'no more ticks once removed');
    await w.close();
}

async function tCountsAndClean() {
    const q = newQueue('counts');
    await q.add('a', {});
    await q.add('b', {}, {delay: 60000});
    await q.add('c', {}, {priority: 3});
    await q.pause();
    await q.add('d', {});
    eq(await q.getJobCounts(), {active: 0, completed: 0, delayed: 1, failed: 0, prioritized: 1, waiting: 2,
        'waiting-children': 0}, 'getJobCounts of a paused queue (paused jobs count as waiting)');
    eq(await q.isPaused(), true, 'isPaused');
    const w = newWorker('counts', async () => {});
    await w.waitUntilReady();
    await sleep(300);
    eq(await q.getJobCounts('waiting', 'completed'), {waiting: 2, completed: 0}, 'a paused queue gives its worker nothing');
    await w.close();
    await q.resume();
    eq(await q.getJobCounts('waiting', 'paused'), {waiting: 2, paused: 0}, 'resumed');
    await q.drain(true);
    eq(await q.getJobCounts('waiting', 'delayed', 'prioritized'), {waiting: 0, delayed: 0, prioritized: 0}, 'drained');
    await q.add('e', {});
    await q.obliterate({force: true});
    eq(await q.getJobCounts('waiting'), {waiting: 0}, 'obliterated');
}

/* Every key's type and contents, on a plain ioredis connection; keys with a
 * TTL (locks, the stalled-check key) are left out, as they may expire between
 * two snapshots (one that lost its TTL in the log would show up after). */
async function snapshot() {
    const Redis = sp.requireClient('ioredis');
    const r = new Redis({host: '127.0.0.1', port: server.port, retryStrategy: () => null, maxRetriesPerRequest: 0});
    r.on('error', () => {});
    try {
        const keys = (await r.keys('*')).sort();
        const out = {};
        for (const k of keys) {
            if ((await r.pttl(k)) !== -1) continue;
            const type = await r.type(k);
            let v;
            if (type === 'string') v = await r.get(k);
            else if (type === 'list') v = await r.lrange(k, 0, -1);
            else if (type === 'hash') v = Object.entries(await r.hgetall(k)).sort();
            else if (type === 'set') v = (await r.smembers(k)).sort();
            else if (type === 'zset') v = await r.zrange(k, 0, -1, 'WITHSCORES');
            else if (type === 'stream') v = [await r.xrange(k, '-', '+'), (await r.xinfo('STREAM', k)).slice(0, 12)];
            out[k] = [type, v];
        }
        return out;
    } finally {
        r.disconnect();
    }
}

async function tReplay() {
    const before = await snapshot();
    ok(Object.keys(before).length > 20, `the queues left keys behind (${Object.keys(before).length})`);
    await server.restart();
    const after = await snapshot();
    eq(Object.keys(after), Object.keys(before), 'the keys after the restart');
    for (const k of Object.keys(before)) eq(after[k], before[k], k);
}

async function main() {
    const rep = new sp.Reporter(180000);
    rep.onAbort = async () => {
        await closeAll();
        if (server) await server.stop();
    };
    const isRedis = /redis-server$/.test(process.env.SERVER || '');
    server = new sp.Server(isRedis ? ['--save', '', '--appendonly', 'no'] : []);
    try {
        await server.start();
    } catch (e) {
        rep.fail('the server starts and answers PING', e);
        rep.finish();
        return;
    }
    try {
        await rep.case('a Queue adds jobs, a Worker processes them: data, progress, logs and return values; QueueEvents sees them',
            tAddProcess);
        await rep.case('a failing job is retried with fixed and exponential backoff, then failed with its reason',
            tRetries);
        await rep.case('delayed jobs run after their delay, a promoted one at once', tDelayed);
        await rep.case('prioritized jobs run in priority order, FIFO within a priority', tPriorities);
        await rep.case('a worker killed with SIGKILL mid-job loses its lock; another worker completes the job',
            tKilledWorker);
        await rep.case('removeOnComplete deletes or caps completed jobs; a job scheduler repeats until removed',
            tRemoveAndRepeat);
        await rep.case('getJobCounts of waiting, delayed, prioritized, paused jobs; drain and obliterate',
            tCountsAndClean);
        await closeAll();
        await rep.case('the server is still running after all the cases', () => eq(server.alive(), true));
        if (isRedis) rep.skip('restarted, the server loads the same keys from its log', 'redis-server runs without one');
        else await rep.case('restarted, the server loads the same keys from its log', tReplay);
    } finally {
        await closeAll();
        const status = await server.stop();
        if (status !== 0) rep.fail('the server exits cleanly on SIGTERM', `exit status ${status}`);
    }
    rep.finish();
}

main();
