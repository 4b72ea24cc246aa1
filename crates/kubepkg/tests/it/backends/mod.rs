//! The backends' shared scenarios, written once and run against each backend: [`Backend`] is
//! the fixture of one test (for a GitOps backend, Flux's source- and helm-controller, or Argo
//! CD's application controller and repo server, for the test namespace, and a real test registry
//! for the charts kubepkg pushes; for the native backend, nothing beside kubepkg). It knows how
//! to drive kubepkg with that backend (`--backend`, the Package spec), what the backend's object
//! of a component is (a HelmRelease, an Application, or kubepkg's own latest Helm release
//! record) and how to read it: its values, the release revision kubepkg records for it, and
//! whether the backend is done with it.
//!
//! The scenarios themselves are in [`scenarios`]; `flux.rs`, `argocd.rs` and `native.rs` run
//! each of them for their backend through [`backend_scenarios!`](crate::backend_scenarios) (so a
//! failing test's name says which backend failed; the native backend leaves out the scenarios
//! about a backend's own controllers) and keep the tests only one backend has.

pub(crate) mod scenarios;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use kube::api::{Api, Patch, PatchParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::argocd::ArgoCd;
use kubepkg_testkit::flux::Flux;
use kubepkg_testkit::registry::{Registry, RegistryOptions};
use serde_json::Value;

use crate::argocd::{application, assert_synced_healthy, history_revision};
use crate::flux::{helm_release, ready, ready_since};

/// Which backend a scenario runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Flux,
    ArgoCd,
    /// The native backend: kubepkg renders and applies the charts and stores Helm's records.
    Helm,
}

impl Kind {
    /// The backend's name: `--backend`, `spec.backend`, and the prefix of the test namespaces.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Flux => "flux",
            Kind::ArgoCd => "argocd",
            Kind::Helm => "helm",
        }
    }

    /// The kind of the object the backend makes for a component (for the native backend, a
    /// Helm release).
    pub(crate) fn object_kind(self) -> &'static str {
        match self {
            Kind::Flux => "HelmRelease",
            Kind::ArgoCd => "Application",
            Kind::Helm => "release",
        }
    }

    /// The kind of the object kubepkg's progress and failures name for a component the backend
    /// is working on: the backend's object, or, for the native backend, the release's own
    /// objects it waits for (the Deployment of the charts of these scenarios).
    pub(crate) fn reported_kind(self) -> &'static str {
        match self {
            Kind::Flux | Kind::ArgoCd => self.object_kind(),
            Kind::Helm => "Deployment",
        }
    }

    /// Whether kubepkg itself waits for a component's `readyWhen` (Flux's helm-controller does,
    /// by the health check expressions kubepkg compiles it into).
    pub(crate) fn checks_ready_when(self) -> bool {
        self != Kind::Flux
    }

    /// Whether the backend is a GitOps one: its own controllers release the objects kubepkg
    /// hands them, from the charts kubepkg pushes to a registry, and those objects say how the
    /// release went. The native backend reads the package's charts where they are, and its
    /// release record is `deployed` once applied: whether the component then became ready is
    /// kubepkg's own wait, recorded in the package revision (docs/rules.md).
    pub(crate) fn gitops(self) -> bool {
        self != Kind::Helm
    }

    /// The API group of this backend's Widget (a CRD of its own, so the two backends' tests
    /// never share one).
    fn widget_group(self) -> String {
        format!("{}test.kubepkg.dev", self.name())
    }
}

/// The backend's controllers of one test, killed on drop.
enum Controllers {
    Flux(Flux),
    ArgoCd(ArgoCd),
    /// The native backend: kubepkg itself releases, nothing runs beside it.
    Kubepkg,
}

/// One test's backend: its real controllers for the test namespace and the registry kubepkg
/// pushes the charts to (none for the native backend).
pub(crate) struct Backend {
    pub(crate) kind: Kind,
    controllers: Controllers,
    reg: Option<Registry>,
}

impl Backend {
    /// Starts `kind`'s controllers for `ns` and, when it pulls charts, a plain-HTTP test
    /// registry.
    pub(crate) async fn start(kind: Kind, ns: &TestNamespace) -> Backend {
        let controllers = match kind {
            Kind::Flux => Controllers::Flux(Flux::start(ns).await.expect("Flux's controllers")),
            Kind::ArgoCd => Controllers::ArgoCd(ArgoCd::start(ns).await.expect("Argo CD")),
            Kind::Helm => Controllers::Kubepkg,
        };
        let reg = kind
            .gitops()
            .then(|| Registry::start(RegistryOptions::plain()).expect("test registry"));
        Backend {
            kind,
            controllers,
            reg,
        }
    }

    /// A test namespace `<backend>-<suffix>` and the backend started for it.
    pub(crate) async fn for_test(kind: Kind, suffix: &str) -> (TestNamespace, Backend) {
        let ns = TestNamespace::fresh(&format!("{}-{suffix}", kind.name())).await;
        let b = Backend::start(kind, &ns).await;
        (ns, b)
    }

    /// The registry kubepkg pushes the charts to (a backend that pulls charts has one).
    #[track_caller]
    pub(crate) fn reg(&self) -> &Registry {
        self.reg
            .as_ref()
            .unwrap_or_else(|| panic!("the {} backend pulls no charts", self.kind.name()))
    }

    /// The last lines of the backend's controllers' logs, for a failure message.
    pub(crate) fn log_tails(&self) -> String {
        match &self.controllers {
            Controllers::Flux(f) => f.log_tails(40),
            Controllers::ArgoCd(a) => a.log_tails(40),
            Controllers::Kubepkg => String::new(),
        }
    }

    /// `kubepkg apply shop PKG --backend …` ([`apply_command`]) with the backend's registry, the
    /// per-component `timeout`, `-o json`, run to its end: (exit code, JSON lines, stderr).
    pub(crate) fn apply_finished(
        &self,
        ns: &TestNamespace,
        home: &Path,
        pkg: &Path,
        timeout: &str,
        extra: &[&str],
    ) -> (i32, Vec<Value>, String) {
        finished(
            apply_command(self.kind, ns, self.reg.as_ref(), home, pkg, timeout, extra)
                .output()
                .unwrap(),
        )
    }

    /// The part of a `Package` spec that selects this backend and its chart repository.
    pub(crate) fn package_spec(&self) -> Value {
        let name = self.kind.name();
        match &self.reg {
            Some(reg) => serde_json::json!({
                "backend": name,
                name: {"chartRepository": reg.oci("charts"), "insecure": true},
            }),
            None => serde_json::json!({"backend": name}),
        }
    }

    /// The backend's object of the component released as `release`, as JSON (None when there
    /// is none).
    pub(crate) async fn object(&self, ns: &TestNamespace, release: &str) -> Option<Value> {
        match self.kind {
            Kind::Flux => helm_release(ns, release).await,
            Kind::ArgoCd => application(ns, release).await,
            Kind::Helm => kubepkg_testkit::engine::latest_release_record(ns, release).await,
        }
    }

    /// The values the object gives the chart (the release's user-supplied values, for the
    /// native backend).
    pub(crate) fn values<'a>(&self, o: &'a Value) -> &'a Value {
        match self.kind {
            Kind::Flux => &o["spec"]["values"],
            Kind::ArgoCd => &o["spec"]["source"]["helm"]["valuesObject"],
            Kind::Helm => &o["release"]["config"],
        }
    }

    /// The release revision kubepkg records for the object's component: the Helm release
    /// revision helm-controller made, the id of the Application's latest sync history entry
    /// plus one (docs/backends.md), or the revision of kubepkg's own latest release record.
    pub(crate) fn revision(&self, o: &Value) -> Value {
        match self.kind {
            Kind::Flux => o["status"]["history"][0]["version"].clone(),
            Kind::ArgoCd => Value::from(history_revision(o)),
            Kind::Helm => o["release"]["version"].clone(),
        }
    }

    /// Whether the backend calls the object healthy: Flux's Ready for its generation, Argo CD's
    /// `Healthy`, a release record `deployed`.
    pub(crate) fn healthy(&self, o: &Value) -> bool {
        match self.kind {
            Kind::Flux => ready(&serde_json::from_value(o.clone()).unwrap()),
            Kind::ArgoCd => o["status"]["health"]["status"] == "Healthy",
            Kind::Helm => o["release"]["info"]["status"] == "deployed",
        }
    }

    /// Whether the backend is done with the object: Flux's Ready for its generation, Argo CD's
    /// `Healthy` with its sync operation `Succeeded`, the release record `deployed`.
    pub(crate) fn done(&self, o: &Value) -> bool {
        match self.kind {
            Kind::Flux | Kind::Helm => self.healthy(o),
            Kind::ArgoCd => {
                self.healthy(o) && o["status"]["operationState"]["phase"] == "Succeeded"
            }
        }
    }

    /// The backend is done with the object at chart `version`: Flux Ready with the chart version
    /// (marked with its digest) released; Argo CD Synced to the digest its source is pinned to,
    /// holding that chart version, Healthy, its operation Succeeded; the latest release record
    /// `deployed`, of that chart version.
    #[track_caller]
    pub(crate) fn assert_converged(&self, o: &Value, version: &str) {
        match self.kind {
            Kind::Flux => {
                assert!(self.healthy(o), "not Ready: {o}");
                assert!(
                    o["status"]["history"][0]["chartVersion"]
                        .as_str()
                        .is_some_and(|v| v.starts_with(&format!("{version}+"))),
                    "{o}"
                );
            }
            Kind::ArgoCd => assert_synced_healthy(o, self.reg(), version),
            Kind::Helm => {
                assert!(self.healthy(o), "not deployed: {o}");
                assert_eq!(o["release"]["chart"]["metadata"]["version"], version, "{o}");
            }
        }
    }

    /// When the object was made: its `metadata.creationTimestamp`, or the release's first
    /// deployment (Helm's `info.first_deployed`, kept by every later revision).
    pub(crate) fn created(&self, o: &Value) -> jiff::Timestamp {
        match self.kind {
            Kind::Flux | Kind::ArgoCd => time_at(o, "/metadata/creationTimestamp"),
            Kind::Helm => time_at(o, "/release/info/first_deployed"),
        }
    }

    /// When the backend was done with the object: the `Ready` condition's last transition
    /// (Flux), the end of the sync operation (Argo CD), the last write of the latest release
    /// record, which made it `deployed` (its `modifiedAt` label, Unix seconds, as Helm's
    /// storage sets it).
    pub(crate) fn done_at(&self, o: &Value) -> jiff::Timestamp {
        match self.kind {
            Kind::Flux => ready_since(o),
            Kind::ArgoCd => time_at(o, "/status/operationState/finishedAt"),
            Kind::Helm => {
                let labels = &o["labels"];
                let at = labels["modifiedAt"]
                    .as_str()
                    .or(labels["createdAt"].as_str())
                    .unwrap_or_else(|| panic!("no modifiedAt nor createdAt: {o:#}"));
                jiff::Timestamp::from_second(at.parse().unwrap()).unwrap()
            }
        }
    }
}

/// `(revision, status, chart, description)` of each revision of Helm release `release` in
/// `ns`, as the real `helm history -o json` reads the records.
pub(crate) fn helm_history(
    ns: &TestNamespace,
    release: &str,
) -> Vec<(u64, String, String, String)> {
    let helm = kubepkg_testkit::helm_binary("v4.3.1").expect("helm oracle");
    let out = kubepkg_testkit::helm_command(&helm, ns, &["history", release, "-o", "json"])
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_str(&crate::support::ok(out)).unwrap();
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
    rows.iter()
        .map(|r| {
            (
                r["revision"].as_u64().unwrap_or_default(),
                text(r, "status"),
                text(r, "chart"),
                text(r, "description"),
            )
        })
        .collect()
}

/// `kubepkg apply shop PKG --backend KIND` (against `reg`'s `charts` repository when there is
/// one), with the per-component `timeout`, `-o json` (progress events as JSON lines on stdout).
pub(crate) fn apply_command(
    kind: Kind,
    ns: &TestNamespace,
    reg: Option<&Registry>,
    home: &Path,
    pkg: &Path,
    timeout: &str,
    extra: &[&str],
) -> Command {
    let mut c = crate::support::kubepkg(ns, &["apply", "shop"]);
    c.arg(pkg).args(["--backend", kind.name()]);
    if let Some(reg) = reg {
        c.args(["--chart-repository", &reg.oci("charts"), "--plain-http"]);
    }
    c.args(["--timeout", timeout, "-o", "json"])
        .args(extra)
        .env("HOME", home);
    c
}

/// `kubepkg render --backend KIND shop PKG -n NS` with the charts pushed to `reg` (plain HTTP)
/// and `extra` flags: what it printed.
pub(crate) fn render(
    kind: Kind,
    ns: &TestNamespace,
    reg: &Registry,
    pkg: &Path,
    home: &Path,
    extra: &[&str],
) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["render", "--backend", kind.name(), "shop"])
        .arg(pkg)
        .args(["-n", ns.name(), "--chart-repository", &reg.oci("charts")])
        .args(["--push-charts", "--plain-http"])
        .args(extra)
        .env("HOME", home)
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap();
    crate::support::ok(out)
}

/// `yaml` written to `file` (kept with the test's files) and applied to `ns` with the real
/// `kubectl apply` ([`crate::support::kubectl_apply`]).
pub(crate) fn kubectl_apply(ns: &TestNamespace, file: &Path, yaml: &str) {
    std::fs::write(file, yaml).unwrap();
    crate::support::kubectl_apply(ns, yaml);
}

/// The exit code, the JSON lines and the stderr of a finished `kubepkg … -o json`.
pub(crate) fn finished(out: Output) -> (i32, Vec<Value>, String) {
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

/// A timestamp field of a JSON object (RFC 3339, second precision).
pub(crate) fn time_at(o: &Value, pointer: &str) -> jiff::Timestamp {
    o.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no {pointer}: {o:#}"))
        .parse()
        .unwrap()
}

/// The entry of component `name` in a list of components (`kubepkg status -o json`'s, a
/// revision's, a Package's status).
#[track_caller]
pub(crate) fn component<'a>(components: &'a Value, name: &str) -> &'a Value {
    components
        .as_array()
        .unwrap_or_else(|| panic!("no components: {components}"))
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {components}"))
}

/// `(status, reason)` of each package revision `kubepkg history -o json` prints, oldest first.
pub(crate) fn history_rows(ns: &TestNamespace) -> (Vec<(String, String)>, Value) {
    let (_, history, _) = crate::support::run(ns, &["history", "shop", "-o", "json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    let rows = history
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
    (rows, history)
}

/// A chart `name` (version `version`) whose ConfigMap `<release>-greeting` holds value
/// `greeting`, beside the simulated Deployment.
pub(crate) fn greeting_chart(dir: &Path, name: &str, version: &str) {
    kubepkg_testkit::charts::deploy_chart(dir, name, version);
    std::fs::write(
        dir.join("templates/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\ndata:\n  greeting: {{ .Values.greeting | default \"none\" | quote }}\n",
    )
    .unwrap();
}

/// The value of `key` in ConfigMap `name` of `ns`.
pub(crate) async fn config_value(ns: &TestNamespace, name: &str, key: &str) -> Option<String> {
    crate::support::config_map_data(ns, name)
        .await
        .get(key)
        .cloned()
}

/// A Widget (a custom resource whose `Ready` condition only the test sets, as its operator
/// would) of group `<backend>test.kubepkg.dev`, for a `readyWhen` gate the chart's own objects
/// cannot satisfy by themselves.
const WIDGET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.GROUP
spec:
  group: GROUP
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

/// Installs `kind`'s Widget CRD and gives the API server time to serve it.
pub(crate) async fn install_widget_crd(ns: &TestNamespace, kind: Kind) {
    let crd = WIDGET_CRD.replace("GROUP", &kind.widget_group());
    kubepkg_testkit::apply_yaml(ns.client(), None, &crd, "kubepkg-test", false)
        .await
        .expect("Widget CRD");
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// The Widgets of `kind`'s group in the test namespace.
pub(crate) fn widgets(ns: &TestNamespace, kind: Kind) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(&kind.widget_group(), "v1", "Widget");
    Api::namespaced_with(ns.client().clone(), ns.name(), &ApiResource::from_gvk(&gvk))
}

/// Marks the Widget `api-widget` Ready (what its operator would do).
pub(crate) async fn open_gate(ns: &TestNamespace, kind: Kind) {
    widgets(ns, kind)
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

/// The three-component package of the gated tests: db ← api ← web, api gated by `readyWhen` on
/// its Widget (of `kind`'s group), whose size is value `size`.
pub(crate) fn gated_package(pkg: &Path, kind: Kind) {
    let group = kind.widget_group();
    kubepkg_testkit::charts::package(
        pkg,
        &format!(
            "package:\n  name: shop\n  version: 1.0.0\n  rollback: {{safe: true}}\ncomponents:\n\
             \x20 - name: web\n    path: web\n    install: {{dependsOn: [api]}}\n\
             \x20 - name: api\n    path: api\n    install:\n      dependsOn: [db]\n      readyWhen:\n\
             \x20       - {{apiVersion: {group}/v1, kind: Widget, name: api-widget, condition: Ready}}\n\
             \x20 - name: db\n    path: db\n"
        ),
        &["web", "api", "db"],
        &[],
    );
    std::fs::write(
        pkg.join("api/templates/widget.yaml"),
        format!(
            "apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: api-widget\nspec:\n  size: {{{{ .Values.size | default 1 }}}}\n"
        ),
    )
    .unwrap();
}

/// A loopback stand-in for an API server without the backend's CRDs (every request answered
/// 404), recording each request line: `(server URL, requests)`.
pub(crate) fn api_server_without_crds() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
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

/// Polls `check` every 250 ms until it holds, for at most `limit`; fails with `what` and the
/// last value `check` returned.
pub(crate) async fn until<T: std::fmt::Debug>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> (bool, T),
) {
    let deadline = Instant::now() + limit;
    loop {
        let (done, last) = check().await;
        if done {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: {last:#?}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The scenarios of [`scenarios`] as tests of one backend, named after the scenario: invoked
/// once in `flux.rs`, `argocd.rs` and `native.rs`, so `flux::NAME`, `argocd::NAME` and
/// `native::NAME` run the same scenario against each backend.
///
/// `backend_scenarios!(KIND)` runs every scenario (the GitOps backends);
/// `backend_scenarios!(native KIND)` leaves out the `@gitops` ones, which are about what only
/// a backend with controllers of its own has:
/// - `refuses_a_cluster_without_the_backend_before_pushing_anything`: the native backend needs
///   nothing installed in the cluster and pushes no chart, so there is nothing to refuse;
/// - `the_controllers_service_account_is_enough_for_a_package_and_no_more`: its account may
///   only read the package's contents because the backend's controllers write them; with the
///   native backend the kubepkg controller writes them itself (its rules are
///   `controller_chart::the_service_account_may_do_what_the_controller_needs_and_no_more`'s).
#[macro_export]
macro_rules! backend_scenarios {
    ($kind:expr) => {
        $crate::backend_scenarios!(native $kind);
        $crate::backend_scenarios!(@gitops $kind);
    };
    (native $kind:expr) => {
        $crate::backend_scenarios!(@async $kind,
            apply_creates_each_component_after_the_previous_is_ready,
            upgrade_runs_its_hook_first_and_a_failing_unsafe_version_is_not_reverted,
            a_failing_safe_version_puts_each_changed_component_back,
            the_controller_drives_a_package_to_ready_and_removes_it_on_delete,
        );
    };
    (@gitops $kind:expr) => {
        $crate::backend_scenarios!(@async $kind,
            the_controllers_service_account_is_enough_for_a_package_and_no_more,
        );
        $crate::backend_scenarios!(@sync $kind,
            refuses_a_cluster_without_the_backend_before_pushing_anything,
        );
    };
    (@async $kind:expr, $($name:ident,)*) => {$(
        #[tokio::test]
        async fn $name() {
            $crate::backends::scenarios::$name($kind).await;
        }
    )*};
    (@sync $kind:expr, $($name:ident,)*) => {$(
        #[test]
        fn $name() {
            $crate::backends::scenarios::$name($kind);
        }
    )*};
}

/// (kind, name, change) of each backend object of a plan, in its order.
pub(crate) fn backend_objects(plan: &serde_json::Value) -> Vec<(String, String, String)> {
    plan["backendObjects"]
        .as_array()
        .unwrap_or_else(|| panic!("{plan}"))
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap().to_string(),
                o["name"].as_str().unwrap().to_string(),
                o["change"].as_str().unwrap_or("unchanged").to_string(),
            )
        })
        .collect()
}
