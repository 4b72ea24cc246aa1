//! Argo CD's real application controller and repo server (`kubepkg_testkit::argocd::ArgoCd`)
//! against the local control plane, with charts pushed by `kubepkg render --push-charts` to the
//! real test OCI registry: the compiled Applications applied as they are, each synced by setting
//! the operation of `kubepkg_gitops::argocd::sync` in kubepkg's order, and read back with its
//! verdict; the scenarios every GitOps backend runs (`crate::backends::scenarios`, as
//! `argocd::NAME`); and what only Argo CD has: a chart failing in its repo server, Applications
//! in Argo CD's own namespace, `plan --backend argocd` offline.
//!
//! With `KUBEPKG_ARGOCD_CAPTURE=DIR` the tests write the Application objects they read (as the
//! real controller left them) into DIR: `crates/kubepkg-gitops/testdata/argocd/` holds such a
//! capture, which the status reader's unit tests read.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_gitops::argocd::sync::{self, Phase, Verdict};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::registry::Registry;
use serde_json::Value;

use crate::backends::{
    Backend, Kind, apply_command, component, finished, greeting_chart, kubectl_apply, render,
};
use crate::support::{config_map_data, ok};

crate::backend_scenarios!(Kind::ArgoCd);

/// The Applications of the test namespace.
fn applications(ns: &TestNamespace) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Application");
    Api::namespaced_with(ns.client().clone(), ns.name(), &ApiResource::from_gvk(&gvk))
}

/// Writes `app` as `<name>.json` into `$KUBEPKG_ARGOCD_CAPTURE`, when set.
fn capture(name: &str, app: &Value) {
    if let Some(dir) = std::env::var_os("KUBEPKG_ARGOCD_CAPTURE") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut app = app.clone();
        // Nothing of the run's identity: the fixture is read for its status.
        if let Some(m) = app["metadata"].as_object_mut() {
            m.remove("managedFields");
        }
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(&app).unwrap() + "\n",
        )
        .unwrap();
    }
}

/// Sets the sync operation to `revision` on Application `name` (refused while one is in
/// progress, as Argo CD's API server refuses it).
/// Whether the Deployment `name` exists in `ns`.
async fn deployed(ns: &TestNamespace, name: &str) -> bool {
    ns.api::<Deployment>()
        .get_opt(name)
        .await
        .unwrap()
        .is_some()
}

async fn start_sync(apps: &Api<DynamicObject>, name: &str, revision: &str) {
    let app = serde_json::to_value(apps.get(name).await.unwrap()).unwrap();
    assert!(
        !sync::operation_in_progress(&app),
        "{name}: an operation is set already"
    );
    apps.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(sync::sync_patch(revision, false)),
    )
    .await
    .unwrap_or_else(|e| panic!("setting the sync operation on {name}: {e}"));
}

/// Reads Application `name` until its verdict for `revision` is final (`Ready` or `Failed`),
/// capturing the first `Syncing` with an operation state and the first `Unready` seen under
/// `<capture>-running` and `<capture>-unready`, and the final one under `<capture>`.
async fn settle(
    apps: &Api<DynamicObject>,
    name: &str,
    revision: &str,
    capture_as: &str,
    argocd: &Backend,
) -> (Verdict, Value) {
    let deadline = Instant::now() + Duration::from_secs(180);
    let (mut running, mut unready) = (false, false);
    loop {
        let app = serde_json::to_value(apps.get(name).await.unwrap()).unwrap();
        let verdict = sync::verdict(&app, revision);
        match &verdict {
            Verdict::Ready | Verdict::Failed { .. } => {
                capture(capture_as, &app);
                return (verdict, app);
            }
            Verdict::Syncing { .. }
                if !running && app["status"]["operationState"]["phase"] == "Running" =>
            {
                running = true;
                capture(&format!("{capture_as}-running"), &app);
            }
            Verdict::Unready { .. } if !unready => {
                unready = true;
                capture(&format!("{capture_as}-unready"), &app);
            }
            _ => {}
        }
        assert!(
            Instant::now() < deadline,
            "{name}: not settled in time: {}\n{app:#}\n{}",
            verdict.message(),
            argocd.log_tails()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The `targetRevision` of Application `name`: what a sync of it names (the pushed digest).
async fn target_revision(apps: &Api<DynamicObject>, name: &str) -> String {
    let app = serde_json::to_value(apps.get(name).await.unwrap()).unwrap();
    app["spec"]["source"]["targetRevision"]
        .as_str()
        .unwrap_or_else(|| panic!("{app:#}"))
        .to_string()
}

/// `kubepkg render --backend argocd` of `pkg` into `ns` (charts pushed to `reg`), applied.
async fn render_and_apply(
    ns: &TestNamespace,
    reg: &Registry,
    pkg: &std::path::Path,
    home: &std::path::Path,
    extra: &[&str],
) -> Vec<Value> {
    let out = render(
        Kind::ArgoCd,
        ns,
        reg,
        pkg,
        home,
        &[&["-o", "json"], extra].concat(),
    );
    let rendered: Value = serde_json::from_str(&out).expect("a JSON List");
    let items = rendered["items"].as_array().expect("items").clone();
    // Each item as a document of its own (JSON is YAML), as `kubectl apply -f` takes a List.
    let docs: Vec<String> = items
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    ns.apply_yaml(&docs.join("\n---\n"))
        .await
        .expect("the rendered objects");
    items
}

/// Package `shop` 1.0.0 in `dir/pkg` of `components`, each a simulated Deployment installed
/// after the next one in the list (`web` after `api` after `db`); the last is Ready only after
/// `ready_after`, when given.
fn shop_package(dir: &Path, components: &[&str], ready_after: Option<&str>) -> PathBuf {
    let pkg = dir.join("pkg");
    let mut manifest = String::from("package:\n  name: shop\n  version: 1.0.0\ncomponents:\n");
    for (c, next) in components.iter().zip(components.iter().skip(1)) {
        manifest.push_str(&format!(
            "- {{name: {c}, path: {c}, install: {{dependsOn: [{next}]}}}}\n"
        ));
    }
    let last = components.last().expect("a component");
    manifest.push_str(&format!("- {{name: {last}, path: {last}"));
    if let Some(after) = ready_after {
        manifest.push_str(&format!(", values: {{readyAfter: {after}}}"));
    }
    manifest.push_str("}\n");
    kubepkg_testkit::charts::package(&pkg, &manifest, components, &[]);
    pkg
}

/// A three-component package (db ← api ← web) rendered for Argo CD, its charts pushed by
/// kubepkg to the real test registry, the Secret and Applications applied as they are: nothing
/// is deployed until kubepkg sets each Application's sync operation, in kubepkg's order (the
/// sync waves), each after the one before is Synced and Healthy; every Application ends Synced
/// at its chart's version and Healthy, the controller's copy of the operation is the one set
/// (every field survived Argo CD's Go types), and the charts' objects exist in the destination
/// namespace with the values of `--set`.
#[tokio::test]
async fn render_for_argocd_then_sync_in_order_ends_synced_and_healthy() {
    let (ns, argocd) = Backend::for_test(Kind::ArgoCd, "render").await;
    let reg = argocd.reg();
    let tmp = tempfile::tempdir().unwrap();
    let pkg = shop_package(tmp.path(), &["web", "api", "db"], Some("3s"));
    std::fs::write(
        pkg.join("api/templates/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  size: {{ .Values.size | default 1 | quote }}\n",
    )
    .unwrap();
    let items = render_and_apply(&ns, reg, &pkg, tmp.path(), &["--set", "api.size=3"]).await;
    let kinds: Vec<String> = items
        .iter()
        .map(|o| {
            format!(
                "{} {}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "Secret shop-chart-creds",
            "Application shop-db",
            "Application shop-api",
            "Application shop-web"
        ]
    );

    let apps = applications(&ns);
    let deployments = ns.api::<Deployment>();
    // No automated sync: after a while, nothing is deployed.
    tokio::time::sleep(Duration::from_secs(5)).await;
    for name in ["shop-db", "shop-api", "shop-web"] {
        assert!(
            deployments.get_opt(name).await.unwrap().is_none(),
            "{name} deployed unsynced"
        );
    }
    let mut finished = Vec::new();
    for name in ["shop-db", "shop-api", "shop-web"] {
        // The one after it is still not deployed.
        assert!(
            deployments.get_opt(name).await.unwrap().is_none(),
            "{name} deployed before its sync"
        );
        let revision = target_revision(&apps, name).await;
        start_sync(&apps, name, &revision).await;
        let (verdict, app) = settle(&apps, name, &revision, name, &argocd).await;
        assert_eq!(verdict, Verdict::Ready, "{name}: {}", verdict.message());
        // Argo CD's own fields, independently of the reader.
        assert_eq!(app["status"]["sync"]["status"], "Synced", "{name}");
        assert_eq!(
            app["status"]["sync"]["revision"],
            revision.as_str(),
            "{name}"
        );
        assert_eq!(pinned_chart(reg, &app).1, "1.0.0", "{name}");
        assert_eq!(app["status"]["health"]["status"], "Healthy", "{name}");
        assert_eq!(
            app["status"]["operationState"]["phase"], "Succeeded",
            "{name}"
        );
        assert_eq!(
            app["status"]["operationState"]["operation"],
            sync::sync_operation(&revision, false),
            "{name}: the controller's copy of the operation"
        );
        assert!(
            app.get("operation").is_none_or(Value::is_null),
            "{name}: operation left set"
        );
        let d = deployments.get(name).await.expect("the chart's Deployment");
        let finished_at = app["status"]["operationState"]["finishedAt"]
            .as_str()
            .unwrap()
            .to_string();
        finished.push((name, d.metadata.creation_timestamp.unwrap().0, finished_at));
    }
    // Each chart's objects were created after the previous Application was Ready.
    for pair in finished.windows(2) {
        assert!(pair[0].1 <= pair[1].1, "{pair:?}");
    }
    let settings = config_map_data(&ns, "shop-api-settings").await;
    assert_eq!(
        settings["size"], "3",
        "--set api.size reached the chart through helm.valuesObject"
    );
    drop(argocd);
}

/// A chart that fails to render (`fail` in a template): the sync operation ends in Argo CD's
/// `Error` phase, the status reader says `Failed` with Argo CD's message (the template's
/// error), and nothing of the chart is deployed.
#[tokio::test]
async fn a_chart_that_fails_to_render_fails_the_sync_with_argocds_message() {
    let (ns, argocd) = Backend::for_test(Kind::ArgoCd, "fail").await;
    let reg = argocd.reg();
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    kubepkg_testkit::charts::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: broken\n    path: broken\n",
        &["broken"],
        &[],
    );
    std::fs::write(
        pkg.join("broken/templates/fail.yaml"),
        "{{ fail \"kubepkg test: this chart refuses to render\" }}\n",
    )
    .unwrap();
    // kubepkg itself renders nothing here (render compiles, it does not template the chart).
    render_and_apply(&ns, reg, &pkg, tmp.path(), &[]).await;
    let apps = applications(&ns);
    let revision = target_revision(&apps, "shop-broken").await;
    start_sync(&apps, "shop-broken", &revision).await;
    let (verdict, app) = settle(&apps, "shop-broken", &revision, "shop-broken", &argocd).await;
    let Verdict::Failed { phase, message } = &verdict else {
        panic!("not failed: {verdict:?}\n{app:#}");
    };
    assert_eq!(app["status"]["operationState"]["phase"], phase.as_str());
    assert!(matches!(phase, Phase::Error | Phase::Failed), "{phase}");
    assert!(
        message.contains("kubepkg test: this chart refuses to render"),
        "Argo CD's message: {message}"
    );
    assert_eq!(
        message.as_str(),
        app["status"]["operationState"]["message"].as_str().unwrap(),
        "the message is Argo CD's own"
    );
    assert!(
        ns.api::<Deployment>()
            .get_opt("shop-broken")
            .await
            .unwrap()
            .is_none()
    );
    drop(argocd);
}

// ---------------------------------------------------------------------------------------------
// `backend: argocd` driven by kubepkg: what the shared scenarios read of an Application, and
// the end of the rollback scenario only Argo CD runs.

/// The Application `name` of the test namespace, as JSON (None when there is none).
pub(crate) async fn application(ns: &TestNamespace, name: &str) -> Option<Value> {
    crate::support::get_json(&applications(ns), name).await
}

/// A blob of the test registry, read from its own storage (distribution's layout).
fn registry_blob(reg: &Registry, digest: &str) -> Value {
    let hex = digest
        .strip_prefix("sha256:")
        .unwrap_or_else(|| panic!("not a digest: {digest}"));
    let data = reg.storage_dir().join(format!(
        "docker/registry/v2/blobs/sha256/{}/{hex}/data",
        &hex[..2]
    ));
    let bytes = std::fs::read(&data).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    serde_json::from_slice(&bytes).unwrap()
}

/// The chart (name, version) an Application's source is pinned to: its `repoURL` is the chart's
/// repository in the test registry (`oci://HOST/charts/<chart>`, `path: .`) and its
/// `targetRevision` a manifest digest there, whose Helm config blob names the chart — read from
/// the registry's storage, not from kubepkg.
#[track_caller]
fn pinned_chart(reg: &Registry, app: &Value) -> (String, String) {
    let source = &app["spec"]["source"];
    let url = source["repoURL"].as_str().unwrap_or_default();
    let prefix = format!("{}/", reg.oci("charts"));
    let chart = url
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("not pinned under {prefix}: {source}"));
    assert_eq!(source["path"], ".", "{source}");
    let pinned = chart_at(reg, source["targetRevision"].as_str().unwrap());
    assert_eq!(pinned.0, chart, "{source}");
    pinned
}

/// The chart (name, version) of the Helm chart manifest `digest` in the test registry, from its
/// config blob.
#[track_caller]
pub(crate) fn chart_at(reg: &Registry, digest: &str) -> (String, String) {
    let manifest = registry_blob(reg, digest);
    assert_eq!(
        manifest["config"]["mediaType"], "application/vnd.cncf.helm.config.v1+json",
        "{manifest}"
    );
    let config = registry_blob(reg, manifest["config"]["digest"].as_str().unwrap());
    (
        config["name"].as_str().unwrap().to_string(),
        config["version"].as_str().unwrap().to_string(),
    )
}

/// Argo CD's own verdict, read from its fields: Synced to the digest its source is pinned to,
/// which holds chart version `version` in the test registry, Healthy, no operation running, the
/// last operation Succeeded.
#[track_caller]
pub(crate) fn assert_synced_healthy(app: &Value, reg: &Registry, version: &str) {
    let name = &app["metadata"]["name"];
    assert_eq!(app["status"]["sync"]["status"], "Synced", "{name}: {app:#}");
    assert_eq!(
        app["status"]["sync"]["revision"], app["spec"]["source"]["targetRevision"],
        "{name}: {app:#}"
    );
    assert_eq!(pinned_chart(reg, app).1, version, "{name}: {app:#}");
    assert_eq!(
        app["status"]["health"]["status"], "Healthy",
        "{name}: {app:#}"
    );
    assert_eq!(
        app["status"]["operationState"]["phase"], "Succeeded",
        "{name}: {app:#}"
    );
    assert!(app.get("operation").is_none_or(Value::is_null), "{name}");
}

/// The id of the Application's latest sync history entry, plus one: the component revision
/// kubepkg records for it (docs/backends.md#argo-cd).
pub(crate) fn history_revision(app: &Value) -> u64 {
    app["status"]["history"]
        .as_array()
        .and_then(|h| h.last())
        .and_then(|e| e["id"].as_u64())
        .unwrap_or_else(|| panic!("no sync history: {app:#}"))
        + 1
}

/// The end of the rollback scenario with Argo CD, after the failed version was rolled back
/// (`db` is db's Application then, `before` as version 1.0.0 left it): the rolled-back revision
/// records the Applications' new history entries; then `kubepkg rollback shop 1` (no
/// `--backend`: the components are recognised by their Applications): db's records differ
/// (revision 1 is its history entry 0), so Argo CD syncs entry 0's source once more and kubepkg
/// waits for it as for an apply.
pub(crate) async fn rollback_to_the_first_revision_syncs_its_source_again(
    ns: &TestNamespace,
    b: &Backend,
    db: &Value,
    before: &Value,
) {
    let (_, status, _) = crate::support::run(ns, &["status", "shop", "-o", "json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    let db_record = component(&status["revision"]["components"], "db");
    assert_eq!(db_record["revision"], history_revision(db), "{status}");

    let (code, out, err) = crate::support::run(ns, &["rollback", "shop", "1", "--timeout", "2m"]);
    assert_eq!(code, 0, "{out}\n{err}\n{}", b.log_tails());
    let db = application(ns, "shop-db").await.unwrap();
    assert_synced_healthy(&db, b.reg(), "1.0.0");
    let last = db["status"]["history"].as_array().unwrap().last().unwrap();
    assert_eq!(
        chart_at(b.reg(), last["revision"].as_str().unwrap()).1,
        "1.0.0",
        "{db:#}"
    );
    assert_eq!(last["source"], before["spec"]["source"], "{db:#}");
    assert_eq!(history_revision(&db), 4, "a fourth sync: {db:#}");
}

/// Argo CD's mark on each object it applied (its default tracking method).
const TRACKING_ID: &str = "argocd.argoproj.io/tracking-id";

fn tracked(meta: &kube::core::ObjectMeta) -> bool {
    meta.annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(TRACKING_ID))
}

/// The objects of the destination namespace that Argo CD applied (Deployments and ConfigMaps
/// with its tracking annotation), each as `Kind name` with what the chart decides: the pod
/// template's annotations, a ConfigMap's data.
async fn destination_objects(ns: &TestNamespace) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for d in ns
        .api::<Deployment>()
        .list(&Default::default())
        .await
        .unwrap()
    {
        if !tracked(&d.metadata) {
            continue;
        }
        let v = serde_json::to_value(&d).unwrap();
        out.push((
            format!("Deployment {}", d.metadata.name.unwrap_or_default()),
            v["spec"]["template"]["metadata"]["annotations"].clone(),
        ));
    }
    for c in ns
        .api::<ConfigMap>()
        .list(&Default::default())
        .await
        .unwrap()
    {
        let name = c.metadata.name.clone().unwrap_or_default();
        if !tracked(&c.metadata) {
            continue;
        }
        out.push((
            format!("ConfigMap {name}"),
            serde_json::to_value(c.data.unwrap_or_default()).unwrap(),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Compile instead of drive: `kubepkg render --backend argocd` output applied with the real
/// `kubectl apply` and synced in kubepkg's order (the sync waves) converges to the same
/// objects in the destination namespace as `kubepkg apply --backend argocd` of the same package
/// and values in another namespace.
#[tokio::test]
async fn render_for_argocd_synced_in_order_converges_to_the_objects_of_the_driven_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let pkg = shop_package(tmp.path(), &["web", "api", "db"], Some("2s"));
    greeting_chart(&pkg.join("api"), "api", "1.0.0");

    // Compiled: rendered, applied as a GitOps repository would hold it, synced wave by wave.
    let rendered = {
        let (ns, argocd) = Backend::for_test(Kind::ArgoCd, "compiled").await;
        let reg = argocd.reg();
        // The YAML documents `render` prints, applied by the real kubectl.
        let rendered = render(
            Kind::ArgoCd,
            &ns,
            reg,
            &pkg,
            tmp.path(),
            &["--set", "api.greeting=hi"],
        );
        kubectl_apply(&ns, &tmp.path().join("shop-argocd.yaml"), &rendered);
        let mut apps: Vec<(i64, String)> = applications(&ns)
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .iter()
            .map(|o| {
                (
                    o.metadata.annotations.as_ref().unwrap()[kubepkg_gitops::argocd::SYNC_WAVE]
                        .parse()
                        .unwrap(),
                    o.metadata.name.clone().unwrap(),
                )
            })
            .collect();
        apps.sort();
        assert_eq!(apps.len(), 3, "{apps:?}");
        let api = applications(&ns);
        for (_, name) in &apps {
            let revision = target_revision(&api, name).await;
            start_sync(&api, name, &revision).await;
            let (verdict, _) = settle(&api, name, &revision, name, &argocd).await;
            assert_eq!(verdict, Verdict::Ready, "{name}: {}", verdict.message());
        }
        let objects = destination_objects(&ns).await;
        drop(argocd);
        objects
    };

    // Driven by kubepkg.
    let driven = {
        let (ns, b) = Backend::for_test(Kind::ArgoCd, "driven").await;
        let (code, lines, stderr) =
            b.apply_finished(&ns, tmp.path(), &pkg, "2m", &["--set", "api.greeting=hi"]);
        assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", b.log_tails());
        destination_objects(&ns).await
    };
    let names: Vec<&str> = driven.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "ConfigMap shop-api-greeting",
            "Deployment shop-api",
            "Deployment shop-db",
            "Deployment shop-web"
        ]
    );
    assert_eq!(rendered, driven);
    assert_eq!(driven[0].1["greeting"], "hi");
}

/// Argo CD in a namespace of its own (as it is usually installed), the package in another:
/// `apply --argocd-namespace` puts the Applications and the repository Secret in Argo CD's
/// namespace with the package's as their destination, and the bare verbs, which take no
/// `--argocd-namespace`, find them there: `status` reads them, `uninstall` deletes them (and Argo
/// CD the objects).
#[tokio::test]
async fn applications_in_argo_cds_own_namespace_are_found_by_status_and_uninstall() {
    use k8s_openapi::api::core::v1::Secret;
    let argo_ns = TestNamespace::fresh("argocd-own").await;
    let pkg_ns = TestNamespace::fresh("argocd-pkg").await;
    let argocd = Backend::start(Kind::ArgoCd, &argo_ns).await;
    // Argo CD may deploy into the package's namespace too.
    argo_ns
        .api::<Secret>()
        .patch(
            "in-cluster",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({
                "stringData": {"namespaces": format!("{},{}", argo_ns.name(), pkg_ns.name())}
            })),
        )
        .await
        .expect("the cluster Secret");
    let reg = argocd.reg();
    let tmp = tempfile::tempdir().unwrap();
    let pkg = shop_package(tmp.path(), &["api", "db"], None);
    let (code, lines, stderr) = finished(
        apply_command(
            Kind::ArgoCd,
            &pkg_ns,
            Some(reg),
            tmp.path(),
            &pkg,
            "2m",
            &["--argocd-namespace", argo_ns.name()],
        )
        .output()
        .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails());
    for name in ["shop-db", "shop-api"] {
        let app = application(&argo_ns, name)
            .await
            .unwrap_or_else(|| panic!("{name} in Argo CD's namespace"));
        assert_synced_healthy(&app, reg, "1.0.0");
        assert_eq!(app["spec"]["destination"]["namespace"], pkg_ns.name());
        assert!(
            deployed(&pkg_ns, name).await,
            "{name} deployed into the package's namespace"
        );
    }
    assert!(
        argo_ns
            .api::<Secret>()
            .get_opt("shop-chart-creds")
            .await
            .unwrap()
            .is_some(),
        "the repository Secret is in Argo CD's namespace"
    );

    let status = crate::support::run_ok(&pkg_ns, &["status", "shop", "-o", "json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    let db = application(&argo_ns, "shop-db").await.unwrap();
    let live = status["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "db")
        .cloned()
        .unwrap();
    assert_eq!(live["ready"], true, "{status}");
    assert_eq!(live["revision"], history_revision(&db), "{status}");

    let (code, out, err) = crate::support::run(&pkg_ns, &["uninstall", "shop"]);
    assert_eq!(code, 0, "{out}\n{err}");
    for name in ["shop-db", "shop-api"] {
        assert!(
            application(&argo_ns, name).await.is_none(),
            "{name}'s Application deleted"
        );
        assert!(
            !deployed(&pkg_ns, name).await,
            "Argo CD deleted {name}'s Deployment"
        );
    }
    drop(argocd);
}

/// `kubepkg plan --backend argocd` (offline) shows, after the order, the objects drive mode
/// applies — the repository Secret and each component's Application, all to be created — and
/// they are the ones `render --backend argocd` writes for a Git repository, in the same order.
#[test]
fn plan_with_backend_argocd_shows_the_objects_render_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let pkg = shop_package(tmp.path(), &["api", "db"], None);
    let common = [
        "-n",
        "shop",
        "--chart-repository",
        "oci://127.0.0.1:9/charts",
        "--plain-http",
        "-o",
        "json",
        "--set",
        "api.size=2",
    ];
    let run = |verb: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(verb)
            .arg(&pkg)
            .args(common)
            .env("HOME", tmp.path())
            .env_remove("KUBECONFIG")
            .env_remove("HELM_NAMESPACE")
            .output()
            .unwrap();
        serde_json::from_str::<Value>(&ok(out)).unwrap()
    };
    let plan = run(&["plan", "shop", "--backend", "argocd"]);
    let rendered = run(&["render", "--backend", "argocd", "shop"]);
    assert_eq!(
        crate::backends::backend_objects(&plan),
        [
            // The Secret apply writes: the credential template of its pinned sources.
            ("Secret".into(), "shop-chart-creds".into(), "added".into()),
            ("Application".into(), "shop-db".into(), "added".into()),
            ("Application".into(), "shop-api".into(), "added".into()),
        ]
    );
    // Each step waits for its Application (Argo CD makes no Helm release to wait for).
    let steps = plan["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("{plan:#}"));
    for step in steps {
        let gates = step["gates"].as_array().unwrap();
        let release = step["release"].as_str().unwrap();
        assert_eq!(gates[0]["kind"], "backend", "{step:#}");
        assert_eq!(gates[0]["objectKind"], "Application", "{step:#}");
        assert_eq!(gates[0]["namespace"], "shop", "{step:#}");
        assert_eq!(gates[0]["name"], release, "{step:#}");
        assert!(
            gates.iter().all(|g| g["kind"] != "release"),
            "no Helm release gate: {step:#}"
        );
    }
    // The Applications as render writes them without --push-charts (by version).
    let applications = |objects: &Value| -> Vec<Value> {
        objects
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["kind"] == "Application")
            .cloned()
            .collect()
    };
    let rendered = applications(&rendered["items"]);
    assert_eq!(rendered.len(), 2, "{rendered:#?}");
    for (o, r) in applications(&plan["backendObjects"]).iter().zip(&rendered) {
        let yaml: Value =
            serde_json::from_str(&kubepkg_yaml::yaml_to_json(o["yaml"].as_str().unwrap()).unwrap())
                .unwrap();
        assert_eq!(&yaml, r, "plan and render differ");
    }
}
