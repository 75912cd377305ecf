/* mcp_sdk.js -- scratchpad-mcp driven by the official MCP TypeScript SDK client.
 *
 * @modelcontextprotocol/sdk (installed into tests/clients/node by
 * tests/install-node-clients.sh) connects over both transports: stdio (the SDK
 * launches build/scratchpad-mcp as a harness does) and Streamable HTTP
 * (scratchpad-mcp --http on a free port). Over each: initialize, the tools
 * listed equal to the generated table, every tool called (good calls, and an
 * error of each kind as an isError result; an agent's cycle: snapshot, write
 * with metadata, diff, history, an earlier version read and reverted, restore),
 * resources (list, templates,
 * read), the guidance prompt, ping, and an unknown tool refused; over HTTP two
 * SDK clients at once that cannot see each other's namespace, and a session
 * ended by the client. Over each transport also: a lease call waiting
 * (wait_ms) cancelled through the SDK's AbortSignal (notifications/cancelled)
 * ends at once while the session goes on and other requests are answered
 * meanwhile; the scratchpad server restarted underneath the session; over
 * HTTP, malformed JSON-RPC answered with a clear error and the session going
 * on. Starts its own scratchpad-server; stops what it starts. */
'use strict';

const path = require('path');
const {spawn, execFileSync} = require('child_process');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, sleep} = sp;

const SDK = '@modelcontextprotocol/sdk/dist/cjs/client';
const {Client} = sp.requireClient(`${SDK}/index.js`);
const {StdioClientTransport} = sp.requireClient(`${SDK}/stdio.js`);
const {StreamableHTTPClientTransport} = sp.requireClient(`${SDK}/streamableHttp.js`);

const TOP = path.resolve(__dirname, '..', '..');
const MCP = path.join(TOP, process.env.BUILD || 'build', 'scratchpad-mcp');
const generated = JSON.parse(execFileSync(MCP, ['--print-tools', 'mcp']).toString());

async function sdkClient(transport) {
    const c = new Client({name: 'sdk-test', version: '1.0.0'});
    await c.connect(transport);
    return c;
}

function text(res) {
    eq(res.content.length, 1, 'one content item');
    eq(res.content[0].type, 'text', 'a text item');
    return res.content[0].text;
}

/* Every tool, in a session's order: [tool, args, expected substring]. */
const GOOD = [
    ['scratchpad_list', {}, 'No entries.'],
    ['scratchpad_write', {name: 'plan', content: '- [ ] one\n- [ ] two\n'}, 'version 1'],
    ['scratchpad_append', {name: 'plan', content: '- [ ] three\n'}, 'long'],
    ['scratchpad_read', {name: 'plan', limit: 5}, 'continue with offset=5'],
    ['scratchpad_view', {name: 'plan', mode: 'lines', start: 2, end: 2}, '- [ ] two'],
    ['scratchpad_peek', {name: 'plan'}, '- [ ] one'],
    ['scratchpad_grep', {name: 'plan', pattern: 'two|three'}, '2 matching lines'],
    ['scratchpad_edit', {name: 'plan', old_string: '[ ] one', new_string: '[x] one'}, '1 replacement'],
    ['scratchpad_insert', {name: 'plan', line: 0, content: '# plan'}, 'version 4'],
    ['scratchpad_stat', {name: 'plan'}, 'lines: 4'],
    ['scratchpad_lease', {resource: 'plan', holder: 'sdk', ttl_ms: 60000}, 'with token'],
    ['scratchpad_changes', {since: 0}, "insert 'plan' version 4"],
    ['scratchpad_snapshot', {label: 'before'}, "Snapshot 'before' taken: 1 entry."],
    ['scratchpad_write', {name: 'found', content: 'a\n', metadata: {tool: 'grep'}}, "'found' is at version 1"],
    ['scratchpad_edit', {name: 'plan', old_string: '# plan', new_string: '# the plan'}, 'version 5'],
    ['scratchpad_diff', {from: 'before'}, "2 entries differ from 'before' to 'NOW':\nadded 'found' (version 1, 2 bytes)"],
    ['scratchpad_diff', {from: 'before', name: 'plan'}, '-# plan\n+# the plan\n'],
    ['scratchpad_history', {name: 'plan'}, 'version 5 (current)'],
    ['scratchpad_read', {name: 'plan', version: 4, limit: 6}, 'continue with offset=6, version=4'],
    ['scratchpad_revert', {name: 'plan', version: 4}, 'has the content of version 4 again, as version 6'],
    ['scratchpad_metadata', {name: 'found', set: {status: 'ok'}}, 'now at version 2'],
    ['scratchpad_list', {where: {tool: 'grep'}, with_metadata: true}, '{"status":"ok","tool":"grep"}'],
    ['scratchpad_snapshots', {}, "'before': taken "],
    ['scratchpad_restore', {label: 'before'}, "Restored snapshot 'before': 2 entries changed"],
    ['scratchpad_drop_snapshot', {label: 'before'}, "Dropped snapshot 'before'."],
    ['scratchpad_write', {name: 'tmp', content: 'x'}, 'version 1'],
    ['scratchpad_delete', {name: 'tmp'}, "Deleted 'tmp'."],
];
const BAD = [
    ['scratchpad_write', {name: 'a//b', content: 'x'}, 'invalid entry name'],
    ['scratchpad_write', {name: 'plan'}, "missing required argument 'content'"],
    ['scratchpad_read', {name: 'nope'}, "no entry 'nope'"],
    ['scratchpad_edit', {name: 'plan', old_string: 'absent', new_string: 'x'}, 'not found'],
    ['scratchpad_write', {name: 'plan', content: 'x', if_version: 1}, 'VERSION'],
    ['scratchpad_lease', {resource: 'plan', holder: 'other', ttl_ms: 1000}, 'LEASED'],
    ['scratchpad_release', {resource: 'plan', holder: 'other', token: 1}, 'not released'],
    ['scratchpad_snapshot', {label: 'NOW'}, 'NOW is reserved'],
    ['scratchpad_diff', {from: 'nosuch'}, "no such snapshot 'nosuch'"],
    ['scratchpad_diff', {from: 'NOW', name: 'nope'}, "no entry 'nope' in 'NOW' or in 'NOW'"],
    ['scratchpad_restore', {label: 'nosuch'}, "no such snapshot 'nosuch'"],
    ['scratchpad_drop_snapshot', {label: 'nosuch'}, "no snapshot 'nosuch' to drop"],
    ['scratchpad_history', {name: 'nope'}, "no entry 'nope'"],
    ['scratchpad_read', {name: 'plan', version: 1}, "no version 1 of entry 'plan'"],
    ['scratchpad_read', {name: 'plan', version: 1, regex: 'x'}, "argument 'version' does not go with 'regex'"],
    ['scratchpad_revert', {name: 'plan', version: 1}, "no version 1 of entry 'plan'"],
    ['scratchpad_metadata', {name: 'plan', set: {'bad field': 'x'}}, "invalid field name 'bad field'"],
    ['scratchpad_metadata', {name: 'plan', set: {a: 'x'.repeat(4096)}}, 'at most 4096 bytes'],
    ['scratchpad_metadata', {name: 'plan', clear: true, set: {a: 'b'}}, "argument 'set' does not go with 'clear'"],
];

async function wholeSession(c, uriPrefix) {
    const listed = await c.listTools();
    eq(JSON.parse(JSON.stringify(listed.tools)), generated, 'tools/list');
    for (const [name, args, want] of GOOD) {
        const res = await c.callTool({name, arguments: args});
        const t = text(res);
        ok(!res.isError && t.includes(want), `${name} ${JSON.stringify(args)}: ${t}`);
    }
    for (const [name, args, want] of BAD) {
        const res = await c.callTool({name, arguments: args});
        const t = text(res);
        ok(res.isError && t.includes(want), `${name} ${JSON.stringify(args)} is an error: ${t}`);
    }
    let refused = false;
    try {
        await c.callTool({name: 'scratchpad_nope', arguments: {}});
    } catch (e) {
        refused = /Unknown tool/.test(String(e.message));
    }
    ok(refused, 'an unknown tool is a JSON-RPC error');
    const res = await c.listResources();
    ok(res.resources.some((r) => r.uri === uriPrefix + 'plan'), `resources list ${uriPrefix}plan`);
    const read = await c.readResource({uri: uriPrefix + 'plan'});
    ok(read.contents[0].text.startsWith('# plan\n'), 'resources/read gives the entry');
    const tmpl = await c.listResourceTemplates();
    eq(tmpl.resourceTemplates[0].uriTemplate, uriPrefix + '{name}', 'the template');
    const prompt = await c.getPrompt({name: 'scratchpad_guidance'});
    ok(prompt.messages[0].content.text.includes('scratchpad_list'), 'the guidance prompt');
    await c.ping();
}

/* A lease held by someone else, a call waiting for it cancelled by the SDK; meanwhile `meanwhile()` is answered. */
async function cancelWait(c, ns, server, meanwhile) {
    const redis = new (sp.requireClient('ioredis'))({port: server.port, lazyConnect: true});
    await redis.connect();
    try {
        await redis.call('SP.LEASE', ns, 'wait', 'other', 60000);
        const ac = new AbortController();
        const t0 = Date.now();
        const call = c.callTool({name: 'scratchpad_lease', arguments: {resource: 'wait', holder: 'me', ttl_ms: 60000,
                                                                      wait_ms: 30000}},
                                undefined, {signal: ac.signal, timeout: 40000});
        await sleep(300);
        await meanwhile();
        ok(Date.now() - t0 < 2500, `served while the call waits (${Date.now() - t0} ms)`);
        ac.abort('test');
        let aborted = false;
        try {
            await call;
        } catch (e) {
            aborted = true;
        }
        ok(aborted, 'the call was aborted');
        await sleep(500); /* the SDK rejects at once; its notifications/cancelled is still on its way */
        /* the server's wait ended too: once other releases, nobody took the lease for 'me' */
        const held = await redis.call('SP.LEASE', ns, 'wait', 'other', 60000);
        await redis.call('SP.RELEASE', ns, 'wait', 'other', Array.isArray(held) ? held[0] : held);
        await sleep(200);
        const third = await c.callTool({name: 'scratchpad_lease', arguments: {resource: 'wait', holder: 'third',
                                                                             ttl_ms: 1000}});
        ok(!third.isError, `the lease is free after the cancelled wait: ${text(third)}`);
        ok(Date.now() - t0 < 10000, 'all within 10 s of a 30 s wait');
    } finally {
        redis.disconnect();
    }
}

/* The scratchpad server stopped and started again on its port under session c. */
async function restartUnder(c, server) {
    await server.kill();
    const down = await c.callTool({name: 'scratchpad_list', arguments: {}});
    ok(down.isError && /unavailable|lost/.test(text(down)), `server down: ${text(down)}`);
    await server.start(true);
    let res;
    for (let i = 0; i < 2; i++) { /* the first call may still meet the broken connection */
        res = await c.callTool({name: 'scratchpad_write', arguments: {name: 'after', content: 'restart'}});
        if (!res.isError) break;
    }
    ok(!res.isError, `served again: ${text(res)}`);
    await c.ping();
}

async function main() {
    const r = new sp.Reporter(120000);
    const server = new sp.Server();
    let http = null;
    r.onAbort = async () => {
        if (http) http.kill('SIGKILL');
        await server.stop();
    };
    await server.start();
    const url = `redis://127.0.0.1:${server.port}/0`;

    await r.case('over stdio, the SDK client runs a whole session: tools, errors, resources, prompt, ping',
                 async () => {
                     const t = new StdioClientTransport({command: MCP, args: ['--url', url, '--namespace', 'sdk-stdio'],
                                                         stderr: 'ignore'});
                     const c = await sdkClient(t);
                     try {
                         eq(c.getServerVersion().name, 'scratchpad-mcp', 'serverInfo');
                         await wholeSession(c, 'scratchpad://sdk-stdio/');
                     } finally {
                         await c.close();
                     }
                 });

    await r.case('over stdio, a lease call waiting is cancelled through the SDK (notifications/cancelled) and ends ' +
                 'at once, a ping answered meanwhile; the scratchpad server restarted underneath, then service again',
                 async () => {
                     const t = new StdioClientTransport({command: MCP, args: ['--url', url, '--namespace', 'sdk-cancel'],
                                                         stderr: 'ignore'});
                     const c = await sdkClient(t);
                     try {
                         await cancelWait(c, 'sdk-cancel', server, () => c.ping());
                         await restartUnder(c, server);
                     } finally {
                         await c.close();
                     }
                 });

    const port = await sp.freePort();
    http = spawn(MCP, ['--http', `127.0.0.1:${port}`, '--url', url], {stdio: ['ignore', 'ignore', 'ignore']});
    const exited = new Promise((resolve) => http.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 200; i++) {
        try {
            await fetch(`http://127.0.0.1:${port}/mcp`, {method: 'GET'});
            break;
        } catch (e) {
            await sleep(25);
        }
    }
    const endpoint = new URL(`http://127.0.0.1:${port}/mcp`);

    await r.case('over Streamable HTTP, the same session; a second SDK client at once cannot see the first one\'s ' +
                 'namespace; a session the client ends is gone', async () => {
        const ta = new StreamableHTTPClientTransport(endpoint);
        const tb = new StreamableHTTPClientTransport(endpoint);
        const a = await sdkClient(ta);
        const b = await sdkClient(tb);
        try {
            ok(ta.sessionId && tb.sessionId && ta.sessionId !== tb.sessionId, 'two sessions');
            await wholeSession(a, `scratchpad://mcp%3A${ta.sessionId}/`);
            const res = await b.callTool({name: 'scratchpad_read', arguments: {name: 'plan'}});
            ok(res.isError && text(res).includes("no entry 'plan'"), 'b does not see a\'s plan');
            eq((await b.listResources()).resources.length, 0, 'b lists nothing');
            const gone = ta.sessionId;
            await ta.terminateSession();
            const status = (await fetch(endpoint, {method: 'POST', headers: {
                'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
                'Mcp-Session-Id': gone}, body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping'})})).status;
            eq(status, 404, 'the ended session is unknown');
        } finally {
            await a.close().catch(() => {});
            await b.close();
        }
    });

    await r.case('over Streamable HTTP, a lease call waiting holds only its session (another answers meanwhile) and is ' +
                 'cancelled through the SDK; malformed JSON-RPC gets a clear error and the session goes on; the ' +
                 'scratchpad server restarted underneath', async () => {
        const ta = new StreamableHTTPClientTransport(endpoint);
        const tb = new StreamableHTTPClientTransport(endpoint);
        const a = await sdkClient(ta);
        const b = await sdkClient(tb);
        try {
            await cancelWait(a, `mcp:${ta.sessionId}`, server, async () => {
                const res = await b.callTool({name: 'scratchpad_write', arguments: {name: 'n', content: 'x'}});
                ok(!res.isError, 'the other session is served');
            });
            const post = async (body) => {
                const resp = await fetch(endpoint, {method: 'POST', headers: {
                    'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
                    'Mcp-Session-Id': ta.sessionId, 'MCP-Protocol-Version': '2025-06-18'}, body});
                return [resp.status, await resp.json()];
            };
            let [status, body] = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
            ok(status === 400 && body.error.code === -32700 && body.id === null, `not JSON: ${JSON.stringify(body)}`);
            [status, body] = await post('{"jsonrpc": "2.0", "id": 2, "method": 7}');
            ok(body.error.code === -32600, `not a request: ${JSON.stringify(body)}`);
            [status, body] = await post('{"jsonrpc": "2.0", "id": {}, "method": "ping"}');
            ok(body.error.code === -32600, `a bad id: ${JSON.stringify(body)}`);
            [status, body] = await post('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": 5}');
            ok(body.error.code === -32602, `bad params: ${JSON.stringify(body)}`);
            await a.ping();
            await restartUnder(a, server);
            await restartUnder(b, server);
        } finally {
            await a.close();
            await b.close();
        }
    });

    http.kill('SIGTERM');
    await r.case('scratchpad-mcp --http exits 0 on SIGTERM', async () => eq(await exited, 0, 'exit status'));
    http = null;
    await server.stop();
    r.finish();
}

main();
