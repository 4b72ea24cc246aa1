//! Argo CD's real application controller and repo server (`kubepkg_testkit::argocd::ArgoCd`)
//! against the local control plane, with charts pushed by `kubepkg render --push-charts` to the
//! real test OCI registry: the compiled Applications applied as they are, each synced by setting
//! the operation of `kubepkg_gitops::argocd::sync` in kubepkg's order, and read back with its
//! verdict.
//!
//! With `KUBEPKG_ARGOCD_CAPTURE=DIR` the tests write the Application objects they read (as the
//! real controller left them) into DIR: `crates/kubepkg-gitops/testdata/argocd/` holds such a
//! capture, which the status reader's unit tests read.

use std::process::Command;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_gitops::argocd::sync::{self, Phase, Verdict};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::argocd::ArgoCd;
use kubepkg_testkit::registry::{Registry, RegistryOptions};
use serde_json::Value;

use crate::support::ok;

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
    argocd: &ArgoCd,
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
            argocd.log_tails(40)
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// `kubepkg render --backend argocd` of `pkg` into `ns` (charts pushed to `reg`), applied.
async fn render_and_apply(
    ns: &TestNamespace,
    reg: &Registry,
    pkg: &std::path::Path,
    home: &std::path::Path,
    extra: &[&str],
) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["render", "--backend", "argocd", "shop"])
        .arg(pkg)
        .args(["-n", ns.name(), "--chart-repository", &reg.oci("charts")])
        .args(["--push-charts", "--plain-http", "-o", "json"])
        .args(extra)
        .env("HOME", home)
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap();
    let rendered: Value = serde_json::from_str(&ok(out)).expect("a JSON List");
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

/// A three-component package (db ← api ← web) rendered for Argo CD, its charts pushed by
/// kubepkg to the real test registry, the Secret and Applications applied as they are: nothing
/// is deployed until kubepkg sets each Application's sync operation, in kubepkg's order (the
/// sync waves), each after the one before is Synced and Healthy; every Application ends Synced
/// at its chart's version and Healthy, the controller's copy of the operation is the one set
/// (every field survived Argo CD's Go types), and the charts' objects exist in the destination
/// namespace with the values of `--set`.
#[tokio::test]
async fn render_for_argocd_then_sync_in_order_ends_synced_and_healthy() {
    let ns = TestNamespace::new("argocd-render")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n\
         \x20 - name: web\n    path: web\n    install: {dependsOn: [api]}\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n    values: {readyAfter: 3s}\n",
        &["web", "api", "db"],
        &[],
    );
    std::fs::write(
        pkg.join("api/templates/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  size: {{ .Values.size | default 1 | quote }}\n",
    )
    .unwrap();
    let items = render_and_apply(&ns, &reg, &pkg, tmp.path(), &["--set", "api.size=3"]).await;
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
            "Secret shop-charts",
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
        start_sync(&apps, name, "1.0.0").await;
        let (verdict, app) = settle(&apps, name, "1.0.0", name, &argocd).await;
        assert_eq!(verdict, Verdict::Ready, "{name}: {}", verdict.message());
        // Argo CD's own fields, independently of the reader.
        assert_eq!(app["status"]["sync"]["status"], "Synced", "{name}");
        assert_eq!(app["status"]["sync"]["revision"], "1.0.0", "{name}");
        assert_eq!(app["status"]["health"]["status"], "Healthy", "{name}");
        assert_eq!(
            app["status"]["operationState"]["phase"], "Succeeded",
            "{name}"
        );
        assert_eq!(
            app["status"]["operationState"]["operation"],
            sync::sync_operation("1.0.0", false),
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
    let settings = ns
        .api::<ConfigMap>()
        .get("shop-api-settings")
        .await
        .expect("api's ConfigMap");
    assert_eq!(
        settings.data.unwrap()["size"],
        "3",
        "--set api.size reached the chart through helm.valuesObject"
    );
    drop(argocd);
}

/// A chart that fails to render (`fail` in a template): the sync operation ends in Argo CD's
/// `Error` phase, the status reader says `Failed` with Argo CD's message (the template's
/// error), and nothing of the chart is deployed.
#[tokio::test]
async fn a_chart_that_fails_to_render_fails_the_sync_with_argocds_message() {
    let ns = TestNamespace::new("argocd-fail")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
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
    render_and_apply(&ns, &reg, &pkg, tmp.path(), &[]).await;
    let apps = applications(&ns);
    start_sync(&apps, "shop-broken", "1.0.0").await;
    let (verdict, app) = settle(&apps, "shop-broken", "1.0.0", "shop-broken", &argocd).await;
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
