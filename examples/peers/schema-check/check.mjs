#!/usr/bin/env node
// Checks every message `cancelcheck probe` can send against each dialect's official schema,
// as the official SDKs publish it (installed by examples/peers/install beside the peers):
//
//   node examples/peers/schema-check/check.mjs --bin PATH/TO/cancelcheck [DIALECT...]
//
// - acp: the Agent Client Protocol's JSON Schema (schema/v1/schema.json of
//   @agentclientprotocol/sdk, in acp-ts/), with Ajv: each request's and notification's params
//   against the definition the schema marks with its method (`x-method`), each answer's
//   result against the method's response, and the whole message against the schema.
// - mcp-2025-11-25: the MCP TypeScript SDK's schemas (@modelcontextprotocol/sdk, in mcp-ts/):
//   ClientRequestSchema, ClientNotificationSchema, ClientResultSchema, JSONRPCMessageSchema.
// - mcp-2026-07-28: the same from the SDK's version 2 (@modelcontextprotocol/core, in mcp-ts2/).
// - lsp: vscode-languageserver-protocol's table of methods (in lsp-node/): each request and
//   notification is one a client sends, each answer answers one a server sends. LSP publishes
//   no schema of params with that package, so params are not checked (said in the output).
//
// Before the probe's messages, each check is shown a message its schema refuses, and must
// refuse it: a check that cannot fail fails. Exit 0 when every message is valid, 1 when one is
// not (each named with why), 2 on bad usage or a schema package not installed.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const peers = resolve(here, "..");
const me = "examples/peers/schema-check/check.mjs";
const usage = `usage: node ${me} --bin PATH/TO/cancelcheck [acp|acp-rfd|mcp-2025-11-25|mcp-2026-07-28|lsp ...]`;

function fail(code, text) {
  console.error(`${me}: ${text}`);
  process.exit(code);
}

const args = process.argv.slice(2);
let bin = null;
const dialects = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--bin") bin = args[++i];
  else if (args[i] === "--help" || args[i] === "-h") { console.log(usage); process.exit(0); }
  else if (args[i].startsWith("-")) fail(2, `unknown option ${args[i]}\n${usage}`);
  else dialects.push(args[i]);
}
if (!bin) fail(2, `--bin is required\n${usage}`);

/** A module of an installed peer's node_modules, or exit 2 naming the install command. */
async function load(peer, file) {
  const path = join(peers, peer, "node_modules", file);
  if (!existsSync(path)) fail(2, `${path} is not installed: run examples/peers/install ${peer} schema-check`);
  return path.endsWith(".json") ? JSON.parse(readFileSync(path, "utf8")) : import(pathToFileURL(path).href);
}

/** The first lines of a zod error. */
function zodWhy(result) {
  return result.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(message)"}: ${i.message}`).join("; ");
}

const checks = {
  // ACP's JSON Schema; acp-rfd is the request-cancellation draft over the same messages.
  async acp() {
    const Ajv2020 = createRequire(join(here, "package.json"))("ajv/dist/2020").default;
    const schema = await load("acp-ts", "@agentclientprotocol/sdk/schema/v1/schema.json");
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    // The schema's numeric formats (its integer types' ranges) and `uri`.
    const ranges = { int32: 2 ** 31, int64: 2 ** 63, uint16: 2 ** 16, uint32: 2 ** 32, uint64: 2 ** 64 };
    for (const [name, bound] of Object.entries(ranges)) {
      const signed = name.startsWith("int");
      ajv.addFormat(name, { type: "number", validate: (n) => Number.isInteger(n) && n < bound && n >= (signed ? -bound : 0) });
    }
    ajv.addFormat("double", { type: "number", validate: Number.isFinite });
    ajv.addFormat("uri", { type: "string", validate: (u) => URL.canParse(u) });
    ajv.addSchema(schema, "acp");
    const whole = ajv.getSchema("acp");
    const defs = new Map(); // method -> { params, result } definition names
    for (const [name, def] of Object.entries(schema.$defs)) {
      const m = def["x-method"];
      if (!m) continue;
      const entry = defs.get(m) ?? {};
      if (name.endsWith("Response")) entry.result = name; else entry.params = name;
      entry.side ??= def["x-side"];
      defs.set(m, entry);
    }
    const against = (name, value) => {
      const v = ajv.getSchema(`acp#/$defs/${name}`);
      return v(value) ? null : `${name}: ${ajv.errorsText(v.errors)}`;
    };
    return (msg, answers) => {
      if (!whole(msg)) return `not a message of the schema: ${ajv.errorsText(whole.errors)}`;
      if (msg.method !== undefined) {
        const d = defs.get(msg.method);
        if (!d) {
          // Extension methods start with `_`; `$/` methods are the protocol's own.
          return msg.method.startsWith("_") || msg.method.startsWith("$/") ? null : `method ${msg.method} is not in the schema`;
        }
        if (d.side !== "agent" && d.side !== "protocol") return `${msg.method} is handled by the ${d.side}, not sent by the client`;
        return d.params ? against(d.params, msg.params ?? {}) : null;
      }
      if (answers && msg.result !== undefined) {
        const d = defs.get(answers);
        if (!d) return null; // an answer to a method the schema does not define
        if (d.side !== "client") return `${answers} is not a request the agent sends`;
        return against(d.result, msg.result);
      }
      return null;
    };
  },
  async mcp(peer, file) {
    const t = await load(peer, file);
    return (msg, answers) => {
      const env = t.JSONRPCMessageSchema.safeParse(msg);
      if (!env.success) return `not a JSON-RPC message of the schema: ${zodWhy(env)}`;
      const { jsonrpc, id, ...rest } = msg;
      if (msg.method !== undefined) {
        const schema = id === undefined ? t.ClientNotificationSchema : t.ClientRequestSchema;
        const r = schema.safeParse(rest);
        return r.success ? null : `${msg.method}: ${zodWhy(r)}`;
      }
      if (msg.result !== undefined) {
        const r = t.ClientResultSchema.safeParse(msg.result);
        return r.success ? null : `the answer to ${answers ?? "a request"}: ${zodWhy(r)}`;
      }
      return null;
    };
  },
  async lsp() {
    const p = await load("lsp-node", "vscode-languageserver-protocol/lib/node/main.js");
    const direction = new Map();
    for (const v of Object.values(p.default ?? p)) {
      if (v && typeof v === "object" && typeof v.method === "string" && v.messageDirection) direction.set(v.method, v.messageDirection);
    }
    return (msg, answers) => {
      if (msg.method !== undefined) {
        if (msg.method.startsWith("$/")) return null; // the protocol's own, both directions
        const d = direction.get(msg.method);
        if (!d) return `method ${msg.method} is not in the protocol`;
        return d === "serverToClient" ? `${msg.method} is sent by the server, not the client` : null;
      }
      if (answers) {
        const d = direction.get(answers);
        if (d === "clientToServer") return `${answers} is not a request the server sends`;
      }
      return null;
    };
  },
};

const DIALECTS = {
  acp: { check: () => checks.acp(), refused: { jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", command: "sleep" } } },
  "acp-rfd": { check: () => checks.acp(), refused: { jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s" } } },
  "mcp-2025-11-25": {
    check: () => checks.mcp("mcp-ts", "@modelcontextprotocol/sdk/dist/esm/types.js"),
    refused: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } },
  },
  "mcp-2026-07-28": {
    check: () => checks.mcp("mcp-ts2", "@modelcontextprotocol/core/dist/index.mjs"),
    refused: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } },
  },
  lsp: { check: () => checks.lsp(), refused: { jsonrpc: "2.0", id: 1, method: "window/showMessageRequest", params: {} } },
};

const chosen = dialects.length ? dialects : Object.keys(DIALECTS);
let bad = 0;
for (const dialect of chosen) {
  const d = DIALECTS[dialect];
  if (!d) fail(2, `no dialect ${dialect}; expected some of: ${Object.keys(DIALECTS).join(", ")}`);
  const check = await d.check();
  if (check(d.refused, null) === null) {
    console.log(`${dialect}: FAIL: the check accepted a message its schema refuses: ${JSON.stringify(d.refused)}`);
    bad++;
    continue;
  }
  let doc;
  try {
    doc = JSON.parse(execFileSync(bin, ["probe", "--dialect", dialect, "--print-messages", "--json"], { encoding: "utf8" }));
  } catch (e) {
    fail(2, `${bin} probe --dialect ${dialect} --print-messages --json: ${e.message}`);
  }
  const wrong = [];
  for (const { message, answers } of doc.messages) {
    const why = check(message, answers);
    if (why) wrong.push(`  ${JSON.stringify(message)}\n    ${why}`);
  }
  const note = dialect === "lsp" ? " (methods and directions; LSP's package publishes no schema of params)" : "";
  if (wrong.length) {
    console.log(`${dialect}: FAIL: ${wrong.length} of ${doc.messages.length} messages the probe can send are not valid${note}:\n${wrong.join("\n")}`);
    bad++;
  } else {
    console.log(`${dialect}: ok: all ${doc.messages.length} messages the probe can send are valid${note}`);
  }
}
process.exit(bad ? 1 : 0);
