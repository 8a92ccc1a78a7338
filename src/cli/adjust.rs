//! Changing a scenario from the command line: `run --set FIELD=VALUE`, and the flags that
//! carry out a [`Fix`] (what a `vacuous` verdict offers as its first next step) on `run` and
//! on `explore`.

use super::bad;
use cancelcheck::probe::tools::shell_word;
use cancelcheck_sim::Scenario;
use cancelcheck_sim::coverage::Fix;
use cancelcheck_sim::scenario::{Nesting, Workload};

/// `DxF`, as `--nesting` takes it.
pub fn nesting_flag(n: Nesting) -> String {
    format!("{}x{}", n.depth, n.fanout)
}

/// `--set FIELD=VALUE` with the value the built-in default gives that field.
fn set_default(field: &str, value: serde_json::Value) -> (String, String) {
    (
        "--set".into(),
        format!("{field}={}", shell_word(&value.to_string())),
    )
}

/// The `run` flags (flag, value) that carry out `fix` on a run over `seeds`.
pub fn run_flags(fix: Fix, seeds: &std::ops::Range<u64>) -> Vec<(String, String)> {
    let d = Workload::default();
    let json = |v: &Option<cancelcheck_sim::link::Latency>| {
        serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
    };
    match fix {
        Fix::Nesting(n) => vec![("--nesting".into(), nesting_flag(n))],
        Fix::Requests(n) => vec![("--requests".into(), n.to_string())],
        Fix::Workers(n) => vec![("--workers".into(), n.to_string())],
        Fix::ServerRequests(n) => vec![("--server-requests".into(), n.to_string())],
        Fix::InitTimeout => vec![set_default("workload.init_timeout", json(&d.init_timeout))],
        Fix::Timeouts => vec![set_default("workload.timeout", json(&d.timeout))],
        Fix::Progress => vec![set_default(
            "workload.progress_permille",
            d.progress_permille.into(),
        )],
        Fix::Cancels => vec![set_default(
            "workload.cancel_permille",
            d.cancel_permille.into(),
        )],
        Fix::InternalCancels => vec![set_default(
            "workload.internal_cancel_permille",
            d.internal_cancel_permille.into(),
        )],
        Fix::NoCancelSupport => vec![set_default("workload.cancel_support", false.into())],
        Fix::Tasks => vec![set_default(
            "workload.task_permille",
            cancelcheck_sim::scenario::TASK_PERMILLE_TO_ACT.into(),
        )],
        Fix::Reordering => vec![("--transport".into(), "reordering".into())],
        Fix::Http => vec![("--transport".into(), "http".into())],
        Fix::Disconnects => vec![set_default(
            "link.disconnect_permille",
            cancelcheck_sim::scenario::HTTP_DISCONNECT_PERMILLE.into(),
        )],
        Fix::MoreSeeds => {
            let wider = seeds
                .start
                .saturating_add((seeds.end - seeds.start).saturating_mul(10));
            vec![("--seeds".into(), format!("{}..{wider}", seeds.start))]
        }
    }
}

/// The `explore` flags that carry out `fix`, or `None` where only a scenario file can say it
/// (the explorer's flags always let requests be cancelled, and leave declared support open).
pub fn explore_flags(fix: Fix, s: &Scenario) -> Option<Vec<String>> {
    Some(match fix {
        Fix::Nesting(n) => vec!["--nesting".into(), nesting_flag(n)],
        Fix::Requests(n) => vec!["--requests".into(), n.to_string()],
        Fix::Workers(n) => vec!["--workers".into(), n.to_string()],
        Fix::ServerRequests(n) => vec!["--server-requests".into(), n.to_string()],
        Fix::InitTimeout => vec!["--init-timeout".into()],
        Fix::Timeouts => vec!["--timeouts".into()],
        Fix::Progress => vec!["--progress".into()],
        Fix::InternalCancels => vec!["--internal-cancel".into()],
        Fix::Tasks => vec!["--tasks".into()],
        Fix::Reordering => vec!["--transport".into(), "reordering".into()],
        Fix::Http => vec!["--transport".into(), "http".into()],
        Fix::MoreSeeds if s.link.order == cancelcheck_sim::link::Order::Fifo => {
            vec!["--transport".into(), "reordering".into()]
        }
        Fix::MoreSeeds => vec![
            "--requests".into(),
            (s.workload.requests.saturating_add(1)).to_string(),
        ],
        // (The explorer drops every stream it may on Streamable HTTP.)
        Fix::Cancels | Fix::NoCancelSupport | Fix::Disconnects => return None,
    })
}

/// Applies each `FIELD=VALUE` of `--set` to `s` in order. The field is a dotted path into the
/// scenario (`workload.requests`, `link.order`); the value is JSON, or a bare word taken as a
/// string (`link.order=reordering`). An unknown field or a value of the wrong type is a usage
/// error naming the `--set` and what was expected there.
pub fn apply_sets(s: &mut Scenario, sets: &[String]) -> anyhow::Result<()> {
    for set in sets {
        let Some((field, value)) = set.split_once('=') else {
            return Err(bad(format!(
                "--set {set:?}: expected FIELD=VALUE, e.g. workload.requests=2 or link.order=reordering"
            )));
        };
        let field = field.trim();
        let value: serde_json::Value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        let mut whole = serde_json::to_value(&*s).map_err(|e| {
            bad(format!(
                "--set {set}: the scenario could not be encoded: {e}"
            ))
        })?;
        let mut at = &mut whole;
        let parts: Vec<&str> = field.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let serde_json::Value::Object(map) = at else {
                return Err(bad(format!(
                    "--set {set}: `{}` holds no fields",
                    parts[..i].join(".")
                )));
            };
            if i + 1 == parts.len() {
                map.insert((*part).to_string(), value.clone());
                break;
            }
            // A field left out of the encoding (a default that is not written) is an object
            // only where the scenario's shape says so; an unknown one is refused below.
            at = map
                .entry((*part).to_string())
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
        }
        let de = serde_path_to_error::deserialize::<_, Scenario>(whole);
        *s = de.map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { field.to_string() } else { path };
            bad(format!("--set {set}: field `{path}`: {}", e.into_inner()))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_value_is_one_shell_word_even_with_a_quote_in_it() {
        let set = |v: serde_json::Value| set_default("f", v).1;
        assert_eq!(set(serde_json::json!(3)), "f=3");
        assert_eq!(set(serde_json::json!({"a": 1})), r#"f='{"a":1}'"#);
        assert_eq!(set(serde_json::json!("it's")), r#"f='"it'\''s"'"#);
    }
}
