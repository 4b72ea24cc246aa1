//! The rules of docs/rules.md on the local control plane (testenv/), one test (or more) per rule,
//! each asserting what the cluster holds (objects, Helm release records) and the package
//! revisions recorded. Packages are written to temporary directories; workloads use the node
//! simulator's pod annotations (`kubepkg.dev/sim`) to be ready, never ready, or fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{
    RevisionRow, apply_with, logged_cluster, package_with, pos, progress, release_revisions,
    revision_rows, rollback, sim_hook_chart, verdict_hook_chart,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ListParams};
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_model::values::UserValues;
use kubepkg_package::revision::Reason;
use kubepkg_package::revision::RevisionStatus;
use kubepkg_release::Status;
use kubepkg_release::storage::{SecretDriver, Store};
use kubepkg_testkit::{TestNamespace, charts};

/// Writes a package: `manifest` as kubepkg.yaml; every component named in `deploys` gets a
/// deploy chart at its name, and each name in `hooks` a hook chart whose Job `sim` steers.
fn package(root: &Path, manifest: &str, deploys: &[&str], hooks: &[&str]) {
    package_with(root, manifest, deploys, hooks, sim_hook_chart);
}

/// kubepkg.yaml of package `p` at `version`, its package entry extended by `extra` (flow
/// entries such as [`SAFE`]; empty for none), with the component list `components`.
fn p_manifest(version: &str, extra: &str, components: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(", {extra}")
    };
    format!("package: {{name: p, version: {version}{extra}}}\ncomponents:\n{components}")
}

/// The package entry of a version safe to roll back.
const SAFE: &str = "rollback: {safe: true}";

/// Components `a` and `b`, b after a.
const A_THEN_B: &str = "- {name: a, path: a}\n- {name: b, path: b, install: {dependsOn: [a]}}\n";

/// Component `app` and its `PreUpgrade` hook `migrate`.
const APP_AND_MIGRATE: &str =
    "- {name: app, path: app}\n- {name: migrate, path: migrate, install: {phase: PreUpgrade}}\n";

/// Versions `versions` of package `p` ([`APP_AND_MIGRATE`], `extra` in its package entry),
/// each in `root/VERSION`, their hook a [`verdict_hook_chart`].
fn verdict_versions(root: &Path, versions: &[&str], extra: &str) {
    for v in versions {
        package_with(
            &root.join(v),
            &p_manifest(v, extra, APP_AND_MIGRATE),
            &["app"],
            &["migrate"],
            verdict_hook_chart,
        );
    }
}

/// A temporary directory holding, in `p/`, a package of `manifest` with a deploy chart at
/// each of `deploys`: the directory and that path.
fn package_in_tmp(manifest: &str, deploys: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    package(&dir, manifest, deploys, &[]);
    (tmp, dir)
}

struct Env {
    ns: TestNamespace,
    events: Arc<Mutex<Vec<String>>>,
    kc: KubeCluster,
}

async fn env(test: &str, timeout: Duration) -> Env {
    let ns = TestNamespace::fresh(test).await;
    let (kc, events) = logged_cluster(&ns, timeout);
    Env { ns, events, kc }
}

impl Env {
    fn instance(&self) -> Instance<'_> {
        Instance {
            name: "pkg",
            namespace: self.ns.name(),
        }
    }

    async fn apply(&mut self, dir: &Path, user: &UserValues, timeout: Duration) -> Reason {
        let ns = self.ns.name().to_string();
        apply_with(&mut self.kc, &ns, "pkg", dir, user, timeout)
            .await
            .reason
    }

    /// `(status, version, [(component, release revision)])` of every package revision.
    async fn revisions(&self) -> Vec<RevisionRow> {
        let h = self
            .kc
            .store
            .history("pkg", self.ns.name())
            .await
            .expect("history");
        revision_rows(&h)
    }

    /// `(revision, status)` of every stored Helm release record of `release`.
    async fn release_history(&self, release: &str) -> Vec<(u64, Status)> {
        release_revisions(&self.ns, release).await
    }

    fn progress(&self) -> Vec<String> {
        progress(&self.kc)
    }

    /// Rolls `pkg` back to revision `target`; `force` goes past version floors and check hooks.
    async fn rollback(
        &mut self,
        target: u64,
        force: bool,
    ) -> Result<kubepkg_package::orchestrator::Outcome, kubepkg_engine::EngineError> {
        let inst = Instance {
            name: "pkg",
            namespace: self.ns.name(),
        };
        ops::rollback(&mut self.kc, inst, Some(target), force, SHORT).await
    }
}

const SHORT: Duration = Duration::from_secs(60);

/// Rule 1: dependencies first, each ready before the next starts, manifest order otherwise.
#[tokio::test]
async fn rule1_order_dependencies_first_then_manifest_order() {
    let (_tmp, dir) = package_in_tmp(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: web, path: web, install: {dependsOn: [db]}}\n- {name: cache, path: cache}\n- {name: db, path: db}\n",
        &["web", "cache", "db"],
    );
    let mut e = env("rule1-order", SHORT).await;
    assert_eq!(
        e.apply(&dir, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    let p = e.progress();
    // web depends on db, so db goes first; cache (independent) keeps its manifest place.
    assert!(pos(&p, "db: ready") < pos(&p, "web: applying"), "{p:#?}");
    assert!(pos(&p, "cache: ready") < pos(&p, "db: applying"), "{p:#?}");
    assert!(pos(&p, "web: applying") < pos(&p, "web: ready"));
    // One at a time: every applying is followed by its own ready before the next applying.
    let seq: Vec<&String> = p
        .iter()
        .filter(|l| l.ends_with(": applying") || l.ends_with(": ready"))
        .collect();
    assert_eq!(
        seq,
        [
            "cache: applying",
            "cache: ready",
            "db: applying",
            "db: ready",
            "web: applying",
            "web: ready"
        ]
    );
    let deps: Api<Deployment> = e.ns.api();
    for d in ["pkg-web", "pkg-cache", "pkg-db"] {
        assert!(deps.get_opt(d).await.unwrap().is_some(), "{d} missing");
    }
    assert_eq!(
        e.revisions().await,
        [(
            RevisionStatus::Deployed,
            "1.0.0".to_string(),
            vec![("cache".into(), 1), ("db".into(), 1), ("web".into(), 1)]
        )]
    );
}

/// Rule 2: a package waits for its required packages (RequirementsNotMet, nothing changed);
/// an optional requirement that is absent does not hold anything up.
#[tokio::test]
async fn rule2_requirements_wait_then_proceed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    let req_name = format!("base-{}", std::process::id());
    package(
        &base,
        &format!(
            "package: {{name: {req_name}, version: 1.2.0}}\ncomponents:\n- {{name: a, path: a}}\n"
        ),
        &["a"],
        &[],
    );
    let app = tmp.path().join("app");
    package(
        &app,
        &format!(
            "package:\n  name: app\n  version: 1.0.0\n  requires:\n  - {{name: {req_name}, version: \">=1.0.0\"}}\n  - {{name: absent-optional-{req_name}, optional: true}}\ncomponents:\n- {{name: b, path: b}}\n"
        ),
        &["b"],
        &[],
    );
    let mut e = env("rule2-requires", SHORT).await;
    e.kc.requirements_timeout = Duration::from_secs(3);
    assert_eq!(
        e.apply(&app, &UserValues::new(), SHORT).await,
        Reason::RequirementsNotMet
    );
    let p = e.progress();
    // Re-checked on every change of any package record, always with the same answer: told
    // once.
    let want = format!("requirements: waiting for package {req_name} (not installed)");
    assert_eq!(p, [want]);
    assert!(e.revisions().await.is_empty(), "nothing may be recorded");
    assert!(
        e.release_history("pkg-b").await.is_empty(),
        "nothing may be installed"
    );

    // The required package installed (as another instance, in the same namespace).
    let package = kubepkg_model::source::load_dir(&base).unwrap();
    let ns = e.ns.name().to_string();
    let (o, _) = ops::apply(
        &mut e.kc,
        &package,
        Instance {
            name: &req_name,
            namespace: &ns,
        },
        &UserValues::new(),
        ops::ApplyOptions::new(SHORT),
    )
    .await
    .unwrap();
    assert_eq!(o.reason, Reason::Succeeded);
    assert_eq!(
        e.apply(&app, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    assert_eq!(e.release_history("pkg-b").await, [(1, Status::Deployed)]);
    assert_eq!(e.revisions().await[0].0, RevisionStatus::Deployed);
}

/// Rule 3: `readyWhen` holds the next component back until the condition is reported,
/// watching (the test sets the condition while the apply waits).
#[tokio::test]
async fn rule3_ready_when_gates_the_next_component() {
    let group = format!("r3{}.kubepkg.dev", std::process::id());
    let (_tmp, dir) = package_in_tmp(
        &p_manifest(
            "1.0.0",
            "",
            &format!(
                "- name: op\n  path: op\n- name: cr\n  path: cr\n  install:\n    dependsOn: [op]\n    readyWhen:\n    - {{apiVersion: {group}/v1, kind: Gadget, name: main, condition: Available}}\n- {{name: after, path: after, install: {{dependsOn: [cr]}}}}\n"
            ),
        ),
        &["op", "after"],
    );
    charts::write_files(
        &dir,
        &[(
            "op/crds/gadgets.yaml",
            &format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.{group}\nspec:\n  group: {group}\n  names: {{kind: Gadget, plural: gadgets, singular: gadget}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    subresources: {{status: {{}}}}\n    schema:\n      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
            ),
        )],
    );
    charts::write_chart(
        &dir.join("cr"),
        "cr",
        "1.0.0",
        &[(
            "templates/gadget.yaml",
            &format!(
                "apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: main\nspec: {{size: 1}}\n"
            ),
        )],
    );
    let mut e = env("rule3-readywhen", SHORT).await;
    let _adding = kubepkg_testkit::API_SET.read().await;
    let ns = e.ns.name().to_string();
    let client = e.ns.client().clone();
    let setter = {
        let group = group.clone();
        let ns = ns.clone();
        let client = client.clone();
        tokio::spawn(async move {
            let kube = kubepkg_kube::Cluster::from_client(client.clone(), &ns);
            let id = kubepkg_kube::ObjectRef {
                api_version: format!("{group}/v1"),
                kind: "Gadget".into(),
                namespace: ns.clone(),
                name: "main".into(),
            };
            // Wait for the Gadget, then check the next component has not started.
            let api = loop {
                kube.discovery.invalidate();
                if let Ok((api, _)) = kube.locate(&id, &ns).await
                    && api.get_opt("main").await.ok().flatten().is_some()
                {
                    break api;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            };
            tokio::time::sleep(Duration::from_secs(2)).await;
            let store = Store::new(SecretDriver::new(client.clone(), Some(&ns)));
            let after_started = !store.history("pkg-after").await.unwrap().is_empty();
            let status = serde_json::json!({"status": {"conditions": [
                {"type": "Available", "status": "True", "reason": "Deployed", "message": "ok"}]}});
            api.patch_status(
                "main",
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&status),
            )
            .await
            .unwrap();
            after_started
        })
    };
    assert_eq!(
        e.apply(&dir, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    assert!(
        !setter.await.unwrap(),
        "`after` started before the gate held"
    );
    let p = e.progress();
    assert!(pos(&p, "cr: ready") < pos(&p, "after: applying"));
    let lines = e.events.lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l.starts_with(&format!(
            "cr: waiting for Gadget {ns}/main: condition Available not reported yet"
        ))),
        "the wait must say what it waits for: {lines:#?}"
    );
    assert_eq!(
        e.release_history("pkg-after").await,
        [(1, Status::Deployed)]
    );
    assert_eq!(e.revisions().await[0].0, RevisionStatus::Deployed);
}

/// Rule 4: a component never ready fails the revision after the per-component timeout; a
/// first install is kept for diagnosis (rule 5's last sentence), not removed.
#[tokio::test]
async fn rule4_timeout_fails_the_revision_and_first_install_is_kept() {
    let (_tmp, dir) = package_in_tmp(
        &p_manifest(
            "1.0.0",
            SAFE,
            "- {name: a, path: a, values: {sim: unready}}\n- {name: b, path: b, install: {dependsOn: [a]}}\n",
        ),
        &["a", "b"],
    );
    let mut e = env("rule4-timeout", SHORT).await;
    let reason = e
        .apply(&dir, &UserValues::new(), Duration::from_secs(8))
        .await;
    assert_eq!(reason, Reason::InstallFailed);
    let p = e.progress();
    // The order of what happened, not how long it took: `a` was applied and waited for, and
    // the wait ended with the timeout while its Deployment was still unready (the failure
    // names it and its state then).
    let failed = p
        .iter()
        .position(|l| l.starts_with("a: failed: timed out after 8s"))
        .unwrap_or_else(|| panic!("{p:#?}"));
    let waiting = pos(&p, "a: waiting until ready");
    assert!(
        pos(&p, "a: applying") < waiting && waiting < failed,
        "{p:#?}"
    );
    let unready = format!(
        "Deployment \"pkg-a\" in namespace \"{}\": InProgress",
        e.ns.name()
    );
    assert!(p[failed].contains(&unready), "{p:#?}");
    assert!(
        !p.iter().any(|l| l == "b: applying"),
        "b must not start: {p:#?}"
    );
    let deps: Api<Deployment> = e.ns.api();
    assert!(
        deps.get_opt("pkg-a").await.unwrap().is_some(),
        "kept for diagnosis"
    );
    assert!(deps.get_opt("pkg-b").await.unwrap().is_none());
    let revs = e.revisions().await;
    assert_eq!(revs.len(), 1);
    assert_eq!(revs[0].0, RevisionStatus::Failed);
}

/// Rule 5: a failed upgrade to a `rollback.safe: false` version stops (UpgradeFailed, no
/// rollback); to a `safe: true` version it rolls the changed components back, recorded as a
/// new revision.
#[tokio::test]
async fn rule5_failure_rolls_back_only_when_the_new_version_is_safe() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest =
        |v: &str, safe: bool| p_manifest(v, &format!("rollback: {{safe: {safe}}}"), A_THEN_B);
    let v1 = tmp.path().join("v1");
    package(&v1, &manifest("1.0.0", true), &["a", "b"], &[]);
    let v2 = tmp.path().join("v2");
    package(&v2, &manifest("2.0.0", false), &["a", "b"], &[]);
    let v3 = tmp.path().join("v3");
    package(&v3, &manifest("3.0.0", true), &["a", "b"], &[]);
    let v4 = tmp.path().join("v4");
    package(&v4, &manifest("4.0.0", true), &["a", "b"], &[]);
    let mut e = env("rule5-failure", SHORT).await;
    let ok = UserValues::new();
    assert_eq!(e.apply(&v1, &ok, SHORT).await, Reason::Succeeded);

    // v2 (unsafe): a changes fine, b never becomes ready.
    let mut bad = UserValues::new();
    bad.add_set("a.image=registry.invalid/x:2").unwrap();
    bad.add_set("b.sim=unready").unwrap();
    assert_eq!(
        e.apply(&v2, &bad, Duration::from_secs(10)).await,
        Reason::UpgradeFailed
    );
    assert_eq!(
        e.release_history("pkg-a").await,
        [(1, Status::Superseded), (2, Status::Deployed)]
    );
    assert_eq!(
        e.release_history("pkg-b").await.last().unwrap().0,
        2,
        "b upgraded, not rolled back"
    );
    let revs = e.revisions().await;
    assert_eq!(
        revs.iter().map(|r| r.0).collect::<Vec<_>>(),
        [RevisionStatus::Deployed, RevisionStatus::Failed]
    );

    // Fix forward with v3 (safe) that fails too: 2.0.0 ran since 1.0.0 and declares
    // rollback.safe: false, so 1.0.0 may not run again: stopped, nothing rolled back.
    assert_eq!(
        e.apply(&v3, &bad, Duration::from_secs(10)).await,
        Reason::UpgradeFailed
    );
    let revs = e.revisions().await;
    assert_eq!(
        revs.iter().map(|r| r.0).collect::<Vec<_>>(),
        [
            RevisionStatus::Deployed,
            RevisionStatus::Failed,
            RevisionStatus::Failed
        ]
    );
    let h = e.kc.store.history("pkg", e.ns.name()).await.unwrap();
    assert!(
        h.get(3).unwrap().description.contains(
            "the rollback policy forbids version 1.0.0 to run again: 2.0.0 (revision 2) declares rollback.safe: false"
        ),
        "{}",
        h.get(3).unwrap().description
    );

    // v3 deployed; v4 (safe) fails: rolled back to v3's releases.
    assert_eq!(e.apply(&v3, &ok, SHORT).await, Reason::Succeeded);
    assert_eq!(
        e.apply(&v4, &bad, Duration::from_secs(10)).await,
        Reason::RolledBack
    );
    let p = e.progress();
    assert!(p.contains(&"b: rolled back".to_string()), "{p:#?}");
    let revs = e.revisions().await;
    let statuses: Vec<RevisionStatus> = revs.iter().map(|r| r.0).collect();
    assert_eq!(statuses.len(), 6, "{revs:#?}");
    assert_eq!(statuses[4], RevisionStatus::Failed);
    assert_eq!(statuses[5], RevisionStatus::Deployed);
    assert_eq!(
        revs[5].1, "3.0.0",
        "the rollback revision runs the version rolled back to"
    );
    let deps: Api<Deployment> = e.ns.api();
    let a = deps.get("pkg-a").await.unwrap();
    let a = serde_json::to_value(&a).unwrap();
    assert_eq!(
        a.pointer("/spec/template/spec/containers/0/image"),
        Some(&serde_json::json!("registry.invalid/x:1"))
    );
}

/// Rule 6: the PreUpgrade hook never runs on first install or a values-only change; on a
/// version change it runs first with fromVersion/toVersion, is waited for and uninstalled
/// after success; a failing hook stops the upgrade before anything else changes.
#[tokio::test]
async fn rule6_pre_upgrade_hook_runs_only_on_version_change() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = |v: &str| p_manifest(v, "", APP_AND_MIGRATE);
    let dirs: BTreeMap<&str, std::path::PathBuf> = ["1.0.0", "2.0.0", "3.0.0"]
        .into_iter()
        .map(|v| {
            let d = tmp.path().join(v);
            package(&d, &manifest(v), &["app"], &["migrate"]);
            (v, d)
        })
        .collect();
    let mut e = env("rule6-hooks", SHORT).await;
    let cms: Api<ConfigMap> = e.ns.api();
    assert_eq!(
        e.apply(&dirs["1.0.0"], &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    assert!(
        !e.progress().iter().any(|l| l.contains("hook")),
        "no hook on first install"
    );
    assert!(e.release_history("pkg-migrate").await.is_empty());

    // Values-only change: no hook.
    let mut v = UserValues::new();
    v.add_set("app.image=registry.invalid/x:1b").unwrap();
    assert_eq!(e.apply(&dirs["1.0.0"], &v, SHORT).await, Reason::Succeeded);
    assert!(!e.progress().iter().any(|l| l.contains("hook")));

    // Version change: the hook runs first, sees the versions, and is uninstalled afterwards.
    let mut v = UserValues::new();
    v.add_set("app.image=registry.invalid/x:2").unwrap();
    assert_eq!(e.apply(&dirs["2.0.0"], &v, SHORT).await, Reason::Succeeded);
    let p = e.progress();
    assert!(
        pos(&p, "migrate: hook running") < pos(&p, "app: applying"),
        "{p:#?}"
    );
    let cm = cms.get("migrated-2-0-0").await.unwrap().data.unwrap();
    assert_eq!((cm["from"].as_str(), cm["to"].as_str()), ("1.0.0", "2.0.0"));
    let secrets: Api<Secret> = e.ns.api();
    let hook_records = secrets
        .list(&ListParams::default().labels("owner=helm,name=pkg-migrate"))
        .await
        .unwrap();
    assert!(
        hook_records.items.is_empty(),
        "hook release uninstalled after the upgrade"
    );
    let revs = e.revisions().await;
    assert!(
        revs.iter().all(|r| r.2.iter().all(|(c, _)| c != "migrate")),
        "hooks are never recorded"
    );

    // A failing hook: nothing else changes.
    let mut failing = UserValues::new();
    failing.add_set("app.image=registry.invalid/x:3").unwrap();
    failing.add_set("migrate.sim=fail").unwrap();
    let app_before = e.release_history("pkg-app").await;
    let reason = e.apply(&dirs["3.0.0"], &failing, SHORT).await;
    assert_eq!(
        reason,
        Reason::UpgradeFailed,
        "{:#?}",
        e.events.lock().unwrap()
    );
    assert_eq!(
        e.release_history("pkg-app").await,
        app_before,
        "app untouched"
    );
    assert!(!e.progress().iter().any(|l| l == "app: applying"));
}

/// Rule 7: `plan` against the cluster changes nothing there.
#[tokio::test]
async fn rule7_plan_changes_nothing_in_the_cluster() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    let m = |v: &str| {
        p_manifest(
            v,
            "",
            "- {name: a, path: a}\n- {name: migrate, path: migrate, install: {phase: PreUpgrade}}\n",
        )
    };
    package(&v1, &m("1.0.0"), &["a"], &["migrate"]);
    let v2 = tmp.path().join("v2");
    package(&v2, &m("2.0.0"), &["a"], &["migrate"]);
    let mut e = env("rule7-plan", SHORT).await;
    assert_eq!(
        e.apply(&v1, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    async fn snapshot(e: &Env) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let s: Api<Secret> = e.ns.api();
        for x in s.list(&ListParams::default()).await.unwrap().items {
            out.push((
                format!("Secret {}", x.metadata.name.unwrap()),
                x.metadata.resource_version.unwrap(),
            ));
        }
        let d: Api<Deployment> = e.ns.api();
        for x in d.list(&ListParams::default()).await.unwrap().items {
            out.push((
                format!("Deployment {}", x.metadata.name.unwrap()),
                x.metadata.resource_version.unwrap(),
            ));
        }
        let c: Api<ConfigMap> = e.ns.api();
        for x in c.list(&ListParams::default()).await.unwrap().items {
            out.push((
                format!("ConfigMap {}", x.metadata.name.unwrap()),
                x.metadata.resource_version.unwrap(),
            ));
        }
        out.sort();
        out
    }
    let before = snapshot(&e).await;
    let package = kubepkg_model::source::load_dir(&v2).unwrap();
    let p = ops::prepare(&e.kc, &package, e.instance(), &UserValues::new())
        .await
        .unwrap();
    assert!(
        p.plan.hooks.iter().any(|h| h.runs),
        "the plan shows the hook that would run"
    );
    // What `kubepkg plan` titles "Plan: upgrade pkg of package p 1.0.0 -> 2.0.0".
    assert_eq!(
        (
            p.plan.action,
            p.plan.downgrade.is_none(),
            p.plan.name.as_str(),
            p.plan.package.as_str(),
            p.plan.from_version.as_deref(),
            p.plan.to_version.as_str()
        ),
        (
            kubepkg_package::plan::Action::Upgrade,
            true,
            "pkg",
            "p",
            Some("1.0.0"),
            "2.0.0"
        )
    );
    assert_eq!(snapshot(&e).await, before);
}

/// Rule 8: every apply that changes something records a revision; a rollback is a new one;
/// an apply with nothing to change records none.
#[tokio::test]
async fn rule8_revisions_and_rollback_as_new_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let m = |v: &str| p_manifest(v, SAFE, "- {name: a, path: a}\n");
    let v1 = tmp.path().join("v1");
    package(&v1, &m("1.0.0"), &["a"], &[]);
    let v2 = tmp.path().join("v2");
    package(&v2, &m("2.0.0"), &["a"], &[]);
    let mut e = env("rule8-revisions", SHORT).await;
    assert_eq!(
        e.apply(&v1, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    assert_eq!(
        e.apply(&v1, &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    assert_eq!(
        e.revisions().await.len(),
        1,
        "nothing changed, nothing recorded"
    );
    let mut v = UserValues::new();
    v.add_set("a.image=registry.invalid/x:2").unwrap();
    assert_eq!(e.apply(&v2, &v, SHORT).await, Reason::Succeeded);
    let ns = e.ns.name().to_string();
    let o = rollback(&mut e.kc, &ns, "pkg", SHORT).await.unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{o:?}");
    let revs = e.revisions().await;
    assert_eq!(
        revs.iter().map(|r| (r.0, r.1.as_str())).collect::<Vec<_>>(),
        [
            (RevisionStatus::Superseded, "1.0.0"),
            (RevisionStatus::Superseded, "2.0.0"),
            (RevisionStatus::Deployed, "1.0.0")
        ]
    );
    assert_eq!(
        revs[2].2,
        [("a".to_string(), 3)],
        "release rolled back as its revision 3"
    );
    assert_eq!(
        e.release_history("pkg-a").await,
        [
            (1, Status::Superseded),
            (2, Status::Superseded),
            (3, Status::Deployed)
        ]
    );
    let (rev, states) = ops::status(&e.kc, e.instance()).await.unwrap();
    assert!(states.iter().all(|s| s.ready), "{states:?}");
    // What `kubepkg package status` shows of it (the CLI pins that text's layout:
    // crates/kubepkg/src/present/report.rs): the revision, its kstatus and conditions, and
    // each component's live state.
    assert_eq!(
        (
            rev.name.as_str(),
            rev.namespace == e.instance().namespace,
            rev.package.as_str(),
            rev.version.as_str(),
            rev.source.as_ref(),
            rev.revision,
            rev.status,
            rev.reason,
            rev.description.as_str()
        ),
        (
            "pkg",
            true,
            "p",
            "1.0.0",
            None,
            3,
            RevisionStatus::Deployed,
            Some(Reason::Succeeded),
            "Rollback to 1"
        )
    );
    let conditions = kubepkg_package::conditions::live(&rev, None);
    assert_eq!(
        kubepkg_package::conditions::summary(&conditions).as_str(),
        "Current"
    );
    let shown: Vec<_> = conditions
        .iter()
        .map(|c| {
            (
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str(),
                c.message.as_str(),
            )
        })
        .collect();
    assert_eq!(shown, [("Ready", "True", "Succeeded", "Rollback to 1")]);
    let states: Vec<_> = states
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.release.as_str(),
                s.namespace == e.instance().namespace,
                s.revision,
                s.ready,
                s.waiting_for.as_deref(),
            )
        })
        .collect();
    assert_eq!(states, [("a", "pkg-a", true, 3, true, None)]);
}

/// Rollback floors (`rollback.to`): a failed upgrade rolls back only to a version every floor
/// since admits (the revision says which floor allowed it), stops with UpgradeFailed where a
/// floor excludes the deployed version, and a manual rollback below two floors is refused
/// naming both versions, unless forced.
#[tokio::test]
async fn rule9_rollback_floors_decide_automatic_and_manual_rollbacks() {
    let tmp = tempfile::tempdir().unwrap();
    let m = |v: &str, rollback: &str| p_manifest(v, &format!("rollback: {rollback}"), A_THEN_B);
    let versions = [
        ("1.0.0", "{safe: true}"),
        ("2.0.0", "{to: \">=1.0.0\"}"),
        ("3.0.0", "{to: \">=2.0.0\"}"),
        ("3.1.0", "{safe: true, to: \">=3.0.0\"}"),
    ];
    for (v, r) in versions {
        package(&tmp.path().join(v), &m(v, r), &["a", "b"], &[]);
    }
    let dir = |v: &str| tmp.path().join(v);
    let mut e = env("rule9-floors", SHORT).await;
    let ok = UserValues::new();
    assert_eq!(e.apply(&dir("1.0.0"), &ok, SHORT).await, Reason::Succeeded);
    assert_eq!(e.apply(&dir("2.0.0"), &ok, SHORT).await, Reason::Succeeded);
    let mut bad = UserValues::new();
    bad.add_set("a.image=registry.invalid/x:3").unwrap();
    bad.add_set("b.sim=unready").unwrap();
    let quick = Duration::from_secs(8);

    // 3.0.0 fails; its floor >=2.0.0 admits the deployed 2.0.0: rolled back.
    assert_eq!(
        e.apply(&dir("3.0.0"), &bad, quick).await,
        Reason::RolledBack
    );
    let history = |e: &Env| {
        let (store, ns) = (e.kc.store.clone(), e.ns.name().to_string());
        async move { store.history("pkg", &ns).await.expect("history") }
    };
    let h = history(&e).await;
    let failed = h.get(3).unwrap();
    assert!(
        failed
            .description
            .ends_with("; rolled back to revision 2 (allowed by 3.0.0's rollback.to >=2.0.0)"),
        "{}",
        failed.description
    );
    assert_eq!(failed.rollback_to.as_deref(), Some(">=2.0.0"));
    let back = h.deployed().unwrap();
    assert_eq!((back.revision, back.version.as_str()), (4, "2.0.0"));

    // 3.1.0 fails; its floor >=3.0.0 excludes 2.0.0: no rollback (b stays upgraded).
    assert_eq!(
        e.apply(&dir("3.1.0"), &bad, quick).await,
        Reason::UpgradeFailed
    );
    let h = history(&e).await;
    let failed = h.get(5).unwrap();
    assert!(
        failed.description.contains(
            "the rollback policy forbids version 2.0.0 to run again: 3.1.0 (revision 5) declares rollback.to >=3.0.0, so nothing is rolled back"
        ),
        "{}",
        failed.description
    );
    assert_eq!(h.deployed().unwrap().revision, 4);
    let deps: Api<Deployment> = e.ns.api();
    let image = |d: Deployment| {
        serde_json::to_value(d).unwrap()["spec"]["template"]["spec"]["containers"][0]["image"]
            .clone()
    };
    assert_eq!(
        image(deps.get("pkg-a").await.unwrap()),
        serde_json::json!("registry.invalid/x:3"),
        "not rolled back"
    );

    // A manual rollback to 1.0.0 is below the floors of 3.0.0 and 3.1.0, which both ran since.
    let err = e.rollback(1, false).await.unwrap_err().to_string();
    assert!(
        err.contains(
            "revision 1 of package pkg runs version 1.0.0, which may not run again: 3.0.0 (revision 3) declares rollback.to >=2.0.0; 3.1.0 (revision 5) declares rollback.to >=3.0.0; fix forward with a new version, or use --force"
        ),
        "{err}"
    );
    assert_eq!(history(&e).await.revisions.len(), 5, "nothing recorded");
    let forced = e.rollback(1, true).await.unwrap();
    assert_eq!(forced.reason, Reason::Succeeded, "{forced:?}");
    let h = history(&e).await;
    assert_eq!(h.deployed().unwrap().version, "1.0.0");
}

/// Verdicts from a PreUpgrade check hook, read from the last line of its Job's log: `refused`
/// (the Job exits 2) stops the upgrade before anything else changed with UpgradeRefused and
/// says how to approve; `check_failed` stops it as a failed hook; `proceed` lets it go on and
/// is recorded; a verdict that cannot be read stops it, naming the line.
#[tokio::test]
async fn rule10_check_hook_verdicts_refuse_fail_or_let_the_upgrade_proceed() {
    let tmp = tempfile::tempdir().unwrap();
    verdict_versions(tmp.path(), &["1.0.0", "2.0.0"], "");
    let v2 = tmp.path().join("2.0.0");
    let mut e = env("rule10-verdicts", SHORT).await;
    assert_eq!(
        e.apply(&tmp.path().join("1.0.0"), &UserValues::new(), SHORT)
            .await,
        Reason::Succeeded
    );
    let check = |sim: &str, code: u8, log: &str| {
        let mut u = UserValues::new();
        u.add_set("app.image=registry.invalid/x:2").unwrap();
        u.add_set_string(&format!("migrate.sim={sim}")).unwrap();
        u.add_set_string(&format!("migrate.exitCode={code}"))
            .unwrap();
        u.add_set_json(&format!("migrate.log={}", serde_json::Value::from(log)))
            .unwrap();
        u
    };
    let latest = |e: &Env| {
        let (store, ns) = (e.kc.store.clone(), e.ns.name().to_string());
        async move {
            store
                .history("pkg", &ns)
                .await
                .unwrap()
                .latest()
                .cloned()
                .unwrap()
        }
    };

    // refused: nothing else changed, reason UpgradeRefused, the message says how to approve.
    let refused = r#"{"verdict":"refused","message":"2 sessions cannot resume","affected":["s-17","s-42"],"approve":"--set-json 'migrate.approved=[\"s-17\",\"s-42\"]'"}"#;
    assert_eq!(
        e.apply(
            &v2,
            &check("fail", 2, &format!("checked 9 sessions\n{refused}")),
            SHORT
        )
        .await,
        Reason::UpgradeRefused
    );
    let r = latest(&e).await;
    assert_eq!((r.revision, r.status), (2, RevisionStatus::Failed));
    assert_eq!(r.reason, Some(Reason::UpgradeRefused));
    assert_eq!(
        r.description,
        "PreUpgrade hook migrate refused the upgrade: 2 sessions cannot resume; affected: s-17, s-42; nothing else was changed; to approve, apply again with --set-json 'migrate.approved=[\"s-17\",\"s-42\"]'"
    );
    assert_eq!(r.hook_verdicts.len(), 1);
    assert_eq!(
        r.hook_verdicts[0].verdict,
        kubepkg_package::verdict::VerdictKind::Refused
    );
    assert!(r.hooks_completed.is_empty(), "a refusal is no completion");
    assert_eq!(
        e.release_history("pkg-app").await,
        [(1, Status::Deployed)],
        "app untouched"
    );
    let p = e.progress();
    assert!(
        p.contains(
            &"migrate: verdict refused: 2 sessions cannot resume (affected: s-17, s-42)"
                .to_string()
        ),
        "{p:#?}"
    );

    // check_failed: a failed hook (UpgradeFailed), with the check's message.
    let failed = r#"{"verdict":"check_failed","message":"database unreachable"}"#;
    assert_eq!(
        e.apply(&v2, &check("fail", 1, failed), SHORT).await,
        Reason::UpgradeFailed
    );
    let r = latest(&e).await;
    assert!(
        r.description.starts_with(
            "PreUpgrade hook migrate could not check the upgrade (verdict check_failed): database unreachable; nothing else was changed"
        ),
        "{}",
        r.description
    );

    // A verdict that cannot be read stops the upgrade too, naming what was read.
    assert_eq!(
        e.apply(&v2, &check("ok", 0, r#"{"verdict":"perhaps"}"#), SHORT)
            .await,
        Reason::UpgradeFailed
    );
    let r = latest(&e).await;
    assert!(
        r.description
            .contains("which is not a verdict kubepkg can read: unknown variant `perhaps`"),
        "{}",
        r.description
    );
    assert_eq!(e.release_history("pkg-app").await, [(1, Status::Deployed)]);

    // proceed: the upgrade goes on; the verdict is recorded in the deployed revision.
    let proceed = r#"{"verdict":"proceed","message":"no session affected"}"#;
    assert_eq!(
        e.apply(&v2, &check("ok", 0, proceed), SHORT).await,
        Reason::Succeeded
    );
    let r = latest(&e).await;
    assert_eq!(r.status, RevisionStatus::Deployed);
    assert_eq!(r.hook_verdicts[0].message, "no session affected");
    assert_eq!(
        e.release_history("pkg-app").await.last().unwrap(),
        &(2, Status::Deployed)
    );
}

/// Diagnosis kept in failed revisions: a failed upgrade that was rolled back automatically
/// still records the pod that never became ready (its phase, Ready condition and container
/// state); a failed hook records the tail of its Job's pod log.
#[tokio::test]
async fn failed_revisions_keep_the_pods_and_the_hook_log_for_diagnosis() {
    let tmp = tempfile::tempdir().unwrap();
    verdict_versions(tmp.path(), &["1.0.0", "2.0.0", "3.0.0"], SAFE);
    let mut e = env("diagnosis", SHORT).await;
    assert_eq!(
        e.apply(&tmp.path().join("1.0.0"), &UserValues::new(), SHORT)
            .await,
        Reason::Succeeded
    );
    let history = |e: &Env| {
        let (store, ns) = (e.kc.store.clone(), e.ns.name().to_string());
        async move { store.history("pkg", &ns).await.unwrap() }
    };

    // The app never becomes ready: rolled back, and the failed revision names its pod.
    let mut unready = UserValues::new();
    unready.add_set("app.sim=unready").unwrap();
    assert_eq!(
        e.apply(&tmp.path().join("2.0.0"), &unready, Duration::from_secs(8))
            .await,
        Reason::RolledBack
    );
    let h = history(&e).await;
    let failed = h.get(2).unwrap();
    assert_eq!(failed.status, RevisionStatus::Failed);
    let pod_line = failed
        .description
        .lines()
        .find(|l| l.trim_start().starts_with("pod pkg-app-"))
        .unwrap_or_else(|| panic!("no pod line in {}", failed.description));
    assert!(pod_line.contains(": Running, Ready=False"), "{pod_line}");
    assert!(
        pod_line.contains("container c: running, not ready"),
        "{pod_line}"
    );

    // A failing hook: its log's last lines are kept.
    let mut bad = UserValues::new();
    bad.add_set_string("migrate.sim=fail").unwrap();
    bad.add_set_string("migrate.log=applying 0243\nerror: column worker_image already exists")
        .unwrap();
    assert_eq!(
        e.apply(&tmp.path().join("3.0.0"), &bad, SHORT).await,
        Reason::UpgradeFailed
    );
    let h = history(&e).await;
    let failed = h.latest().unwrap();
    assert!(
        failed
            .description
            .contains(": error: column worker_image already exists"),
        "{}",
        failed.description
    );
    assert!(
        failed
            .description
            .lines()
            .any(|l| l.trim_start().starts_with("log of pod migrate-3-0-0-")),
        "{}",
        failed.description
    );
}

/// PreRollback hooks: kept with each revision, run before a manual rollback away from it (from
/// the records alone: no package at hand) and before an automatic rollback, with
/// `kubepkg.fromVersion` (the version left) and `toVersion` (the target); a refusal stops a
/// manual rollback before anything changed (unless `--force`) and an automatic one too.
#[tokio::test]
async fn rule11_pre_rollback_hooks_check_every_rollback() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = |v: &str| {
        p_manifest(
            v,
            SAFE,
            "- {name: app, path: app}\n- {name: check, path: check, install: {phase: PreRollback}}\n",
        )
    };
    for v in ["1.0.0", "2.0.0", "3.0.0", "4.0.0"] {
        package_with(
            &tmp.path().join(v),
            &manifest(v),
            &["app"],
            &["check"],
            verdict_hook_chart,
        );
    }
    let dir = |v: &str| tmp.path().join(v);
    let mut e = env("rule11-prerollback", SHORT).await;
    let refusing = |extra: &[&str]| {
        let mut u = UserValues::new();
        u.add_set_string("check.sim=fail").unwrap();
        u.add_set_string("check.exitCode=2").unwrap();
        u.add_set_json(
            r#"check.log="{\"verdict\":\"refused\",\"message\":\"sessions would be lost\"}""#,
        )
        .unwrap();
        for x in extra {
            u.add_set(x).unwrap();
        }
        u
    };
    assert_eq!(
        e.apply(&dir("1.0.0"), &UserValues::new(), SHORT).await,
        Reason::Succeeded
    );
    // 2.0.0's hook will refuse any rollback away from it (its values are kept in revision 2).
    assert_eq!(
        e.apply(&dir("2.0.0"), &refusing(&[]), SHORT).await,
        Reason::Succeeded
    );
    let err = e.rollback(1, false).await.unwrap_err().to_string();
    assert!(
        err.starts_with(
            "PreRollback hook check of version 2.0.0 refused the rollback: sessions would be lost; the rollback of package pkg to revision 1 did not start, nothing was rolled back"
        ),
        "{err}"
    );
    let history = |e: &Env| {
        let (store, ns) = (e.kc.store.clone(), e.ns.name().to_string());
        async move { store.history("pkg", &ns).await.unwrap() }
    };
    assert_eq!(history(&e).await.revisions.len(), 2, "nothing recorded");
    // The hook saw the versions of the rollback.
    let cms: Api<ConfigMap> = e.ns.api();
    let seen = cms.get("migrated-1-0-0").await.unwrap().data.unwrap();
    assert_eq!(
        (seen["from"].as_str(), seen["to"].as_str()),
        ("2.0.0", "1.0.0")
    );
    // --force rolls back anyway.
    let o = e.rollback(1, true).await.unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{o:?}");
    assert!(
        o.warnings
            .iter()
            .any(|w| w.contains("rolling back anyway (--force)")),
        "{o:?}"
    );
    assert_eq!(history(&e).await.deployed().unwrap().version, "1.0.0");

    // Automatic: 3.0.0 fails, its hook (proceeding by default) runs, the rollback happens.
    let mut unready = UserValues::new();
    unready.add_set("app.sim=unready").unwrap();
    assert_eq!(
        e.apply(&dir("3.0.0"), &unready, Duration::from_secs(8))
            .await,
        Reason::RolledBack
    );
    let seen = cms.get("migrated-1-0-0").await.unwrap().data.unwrap();
    assert_eq!(seen["from"].as_str(), "3.0.0");
    // 4.0.0 fails and its hook refuses: no automatic rollback.
    assert_eq!(
        e.apply(
            &dir("4.0.0"),
            &refusing(&["app.sim=unready"]),
            Duration::from_secs(8)
        )
        .await,
        Reason::UpgradeFailed
    );
    let latest = history(&e).await.latest().cloned().unwrap();
    assert!(
        latest.description.contains(
            "the automatic rollback to revision 5 was stopped: PreRollback hook check refused the rollback: sessions would be lost; nothing was rolled back"
        ),
        "{}",
        latest.description
    );
}

/// `kubepkg values`, `list` and `uninstall`: effective values with their sources, the
/// package listed, then every component uninstalled in reverse order and the records removed.
#[tokio::test]
async fn values_list_and_uninstall_in_reverse_order() {
    let (_tmp, dir) = package_in_tmp(
        &p_manifest(
            "1.0.0",
            "",
            "- {name: a, path: a, values: {image: registry.invalid/pkgdefault:1}}\n- {name: b, path: b, install: {dependsOn: [a]}}\n",
        ),
        &["a", "b"],
    );
    let mut e = env("values-uninstall", SHORT).await;
    let mut user = UserValues::new();
    user.add_set("b.image=registry.invalid/fromset:1").unwrap();
    assert_eq!(e.apply(&dir, &user, SHORT).await, Reason::Succeeded);

    let (_, comps) = ops::values(&e.kc, e.instance(), None).await.unwrap();
    let explained: BTreeMap<String, String> = comps
        .iter()
        .flat_map(|(c, eff)| {
            eff.explain
                .iter()
                .map(move |x| (format!("{c}.{}", x.path), format!("{:?}", x.source)))
        })
        .collect();
    assert!(
        explained["a.image"].contains("PackageDefault"),
        "{explained:#?}"
    );
    assert!(
        explained["a.sim"].contains("ChartDefault"),
        "{explained:#?}"
    );
    // The recorded revision names the real source (not "values given in revision 1").
    assert_eq!(
        explained["b.image"], "Set(\"b.image=registry.invalid/fromset:1\")",
        "{explained:#?}"
    );

    let listed = e.kc.store.list_latest(Some(e.ns.name())).await.unwrap();
    assert_eq!(
        listed
            .iter()
            .map(|r| (r.name.as_str(), r.revision))
            .collect::<Vec<_>>(),
        [("pkg", 1)]
    );

    e.events.lock().unwrap().clear();
    let ns = e.ns.name().to_string();
    let done = ops::uninstall(
        &mut e.kc,
        Instance {
            name: "pkg",
            namespace: &ns,
        },
        false,
        SHORT,
    )
    .await
    .unwrap();
    assert_eq!(done, ["b", "a"]);
    assert!(e.release_history("pkg-a").await.is_empty());
    assert!(e.release_history("pkg-b").await.is_empty());
    assert!(e.revisions().await.is_empty());
    let deps: Api<Deployment> = e.ns.api();
    assert!(deps.get_opt("pkg-a").await.unwrap().is_none());
    assert!(e.kc.store.list_latest(Some(&ns)).await.unwrap().is_empty());
}
