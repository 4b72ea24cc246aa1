//! `kubepkg plan|apply NAME git+http://…` against the real `git http-backend` on loopback
//! (`kubepkg_testkit::git_server`, with basic auth): the package at a tag, then at a branch,
//! the commit recorded in the revision (`status` SOURCE, the `history` column); a wrong ref,
//! missing or wrong credentials and a path without kubepkg.yaml each say so, exit with their
//! code and apply nothing.

use std::process::Output;

use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::charts::web_package;
use kubepkg_testkit::git_server::{GitAuth, GitServer};

use crate::support::{ok, package_history};

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
    // `apply shop SOURCE --timeout 60s` with the credentials.
    let apply =
        |source: &str| kube(&[&["apply", "shop", source, "--timeout", "60s"][..], &creds].concat());

    // Offline plan at the tag.
    let tag = at("ref=v1.0.0");
    let plan = ok(kube(
        &[&["plan", "shop", tag.as_str()][..], &creds].concat(),
    ));
    assert!(plan.contains("1.0.0"), "{plan}");
    ok(apply(&tag));
    let status = ok(kube(&["package", "status", "shop"]));
    let first = format!("SOURCE: {repo_url} v1.0.0@sha1:{c1}");
    assert!(status.contains(&first), "{status}");
    assert!(status.contains("PACKAGE: shop 1.0.0"), "{status}");

    // The branch: its newer commit.
    let branch = at("branch=main");
    ok(apply(&branch));
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
    let (json, source) =
        crate::support::status_and_source(&ok(kube(&["package", "status", "shop", "-o", "json"])));
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
    let (code, line) = failure(apply(&wrong));
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
    let (code, line) = failure(apply(&docs));
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

/// A Secret `name` of `ns` with Flux's basic-auth keys.
async fn git_secret(ns: &TestNamespace, name: &str, username: &str, password: &str) {
    let secret: k8s_openapi::api::core::v1::Secret = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": name},
        "stringData": {"username": username, "password": password},
    }))
    .unwrap();
    let secrets = ns.api::<k8s_openapi::api::core::v1::Secret>();
    kubepkg_testkit::force_apply(&secrets, name, "git-source-test", &secret)
        .await
        .unwrap();
}

/// Package `shop` of `ns` upgraded by `ctl` once its source is at `revision`: Ready at 1.1.0,
/// its hook told 1.0.0 → 1.1.0, and two revisions recorded, from `sources` (as `history` prints
/// them).
pub(crate) async fn assert_shop_upgraded(
    ns: &TestNamespace,
    ctl: &crate::controller::ControllerProcess,
    revision: &str,
    sources: [String; 2],
) {
    wait_source_revision(ns, ctl, "shop", revision).await;
    crate::controller::ready_at(ns, ctl, "shop", "1.1.0").await;
    crate::controller::assert_migrated(ns, "1.0.0", "1.1.0").await;
    let [first, second] = sources;
    assert_eq!(
        revisions(ns, "shop").await,
        vec![(1, "1.0.0".into(), first), (2, "1.1.0".into(), second)]
    );
}

/// The package revisions of `name`: (revision, version, source as `history` prints it).
pub(crate) async fn revisions(ns: &TestNamespace, name: &str) -> Vec<(u64, String, String)> {
    package_history(ns, ns.name(), name)
        .await
        .revisions
        .iter()
        .map(|r| {
            let source = r.source.as_ref().map(|s| s.to_string()).unwrap_or_default();
            (r.revision, r.version.clone(), source)
        })
        .collect()
}

/// Waits until the Package's `status.sourceRevision` is `want` (the controller read that
/// commit and decided about it); returns the object.
pub(crate) async fn wait_source_revision(
    ns: &TestNamespace,
    ctl: &crate::controller::ControllerProcess,
    name: &str,
    want: &str,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        ctl.assert_running();
        let o = crate::controller::get(ns, name).await;
        if let Some(o) = &o
            && o.pointer("/status/sourceRevision").and_then(|v| v.as_str()) == Some(want)
        {
            return o.clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "Package {name} never read {want}; now:\n{:?}\ncontroller log:\n{}",
            o.map(|o| o["status"].clone()),
            ctl.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// `spec.source.git` with a branch: the package installs; a push that changes nothing under
/// `path` is read (`sourceRevision`) but makes no revision; a push of a new version upgrades
/// it, its PreUpgrade hook seeing the versions it moves between, and the revision records the
/// branch and commit.
#[tokio::test]
async fn a_package_from_a_branch_installs_and_upgrades_only_when_its_path_changes() {
    use crate::controller::{ControllerProcess, create, install_crd, ready_at};
    let ns = TestNamespace::fresh("ctl-git").await;
    install_crd(&ns).await;
    let server = GitServer::start(GitAuth::Basic("ops".into(), "pw".into())).unwrap();
    let repo = server.repo("shop").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let version = |v: &str| crate::controller::shop_version(tmp.path(), v);
    let c1 = repo
        .commit("main", "deploy/shop", Some(&version("1.0.0")), &[], "1.0.0")
        .unwrap();
    git_secret(&ns, "git-creds", "ops", "pw").await;
    let ctl = ControllerProcess::start(&ns, "1h", &[]);
    let url = server.url("shop");
    let spec = serde_json::json!({"source": {"git": {
        "url": url, "ref": {"branch": "main"}, "path": "deploy/shop",
        "secretRef": {"name": "git-creds"}, "interval": "1s",
    }}});
    create(&ns, "shop", spec).await;
    // The commit is written once the apply is over; then the Package is Ready.
    wait_source_revision(&ns, &ctl, "shop", &format!("main@sha1:{c1}")).await;
    let o = ready_at(&ns, &ctl, "shop", "1.0.0").await;
    let recorded = format!("git+{url}//deploy/shop");
    assert_eq!(
        revisions(&ns, "shop").await,
        vec![(1, "1.0.0".into(), format!("{recorded} main@sha1:{c1}"))]
    );

    // A commit outside the path: read, not applied (the input digest is the same), no revision.
    let digest = o.pointer("/status/lastAttemptedDigest").cloned();
    let applies = || async {
        crate::controller::events_of(&ns, "shop")
            .await
            .into_iter()
            .filter(|(reason, _)| reason == "Progressing")
            .count()
    };
    let applied = applies().await;
    let c2 = repo
        .commit(
            "main",
            "",
            None,
            &[("docs/NOTES.md", "not the package\n")],
            "notes",
        )
        .unwrap();
    let o = wait_source_revision(&ns, &ctl, "shop", &format!("main@sha1:{c2}")).await;
    assert_eq!(o.pointer("/status/lastAttemptedDigest").cloned(), digest);
    assert_eq!(applies().await, applied, "{}", ctl.log());
    assert_eq!(o.pointer("/status/revision"), Some(&serde_json::json!(1)));
    assert_eq!(revisions(&ns, "shop").await.len(), 1, "{}", ctl.log());

    // A new version under the path: upgraded, the hook sees from and to.
    let c3 = repo
        .commit("main", "deploy/shop", Some(&version("1.1.0")), &[], "1.1.0")
        .unwrap();
    let sources = [&c1, &c3].map(|c| format!("{recorded} main@sha1:{c}"));
    assert_shop_upgraded(&ns, &ctl, &format!("main@sha1:{c3}"), sources).await;
    let history = crate::support::run_ok(&ns, &["package", "history", "shop"]);
    assert!(
        history.contains(&format!("{recorded} main@sha1:{c3}")),
        "{history}"
    );
}

/// `ref.semver`: the newest tag matching the constraint is installed; wrong credentials are
/// `Ready=False SourceUnavailable` naming the repository and what to do, and once the Secret
/// is right the package installs.
#[tokio::test]
async fn a_semver_ref_picks_the_newest_matching_tag_and_wrong_credentials_are_a_condition() {
    use crate::controller::{
        ControllerProcess, app_package, condition, create, install_crd, ready_at, wait_ready,
    };
    let ns = TestNamespace::fresh("ctl-git-semver").await;
    install_crd(&ns).await;
    let server = GitServer::start(GitAuth::Basic("ops".into(), "pw".into())).unwrap();
    let repo = server.repo("tags").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut commits = std::collections::BTreeMap::new();
    for v in ["1.0.0", "1.2.0", "2.0.0", "1.1.0"] {
        let dir = tmp.path().join(v);
        app_package(&dir, "tags", v, true, "");
        let c = repo.commit("main", "", Some(&dir), &[], v).unwrap();
        repo.tag("main", &format!("v{v}"), v != "1.2.0").unwrap();
        commits.insert(v, c);
    }
    // The API server refuses a git source beside another source.
    let both: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package", "metadata": {"name": "both"},
        "spec": {"source": {"git": {"url": server.url("tags")}, "oci": "oci://r.invalid/p"}},
    }))
    .unwrap();
    let refused = kubepkg_testkit::package_api(&ns)
        .create(&Default::default(), &both)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused
            .contains("exactly one of oci, url, configMapRef, secretRef, git, sourceRef or path"),
        "{refused}"
    );
    git_secret(&ns, "git-creds", "ops", "wrong").await;
    let ctl = ControllerProcess::start(&ns, "2s", &[]);
    let url = server.url("tags");
    let spec = serde_json::json!({"source": {"git": {
        "url": url, "ref": {"semver": ">=1.0.0 <2"}, "secretRef": {"name": "git-creds"},
    }}});
    create(&ns, "tags", spec).await;
    let o = wait_ready(&ns, &ctl, "tags", "False", "SourceUnavailable").await;
    let message = condition(&o, "Ready").unwrap().2;
    assert!(
        message.contains(&url) && message.contains("refused the credentials"),
        "{message}"
    );
    assert!(!message.contains("wrong"), "{message}");
    assert!(revisions(&ns, "tags").await.is_empty());

    git_secret(&ns, "git-creds", "ops", "pw").await;
    let newest = format!("v1.2.0@sha1:{}", commits["1.2.0"]);
    wait_source_revision(&ns, &ctl, "tags", &newest).await;
    ready_at(&ns, &ctl, "tags", "1.2.0").await;
    assert_eq!(
        revisions(&ns, "tags").await,
        vec![(1, "1.2.0".into(), format!("git+{url} {newest}"))]
    );
}

/// `source.git` over `ssh://` (the real `sshd` on loopback): the Secret's `identity` and
/// `known_hosts` are used, and the revision records the ssh URL and the commit.
#[tokio::test]
async fn a_package_over_ssh_installs_with_the_secrets_identity_and_known_hosts() {
    use crate::controller::{ControllerProcess, create, install_crd, ready_at};
    use kubepkg_testkit::git_server::SshServer;
    let ns = TestNamespace::fresh("ctl-git-ssh").await;
    install_crd(&ns).await;
    let server = GitServer::start(GitAuth::None).unwrap();
    let repo = server.repo("viassh").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    crate::controller::app_package(tmp.path(), "viassh", "1.0.0", true, "");
    let c = repo
        .commit("main", "pkg", Some(tmp.path()), &[], "1.0.0")
        .unwrap();
    let sshd = SshServer::start().unwrap();
    crate::support::create_secret(
        &ns,
        serde_json::json!({
            "metadata": {"name": "deploy-key"},
            "stringData": {"identity": sshd.client_key(), "known_hosts": sshd.known_hosts()},
        }),
    )
    .await;
    let ctl = ControllerProcess::start(&ns, "1h", &[]);
    let url = sshd.url(repo.bare());
    let spec = serde_json::json!({"source": {"git": {
        "url": url, "ref": {"branch": "main"}, "path": "pkg", "secretRef": {"name": "deploy-key"},
    }}});
    create(&ns, "viassh", spec).await;
    ready_at(&ns, &ctl, "viassh", "1.0.0").await;
    assert_eq!(
        revisions(&ns, "viassh").await,
        vec![(1, "1.0.0".into(), format!("git+{url}//pkg main@sha1:{c}"))]
    );
}
