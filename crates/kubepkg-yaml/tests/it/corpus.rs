//! Golden corpus: every case in `testdata/yaml-corpus` was run through the real Go libraries
//! Helm uses (`testdata/yaml-oracle`, regenerate with `testdata/yaml-oracle/regen.sh`); our
//! output must match byte for byte — the value (as Go's `json.Marshal` prints it) or the error
//! text. Cases listed in `known-gaps.txt` are known mismatches, each entry as narrow as the
//! difference: `FUNCTION CASE !error-text` when both sides refuse the input and only the
//! wording differs, `FUNCTION CASE` when the results differ otherwise (one accepts what the
//! other refuses, or the values differ), `FUNCTION *` for a function not yet matched at all.
//! The test fails if any other case mismatches, and if a listed entry no longer matches any
//! mismatch of the run (every kind of entry: the list only shrinks). Pass rates per function
//! are printed; `CORPUS_DUMP=FILE` writes the entry of every mismatch of the run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use kubepkg_yaml::Value;

/// The committed corpus, or `KUBEPKG_YAML_CORPUS=DIR` for a differential fuzzing run (files the
/// directory lacks count as empty there).
fn corpus_dir() -> PathBuf {
    match std::env::var_os("KUBEPKG_YAML_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/yaml-corpus"),
    }
}

fn rows(file: &str) -> Vec<serde_json::Value> {
    let path = corpus_dir().join(file);
    if std::env::var_os("KUBEPKG_YAML_CORPUS").is_some() && !path.exists() {
        return Vec::new();
    }
    let text = std::fs::read_to_string(path).expect("corpus file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

/// The corpus' typed JSON (see the oracle): integers are Go `int`, numbers with `.`/`e` are
/// `float64`, `{"$f": …}` a float64 by text, `{"$u": …}` uint64, `{"$b": base64}` `[]byte`.
fn typed(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64().filter(|_| !n.is_f64()) {
                Value::Int(i)
            } else if let Some(u) = n.as_u64().filter(|_| !n.is_f64()) {
                Value::Uint(u)
            } else {
                Value::Float(n.as_f64().expect("float"))
            }
        }
        J::String(s) => Value::from(s.as_str()),
        J::Array(a) => Value::list(a.iter().map(typed).collect()),
        J::Object(o) => {
            if o.len() == 1 {
                if let Some(J::String(s)) = o.get("$f") {
                    let f = match s.as_str() {
                        "NaN" => f64::NAN,
                        "+Inf" => f64::INFINITY,
                        "-Inf" => f64::NEG_INFINITY,
                        s => s.parse().expect("float text"),
                    };
                    return Value::Float(f);
                }
                if let Some(J::String(s)) = o.get("$u") {
                    return Value::Uint(s.parse().expect("uint"));
                }
                if let Some(J::String(s)) = o.get("$b") {
                    use base64::Engine;
                    let b = base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .expect("b64");
                    return Value::Bytes(Arc::from(b));
                }
            }
            Value::map(
                o.iter()
                    .map(|(k, v)| (k.clone(), typed(v)))
                    .collect::<BTreeMap<_, _>>(),
            )
        }
    }
}

fn render<E: std::fmt::Display>(r: Result<String, E>) -> (Option<String>, Option<String>) {
    match r {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e.to_string())),
    }
}

fn as_json<E: std::fmt::Display>(r: Result<Value, E>) -> (Option<String>, Option<String>) {
    match r {
        Ok(v) => match kubepkg_yaml::json::to_json(&v) {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(format!("oracle: {e}"))),
        },
        Err(e) => (None, Some(e.to_string())),
    }
}

struct Tally {
    known: BTreeSet<String>,
    total: BTreeMap<String, (usize, usize)>,
    unexpected: Vec<String>,
    /// The narrowest entry of every mismatch of the run (what `CORPUS_DUMP` writes).
    mismatches: Vec<String>,
    /// Known gaps that did cover a mismatch in this run; any other listed entry is stale.
    gap_hits: BTreeSet<String>,
}

impl Tally {
    fn check(
        &mut self,
        case: &str,
        func: &str,
        expected: &serde_json::Value,
        got: (Option<String>, Option<String>),
    ) {
        let want_v = expected
            .get("value")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let want_e = expected
            .get("error")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let t = self.total.entry(func.to_string()).or_default();
        t.0 += 1;
        if want_v == got.0 && want_e == got.1 {
            t.1 += 1;
            return;
        }
        // Both refuse the input, in other words: only the error text differs.
        let error_text_only =
            want_v.is_none() && got.0.is_none() && want_e.is_some() && got.1.is_some();
        let narrow = if error_text_only {
            format!("{func} {case} !error-text")
        } else {
            format!("{func} {case}")
        };
        self.mismatches.push(narrow.clone());
        match [narrow.clone(), format!("{func} *")]
            .into_iter()
            .find(|k| self.known.contains(k))
        {
            Some(k) => {
                self.gap_hits.insert(k);
            }
            None => self.unexpected.push(format!(
                "{narrow}\n   want: {:?} / err {:?}\n   got:  {:?} / err {:?}",
                want_v, want_e, got.0, got.1
            )),
        }
    }
}

#[test]
fn corpus_matches_go() {
    let known: BTreeSet<String> = std::fs::read_to_string(corpus_dir().join("known-gaps.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let mut t = Tally {
        gap_hits: BTreeSet::new(),
        known,
        total: BTreeMap::new(),
        unexpected: Vec::new(),
        mismatches: Vec::new(),
    };

    for row in rows("read-expected.jsonl") {
        let name = row["name"].as_str().unwrap();
        let src = row["yaml"].as_str().unwrap();
        t.check(
            name,
            "read.any",
            &row["any"],
            as_json(kubepkg_yaml::from_yaml_str(src)),
        );
        t.check(
            name,
            "read.map",
            &row["map"],
            as_json(kubepkg_yaml::from_yaml_map(src)),
        );
        t.check(
            name,
            "read.array",
            &row["array"],
            as_json(kubepkg_yaml::from_yaml_array(src)),
        );
        t.check(
            name,
            "yamlToJson",
            &row["yamlToJson"],
            render(kubepkg_yaml::yaml_to_json(src).map_err(|e| e.go_text())),
        );
        t.check(
            name,
            "read.values",
            &row["values"],
            as_json(kubepkg_yaml::load_values(src)),
        );
    }
    for row in rows("write-expected.jsonl") {
        let name = row["name"].as_str().unwrap();
        let v = typed(&row["value"]);
        t.check(
            name,
            "toYaml",
            &row["toYaml"],
            render(kubepkg_yaml::to_yaml(&v)),
        );
        t.check(
            name,
            "toYamlPretty",
            &row["toYamlPretty"],
            render(kubepkg_yaml::to_yaml_pretty(&v)),
        );
        t.check(
            name,
            "toJson",
            &row["toJson"],
            render(kubepkg_yaml::json::to_json(&v)),
        );
        t.check(
            name,
            "toPrettyJson",
            &row["toPrettyJson"],
            render(kubepkg_yaml::json::to_pretty_json(&v)),
        );
        t.check(
            name,
            "toRawJson",
            &row["toRawJson"],
            render(kubepkg_yaml::json::to_raw_json(&v)),
        );
        t.check(
            name,
            "toToml",
            &row["toToml"],
            render(kubepkg_yaml::toml::to_toml(&v)),
        );
    }
    for row in rows("json-expected.jsonl") {
        let name = row["name"].as_str().unwrap();
        let src = row["json"].as_str().unwrap();
        t.check(
            name,
            "json.any",
            &row["any"],
            as_json(kubepkg_yaml::json::from_json(src)),
        );
        t.check(
            name,
            "json.map",
            &row["map"],
            as_json(kubepkg_yaml::json::from_json_map(src)),
        );
        t.check(
            name,
            "json.array",
            &row["array"],
            as_json(kubepkg_yaml::json::from_json_array(src)),
        );
        t.check(
            name,
            "fromToml",
            &row["fromToml"],
            as_json(kubepkg_yaml::toml::from_toml(src)),
        );
    }

    // Every listed entry must still cover a mismatch of this run, whatever its kind.
    let stale: Vec<&String> = t.known.difference(&t.gap_hits).collect();
    let mut report = String::new();
    let (mut all, mut pass) = (0, 0);
    for (f, (n, p)) in &t.total {
        report.push_str(&format!("{f:>14}: {p}/{n}\n"));
        all += n;
        pass += p;
    }
    report.push_str(&format!("{:>14}: {pass}/{all}\n", "total"));
    eprintln!("{report}");
    // CORPUS_DUMP=/path writes the narrowest entry of every mismatch (for development).
    if let Ok(path) = std::env::var("CORPUS_DUMP") {
        let _ = std::fs::write(path, t.mismatches.join("\n"));
    }
    let shown: Vec<&String> = t.unexpected.iter().take(40).collect();
    assert!(
        t.unexpected.is_empty() && stale.is_empty(),
        "{} unexpected mismatches (first 40):\n{}\n{} known gaps are stale (remove them from known-gaps.txt): {:?}",
        t.unexpected.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        stale.len(),
        stale
    );
}
