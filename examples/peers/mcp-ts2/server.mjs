// An MCP server as the TypeScript SDK v2's users write one, over stdio: the server of tool.mjs
// (a tool `slow` that stops when the SDK's abort signal, fired by `notifications/cancelled`,
// fires), served by `serveStdio`, which serves 2026-07-28 and the 2025 handshake alike.
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { build } from "./tool.mjs";

serveStdio(build);
