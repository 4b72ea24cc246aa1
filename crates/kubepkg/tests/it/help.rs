//! Every verb's `--help` pinned as insta snapshots (exit code, stdout, stderr), as uv pins its
//! CLI: a flag renamed, dropped or reworded shows up in review as a snapshot diff. The verb
//! tree is walked from `kubepkg --help` itself (its `Commands:` sections), so a new verb gets
//! a snapshot without editing this file; `kubepkg` with no verb and a misspelt verb too.
//! Update after a deliberate change: `INSTA_UPDATE=always cargo test -p kubepkg --test it -- help::`.

use std::process::Command;

fn kubepkg(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("HELM_NAMESPACE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The verbs a help text lists under `Commands:` (without `help`).
fn verbs(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|v| *v != "help")
        .map(String::from)
        .collect()
}

#[test]
fn every_verbs_help_is_pinned() {
    let mut pending: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let text = kubepkg(&args);
        assert!(text.starts_with("exit: 0\n"), "{args:?}:\n{text}");
        for verb in verbs(&text) {
            let mut sub = path.clone();
            sub.push(verb);
            pending.push(sub);
        }
        let name = if path.is_empty() {
            "help".to_string()
        } else {
            format!("help-{}", path.join("-"))
        };
        insta::assert_snapshot!(name, text);
        seen += 1;
    }
    assert!(seen > 30, "only {seen} help texts");
}

#[test]
fn no_verb_and_a_misspelt_verb_are_usage_errors() {
    insta::assert_snapshot!("no-verb", kubepkg(&[]));
    insta::assert_snapshot!("misspelt-verb", kubepkg(&["instal", "web", "./chart"]));
    insta::assert_snapshot!(
        "misspelt-flag",
        kubepkg(&["apply", "shop", ".", "--dry-rn"])
    );
}
