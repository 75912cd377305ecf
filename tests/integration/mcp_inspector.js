/* mcp_inspector.js -- scratchpad-mcp driven by the MCP Inspector's CLI mode.
 *
 * @modelcontextprotocol/inspector (installed into tests/clients/node by
 * tests/install-node-clients.sh) is the tool developers reach for to poke at
 * an MCP server; its --cli mode runs one method headless and prints the JSON
 * result. Here it launches build/scratchpad-mcp over stdio as a harness does
 * (tools/list equal to the generated table, a write, a read window, a refused
 * name as an isError result, a resource, the guidance prompt) and calls a
 * tool of scratchpad-mcp --http over Streamable HTTP. Each run of the
 * Inspector is a node process of its own (about 2 s): the cases are few. Starts its own scratchpad-server;
 * stops what it starts. */
'use strict';

const path = require('path');
const {spawn, execFile, execFileSync} = require('child_process');
const sp = require(path.join(__dirname, '..', 'clients', 'node', 'spserver.js'));
const {eq, ok, sleep} = sp;

const TOP = path.resolve(__dirname, '..', '..');
const MCP = path.join(TOP, process.env.BUILD || 'build', 'scratchpad-mcp');
const INSPECTOR = path.join(TOP, 'tests', 'clients', 'node', 'node_modules', '.bin', 'mcp-inspector');
const generated = JSON.parse(execFileSync(MCP, ['--print-tools', 'mcp']).toString());

/* Run the inspector's CLI with args; resolves with its parsed JSON output. */
function inspect(args) {
    return new Promise((resolve, reject) => {
        execFile(INSPECTOR, ['--cli', ...args], {timeout: 60000}, (err, stdout, stderr) => {
            if (err) return reject(new Error(`mcp-inspector ${args.join(' ')}: ${err.message}\n${stderr}`));
            try {
                resolve(JSON.parse(stdout));
            } catch (e) {
                reject(new Error(`mcp-inspector printed no JSON: ${stdout}\n${stderr}`));
            }
        });
    });
}

function text(res) {
    eq(res.content.length, 1, 'one content item');
    return res.content[0].text;
}

async function main() {
    const r = new sp.Reporter(180000);
    const server = new sp.Server();
    let http = null;
    r.onAbort = async () => {
        if (http) http.kill('SIGKILL');
        await server.stop();
    };
    await server.start();
    const stdio = [MCP, '--url', `redis://127.0.0.1:${server.port}/0`, '--namespace', 'inspector'];

    await r.case('over stdio, the Inspector lists the generated tools, writes, reads a window, gets a refused name ' +
                 'as an isError result, reads the entry as a resource and gets the guidance prompt', async () => {
        eq((await inspect([...stdio, '--method', 'tools/list'])).tools, generated, 'tools/list');
        let res = await inspect([...stdio, '--method', 'tools/call', '--tool-name', 'scratchpad_write',
                                 '--tool-arg', 'name=plan', 'content=step one']);
        ok(!res.isError && text(res) === "OK: 'plan' is at version 1.", `write: ${JSON.stringify(res)}`);
        res = await inspect([...stdio, '--method', 'tools/call', '--tool-name', 'scratchpad_read',
                             '--tool-arg', 'name=plan', 'limit=4']);
        eq(text(res), 'step\n[truncated: 4 more characters after this; continue with offset=4]', 'a read window');
        res = await inspect([...stdio, '--method', 'tools/call', '--tool-name', 'scratchpad_write',
                             '--tool-arg', 'name=a//b', 'content=x']);
        ok(res.isError && text(res).startsWith("invalid entry name 'a//b'"), `refused: ${JSON.stringify(res)}`);
        res = await inspect([...stdio, '--method', 'resources/read', '--uri', 'scratchpad://inspector/plan']);
        eq(res.contents[0].text, 'step one', 'resources/read');
        res = await inspect([...stdio, '--method', 'prompts/get', '--prompt-name', 'scratchpad_guidance']);
        ok(res.messages[0].content.text.includes('scratchpad_list'), 'the guidance prompt');
    }, 120000);

    const port = await sp.freePort();
    http = spawn(MCP, ['--http', `127.0.0.1:${port}`, '--url', `redis://127.0.0.1:${server.port}/0`,
                       '--namespace', 'inspector'], {stdio: ['ignore', 'ignore', 'ignore']});
    const exited = new Promise((resolve) => http.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 200; i++) {
        try {
            await fetch(`http://127.0.0.1:${port}/mcp`, {method: 'GET'});
            break;
        } catch (e) {
            await sleep(25);
        }
    }
    await r.case('over Streamable HTTP (--transport http), the Inspector reads the entry written over stdio', async () => {
        const url = `http://127.0.0.1:${port}/mcp`;
        const res = await inspect([url, '--transport', 'http', '--method', 'tools/call', '--tool-name',
                                   'scratchpad_read', '--tool-arg', 'name=plan']);
        eq(text(res), 'step one', 'read over HTTP');
    }, 60000);
    http.kill('SIGTERM');
    await r.case('scratchpad-mcp --http exits 0 on SIGTERM', async () => eq(await exited, 0, 'exit status'));
    http = null;
    await server.stop();
    r.finish();
}

main();
