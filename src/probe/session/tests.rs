use super::*;
use cancelcheck_wire::schema::check_client_message;

#[test]
fn every_message_the_probe_sends_is_valid_for_its_dialects_schema() {
    for dialect in [
        Dialect::Acp,
        Dialect::AcpRfd,
        Dialect::Mcp20251125,
        Dialect::Mcp20260728,
        Dialect::Lsp,
    ] {
        let mut ctx = Context::new(dialect);
        ctx.work_method = shapes::of(dialect).default_work_method().into();
        let params = crate::probe::default_params(dialect);
        let out = Outgoing {
            ctx: &ctx,
            params: &params,
            initialize: None,
            barrier: None,
        };
        let texts: Vec<String> = out.everything(&[]).into_iter().map(|(_, t)| t).collect();
        assert!(texts.len() >= 15, "{dialect}: {}", texts.len());
        for text in texts {
            let msg = WireMessage::parse(text.as_bytes()).expect("JSON-RPC");
            if let Err(e) = check_client_message(dialect, &msg) {
                panic!("{dialect}: the probe would send {text}: {e}");
            }
        }
    }
}
