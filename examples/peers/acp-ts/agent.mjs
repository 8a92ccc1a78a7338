// An ACP agent as the TypeScript SDK's users write one (`agent()`, handlers by method, `connect`
// over stdio): each prompt turn asks the client's permission for its tool call
// (`session/request_permission`), then "thinks" for `ms` milliseconds (300 unless the prompt's
// text is a number), and honours cancellation through the SDK's own signals: `session/cancel`
// aborts the session's turn, and the request's `signal` aborts on `$/cancel_request`; the
// permission request is sent with the turn's signal, so the SDK cancels it (`$/cancel_request`)
// when the turn is cancelled, and a `cancelled` outcome ends the turn cancelled.
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { setTimeout as wait } from "node:timers/promises";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const turns = new Map(); // sessionId -> AbortController of the turn in progress

/** Waits `ms` milliseconds; true when `signal` aborted first (or already had). */
async function sleep(ms, signal) {
  try {
    await wait(ms, undefined, { signal });
    return false;
  } catch (e) {
    if (e.name === "AbortError") return true;
    throw e;
  }
}

const app = agent({ name: "slow-agent" })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onRequest(methods.agent.session.prompt, async ({ params, signal, client }) => {
    const turn = new AbortController();
    turns.get(params.sessionId)?.abort();
    turns.set(params.sessionId, turn);
    const text = params.prompt.find((b) => b.type === "text")?.text ?? "";
    const ms = Number.isFinite(Number(text)) && text.trim() !== "" ? Number(text) : 300;
    const cancelled = AbortSignal.any([turn.signal, signal]);
    const asked = await client.request(
      methods.client.session.requestPermission,
      {
        sessionId: params.sessionId,
        toolCall: { toolCallId: randomUUID(), title: "Think", kind: "think", status: "pending" },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      },
      { cancellationSignal: cancelled },
    );
    if (asked.outcome.outcome !== "cancelled") await sleep(ms, cancelled);
    // The turn stays open until it is answered: a cancel read meanwhile (the work done, its
    // last update on the way) still makes it end "cancelled", as ACP requires.
    if (!cancelled.aborted && asked.outcome.outcome !== "cancelled") {
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" } },
      });
    }
    if (turns.get(params.sessionId) === turn) turns.delete(params.sessionId);
    const stopped = cancelled.aborted || asked.outcome.outcome === "cancelled";
    return { stopReason: stopped ? "cancelled" : "end_turn" };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    turns.get(params.sessionId)?.abort();
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
