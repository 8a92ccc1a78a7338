// A session of the MCP TypeScript SDK's own client (Client over StdioClientTransport) with a
// real MCP server, cancelling calls as the SDK's users do: an AbortSignal and the request
// timeout of callTool's options. Usage:
//
//   node ts-client.mjs [--log FILE] [--connect-timeout MS | --close-during-call] SERVER_COMMAND [ARGS...]
//
// SERVER_COMMAND is started by the SDK (put `cancelcheck watch ... --` in front to record it).
// --log FILE writes the client's own record of the session: every message as the SDK's Client
// hands it to its transport or receives it from there, in the line format desktop MCP clients
// use for their server logs (the `mcp-log` format of `cancelcheck audit`). --connect-timeout MS
// gives connect() (the initialize request) that timeout instead of the SDK's 60 s, and stops
// there: a session of the handshake alone. --close-during-call starts a long call, closes the
// client 500 ms later (as an application that quits with a call in flight), and stops there.
// What the client did is printed on stderr, one line a step.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";

const LONG = "trigger-long-running-operation";
const t0 = Date.now();
const say = (...w) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(3).padStart(7)}] ${w.join(" ")}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let argv = process.argv.slice(2);
let log = null;
let connectTimeout = null;
let closeDuringCall = false;
for (;;) {
  if (argv[0] === "--log") { log = fs.openSync(argv[1], "w"); argv = argv.slice(2); }
  else if (argv[0] === "--connect-timeout") { connectTimeout = Number(argv[1]); argv = argv.slice(2); }
  else if (argv[0] === "--close-during-call") { closeDuringCall = true; argv = argv.slice(1); }
  else break;
}
const [command, ...args] = argv;
const client = new Client({ name: "cancelcheck-trials-ts-client", version: "0.1.0" });
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
if (log !== null) {
  const line = (who, m) => fs.writeSync(log, `${new Date().toISOString()} [info] [everything] Message from ${who}: ${JSON.stringify(m)}\n`);
  const send = transport.send.bind(transport);
  transport.send = (m, o) => { line("client", m); return send(m, o); };
  // Protocol.connect sets the transport's onmessage, then starts it: wrap the handler it set.
  const start = transport.start.bind(transport);
  transport.start = () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (m, extra) => { line("server", m); onmessage?.(m, extra); };
    return start();
  };
}
if (connectTimeout !== null) {
  try { await client.connect(transport, { timeout: connectTimeout }); say("initialized"); }
  catch (e) { say("connect gave up:", e.name, e.message); }
  await sleep(1000); // what the server still sends
  await client.close();
  process.exit(0);
}
await client.connect(transport);
say("initialized; server", JSON.stringify(client.getServerVersion()));
if (closeDuringCall) {
  const pending = client.callTool({ name: LONG, arguments: { duration: 3, steps: 3 } })
    .then(() => say("answered"), (e) => say("call ended:", e.name, e.message));
  await sleep(500);
  await client.close();
  await pending;
  say("closed");
  process.exit(0);
}

async function call(label, params, options) {
  try {
    const r = await client.callTool(params, undefined, options);
    say(label, "answered:", r.content?.[0]?.text ?? JSON.stringify(r));
  } catch (e) {
    say(label, "gave up:", e.name, e.message);
  }
}

// 1. A call aborted by its AbortSignal after 700 ms (3 s of work, with progress).
{
  const ac = new AbortController();
  setTimeout(() => ac.abort("user pressed stop"), 700);
  await call("1:", { name: LONG, arguments: { duration: 3, steps: 6 } },
    { signal: ac.signal, onprogress: (p) => say("1: progress", p.progress, p.total) });
  await client.ping();
  say("1: ping answered");
}
// 2. A call given up by the SDK's own request timeout (800 ms; 2 s of work).
await call("2:", { name: LONG, arguments: { duration: 2, steps: 2 } }, { timeout: 800 });
// 3. Calls answered in between.
for (let i = 0; i < 30; i++) await client.callTool({ name: "echo", arguments: { message: `echo ${i}` } });
say("3: 30 echo calls answered");
// 4. Eight calls at once; the odd ones aborted at 200 ms.
await Promise.all([...Array(8).keys()].map((i) => {
  const ac = new AbortController();
  if (i % 2) setTimeout(() => ac.abort(), 200);
  return call(`4.${i}:`, { name: LONG, arguments: { duration: 1, steps: 4 } }, { signal: ac.signal });
}));
// 5. Aborts near the answer: 300 ms of work, aborted at 280..320 ms.
for (const [k, ms] of [280, 290, 300, 310, 320].entries()) {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), ms);
  await call(`5.${k}:`, { name: LONG, arguments: { duration: 0.3, steps: 1 } }, { signal: ac.signal });
}
// 6. A signal aborted before the call is made (the SDK sends nothing, or a request and its cancel).
await call("6:", { name: "echo", arguments: { message: "never" } }, { signal: AbortSignal.abort() });
// Wait past the end of every piece of work given up, then a last ping and close.
await sleep(3500);
await client.ping();
say("end: ping answered");
await client.close();
