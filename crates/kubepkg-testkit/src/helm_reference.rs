//! The recorded Helm references of `testdata/helm-reference/` (what `helm template` and Helm's
//! SDK rendered for the chart corpus), as the tests that compare kubepkg with them read them.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `testdata/helm-reference/` of the repository.
pub fn dir() -> PathBuf {
    crate::plane::repo_root().join("testdata/helm-reference")
}

/// The entries of `dir()/sub` (one recorded case each), sorted; at least `min` of them, else
/// the test fails saying how to record them (`record`).
pub fn cases(sub: &str, record: &str, min: usize) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir().join(sub))
        .unwrap_or_else(|e| panic!("Helm references in {sub}/ ({e}; {record})"))
        .map(|e| e.expect("entry").path())
        .collect();
    out.sort();
    assert!(
        out.len() >= min,
        "too few Helm references in {sub}/: {} ({record})",
        out.len()
    );
    out
}

/// The case list `dir()/file` (`case<TAB>why` per line; `#` comments and blank lines skipped,
/// a line without a tab is a case with no reason given); none when the file is missing.
pub fn listed(file: &str) -> BTreeMap<String, String> {
    std::fs::read_to_string(dir().join(file))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// The shape of a document (keys, types, string lengths), what two renderings of random
/// functions' outputs share.
pub fn shape(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        // Generated certificates and keys (genCA, genSignedCert, genPrivateKey) vary in length
        // by a few bytes from run to run (DER integers); long strings only need to be there.
        J::String(s) if s.len() >= 256 => J::from("string/long"),
        J::String(s) => J::from(format!("string/{}", s.len())),
        J::Array(a) => J::Array(a.iter().map(shape).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        J::Number(_) => J::from("number"),
        other => other.clone(),
    }
}
