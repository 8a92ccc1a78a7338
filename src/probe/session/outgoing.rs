//! Every message the probe writes, built from the dialect's wire shapes.

use super::*;

/// Builds every message the probe sends, from the dialect's wire shapes
/// ([`cancelcheck_wire::shapes`]): one correct set per dialect, each valid for the dialect's
/// schema (the malformed cancels of `malformed-cancels` are sent raw, on purpose).
pub struct Outgoing<'a> {
    /// The decoding context: the dialect and the slow request's method.
    pub ctx: &'a Context,
    /// The slow request's params, as given (or the default).
    pub params: &'a Value,
    /// Merged over the dialect's `initialize` params (a recipe's).
    pub initialize: Option<&'a serde_json::Map<String, Value>>,
    /// The barrier request the user named (`--barrier`, a recipe's), instead of the dialect's.
    pub barrier: Option<&'a crate::probe::recipe::Barrier>,
}

impl Outgoing<'_> {
    fn shapes(&self) -> &'static dyn Shapes {
        shapes::of(self.ctx.dialect)
    }

    /// The handshake's request (`initialize`), if the dialect has one.
    pub fn initialize(&self, id: WireId, cancel_support: bool) -> Option<String> {
        let (method, mut params) = self.shapes().initialize(cancel_support, ME)?;
        if let Some(over) = self.initialize {
            crate::probe::recipe::merge(&mut params, &Value::Object(over.clone()));
        }
        Some(request(id, method, Some(params)))
    }

    /// The notification that ends the handshake, if the dialect has one.
    pub fn initialized(&self) -> Option<String> {
        let (method, params) = self.shapes().initialized()?;
        Some(notification(method, Some(params)))
    }

    /// The request that asks the server the versions it speaks before anything else, if the
    /// dialect has one (MCP 2026-07-28: `server/discover`).
    pub fn discover(&self) -> Option<String> {
        let (method, params) = self.shapes().discover(ME)?;
        Some(request(WireId::Str(DISCOVER_ID.into()), method, params))
    }

    /// The request that opens a session of work (ACP: `session/new`), in the probe's working
    /// directory, if the dialect's work runs in sessions.
    pub fn new_session(&self, id: WireId) -> Option<String> {
        let cwd = std::env::current_dir()
            .ok()
            .filter(|d| d.is_absolute())
            .and_then(|d| d.to_str().map(str::to_string))
            .unwrap_or_else(|| "/".into());
        let (method, params) = self.shapes().new_session(&cwd)?;
        Some(request(id, method, Some(params)))
    }

    /// The slow request, in `session` (ACP), with progress asked for under its own id (MCP).
    pub fn work(&self, id: WireId, session: Option<&str>) -> String {
        let token = serde_json::from_str::<Value>(&id.to_json_text()).unwrap_or(Value::Null);
        let params = self
            .shapes()
            .work_params(self.ctx, self.params, session, token, ME);
        request(id, &self.ctx.work_method, Some(params))
    }

    /// A barrier: a request the peer must answer, valid in the dialect (the one the user
    /// named, if any).
    pub fn barrier(&self, id: WireId) -> String {
        if let Some(b) = self.barrier {
            return request(id, &b.method, b.params.clone());
        }
        let (method, params) = self.shapes().barrier(ME);
        request(id, method, params)
    }

    /// The cancel of a session's turn, naming `session`, if the dialect has one (ACP:
    /// `session/cancel`).
    pub fn session_cancel(&self, session: &str) -> Option<String> {
        let (method, params) = self.shapes().session_cancel(session)?;
        Some(notification(method, Some(params)))
    }

    /// The dialect's generic cancel naming `id` (a JSON id as it is).
    pub fn cancel(&self, id: Value) -> String {
        let (method, params) = self.shapes().cancel(id);
        notification(method, Some(params))
    }

    /// The params of a well-formed generic cancel naming `id`.
    pub fn cancel_params(&self, id: Value) -> Value {
        self.shapes().cancel_params(id)
    }

    /// The answer to a request `method` of the peer's (`cancelled`: the probe cancelled the
    /// work it serves): what the dialect's client accepts (ACP: a permission request's first
    /// option, or `cancelled`; MCP 2025-11-25: `ping`; LSP: the requests a client accepts
    /// without serving anything), else -32601.
    pub fn answer(
        &self,
        id: WireId,
        method: &str,
        params: Option<&Value>,
        cancelled: bool,
    ) -> String {
        let body = self.shapes().client_answer(method, params, cancelled);
        WireMessage::Response { id, body }.to_text()
    }

    /// Every message the probe can send with these params: the handshake (with and without
    /// cancellation support asked for), the recipe's set-up steps, the slow request (under
    /// ids of every shape its scenarios use), its cancels (the prompt turn's and the generic
    /// one, naming the ids the scenarios name), barriers, `--list-tools`' requests, and the
    /// answers the probe gives to the peer's requests. The malformed cancels of
    /// `malformed-cancels` are left out: they are sent to be refused.
    ///
    /// Each comes with the method of the peer's request it answers, for an answer.
    pub fn everything(
        &self,
        setup: &[crate::probe::recipe::Step],
    ) -> Vec<(Option<&'static str>, String)> {
        let ctx = self.ctx;
        let mut ids = IdMap::new();
        let mut texts = Vec::new();
        let mut answers = Vec::new();
        for support in [true, false] {
            texts.extend(self.initialize(WireId::Int(1), support));
        }
        texts.extend(self.initialized());
        for (i, step) in setup.iter().enumerate() {
            texts.push(step.message(i).to_text());
        }
        texts.extend(self.discover());
        texts.extend(self.new_session(WireId::Str(format!("{NEW_SESSION_ID}1"))));
        texts.extend(self.session_cancel("session-from-the-agent"));
        if let Some(method) = self.shapes().permission_method() {
            let offered = serde_json::json!({"options": [{"optionId": "allow"}]});
            for cancelled in [false, true] {
                let text = self.answer(WireId::Int(0), method, Some(&offered), cancelled);
                answers.push((method, text));
            }
            answers.push((method, self.answer(WireId::Int(0), method, None, false)));
        }
        let work_ids = [
            WireId::Int(2),
            WireId::Int(0),
            WireId::Str("7".into()),
            WireId::Str("1".into()),
        ];
        for id in &work_ids {
            texts.push(self.work(id.clone(), Some("session-from-the-agent")));
            let cancel = Message::Cancel {
                id: ids.model(id),
                session: false,
            };
            texts.push(message_text(ctx.dialect, Party::Client, &cancel, &ids));
        }
        for named in [
            serde_json::json!(424242),
            serde_json::json!(7),
            serde_json::json!(""),
            serde_json::json!(0),
            serde_json::json!("7"),
        ] {
            texts.push(self.cancel(named));
        }
        texts.push(self.barrier(WireId::Str("cancelcheck-barrier-1".into())));
        for cursor in [None, Some("page-2")] {
            if let Some((method, params)) = self.shapes().list_tools(cursor, ME) {
                texts.push(request(
                    WireId::Str("cancelcheck-call-1".into()),
                    method,
                    params,
                ));
            }
        }
        // The peer's requests: those a client of the dialect accepts, and some it refuses.
        let items = serde_json::json!({"items": [{"section": "editor"}]});
        for (method, params) in [
            ("ping", None),
            ("sampling/createMessage", None),
            ("terminal/create", None),
            ("window/workDoneProgress/create", None),
            ("workspace/configuration", Some(&items)),
        ] {
            answers.push((method, self.answer(WireId::Int(5), method, params, false)));
        }
        let mut all: Vec<(Option<&'static str>, String)> =
            texts.into_iter().map(|t| (None, t)).collect();
        all.extend(answers.into_iter().map(|(m, t)| (Some(m), t)));
        let mut seen = BTreeSet::new();
        all.retain(|sent| seen.insert(sent.clone()));
        all
    }
}

pub(super) fn request(id: WireId, method: &str, params: Option<Value>) -> String {
    WireMessage::Request {
        id,
        method: method.into(),
        params,
    }
    .to_text()
}

pub(super) fn notification(method: &str, params: Option<Value>) -> String {
    WireMessage::Notification {
        method: method.into(),
        params,
    }
    .to_text()
}
