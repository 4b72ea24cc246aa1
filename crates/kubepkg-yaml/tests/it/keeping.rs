//! `from_yaml_str_keeping` (a manifest's head) against `from_yaml_str` (the whole document,
//! held to Go by the corpus): on every input the same error, and where both decode, exactly the
//! kept top-level keys of the same value.

use kubepkg_yaml::{Value, from_yaml_str, from_yaml_str_keeping};

/// Documents whose JSON step fails somewhere only the whole-document path builds: a float JSON
/// cannot hold, a key JSON cannot hold, two of them (the first in key order is named), and a
/// failing value a later duplicate key replaces.
const CONVERSION_CASES: &[&str] = &[
    "kind: Pod\nspec:\n  x: .inf\n",
    "kind: Pod\nspec:\n  list: [1, -.inf]\n",
    "kind: Pod\nspec:\n  ? [a, b]\n  : 1\n",
    "kind: Pod\nspec:\n  ? {a: 1}\n  : 1\n",
    "kind: Pod\nspec:\n  ~: 1\n",
    "kind: Pod\nz: .nan\na: -.inf\n",
    "kind: Pod\nb:\n  z: .inf\na:\n  y: .nan\n",
    "kind: Pod\nspec:\n  1: .inf\n  \"1\": fine\n",
    "kind: Pod\nspec:\n  \"1\": fine\n  1: .inf\n",
    "kind: .inf\n",
    "metadata: {name: x, annotations: {a: .inf}}\n",
    "- .inf\n- 1\n",
    "apiVersion: v1\nkind: Pod\nspec:\n  18446744073709551615: x\n",
    "kind: Pod\nspec:\n  0.5: a\n  true: b\n  .inf: c\n",
];

fn head_field(k: &str) -> bool {
    ["apiVersion", "kind", "metadata"]
        .iter()
        .any(|f| f.eq_ignore_ascii_case(k))
}

/// `full` with only the top-level keys `keep` accepts, when it is a map.
fn kept(full: &Value, keep: &dyn Fn(&str) -> bool) -> Value {
    match full {
        Value::Map(m) => Value::map(
            kubepkg_value::map_read(m)
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn check(doc: &str, keep: &dyn Fn(&str) -> bool) -> bool {
    let full = from_yaml_str(doc).map_err(|e| e.to_string());
    let part = from_yaml_str_keeping(doc, keep).map_err(|e| e.to_string());
    match (&full, &part) {
        (Ok(f), Ok(p)) => assert_eq!(&kept(f, keep), p, "{doc:?}"),
        (Err(f), Err(p)) => assert_eq!(f, p, "{doc:?}"),
        _ => panic!("{doc:?}: whole {full:?}, keeping {part:?}"),
    }
    full.is_err()
}

#[test]
fn keeping_some_keys_decodes_and_fails_as_the_whole_document() {
    let corpus = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/yaml-corpus/read-cases.jsonl"),
    )
    .expect("corpus");
    let mut docs: Vec<String> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let row: serde_json::Value = serde_json::from_str(l).expect("row");
            row["yaml"].as_str().expect("yaml").to_string()
        })
        .collect();
    docs.extend(CONVERSION_CASES.iter().map(|d| d.to_string()));
    let mut failed = 0;
    for doc in &docs {
        for keep in [&head_field as &dyn Fn(&str) -> bool, &|_| false, &|_| true] {
            failed += usize::from(check(doc, keep));
        }
    }
    // The conversion cases fail (each is there for an error), and so do some of the corpus'.
    let conversion_failures = CONVERSION_CASES
        .iter()
        .filter(|d| from_yaml_str(d).is_err())
        .count();
    assert!(conversion_failures >= 11, "{conversion_failures}");
    assert!(failed > 3 * conversion_failures, "{failed}");
}
