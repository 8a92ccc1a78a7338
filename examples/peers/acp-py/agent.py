# An ACP agent as the Python SDK's users write one (a class with the Agent methods, served by
# `run_agent` over stdio): each prompt turn "thinks" for `ms` milliseconds (300 unless the
# prompt's text is a number) in an asyncio task, and `cancel` (the client's session/cancel)
# cancels that task, so the turn ends with stopReason "cancelled".
import asyncio
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, Agent, InitializeResponse, NewSessionResponse, PromptResponse, run_agent
from acp import update_agent_message_text
from acp.interfaces import Client


class SlowAgent(Agent):
    def __init__(self) -> None:
        self._conn: Client | None = None
        self._turns: dict[str, asyncio.Task[None]] = {}

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
        try:
            await turn
        except asyncio.CancelledError:
            if turn.cancelled():
                return PromptResponse(stop_reason="cancelled")
            raise
        finally:
            self._turns.pop(session_id, None)
        if self._conn is not None:
            await self._conn.session_update(session_id, update_agent_message_text("done"))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        turn = self._turns.get(session_id)
        if turn is not None:
            turn.cancel()


if __name__ == "__main__":
    asyncio.run(run_agent(SlowAgent()))
