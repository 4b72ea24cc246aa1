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
        assert_eq!(pinned_chart(&reg, &app).1, "1.0.0", "{name}");
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
// `backend: argocd` driven by kubepkg (`kubepkg apply --backend argocd`, and the controller): the
// same rules as the helm backend, over Applications that Argo CD's real application controller
// syncs when kubepkg sets their operation.

/// A custom resource for `readyWhen` gates (Argo CD has no health check for it: Healthy to Argo
/// CD whatever its status, so only kubepkg's `readyWhen` holds the next component back).
const WIDGET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.argocdtest.kubepkg.dev
spec:
  group: argocdtest.kubepkg.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
"#;

/// `kubepkg apply shop PKG --backend argocd` against `reg`'s `charts` repository, with the
/// per-component `timeout`, `-o json` (progress events as JSON lines on stdout).
fn argocd_apply(
    ns: &TestNamespace,
    reg: &Registry,
    home: &std::path::Path,
    pkg: &std::path::Path,
    timeout: &str,
    extra: &[&str],
) -> Command {
    let mut c = crate::support::kubepkg(ns, &["apply", "shop"]);
    c.arg(pkg)
        .args([
            "--backend",
            "argocd",
            "--chart-repository",
            &reg.oci("charts"),
        ])
        .args(["--plain-http", "--timeout", timeout, "-o", "json"])
        .args(extra)
        .env("HOME", home);
    c
}

/// The Application `name` of the test namespace, as JSON (None when there is none).
async fn application(ns: &TestNamespace, name: &str) -> Option<Value> {
    applications(ns)
        .get_opt(name)
        .await
        .unwrap()
        .map(|o| serde_json::to_value(o).unwrap())
}

/// A timestamp field of a JSON object (RFC 3339, second precision).
fn time_at(o: &Value, pointer: &str) -> jiff::Timestamp {
    o.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no {pointer}: {o:#}"))
        .parse()
        .unwrap()
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
fn chart_at(reg: &Registry, digest: &str) -> (String, String) {
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
fn assert_synced_healthy(app: &Value, reg: &Registry, version: &str) {
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
fn history_revision(app: &Value) -> u64 {
    app["status"]["history"]
        .as_array()
        .and_then(|h| h.last())
        .and_then(|e| e["id"].as_u64())
        .unwrap_or_else(|| panic!("no sync history: {app:#}"))
        + 1
}

/// A chart `name` (version `version`) whose ConfigMap `<release>-greeting` holds value
/// `greeting`, beside the simulated Deployment.
fn greeting_chart(dir: &std::path::Path, name: &str, version: &str) {
    crate::engine_support::deploy_chart(dir, name, version);
    std::fs::write(
        dir.join("templates/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\ndata:\n  greeting: {{ .Values.greeting | default \"none\" | quote }}\n",
    )
    .unwrap();
}

/// The exit code and the JSON lines of a finished `kubepkg … -o json`.
fn finished(out: std::process::Output) -> (i32, Vec<Value>, String) {
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The three-component package of the drive tests: db ← api ← web, api gated by `readyWhen` on
/// its Widget (whose size is value `size`).
fn gated_package(pkg: &std::path::Path) {
    crate::engine_support::package(
        pkg,
        "package:\n  name: shop\n  version: 1.0.0\n  rollback: {safe: true}\ncomponents:\n\
         \x20 - name: web\n    path: web\n    install: {dependsOn: [api]}\n\
         \x20 - name: api\n    path: api\n    install:\n      dependsOn: [db]\n      readyWhen:\n\
         \x20       - {apiVersion: argocdtest.kubepkg.dev/v1, kind: Widget, name: api-widget, condition: Ready}\n\
         \x20 - name: db\n    path: db\n",
        &["web", "api", "db"],
        &[],
    );
    std::fs::write(
        pkg.join("api/templates/widget.yaml"),
        "apiVersion: argocdtest.kubepkg.dev/v1\nkind: Widget\nmetadata:\n  name: api-widget\nspec:\n  size: {{ .Values.size | default 1 }}\n",
    )
    .unwrap();
}

fn widgets(ns: &TestNamespace) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("argocdtest.kubepkg.dev", "v1", "Widget");
    Api::namespaced_with(ns.client().clone(), ns.name(), &ApiResource::from_gvk(&gvk))
}

/// Marks the Widget `api-widget` Ready (what its operator would do).
async fn open_gate(ns: &TestNamespace) {
    widgets(ns)
        .patch_status(
            "api-widget",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({
                "status": {"conditions": [{"type": "Ready", "status": "True"}]}
            })),
        )
        .await
        .expect("the Widget's status");
}

async fn install_widget_crd(ns: &TestNamespace) {
    kubepkg_testkit::apply_yaml(ns.client(), None, WIDGET_CRD, "kubepkg-test", false)
        .await
        .expect("Widget CRD");
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// A three-component package (db ← api ← web; api gated by `readyWhen` on its Widget, which Argo
/// CD calls Healthy regardless) applied with `--backend argocd`: kubepkg creates each
/// Application only once the one before it is Synced and Healthy (its creation after the
/// previous one's operation finished), web's not at all while api's Widget is not Ready (both
/// Argo CD's health and readyWhen must hold), and records each component's revision as the
/// Application's sync history entry (id + 1); its progress says what Argo CD reports.
#[tokio::test]
async fn apply_with_backend_argocd_creates_each_application_after_the_previous_is_synced_and_healthy()
 {
    let ns = TestNamespace::new("argocd-drive")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    install_widget_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    gated_package(&pkg);
    let child = argocd_apply(&ns, &reg, tmp.path(), &pkg, "3m", &["--set", "api.size=3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();

    // api is synced (Argo CD made its Widget, and calls api Healthy) but its readyWhen does not
    // hold: web's Application does not exist yet.
    let widget = kubepkg_testkit::wait_for(
        &widgets(&ns),
        "api-widget",
        Duration::from_secs(240),
        "api's Widget",
        |_| true,
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", argocd.log_tails(40)));
    assert_eq!(
        widget.data["spec"]["size"], 3,
        "--set api.size reached the chart"
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let api = application(&ns, "shop-api").await.unwrap();
        if api["status"]["health"]["status"] == "Healthy"
            && api["status"]["operationState"]["phase"] == "Succeeded"
        {
            break;
        }
        assert!(Instant::now() < deadline, "api not Healthy: {api:#}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        application(&ns, "shop-web").await.is_none(),
        "web created while api's readyWhen did not hold"
    );
    let gate_opened = jiff::Timestamp::now();
    open_gate(&ns).await;
    let (code, lines, stderr) = finished(
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));

    let db = application(&ns, "shop-db").await.unwrap();
    let api = application(&ns, "shop-api").await.unwrap();
    let web = application(&ns, "shop-web").await.unwrap();
    for app in [&db, &api, &web] {
        assert_synced_healthy(app, &reg, "1.0.0");
        assert!(
            app["spec"]
                .get("syncPolicy")
                .is_none_or(|p| p.get("automated").is_none()),
            "no automated sync: {app:#}"
        );
    }
    let finished_at = |o: &Value| time_at(o, "/status/operationState/finishedAt");
    let created = |o: &Value| time_at(o, "/metadata/creationTimestamp");
    assert!(
        created(&api) >= finished_at(&db),
        "api {} before db's sync finished {}",
        created(&api),
        finished_at(&db)
    );
    assert!(
        created(&web) >= finished_at(&api),
        "web {} before api's sync finished {}",
        created(&web),
        finished_at(&api)
    );
    assert!(
        created(&web).as_second() >= gate_opened.as_second(),
        "web ({}) created only after the Widget was Ready ({gate_opened})",
        created(&web)
    );
    // The sync operations are kubepkg's, with prune (Helm's upgrade deletes what a chart no
    // longer renders).
    assert_eq!(
        db["status"]["operationState"]["operation"],
        sync::sync_operation(
            db["spec"]["source"]["targetRevision"].as_str().unwrap(),
            true
        )
    );

    // The package revision records each Application's sync history entry.
    let (code, status, err) = crate::support::run(&ns, &["status", "shop", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&status).unwrap();
    for (component, app) in [("db", &db), ("api", &api), ("web", &web)] {
        let recorded = status["revision"]["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == component)
            .unwrap_or_else(|| panic!("{component} recorded: {status}"));
        assert_eq!(recorded["revision"], history_revision(app), "{status}");
        let live = status["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == component)
            .unwrap();
        assert_eq!(live["ready"], true, "{status}");
    }
    assert_eq!(status["revision"]["status"], "deployed", "{status}");
    // While api waited, the progress said what Argo CD reported about its Application, then
    // what kubepkg waited for (the Widget).
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("Application") && l.contains("shop-api")),
        "{text:#?}"
    );
    assert!(text.iter().any(|l| l.contains("api-widget")), "{text:#?}");
    drop(argocd);
}

/// An upgrade with a `PreUpgrade` hook: the hook runs first as an Application of its own (its
/// chart sees `kubepkg.fromVersion`/`toVersion`) and is deleted after the upgrade succeeded;
/// then a failing version with `rollback.safe: false` ends `UpgradeFailed` (exit 4) with Argo
/// CD's words naming the Application, and nothing is reverted: the Application stays on the
/// failing source.
#[tokio::test]
async fn argocd_upgrade_runs_its_hook_first_and_a_failing_unsafe_version_is_not_reverted() {
    let ns = TestNamespace::new("argocd-hook")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let write = |version: &str, safe: bool, db_values: &str| {
        let pkg = tmp.path().join(format!("pkg-{version}"));
        crate::engine_support::package(
            &pkg,
            &format!(
                "package:\n  name: shop\n  version: {version}\n  rollback: {{safe: {safe}}}\ncomponents:\n\
                 \x20 - name: db\n    path: db\n    values: {db_values}\n\
                 \x20 - name: migrate\n    path: migrate\n    install: {{phase: PreUpgrade}}\n"
            ),
            &["db"],
            &["migrate"],
        );
        pkg
    };
    let v1 = write("1.0.0", false, "{note: one}");
    let (code, lines, stderr) = finished(
        argocd_apply(&ns, &reg, tmp.path(), &v1, "2m", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));
    assert!(
        application(&ns, "shop-migrate").await.is_none(),
        "no hook on a first install"
    );

    let v2 = write("1.1.0", false, "{note: two}");
    let (code, lines, stderr) = finished(
        argocd_apply(&ns, &reg, tmp.path(), &v2, "2m", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));
    // The hook's ConfigMap (helm.sh/resource-policy: keep, which Argo CD honours when it
    // deletes an Application's objects) says what the hook's chart saw.
    let migrated = ns
        .api::<ConfigMap>()
        .get("migrated-1-1-0")
        .await
        .expect("the hook's kept ConfigMap");
    let data = migrated.data.unwrap_or_default();
    assert_eq!(data.get("from").map(String::as_str), Some("1.0.0"));
    assert_eq!(data.get("to").map(String::as_str), Some("1.1.0"));
    assert!(
        application(&ns, "shop-migrate").await.is_none(),
        "the hook's Application is deleted after the upgrade"
    );
    assert!(
        ns.api::<k8s_openapi::api::batch::v1::Job>()
            .get_opt("migrate-1-1-0")
            .await
            .unwrap()
            .is_none(),
        "Argo CD deleted the hook's Job with its Application"
    );
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let hook = text
        .iter()
        .position(|l| l.contains("migrate") && l.contains("hook"))
        .unwrap_or_else(|| panic!("hook event: {text:#?}"));
    let applying = text
        .iter()
        .position(|l| l.contains("\"db\"") && l.to_lowercase().contains("applying"))
        .unwrap_or_else(|| panic!("db applying: {text:#?}"));
    assert!(hook < applying, "{text:#?}");
    let db = application(&ns, "shop-db").await.unwrap();
    assert_eq!(db["spec"]["source"]["helm"]["valuesObject"]["note"], "two");
    assert_synced_healthy(&db, &reg, "1.0.0");
    let deployed = history_revision(&db);

    // 1.2.0 fails (its pod never runs) and may not be rolled back.
    let v3 = write("1.2.0", false, "{note: three, sim: fail}");
    let (code, lines, stderr) = finished(
        argocd_apply(&ns, &reg, tmp.path(), &v3, "20s", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 4, "UpgradeFailed: {stderr}\n{lines:#?}");
    let summary = lines.last().unwrap().to_string();
    assert!(
        summary.contains("Application") && summary.contains("shop-db"),
        "Argo CD's words, naming the Application: {summary}"
    );
    assert!(summary.contains("rollback.safe: false"), "{summary}");
    let db = application(&ns, "shop-db").await.unwrap();
    let values = &db["spec"]["source"]["helm"]["valuesObject"];
    assert_eq!(values["sim"], "fail", "not reverted: {db:#}");
    assert_eq!(values["note"], "three", "not reverted: {db:#}");
    assert_ne!(
        history_revision(&db),
        deployed,
        "Argo CD synced the new source"
    );
    assert_ne!(db["status"]["health"]["status"], "Healthy", "{db:#}");
    let (_, history, _) = crate::support::run(&ns, &["history", "shop", "-o", "json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    let last = history.as_array().unwrap().last().unwrap();
    assert_eq!(last["status"], "failed", "{history}");
    assert_eq!(last["reason"], "UpgradeFailed", "{history}");
    drop(argocd);
}

/// A failing version with `rollback.safe: true`: every Application the upgrade changed is put
/// back on its previous chart version and values, newest first, and Argo CD syncs them (exit 3,
/// `RolledBack`): each is Synced and Healthy on the old source and the chart's ConfigMap holds
/// the old value again.
#[tokio::test]
async fn a_failing_safe_argocd_version_puts_each_changed_application_back() {
    let ns = TestNamespace::new("argocd-rollback")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let write = |version: &str, db_chart: &str, db_values: &str, api_values: &str| {
        let pkg = tmp.path().join(format!("pkg-{version}"));
        crate::engine_support::package(
            &pkg,
            &format!(
                "package:\n  name: shop\n  version: {version}\n  rollback: {{safe: true}}\ncomponents:\n\
                 \x20 - name: db\n    path: db\n    values: {db_values}\n\
                 \x20 - name: api\n    path: api\n    values: {api_values}\n    install: {{dependsOn: [db]}}\n"
            ),
            &["api"],
            &[],
        );
        greeting_chart(&pkg.join("db"), "db", db_chart);
        pkg
    };
    let v1 = write("1.0.0", "1.0.0", "{greeting: one}", "{}");
    let (code, lines, stderr) = finished(
        argocd_apply(&ns, &reg, tmp.path(), &v1, "2m", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));
    let before = application(&ns, "shop-db").await.unwrap();
    let api_before = application(&ns, "shop-api").await.unwrap();

    // 2.0.0: db moves to chart 1.1.0 with another value (fine), api fails.
    let v2 = write("2.0.0", "1.1.0", "{greeting: two}", "{sim: fail}");
    let (code, lines, stderr) = finished(
        argocd_apply(&ns, &reg, tmp.path(), &v2, "20s", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(
        code,
        3,
        "RolledBack: {stderr}\n{lines:#?}\n{}",
        argocd.log_tails(40)
    );
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("rolled back") || l.contains("rolledBack")),
        "{text:#?}"
    );

    let db = application(&ns, "shop-db").await.unwrap();
    assert_synced_healthy(&db, &reg, "1.0.0");
    assert_eq!(
        db["spec"]["source"], before["spec"]["source"],
        "db's chart version and values back"
    );
    // Argo CD synced 1.1.0 (two) and then 1.0.0 (one) again: three entries.
    let synced: Vec<(String, Value)> = db["status"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                chart_at(&reg, e["revision"].as_str().unwrap_or_default()).1,
                e["source"]["helm"]["valuesObject"]["greeting"].clone(),
            )
        })
        .collect();
    assert_eq!(
        synced,
        [
            ("1.0.0".to_string(), Value::from("one")),
            ("1.1.0".to_string(), Value::from("two")),
            ("1.0.0".to_string(), Value::from("one")),
        ],
        "{db:#}"
    );
    let cm = ns.api::<ConfigMap>().get("shop-db-greeting").await.unwrap();
    assert_eq!(
        cm.data
            .unwrap_or_default()
            .get("greeting")
            .map(String::as_str),
        Some("one")
    );
    let api = application(&ns, "shop-api").await.unwrap();
    assert_synced_healthy(&api, &reg, "1.0.0");
    assert_eq!(
        api["spec"]["source"], api_before["spec"]["source"],
        "{api:#}"
    );
    let (_, history, _) = crate::support::run(&ns, &["history", "shop", "-o", "json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    let rows: Vec<(String, String)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap_or("").into(),
                r["reason"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("superseded".into(), "Succeeded".into()),
            ("failed".into(), "RolledBack".into()),
            ("deployed".into(), "RolledBack".into()),
        ],
        "{history}"
    );
    // The rolled-back revision records the Applications' new history entries.
    let (_, status, _) = crate::support::run(&ns, &["status", "shop", "-o", "json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    let db_record = status["revision"]["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "db")
        .cloned()
        .unwrap();
    assert_eq!(db_record["revision"], history_revision(&db), "{status}");

    // `kubepkg rollback shop 1` (no --backend: the components are recognised by their
    // Applications): db's records differ (revision 1 is its history entry 0), so Argo CD syncs
    // entry 0's source once more and kubepkg waits for it as for an apply.
    let (code, out, err) = crate::support::run(&ns, &["rollback", "shop", "1", "--timeout", "2m"]);
    assert_eq!(code, 0, "{out}\n{err}\n{}", argocd.log_tails(40));
    let db = application(&ns, "shop-db").await.unwrap();
    assert_synced_healthy(&db, &reg, "1.0.0");
    let last = db["status"]["history"].as_array().unwrap().last().unwrap();
    assert_eq!(
        chart_at(&reg, last["revision"].as_str().unwrap()).1,
        "1.0.0",
        "{db:#}"
    );
    assert_eq!(last["source"], before["spec"]["source"], "{db:#}");
    assert_eq!(history_revision(&db), 4, "a fourth sync: {db:#}");
    drop(argocd);
}

/// A `Package` with `backend: argocd` reconciled by the kubepkg controller: its components
/// become Applications one after the other, the Package ends Ready with the revisions of Argo
/// CD's sync history, and deleting it deletes the Applications and the objects Argo CD applied.
#[tokio::test]
async fn the_controller_drives_a_backend_argocd_package_to_ready_and_removes_it_on_delete() {
    use crate::controller::{
        ControllerProcess, archive, create, install_crd, store_archive, wait_ready,
    };
    let ns = TestNamespace::new("argocd-ctl")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    install_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\n  rollback: {safe: true}\ncomponents:\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n",
        &["api", "db"],
        &[],
    );
    store_archive(&ns, "shop-archive", archive(&pkg)).await;
    let ctl = ControllerProcess::start(&ns, "10m", &[]);
    create(
        &ns,
        "shop",
        serde_json::json!({
            "source": {"configMapRef": {"name": "shop-archive"}},
            "backend": "argocd",
            "argocd": {"chartRepository": reg.oci("charts"), "insecure": true},
        }),
    )
    .await;
    let o = wait_ready(&ns, &ctl, "shop", "True", "Succeeded").await;
    let db = application(&ns, "shop-db").await.expect("db's Application");
    let api = application(&ns, "shop-api")
        .await
        .expect("api's Application");
    assert!(
        time_at(&api, "/metadata/creationTimestamp")
            >= time_at(&db, "/status/operationState/finishedAt"),
        "api created before db was synced"
    );
    for (component, app) in [("db", &db), ("api", &api)] {
        assert_synced_healthy(app, &reg, "1.0.0");
        let c = o["status"]["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == component)
            .unwrap_or_else(|| panic!("{o}"));
        assert_eq!(c["revision"], history_revision(app), "{o}");
    }
    assert!(
        ns.api::<Deployment>()
            .get_opt("shop-api")
            .await
            .unwrap()
            .is_some(),
        "Argo CD deployed api"
    );

    kubepkg_testkit::package_api(&ns)
        .delete("shop", &kube::api::DeleteParams::default())
        .await
        .expect("Package deleted");
    let deadline = Instant::now() + Duration::from_secs(120);
    while application(&ns, "shop-db").await.is_some()
        || application(&ns, "shop-api").await.is_some()
    {
        assert!(
            Instant::now() < deadline,
            "Applications not deleted:\n{}\n{}",
            ctl.log(),
            argocd.log_tails(40)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        ns.api::<Deployment>()
            .get_opt("shop-api")
            .await
            .unwrap()
            .is_none(),
        "Argo CD deleted api's Deployment with its Application"
    );
    drop(argocd);
}

/// A loopback stand-in for an API server without Argo CD (every request answered 404),
/// recording each request line: `(server URL, requests)`.
fn api_server_without_argocd() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut first = String::new();
                    if reader.read_line(&mut first).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    log.lock().unwrap().push(first.trim().to_string());
                    let answer = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}"#;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                }
            });
        }
    });
    (url, seen)
}

/// A cluster without Argo CD's Application CRD: `apply --backend argocd` refuses in one line
/// naming the CRD and what to do, before any chart is pushed (the real registry saw no
/// request) or anything applied (the API server saw only reads).
#[test]
fn backend_argocd_refuses_a_cluster_without_argocd_before_pushing_anything() {
    let (url, seen) = api_server_without_argocd();
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = tmp.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"{url}\"}}}}]\nusers: [{{name: u, user: {{token: t}}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\ncurrent-context: x\n"
        ),
    )
    .unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n",
        &["db"],
        &[],
    );
    let requests_before = reg.requests_matching("/v2/");
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["apply", "shop"])
        .arg(&pkg)
        .args([
            "--backend",
            "argocd",
            "--chart-repository",
            &reg.oci("charts"),
        ])
        .args(["--plain-http", "-n", "shop", "--kubeconfig"])
        .arg(&kubeconfig)
        .env("HOME", tmp.path())
        .env_remove("KUBECONFIG")
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("applications.argoproj.io is not installed")
            && stderr.contains("install Argo CD or use --backend helm")
            && stderr.contains("nothing was pushed or applied"),
        "{stderr}"
    );
    assert_eq!(
        reg.requests_matching("/v2/"),
        requests_before,
        "no chart pushed"
    );
    let requests = seen.lock().unwrap().clone();
    assert!(!requests.is_empty(), "kubepkg asked the server");
    assert!(
        requests.iter().all(|r| r.starts_with("GET ")),
        "only reads before the refusal: {requests:#?}"
    );

    // The flags of one backend are refused with another.
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["apply", "shop"])
        .arg(&pkg)
        .args(["--argocd-namespace", "argocd", "--kubeconfig"])
        .arg(&kubeconfig)
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--argocd-namespace argocd: only --backend argocd makes Applications"),
        "{stderr}"
    );
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
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n\
         \x20 - name: web\n    path: web\n    install: {dependsOn: [api]}\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n    values: {readyAfter: 2s}\n",
        &["web", "api", "db"],
        &[],
    );
    greeting_chart(&pkg.join("api"), "api", "1.0.0");

    // Compiled: rendered, applied as a GitOps repository would hold it, synced wave by wave.
    let rendered = {
        let ns = TestNamespace::new("argocd-compiled")
            .await
            .expect("control plane");
        let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
        let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
        // The YAML documents `render` prints, applied by the real kubectl.
        let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["render", "--backend", "argocd", "shop"])
            .arg(&pkg)
            .args(["-n", ns.name(), "--chart-repository", &reg.oci("charts")])
            .args(["--push-charts", "--plain-http", "--set", "api.greeting=hi"])
            .env("HOME", tmp.path())
            .env_remove("HELM_NAMESPACE")
            .output()
            .unwrap();
        let file = tmp.path().join("shop-argocd.yaml");
        std::fs::write(&file, ok(out)).unwrap();
        let applied = ns
            .plane()
            .kubectl()
            .args(["apply", "-n", ns.name(), "-f"])
            .arg(&file)
            .output()
            .unwrap();
        ok(applied);
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
        let ns = TestNamespace::new("argocd-driven")
            .await
            .expect("control plane");
        let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
        let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
        let (code, lines, stderr) = finished(
            argocd_apply(
                &ns,
                &reg,
                tmp.path(),
                &pkg,
                "2m",
                &["--set", "api.greeting=hi"],
            )
            .output()
            .unwrap(),
        );
        assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));
        let objects = destination_objects(&ns).await;
        drop(argocd);
        objects
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
    let argo_ns = TestNamespace::new("argocd-own")
        .await
        .expect("control plane");
    let pkg_ns = TestNamespace::new("argocd-pkg")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&argo_ns).await.expect("Argo CD");
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
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n",
        &["api", "db"],
        &[],
    );
    let (code, lines, stderr) = finished(
        argocd_apply(
            &pkg_ns,
            &reg,
            tmp.path(),
            &pkg,
            "2m",
            &["--argocd-namespace", argo_ns.name()],
        )
        .output()
        .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", argocd.log_tails(40));
    for name in ["shop-db", "shop-api"] {
        let app = application(&argo_ns, name)
            .await
            .unwrap_or_else(|| panic!("{name} in Argo CD's namespace"));
        assert_synced_healthy(&app, &reg, "1.0.0");
        assert_eq!(app["spec"]["destination"]["namespace"], pkg_ns.name());
        assert!(
            pkg_ns
                .api::<Deployment>()
                .get_opt(name)
                .await
                .unwrap()
                .is_some(),
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

    let (code, status, err) = crate::support::run(&pkg_ns, &["status", "shop", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
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
            pkg_ns
                .api::<Deployment>()
                .get_opt(name)
                .await
                .unwrap()
                .is_none(),
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
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n",
        &["api", "db"],
        &[],
    );
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
    let planned: Vec<(String, String, String)> = plan["backendObjects"]
        .as_array()
        .unwrap_or_else(|| panic!("{plan:#}"))
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap().to_string(),
                o["name"].as_str().unwrap().to_string(),
                o["change"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        planned,
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

/// The controller chart's RBAC for `backend: argocd` under a real ServiceAccount (the chart
/// installed, its package-contents role reading Deployments only): the account may do what the
/// Argo CD backend calls on Applications and read Argo CD's CRD, and nothing more of Argo CD or
/// of the contents; the real `kubepkg controller` authenticated with a token of it reconciles an
/// argocd Package to Ready with Argo CD's real controllers (so the rules are enough), never
/// refused, and deleting the Package removes the Applications.
#[tokio::test]
async fn the_controllers_service_account_is_enough_for_an_argocd_package_and_no_more() {
    use crate::controller_chart::{
        Scope, delete_shop_as_service_account, install_for_backend, shop_ready_as_service_account,
    };
    let ns = TestNamespace::new("argocd-rbac")
        .await
        .expect("control plane");
    let argocd = ArgoCd::start(&ns).await.expect("Argo CD");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let here = Scope::Namespace(ns.name());
    let mut may: Vec<_> = [
        "get", "list", "watch", "create", "patch", "update", "delete",
    ]
    .into_iter()
    .map(|verb| ((verb, "applications.argoproj.io", None), here))
    .collect();
    // A bare verb finds a component's Application in any namespace.
    may.push((
        ("list", "applications.argoproj.io", None),
        Scope::AllNamespaces,
    ));
    may.push((
        (
            "get",
            "customresourcedefinitions.apiextensions.k8s.io",
            None,
        ),
        Scope::AllNamespaces,
    ));
    let installed = install_for_backend(
        &ns,
        &may,
        &[
            ("create", "applicationsets.argoproj.io", None),
            ("create", "appprojects.argoproj.io", None),
            ("patch", "appprojects.argoproj.io", None),
            (
                "list",
                "customresourcedefinitions.apiextensions.k8s.io",
                None,
            ),
            (
                "create",
                "customresourcedefinitions.apiextensions.k8s.io",
                None,
            ),
            ("create", "deployments.apps", None),
            ("patch", "deployments.apps", None),
            ("create", "configmaps", None),
        ],
    );
    let tmp = tempfile::tempdir().unwrap();
    let tails = || argocd.log_tails(40);
    let (ctl, object) = shop_ready_as_service_account(
        &ns,
        &installed,
        tmp.path(),
        serde_json::json!({
            "backend": "argocd",
            "argocd": {"chartRepository": reg.oci("charts"), "insecure": true},
        }),
        &tails,
    )
    .await;
    for (component, release) in [("db", "shop-db"), ("api", "shop-api")] {
        let app = application(&ns, release).await.expect("the Application");
        assert_synced_healthy(&app, &reg, "1.0.0");
        let c = object["status"]["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == component)
            .unwrap_or_else(|| panic!("{object}"));
        assert_eq!(c["revision"], history_revision(&app), "{object}");
    }

    delete_shop_as_service_account(&ns, &ctl, &tails).await;
    for release in ["shop-db", "shop-api"] {
        assert!(
            application(&ns, release).await.is_none(),
            "{release}'s Application left after the uninstall"
        );
    }
    drop(ctl);
    drop(installed);
    drop(argocd);
}
