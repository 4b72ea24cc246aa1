//! Package `requires` (docs/kubepkg-yaml.md#requires, docs/rules.md#requirements) on the local
//! control plane: a package whose required packages are missing, at a version outside the
//! constraint or not Ready waits — recorded as a pending revision with `RequirementsNotMet` (a
//! waiting state, exit code 6, not a failure) — until the requirements timeout, then stops having
//! changed nothing; it proceeds as soon as (watching the package records) the requirement becomes
//! Ready; an optional requirement that is absent holds nothing up, one that is installed must be
//! Ready.

use std::time::{Duration, Instant};

use crate::support::*;
use kubepkg_package::revision::Reason;
use kubepkg_package::revision::RevisionStatus;
use kubepkg_testkit::TestNamespace;

const SHORT: Duration = Duration::from_secs(60);

/// A name no other test (or earlier run) uses: requirements are found in every namespace.
fn unique(base: &str) -> String {
    format!(
        "{base}-{}-{}",
        std::process::id(),
        jiff::Timestamp::now().as_millisecond() % 100_000
    )
}

/// A temporary directory, a requirement's name from `base` ([`unique`]) and a fresh namespace
/// for `test`.
async fn fixture(test: &str, base: &str) -> (tempfile::TempDir, String, TestNamespace) {
    let tmp = tempfile::tempdir().unwrap();
    let req = unique(base);
    (tmp, req, TestNamespace::fresh(test).await)
}

/// Nothing of instance `app` stays recorded and nothing of it is installed.
async fn assert_nothing_of(ns: &TestNamespace, app: &str) {
    assert!(history(ns, app).await.revisions.is_empty());
    assert!(release_history(ns, &format!("{app}-b")).await.is_empty());
}

/// `app` has one revision, deployed, and its component one release record; its history.
async fn assert_deployed_once(ns: &TestNamespace) -> kubepkg_package::revision::History {
    let h = history(ns, "app").await;
    assert_eq!(
        brief(&h),
        [("deployed".to_string(), "Succeeded".to_string())]
    );
    assert_eq!(
        release_history(ns, "app-b").await,
        [(1, "deployed".to_string())]
    );
    h
}

/// Starts an apply of [`app`] requiring `requires` (written under `tmp`) in the background,
/// its requirements waited for at most `timeout`; returns once its pending revision waits
/// (`RequirementsNotMet`): the apply (its outcome and when it ended), the engine's progress
/// lines and the waiting revision.
async fn waiting_app(
    ns: &TestNamespace,
    tmp: &std::path::Path,
    requires: &str,
    timeout: Duration,
) -> (
    tokio::task::JoinHandle<(kubepkg_package::orchestrator::Outcome, Instant)>,
    Lines,
    kubepkg_package::revision::PackageRevision,
) {
    let dir = tmp.join("app");
    app(&dir, requires);
    let (mut kc, lines) = logged_cluster(ns, SHORT);
    kc.requirements_timeout = timeout;
    let nsname = ns.name().to_string();
    let task = tokio::spawn(async move {
        let o = apply(&mut kc, &nsname, "app", &dir, SHORT).await;
        (o, Instant::now())
    });
    let waiting = eventually(Duration::from_secs(30), "a waiting revision", async || {
        history(ns, "app")
            .await
            .latest()
            .filter(|r| r.reason == Some(Reason::RequirementsNotMet))
            .cloned()
    })
    .await;
    (task, lines, waiting)
}

fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

/// The required package: one component, at `version`.
fn base(root: &std::path::Path, name: &str, version: &str, sim: &str) {
    package(
        root,
        &format!(
            "package: {{name: {name}, version: {version}}}\ncomponents:\n- {{name: a, path: a, values: {{sim: {sim}}}}}\n"
        ),
        &["a"],
        &[],
    );
}

/// The dependent package: one component `b`, requiring `requires` (YAML flow entries).
fn app(root: &std::path::Path, requires: &str) {
    package(
        root,
        &format!(
            "package:\n  name: app\n  version: 1.0.0\n  requires: [{requires}]\ncomponents:\n- {{name: b, path: b}}\n"
        ),
        &["b"],
        &[],
    );
}

#[tokio::test]
async fn missing_requirement_waits_as_requirements_not_met_then_times_out_unchanged() {
    let (tmp, req, ns) = fixture("req-missing", "base").await;
    let requires = format!("{{name: {req}}}");
    let (task, lines, waiting) =
        waiting_app(&ns, tmp.path(), &requires, Duration::from_secs(8)).await;

    // While it waits, the pending revision says what for, kstatus-style.
    assert_eq!(waiting.status, RevisionStatus::PendingInstall);
    assert_eq!(
        waiting.description,
        format!("waiting for package {req} (not installed)")
    );
    assert_eq!(
        conditions(&waiting),
        [
            t("Ready", "False", "RequirementsNotMet"),
            t("Reconciling", "True", "RequirementsNotMet")
        ]
    );
    assert!(waiting.components.is_empty(), "nothing applied yet");

    let (outcome, _) = task.await.unwrap();
    assert_eq!(outcome.reason, Reason::RequirementsNotMet);
    // (Its exit code, 6, tells it apart from every failure: crates/kubepkg/src/exit.rs.)
    assert_eq!(
        outcome.message,
        format!("waiting for package {req} (not installed)")
    );
    // Nothing changed, so nothing stays recorded and nothing was installed.
    assert_nothing_of(&ns, "app").await;
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines.contains(&format!(
            "requirements: waiting for package {req} (not installed)"
        )),
        "{lines:#?}"
    );
}

#[tokio::test]
async fn requirement_outside_the_version_constraint_waits_then_proceeds_once_upgraded() {
    let (tmp, req, ns) = fixture("req-version", "versioned").await;
    let (mut kc, lines) = logged_cluster(&ns, SHORT);
    let v1 = tmp.path().join("base-v1");
    base(&v1, &req, "1.2.0", "ok");
    let o = apply(&mut kc, ns.name(), &req, &v1, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);

    let dir = tmp.path().join("app");
    app(&dir, &format!("{{name: {req}, version: \">=2.0.0\"}}"));
    kc.requirements_timeout = Duration::from_secs(4);
    let o = apply(&mut kc, ns.name(), "app", &dir, SHORT).await;
    assert_eq!(o.reason, Reason::RequirementsNotMet);
    assert_eq!(
        o.message,
        format!("waiting for package {req} >=2.0.0 (installed: 1.2.0)")
    );
    assert_nothing_of(&ns, "app").await;

    // Installed, in range and Ready: the apply proceeds at once.
    let v2 = tmp.path().join("base-v2");
    base(&v2, &req, "2.0.0", "ok");
    let o = apply(&mut kc, ns.name(), &req, &v2, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    lines.lock().unwrap().clear();
    let o = apply(&mut kc, ns.name(), "app", &dir, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let lines = lines.lock().unwrap().clone();
    assert!(
        !lines.iter().any(|l| l.starts_with("requirements:")),
        "{lines:#?}"
    );
    // The timed-out wait left no revision behind: this is revision 1.
    let h = assert_deployed_once(&ns).await;
    assert_eq!(
        conditions(&h.revisions[0]),
        [t("Ready", "True", "Succeeded")]
    );
}

#[tokio::test]
async fn waiting_apply_proceeds_when_the_requirement_becomes_ready() {
    let (tmp, req, ns) = fixture("req-later", "later").await;
    let requires = format!("{{name: {req}, version: \"^1.0.0\"}}");
    // Far longer than the test: only the requirement becoming Ready can end the wait.
    let (task, lines, _) = waiting_app(&ns, tmp.path(), &requires, Duration::from_secs(300)).await;
    assert!(release_history(&ns, "app-b").await.is_empty());

    // Another operator installs the requirement; the waiting apply sees it by watch.
    let b = tmp.path().join("base");
    base(&b, &req, "1.5.0", "ok");
    let mut other = kube_cluster(&ns, SHORT, Lines::default());
    let o = apply(&mut other, ns.name(), &req, &b, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let base_ready = Instant::now();

    let (o, done) = tokio::time::timeout(Duration::from_secs(120), task)
        .await
        .expect("the waiting apply proceeds once the requirement is Ready")
        .unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    eprintln!(
        "requirement Ready -> dependent apply done: {:?}",
        done.duration_since(base_ready)
    );
    let lines = lines.lock().unwrap().clone();
    let waited = lines
        .iter()
        .position(|l| *l == format!("requirements: waiting for package {req} (not installed)"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let applying = lines
        .iter()
        .position(|l| l == "b: applying")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(waited < applying, "{lines:#?}");
    // One revision: the one that waited, then applied.
    assert_deployed_once(&ns).await;
}

#[tokio::test]
async fn optional_requirement_absent_proceeds_installed_must_be_ready() {
    let (tmp, opt, ns) = fixture("req-optional", "opt").await;
    let (mut kc, lines) = logged_cluster(&ns, SHORT);
    kc.requirements_timeout = Duration::from_secs(4);
    let dir = tmp.path().join("app");
    app(&dir, &format!("{{name: {opt}, optional: true}}"));

    // Absent: nobody waits.
    let o = apply(&mut kc, ns.name(), "app", &dir, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    assert!(
        !lines
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("requirements:")),
        "{:#?}",
        lines.lock().unwrap()
    );

    // Installed but not Ready (its install failed): it must be Ready first.
    let b = tmp.path().join("opt");
    base(&b, &opt, "1.0.0", "unready");
    let o = apply(&mut kc, ns.name(), &opt, &b, Duration::from_secs(5)).await;
    assert_eq!(o.reason, Reason::InstallFailed, "{}", o.message);
    let o = apply(&mut kc, ns.name(), "app2", &dir, SHORT).await;
    assert_eq!(o.reason, Reason::RequirementsNotMet);
    assert_eq!(o.message, format!("waiting for package {opt} (not Ready)"));
    assert_nothing_of(&ns, "app2").await;
}

/// A required package whose last upgrade failed and was rolled back runs, but is not Ready
/// (kstatus: Stalled, RolledBack) until it is fixed forward: dependents wait.
#[tokio::test]
async fn requirement_whose_upgrade_was_rolled_back_is_not_ready() {
    let (tmp, req, ns) = fixture("req-rolled-back", "rolledback").await;
    let (mut kc, _) = logged_cluster(&ns, SHORT);
    let write = |root: &std::path::Path, version: &str, sim: &str| {
        package(
            root,
            &format!(
                "package: {{name: {req}, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: a, path: a, values: {{sim: {sim}}}}}\n"
            ),
            &["a"],
            &[],
        )
    };
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    write(&v1, "1.0.0", "ok");
    write(&v2, "2.0.0", "unready");
    let o = apply(&mut kc, ns.name(), &req, &v1, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let o = apply(&mut kc, ns.name(), &req, &v2, Duration::from_secs(5)).await;
    assert_eq!(o.reason, Reason::RolledBack, "{}", o.message);
    let h = history(&ns, &req).await;
    assert_eq!(
        conditions(h.latest().unwrap()),
        [
            t("Ready", "False", "RolledBack"),
            t("Stalled", "True", "RolledBack")
        ]
    );

    let dir = tmp.path().join("app");
    app(&dir, &format!("{{name: {req}}}"));
    kc.requirements_timeout = Duration::from_secs(3);
    let o = apply(&mut kc, ns.name(), "app", &dir, SHORT).await;
    assert_eq!(o.reason, Reason::RequirementsNotMet, "{}", o.message);
    assert_eq!(o.message, format!("waiting for package {req} (not Ready)"));
    assert!(release_history(&ns, "app-b").await.is_empty());
}
