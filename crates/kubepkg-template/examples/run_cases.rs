//! Runs engine cases (JSON Lines as `tests/go-oracle` reads them) through kubepkg-template and
//! writes them back with `output`/`error` filled in: the Rust side of the differential fuzzer
//! (`tests/go-oracle/fuzz.py`).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::io::{BufRead, Write};

use common::funcs;
use kubepkg_template::{MissingKey, Templates, Value};
use kubepkg_yaml::json::from_json;

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let mut c: serde_json::Value = match serde_json::from_str(&line) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("bad case: {e}");
                continue;
            }
        };
        let name = c["name"].as_str().unwrap_or("t").to_string();
        let text = c["template"].as_str().unwrap_or("").to_string();
        let data_s = c["data"].as_str().unwrap_or("");
        let data = if data_s.is_empty() {
            Value::Nil
        } else {
            from_json(data_s).unwrap_or(Value::Nil)
        };
        let mut t = Templates::new(funcs());
        t.set_missing_key(match c["missingkey"].as_str() {
            Some("default") => MissingKey::Default,
            Some("error") => MissingKey::Error,
            _ => MissingKey::Zero,
        });
        let r = match t.parse(&name, &text) {
            Err(e) => Err(e.to_string()),
            Ok(()) => t.execute(&name, &data).map_err(|e| e.to_string()),
        };
        let obj = c.as_object_mut().expect("case is an object");
        obj.remove("output");
        obj.remove("error");
        match r {
            Ok(s) => obj.insert("output".into(), serde_json::Value::String(s)),
            Err(e) => obj.insert("error".into(), serde_json::Value::String(e)),
        };
        let _ = writeln!(out, "{}", serde_json::to_string(&c).unwrap_or_default());
    }
}
