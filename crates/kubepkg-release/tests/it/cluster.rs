//! Release operations on the local control plane (testenv/): install → upgrade (objects
//! added, changed, removed, kept) → failed upgrade (failing pre-upgrade hook, its log shown)
//! → rollback → uninstall, asserting cluster objects and stored records at each step; lease
//! recovery of a dead holder's pending revision; and interop with real Helm 3 and 4.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, PostParams};
use kubepkg_kube::Cluster;
use kubepkg_release::action::{ActionError, Options, Releases, Rendered, lock};
use kubepkg_release::record::{HookDeletePolicy, HookEvent, HookPhase, Info, Status};
use kubepkg_release::storage::SecretDriver;
use kubepkg_release::{Hook, Release};
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command};

const GOLDEN: &str = include_str!("../golden/helm-v4.3.1-install.json");

fn chart_record() -> kubepkg_release::Chart {
    let r: Release = serde_json::from_str(GOLDEN).expect("golden record");
    r.chart.expect("chart")
}

fn cm(name: &str, value: &str, extra_meta: &str) -> String {
    format!(
        "---\n# Source: h7chart/templates/{name}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{extra_meta}data:\n  v: \"{value}\"\n"
    )
}

fn job_hook(name: &str, events: &[HookEvent], sim: &str, log: &str) -> Hook {
    let manifest = format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\nspec:\n  backoffLimit: 0\n  template:\n    metadata:\n      annotations:\n        kubepkg.dev/sim: {sim}\n        kubepkg.dev/sim-log: {log:?}\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: registry.invalid/migrate:1\n"
    );
    Hook {
        name: name.into(),
        kind: "Job".into(),
        path: format!("h7chart/templates/{name}.yaml"),
        manifest,
        events: events.to_vec(),
        delete_policies: vec![
            HookDeletePolicy::BeforeHookCreation,
            HookDeletePolicy::HookSucceeded,
        ],
        ..Default::default()
    }
}

fn rendered(manifest: String, hooks: Vec<Hook>, replicas: i64) -> Rendered {
    let mut config = serde_json::Map::new();
    config.insert("replicas".into(), replicas.into());
    Rendered {
        chart: chart_record(),
        config,
        manifest,
        hooks,
        notes: "Release notes\n".into(),
    }
}

fn options() -> Options {
    Options {
        wait: true,
        timeout: Duration::from_secs(60),
        ..Default::default()
    }
}

async fn cm_value(ns: &TestNamespace, name: &str) -> Option<String> {
    cm_key(ns, name, "v").await
}

async fn cm_key(ns: &TestNamespace, name: &str, key: &str) -> Option<String> {
    let api: Api<ConfigMap> = ns.api();
    api.get_opt(name)
        .await
        .expect("get configmap")
        .and_then(|c| c.data)
        .and_then(|d| d.get(key).cloned())
}

fn releases<'a>(cluster: &'a Cluster, ns: &TestNamespace) -> Releases<'a, SecretDriver> {
    Releases::new(
        cluster,
        SecretDriver::new(ns.client().clone(), Some(ns.name())),
        ns.name(),
    )
}

fn statuses(history: &[Release]) -> Vec<(u64, String)> {
    history
        .iter()
        .map(|r| (r.version, r.status().to_string()))
        .collect()
}

#[tokio::test]
async fn lifecycle_install_upgrade_failed_hook_rollback_uninstall() {
    let ns = TestNamespace::fresh("release-lifecycle").await;
    let cluster = Cluster::from_client(ns.client().clone(), ns.name());
    let rel = releases(&cluster, &ns);
    let keep = "  annotations:\n    helm.sh/resource-policy: keep\n";

    // Install: a, b, kept; a pre-install/pre-upgrade migration Job.
    let migrate = job_hook(
        "migrate",
        &[HookEvent::PreInstall, HookEvent::PreUpgrade],
        "ok",
        "migrated",
    );
    let v1 = format!(
        "{}{}{}",
        cm("a", "1", ""),
        cm("b", "1", ""),
        cm("kept", "1", keep)
    );
    let r1 = rel
        .install(
            "web",
            rendered(v1.clone(), vec![migrate.clone()], 1),
            &options(),
        )
        .await
        .expect("install");
    assert_eq!((r1.version, r1.status()), (1, Status::Deployed));
    assert_eq!(r1.info.as_ref().unwrap().description, "Install complete");
    assert_eq!(r1.hooks[0].last_run.phase, HookPhase::Succeeded);
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("1"));
    let a: ConfigMap = ns.api().get("a").await.unwrap();
    assert_eq!(
        a.metadata.labels.unwrap()["app.kubernetes.io/managed-by"],
        "Helm"
    );
    assert_eq!(
        a.metadata.annotations.unwrap()["meta.helm.sh/release-name"],
        "web"
    );
    let jobs: Api<k8s_openapi::api::batch::v1::Job> = ns.api();
    assert!(
        jobs.get_opt("migrate").await.unwrap().is_none(),
        "hook-succeeded deletes the Job"
    );

    // Upgrade: a changed, b and kept removed from the chart, c added.
    let v2 = format!("{}{}", cm("a", "2", ""), cm("c", "2", ""));
    let r2 = rel
        .upgrade(
            "web",
            rendered(v2.clone(), vec![migrate.clone()], 2),
            &options(),
            false,
        )
        .await
        .expect("upgrade");
    assert_eq!((r2.version, r2.status()), (2, Status::Deployed));
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("2"));
    assert_eq!(
        cm_value(&ns, "b").await,
        None,
        "removed from the chart: deleted"
    );
    assert_eq!(
        cm_value(&ns, "kept").await.as_deref(),
        Some("1"),
        "resource-policy keep"
    );
    assert_eq!(cm_value(&ns, "c").await.as_deref(), Some("2"));

    // Failed upgrade: the migration fails; nothing else changes; its log is in the error.
    let failing = job_hook(
        "migrate",
        &[HookEvent::PreUpgrade],
        "fail",
        "migration exploded",
    );
    let v3 = format!("{}{}", cm("a", "3", ""), cm("d", "3", ""));
    let err = rel
        .upgrade("web", rendered(v3, vec![failing], 3), &options(), false)
        .await
        .expect_err("failing hook fails the upgrade");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "Upgrade \"web\" failed: pre-upgrade hook h7chart/templates/migrate.yaml failed"
        ),
        "{text}"
    );
    assert!(
        text.contains("migration exploded"),
        "the kept Job's pod log is shown: {text}"
    );
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("2"));
    assert_eq!(cm_value(&ns, "d").await, None);
    let history = rel.store.history("web").await.unwrap();
    assert_eq!(
        statuses(&history),
        vec![
            (1, "superseded".into()),
            (2, "deployed".into()),
            (3, "failed".into())
        ]
    );
    // Helm keeps a superseded revision's description.
    assert_eq!(
        history[0].info.as_ref().unwrap().description,
        "Install complete"
    );
    assert!(
        jobs.get_opt("migrate").await.unwrap().is_some(),
        "a failed hook is kept for its logs"
    );

    // Rollback to 1: a new revision 4 with revision 1's manifest.
    let r4 = rel.rollback("web", 1, &options()).await.expect("rollback");
    assert_eq!((r4.version, r4.status()), (4, Status::Deployed));
    assert_eq!(r4.info.as_ref().unwrap().description, "Rollback to 1");
    assert_eq!(r4.manifest, v1);
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("1"));
    assert_eq!(cm_value(&ns, "b").await.as_deref(), Some("1"));
    assert_eq!(cm_value(&ns, "c").await, None);
    let history = rel.store.history("web").await.unwrap();
    assert_eq!(
        statuses(&history),
        vec![
            (1, "superseded".into()),
            (2, "superseded".into()),
            (3, "failed".into()),
            (4, "deployed".into())
        ]
    );

    // Uninstall keeping history.
    let opts = Options {
        keep_history: true,
        ..options()
    };
    let gone = rel.uninstall("web", &opts).await.expect("uninstall");
    assert_eq!(gone.status(), Status::Uninstalled);
    assert_eq!(cm_value(&ns, "a").await, None);
    assert_eq!(cm_value(&ns, "kept").await.as_deref(), Some("1"));
    let last = rel.store.last("web").await.unwrap().unwrap();
    assert_eq!((last.version, last.status()), (4, Status::Uninstalled));
    assert_eq!(last.info.unwrap().description, "Uninstallation complete");
}

#[tokio::test]
async fn foreign_object_is_not_adopted_without_take_ownership() {
    let ns = TestNamespace::fresh("release-foreign").await;
    let cluster = Cluster::from_client(ns.client().clone(), ns.name());
    let rel = releases(&cluster, &ns);
    ns.apply_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: mine\n")
        .await
        .unwrap();
    let err = rel
        .install("web", rendered(cm("a", "1", ""), vec![], 1), &options())
        .await
        .expect_err("refused");
    assert!(
        err.to_string().contains("ConfigMap \"a\" in namespace")
            && err
                .to_string()
                .contains("exists and cannot be imported into the current release"),
        "{err}"
    );
    assert!(
        rel.store.last("web").await.unwrap().is_none(),
        "nothing recorded"
    );
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("mine"));
    let opts = Options {
        take_ownership: true,
        ..options()
    };
    rel.install("web", rendered(cm("a", "1", ""), vec![], 1), &opts)
        .await
        .expect("adopted");
    assert_eq!(cm_value(&ns, "a").await.as_deref(), Some("1"));
}

#[tokio::test]
async fn dead_holders_pending_upgrade_is_recovered_and_live_lock_refused() {
    let ns = TestNamespace::fresh("release-lease").await;
    let cluster = Cluster::from_client(ns.client().clone(), ns.name());
    let rel = releases(&cluster, &ns);
    rel.install("web", rendered(cm("a", "1", ""), vec![], 1), &options())
        .await
        .unwrap();
    // A crashed process: pending-upgrade revision 2 and a lease last renewed long ago.
    let mut pending = rel.store.last("web").await.unwrap().unwrap();
    pending.version = 2;
    pending.info = Some(Info {
        status: Status::PendingUpgrade,
        description: "Preparing upgrade".into(),
        ..Default::default()
    });
    rel.store.create(&pending).await.unwrap();
    let leases: Api<Lease> = ns.api();
    let stale: jiff::Timestamp = "2020-01-01T00:00:00Z".parse().unwrap();
    leases
        .create(
            &PostParams::default(),
            &Lease {
                metadata: ObjectMeta {
                    name: Some(lock::lease_name("web")),
                    ..Default::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some("dead-host-1".into()),
                    lease_duration_seconds: Some(30),
                    renew_time: Some(MicroTime(stale)),
                    ..Default::default()
                }),
            },
        )
        .await
        .unwrap();
    let r3 = rel
        .upgrade(
            "web",
            rendered(cm("a", "3", ""), vec![], 3),
            &options(),
            false,
        )
        .await
        .expect("upgrade after recovery");
    assert_eq!((r3.version, r3.status()), (3, Status::Deployed));
    let r2 = rel.store.get("web", 2).await.unwrap();
    assert_eq!(r2.status(), Status::Failed);
    assert!(r2.info.unwrap().description.contains("interrupted"));

    // A live holder: --no-wait-lock fails at once, naming the holder.
    let held = lock::acquire(
        ns.client().clone(),
        ns.name(),
        "web",
        false,
        Duration::from_secs(5),
        |_| {},
    )
    .await
    .unwrap();
    let opts = Options {
        wait_lock: false,
        ..options()
    };
    let err = rel
        .upgrade("web", rendered(cm("a", "4", ""), vec![], 4), &opts, false)
        .await
        .expect_err("locked");
    assert!(matches!(err, ActionError::Locked { .. }), "{err}");
    assert!(err.to_string().contains(held.holder()), "{err}");
    held.release().await;
}

fn run_helm(bin: &Path, ns: &TestNamespace, args: &[&str]) -> String {
    let out = helm_command(bin, ns, args).output().expect("run helm");
    assert!(
        out.status.success(),
        "helm {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn chart_dir() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/chart")
        .display()
        .to_string()
}

async fn interop(version: &str) {
    let bin = helm_binary(version).expect("helm oracle");
    let ns = TestNamespace::fresh(&format!("interop-{version}")).await;
    let cluster = Cluster::from_client(ns.client().clone(), ns.name());
    let rel = releases(&cluster, &ns);
    let manifest = cm("rel-cm", "3", "");

    // kubepkg installs and upgrades; helm reads it as its own.
    rel.install("rel", rendered(manifest.clone(), vec![], 3), &options())
        .await
        .unwrap();
    rel.upgrade(
        "rel",
        rendered(cm("rel-cm", "4", ""), vec![], 4),
        &options(),
        false,
    )
    .await
    .unwrap();
    let list: serde_json::Value =
        serde_json::from_str(&run_helm(&bin, &ns, &["list", "-o", "json"])).unwrap();
    assert_eq!(list[0]["name"], "rel");
    assert_eq!(list[0]["revision"], "2");
    assert_eq!(list[0]["status"], "deployed");
    assert_eq!(list[0]["chart"], "h7chart-0.1.0");
    assert_eq!(list[0]["app_version"], "1.2.3");
    let history: serde_json::Value =
        serde_json::from_str(&run_helm(&bin, &ns, &["history", "rel", "-o", "json"])).unwrap();
    let hist: Vec<(i64, String)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["revision"].as_i64().unwrap(),
                h["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(hist, vec![(1, "superseded".into()), (2, "deployed".into())]);
    let values: serde_json::Value = serde_json::from_str(&run_helm(
        &bin,
        &ns,
        &["get", "values", "rel", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(values, serde_json::json!({"replicas": 4}));
    let all: serde_json::Value = serde_json::from_str(&run_helm(
        &bin,
        &ns,
        &["get", "values", "rel", "--all", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(all["replicas"], 4);
    assert_eq!(
        all["name"], "x<y>&z",
        "chart defaults come from the stored chart"
    );
    assert_eq!(
        run_helm(&bin, &ns, &["get", "manifest", "rel"]).trim(),
        cm("rel-cm", "4", "").trim()
    );

    // helm upgrades and rolls back kubepkg's release; kubepkg reads the result.
    run_helm(
        &bin,
        &ns,
        &["upgrade", "rel", &chart_dir(), "--set", "replicas=7"],
    );
    let r3 = rel.store.last("rel").await.unwrap().unwrap();
    assert_eq!((r3.version, r3.status()), (3, Status::Deployed));
    assert_eq!(r3.config["replicas"], 7);
    assert_eq!(
        rel.store.get("rel", 2).await.unwrap().status(),
        Status::Superseded
    );
    run_helm(&bin, &ns, &["rollback", "rel", "2"]);
    assert_eq!(cm_value(&ns, "rel-cm").await.as_deref(), Some("4"));

    // kubepkg upgrades and rolls back what helm wrote.
    let r5 = rel
        .upgrade(
            "rel",
            rendered(cm("rel-cm", "5", ""), vec![], 5),
            &options(),
            false,
        )
        .await
        .expect("kubepkg upgrades a helm-written release");
    assert_eq!(r5.version, 5);
    let r6 = rel
        .rollback("rel", 3, &options())
        .await
        .expect("rollback to helm's revision");
    assert_eq!(r6.version, 6);
    assert_eq!(r6.config["replicas"], 7);
    let history: serde_json::Value =
        serde_json::from_str(&run_helm(&bin, &ns, &["history", "rel", "-o", "json"])).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 6);
    assert_eq!(history[5]["description"], "Rollback to 3");
    assert_eq!(
        cm_key(&ns, "rel-cm", "replicas").await.as_deref(),
        Some("7"),
        "helm's revision 3 rendered replicas into ConfigMap rel-cm"
    );
}

#[tokio::test]
async fn interop_with_helm_v3() {
    interop("v3.22.0").await;
}

#[tokio::test]
async fn interop_with_helm_v4() {
    interop("v4.3.1").await;
}

fn deployment(name: &str, sim: &str) -> String {
    format!(
        "---\n# Source: h7chart/templates/{name}.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n      annotations:\n        kubepkg.dev/sim: {sim}\n    spec:\n      containers:\n      - name: c\n        image: registry.invalid/{name}:1\n"
    )
}

#[tokio::test]
async fn wait_reports_unready_objects_and_atomic_install_cleans_up() {
    let ns = TestNamespace::fresh("release-wait").await;
    let cluster = Cluster::from_client(ns.client().clone(), ns.name());
    let rel = releases(&cluster, &ns);
    // Ready Deployment: --wait succeeds (kstatus rules on a real Deployment's status).
    rel.install(
        "good",
        rendered(deployment("good", "ok"), vec![], 1),
        &options(),
    )
    .await
    .expect("a ready deployment passes --wait");

    // Never-ready Deployment: the failure names it with its kstatus reason.
    let opts = Options {
        timeout: Duration::from_secs(8),
        ..options()
    };
    let err = rel
        .install(
            "bad",
            rendered(deployment("stuck", "unready"), vec![], 1),
            &opts,
        )
        .await
        .expect_err("never ready");
    let text = err.to_string();
    assert!(
        text.starts_with("Release \"bad\" failed: timed out after 8s waiting for 1 object(s)"),
        "{text}"
    );
    assert!(text.contains("Deployment \"stuck\" in namespace"), "{text}");
    assert!(
        text.contains("InProgress (LessReady): Ready: 0/1") || text.contains("LessAvailable"),
        "{text}"
    );
    let bad = rel.store.last("bad").await.unwrap().unwrap();
    assert_eq!(
        bad.status(),
        Status::Failed,
        "a failed first install is kept for diagnosis"
    );

    // --atomic: the failed install is uninstalled.
    let atomic = Options {
        atomic: true,
        ..opts
    };
    let err = rel
        .install(
            "gone",
            rendered(deployment("stuck2", "unready"), vec![], 1),
            &atomic,
        )
        .await
        .expect_err("never ready");
    assert!(
        err.to_string()
            .contains("has been uninstalled due to atomic being set"),
        "{err}: {err:?}"
    );
    assert!(rel.store.last("gone").await.unwrap().is_none());
    let deps: Api<k8s_openapi::api::apps::v1::Deployment> = ns.api();
    assert!(deps.get_opt("stuck2").await.unwrap().is_none());
}
