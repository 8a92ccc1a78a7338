//! `probe --recipe FILE`: the set-up a real server needs, kept in a JSON file
//! (`schemas/recipe.schema.json`, documented in `docs/probe.md`).
//!
//! A recipe holds what the probe's defaults cannot know: `initialize` params merged over the
//! dialect's own, a `setup` sequence sent after the handshake (notifications, and requests
//! whose answers are awaited, each with a time limit), a `ready` wait (a notification of the
//! peer's, or a fixed delay stated as an assumption), and the `work` request. Strings may
//! name the recipe's folder: `${dir}` (its absolute path), `${dirUri}` (its `file://` URI),
//! and a whole string `${text:PATH}` is the text of the file PATH (relative to the folder).

use crate::trace_file::{DEFAULT_MAX_INPUT_BYTES, read_text_within};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A recipe file, as read (see the module documentation).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct RecipeFile {
    /// The schema the file follows (ignored).
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// What the recipe is for (ignored).
    #[serde(default)]
    pub description: Option<String>,
    /// Merged over the dialect's `initialize` params (objects field by field).
    #[serde(default)]
    pub initialize: Option<Map<String, Value>>,
    /// Sent in order after the handshake.
    #[serde(default)]
    pub setup: Vec<StepFile>,
    /// What tells the probe the peer is ready for the work request.
    #[serde(default)]
    pub ready: Option<ReadyFile>,
    /// The work request.
    #[serde(default)]
    pub work: Option<WorkFile>,
    /// The barrier request (the probe's default where absent).
    #[serde(default)]
    pub barrier: Option<WorkFile>,
}

/// A set-up step as read: exactly one of `request` and `notification`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct StepFile {
    /// A request's method: its answer is awaited.
    #[serde(default)]
    pub request: Option<String>,
    /// A notification's method.
    #[serde(default)]
    pub notification: Option<String>,
    /// The params (an object or an array).
    #[serde(default)]
    pub params: Option<Value>,
    /// How long the answer to a request may take, in ms.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The readiness wait as read: a `notification` of the peer's (with `params` it must
/// contain), or a fixed `delay_ms`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct ReadyFile {
    /// The method of the notification that says the peer is ready.
    #[serde(default)]
    pub notification: Option<String>,
    /// What its params must contain (objects field by field, other values equal).
    #[serde(default)]
    pub params: Option<Value>,
    /// How long to wait for it, in ms.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// A fixed delay instead, in ms (an assumption, said in the verdict).
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

/// A request as read: the work request, or the barrier.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct WorkFile {
    /// Its method.
    pub method: String,
    /// Its params (default: the dialect's default params).
    #[serde(default)]
    pub params: Option<Value>,
}

/// A set-up step, checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A notification: sent, nothing awaited.
    Notify {
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// A request: sent, its answer awaited (an error answer fails the set-up).
    Request {
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
        /// How long the answer may take.
        timeout: Duration,
    },
}

impl Step {
    /// The step's method.
    pub fn method(&self) -> &str {
        match self {
            Step::Notify { method, .. } | Step::Request { method, .. } => method,
        }
    }

    /// The id the probe gives the request of set-up step `i`.
    pub fn request_id(i: usize) -> cancelcheck_wire::WireId {
        cancelcheck_wire::WireId::Str(format!("cancelcheck-setup-{i}"))
    }

    /// The message set-up step `i` sends.
    pub fn message(&self, i: usize) -> cancelcheck_wire::WireMessage {
        match self {
            Step::Notify { method, params } => cancelcheck_wire::WireMessage::Notification {
                method: method.clone(),
                params: params.clone(),
            },
            Step::Request { method, params, .. } => cancelcheck_wire::WireMessage::Request {
                id: Step::request_id(i),
                method: method.clone(),
                params: params.clone(),
            },
        }
    }
}

/// The readiness wait, checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Ready {
    /// Until the peer sends a notification of `method` whose params contain `params`.
    Notification {
        /// Its method.
        method: String,
        /// What its params must contain.
        params: Option<Value>,
        /// How long to wait.
        timeout: Duration,
    },
    /// A fixed delay: the peer is assumed ready after it.
    Delay(Duration),
}

/// The request the probe sends after a cancel to prove the peer has read everything before
/// it (over stdio): any answer, a result or an error, proves that. The default is the
/// dialect's (MCP `ping`; in ACP and LSP a method the peer does not know, which JSON-RPC has it
/// answer -32601); a peer that answers no unknown method needs one it answers at once and
/// that changes nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Barrier {
    /// Its method.
    pub method: String,
    /// Its params.
    pub params: Option<Value>,
}

/// A recipe, checked: what the probe sends beyond its defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recipe {
    /// The file it was read from.
    pub file: PathBuf,
    /// Merged over the dialect's `initialize` params.
    pub initialize: Option<Map<String, Value>>,
    /// The set-up steps, in order.
    pub setup: Vec<Step>,
    /// The readiness wait.
    pub ready: Option<Ready>,
    /// The work request's method and params.
    pub work: Option<(String, Value)>,
    /// The barrier request, where the recipe names one.
    pub barrier: Option<Barrier>,
}

/// What to do with a recipe, or a file it names, over the input limit.
const TOO_BIG: &str = "a recipe and the files it names are read up to that size";

/// A set-up request's time limit when the recipe gives none.
pub const STEP_TIMEOUT_MS: u64 = 10_000;
/// The readiness notification's time limit when the recipe gives none.
pub const READY_TIMEOUT_MS: u64 = 30_000;

impl Recipe {
    /// Reads and checks `file`; an error names the file, the field path and the fix.
    pub fn load(file: &Path) -> Result<Recipe, String> {
        let text =
            read_text_within(file, DEFAULT_MAX_INPUT_BYTES, TOO_BIG).map_err(|e| e.to_string())?;
        let dir = std::path::absolute(file)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("/"));
        Recipe::parse(file, &text, &dir)
    }

    /// Parses `text` (the file `file`, in the folder `dir`).
    pub fn parse(file: &Path, text: &str, dir: &Path) -> Result<Recipe, String> {
        let at = |field: &str, msg: String| {
            if field.is_empty() {
                format!("{}: {msg}", file.display())
            } else {
                format!("{}: {field}: {msg}", file.display())
            }
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw: RecipeFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let field = if path == "." { String::new() } else { path };
            at(
                &field,
                format!(
                    "{inner} (line {}, column {}; see schemas/recipe.schema.json)",
                    inner.line(),
                    inner.column()
                ),
            )
        })?;
        let mut setup = Vec::new();
        for (i, s) in raw.setup.into_iter().enumerate() {
            let field = format!("setup[{i}]");
            if let Some(p) = &s.params
                && !p.is_object()
                && !p.is_array()
            {
                return Err(at(
                    &format!("{field}.params"),
                    "expected a JSON object or array".into(),
                ));
            }
            let params = s.params.map(|p| substitute(p, dir)).transpose();
            let params = params.map_err(|e| at(&format!("{field}.params"), e))?;
            setup.push(match (s.request, s.notification) {
                (Some(method), None) => Step::Request {
                    method,
                    params,
                    timeout: Duration::from_millis(s.timeout_ms.unwrap_or(STEP_TIMEOUT_MS)),
                },
                (None, Some(method)) if s.timeout_ms.is_none() => Step::Notify { method, params },
                (None, Some(_)) => {
                    return Err(at(
                        &format!("{field}.timeout_ms"),
                        "a notification has no answer to wait for: remove timeout_ms, or make the step a request".into(),
                    ));
                }
                _ => {
                    return Err(at(
                        &field,
                        "give exactly one of \"request\" (a method whose answer is awaited) and \"notification\" (a method sent, nothing awaited)".into(),
                    ));
                }
            });
        }
        let ready = match raw.ready {
            None => None,
            Some(r) => Some(match (r.notification, r.delay_ms) {
                (Some(method), None) => Ready::Notification {
                    method,
                    params: r
                        .params
                        .map(|p| substitute(p, dir))
                        .transpose()
                        .map_err(|e| at("ready.params", e))?,
                    timeout: Duration::from_millis(r.timeout_ms.unwrap_or(READY_TIMEOUT_MS)),
                },
                (None, Some(ms)) if r.params.is_none() && r.timeout_ms.is_none() => {
                    Ready::Delay(Duration::from_millis(ms))
                }
                (None, Some(_)) => {
                    return Err(at(
                        "ready",
                        "delay_ms waits a fixed time: params and timeout_ms belong to a notification".into(),
                    ));
                }
                _ => {
                    return Err(at(
                        "ready",
                        "give exactly one of \"notification\" (the method the peer sends once ready) and \"delay_ms\" (a fixed wait, as a last resort)".into(),
                    ));
                }
            }),
        };
        let work = match raw.work {
            None => None,
            Some(w) => {
                let params = match w.params {
                    None => None,
                    Some(p) if p.is_object() || p.is_array() => {
                        Some(substitute(p, dir).map_err(|e| at("work.params", e))?)
                    }
                    Some(_) => {
                        return Err(at("work.params", "expected a JSON object or array".into()));
                    }
                };
                Some((w.method, params.unwrap_or(Value::Null)))
            }
        };
        let barrier = match raw.barrier {
            None => None,
            Some(b) => Some(Barrier {
                method: b.method,
                params: match b.params {
                    None => None,
                    Some(p) if p.is_object() || p.is_array() => {
                        Some(substitute(p, dir).map_err(|e| at("barrier.params", e))?)
                    }
                    Some(_) => {
                        return Err(at(
                            "barrier.params",
                            "expected a JSON object or array".into(),
                        ));
                    }
                },
            }),
        };
        let initialize = match raw.initialize {
            None => None,
            Some(m) => match substitute(Value::Object(m), dir) {
                Ok(Value::Object(m)) => Some(m),
                Ok(_) => None,
                Err(e) => return Err(at("initialize", e)),
            },
        };
        Ok(Recipe {
            file: file.to_path_buf(),
            initialize,
            setup,
            ready,
            work,
            barrier,
        })
    }

    /// The sentence the verdict states when readiness is a fixed delay.
    pub fn assumption(&self) -> Option<String> {
        match self.ready {
            Some(Ready::Delay(d)) => Some(format!(
                "the peer was taken to be ready {} ms after its set-up (ready.delay_ms of {}), not told so: a work request it answered at once because it was not ready shows as vacuous",
                d.as_millis(),
                self.file.display()
            )),
            _ => None,
        }
    }
}

/// `base` with `over` merged in: objects field by field, anything else replaced.
pub fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// Whether `have` contains `want`: objects field by field, anything else equal.
pub fn contains(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => w
            .iter()
            .all(|(k, v)| h.get(k).is_some_and(|hv| contains(hv, v))),
        _ => have == want,
    }
}

/// Replaces `${dir}`, `${dirUri}` and a whole-string `${text:PATH}` in every string of `v`.
fn substitute(v: Value, dir: &Path) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) => {
            if let Some(rest) = s.strip_prefix("${text:")
                && let Some(rel) = rest.strip_suffix('}')
            {
                let path = dir.join(rel);
                let text =
                    read_text_within(&path, DEFAULT_MAX_INPUT_BYTES, TOO_BIG).map_err(|e| {
                        format!("{s}: {e} (the path is relative to the recipe's folder)")
                    })?;
                Value::String(text)
            } else {
                let d = dir.display().to_string();
                Value::String(s.replace("${dirUri}", &file_uri(&d)).replace("${dir}", &d))
            }
        }
        Value::Array(a) => Value::Array(
            a.into_iter()
                .map(|x| substitute(x, dir))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| substitute(x, dir).map(|x| (k, x)))
                .collect::<Result<_, _>>()?,
        ),
        other => other,
    })
}

/// The `file://` URI of an absolute path (bytes outside the unreserved set percent-encoded).
fn file_uri(path: &str) -> String {
    let mut uri = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<Recipe, String> {
        Recipe::parse(Path::new("r.json"), text, Path::new("/w s"))
    }

    #[test]
    fn a_bad_field_is_named_by_its_path() {
        let e = parse(r#"{"setup": [{"request": "a"}, {"request": 3}]}"#).unwrap_err();
        assert!(
            e.starts_with("r.json: setup[1].request: invalid type"),
            "{e}"
        );
        let e = parse(r#"{"setup": [{"request": "a", "notification": "b"}]}"#).unwrap_err();
        assert!(e.starts_with("r.json: setup[0]: give exactly one"), "{e}");
        let e = parse(r#"{"ready": {"delay_ms": 5, "timeout_ms": 3}}"#).unwrap_err();
        assert!(e.starts_with("r.json: ready: delay_ms"), "{e}");
        let e = parse(r#"{"work": {"method": "m", "params": 1}}"#).unwrap_err();
        assert!(e.starts_with("r.json: work.params:"), "{e}");
        let e = parse(r#"{"barrier": {"method": "m", "params": "x"}}"#).unwrap_err();
        assert!(e.starts_with("r.json: barrier.params:"), "{e}");
        let b = parse(r#"{"barrier": {"method": "m", "params": {"q": ""}}}"#).unwrap();
        assert_eq!(
            b.barrier,
            Some(Barrier {
                method: "m".into(),
                params: Some(serde_json::json!({"q": ""}))
            })
        );
        let e = parse(r#"{"wrok": {}}"#).unwrap_err();
        assert!(e.contains("unknown field `wrok`"), "{e}");
    }

    /// The published schema names the fields the reader takes, and the examples follow it.
    #[test]
    fn the_published_schema_is_the_format_read() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("schemas/recipe.schema.json")).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            k.sort();
            k
        };
        assert_eq!(
            keys(&schema),
            [
                "$schema",
                "barrier",
                "description",
                "initialize",
                "ready",
                "setup",
                "work"
            ]
        );
        assert_eq!(
            keys(&schema["properties"]["setup"]["items"]),
            ["notification", "params", "request", "timeout_ms"]
        );
        assert_eq!(
            keys(&schema["properties"]["ready"]),
            ["delay_ms", "notification", "params", "timeout_ms"]
        );
        assert_eq!(keys(&schema["properties"]["work"]), ["method", "params"]);
        assert_eq!(keys(&schema["properties"]["barrier"]), ["method", "params"]);
        // Every recipe under examples/ is read by the loader, and names its work request.
        let mut files = Vec::new();
        recipe_files(&root.join("examples"), &mut files);
        let dir = std::env::temp_dir().join(format!("cancelcheck-recipe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut works = Vec::new();
        for example in &files {
            let text = std::fs::read_to_string(example).unwrap();
            // A `${text:PATH}` names a generated file (pyright's big.py): read from a folder
            // holding one.
            for part in text.split("${text:").skip(1) {
                let name = part.split('}').next().unwrap();
                std::fs::write(dir.join(name), "x = 1\n").unwrap();
            }
            let r = Recipe::parse(example, &text, &dir)
                .unwrap_or_else(|e| panic!("{}: {e}", example.display()));
            let (method, _) = r
                .work
                .clone()
                .unwrap_or_else(|| panic!("{}: no work request", example.display()));
            let folder = example.parent().unwrap().file_name().unwrap();
            works.push((folder.to_string_lossy().into_owned(), method));
            if folder == "pyright" {
                assert!(matches!(r.ready, Some(Ready::Notification { .. })));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let peers = [
            "acp-py", "acp-ts", "lsp-node", "mcp-py1", "mcp-py2", "mcp-rust",
        ];
        for name in peers.into_iter().chain(["mcp-ts", "mcp-ts2", "pyright"]) {
            assert!(works.iter().any(|(f, _)| f == name), "{name}: {works:?}");
        }
        assert!(works.contains(&("pyright".into(), "textDocument/references".into())));
        assert!(works.contains(&("acp-ts".into(), "session/prompt".into())));
    }

    /// Every `recipe.json` under `dir`, in order.
    fn recipe_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap_or_default();
            if p.is_dir() && name != "node_modules" && name != ".venv" && name != "target" {
                recipe_files(&p, out);
            } else if name == "recipe.json" {
                out.push(p);
            }
        }
    }

    #[test]
    fn strings_name_the_recipes_folder() {
        let r =
            parse(r#"{"initialize": {"rootUri": "${dirUri}", "x": {"p": "${dir}/a"}}}"#).unwrap();
        let init = Value::Object(r.initialize.unwrap());
        assert_eq!(
            init,
            json!({"rootUri": "file:///w%20s", "x": {"p": "/w s/a"}})
        );
    }

    #[test]
    fn merging_keeps_what_the_base_has_and_contains_matches_a_subset() {
        let mut base = json!({"processId": null, "capabilities": {"a": 1}});
        merge(
            &mut base,
            &json!({"capabilities": {"b": 2}, "rootUri": "u"}),
        );
        assert_eq!(
            base,
            json!({"processId": null, "capabilities": {"a": 1, "b": 2}, "rootUri": "u"})
        );
        assert!(contains(&base, &json!({"capabilities": {"b": 2}})));
        assert!(!contains(&base, &json!({"capabilities": {"b": 3}})));
    }
}
