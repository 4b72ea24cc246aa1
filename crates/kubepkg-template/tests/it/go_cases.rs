//! The Go-oracle corpus: every case in `go-cases.jsonl` was executed by Go's own text/template
//! (see `go-oracle/`, regenerate with `go-oracle/regen.sh`); our engine must produce the same
//! output or the same error text byte for byte.

use crate::common::{funcs, json_to_value};
use kubepkg_template::{MissingKey, Templates, Value};

#[test]
fn engine_matches_go_text_template() {
    let corpus = include_str!("../go-cases.jsonl");
    let mut failures = Vec::new();
    let mut total = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        total += 1;
        let c: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
        let name = c["name"].as_str().unwrap_or("t");
        let text = c["template"].as_str().unwrap_or("");
        let data_s = c["data"].as_str().unwrap_or("");
        let data = if data_s.is_empty() {
            Value::Nil
        } else {
            json_to_value(&serde_json::from_str(data_s).expect("case data is JSON"))
        };
        let mut t = Templates::new(funcs());
        t.set_missing_key(match c["missingkey"].as_str() {
            Some("default") => MissingKey::Default,
            Some("error") => MissingKey::Error,
            _ => MissingKey::Zero,
        });
        let got = match t.parse(name, text) {
            Err(e) => Err(e.to_string()),
            Ok(()) => t.execute(name, &data).map_err(|e| e.to_string()),
        };
        let want = match (c["output"].as_str(), c["error"].as_str()) {
            (Some(o), _) => Ok(o.to_string()),
            (_, Some(e)) => Err(e.to_string()),
            _ => panic!("case without expectation: {line}"),
        };
        if got != want {
            failures.push(format!(
                "template {text:?}\n   want {want:?}\n    got {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases differ from Go:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
