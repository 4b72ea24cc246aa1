//! The packages in `examples/` (kubevirt, shop, werft), installed and upgraded on the local
//! control plane exactly as their READMEs tell a newcomer to, each test asserting the cluster
//! objects, the Jobs the PreUpgrade hooks ran (watched while they existed: a hook's release is
//! uninstalled once the upgrade succeeds) and the package revisions recorded. One more test
//! plans every example version offline, with no cluster at all.
//!
//! The simulated nodes run no containers, so where an example needs an operator (KubeVirt's
//! `Available` condition) the test runs the example's own `play-operator.sh`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{
    RevisionRow, apply_with, assert_line, logged_cluster, pos, progress, release_revisions,
    revision_rows, rollback,
};
use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DynamicObject, ListParams, LogParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::{WatchStreamExt, watcher};
use kubepkg_engine::{EngineError, Instance, KubeCluster, ops};
use kubepkg_model::values::UserValues;
use kubepkg_package::orchestrator::RollbackRefused;
use kubepkg_package::plan::{Change, FailurePolicy, Gate, RenderedComponent};
use kubepkg_package::revision::Reason;
use kubepkg_package::revision::RevisionStatus;
use kubepkg_testkit::{TestNamespace, real_node};

const TIMEOUT: Duration = Duration::from_secs(90);

fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
}

fn row(status: RevisionStatus, version: &str, components: &[(&str, u64)]) -> RevisionRow {
    let mut c: Vec<(String, u64)> = components
        .iter()
        .map(|(n, r)| (n.to_string(), *r))
        .collect();
    c.sort();
    (status, version.to_string(), c)
}

struct Env {
    /// Held while the test may install CRDs (kubevirt's).
    _adding: tokio::sync::RwLockReadGuard<'static, ()>,
    ns: TestNamespace,
    lines: Arc<Mutex<Vec<String>>>,
    kc: KubeCluster,
    name: &'static str,
}

async fn env(test: &str, name: &'static str) -> Env {
    let ns = TestNamespace::fresh(test).await;
    let (kc, lines) = logged_cluster(&ns, TIMEOUT);
    Env {
        _adding: kubepkg_testkit::API_SET.read().await,
        ns,
        lines,
        kc,
        name,
    }
}

fn user(sets: &[&str]) -> UserValues {
    let mut u = UserValues::new();
    for s in sets {
        u.add_set(s).unwrap();
    }
    u
}

impl Env {
    fn instance(&self) -> Instance<'_> {
        Instance {
            name: self.name,
            namespace: self.ns.name(),
        }
    }

    /// `kubepkg apply NAME examples/<dir>`; returns the outcome's reason.
    async fn apply(&mut self, dir: &str, user: &UserValues) -> Reason {
        self.apply_within(dir, user, TIMEOUT).await
    }

    /// `kubepkg apply NAME examples/<dir> --timeout <timeout>`.
    async fn apply_within(&mut self, dir: &str, user: &UserValues, timeout: Duration) -> Reason {
        let ns = self.ns.name().to_string();
        self.lines.lock().unwrap().clear();
        apply_with(&mut self.kc, &ns, self.name, &example(dir), user, timeout)
            .await
            .reason
    }

    /// `kubepkg plan NAME examples/<dir> --cluster`.
    async fn plan(&self, dir: &str, user: &UserValues) -> kubepkg_package::plan::Plan {
        let package = kubepkg_model::source::load_dir(&example(dir)).expect("valid example");
        ops::prepare(&self.kc, &package, self.instance(), user)
            .await
            .expect("plan")
            .plan
    }

    /// [`revision_rows`] with each revision's components sorted by name.
    async fn revisions(&self) -> Vec<RevisionRow> {
        let h = self
            .kc
            .store
            .history(self.name, self.ns.name())
            .await
            .expect("history");
        let mut rows = revision_rows(&h);
        for (_, _, components) in &mut rows {
            components.sort();
        }
        rows
    }

    /// How many Helm release records `release` has.
    async fn release_records(&self, release: &str) -> usize {
        release_revisions(&self.ns, release).await.len()
    }

    fn progress(&self) -> Vec<String> {
        progress(&self.kc)
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    async fn history(&self) -> kubepkg_package::revision::History {
        self.kc
            .store
            .history(self.name, self.ns.name())
            .await
            .expect("history")
    }

    async fn deployment_image(&self, name: &str) -> Option<String> {
        let api: Api<Deployment> = self.ns.api();
        let d = api.get_opt(name).await.unwrap()?;
        d.spec.template.spec?.containers.first()?.image.clone()
    }
}

/// Every Job that appears in the namespace while it is watched (the last state seen of each).
struct JobWatch {
    seen: Arc<Mutex<BTreeMap<String, Job>>>,
    task: tokio::task::JoinHandle<()>,
}

impl JobWatch {
    async fn start(ns: &TestNamespace) -> JobWatch {
        let api: Api<Job> = ns.api();
        let seen = Arc::new(Mutex::new(BTreeMap::new()));
        let into = seen.clone();
        let task = tokio::spawn(async move {
            let mut stream = watcher(api, watcher::Config::default())
                .applied_objects()
                .boxed();
            while let Some(item) = stream.next().await {
                if let Ok(job) = item {
                    let name = job.metadata.name.clone().unwrap_or_default();
                    into.lock().unwrap().insert(name, job);
                }
            }
        });
        // Let the watch's initial list happen before the apply starts.
        tokio::time::sleep(Duration::from_millis(300)).await;
        JobWatch { seen, task }
    }

    fn stop(self) -> BTreeMap<String, Job> {
        self.task.abort();
        self.seen.lock().unwrap().clone()
    }
}

fn label<'a>(job: &'a Job, key: &str) -> &'a str {
    job.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(key))
        .map_or("", String::as_str)
}

fn job_args(job: &Job) -> Vec<String> {
    job.spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.containers.first())
        .and_then(|c| c.args.clone())
        .unwrap_or_default()
}

fn job_env(job: &Job) -> BTreeMap<String, String> {
    job.spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.containers.first())
        .and_then(|c| c.env.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|e| (e.name, e.value.unwrap_or_default()))
        .collect()
}

fn completed(job: &Job) -> bool {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| {
            c.iter()
                .any(|c| c.type_ == "Complete" && c.status == "True")
        })
}

/// `examples/kubevirt/play-operator.sh NAMESPACE`, killed when dropped.
struct PlayOperator(Child);

impl PlayOperator {
    fn start(ns: &TestNamespace) -> PlayOperator {
        let plane = ns.plane();
        let child = Command::new(example("kubevirt/play-operator.sh"))
            .arg(ns.name())
            .env("KUBECONFIG", plane.kubeconfig())
            .env("KUBECTL", plane.state_dir().join("bin/kubectl"))
            .stdin(Stdio::null())
            .spawn()
            .expect("play-operator.sh starts");
        PlayOperator(child)
    }
}

impl Drop for PlayOperator {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn kubevirt_resource(e: &Env) -> serde_json::Value {
    let gvk = GroupVersionKind::gvk("kubevirt.io", "v1", "KubeVirt");
    let api: Api<DynamicObject> = Api::namespaced_with(
        e.ns.client().clone(),
        e.ns.name(),
        &ApiResource::from_gvk_with_plural(&gvk, "kubevirts"),
    );
    serde_json::to_value(api.get("kubevirt").await.expect("KubeVirt kubevirt")).unwrap()
}

/// examples/kubevirt: operator (CRD + Deployment) first; the KubeVirt resource's component is
/// ready only once the operator reports `Available` for its current generation (so the
/// upgrade waits for a fresh report, not the stale one of 1.3.0); the upgrade check runs
/// before anything changes with 1.3.0 -> 1.4.0; 1.4.0 declares `rollback.safe: false`, so a
/// rollback is refused.
#[tokio::test]
async fn kubevirt_operator_then_resource_gated_on_available() {
    let mut e = env("example-kubevirt", "kubevirt").await;
    let _operator = PlayOperator::start(&e.ns);
    let none = UserValues::new();

    assert_eq!(e.apply("kubevirt/v1", &none).await, Reason::Succeeded);
    let p = e.progress();
    assert!(
        pos(&p, "operator: ready") < pos(&p, "kubevirt: applying"),
        "{p:#?}"
    );
    let ns = e.ns.name().to_string();
    let waited = format!("kubevirt: waiting for KubeVirt {ns}/kubevirt: ");
    assert!(
        e.lines().iter().any(|l| l.starts_with(&waited)),
        "the gate must wait for the operator: {:#?}",
        e.lines()
    );
    let kv = kubevirt_resource(&e).await;
    assert_eq!(kv["status"]["observedKubeVirtVersion"], "v1.3.0");
    assert_eq!(
        e.deployment_image("virt-operator").await.as_deref(),
        Some("quay.io/kubevirt/virt-operator:v1.3.0")
    );

    let plan = e.plan("kubevirt/v2", &none).await;
    let hooks: Vec<(&str, bool)> = plan
        .hooks
        .iter()
        .map(|h| (h.name.as_str(), h.runs))
        .collect();
    assert_eq!(hooks, [("upgrade-check", true)]);
    assert_eq!(
        plan.on_failure,
        FailurePolicy::StopUpgradeFailed {
            declared: Some(false)
        }
    );

    let jobs = JobWatch::start(&e.ns).await;
    assert_eq!(e.apply("kubevirt/v2", &none).await, Reason::Succeeded);
    let jobs = jobs.stop();
    let check = jobs
        .get("kubevirt-upgrade-check-1-4-0")
        .unwrap_or_else(|| panic!("the upgrade check ran: {:?}", jobs.keys()));
    assert_eq!(
        job_args(check),
        ["--check-upgrade", "--from", "1.3.0", "--to", "1.4.0"]
    );
    assert!(completed(check), "kubepkg waited for the check to complete");
    let p = e.progress();
    assert!(
        pos(&p, "upgrade-check: hook running") < pos(&p, "operator: applying"),
        "{p:#?}"
    );
    // The 1.3.0 report (generation 1) does not count for the changed resource: kubepkg
    // waits for the operator to report on generation 2 (observedKubeVirtVersion below), and
    // never calls the existing resource "not found" while it starts watching it.
    let lines = e.lines();
    assert_line(
        &lines,
        "kubevirt: waiting for KubeVirt",
        "generation is 2, but latest observed generation is 1",
        "the wait is for the operator's report on generation 2",
    );
    assert!(
        !lines.iter().any(|l| l == &format!("{waited}not found")),
        "{lines:#?}"
    );
    // Nor the operator's Deployment, which exists all through its upgrade.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("\"virt-operator\"") && l.contains("NotFound")),
        "{lines:#?}"
    );
    let kv = kubevirt_resource(&e).await;
    assert_eq!(kv["status"]["observedKubeVirtVersion"], "v1.4.0");
    assert_eq!(
        kv["spec"]["configuration"]["developerConfiguration"]["featureGates"],
        serde_json::json!(["Snapshot"])
    );
    assert_eq!(
        e.deployment_image("virt-operator").await.as_deref(),
        Some("quay.io/kubevirt/virt-operator:v1.4.0")
    );
    assert_eq!(
        e.release_records("kubevirt-upgrade-check").await,
        0,
        "the hook's release is uninstalled after the upgrade"
    );
    assert_eq!(
        e.revisions().await,
        [
            row(
                RevisionStatus::Superseded,
                "1.3.0",
                &[("operator", 1), ("kubevirt", 1)]
            ),
            row(
                RevisionStatus::Deployed,
                "1.4.0",
                &[("operator", 2), ("kubevirt", 2)]
            ),
        ]
    );

    let ns = e.ns.name().to_string();
    let refused = rollback(&mut e.kc, &ns, "kubevirt", TIMEOUT).await;
    assert!(
        matches!(
            refused,
            Err(EngineError::Refused(RollbackRefused::Unsafe { ref forbidden_by, .. }))
                if forbidden_by.iter().map(|f| f.version.as_str()).collect::<Vec<_>>() == ["1.4.0"]
        ),
        "{refused:?}"
    );
    assert_eq!(
        e.revisions().await.len(),
        2,
        "a refused rollback records nothing"
    );
}

/// The values every shop apply gets on the local control plane (no volume provisioner).
const NO_VOLUMES: &str = "database.persistence.enabled=false";

/// examples/shop: the database before the storefront; the migration hook runs on each version
/// change with the steps between fromVersion and toVersion, never on a values-only change;
/// 2.0.0 (rollback.safe: false) cannot be rolled back.
#[tokio::test]
async fn shop_database_storefront_and_migrations() {
    let mut e = env("example-shop", "shop").await;
    let jobs = JobWatch::start(&e.ns).await;
    assert_eq!(
        e.apply("shop/v1", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    let p = e.progress();
    assert!(
        pos(&p, "database: ready") < pos(&p, "storefront: applying"),
        "{p:#?}"
    );
    let sts: Api<StatefulSet> = e.ns.api();
    let db = sts.get("shop-db").await.unwrap();
    let spec = db.spec;
    assert!(spec.volume_claim_templates.is_none());
    let volumes = spec.template.spec.unwrap().volumes.unwrap();
    assert!(volumes[0].empty_dir.is_some(), "{volumes:?}");
    let deps: Api<Deployment> = e.ns.api();
    let store = deps.get("storefront").await.unwrap();
    assert_eq!(store.spec.replicas, Some(2), "package default");

    assert_eq!(
        e.apply("shop/v2", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    // A values-only change: no migration.
    assert_eq!(
        e.apply("shop/v2", &user(&[NO_VOLUMES, "storefront.replicas=3"]))
            .await,
        Reason::Succeeded
    );
    assert!(!e.progress().iter().any(|l| l.starts_with("migrate:")));
    assert_eq!(
        e.apply("shop/v3", &user(&[NO_VOLUMES, "storefront.replicas=3"]))
            .await,
        Reason::Succeeded
    );
    let jobs = jobs.stop();
    let names: Vec<&String> = jobs.keys().collect();
    assert_eq!(names, ["shop-migrate-1-1-0", "shop-migrate-2-0-0"]);
    let to_110 = &jobs["shop-migrate-1-1-0"];
    assert_eq!(
        job_args(to_110),
        [
            "--database=postgres://shop-db:5432/shop",
            "--from=1.0.0",
            "--to=1.1.0",
            "--apply=0002-add-order-notes"
        ]
    );
    assert_eq!(label(to_110, "kubepkg.dev/from-version"), "1.0.0");
    let to_200 = &jobs["shop-migrate-2-0-0"];
    assert_eq!(
        job_args(to_200),
        [
            "--database=postgres://shop-db:5432/shop",
            "--from=1.1.0",
            "--to=2.0.0",
            "--apply=0003-move-carts-to-orders"
        ]
    );
    assert!(completed(to_110) && completed(to_200));
    assert_eq!(
        e.deployment_image("storefront").await.as_deref(),
        Some("registry.example/shop/storefront:2.0.0")
    );
    let store = deps.get("storefront").await.unwrap();
    assert_eq!(store.spec.replicas, Some(3), "--set wins");
    assert_eq!(e.release_records("shop-migrate").await, 0);
    assert_eq!(
        e.revisions().await,
        [
            row(
                RevisionStatus::Superseded,
                "1.0.0",
                &[("database", 1), ("storefront", 1)]
            ),
            // database unchanged by 1.1.0: its release keeps revision 1.
            row(
                RevisionStatus::Superseded,
                "1.1.0",
                &[("database", 1), ("storefront", 2)]
            ),
            row(
                RevisionStatus::Superseded,
                "1.1.0",
                &[("database", 1), ("storefront", 3)]
            ),
            row(
                RevisionStatus::Deployed,
                "2.0.0",
                &[("database", 1), ("storefront", 4)]
            ),
        ]
    );
    let ns = e.ns.name().to_string();
    let refused = rollback(&mut e.kc, &ns, "shop", TIMEOUT).await;
    assert!(
        matches!(
            refused,
            Err(EngineError::Refused(RollbackRefused::Unsafe { .. }))
        ),
        "{refused:?}"
    );
}

/// examples/shop straight from 1.0.0 to 2.0.0: the hook runs both migrations, in order.
#[tokio::test]
async fn shop_skipping_a_version_runs_every_migration_between() {
    let mut e = env("example-shop-skip", "shop").await;
    assert_eq!(
        e.apply("shop/v1", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    let jobs = JobWatch::start(&e.ns).await;
    assert_eq!(
        e.apply("shop/v3", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    let jobs = jobs.stop();
    assert_eq!(
        job_args(&jobs["shop-migrate-2-0-0"]),
        [
            "--database=postgres://shop-db:5432/shop",
            "--from=1.0.0",
            "--to=2.0.0",
            "--apply=0002-add-order-notes",
            "--apply=0003-move-carts-to-orders"
        ]
    );
}

/// A storefront that never becomes ready (the simulated node's stand-in for a broken
/// readiness check), as scripts/demo gives it.
const UNREADY: &str = "storefront.podAnnotations.kubepkg\\.dev/sim=unready";

/// examples/shop's failures: 2.0.0 (`rollback.safe: false`) fails and stops with
/// UpgradeFailed, its storefront left as it was; 2.0.1 fixes forward; 2.1.0
/// (`rollback.safe: true`) fails and is rolled back to 2.0.1, recorded as a new revision.
#[tokio::test]
async fn shop_unsafe_failure_stops_and_safe_failure_rolls_back() {
    let mut e = env("example-shop-failures", "shop").await;
    let short = Duration::from_secs(10);
    assert_eq!(
        e.apply("shop/v2", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    assert_eq!(
        e.apply_within("shop/v3", &user(&[NO_VOLUMES, UNREADY]), short)
            .await,
        Reason::UpgradeFailed
    );
    assert!(
        !e.progress().iter().any(|l| l.ends_with(": rolling back")),
        "{:#?}",
        e.progress()
    );
    assert_eq!(
        e.deployment_image("storefront").await.as_deref(),
        Some("registry.example/shop/storefront:2.0.0"),
        "not rolled back"
    );
    let revs = e.revisions().await;
    assert_eq!(
        (revs.len(), &revs[1].0, revs[1].1.as_str()),
        (2, &RevisionStatus::Failed, "2.0.0")
    );

    assert_eq!(
        e.apply("shop/v4", &user(&[NO_VOLUMES])).await,
        Reason::Succeeded
    );
    assert_eq!(
        e.deployment_image("storefront").await.as_deref(),
        Some("registry.example/shop/storefront:2.0.1")
    );

    assert_eq!(
        e.apply_within("shop/v5", &user(&[NO_VOLUMES, UNREADY]), short)
            .await,
        Reason::RolledBack
    );
    assert_eq!(
        e.deployment_image("storefront").await.as_deref(),
        Some("registry.example/shop/storefront:2.0.1"),
        "rolled back"
    );
    let revs = e.revisions().await;
    let tail: Vec<(RevisionStatus, &str)> = revs[revs.len() - 2..]
        .iter()
        .map(|r| (r.0, r.1.as_str()))
        .collect();
    assert_eq!(
        tail,
        [
            (RevisionStatus::Failed, "2.1.0"),
            (RevisionStatus::Deployed, "2.0.1")
        ]
    );
}

/// What the worker pin ConfigMap says: `(WORKER_IMAGE, WORKER_IMAGE_PREVIOUS)`.
async fn worker_pin(e: &Env) -> (String, String) {
    let api: Api<ConfigMap> = e.ns.api();
    let data = api.get("werft-worker-images").await.unwrap().data.unwrap();
    (
        data["WORKER_IMAGE"].clone(),
        data["WORKER_IMAGE_PREVIOUS"].clone(),
    )
}

/// Watches werft-api until it runs `image`, then reads the worker pool's image at that moment.
fn pool_image_when_api_runs(e: &Env, image: &str) -> tokio::task::JoinHandle<Option<String>> {
    let api: Api<Deployment> = e.ns.api();
    let image = image.to_string();
    tokio::spawn(async move {
        let mut stream = watcher(api.clone(), watcher::Config::default())
            .applied_objects()
            .boxed();
        while let Some(Ok(d)) = stream.next().await {
            let runs = d.metadata.name.as_deref() == Some("werft-api")
                && d.spec
                    .template
                    .spec
                    .as_ref()
                    .and_then(|s| s.containers.first())
                    .and_then(|c| c.image.as_deref())
                    == Some(image.as_str());
            if runs {
                let pool = api.get("werft-worker-pool").await.ok()?;
                return pool.spec.template.spec?.containers.first()?.image.clone();
            }
        }
        None
    })
}

/// `u` plus the values that run werft's checks for real on the plane's real node: the example's
/// simulated verdict printed by a busybox container there, whose log and exit code the real
/// kubelet reports (`simulate.shellImage`, `nodeSelector`, `tolerations` of each check);
/// `rollback_check`: 1.2.0's PreRollback check too.
fn checks_on_real_node(mut u: UserValues, rollback_check: bool) -> UserValues {
    let checks: &[&str] = if rollback_check {
        &["upgrade-check", "rollback-check"]
    } else {
        &["upgrade-check"]
    };
    for c in checks {
        u.add_set(&format!("{c}.simulate.shellImage={}", real_node::BUSYBOX))
            .unwrap();
        u.add_set_json(&format!(
            r#"{c}.simulate.nodeSelector={{"{}":"true"}}"#,
            real_node::LABEL
        ))
        .unwrap();
        u.add_set_json(&format!(
            r#"{c}.simulate.tolerations=[{{"key":"{}","operator":"Exists"}}]"#,
            real_node::LABEL
        ))
        .unwrap();
    }
    u
}

/// The node the pod of Job `job` ran on, and its log (through the API server from the kubelet).
async fn job_pod(ns: &TestNamespace, job: &str) -> (String, String) {
    let pods: Api<Pod> = ns.api();
    let list = pods
        .list(&ListParams::default().labels(&format!("job-name={job}")))
        .await
        .unwrap();
    let pod = list
        .items
        .first()
        .unwrap_or_else(|| panic!("no pod of Job {job}"));
    let name = pod.metadata.name.clone().unwrap();
    let node = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.clone())
        .unwrap_or_default();
    (node, pods.logs(&name, &LogParams::default()).await.unwrap())
}

/// examples/werft (seed 002), the runbook's manual steps as declared features: the upgrade
/// check's `refused` verdict stops 1.1.0 before anything changed and says how to approve; the
/// approval given with `--set-json-once` lets it through and is gone for the next upgrade
/// (1.2.0 needs none); 1.2.0's rollback floor (`>=1.1.0`) forbids going back to 1.0.0, and its
/// PreRollback check runs before the rollback to 1.1.0, refusing it while sessions would be
/// stranded. Every check Job really runs, on the real node (`checks_on_real_node`).
#[tokio::test]
async fn werft_check_verdicts_one_upgrade_approvals_and_the_rollback_floor() {
    kubepkg_testkit::real_node_plane().expect("the local plane with its real node");
    let mut e = env("example-werft-safety", "werft").await;
    let none = UserValues::new();
    assert_eq!(e.apply("werft/v1", &none).await, Reason::Succeeded);
    let none = checks_on_real_node(none, false);

    let mut stranded = none.clone();
    stranded
        .add_set_json(r#"upgrade-check.simulate.affected=["s-17"]"#)
        .unwrap();
    assert_eq!(e.apply("werft/v2", &stranded).await, Reason::UpgradeRefused);
    // The verdict came from a container that really ran, told the versions by kubepkg.
    let (node, log) = job_pod(&e.ns, "werft-upgrade-check-1-1-0").await;
    assert_eq!(node, real_node::NODE);
    assert!(
        log.starts_with("upgrade-check 1.0.0 -> 1.1.0 (approved: [])\n"),
        "{log}"
    );
    let latest = e.history().await.latest().cloned().unwrap();
    assert_eq!(
        latest.description,
        "PreUpgrade hook upgrade-check refused the upgrade: 1 session(s) cannot resume on the target worker images; affected: s-17; nothing else was changed; to approve, apply again with --set-json-once 'upgrade-check.approvedSessions=[\"s-17\"]'"
    );
    assert_eq!(
        e.deployment_image("werft-api").await.as_deref(),
        Some("registry.example/werft/control-host:1.0.0")
    );

    let mut approved = stranded.clone();
    approved
        .add_set_json_once(r#"upgrade-check.approvedSessions=["s-17"]"#)
        .unwrap();
    assert_eq!(e.apply("werft/v2", &approved).await, Reason::Succeeded);
    // The next upgrade strands nothing and carries no approval: it proceeds.
    let none = checks_on_real_node(UserValues::new(), true);
    assert_eq!(e.apply("werft/v3", &none).await, Reason::Succeeded);

    // 1.2.0 declares rollback.to >=1.1.0: back to 1.0.0 is refused, naming the floor.
    let revisions = e.history().await;
    let first = revisions
        .revisions
        .iter()
        .find(|r| r.version == "1.0.0")
        .unwrap()
        .revision;
    let ns = e.ns.name().to_string();
    let inst = Instance {
        name: "werft",
        namespace: &ns,
    };
    let err = ops::rollback(&mut e.kc, inst, Some(first), false, TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("1.2.0 (revision 4) declares rollback.to >=1.1.0"),
        "{err}"
    );

    // Back to 1.1.0: 1.2.0's PreRollback check runs first; sessions would be stranded, so it
    // refuses and nothing is rolled back.
    let to_v2 = revisions
        .revisions
        .iter()
        .rev()
        .find(|r| r.version == "1.1.0")
        .unwrap()
        .revision;
    let mut blocked = none.clone();
    blocked
        .add_set_json(r#"rollback-check.simulate.affected=["s-42"]"#)
        .unwrap();
    // The check's values are those 1.2.0 was applied with: re-apply 1.2.0 with them (a
    // values-only change runs no upgrade check).
    assert_eq!(e.apply("werft/v3", &blocked).await, Reason::Succeeded);
    let err = ops::rollback(&mut e.kc, inst, Some(to_v2), false, TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("PreRollback hook rollback-check of version 1.2.0 refused the rollback: 1 session(s) wrote checkpoints 1.1.0 cannot resume"),
        "{err}"
    );
    let (node, log) = job_pod(&e.ns, "werft-rollback-check-1-1-0").await;
    assert_eq!(node, real_node::NODE);
    assert!(log.starts_with("rollback-check 1.2.0 -> 1.1.0\n"), "{log}");
    assert_eq!(
        e.deployment_image("werft-api").await.as_deref(),
        Some("registry.example/werft/control-host:1.2.0")
    );
    // With nothing stranded the check proceeds and the rollback to 1.1.0 happens.
    assert_eq!(e.apply("werft/v3", &none).await, Reason::Succeeded);
    let o = ops::rollback(&mut e.kc, inst, Some(to_v2), false, TIMEOUT)
        .await
        .unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{o:?}");
    assert_eq!(
        e.deployment_image("werft-api").await.as_deref(),
        Some("registry.example/werft/control-host:1.1.0")
    );
}

/// examples/werft (seed 002): control plane first, workers only once it is ready; the
/// workers chart, given the deployed revision's values (kubepkg.previous), keeps the previous
/// worker image available: after 1.1.0 the pool runs 1.1.0 and 1.0.0, after 1.2.0 it runs
/// 1.2.0 and 1.1.0, with no state file carried between upgrades.
#[tokio::test]
async fn werft_two_phase_upgrade_keeps_the_previous_worker_image() {
    let mut e = env("example-werft", "werft").await;
    let none = UserValues::new();
    let worker = |v: &str| format!("registry.example/werft/worker:{v}");

    assert_eq!(e.apply("werft/v1", &none).await, Reason::Succeeded);
    assert_eq!(worker_pin(&e).await, (worker("1.0.0"), String::new()));
    assert_eq!(e.deployment_image("werft-worker-pool-previous").await, None);

    let plan = e.plan("werft/v2", &none).await;
    let workers = plan.steps.iter().find(|s| s.name == "workers").unwrap();
    assert_eq!(workers.depends_on, ["control-plane"]);
    assert!(workers.upgrade_context);
    assert!(matches!(workers.change, Change::Upgrade { .. }));

    for (dir, from, to, previous) in [
        ("werft/v2", "1.0.0", "1.1.0", "1.0.0"),
        ("werft/v3", "1.1.0", "1.2.0", "1.1.0"),
    ] {
        let jobs = JobWatch::start(&e.ns).await;
        let phase1 =
            pool_image_when_api_runs(&e, &format!("registry.example/werft/control-host:{to}"));
        assert_eq!(e.apply(dir, &none).await, Reason::Succeeded, "{dir}");
        let jobs = jobs.stop();
        // Phase 1: while the new control plane rolled out, the workers were untouched.
        assert_eq!(
            phase1.await.unwrap(),
            Some(worker(previous)),
            "{dir}: workers changed before the control plane"
        );
        let p = e.progress();
        assert!(
            pos(&p, "control-plane: ready") < pos(&p, "workers: applying"),
            "{p:#?}"
        );
        let check = &jobs[&format!("werft-upgrade-check-{}", to.replace('.', "-"))];
        let env = job_env(check);
        assert_eq!(env["UPGRADE_FROM_VERSION"], from);
        assert_eq!(env["UPGRADE_TO_VERSION"], to);
        // Phase 2: the new worker image, and the one it replaces still available.
        assert_eq!(worker_pin(&e).await, (worker(to), worker(previous)));
        assert_eq!(
            e.deployment_image("werft-worker-pool").await,
            Some(worker(to))
        );
        assert_eq!(
            e.deployment_image("werft-worker-pool-previous").await,
            Some(worker(previous))
        );
    }
    assert_eq!(
        e.deployment_image("werft-egress-proxy").await.as_deref(),
        Some("registry.example/werft/egress-proxy:1.1.0")
    );
    let revs = e.revisions().await;
    assert_eq!(
        revs,
        [
            row(
                RevisionStatus::Superseded,
                "1.0.0",
                &[("control-plane", 1), ("workers", 1)]
            ),
            row(
                RevisionStatus::Superseded,
                "1.1.0",
                &[("control-plane", 2), ("workers", 2)]
            ),
            row(
                RevisionStatus::Deployed,
                "1.2.0",
                &[("control-plane", 3), ("workers", 3)]
            ),
        ]
    );
}

/// `kubepkg plan` of every example version, offline (no cluster at all): each plans as a first
/// install, in dependency order, with its gates, and none fails because a CRD that an earlier
/// component installs (kubevirt's KubeVirt) is absent.
#[test]
fn every_example_version_plans_offline() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        ("kubevirt", &["v1", "v2"], &["operator", "kubevirt"]),
        (
            "shop",
            &["v1", "v2", "v3", "v4", "v5"],
            &["database", "storefront"],
        ),
        ("werft", &["v1", "v2", "v3"], &["control-plane", "workers"]),
    ];
    for (name, versions, order) in cases {
        for v in versions {
            let dir = example(&format!("{name}/{v}"));
            let package = kubepkg_model::source::load_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let plan = ops::plan_offline(
                &package,
                Instance {
                    name,
                    namespace: name,
                },
                &UserValues::new(),
            )
            .unwrap_or_else(|e| panic!("{name}/{v}: {e}"));
            let steps: Vec<&str> = plan.steps.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(steps, order, "{name}/{v}");
            assert!(
                plan.hooks.iter().all(|h| !h.runs),
                "{name}/{v}: no hook on a first install"
            );
            assert!(
                plan.steps
                    .iter()
                    .all(|s| matches!(s.change, Change::Install { .. })),
                "{name}/{v}"
            );
            // `kubepkg plan` titles it "… of package {name} …".
            assert_eq!(plan.package, name, "{name}/{v}");
        }
    }
    let package = kubepkg_model::source::load_dir(&example("kubevirt/v2")).unwrap();
    let plan = ops::plan_offline(
        &package,
        Instance {
            name: "kubevirt",
            namespace: "kubevirt",
        },
        &UserValues::new(),
    )
    .unwrap();
    let kubevirt = &plan.steps[1];
    assert!(
        kubevirt.gates.iter().any(
            |g| matches!(g, Gate::Condition { object_kind, condition, namespace, .. }
            if object_kind == "KubeVirt" && condition == "Available" && namespace == "kubevirt")
        ),
        "{:?}",
        kubevirt.gates
    );
}

// ---------------------------------------------------------------------------------------
// Plan equals apply: the objects `plan --cluster` shows are, byte for byte, the objects
// apply sends (captured at the apply boundary by the cluster's observer).

/// The objects of a rendered plan as apply would send them (`Kind ns/name` → JSON), read
/// through the one manifest → objects conversion.
fn planned_objects(rendered: &BTreeMap<String, RenderedComponent>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for component in rendered.values() {
        for o in &component.objects {
            for m in kubepkg_manifest::parse(&o.yaml).expect("plan object reads") {
                out.push((o.id(), serde_json::to_string(&m.object).unwrap()));
            }
        }
    }
    out
}

/// A Helm test hook (never sent by an apply).
fn is_test_hook(json: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["metadata"]["annotations"]["helm.sh/hook"]
        .as_str()
        .is_some_and(|h| h.split(',').any(|e| e.trim().starts_with("test")))
}

/// Plans `dir` against the cluster (what `kubepkg plan --cluster` prints), applies it with
/// an observer on the cluster, and checks that every object apply sent is one the plan
/// rendered, byte for byte, and that every object the plan rendered for a component that
/// changes (or a hook that runs) was sent.
async fn plan_then_apply(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    dir: &Path,
    user: &UserValues,
) {
    let package = kubepkg_model::source::load_dir(dir).expect("valid package");
    plan_then_apply_package(kc, ns, name, &package, &dir.display().to_string(), user).await;
}

/// [`plan_then_apply`] of a loaded package (`label` names it in failures).
async fn plan_then_apply_package(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    package: &kubepkg_model::Package,
    label: &str,
    user: &UserValues,
) {
    let instance = Instance {
        name,
        namespace: ns,
    };
    let prepared = ops::prepare(kc, package, instance, user)
        .await
        .expect("plan --cluster");
    let planned = planned_objects(&prepared.rendered);
    let sent: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let record = sent.clone();
    kc.kube.observer = Some(Arc::new(move |o: &kubepkg_kube::ManifestObject| {
        let key = match o.id.namespace.as_str() {
            "" => format!("{} {}", o.id.kind, o.id.name),
            n => format!("{} {n}/{}", o.id.kind, o.id.name),
        };
        record
            .lock()
            .unwrap()
            .push((key, serde_json::to_string(&o.object).unwrap()));
    }));
    kc.events.clear();
    let (outcome, _) = ops::apply(kc, package, instance, user, ops::ApplyOptions::new(TIMEOUT))
        .await
        .expect("apply runs");
    kc.kube.observer = None;
    let sent = sent.lock().unwrap().clone();
    assert_eq!(
        outcome.reason,
        Reason::Succeeded,
        "{label}: {}",
        outcome.message
    );
    assert!(!sent.is_empty(), "{label}: apply sent nothing");
    for (id, json) in &sent {
        assert!(
            planned.iter().any(|(_, p)| p == json),
            "{label}: apply sent {id} as\n{json}\nwhich the plan does not show; the plan has\n{:#?}",
            planned.iter().filter(|(p, _)| p == id).collect::<Vec<_>>()
        );
    }
    let changing: Vec<&str> = prepared
        .plan
        .steps
        .iter()
        .filter(|s| !matches!(s.change, Change::Unchanged { .. }))
        .map(|s| s.name.as_str())
        .chain(
            prepared
                .plan
                .hooks
                .iter()
                .filter(|h| h.runs)
                .map(|h| h.name.as_str()),
        )
        .collect();
    for c in changing {
        for (id, json) in planned_objects(&BTreeMap::from([(
            c.to_string(),
            prepared.rendered[c].clone(),
        )])) {
            if is_test_hook(&json) {
                continue;
            }
            assert!(
                sent.iter().any(|(_, s)| *s == json),
                "{label}: the plan shows {id} of {c} but apply did not send it:\n{json}\nit sent: {:#?}",
                sent.iter().map(|(i, _)| i).collect::<Vec<_>>()
            );
        }
    }
}

#[tokio::test]
async fn plan_shows_what_apply_sends_for_every_example() {
    let ns = TestNamespace::fresh("plan-equals-apply").await;
    let _adding = kubepkg_testkit::API_SET.read().await;
    let _operator = PlayOperator::start(&ns);
    let kube = kubepkg_kube::Cluster::from_client(ns.client().clone(), ns.name());
    let caps = ops::capabilities(&kube).await;
    let mut kc = KubeCluster::new(kube, caps, TIMEOUT, Arc::new(|_: &str| {}));
    let name = ns.name().to_string();
    let shop = user(&[NO_VOLUMES]);
    let none = UserValues::new();
    for (instance, versions, values) in [
        ("shop", &["shop/v1", "shop/v2", "shop/v3"][..], &shop),
        ("werft", &["werft/v1", "werft/v2", "werft/v3"][..], &none),
        ("kubevirt", &["kubevirt/v1", "kubevirt/v2"][..], &none),
    ] {
        for v in versions {
            plan_then_apply(&mut kc, &name, instance, &example(v), values).await;
        }
    }
}

/// A package of public and synthetic corpus charts plus `tests/charts/numbers` (`crds/`,
/// hooks, release revision, IsUpgrade, capabilities, integers above 2^53), installed and
/// then upgraded.
#[tokio::test]
async fn plan_shows_what_apply_sends_for_corpus_charts_and_big_integers_survive() {
    let ns = TestNamespace::fresh("plan-equals-apply-charts").await;
    // Two charts print the whole API set; a CRD another test installs between plan and apply
    // would make them differ.
    let _reading = kubepkg_testkit::API_SET.write().await;
    let root = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let charts = [
        ("numbers", repo.join("crates/kubepkg-engine/tests/charts/numbers")),
        ("caps", repo.join("crates/kubepkg/tests/charts/caps")),
        (
            "guestbook",
            repo.join("testdata/charts/modules/github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-guestbook"),
        ),
        (
            "podinfo",
            repo.join("testdata/charts/modules/github.com_fluxcd_flagger__charts_podinfo"),
        ),
        (
            "api-versions",
            repo.join("testdata/charts/modules/github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-api-versions"),
        ),
    ];
    for (c, src) in &charts {
        let status = Command::new("cp")
            .args(["-r"])
            .arg(src)
            .arg(root.path().join(c))
            .status()
            .unwrap();
        assert!(status.success(), "copy {}", src.display());
    }
    let manifest = |version: &str, note: &str| {
        let mut m = format!(
            "package: {{name: corpus, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n"
        );
        for (c, _) in &charts {
            let values = match *c {
                "numbers" => format!("{{note: {note}}}"),
                // Its HPA template is written for autoscaling/v2beta fields.
                "podinfo" => "{hpa: {enabled: false}}".into(),
                _ => "{}".into(),
            };
            m.push_str(&format!("- {{name: {c}, path: {c}, values: {values}}}\n"));
        }
        m
    };
    let kube = kubepkg_kube::Cluster::from_client(ns.client().clone(), ns.name());
    let caps = ops::capabilities(&kube).await;
    let mut kc = KubeCluster::new(kube, caps, TIMEOUT, Arc::new(|_: &str| {}));
    let name = ns.name().to_string();
    for (version, note) in [("1.0.0", "first"), ("1.0.1", "second")] {
        std::fs::write(root.path().join("kubepkg.yaml"), manifest(version, note)).unwrap();
        plan_then_apply(&mut kc, &name, "corpus", root.path(), &UserValues::new()).await;
    }
    // The upgrade rendered revision 2 (plan and apply alike, checked above); the API server
    // holds what the chart wrote.
    let cms: Api<ConfigMap> = Api::namespaced(ns.client().clone(), ns.name());
    let cm = cms.get("corpus-numbers-release").await.unwrap();
    let data = cm.data.unwrap();
    assert_eq!(
        (
            data["revision"].as_str(),
            data["isUpgrade"].as_str(),
            data["note"].as_str()
        ),
        ("2", "true", "second")
    );
    assert_eq!(data["hasNumbers"], "true");
    // 2^53+1 and int64's extremes read back from the API server exactly as written.
    let gvk = GroupVersionKind::gvk("kubepkg.test", "v1", "Number");
    let numbers: Api<DynamicObject> = Api::namespaced_with(
        ns.client().clone(),
        ns.name(),
        &ApiResource::from_gvk_with_plural(&gvk, "numbers"),
    );
    let n = numbers.get("corpus-numbers").await.unwrap();
    let spec = &n.data["spec"];
    assert_eq!(spec["big"].as_u64(), Some(9_007_199_254_740_993), "{spec}");
    assert_eq!(spec["max"].as_i64(), Some(i64::MAX), "{spec}");
    assert_eq!(spec["min"].as_i64(), Some(i64::MIN), "{spec}");
    assert_eq!(spec["ratio"].as_f64(), Some(0.25), "{spec}");
}

/// A Helm 4 `postrenderer/v1` plugin (a shell script) that rewrites one field and adds a
/// ConfigMap named after the chart whose manifests it is given.
const POST_RENDER_SH: &str = r#"#!/bin/sh
set -e
in=$(cat)
chart=$(printf '%s\n' "$in" | sed -n "s/.*postrender-filename: '\([^/]*\)\/.*/\1/p" | head -n 1)
printf '%s\n' "$in" | sed 's/imagePullPolicy: IfNotPresent/imagePullPolicy: Always/'
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-post-rendered\ndata:\n  args: "%s"\n' "$chart" "$*"
"#;

/// Post-rendering is part of the one render path: with a plugin on every component (as
/// `kubepkg plan|apply --post-renderer testpr --post-renderer-args x` sets it), the plan shows
/// the post-rendered objects (the plugin's ConfigMaps included) and apply sends exactly those;
/// the revision records the post-renderer of each component.
#[tokio::test]
async fn plan_shows_what_apply_sends_with_a_post_renderer() {
    use std::os::unix::fs::PermissionsExt;
    let ns = TestNamespace::fresh("plan-equals-apply-post").await;
    let root = tempfile::tempdir().unwrap();
    let plugins = tempfile::tempdir().unwrap();
    let plugin = plugins.path().join("testpr");
    kubepkg_testkit::tree::write_files(
        &plugin,
        &[
            (
                "plugin.yaml",
                "apiVersion: v1\nname: testpr\nversion: 1.0.0\ntype: postrenderer/v1\nruntime: subprocess\nruntimeConfig:\n  platformCommand:\n  - command: ${HELM_PLUGIN_DIR}/run.sh\n",
            ),
            ("run.sh", POST_RENDER_SH),
        ],
    );
    std::fs::set_permissions(
        plugin.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (c, src) in [
        (
            "guestbook",
            "testdata/charts/modules/github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-guestbook",
        ),
        (
            "podinfo",
            "testdata/charts/modules/github.com_fluxcd_flagger__charts_podinfo",
        ),
    ] {
        let status = Command::new("cp")
            .args(["-r"])
            .arg(repo.join(src))
            .arg(root.path().join(c))
            .status()
            .unwrap();
        assert!(status.success(), "copy {src}");
    }
    std::fs::write(
        root.path().join("kubepkg.yaml"),
        "package: {name: post, version: 1.0.0}\ncomponents:\n- {name: guestbook, path: guestbook}\n- {name: podinfo, path: podinfo, values: {hpa: {enabled: false}}}\n",
    )
    .unwrap();
    let mut package = kubepkg_model::source::load_dir(root.path()).expect("valid package");
    let renderer = kubepkg_chart::plugin::PostRendererPlugin::find(
        &[plugins.path().to_path_buf()],
        "testpr",
        &["x".to_string()],
    )
    .expect("the plugin is found");
    for c in &mut package.components {
        c.post_renderers =
            kubepkg_chart::postrender::PostRenderers(vec![Arc::new(renderer.clone())]);
    }
    let kube = kubepkg_kube::Cluster::from_client(ns.client().clone(), ns.name());
    let caps = ops::capabilities(&kube).await;
    let mut kc = KubeCluster::new(kube, caps, TIMEOUT, Arc::new(|_: &str| {}));
    let name = ns.name().to_string();
    plan_then_apply_package(
        &mut kc,
        &name,
        "post",
        &package,
        "post-rendered package",
        &UserValues::new(),
    )
    .await;
    // The plugin's objects were planned and sent, so they are in the cluster.
    let cms: Api<ConfigMap> = Api::namespaced(ns.client().clone(), ns.name());
    for chart in ["helm-guestbook", "podinfo"] {
        let cm = cms
            .get(&format!("{chart}-post-rendered"))
            .await
            .unwrap_or_else(|e| panic!("the plugin's ConfigMap of {chart}: {e}"));
        assert_eq!(cm.data.unwrap()["args"], "x");
    }
    let history = kc.store.history("post", &name).await.unwrap();
    let latest = history.latest().expect("a revision");
    for c in &latest.components {
        assert_eq!(c.post_renderers, ["plugin testpr x"], "{}", c.name);
    }
}
