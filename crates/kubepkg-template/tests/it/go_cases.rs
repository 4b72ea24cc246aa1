//! The Go-oracle corpus: every case in `go-cases.jsonl` was executed by Go's own text/template
//! (see `go-oracle/`, regenerate with `go-oracle/regen.sh`); our engine must produce the same
//! output or the same error text byte for byte.

use crate::common::{check_corpus, funcs};
use kubepkg_template::{MissingKey, Templates, Value};
use kubepkg_yaml::json::from_json;

#[test]
fn engine_matches_go_text_template() {
    check_corpus(include_str!("../go-cases.jsonl"), "Go", |c, line| {
        let name = c["name"].as_str().unwrap_or("t");
        let text = c["template"].as_str().unwrap_or("");
        let data_s = c["data"].as_str().unwrap_or("");
        let data = if data_s.is_empty() {
            Value::Nil
        } else {
            from_json(data_s).expect("case data is JSON")
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
        (got != want).then(|| format!("template {text:?}\n   want {want:?}\n    got {got:?}"))
    });
}
