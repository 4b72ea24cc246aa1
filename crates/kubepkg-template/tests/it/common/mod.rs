//! Shared by the oracle tests (Go's text/template, Helm's engine) and the engine benchmark: the
//! functions the Go oracle registers and the loop over a corpus (case data is read as Go reads
//! JSON, by `kubepkg_yaml::json::from_json`).

#![allow(dead_code)]

use std::collections::BTreeMap;

use kubepkg_template::{ArgType, Function, Value, sprint};

/// Checks every case of `corpus` (JSON lines; blank lines skipped): `check` gets the case and
/// its line and returns what differs, if anything. Fails listing every differing case, as
/// "N of TOTAL cases differ from `oracle`".
pub fn check_corpus(
    corpus: &str,
    oracle: &str,
    mut check: impl FnMut(&serde_json::Value, &str) -> Option<String>,
) {
    let mut failures = Vec::new();
    let mut total = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        total += 1;
        let c: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
        failures.extend(check(&c, line));
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases differ from {oracle}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

pub fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

pub fn funcs() -> Vec<Function> {
    vec![
        Function {
            name: "upper",
            params: &[ArgType::String],
            variadic: None,
            call: |a| Ok(Value::str(s(&a[0]).to_uppercase())),
        },
        Function {
            name: "add1",
            params: &[ArgType::Int],
            variadic: None,
            call: |a| match a[0] {
                Value::Int(i) => Ok(Value::Int(i + 1)),
                _ => Err("bad".into()),
            },
        },
        Function {
            name: "half",
            params: &[ArgType::Float64],
            variadic: None,
            call: |a| match a[0] {
                Value::Float(f) => Ok(Value::Float(f / 2.0)),
                _ => Err("bad".into()),
            },
        },
        Function {
            name: "join",
            params: &[ArgType::List, ArgType::String],
            variadic: None,
            call: |a| {
                let parts: Vec<String> = match &a[0] {
                    Value::List(l, _) => l.iter().map(kubepkg_template::format_value).collect(),
                    _ => vec![],
                };
                Ok(Value::str(parts.join(s(&a[1]))))
            },
        },
        Function {
            name: "strs",
            params: &[],
            variadic: None,
            call: |_| Ok(Value::str_list(["b", "a"])),
        },
        Function {
            name: "boom",
            params: &[ArgType::String],
            variadic: None,
            call: |a| Err(format!("boom: {}", s(&a[0]))),
        },
        Function {
            name: "cat",
            params: &[],
            variadic: Some(ArgType::Any),
            call: |a| Ok(Value::str(sprint(a))),
        },
        Function {
            name: "dict1",
            params: &[ArgType::String, ArgType::Any],
            variadic: None,
            call: |a| {
                let mut m = BTreeMap::new();
                m.insert(s(&a[0]).to_string(), a[1].clone());
                Ok(Value::map(m))
            },
        },
        Function {
            name: "i64",
            params: &[ArgType::Any],
            variadic: None,
            call: |_| Ok(Value::Int64(7)),
        },
    ]
}
