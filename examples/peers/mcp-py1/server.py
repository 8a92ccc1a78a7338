# A small MCP server as the SDK's 1.x users write one (FastMCP, stdio): a slow tool that
# reports progress and honours cancellation (the SDK cancels the handler's anyio scope when
# the client's notifications/cancelled arrives).
import anyio
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("slow")


@mcp.tool()
async def slow(ctx: Context, ms: int = 300) -> str:
    """Wait ms milliseconds."""
    steps = max(1, ms // 50)
    for i in range(1, steps + 1):
        await anyio.sleep(ms / steps / 1000)
        await ctx.report_progress(i, steps)
    return "done"


if __name__ == "__main__":
    mcp.run()
