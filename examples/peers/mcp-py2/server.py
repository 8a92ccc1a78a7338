# A small MCP server as the SDK's 2.x users write one (MCPServer, stdio): a slow tool that
# reports progress and honours cancellation (the SDK cancels the handler's anyio scope when
# the client's notifications/cancelled arrives, or, over Streamable HTTP, as the transport
# decides). It speaks 2025-11-25 and 2026-07-28.
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("slow")


@app.tool()
async def slow(ctx: Context, ms: int = 300) -> str:
    """Wait ms milliseconds."""
    steps = max(1, ms // 50)
    for i in range(1, steps + 1):
        await anyio.sleep(ms / steps / 1000)
        await ctx.report_progress(i, steps)
    return "done"


if __name__ == "__main__":
    # `server.py` serves stdio; `server.py --http PORT` serves Streamable HTTP at
    # http://127.0.0.1:PORT/mcp, as the SDK's `run(transport="streamable-http")` does.
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        app.run(transport="streamable-http", port=int(sys.argv[2]))
    else:
        app.run()
