// A session of vscode-languageserver-protocol's client connection with a real language server
// over stdio: initialize, open one document, many hover and completion requests (some
// concurrent, some cancelled through a CancellationTokenSource, which sends $/cancelRequest),
// edits between them, then shutdown and exit. Usage:
//
//   node client.js [--lang python|typescript|css|bash] [--requests N] [--cancel-share P] [--seed S]
//                  [--trace FILE] -- SERVER_COMMAND [ARGS...]
//
// SERVER_COMMAND is started here (put `cancelcheck watch --dialect lsp ... --` in front to
// record it). --trace writes vscode-jsonrpc's own JSON trace of the client, a message a line
// (the `vscode` format of `cancelcheck audit`). What the client saw is summed up on stderr.
"use strict";
const cp = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter, CancellationTokenSource,
  Trace, TraceFormat, InitializeRequest, HoverRequest, CompletionRequest, ShutdownRequest,
} = require("vscode-languageserver-protocol/node");

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const opts = { lang: "python", requests: 2000, "cancel-share": 0.15, seed: 1, trace: null };
for (let i = 0; i < dash; i += 2) opts[argv[i].replace(/^--/, "")] = argv[i + 1];
const server = argv.slice(dash + 1);
const N = Number(opts.requests), share = Number(opts["cancel-share"]);
let seed = Number(opts.seed) >>> 0 || 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32); // an LCG: repeatable
const t0 = Date.now();
const say = (...w) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(3).padStart(7)}] ${w.join(" ")}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The workspace: one document of 400 functions and the calls between them.
const ws = fs.mkdtempSync(path.join(os.tmpdir(), "cancelcheck-trials-lsp-"));
// Four lines a unit, 400 units, in each language.
const unit = {
  python: (i) => [`def f${i}(x: int, y: str) -> list[int]:`, `    v${i} = [x + len(y) for _ in range(${i % 7})]`,
    i ? `    return v${i} + f${i - 1}(x, y)` : `    return v${i}`, ""],
  typescript: (i) => [`export function f${i}(x: number, y: string): number[] {`, `  const v${i} = [x + y.length, ${i}];`,
    i ? `  return v${i}.concat(f${i - 1}(x, y));` : `  return v${i};`, "}"],
  css: (i) => [`.c${i} > p, #id${i} {`, `  color: #${(i * 2654435761 % 0xffffff).toString(16).padStart(6, "0")};`,
    `  margin: ${i}px auto; display: flex;`, "}"],
  shellscript: (i) => [`f${i}() {`, `  local v${i}=$((1 + ${i}))`, i ? `  echo "$v${i}" "$(f${i - 1})"` : `  echo "$v${i}"`, "}"],
};
const ext = { python: "py", typescript: "ts", css: "css", shellscript: "sh" };
if (opts.lang === "bash") opts.lang = "shellscript";
if (!unit[opts.lang]) { console.error(`--lang: one of ${Object.keys(unit).join(", ")} (or bash)`); process.exit(2); }
const file = path.join(ws, "big." + ext[opts.lang]);
const lines = [];
for (let i = 0; i < 400; i++) lines.push(...unit[opts.lang](i));
let text = lines.join("\n") + "\n";
fs.writeFileSync(file, text);
const uri = "file://" + file;

const child = cp.spawn(server[0], server.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
let traceOut = null;
if (opts.trace) {
  traceOut = fs.openSync(opts.trace, "w");
  conn.trace(Trace.Verbose, { log: (data) => fs.writeSync(traceOut, JSON.stringify(data) + "\n") }, { traceFormat: TraceFormat.JSON });
}
conn.onRequest("workspace/configuration", (p) => p.items.map(() => null));
conn.onRequest("client/registerCapability", () => null);
conn.onRequest("window/workDoneProgress/create", () => null);
conn.onNotification(() => {});
conn.listen();

const tally = { sent: 0, cancelled: 0, results: 0, errors: {} };
async function request(type, params, cancelAfter) {
  const src = new CancellationTokenSource();
  tally.sent++;
  const p = conn.sendRequest(type, params, src.token);
  if (cancelAfter !== null) {
    tally.cancelled++;
    if (cancelAfter === 0) src.cancel();                  // at once, in the same tick
    else setTimeout(() => src.cancel(), cancelAfter);     // a little later
  }
  try { await p; tally.results++; }
  catch (e) { tally.errors[e.code] = (tally.errors[e.code] || 0) + 1; }
}

(async () => {
  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid, rootUri: "file://" + ws, workspaceFolders: [{ uri: "file://" + ws, name: "ws" }],
    capabilities: { textDocument: { hover: { contentFormat: ["markdown", "plaintext"] }, completion: {} }, workspace: { configuration: true } },
    initializationOptions: opts.lang === "typescript" ? { tsserver: { path: path.join(__dirname, "node_modules/typescript/lib") } } : {},
  });
  say("initialized:", JSON.stringify(init.serverInfo || {}));
  conn.sendNotification("initialized", {});
  let version = 1;
  conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: opts.lang, version, text } });
  await request(HoverRequest.type, { textDocument: { uri }, position: { line: 1, character: 5 } }, null); // warm up
  let done = 0;
  while (done < N) {
    const batch = [];
    const size = 1 + Math.floor(rand() * 10);
    for (let k = 0; k < size && done < N; k++, done++) {
      const fn = Math.floor(rand() * 400);
      const line = fn * 4 + Math.floor(rand() * 3);
      const position = { line, character: 4 + Math.floor(rand() * 12) };
      const r = rand();
      const cancelAfter = r < share / 3 ? 0 : r < share ? Math.floor(rand() * 30) + 1 : null;
      if (rand() < 0.8) batch.push(request(HoverRequest.type, { textDocument: { uri }, position }, cancelAfter));
      else batch.push(request(CompletionRequest.type, { textDocument: { uri }, position }, cancelAfter));
    }
    if (rand() < 0.05) { // an edit, which makes the server analyse the document again
      version++;
      text += { python: `\nw${version} = f${version % 400}(1, "a")\n`, typescript: `\nconst w${version} = f${version % 400}(1, "a");\n`,
        css: `\n.w${version} { color: red; }\n`, shellscript: `\nw${version}=$(f${version % 400})\n` }[opts.lang];
      conn.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    }
    await Promise.all(batch);
  }
  say("requests:", JSON.stringify(tally));
  await conn.sendRequest(ShutdownRequest.type);
  conn.sendNotification("exit");
  await sleep(200);
  if (traceOut !== null) fs.closeSync(traceOut);
  child.on("exit", (code, sig) => { say("server exited:", code, sig); fs.rmSync(ws, { recursive: true, force: true }); process.exit(0); });
  setTimeout(() => { say("server did not exit; killing it"); child.kill(); }, 5000).unref();
})().catch((e) => { say("error:", e.stack || e); process.exit(1); });
