// The same MCP server as server.mjs over Streamable HTTP, as the SDK's quick-start serves one
// with sessions: a `StreamableHTTPServerTransport` per session (its id handed out on
// `initialize`), keyed by the `Mcp-Session-Id` header, with the SDK's in-memory event store so
// that a dropped stream can be resumed (`Last-Event-ID`), on `node:http` at
// http://127.0.0.1:PORT/mcp.
//
//   node server-http.mjs PORT
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { build } from "./tool.mjs";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error("usage: node server-http.mjs PORT");
  process.exit(2);
}

const sessions = new Map();

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function refuse(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

createServer(async (req, res) => {
  if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const id = req.headers["mcp-session-id"];
  try {
    if (req.method === "POST") {
      const body = await readJson(req);
      let transport = id ? sessions.get(id) : undefined;
      if (!transport && !id && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: new InMemoryEventStore(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await build().connect(transport);
      }
      if (!transport) return refuse(res, 400, "Bad Request: no valid session ID provided");
      await transport.handleRequest(req, res, body);
    } else if (req.method === "GET" || req.method === "DELETE") {
      const transport = id && sessions.get(id);
      if (!transport) return refuse(res, 400, "Invalid or missing session ID");
      await transport.handleRequest(req, res);
    } else {
      res.writeHead(405, { allow: "GET, POST, DELETE" }).end();
    }
  } catch (e) {
    if (!res.headersSent) refuse(res, 400, `Bad Request: ${e.message}`);
  }
}).listen(port, "127.0.0.1", () => console.error(`listening on http://127.0.0.1:${port}/mcp`));
