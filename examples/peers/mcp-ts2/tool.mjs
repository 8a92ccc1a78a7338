// The server both entries serve, as the TypeScript SDK v2's users write one (`McpServer`,
// `registerTool`): a tool `slow` that waits `ms` milliseconds, reports progress when asked, and
// stops when the SDK's abort signal (`ctx.mcpReq.signal`) fires.
import { McpServer } from "@modelcontextprotocol/server";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

export function build() {
  const server = new McpServer({ name: "slow", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "slow",
    { description: "Wait ms milliseconds.", inputSchema: z.object({ ms: z.number().int().min(0).default(300) }) },
    async ({ ms }, ctx) => {
      const { signal, _meta } = ctx.mcpReq;
      const token = _meta?.progressToken;
      const steps = Math.max(1, Math.floor(ms / 50));
      for (let i = 1; i <= steps; i++) {
        await sleep(ms / steps, undefined, { signal });
        if (token !== undefined) {
          await ctx.mcpReq.notify({
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
