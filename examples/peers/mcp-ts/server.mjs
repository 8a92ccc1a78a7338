// An MCP server as the TypeScript SDK's users write one, over stdio: the server of tool.mjs (a
// tool `slow` that stops when the SDK's abort signal, fired by `notifications/cancelled`,
// fires).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { build } from "./tool.mjs";

await build().connect(new StdioServerTransport());
