// The same MCP server as server.mjs, served over Streamable HTTP as the TypeScript SDK v2's
// users serve one on Node: `createMcpHandler` (2026-07-28 per request; 2025-11-25 through the
// SDK's default stateless fallback) wrapped by `toNodeHandler` from `@modelcontextprotocol/node`,
// on `node:http`, at http://127.0.0.1:PORT/mcp. The tool `slow` stops when the SDK's abort
// signal fires: in 2026-07-28 when the client closes the request's response stream.
//
//   node server-http.mjs PORT
import { createServer } from "node:http";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { build } from "./tool.mjs";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error("usage: node server-http.mjs PORT");
  process.exit(2);
}
const handle = toNodeHandler(createMcpHandler(build));
createServer((req, res) => {
  if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  handle(req, res);
}).listen(port, "127.0.0.1", () => console.error(`listening on http://127.0.0.1:${port}/mcp`));
