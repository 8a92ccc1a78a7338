//! `cancelcheck probe --list-tools`: the operations a server lists (MCP `tools/list`), to help
//! pick a slow one for the probe's work request.
//!
//! It opens the session as the probe does (the handshake, a recipe's set-up), asks for the
//! list page by page (following `nextCursor`), and prints each tool's name, the first line of
//! its description, the arguments its input schema requires, and the `--method`/`--params`
//! that probe it. Nothing is judged and no trace is written.

use super::session::{ME, Session, Setup, Stop};
use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_wire::Body;
use cancelcheck_wire::mcp::{Tool, read_tools};
use cancelcheck_wire::shapes::{self, Shapes};
use serde_json::{Value, json};

/// The most pages followed (a server whose cursors never end is said to be one).
const MAX_PAGES: usize = 100;

/// A word as the shell reads it back: bare where the shell leaves it alone, else single-quoted
/// (a `'` within written `'\''`).
pub fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/:=@,+".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Why `dialect` cannot list tools, if it cannot: what to do instead (exit 2).
pub fn refusal(shapes: &dyn Shapes) -> Option<String> {
    shapes.list_tools(None, ME).is_none().then(|| {
        format!(
            "--list-tools: {} has no list of a server's operations (MCP's tools/list): name the slow request with --method and --params, or in a --recipe (docs/probe.md)",
            shapes.dialect()
        )
    })
}

/// A placeholder for an argument of the JSON Schema type `schema` names.
fn placeholder(schema: Option<&Value>) -> Value {
    match schema.and_then(|s| s.get("type")).and_then(Value::as_str) {
        Some("integer" | "number") => json!(0),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => json!({}),
        Some("null") => Value::Null,
        _ => json!(""),
    }
}

/// The tool's required arguments, each with a placeholder of its type.
fn arguments(tool: &Tool) -> Value {
    let props = tool.input_schema.get("properties");
    let mut args = serde_json::Map::new();
    for name in tool.required() {
        let value = placeholder(props.and_then(|p| p.get(&name)));
        args.insert(name, value);
    }
    Value::Object(args)
}

/// The type a required argument's schema names (`integer`, ...), if it names one.
fn type_of(tool: &Tool, name: &str) -> Option<String> {
    let t = tool.input_schema.pointer(&format!(
        "/properties/{}/type",
        name.replace('~', "~0").replace('/', "~1")
    ))?;
    Some(match t {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Lists the peer's tools: what to print and the exit code (0). A peer that does not answer,
/// refuses the list or answers it malformed is an error naming what it did.
pub fn list(setup: &Setup, json_out: bool) -> anyhow::Result<(String, u8)> {
    let shapes = shapes::of(setup.dialect);
    if let Some(why) = refusal(shapes) {
        return Err(anyhow::anyhow!(why));
    }
    let ids = IdPolicy {
        first: 0,
        strings: false,
        reuse_answered: false,
    };
    let mut session = Session::start(setup, ids, 0)
        .map_err(|e| anyhow::anyhow!("--list-tools: could not start the peer: {e}"))?;
    let mut tools: Vec<Tool> = Vec::new();
    let mut pages = 0;
    let listed = session
        .handshake()
        .and_then(|()| session.recipe_setup())
        .map_err(|stop| (stop, None))
        .and_then(|()| {
            let mut cursor: Option<String> = None;
            loop {
                let (method, params) = shapes
                    .list_tools(cursor.as_deref(), ME)
                    .ok_or((Stop::Refused, None))?;
                let body = session.call(method, params).map_err(|s| (s, None))?;
                pages += 1;
                let result = match body {
                    Body::Result(v) => v,
                    Body::Error { code, message, .. } => {
                        return Err((
                            Stop::Refused,
                            Some(format!(
                                "it answered {method} with error {code} {message:?}"
                            )),
                        ));
                    }
                };
                let (page, next) = read_tools(&result).map_err(|e| {
                    (
                        Stop::Refused,
                        Some(format!(
                            "its answer to {method} is not a list of tools: {e}"
                        )),
                    )
                })?;
                tools.extend(page);
                match next {
                    Some(n) if pages >= MAX_PAGES || cursor.as_deref() == Some(&n) => {
                        return Err((
                            Stop::Refused,
                            Some(format!(
                                "its {method} pages do not end (cursor {n:?} after {pages} pages)"
                            )),
                        ));
                    }
                    Some(n) => cursor = Some(n),
                    None => return Ok(method),
                }
            }
        });
    let (records, end) = session.finish();
    let method = match listed {
        Ok(method) => method,
        Err((_, Some(why))) => {
            return Err(anyhow::anyhow!("--list-tools: {why}"));
        }
        Err((stop, None)) => {
            // The session's own account of what went wrong: its last note.
            let note = records
                .iter()
                .rev()
                .find(|r| {
                    r.dir == super::judge::Dir::Note
                        && !r.text.starts_with(super::judge::note::STDIN_CLOSED)
                })
                .map(|r| r.text.clone());
            let why = note.unwrap_or_else(|| format!("{stop:?}"));
            let tail = end.stderr_tail.trim();
            let stderr = if tail.is_empty() {
                String::new()
            } else {
                format!("; the peer's stderr ends: {tail}")
            };
            return Err(anyhow::anyhow!(
                "--list-tools: the tools could not be listed: {why}{stderr}"
            ));
        }
    };
    let rows: Vec<(Tool, &'static str, Value)> = tools
        .into_iter()
        .filter_map(|t| {
            let (m, p) = shapes.tool_call(&t.name, arguments(&t))?;
            Some((t, m, p))
        })
        .collect();
    let command: Vec<String> = setup.command.iter().map(|w| shell_word(w)).collect();
    if json_out {
        let list: Vec<Value> = rows
            .iter()
            .map(|(t, m, p)| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "required": t.required(),
                    "input_schema": t.input_schema,
                    "method": m,
                    "params": p,
                    "probe_args": ["--method", m, "--params", p.to_string()],
                })
            })
            .collect();
        let v = json!({
            "dialect": setup.dialect.id(),
            "command": setup.command,
            "listed_with": method,
            "pages": pages,
            "tools": list,
        });
        return Ok((
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()),
            0,
        ));
    }
    let mut t = format!(
        "{} tool(s) of {} ({}, {method}, {pages} page(s)):\n",
        rows.len(),
        command.join(" "),
        setup.dialect
    );
    for (tool, m, p) in &rows {
        t.push('\n');
        t.push_str(&format!("{}\n", tool.name));
        let first = tool
            .description
            .as_deref()
            .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()));
        if let Some(line) = first {
            t.push_str(&format!("  {line}\n"));
        }
        let required: Vec<String> = tool
            .required()
            .iter()
            .map(|r| match type_of(tool, r) {
                Some(ty) => format!("{r} ({ty})"),
                None => r.clone(),
            })
            .collect();
        let required = if required.is_empty() {
            "none".to_string()
        } else {
            required.join(", ")
        };
        t.push_str(&format!("  required arguments: {required}\n"));
        t.push_str(&format!(
            "  probe it: --method {m} --params {}\n",
            shell_word(&p.to_string())
        ));
    }
    if rows.is_empty() {
        t.push_str("\nThe server lists no tools.\n");
    } else {
        let url = setup
            .url
            .as_ref()
            .map(|u| format!("--url {} ", shell_word(u)))
            .unwrap_or_default();
        let server = if command.is_empty() {
            String::new()
        } else {
            format!(" -- {}", command.join(" "))
        };
        t.push_str(&format!(
            "\nPick one that takes a while, fill in its arguments (the values shown are placeholders), then:\n  cancelcheck probe --dialect {} {url}--method tools/call --params '...'{server}\n",
            setup.dialect.id(),
        ));
    }
    Ok((t, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_read_back_as_written() {
        assert_eq!(shell_word("target/release/peer"), "target/release/peer");
        assert_eq!(shell_word(r#"{"a":1}"#), r#"'{"a":1}'"#);
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn required_arguments_get_placeholders_of_their_type() {
        let tool = Tool {
            name: "t".into(),
            description: None,
            input_schema: json!({"properties": {"n": {"type": "integer"}, "s": {"type": "string"},
                "b": {"type": "boolean"}}, "required": ["n", "s", "b", "x"]}),
        };
        assert_eq!(
            arguments(&tool),
            json!({"n": 0, "s": "", "b": false, "x": ""})
        );
        assert_eq!(type_of(&tool, "n").as_deref(), Some("integer"));
        assert_eq!(type_of(&tool, "x"), None);
    }
}
