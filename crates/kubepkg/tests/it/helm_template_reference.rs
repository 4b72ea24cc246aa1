//! `kubepkg template` against the real `helm template` (v4.3.1) on the chart corpus.
//!
//! The references under `testdata/helm-reference/cases/` were produced by
//! `tools/helm-ref/corpus.py generate` with a Helm CLI built from the Go module proxy. For each
//! case this test runs our binary with the same arguments from the repository root and requires
//! the same success or failure, and then: on success, the same warnings on stderr (Helm's
//! `level=…` log lines, compared as sorted lists: Helm emits them in Go's random map order) and
//! **the same bytes on stdout**; on failure, the same `Error:` line, or one that starts with
//! Helm's where listed in `error-messages-prefix.txt` (kubepkg adds the reason Helm's CLI drops).
//! Cases of `nondeterministic.txt` (random functions) are compared by document structure.
//! A case that renders the same documents in other bytes, or fails with another message, fails
//! the test unless `known-gaps.txt` lists it with a reason — and a listed case that matches
//! Helm now fails it too, so that list only shrinks. Deliberate differences (kubepkg refuses
//! what Helm loads) are listed with their reason in `exceptions.txt`. Every listed id must be a
//! case.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubepkg_testkit::helm_reference::{cases, listed, shape};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Split `helm template` output into (source, body) documents.
fn documents(out: &str) -> Vec<(String, String)> {
    let mut docs = Vec::new();
    for chunk in out.split("---\n") {
        if chunk.trim().is_empty() {
            continue;
        }
        let (source, body) = match chunk.strip_prefix("# Source: ") {
            Some(rest) => match rest.split_once('\n') {
                Some((s, b)) => (s.to_string(), b.to_string()),
                None => (rest.to_string(), String::new()),
            },
            None => (String::new(), chunk.to_string()),
        };
        docs.push((source, body));
    }
    docs
}

fn semantic(body: &str) -> Result<serde_json::Value, String> {
    let v = kubepkg_yaml::from_yaml_str(body).map_err(|e| e.to_string())?;
    Ok(kubepkg_chart::schema::value_to_json(&v))
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Exact,
    Semantic,
    Structural,
    BothFailed {
        same_message: bool,
        helm_prefix: bool,
    },
    Mismatch(String),
}

fn compare(case: &Path, bin: &Path, random: bool) -> Outcome {
    let args = std::fs::read_to_string(case.join("args")).expect("args");
    let args = shell_words(&args);
    let want_out = std::fs::read_to_string(case.join("stdout")).expect("stdout");
    let want_err = std::fs::read_to_string(case.join("stderr")).expect("stderr");
    let want_ok = std::fs::read_to_string(case.join("exit"))
        .expect("exit")
        .trim()
        == "0";
    let got = Command::new(bin)
        .args(&args)
        .current_dir(root())
        .env_remove("HELM_NAMESPACE")
        .output()
        .expect("run kubepkg");
    let got_out = String::from_utf8_lossy(&got.stdout).into_owned();
    let got_err = String::from_utf8_lossy(&got.stderr).into_owned();
    match (want_ok, got.status.success()) {
        (true, false) => {
            return Outcome::Mismatch(format!("helm succeeded, kubepkg failed: {got_err}"));
        }
        (false, true) => {
            return Outcome::Mismatch(format!(
                "helm failed ({}), kubepkg succeeded",
                want_err.trim()
            ));
        }
        (false, false) => {
            let first =
                |s: &str| repo_relative(s.lines().find(|l| l.starts_with("Error:")).unwrap_or(""));
            let (want, got) = (first(&want_err), first(&got_err));
            return Outcome::BothFailed {
                same_message: want == got,
                helm_prefix: !want.is_empty() && got.starts_with(&want),
            };
        }
        (true, true) => {}
    }
    let (want_logs, got_logs) = (log_lines(&want_err), log_lines(&got_err));
    if want_logs != got_logs {
        return Outcome::Mismatch(format!(
            "warnings on stderr differ (sorted):\n--- helm\n{}\n--- kubepkg\n{}",
            want_logs.join("\n"),
            got_logs.join("\n")
        ));
    }
    if want_out == got_out {
        return Outcome::Exact;
    }
    let (w, g) = (documents(&want_out), documents(&got_out));
    if w.len() != g.len() {
        return Outcome::Mismatch(format!(
            "{} documents from helm, {} from kubepkg\n--- helm\n{want_out}\n--- kubepkg\n{got_out}",
            w.len(),
            g.len()
        ));
    }
    let mut structural = false;
    for ((ws, wb), (gs, gb)) in w.iter().zip(&g) {
        if ws != gs {
            return Outcome::Mismatch(format!("source {ws} vs {gs}"));
        }
        match (semantic(wb), semantic(gb)) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(a), Ok(b)) if random && shape(&a) == shape(&b) => structural = true,
            (a, b) => {
                return Outcome::Mismatch(format!(
                    "document {ws} differs:\n--- helm\n{wb}\n--- kubepkg\n{gb}\n({:?} vs {:?})",
                    a.err(),
                    b.err()
                ));
            }
        }
    }
    if structural {
        Outcome::Structural
    } else {
        Outcome::Semantic
    }
}

/// `line` with the checkout's absolute path in a chart path written as `<repo>`: Helm names a
/// chart archive by its absolute path, which is the generator's checkout in the reference and
/// this one here.
fn repo_relative(line: &str) -> String {
    const MARK: &str = "/testdata/charts/";
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(MARK) {
        let start = rest[..at].rfind(['\'', '"', ' ']).map_or(0, |i| i + 1);
        let absolute = rest[start..at].starts_with('/');
        out.push_str(&rest[..start]);
        if absolute {
            out.push_str("<repo>");
        } else {
            out.push_str(&rest[start..at]);
        }
        out.push_str(MARK);
        rest = &rest[at + MARK.len()..];
    }
    out.push_str(rest);
    out
}

/// The log lines (Helm 4's slog records: `level=… msg=…`) of a successful run's stderr, sorted:
/// Helm coalesces values by ranging over Go maps, so the order of its warnings is random, but
/// each line and how often it comes are not.
fn log_lines(stderr: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("level=")).collect();
    lines.sort_unstable();
    lines
}

/// Split a line of arguments as the generator's `shlex.join` wrote it.
fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.trim_end().chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            ' ' if in_word => {
                out.push(std::mem::take(&mut cur));
                in_word = false;
            }
            ' ' => {}
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[test]
fn an_absolute_chart_path_is_compared_from_the_repository_root() {
    assert_eq!(
        repo_relative("Error: file '/work/main/testdata/charts/helm/x.tgz' is bad"),
        "Error: file '<repo>/testdata/charts/helm/x.tgz' is bad"
    );
    assert_eq!(
        repo_relative("Error: file '/tmp/ci/testdata/charts/helm/x.tgz' is bad"),
        "Error: file '<repo>/testdata/charts/helm/x.tgz' is bad"
    );
    assert_eq!(
        repo_relative("Error: testdata/charts/a: missing"),
        "Error: testdata/charts/a: missing"
    );
}

#[test]
fn kubepkg_template_matches_helm_template() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kubepkg"));
    let cases = cases("cases", "run tools/helm-ref/corpus.py generate", 100);
    let exceptions = listed("exceptions.txt");
    let known_gaps = listed("known-gaps.txt");
    let prefix_errors = listed("error-messages-prefix.txt");
    let random = listed("nondeterministic.txt");
    let ids: std::collections::BTreeSet<String> = cases
        .iter()
        .map(|c| c.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let (mut exact, mut gaps, mut structural, mut errs, mut excepted) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for (list, entries) in [
        ("exceptions.txt", &exceptions),
        ("known-gaps.txt", &known_gaps),
        ("error-messages-prefix.txt", &prefix_errors),
        ("nondeterministic.txt", &random),
    ] {
        for id in entries.keys().filter(|id| !ids.contains(*id)) {
            failures.push(format!(
                "{id}: listed in {list} but there is no such case: remove it"
            ));
        }
    }
    for case in &cases {
        let id = case.file_name().unwrap().to_string_lossy().into_owned();
        let outcome = compare(case, &bin, random.contains_key(&id));
        // Whether kubepkg's bytes (or error line) differ from Helm's in a way only
        // known-gaps.txt may excuse.
        let gap = match &outcome {
            Outcome::Exact => {
                exact += 1;
                false
            }
            Outcome::Semantic => true,
            Outcome::Structural => {
                structural += 1;
                false
            }
            Outcome::BothFailed {
                same_message,
                helm_prefix,
            } => {
                errs += 1;
                if prefix_errors.contains_key(&id) {
                    if !helm_prefix {
                        failures.push(format!("{id}: error message does not start with Helm's"));
                    }
                    false
                } else {
                    !same_message
                }
            }
            Outcome::Mismatch(m) => {
                if exceptions.contains_key(&id) {
                    excepted += 1;
                } else {
                    failures.push(format!("{id}: {m}"));
                }
                false
            }
        };
        match (gap, known_gaps.contains_key(&id)) {
            (true, true) => gaps += 1,
            (true, false) => failures.push(match outcome {
                Outcome::Semantic => format!(
                    "{id}: the same documents as Helm's but not the same bytes (run `kubepkg {}` and diff against cases/{id}/stdout); fix it, or list it in known-gaps.txt with the reason",
                    std::fs::read_to_string(case.join("args")).unwrap_or_default().trim()
                ),
                _ => format!(
                    "{id}: fails as Helm does but its `Error:` line is not Helm's; fix it, or list it in known-gaps.txt with the reason"
                ),
            }),
            (false, true) => failures.push(format!(
                "{id}: listed in known-gaps.txt but it matches Helm now: remove it (the list only shrinks)"
            )),
            (false, false) => {}
        }
    }
    println!(
        "helm reference: {} cases: {exact} byte-identical, {structural} structurally equal (random functions), {errs} failing in both, {gaps} known gaps, {excepted} listed exceptions, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
