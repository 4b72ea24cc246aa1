//! kubepkg's release read verbs print what real `helm` prints, byte for byte, on the local
//! control plane: `list`, `history`, `status`, `get values` (`--all`, `--revision`) and
//! `get manifest`, as tables and as `-o json` / `-o yaml`, for a release kubepkg made and one
//! `helm` made. The oracle is the real `helm` CLI (v4.3.1, and v3.22.0 wherever v3 prints the
//! same as v4), built from the Go module proxy by `tools/helm-ref/install-helm.sh`. Both tools
//! read the same release records, so even the timestamp columns agree; only what `helm status`
//! reads live from the cluster is normalised (see [`normalise_status`]).

use std::path::Path;
use std::process::Output;

use crate::support::{blocking_namespace, crashy_chart, helm_home, kubepkg, ok};
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command};

struct Tools {
    ns: TestNamespace,
    home: tempfile::TempDir,
}

impl Tools {
    fn kubepkg(&self, args: &[&str]) -> Output {
        kubepkg(&self.ns, args).env("TZ", "UTC").output().unwrap()
    }

    fn helm(&self, helm: &Path, args: &[&str]) -> Output {
        helm_home(&mut helm_command(helm, &self.ns, args), self.home.path())
            .env("TZ", "UTC")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }
}

/// The read commands compared, for release `name`.
fn commands(name: &str) -> Vec<Vec<String>> {
    let c = |s: &str| s.split(' ').map(|w| w.replace("NAME", name)).collect();
    [
        "history NAME",
        "history NAME --max 2",
        "history NAME -o json",
        "history NAME -o yaml",
        "status NAME",
        "status NAME --revision 1",
        "status NAME -o json",
        "status NAME -o yaml",
        "get values NAME",
        "get values NAME --all",
        "get values NAME -o json",
        "get values NAME --all -o json",
        "get values NAME --revision 1",
        "get manifest NAME",
        "get manifest NAME --revision 1",
        "get notes NAME",
        "get hooks NAME",
        "get all NAME",
        "get all NAME --revision 1",
        "get values NAME -o yaml",
        "get values NAME --all -o yaml",
        "get metadata NAME",
        "get metadata NAME -o json",
        "get metadata NAME -o yaml",
        "get metadata NAME --revision 1",
        "get metadata NAME --revision 1 -o json",
    ]
    .iter()
    .map(|s| c(s))
    .collect()
}

/// `helm status` reads live objects, so two runs differ where the cluster moved on or where
/// Helm itself is not deterministic; only those parts are normalised:
/// - the RESOURCES sections come in Go's random map order: they are sorted;
/// - the AGE cells (the last column of the server's tables) are masked;
/// - a related-pods list's `resourceVersion` (the cluster's current one) is masked.
fn normalise_status(out: &str) -> String {
    let mut s = out.to_string();
    if let (Some(start), Some(end)) = (s.find("RESOURCES:\n"), s.find("\nTEST SUITE")) {
        let block = &s[start + "RESOURCES:\n".len()..end];
        let mut sections: Vec<String> = block
            .split("==> ")
            .filter(|x| !x.trim().is_empty())
            .map(|sec| {
                sec.lines()
                    .map(|l| match l.rsplit_once("   ") {
                        Some((head, age))
                            if age.trim().chars().all(|c| c.is_ascii_alphanumeric())
                                && age.trim().ends_with(['s', 'm', 'h', 'd', 'y']) =>
                        {
                            format!("{head}   AGE")
                        }
                        _ => l.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        sections.sort();
        s = format!("{}{}{}", &s[..start], sections.join("\n"), &s[end..]);
    }
    let mut from = 0;
    while let Some(p) = s[from..].find("PodList") {
        let at = from + p;
        let Some(rv) = s[at..].find("resourceVersion") else {
            break;
        };
        let digits_start = at + rv + s[at + rv..].find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let digits_end = digits_start
            + s[digits_start..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(0);
        s.replace_range(digits_start..digits_end, "RV");
        from = digits_start;
    }
    s
}

/// `helm list` in its forms, over all the releases of the namespace.
fn list_commands() -> Vec<Vec<String>> {
    [
        "list",
        "list -o json",
        "list -o yaml",
        "list --deployed",
        "list --failed",
        "list --superseded",
        "list --uninstalled -o json",
        "list --deployed --failed",
        "list -q",
        "list -q -o json",
        "list -q -o yaml",
        "list --no-headers",
        "list -d",
        "list -r",
        "list -d -r",
        "list -m 2 --offset 1",
        "list --offset 99",
        "list -f ^made",
        "list -l status=failed",
        "list -l name!=plain-by-helm",
    ]
    .iter()
    .map(|s| s.split(' ').map(String::from).collect())
    .collect()
}

/// First differing line of two outputs (`ours` labelled `a`, `theirs` `b`).
fn first_difference(ours: &str, theirs: &str, (a_name, b_name): (&str, &str)) -> String {
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n  {a_name}: {a:?}\n  {b_name}: {b:?}", i + 1);
        }
    }
    format!(
        "one output is a prefix of the other ({} vs {} bytes; trailing newlines: {:?} vs {:?})",
        ours.len(),
        theirs.len(),
        ours.chars().rev().take_while(|c| *c == '\n').count(),
        theirs.chars().rev().take_while(|c| *c == '\n').count()
    )
}

#[test]
fn release_read_verbs_print_what_helm_prints() {
    let (_rt, ns) = blocking_namespace("cli-parity");
    let tools = Tools {
        ns,
        home: tempfile::tempdir().unwrap(),
    };
    let v4 = helm_binary("v4.3.1").expect("helm oracle");
    let v3 = helm_binary("v3.22.0").expect("helm oracle");

    // A release made by kubepkg: install, upgrade (pre-upgrade hook runs), rollback, then (below)
    // a failed upgrade.
    let chart = crashy_chart();
    ok(tools.kubepkg(&["install", "made-by-kubepkg", &chart, "--set", "message=hi"]));
    ok(tools.kubepkg(&[
        "upgrade",
        "made-by-kubepkg",
        &chart,
        "--reuse-values",
        "--set",
        "web=ok,extra.list={a,b}",
    ]));
    ok(tools.kubepkg(&["rollback", "made-by-kubepkg", "1"]));
    // A release made by helm: install, upgrade, then (below) a failed upgrade.
    ok(tools.helm(
        &v4,
        &["install", "made-by-helm", &chart, "--set", "message=yo"],
    ));
    ok(tools.helm(&v4, &["upgrade", "made-by-helm", &chart, "--set", "n=3"]));
    // A failed upgrade of each: a multi-line description (tables cut it as Helm does).
    let unready = ["--set", "web=unready", "--wait", "--timeout", "3s"];
    let failed = tools.kubepkg(&[&["upgrade", "made-by-kubepkg", &chart][..], &unready].concat());
    assert!(
        !failed.status.success(),
        "the upgrade of made-by-kubepkg must fail"
    );
    let failed = tools.helm(
        &v4,
        &[&["upgrade", "made-by-helm", &chart][..], &unready].concat(),
    );
    assert!(
        !failed.status.success(),
        "the upgrade of made-by-helm must fail"
    );
    // An uninstalled release whose history is kept (listed by Helm 4 by default).
    ok(tools.kubepkg(&["install", "kept-by-kubepkg", &chart]));
    ok(tools.kubepkg(&["uninstall", "kept-by-kubepkg", "--keep-history"]));
    // Releases without user-supplied values (Helm prints `null` for them).
    ok(tools.kubepkg(&["install", "plain-by-kubepkg", &chart]));
    ok(tools.helm(&v4, &["install", "plain-by-helm", &chart]));

    let mut mismatches = Vec::new();
    let mut compared = 0;
    let mut all = list_commands();
    for name in [
        "made-by-kubepkg",
        "made-by-helm",
        "plain-by-kubepkg",
        "plain-by-helm",
        "kept-by-kubepkg",
    ] {
        all.extend(commands(name));
    }
    for args in all {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (mut ours, mut want4, mut want3) = (
            ok(tools.kubepkg(&args)),
            ok(tools.helm(&v4, &args)),
            ok(tools.helm(&v3, &args)),
        );
        if args[0] == "status" {
            (ours, want4, want3) = (
                normalise_status(&ours),
                normalise_status(&want4),
                normalise_status(&want3),
            );
        }
        compared += 1;
        if ours != want4 {
            mismatches.push(format!(
                "`{}` differs from helm v4.3.1: {}",
                args.join(" "),
                first_difference(&ours, &want4, ("kubepkg", "helm v4"))
            ));
        }
        // helm v3 is an oracle too wherever it prints what v4 prints.
        if want3 == want4 {
            compared += 1;
        } else if ours != want3 {
            eprintln!(
                "note: helm v3.22.0 and v4.3.1 differ on `{}` ({}); kubepkg follows v4",
                args.join(" "),
                first_difference(&want3, &want4, ("helm v3", "helm v4"))
            );
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} comparisons differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
