//! What README.md and the docs show is what the CLI does.
//!
//! 1. Every `kubepkg …` command line in a `sh` code block of README.md, docs/*.md and
//!    examples/*/README.md — synopsis lines with placeholders included — names verbs the binary
//!    has and flags those verbs take (`kubepkg VERB… --help` lists each one).
//! 2. Code blocks marked ` ```sh runnable ` are run, line by line, in one `bash` on the local
//!    control plane, with the built `kubepkg` first on `PATH` and `-n shop` (and `shop/` in the
//!    output shown) replaced by a fresh namespace. Every command must succeed, except one whose comment begins with `# refused`,
//!    which must fail; the output a block shows under a command (comment lines `#   text`, `…`
//!    elided) must appear in what that command printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kubepkg_testkit::TestNamespace;

use crate::support::repo;

/// A fenced code block: file, first line number, info string, lines.
struct Block {
    file: PathBuf,
    line: usize,
    info: String,
    lines: Vec<String>,
}

fn doc_files() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "examples"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("read docs dir") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            } else if path.join("README.md").is_file() {
                files.push(path.join("README.md"));
            }
        }
    }
    files.sort();
    files
}

fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).expect("read doc");
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    file: file.to_path_buf(),
                    line: i + 1,
                    info: info.trim().to_string(),
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(_)) => out.push(open.take().expect("open block")),
            (Some(block), None) => block.lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    out
}

fn is_shell(block: &Block) -> bool {
    matches!(
        block.info.split_whitespace().next(),
        Some("sh" | "bash" | "console" | "shell")
    )
}

/// The help text of `kubepkg PATH… --help`, or `None` when PATH is not a verb path.
fn help_of(path: &[String], cache: &mut BTreeMap<Vec<String>, Option<String>>) -> Option<String> {
    cache
        .entry(path.to_vec())
        .or_insert_with(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
                .args(path)
                .arg("--help")
                .output()
                .expect("run kubepkg --help");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let usage = format!("Usage: kubepkg {}", path.join(" "));
            (out.status.success() && text.contains(usage.trim_end())).then_some(text)
        })
        .clone()
}

/// Whether `help` lists `flag` (as a whole word: `-n` not inside `-name`).
fn lists_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        let before = help[..at].chars().next_back();
        let after = help[at + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// The problems of one `kubepkg` invocation's words (everything after `kubepkg`).
fn check_invocation(
    words: &[&str],
    cache: &mut BTreeMap<Vec<String>, Option<String>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut rest = words;
    // The verb path: leading lowercase words that are verbs (`a|b` alternatives each one).
    while let Some((word, tail)) = rest.split_first() {
        let alternatives: Vec<&str> = word.split('|').collect();
        let verb_like = |w: &str| {
            !w.is_empty()
                && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && !w.starts_with('-')
        };
        if !alternatives.iter().all(|w| verb_like(w)) {
            break;
        }
        let mut next = path.clone();
        next.push(alternatives[0].to_string());
        if help_of(&next, cache).is_none() {
            break;
        }
        for other in &alternatives[1..] {
            let mut alt = path.clone();
            alt.push((*other).to_string());
            if help_of(&alt, cache).is_none() {
                problems.push(format!("`kubepkg {}` is not a verb", alt.join(" ")));
            }
        }
        path = next;
        rest = tail;
    }
    let help = help_of(&path, cache).expect("the top-level help");
    for word in rest {
        let word = word.trim_start_matches('[').trim_end_matches(']');
        let word = word.split('=').next().unwrap_or(word);
        // `--versions|-l`: each alternative.
        for flag in word.split('|') {
            let is_flag = flag.starts_with('-')
                && flag.len() > 1
                && flag != "--"
                && flag
                    .chars()
                    .nth(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '-');
            if is_flag && !lists_flag(&help, flag) {
                problems.push(format!("`kubepkg {}` has no flag {flag}", path.join(" ")));
            }
        }
    }
    problems
}

/// The command part of a shell line (its comment cut off).
fn command_part(line: &str) -> &str {
    let line = line.trim();
    let line = line.strip_prefix("$ ").unwrap_or(line);
    if line.starts_with('#') {
        return "";
    }
    match line.find(" #") {
        Some(at) => &line[..at],
        None => line,
    }
}

#[test]
fn every_kubepkg_line_in_the_docs_names_verbs_and_flags_the_cli_has() {
    let mut cache = BTreeMap::new();
    // The check itself can fail: a verb alternative and a flag the CLI does not have.
    assert_eq!(
        check_invocation(
            &["rollout", "pause|halt", "shop", "--no-such-flag", "-n", "x"],
            &mut cache
        ),
        [
            "`kubepkg rollout halt` is not a verb",
            "`kubepkg rollout pause` has no flag --no-such-flag"
        ]
    );
    let (mut checked, mut problems) = (0, Vec::new());
    for file in doc_files() {
        for block in blocks(&file).iter().filter(|b| is_shell(b)) {
            for (offset, line) in block.lines.iter().enumerate() {
                for segment in command_part(line).split(" | ") {
                    let words: Vec<&str> = segment.split_whitespace().collect();
                    let Some(at) = words
                        .iter()
                        .position(|w| *w == "kubepkg" || w.ends_with("(kubepkg"))
                    else {
                        continue;
                    };
                    checked += 1;
                    for problem in check_invocation(&words[at + 1..], &mut cache) {
                        problems.push(format!(
                            "{}:{}: {problem}\n    {}",
                            file.strip_prefix(repo()).unwrap_or(&file).display(),
                            block.line + offset + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    println!("{checked} kubepkg command lines checked in the docs");
    assert!(
        checked > 100,
        "only {checked} kubepkg lines found in the docs"
    );
    assert!(
        problems.is_empty(),
        "{} doc lines name what the CLI does not have:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// One command of a runnable block: its line, the command, whether it must fail, and the
/// output excerpts shown under it.
struct Step {
    line: usize,
    command: String,
    refused: bool,
    shown: Vec<String>,
}

fn steps(block: &Block) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for (offset, line) in block.lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(shown) = trimmed.strip_prefix("#  ") {
            let shown = shown.trim();
            if let Some(step) = out.last_mut()
                && !shown.is_empty()
                && shown != "…"
            {
                step.shown.push(shown.to_string());
            }
            continue;
        }
        let command = command_part(trimmed);
        if command.is_empty() {
            continue;
        }
        out.push(Step {
            line: block.line + offset + 1,
            command: command.to_string(),
            refused: trimmed.contains("# refused"),
            shown: Vec::new(),
        });
    }
    out
}

/// Whitespace runs as one space, so an excerpt's alignment does not matter.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_runnable_blocks_of_the_docs_run_as_shown() {
    let runnable: Vec<Block> = doc_files()
        .iter()
        .flat_map(|f| blocks(f))
        .filter(|b| is_shell(b) && b.info.split_whitespace().any(|w| w == "runnable"))
        .collect();
    assert!(!runnable.is_empty(), "no ```sh runnable block in the docs");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kubepkg"))
        .parent()
        .expect("binary dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in &runnable {
        let ns = TestNamespace::fresh("docs-runnable").await;
        let where_ = format!(
            "{}:{}",
            block
                .file
                .strip_prefix(repo())
                .unwrap_or(&block.file)
                .display(),
            block.line
        );
        // Assignments (`local=(…)`) carry to the later lines: the block runs as one script,
        // each command's output captured to its own file.
        let dir = tempfile::tempdir().expect("tempdir");
        let steps = steps(block);
        let mut script = String::from("set -u\n");
        for (i, step) in steps.iter().enumerate() {
            let command = step
                .command
                .replace(" -n shop", &format!(" -n {}", ns.name()));
            if !command.starts_with("kubepkg ") {
                script.push_str(&command);
                script.push('\n');
                continue;
            }
            script.push_str(&format!(
                "{command} > {out} 2>&1; echo $? > {code}\n",
                out = dir.path().join(format!("{i}.out")).display(),
                code = dir.path().join(format!("{i}.code")).display(),
            ));
        }
        let status = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(repo())
            .env("PATH", &path)
            .env("KUBECONFIG", ns.plane().kubeconfig())
            .env_remove("HELM_NAMESPACE")
            .env_remove("HELM_DRIVER")
            .env_remove("CLICOLOR_FORCE")
            .status()
            .expect("run bash");
        assert!(
            status.success(),
            "{where_}: the block's script failed: {script}"
        );
        let mut problems = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            if !step.command.starts_with("kubepkg ") {
                continue;
            }
            let read = |ext: &str| {
                std::fs::read_to_string(dir.path().join(format!("{i}.{ext}")))
                    .unwrap_or_else(|e| panic!("{where_}: line {} did not run: {e}", step.line))
            };
            let (code, output) = (read("code"), read("out"));
            let failed = code.trim() != "0";
            if failed != step.refused {
                problems.push(format!(
                    "line {}: `{}` exited {} ({}):\n{output}",
                    step.line,
                    step.command,
                    code.trim(),
                    if step.refused {
                        "the doc says it is refused"
                    } else {
                        "the doc says it works"
                    }
                ));
                continue;
            }
            let printed = squeeze(&output);
            for shown in &step.shown {
                let shown = shown.replace(" shop/", &format!(" {}/", ns.name()));
                if !printed.contains(&squeeze(&shown)) {
                    problems.push(format!(
                        "line {}: `{}` did not print what the doc shows: {shown}\n--- it printed:\n{output}",
                        step.line, step.command
                    ));
                }
            }
        }
        assert!(
            problems.is_empty(),
            "{where_}: the doc's commands do not do what it shows:\n{}",
            problems.join("\n")
        );
    }
}
