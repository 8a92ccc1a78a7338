# An ACP agent as the Python SDK's users write one (a class with the Agent methods, served by
# `run_agent` over stdio): each prompt turn asks the client's permission for its tool call
# (`session/request_permission`), then "thinks" for `ms` milliseconds (300 unless the prompt's
# text is a number) in an asyncio task, and `cancel` (the client's session/cancel) cancels that
# task, so the turn ends with stopReason "cancelled" (a cancel read after the work but before
# the answer too). A turn cancelled while it waits on its permission request waits for the
# client's answer, which ACP makes `cancelled` (this SDK sends no `$/cancel_request`).
import asyncio
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, Agent, InitializeResponse, NewSessionResponse, PromptResponse, run_agent
from acp import update_agent_message_text
from acp.interfaces import Client
from acp.schema import PermissionOption, ToolCallUpdate


class SlowAgent(Agent):
    def __init__(self) -> None:
        self._conn: Client | None = None
        self._turns: dict[str, asyncio.Future[None]] = {}
        self._cancelled: set[str] = set()
        self._prompting: set[str] = set()

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=uuid.uuid4().hex)

    async def prompt(self, session_id: str, prompt: list, **kwargs: Any) -> PromptResponse:
        text = next((b.text for b in prompt if getattr(b, "type", "") == "text"), "")
        ms = int(text) if text.strip().isdigit() else 300
        self._cancelled.discard(session_id)
        self._prompting.add(session_id)
        asked = None
        if self._conn is not None:
            asked = await self._conn.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(tool_call_id=uuid.uuid4().hex, title="Think", kind="think", status="pending"),
                options=[
                    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                ],
            )
        if asked is not None and asked.outcome.outcome == "cancelled":
            self._cancelled.add(session_id)
        if session_id not in self._cancelled:
            turn = asyncio.ensure_future(asyncio.sleep(ms / 1000))
            self._turns[session_id] = turn
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
        self._prompting.discard(session_id)
        stop = "cancelled" if session_id in self._cancelled else "end_turn"
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        # A turn still asking permission is cancelled too (and the client answers that request
        # `cancelled`); a cancel with no turn in progress is ignored.
        if session_id in self._prompting:
            self._cancelled.add(session_id)
        turn = self._turns.get(session_id)
        if turn is not None:
            turn.cancel()


if __name__ == "__main__":
    asyncio.run(run_agent(SlowAgent()))
