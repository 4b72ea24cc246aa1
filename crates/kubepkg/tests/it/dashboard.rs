//! `kubepkg dashboard` in a real browser (Debian's headless Chromium through chromedriver,
//! `kubepkg_testkit::browser`) against the local control plane: the package list, a package's
//! graph turning Ready live (no reload) while `kubepkg apply` waits for a held component, the
//! diff between two revisions, a failed revision's diagnosis, values with provenance, the plan
//! of a Package's spec not applied yet, a keyboard walk, and no Secret value in any response
//! body or event stream. The screenshots
//! in docs/dashboard/ are taken here (with `KUBEPKG_SCREENSHOTS=docs`; else beside the
//! built binary, in target/debug/dashboard-screenshots/).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube::api::{ListParams, Patch, PatchParams};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::browser::{self, Browser, EventStream};
use kubepkg_testkit::tree::write_files;

use crate::support::{kubepkg, repo, run, run_ok};

/// The Secret value component `a` renders at `version`: never to be seen by a browser.
fn secret_of(version: &str) -> String {
    format!("dash-secret-{}-value", version.replace('.', "x"))
}

/// The package `dash` at `version`: `a` (a Deployment and a Secret holding [`secret_of`]) and
/// `b` after it, a Deployment of image `registry.invalid/b:TAG` whose pod the node simulator
/// runs as `b_mode` (`ok` or `unready`).
fn write_package(root: &Path, version: &str, tag: &str, b_mode: &str) {
    let deployment = |name: &str, image: &str, mode: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{{{ .Release.Name }}}}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n      annotations:\n        kubepkg.dev/sim: {mode}\n    spec:\n      containers:\n      - name: c\n        image: {image}\n"
        )
    };
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{{{ .Release.Name }}}}-credentials\nstringData:\n  password: {}\n",
        secret_of(version)
    );
    write_files(
        root,
        &[
            (
                "kubepkg.yaml",
                &format!(
                    "package: {{name: dash, version: {version}}}\ncomponents:\n- {{name: a, path: a}}\n- {{name: b, path: b, install: {{dependsOn: [a]}}}}\n"
                ),
            ),
            ("a/Chart.yaml", "apiVersion: v2\nname: a\nversion: 1.0.0\n"),
            ("a/values.yaml", "replicas: 1\n"),
            (
                "a/templates/deployment.yaml",
                &deployment("a", "registry.invalid/a:1", "ok"),
            ),
            ("a/templates/secret.yaml", &secret),
            ("b/Chart.yaml", "apiVersion: v2\nname: b\nversion: 1.0.0\n"),
            (
                "b/templates/deployment.yaml",
                &deployment("b", &format!("registry.invalid/b:{tag}"), b_mode),
            ),
        ],
    );
}

/// `kubepkg dashboard --port 0` on the test namespace, killed on drop.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(ns: &TestNamespace) -> Served {
        Served::start_with(ns, &["dashboard", "--port", "0"], Stdio::inherit())
    }

    /// `kubepkg ARGS` (a dashboard, with more flags) on the test namespace, its standard
    /// error to `stderr`.
    fn start_with(ns: &TestNamespace, args: &[&str], stderr: Stdio) -> Served {
        let mut child = kubepkg(ns, args)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start kubepkg dashboard");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the dashboard's first line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in the dashboard's first line: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        assert!(line.contains(&format!("namespace {}", ns.name())), "{line}");
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where screenshot `name` goes: docs/dashboard/ with `KUBEPKG_SCREENSHOTS=docs` (to refresh the
/// committed ones), else the build directory (each run's differ: names and times), so a test
/// run leaves the work tree as it was.
fn shot(name: &str) -> PathBuf {
    let dir = if std::env::var("KUBEPKG_SCREENSHOTS").as_deref() == Ok("docs") {
        repo().join("docs/dashboard")
    } else {
        Path::new(env!("CARGO_BIN_EXE_kubepkg")).with_file_name("dashboard-screenshots")
    };
    std::fs::create_dir_all(&dir).expect("the screenshots' directory");
    dir.join(name)
}

/// Waits (up to two minutes) for `what` to hold.
async fn wait_until(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !check().await {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The pods of component `app` in the test namespace.
async fn pods(ns: &TestNamespace, app: &str) -> Vec<Pod> {
    ns.api::<Pod>()
        .list(&ListParams::default().labels(&format!("app={app}")))
        .await
        .map(|l| l.items)
        .unwrap_or_default()
}

/// During `kubepkg apply` of a package whose second component is held unready, the package page
/// shows the first Ready and the second waiting for its Deployment; when the pod becomes ready
/// the page turns it Ready by itself (the same document: a mark set in it is still there).
#[tokio::test]
async fn the_graph_turns_ready_live_without_a_reload() {
    let ns = TestNamespace::fresh("dash-live").await;
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    write_package(&v1, "1.0.0", "1", "unready");
    let served = Served::start(&ns);
    let mut apply: Child = kubepkg(
        &ns,
        &["apply", "web", v1.to_str().unwrap(), "--timeout", "5m"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    wait_until("component b's pod", async || {
        !pods(&ns, "b").await.is_empty()
    })
    .await;

    let browser = Browser::start().await.expect("headless Chromium");
    let page = format!("{}/packages/{}/web", served.url, ns.name());
    browser.goto(&page).await.unwrap();
    let a = browser
        .wait_for_text(
            "a Ready",
            "[data-live-key=\"a\"]",
            Duration::from_secs(60),
            |t| t.contains("Ready"),
        )
        .await
        .unwrap();
    assert!(!a.contains("waiting"), "{a}");
    let b = browser
        .wait_for_text(
            "b waiting for its Deployment",
            "[data-live-key=\"b\"]",
            Duration::from_secs(60),
            |t| t.contains("Waiting") && t.contains("waiting for Deployment"),
        )
        .await
        .unwrap();
    assert!(b.contains("web-b"), "{b}");
    browser
        .execute(
            "window.kubepkgMark = 'same page'; return null;",
            serde_json::json!([]),
        )
        .await
        .unwrap();
    browser
        .screenshot(&shot("package-waiting.png"))
        .await
        .unwrap();

    // Let b's pod become ready: the node simulator follows the annotation.
    let pod = pods(&ns, "b").await.remove(0);
    let name = pod.metadata.name.unwrap();
    ns.api::<Pod>()
        .patch(
            &name,
            &PatchParams::default(),
            &Patch::Merge(
                serde_json::json!({"metadata": {"annotations": {"kubepkg.dev/sim": "ok"}}}),
            ),
        )
        .await
        .unwrap();
    let b = browser
        .wait_for_text(
            "b Ready",
            "[data-live-key=\"b\"]",
            Duration::from_secs(120),
            |t| t.contains("Ready") && !t.contains("waiting"),
        )
        .await
        .unwrap();
    assert!(b.contains("After"), "{b}");
    let mark = browser
        .execute(
            "return window.kubepkgMark || 'reloaded';",
            serde_json::json!([]),
        )
        .await
        .unwrap();
    assert_eq!(mark, "same page", "the page was reloaded");

    let status = apply.wait().unwrap();
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(apply.stderr.as_mut().unwrap(), &mut err);
    assert!(status.success(), "{err}");
    let summary = format!("[data-live-key=\"{}/web\"]", ns.name());
    browser
        .wait_for_text(
            "the package Ready",
            &summary,
            Duration::from_secs(60),
            |t| t.contains("Ready"),
        )
        .await
        .unwrap();
    // The rest of the page (revision, conditions, Events) is as of its load: load it again.
    browser.goto(&page).await.unwrap();
    browser.screenshot(&shot("package.png")).await.unwrap();
}

/// The list shows a package applied with `kubepkg apply`; its history diffs revisions 1 and 2
/// (the changed image, and the changed Secret by its keys only); a failed revision shows the
/// pod that never became ready; the values page names each value's source; the views are
/// reached with the keyboard; and no page, asset or event stream carries a Secret's value.
#[tokio::test]
async fn list_history_diff_and_values_never_show_a_secret() {
    let ns = TestNamespace::fresh("dash-views").await;
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2, v3) = (
        tmp.path().join("v1"),
        tmp.path().join("v2"),
        tmp.path().join("v3"),
    );
    write_package(&v1, "1.0.0", "1", "ok");
    write_package(&v2, "2.0.0", "2", "ok");
    write_package(&v3, "3.0.0", "3", "unready");
    let (code, _, err) = run(
        &ns,
        &[
            "apply",
            "web",
            v1.to_str().unwrap(),
            "--set",
            "a.replicas=2",
        ],
    );
    assert_eq!(code, 0, "{err}");

    let served = Served::start(&ns);
    let base = &served.url;
    let list_events = EventStream::open(&format!("{base}/events")).await.unwrap();
    let package_events = EventStream::open(&format!("{base}/events/{}/web", ns.name()))
        .await
        .unwrap();
    let _ = run_ok(&ns, &["apply", "web", v2.to_str().unwrap()]);
    let (code, _, err) = run(
        &ns,
        &["apply", "web", v3.to_str().unwrap(), "--timeout", "8s"],
    );
    assert_eq!(code, 4, "v3's b never becomes ready (UpgradeFailed): {err}");

    let browser = Browser::start().await.expect("headless Chromium");
    // 1. The list.
    browser.goto(&format!("{base}/")).await.unwrap();
    let row = browser.text_of("table.packages tbody tr").await.unwrap();
    for want in ["web", ns.name(), "dash 3.0.0", "Failed", "UpgradeFailed"] {
        assert!(row.contains(want), "{want:?} not in the list's row: {row}");
    }
    browser.screenshot(&shot("list.png")).await.unwrap();
    // Filtered server-side by a query parameter: no package is Ready.
    browser.goto(&format!("{base}/?state=ready")).await.unwrap();
    assert!(browser.text().await.unwrap().contains("No package matches"));

    // 2. The keyboard: Tab to the package's link, Enter opens its page.
    browser.goto(&format!("{base}/")).await.unwrap();
    let mut reached = false;
    for _ in 0..40 {
        if browser.tab(1).await.unwrap() == "A web" {
            reached = true;
            break;
        }
    }
    assert!(reached, "the package link is never focused by Tab");
    browser.enter().await.unwrap();
    wait_until("the package page opened by Enter", async || {
        browser
            .url()
            .await
            .unwrap()
            .ends_with(&format!("/packages/{}/web", ns.name()))
    })
    .await;

    // 3. History: the diff of revisions 1 and 2.
    let history = format!("{base}/packages/{}/web/history", ns.name());
    browser
        .goto(&format!("{history}?from=1&to=2"))
        .await
        .unwrap();
    let section = browser
        .text_of("section[aria-labelledby=diff]")
        .await
        .unwrap();
    let (diff, values) = section
        .split_once("\nValues\n")
        .unwrap_or_else(|| panic!("no values diff: {section}"));
    assert!(
        values.contains("-replicas: 2  # --set a.replicas=2"),
        "{values}"
    );
    assert!(values.contains("+replicas: 1  # chart default"), "{values}");
    assert!(
        diff.contains("-        image: registry.invalid/b:1"),
        "{diff}"
    );
    assert!(
        diff.contains("+        image: registry.invalid/b:2"),
        "{diff}"
    );
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(
        changed,
        [
            "-        image: registry.invalid/b:1",
            "+        image: registry.invalid/b:2"
        ],
        "only b's image changes in the rendered objects (the Secret shows its keys): {diff}"
    );
    assert!(
        diff.contains("Secret") && diff.contains("password"),
        "{diff}"
    );
    browser.screenshot(&shot("history.png")).await.unwrap();
    // The failed revision 3 (v3) keeps its diagnosis: the pod that never became ready.
    browser.goto(&history).await.unwrap();
    let diagnosis = browser.text_of("#diagnosis-3").await.unwrap();
    assert!(diagnosis.contains("pod web-b-"), "{diagnosis}");

    // 4. Values with provenance.
    browser
        .goto(&format!(
            "{base}/packages/{}/web/values?revision=1",
            ns.name()
        ))
        .await
        .unwrap();
    let values = browser.text().await.unwrap();
    assert!(
        values.contains("replicas") && values.contains("--set a.replicas=2"),
        "{values}"
    );
    browser.screenshot(&shot("values.png")).await.unwrap();

    // 5. Every view passes axe-core's WCAG 2 A/AA rules: no serious or critical violation.
    let axe = kubepkg_testkit::axe::source().expect("axe-core from npm");
    for view in [
        "/".to_string(),
        format!("/packages/{}/web", ns.name()),
        format!("/packages/{}/web/history?from=1&to=2", ns.name()),
        format!("/packages/{}/web/values", ns.name()),
    ] {
        browser.goto(&format!("{base}{view}")).await.unwrap();
        let found = kubepkg_testkit::axe::audit(&browser, &axe).await.unwrap();
        for v in &found {
            eprintln!("{view}: axe: {v}");
        }
        let serious: Vec<String> = found
            .iter()
            .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
            .map(ToString::to_string)
            .collect();
        assert!(serious.is_empty(), "{view}:\n{}", serious.join("\n"));
    }
    // The audit sees what it should: an image without a text alternative is caught.
    browser
        .execute(
            "document.querySelector('main').appendChild(document.createElement('img')); return null;",
            serde_json::json!([]),
        )
        .await
        .unwrap();
    let found = kubepkg_testkit::axe::audit(&browser, &axe).await.unwrap();
    assert!(found.iter().any(|v| v.id == "image-alt"), "{found:?}");

    // 6. No Secret value anywhere: every page, asset and both event streams.
    let pages = [
        "/".to_string(),
        "/?state=failed&sort=age".to_string(),
        format!("/packages/{}/web", ns.name()),
        format!("/packages/{}/web/history", ns.name()),
        format!("/packages/{}/web/history?from=1&to=2", ns.name()),
        format!("/packages/{}/web/history?from=2&to=3", ns.name()),
        format!("/packages/{}/web/history?from=1&to=3", ns.name()),
        format!("/packages/{}/web/values", ns.name()),
        format!("/packages/{}/web/values?revision=1", ns.name()),
        "/static/dashboard.js".to_string(),
        "/static/dashboard.css".to_string(),
    ];
    let mut bodies = Vec::new();
    for p in &pages {
        let got = browser::get(&format!("{base}{p}")).await.unwrap();
        assert_eq!(got.status, 200, "{p}: {}", got.body);
        assert!(
            got.csp.contains("script-src 'self'"),
            "{p}: CSP {:?}",
            got.csp
        );
        bodies.push((p.clone(), got.body));
    }
    bodies.push(("/events".into(), list_events.text()));
    bodies.push(("/events/NS/web".into(), package_events.text()));
    assert!(
        bodies[bodies.len() - 1].1.contains("event: state"),
        "the package's event stream sent no state: {}",
        bodies[bodies.len() - 1].1
    );
    for version in ["1.0.0", "2.0.0", "3.0.0"] {
        let secret = secret_of(version);
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &secret);
        for (p, body) in &bodies {
            assert!(
                !body.contains(&secret),
                "{p} shows the Secret value {secret}"
            );
            assert!(
                !body.contains(&encoded),
                "{p} shows the Secret value base64-encoded"
            );
        }
    }

    // Bad input is a page that says what to give, not a failure of the server.
    let bad = browser::get(&format!("{history}?from=one&to=2"))
        .await
        .unwrap();
    assert_eq!(bad.status, 400);
    assert!(
        bad.body.contains("expected a revision number"),
        "{}",
        bad.body
    );
    let other = browser::get(&format!("{base}/packages/kube-system/web"))
        .await
        .unwrap();
    assert_eq!(other.status, 403);
    assert!(other.body.contains("-A"), "{}", other.body);
}

/// A port in use and an address that is not one are errors that say what to change.
#[tokio::test]
async fn a_port_in_use_is_an_error_that_says_what_to_do() {
    let ns = TestNamespace::fresh("dash-port").await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (code, _, err) = run(&ns, &["dashboard", "--port", &port]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(err.contains("choose another --port"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["dashboard", "--address", "not-an-ip"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--address"));
}

/// `kubectl ARGS` on the plane of `ns`; its standard output (the test fails when it fails).
fn kubectl(ns: &TestNamespace, args: &[&str]) -> String {
    let out = ns.plane().kubectl().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The controller's dashboard (`--dashboard-bind-address`) for two users with different RBAC:
/// each signs in with a token (TokenReview) and sees the packages of the namespace they may
/// `get packages` in (SubjectAccessReview), never the other's; no or a bad token gets the
/// sign-in page; the browser signs in through the form.
#[tokio::test]
async fn the_controllers_dashboard_shows_each_user_only_the_namespaces_they_may_read() {
    let ns1 = TestNamespace::fresh("dash-alice").await;
    let ns2 = TestNamespace::fresh("dash-bob").await;
    crate::controller::install_crd(&ns1).await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pkg");
    write_package(&dir, "1.0.0", "1", "ok");
    for (ns, name) in [(&ns1, "one"), (&ns2, "two")] {
        let (code, _, err) = run(ns, &["apply", name, dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    // alice may get Packages in ns1, bob in ns2 (both ServiceAccounts of ns1).
    let (a, b) = (ns1.name(), ns2.name());
    for (user, ns) in [("alice", a), ("bob", b)] {
        kubectl(&ns1, &["create", "serviceaccount", user, "-n", a]);
        kubectl(
            &ns1,
            &[
                "create",
                "role",
                &format!("{user}-packages"),
                "--verb=get",
                "--resource=packages.kubepkg.dev",
                "-n",
                ns,
            ],
        );
        kubectl(
            &ns1,
            &[
                "create",
                "rolebinding",
                &format!("{user}-packages"),
                &format!("--role={user}-packages"),
                &format!("--serviceaccount={a}:{user}"),
                "-n",
                ns,
            ],
        );
    }
    let alice = kubectl(
        &ns1,
        &["create", "token", "alice", "-n", a, "--duration=1h"],
    );
    let bob = kubectl(&ns1, &["create", "token", "bob", "-n", a, "--duration=1h"]);

    let ctl = crate::controller::ControllerProcess::spawn(
        &ns1,
        ns1.plane().kubeconfig(),
        &[
            "--watch-namespace",
            b,
            "--metrics-bind-address",
            "0",
            "--health-probe-bind-address",
            "0",
            "--dashboard-bind-address",
            "127.0.0.1:0",
        ],
        &[],
    );
    let mut base = String::new();
    wait_until("the controller's dashboard listening", async || {
        ctl.assert_running();
        let log = ctl.log();
        match log.split("bound=").nth(1) {
            Some(rest) if log.contains("serving the dashboard") => {
                let address = rest.split_whitespace().next().unwrap_or_default();
                base = format!("http://{address}");
                true
            }
            _ => false,
        }
    })
    .await;

    let as_user = async |token: &str, path: &str| {
        let auth = format!("Bearer {token}");
        browser::fetch(
            "GET",
            &format!("{base}{path}"),
            &[("authorization", &auth)],
            String::new(),
        )
        .await
        .unwrap()
    };
    let row = |ns: &str, name: &str| format!("data-live-key=\"{ns}/{name}\"");
    let seen = as_user(&alice, "/").await;
    assert_eq!(seen.status, 200, "{}", seen.body);
    assert!(seen.body.contains(&row(a, "one")), "{}", seen.body);
    assert!(
        !seen.body.contains(&row(b, "two")),
        "alice sees bob's namespace: {}",
        seen.body
    );
    let seen = as_user(&bob, "/").await;
    assert!(seen.body.contains(&row(b, "two")), "{}", seen.body);
    assert!(
        !seen.body.contains(&row(a, "one")),
        "bob sees alice's namespace: {}",
        seen.body
    );
    let refused = as_user(&alice, &format!("/packages/{b}/two")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.body.contains("may not get packages.kubepkg.dev"),
        "{}",
        refused.body
    );
    let refused = as_user(&bob, &format!("/events/{a}/one")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let page = as_user(&alice, &format!("/packages/{a}/one/history")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    // A plan shows values that may come from Secrets: not to a user who may not read them.
    let refused = as_user(&alice, &format!("/packages/{a}/one/plan")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.body.contains("may not get secrets"),
        "{}",
        refused.body
    );
    for (token, what) in [("", "no token"), ("not-a-token", "a bad token")] {
        let seen = browser::fetch(
            "GET",
            &format!("{base}/"),
            &[("authorization", &format!("Bearer {token}"))],
            String::new(),
        )
        .await
        .unwrap();
        assert_eq!(seen.status, 401, "{what}: {}", seen.body);
        assert!(
            seen.body.contains("Sign in") && !seen.body.contains("data-live-key"),
            "{what}: {}",
            seen.body
        );
    }

    // In the browser: the sign-in form sets the cookie every later page sends.
    let browser = Browser::start().await.expect("headless Chromium");
    browser.goto(&format!("{base}/login")).await.unwrap();
    browser
        .execute(
            "document.querySelector('input[name=token]').value = arguments[0]; document.querySelector('form').submit(); return null;",
            serde_json::json!([bob]),
        )
        .await
        .unwrap();
    let list = browser
        .wait_for_text("bob's list", "main", Duration::from_secs(60), |t| {
            t.contains("two")
        })
        .await
        .unwrap();
    assert!(!list.contains(a), "{list}");
    browser.screenshot(&shot("signed-in.png")).await.unwrap();
}

/// A `PreUpgrade` hook that fails: the failed revision's diagnosis on the history page holds
/// the hook's log tail, and the package page marks the hook.
#[tokio::test]
async fn a_failed_hooks_log_tail_is_on_the_history_page() {
    let ns = TestNamespace::fresh("dash-hook").await;
    let tmp = tempfile::tempdir().unwrap();
    let version = |v: &str, hook: &str| {
        format!(
            "package: {{name: hooked, version: {v}}}\ncomponents:\n- {{name: migrate, path: migrate, install: {{phase: PreUpgrade}}, values: {hook}}}\n- {{name: web, path: web}}\n"
        )
    };
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    let charts = kubepkg_testkit::charts::verdict_hook_chart;
    kubepkg_testkit::charts::package_with(
        &v1,
        &version("1.0.0", "{}"),
        &["web"],
        &["migrate"],
        charts,
    );
    let failing = "{sim: fail, log: \"migration step 3 of 7 failed: column orders.total is busy\"}";
    kubepkg_testkit::charts::package_with(
        &v2,
        &version("2.0.0", failing),
        &["web"],
        &["migrate"],
        charts,
    );
    let _ = run_ok(&ns, &["apply", "shop", v1.to_str().unwrap()]);
    let (code, _, err) = run(
        &ns,
        &["apply", "shop", v2.to_str().unwrap(), "--timeout", "60s"],
    );
    assert_ne!(code, 0, "the hook fails: {err}");

    let served = Served::start(&ns);
    let browser = Browser::start().await.expect("headless Chromium");
    browser
        .goto(&format!(
            "{}/packages/{}/shop/history",
            served.url,
            ns.name()
        ))
        .await
        .unwrap();
    let diagnosis = browser.text_of("#diagnosis-2").await.unwrap();
    assert!(diagnosis.contains("migrate"), "{diagnosis}");
    assert!(
        diagnosis.contains("column orders.total is busy"),
        "no log tail in the failed revision's diagnosis: {diagnosis}"
    );
    browser.screenshot(&shot("failed-hook.png")).await.unwrap();
}

/// The plan view: a Package the controller applied at 1.0.0, then suspended with its source
/// moved to 2.0.0, shows that its spec is not applied and why, and the plan the controller
/// would run — `b`'s image 1 → 2 as diff lines, the Secret by its keys only, never its value —
/// and it passes axe-core's rules.
#[tokio::test]
async fn the_plan_of_a_suspended_spec_shows_what_would_change() {
    use crate::controller::{
        ControllerProcess, archive, create, install_crd, patch_spec, store_archive, wait_ready,
    };
    let ns = TestNamespace::fresh("dash-plan").await;
    install_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    for (version, tag) in [("1.0.0", "1"), ("2.0.0", "2")] {
        let dir = tmp.path().join(version);
        write_package(&dir, version, tag, "ok");
        store_archive(&ns, &format!("dash-{tag}"), archive(&dir)).await;
    }
    let ctl = ControllerProcess::start(&ns, "5s", &[]);
    create(
        &ns,
        "web",
        serde_json::json!({"source": {"configMapRef": {"name": "dash-1"}}}),
    )
    .await;
    wait_ready(&ns, &ctl, "web", "True", "Succeeded").await;
    patch_spec(
        &ns,
        "web",
        serde_json::json!({"suspend": true, "source": {"configMapRef": {"name": "dash-2"}}}),
    )
    .await;
    let served = Served::start(&ns);
    let url = format!("{}/packages/{}/web/plan", served.url, ns.name());
    let page = browser::get(&url).await.unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("is not applied yet: it is suspended"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("<span class=\"del\">       -        image: registry.invalid/b:1</span>"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("<span class=\"add\">       +        image: registry.invalid/b:2</span>"),
        "{}",
        page.body
    );
    for version in ["1.0.0", "2.0.0"] {
        assert!(!page.body.contains(&secret_of(version)), "{}", page.body);
    }
    // The controller left it alone: suspended means nothing is applied.
    let (code, out, _) = run(&ns, &["status", "web", "-o", "json"]);
    assert_eq!(code, 0, "{out}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(status["revision"]["version"], "1.0.0", "{out}");

    let browser = Browser::start().await.expect("headless Chromium");
    browser.goto(&url).await.unwrap();
    let axe = kubepkg_testkit::axe::source().expect("axe-core from npm");
    let serious: Vec<String> = kubepkg_testkit::axe::audit(&browser, &axe)
        .await
        .unwrap()
        .iter()
        .filter(|v| matches!(v.impact.as_str(), "serious" | "critical"))
        .map(ToString::to_string)
        .collect();
    assert!(serious.is_empty(), "the plan view:\n{}", serious.join("\n"));
    browser.screenshot(&shot("plan.png")).await.unwrap();
}

/// The package list's reads do not grow with the packages: one list of the revision records,
/// per namespace one of the releases and one per kind of object, and one of the Package objects
/// and one of the rollouts (the request trail of
/// `kubepkg --debug dashboard` is the oracle), where it once read each package's history, each
/// release's records and each object. Four packages; the list still shows each one Ready.
#[tokio::test]
async fn the_list_reads_once_whatever_the_number_of_packages() {
    let ns = TestNamespace::fresh("dash-reads").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pkg");
    write_package(&dir, "1.0.0", "1", "ok");
    let names = ["p1", "p2", "p3", "p4"];
    for name in names {
        let _ = run_ok(&ns, &["apply", name, dir.to_str().unwrap()]);
    }
    let log = tmp.path().join("dashboard.log");
    let served = Served::start_with(
        &ns,
        &["--debug", "dashboard", "--port", "0"],
        std::fs::File::create(&log).unwrap().into(),
    );
    let trail = || -> Vec<String> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("debug: "))
            .map(str::to_string)
            .collect()
    };
    // The live updates' six watches (revision and release Secrets, Deployments, StatefulSets,
    // DaemonSets, Jobs, Pods) are up, and the trail is quiet, before the page is asked for.
    wait_until("the dashboard's watches", async || {
        trail().iter().filter(|l| l.contains("watch=true")).count() >= 6
    })
    .await;
    let mut before = trail().len();
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = trail().len();
        if now == before {
            break;
        }
        before = now;
    }
    let page = browser::get(&format!("{}/", served.url)).await.unwrap();
    drop(served);
    assert_eq!(page.status, 200, "{}", page.body);
    for name in names {
        let row = format!("data-live-key=\"{}/{name}\"", ns.name());
        let at = page
            .body
            .find(&row)
            .unwrap_or_else(|| panic!("{name}: {}", page.body));
        let rest = &page.body[at..];
        let row_end = rest.find("</tr>").unwrap_or(rest.len());
        assert!(
            rest[..row_end].contains("Ready"),
            "{name}: {}",
            &rest[..row_end]
        );
    }
    let asked: Vec<String> = trail().split_off(before);
    let all = asked.join("\n");
    let count = |what: &str| asked.iter().filter(|l| l.contains(what)).count();
    assert_eq!(count("owner%3Dkubepkg"), 1, "{all}");
    assert_eq!(count("owner%3Dhelm"), 1, "{all}");
    // Each package's Deployments (a and b) and its Secret: one list per kind, no GET of one.
    assert_eq!(count("/deployments?"), 1, "{all}");
    assert_eq!(count("/deployments/"), 0, "{all}");
    // With the discovery of the two kinds' groups (once per process) and the lists of Package
    // objects and PackageRollouts (the list's other sections): 8, whatever the number of
    // packages.
    assert_eq!(count("/packages?"), 1, "{all}");
    assert!(
        asked.len() <= 8,
        "{} requests for the list:\n{all}",
        asked.len()
    );
}

/// The list also shows what has no revision in this cluster, from the objects themselves: a
/// `Package` whose components go to another cluster (`spec.kubeConfig`), linked to its plan,
/// and a `PackageRollout` — here before any controller reconciled them.
#[tokio::test]
async fn the_list_shows_packages_of_other_clusters_and_rollouts() {
    let ns = TestNamespace::fresh("dash-others").await;
    crate::controller::install_crd(&ns).await;
    crate::fleet::install_rollout_crd(&ns).await;
    crate::controller::create(
        &ns,
        "edge",
        serde_json::json!({"source": {"configMapRef": {"name": "edge-pkg"}},
                           "kubeConfig": {"secretRef": {"name": "edge-cluster"}}}),
    )
    .await;
    let rollout = "apiVersion: kubepkg.dev/v1alpha1\nkind: PackageRollout\nmetadata: {name: shop}\nspec:\n  package: {source: {configMapRef: {name: shop-pkg}}}\n  stages: [{name: canary, selector: {matchLabels: {stage: canary}}}, {name: rest}]\n";
    kubepkg_testkit::apply_yaml(ns.client(), Some(ns.name()), rollout, "kubepkg-tests", true)
        .await
        .expect("the PackageRollout applied");
    let served = Served::start(&ns);
    let page = browser::get(&format!("{}/", served.url)).await.unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!(
            "<a href=\"/packages/{}/edge/plan\">edge</a></th><td>{}</td><td>kubeconfig Secret edge-cluster</td>",
            ns.name(),
            ns.name()
        )),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("<th scope=\"row\">shop</th><td>")
            && page.body.contains("not reconciled yet</td>"),
        "{}",
        page.body
    );
}
