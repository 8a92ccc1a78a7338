// A language server as vscode-languageserver's users write one (`createConnection` over stdio,
// `onInitialize`, `onExecuteCommand`): the command `slow` waits `ms` milliseconds (its first
// argument's `ms`, 300 by default) and honours the library's CancellationToken, which
// `$/cancelRequest` trips, by throwing the library's cancellation error.
import { createConnection, ProposedFeatures, ResponseError, LSPErrorCodes } from "vscode-languageserver/node";

const connection = createConnection(ProposedFeatures.all);

connection.onInitialize(() => ({
  capabilities: { executeCommandProvider: { commands: ["slow"] } },
  serverInfo: { name: "slow", version: "1.0.0" },
}));

connection.onExecuteCommand(async (params, token) => {
  if (params.command !== "slow") return null;
  const ms = params.arguments?.[0]?.ms ?? 300;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    token.onCancellationRequested(() => {
      clearTimeout(timer);
      reject(new ResponseError(LSPErrorCodes.RequestCancelled, "cancelled"));
    });
  });
  return "done";
});

connection.listen();
