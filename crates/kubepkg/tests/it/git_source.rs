//! `kubepkg plan|apply NAME git+http://…` against the real `git http-backend` on loopback
//! (`kubepkg_testkit::git_server`, with basic auth): the package at a tag, then at a branch,
//! the commit recorded in the revision (`status` SOURCE, the `history` column); a wrong ref,
//! missing or wrong credentials and a path without kubepkg.yaml each say so, exit with their
//! code and apply nothing.

use std::process::Output;

use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::charts::web_package;
use kubepkg_testkit::git_server::{GitAuth, GitServer};

use crate::support::ok;

/// The one line of standard error of a command that failed, and its exit code.
fn failure(out: Output) -> (i32, String) {
    assert!(
        !out.status.success(),
        "expected a failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    (
        out.status.code().unwrap_or(-1),
        lines[0]
            .strip_prefix("Error: ")
            .unwrap_or(lines[0])
            .to_string(),
    )
}

#[tokio::test]
async fn apply_from_git_records_the_commit_and_bad_refs_and_credentials_are_named() {
    let ns = TestNamespace::fresh("git-cli").await;
    let server = GitServer::start(GitAuth::Basic("ops".into(), "pw".into())).unwrap();
    let repo = server.repo("shop").unwrap();
    let pkg = tempfile::tempdir().unwrap();
    web_package(pkg.path(), "shop", "1.0.0");
    let c1 = repo
        .commit(
            "main",
            "deploy/shop",
            Some(pkg.path()),
            &[("docs/README.md", "docs\n")],
            "1.0.0",
        )
        .unwrap();
    repo.tag("main", "v1.0.0", true).unwrap();
    web_package(pkg.path(), "shop", "1.1.0");
    let c2 = repo
        .commit("main", "deploy/shop", Some(pkg.path()), &[], "1.1.0")
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let kube = |args: &[&str]| {
        let mut c = crate::support::kubepkg(&ns, args);
        c.env("KUBEPKG_CACHE_DIR", home.path().join("cache"))
            .env("HELM_CONFIG_HOME", home.path().join("config"))
            .env("HELM_CACHE_HOME", home.path().join("helm-cache"));
        c.output().unwrap()
    };
    let creds = ["--username", "ops", "--password", "pw"];
    let repo_url = format!("git+{}//deploy/shop", server.url("shop"));
    let at = |query: &str| format!("{repo_url}?{query}");

    // Offline plan at the tag.
    let tag = at("ref=v1.0.0");
    let plan = ok(kube(
        &[&["plan", "shop", tag.as_str()][..], &creds].concat(),
    ));
    assert!(plan.contains("1.0.0"), "{plan}");
    ok(kube(
        &[
            &["apply", "shop", tag.as_str(), "--timeout", "60s"][..],
            &creds,
        ]
        .concat(),
    ));
    let status = ok(kube(&["package", "status", "shop"]));
    let first = format!("SOURCE: {repo_url} v1.0.0@sha1:{c1}");
    assert!(status.contains(&first), "{status}");
    assert!(status.contains("PACKAGE: shop 1.0.0"), "{status}");

    // The branch: its newer commit.
    let branch = at("branch=main");
    ok(kube(
        &[
            &["apply", "shop", branch.as_str(), "--timeout", "60s"][..],
            &creds,
        ]
        .concat(),
    ));
    let history = ok(kube(&["package", "history", "shop"]));
    assert!(
        history.lines().next().unwrap().ends_with("SOURCE"),
        "{history}"
    );
    assert!(
        history.contains(&format!("{repo_url} v1.0.0@sha1:{c1}")),
        "{history}"
    );
    assert!(
        history.contains(&format!("{repo_url} main@sha1:{c2}")),
        "{history}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(kube(&["package", "status", "shop", "-o", "json"]))).unwrap();
    let source = json
        .pointer("/revision/source")
        .or_else(|| json.get("source"))
        .cloned();
    assert_eq!(
        source,
        Some(
            serde_json::json!({"reference": repo_url, "tag": "main", "digest": format!("sha1:{c2}")})
        ),
        "{json}"
    );
    let revisions = |h: &str| h.lines().count();
    let before = revisions(&history);

    // A wrong ref: exit 9, the refs it has named, nothing applied.
    let wrong = at("ref=v9.9.9");
    let (code, line) = failure(kube(
        &[
            &["apply", "shop", wrong.as_str(), "--timeout", "60s"][..],
            &creds,
        ]
        .concat(),
    ));
    assert_eq!(code, 9, "{line}");
    assert!(
        line.contains(&wrong)
            && line.contains("has no ref v9.9.9")
            && line.contains("v1.0.0, main"),
        "{line}"
    );
    // No credentials, and a wrong password (never printed).
    let (code, line) = failure(kube(&[
        "apply",
        "shop",
        branch.as_str(),
        "--timeout",
        "60s",
    ]));
    assert_eq!(code, 9, "{line}");
    assert!(
        line.contains("needs credentials") && line.contains("--username"),
        "{line}"
    );
    let (code, line) = failure(kube(&[
        "plan",
        "shop",
        branch.as_str(),
        "--username",
        "ops",
        "--password",
        "guess",
    ]));
    assert_eq!(code, 9, "{line}");
    assert!(
        line.contains("refused the credentials") && !line.contains("guess"),
        "{line}"
    );
    // A path without kubepkg.yaml: an invalid package (exit 7).
    let docs = format!("git+{}//docs?branch=main", server.url("shop"));
    let (code, line) = failure(kube(
        &[
            &["apply", "shop", docs.as_str(), "--timeout", "60s"][..],
            &creds,
        ]
        .concat(),
    ));
    assert_eq!(code, 7, "{line}");
    assert!(
        line.contains("directory \"docs\"") && line.contains("no kubepkg.yaml"),
        "{line}"
    );
    // An unreachable host.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gone = format!("git+http://127.0.0.1:{closed}/shop.git");
    let (code, line) = failure(kube(&["plan", "shop", gone.as_str()]));
    assert_eq!(code, 9, "{line}");
    assert!(line.contains("cannot reach the repository"), "{line}");

    let history = ok(kube(&["package", "history", "shop"]));
    assert_eq!(revisions(&history), before, "nothing applied: {history}");
}
