"""A session of the MCP Python SDK's own client (ClientSession over stdio_client) with a real
MCP server, cancelling calls as the SDK's users do: a read timeout on call_tool and an anyio
cancel scope around it. Usage:

    python py-client.py [--log FILE] [--race TOOL ARGS_JSON N] SERVER_COMMAND [ARGS...]

SERVER_COMMAND is started by the SDK (put `cancelcheck watch ... --` in front to record it).
Without --race, the session calls server-everything's tools (its long-running operation
cancelled in several ways). With --race, it calls TOOL with ARGS_JSON N times, each call given
up by a cancel scope after 0 to 3 ms (a cancel that races the answer of a quick tool), a ping
after every tenth, then waits and pings once more.

--log FILE writes the client's own record: every message the session writes, as it hands it to
the transport, and every message it receives, once the session has taken it from an unbuffered
stream, in the line format desktop MCP clients use for their server logs (the `mcp-log` format
of `cancelcheck audit`). A message received is logged only after the session took it, so the
record may show an answer later than the session had it, never earlier: a cancel logged after
an answer was written after the session had that answer.
What the client did is printed on stderr, one line a step.
"""
import json
import sys
from datetime import timedelta
from importlib.metadata import version
import time

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

LONG = "trigger-long-running-operation"
# The SDK's 1.x releases take read timeouts as timedelta and name fields in camelCase.
MCP_1 = version("mcp").startswith("1.")


def secs(x):
    return timedelta(seconds=x) if MCP_1 and x is not None else x
t0 = time.monotonic()


def say(*words):
    print(f"[{time.monotonic() - t0:7.3f}] " + " ".join(str(w) for w in words), file=sys.stderr, flush=True)


async def race(session, tool, args, n):
    import random
    rng = random.Random(1)
    given_up = 0
    for i in range(n):
        with anyio.move_on_after(rng.choice([0, 0.0005, 0.001, 0.002, 0.003])) as scope:
            await session.call_tool(tool, args)
        given_up += scope.cancelled_caught
        if i % 10 == 9:
            await session.send_ping()
    say(f"race: {n} calls, {given_up} given up")
    await anyio.sleep(1)
    await session.send_ping()
    say("end: ping answered")


def logger(path):
    from datetime import datetime, timezone
    out = open(path, "w")

    def line(who, m):
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        body = m.message.model_dump_json(by_alias=True, exclude_none=True)
        out.write(f"{now} [info] [server] Message from {who}: {body}\n")
        out.flush()
    return line


async def main(argv):
    race_args = None
    line = None
    if argv[0] == "--log":
        line = logger(argv[1])
        argv = argv[2:]
    if argv[0] == "--race":
        race_args = (argv[1], json.loads(argv[2]), int(argv[3]))
        argv = argv[4:]
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    async with stdio_client(params) as (read, write):
        if line is None:
            async with ClientSession(read, write) as session:
                return await session_steps(session, race_args)
        to_out, to_in = anyio.create_memory_object_stream(0)
        from_in, from_out = anyio.create_memory_object_stream(0)

        async def outgoing():
            async for m in to_in:
                line("client", m)
                await write.send(m)

        async def incoming():
            async for m in read:
                await from_in.send(m)
                if not isinstance(m, Exception):
                    line("server", m)

        async with anyio.create_task_group() as tg:
            tg.start_soon(outgoing)
            tg.start_soon(incoming)
            async with ClientSession(from_out, to_out) as session:
                await session_steps(session, race_args)
            tg.cancel_scope.cancel()


async def session_steps(session, race_args):
    if True:
        if True:
            init = await session.initialize()
            info = init.serverInfo if MCP_1 else init.server_info
            say("mcp", version("mcp"), "initialized; protocol", init.protocolVersion if MCP_1 else init.protocol_version,
                "server", info.name, info.version)
            tools = await session.list_tools()
            say("tools:", len(tools.tools))
            if race_args is not None:
                return await race(session, *race_args)

            # 1. A call given up by its read timeout (1 s) while the server works (3 s, 6 steps).
            try:
                await session.call_tool(LONG, {"duration": 3, "steps": 6}, read_timeout_seconds=secs(1.0))
                say("1: answered")
            except Exception as e:  # the SDK raises on its timeout
                say("1: gave up:", type(e).__name__, e)
            say("1: ping", await session.send_ping())

            # 2. A call given up by an anyio cancel scope after 0.5 s (2 s of work, with progress).
            with anyio.move_on_after(0.5) as scope:
                await session.call_tool(LONG, {"duration": 2, "steps": 4},
                                        progress_callback=lambda p, t, m: say("2: progress", p, t))
            say("2: cancelled by scope:", scope.cancelled_caught)

            # 3. Calls that run to the end, between the cancelled ones.
            for i in range(20):
                r = await session.call_tool("echo", {"message": f"echo {i}"})
            say("3: 20 echo calls answered")
            r = await session.call_tool(LONG, {"duration": 0.5, "steps": 2})
            say("3: long call answered:", r.content[0].text)

            # 4. Several calls at once, every other one given up after 0.3 s.
            async def one(i):
                try:
                    await session.call_tool(LONG, {"duration": 1, "steps": 2},
                                            read_timeout_seconds=secs(0.3 if i % 2 == 0 else None))
                    say(f"4.{i}: answered")
                except Exception as e:
                    say(f"4.{i}: gave up:", type(e).__name__)
            async with anyio.create_task_group() as tg:
                for i in range(6):
                    tg.start_soon(one, i)

            # 5. Cancels near the answer: work of 0.3 s given up after 0.25..0.35 s.
            for k, wait in enumerate([0.25, 0.28, 0.3, 0.32, 0.35]):
                with anyio.move_on_after(wait) as scope:
                    await session.call_tool(LONG, {"duration": 0.3, "steps": 1})
                say(f"5.{k}: gave up after {wait}s:", scope.cancelled_caught)

            # Wait past the end of every piece of work given up, so that whatever the server
            # still sends for it is in the record, then a last ping.
            await anyio.sleep(3.5)
            say("end: ping", await session.send_ping())


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
