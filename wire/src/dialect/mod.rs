//! Each dialect's wire shapes, one file per protocol text (MCP's two versions share one, which
//! says where they differ), joined here by [`of`], the one registry.

pub mod abp;
pub mod acp;
pub mod lsp;
pub mod mcp;

use crate::shapes::Shapes;
use cancelcheck_model::Dialect;

/// The shapes of `dialect`: the one place its wire shapes are decided.
pub fn of(dialect: Dialect) -> &'static dyn Shapes {
    match dialect {
        Dialect::Acp => &acp::ACP,
        Dialect::AcpRfd => &acp::ACP_RFD,
        Dialect::Mcp20251125 => &mcp::MCP_2025,
        Dialect::Mcp20260728 => &mcp::MCP_2026,
        Dialect::Lsp => &lsp::LSP,
        Dialect::Abp => &abp::ABP,
    }
}
