//! An MCP server as the Rust SDK's users write one (`#[tool_router]`, `serve(stdio())`): a tool
//! `slow` that waits `ms` milliseconds and stops when the SDK's `CancellationToken` (cancelled
//! on `notifications/cancelled`) is.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ErrorData, ServiceExt, schemars, tool, tool_router, transport::stdio};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    /// How long to wait, in milliseconds.
    #[serde(default = "default_ms")]
    ms: u64,
}

fn default_ms() -> u64 {
    300
}

#[derive(Clone)]
struct Slow;

#[tool_router(server_handler)]
impl Slow {
    #[tool(description = "Wait ms milliseconds.")]
    async fn slow(
        &self,
        Parameters(SlowArgs { ms }): Parameters<SlowArgs>,
        ct: CancellationToken,
    ) -> Result<String, ErrorData> {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok("done".into()),
            _ = ct.cancelled() => Err(ErrorData::internal_error("cancelled", None)),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Slow.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
