// The server both entries serve, as the TypeScript SDK's users write one (`McpServer`,
// `registerTool`): a tool `slow` that waits `ms` milliseconds, reports progress when asked, and
// stops when the SDK's abort signal (`extra.signal`) fires, even before the handler started
// waiting (`timers/promises` checks it first).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

export function build() {
  const server = new McpServer({ name: "slow", version: "1.0.0" });
  server.registerTool(
    "slow",
    { description: "Wait ms milliseconds.", inputSchema: { ms: z.number().int().min(0).default(300) } },
    async ({ ms }, extra) => {
      const token = extra._meta?.progressToken;
      const steps = Math.max(1, Math.floor(ms / 50));
      for (let i = 1; i <= steps; i++) {
        await sleep(ms / steps, undefined, { signal: extra.signal });
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps },
          });
        }
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  return server;
}
