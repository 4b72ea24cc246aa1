//! The Go-oracle corpus: every case in `go-cases.jsonl` was executed by Go's own text/template
//! (see `go-oracle/`, regenerate with `go-oracle/regen.sh`); our engine must produce the same
//! output or the same error text byte for byte.

use std::collections::BTreeMap;

use kubepkg_template::{ArgType, Function, MissingKey, Templates, Value, sprint};

fn json_to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::str(s),
        serde_json::Value::Array(a) => Value::list(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => Value::map(
            o.iter()
                .map(|(k, v)| (k.clone(), json_to_value(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

fn funcs() -> Vec<Function> {
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

#[test]
fn engine_matches_go_text_template() {
    let corpus = include_str!("go-cases.jsonl");
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
