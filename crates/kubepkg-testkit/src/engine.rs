//! The engine's side of cluster tests (feature `engine`): a [`KubeCluster`] over a test
//! namespace that collects progress lines, apply and rollback of an instance, and readers of
//! the recorded package revisions and Helm release records. Shared by `kubepkg-engine`'s
//! integration tests and the CLI's (`kubepkg`), which write their packages with
//! [`crate::charts`].

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::{EngineError, Instance, KubeCluster, ops};
use kubepkg_model::values::UserValues;
use kubepkg_package::orchestrator::Outcome;
use kubepkg_package::revision::{History, PackageRevision, RevisionStatus};
use kubepkg_release::Status;
use kubepkg_release::storage::{Driver, SecretDriver, Store, StoredObject};

use crate::TestNamespace;

/// The progress lines a [`KubeCluster`] printed, in order.
pub type Lines = Arc<Mutex<Vec<String>>>;

/// A [`kube_cluster`] on `ns` with a fresh list of the progress lines it prints.
pub fn logged_cluster(ns: &TestNamespace, timeout: Duration) -> (KubeCluster, Lines) {
    let lines = Lines::default();
    (kube_cluster(ns, timeout, lines.clone()), lines)
}

/// A [`KubeCluster`] on `ns` whose progress lines go to `lines`.
pub fn kube_cluster(
    ns: &TestNamespace,
    timeout: Duration,
    lines: Arc<Mutex<Vec<String>>>,
) -> KubeCluster {
    let kube = kubepkg_kube::Cluster::from_client(ns.client().clone(), ns.name());
    KubeCluster::new(
        kube,
        ClusterCapabilities::default(),
        timeout,
        Arc::new(move |l: &str| lines.lock().unwrap().push(l.to_string())),
    )
}

/// Applies the package in `dir` as instance `name` of `ns`.
pub async fn apply(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    dir: &Path,
    timeout: Duration,
) -> Outcome {
    apply_with(kc, ns, name, dir, &UserValues::new(), timeout).await
}

/// [`apply`] with the user's values `user` (`-f`, `--set` …).
pub async fn apply_with(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    dir: &Path,
    user: &UserValues,
    timeout: Duration,
) -> Outcome {
    let package = kubepkg_model::source::load_dir(dir).expect("valid package");
    kc.events.clear();
    let (outcome, _) = ops::apply(
        kc,
        &package,
        Instance {
            name,
            namespace: ns,
        },
        user,
        ops::ApplyOptions::new(timeout),
    )
    .await
    .expect("apply runs");
    outcome
}

/// `kubepkg rollback NAME` (to the revision before the deployed one, not forced) of
/// instance `name` of `ns`.
pub async fn rollback(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    timeout: Duration,
) -> Result<Outcome, EngineError> {
    ops::rollback(
        kc,
        Instance {
            name,
            namespace: ns,
        },
        None,
        false,
        timeout,
    )
    .await
}

/// The progress lines (as the CLI prints them) of the last operation on `kc`.
pub fn progress(kc: &KubeCluster) -> Vec<String> {
    kc.events.iter().map(ToString::to_string).collect()
}

/// Asserts that one of the engine's progress `lines` starts with `prefix` and contains `part`
/// (`why` says what that line shows).
#[track_caller]
pub fn assert_line(lines: &[String], prefix: &str, part: &str, why: &str) {
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(prefix) && l.contains(part)),
        "{why}: {lines:#?}"
    );
}

/// Where `needle` stands in `lines` (fails, showing the lines, when it is missing).
pub fn pos(lines: &[String], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l == needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {lines:#?}"))
}

/// The recorded revisions of instance `name`.
pub async fn history(ns: &TestNamespace, name: &str) -> History {
    kubepkg_engine::store::RevisionStore::new(ns.client().clone())
        .history(name, ns.name())
        .await
        .expect("history")
}

/// `(status, version, [(component, release revision)])` of one package revision.
pub type RevisionRow = (RevisionStatus, String, Vec<(String, u64)>);

/// The [`RevisionRow`] of every revision, oldest first, components in the order recorded.
pub fn revision_rows(h: &History) -> Vec<RevisionRow> {
    h.revisions
        .iter()
        .map(|r| {
            (
                r.status,
                r.version.clone(),
                r.components
                    .iter()
                    .map(|c| (c.name.clone(), c.revision))
                    .collect(),
            )
        })
        .collect()
}

/// `(status, reason)` of every revision, oldest first.
pub fn brief(h: &History) -> Vec<(String, String)> {
    h.revisions
        .iter()
        .map(|r| {
            (
                r.status.as_str().to_string(),
                r.reason.map_or("", |r| r.as_str()).to_string(),
            )
        })
        .collect()
}

/// The latest stored Helm record of `release` in `ns` as the storage Secret holds it, `None`
/// when there is none: `{"labels": …, "release": …}`, the Secret's labels (Helm's `status`,
/// `version`, `createdAt`, `modifiedAt` …) and its `release` entry decoded into the record's
/// JSON (`info`, `chart`, `config`, `version` …).
pub async fn latest_release_record(ns: &TestNamespace, release: &str) -> Option<serde_json::Value> {
    let driver = SecretDriver::new(ns.client().clone(), Some(ns.name()));
    let selector = [("name", release), ("owner", "helm")]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
    let stored = driver.query(&selector).await.expect("release records");
    let latest = stored.into_iter().max_by_key(StoredObject::revision)?;
    let record = latest.decode().expect("a Helm release record");
    Some(serde_json::json!({
        "labels": latest.labels,
        "release": serde_json::to_value(&record).expect("the record as JSON"),
    }))
}

/// `(release revision, status)` of every stored Helm record of `release`.
pub async fn release_revisions(ns: &TestNamespace, release: &str) -> Vec<(u64, Status)> {
    Store::new(SecretDriver::new(ns.client().clone(), Some(ns.name())))
        .history(release)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.version, r.status()))
        .collect()
}

/// [`release_revisions`] with the statuses as Helm prints them.
pub async fn release_history(ns: &TestNamespace, release: &str) -> Vec<(u64, String)> {
    release_revisions(ns, release)
        .await
        .into_iter()
        .map(|(v, s)| (v, s.to_string()))
        .collect()
}

/// `(type, status, reason)` of a revision's recorded conditions.
pub fn conditions(r: &PackageRevision) -> Vec<(String, String, String)> {
    r.conditions
        .iter()
        .map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone()))
        .collect()
}

/// Asserts that nothing an operation on package `name` touched is left mid-way: no package
/// revision and no Helm record of `releases` is `pending-*` (the records read directly, and
/// each release's history as the real `helm history` prints it), and no Lease is left in the
/// namespace (the package's and the releases' Leases are deleted when freed). `when` names
/// the run in the failure message.
pub async fn assert_final_states(ns: &TestNamespace, name: &str, releases: &[&str], when: &str) {
    let h = history(ns, name).await;
    let pending: Vec<_> = h
        .revisions
        .iter()
        .filter(|r| r.status.is_pending())
        .map(|r| (r.revision, r.status.as_str(), r.description.clone()))
        .collect();
    assert!(
        pending.is_empty(),
        "{when}: pending package revisions {pending:?}"
    );
    let helm = crate::helm_binary("v4.3.1").expect("helm oracle");
    for rel in releases {
        let stored = release_history(ns, rel).await;
        assert!(
            stored.iter().all(|(_, s)| !s.starts_with("pending")),
            "{when}: release {rel} records {stored:?}"
        );
        if stored.is_empty() {
            continue;
        }
        let out = crate::helm_command(&helm, ns, &["history", rel, "-o", "json"])
            .output()
            .expect("run helm");
        assert!(
            out.status.success(),
            "{when}: helm history {rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        let statuses: Vec<&str> = rows
            .iter()
            .map(|r| r["status"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(statuses.len(), stored.len(), "{when}: helm history {rel}");
        assert!(
            statuses.iter().all(|s| !s.starts_with("pending")),
            "{when}: helm history {rel}: {statuses:?}"
        );
    }
    // No Lease is held: each is deleted, or — when the network failed even the delete, after
    // its retries — no longer renewed, so it is free once its duration passes (the next
    // operation takes it over; docs/rules.md#retries).
    let leases: kube::Api<k8s_openapi::api::coordination::v1::Lease> = ns.api();
    let deadline = std::time::Instant::now()
        + Duration::from_secs(kubepkg_kube::lease::LEASE_SECONDS as u64 + 15);
    loop {
        let held: Vec<String> = leases
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|l| !kubepkg_kube::lease::is_free(l, jiff::Timestamp::now()))
            .filter_map(|l| l.metadata.name)
            .collect();
        if held.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{when}: Leases still held (renewed) after the process stopped: {held:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
