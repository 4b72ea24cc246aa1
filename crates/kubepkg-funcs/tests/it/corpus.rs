//! The template corpus: every case in `testdata/template-corpus` was rendered by Helm's real
//! engine (helm.sh/helm/v4, through `oracle/`), and kubepkg's engine with Helm's functions must
//! reproduce it byte for byte — the output, or both the raw text/template error and Helm's
//! reformatted error — or, for nondeterministic functions, satisfy the case's shape rule.
//!
//! Prints a summary by group and the first failures; fails if any case fails that is not listed
//! in `testdata/template-corpus/known-gaps.txt` (each line: a case name, then `#` and why), and
//! also if a listed case now passes, so the list can only shrink. Listed cases still run.
//! Environment:
//! `KUBEPKG_CORPUS=a.jsonl:b.jsonl` runs other files (the differential fuzzer uses this),
//! `KUBEPKG_CORPUS_FILTER=substr` runs only cases whose name contains it,
//! `KUBEPKG_CORPUS_SHOW=n` shows n failures (default 40), `KUBEPKG_CORPUS_FAILED=path` writes the
//! names of failing cases to a file.

use crate::support;
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::Duration;

use crate::support::{Case, Outcome};

/// Longest a case may take before it counts as a hang (unoptimised builds generate RSA keys
/// slowly, hence the longer bound there).
const CASE_TIMEOUT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(180)
} else {
    Duration::from_secs(30)
};

/// Render on a thread with a large stack and a deadline; a panic or a hang is a failure, not
/// the end of the run.
fn run_isolated(case: &Case) -> Result<Outcome, String> {
    let (tx, rx) = mpsc::channel();
    let c = case.clone();
    let spawned = std::thread::Builder::new()
        .name(case.name.clone())
        .stack_size(256 << 20)
        .spawn(move || {
            let r = std::panic::catch_unwind(|| support::render(&c));
            let _ = tx.send(r);
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread: {e}"));
    }
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(panic)) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("PANIC: {msg}"))
        }
        Err(_) => Err(format!("HANG: no result within {CASE_TIMEOUT:?}")),
    }
}

#[test]
fn corpus_matches_helm() {
    let filter = std::env::var("KUBEPKG_CORPUS_FILTER").unwrap_or_default();
    let show: usize = std::env::var("KUBEPKG_CORPUS_SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut cases: Vec<Case> = Vec::new();
    for file in support::corpus_files() {
        let loaded = support::load_cases(&file).unwrap_or_else(|e| panic!("{e}"));
        cases.extend(loaded.into_iter().filter(|c| c.name.contains(&filter)));
    }
    // Quiet the default panic message: panics are reported as failures below.
    std::panic::set_hook(Box::new(|_| {}));

    let mut by_group: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures: Vec<(String, String)> = Vec::new();
    let total = cases.len();
    let mut slowest: Vec<(Duration, String)> = Vec::new();
    for case in &cases {
        let start = std::time::Instant::now();
        let verdict = run_isolated(case).and_then(|got| support::verify(case, &got));
        slowest.push((start.elapsed(), case.name.clone()));
        let entry = by_group.entry(case.group.clone()).or_default();
        match verdict {
            Ok(()) => entry.0 += 1,
            Err(why) => {
                entry.1 += 1;
                failures.push((case.name.clone(), why));
            }
        }
    }
    let _ = std::panic::take_hook();

    let passed = total - failures.len();
    println!(
        "\ntemplate corpus: {passed}/{total} cases match Helm ({} failed)",
        failures.len()
    );
    println!("{:<16} {:>7} {:>7}", "group", "passed", "failed");
    for (group, (p, f)) in &by_group {
        println!("{group:<16} {p:>7} {f:>7}");
    }
    slowest.sort_by(|a, b| b.cmp(a));
    let slow: Vec<String> = slowest
        .iter()
        .take(5)
        .map(|(d, n)| format!("{n} {d:.2?}"))
        .collect();
    println!("slowest: {}", slow.join(", "));
    for (name, why) in failures.iter().take(show) {
        println!("FAIL {name}\n      {why}");
    }
    if let Ok(path) = std::env::var("KUBEPKG_CORPUS_FAILED") {
        let names: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).collect();
        std::fs::write(&path, names.join("\n") + "\n").unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    assert!(total > 0, "no corpus cases found (filter {filter:?})");
    let known = if std::env::var_os("KUBEPKG_CORPUS").is_some() {
        Default::default()
    } else {
        support::known_gaps()
    };
    let unexpected: Vec<&str> = failures
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !known.contains(*n))
        .collect();
    let failed: std::collections::BTreeSet<&str> =
        failures.iter().map(|(n, _)| n.as_str()).collect();
    let fixed: Vec<&String> = known
        .iter()
        .filter(|n| cases.iter().any(|c| &c.name == *n) && !failed.contains(n.as_str()))
        .collect();
    println!(
        "known gaps (testdata/template-corpus/known-gaps.txt): {} listed, {} still failing",
        known.len(),
        failures.len() - unexpected.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} of {total} corpus cases differ from Helm and are not known gaps: {unexpected:?}",
        unexpected.len()
    );
    assert!(
        fixed.is_empty(),
        "these known gaps now match Helm; remove them from known-gaps.txt: {fixed:?}"
    );
}
