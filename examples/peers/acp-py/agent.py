# An ACP agent as the Python SDK's users write one (a class with the Agent methods, served by
# `run_agent` over stdio): each prompt turn "thinks" for `ms` milliseconds (300 unless the
# prompt's text is a number) in an asyncio task, and `cancel` (the client's session/cancel)
# cancels that task, so the turn ends with stopReason "cancelled" (a cancel read after the
# work but before the answer too).
import asyncio
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, Agent, InitializeResponse, NewSessionResponse, PromptResponse, run_agent
from acp import update_agent_message_text
from acp.interfaces import Client


class SlowAgent(Agent):
    def __init__(self) -> None:
        self._conn: Client | None = None
        self._turns: dict[str, asyncio.Future[None]] = {}
        self._cancelled: set[str] = set()

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=uuid.uuid4().hex)

    async def prompt(self, session_id: str, prompt: list, **kwargs: Any) -> PromptResponse:
        text = next((b.text for b in prompt if getattr(b, "type", "") == "text"), "")
        ms = int(text) if text.strip().isdigit() else 300
        turn = asyncio.ensure_future(asyncio.sleep(ms / 1000))
        self._turns[session_id] = turn
        self._cancelled.discard(session_id)
        try:
            await turn
        except asyncio.CancelledError:
            if not turn.cancelled():
                raise
        # The turn stays open until it is answered: a cancel read meanwhile (the work done,
        # its last update on the way) still makes it end "cancelled", as ACP requires.
        if session_id not in self._cancelled and self._conn is not None:
            await self._conn.session_update(session_id, update_agent_message_text("done"))
        self._turns.pop(session_id, None)
        stop = "cancelled" if session_id in self._cancelled else "end_turn"
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        turn = self._turns.get(session_id)
        if turn is not None:
            self._cancelled.add(session_id)
            turn.cancel()


if __name__ == "__main__":
    asyncio.run(run_agent(SlowAgent()))
