//! Flux's real controllers (`kubepkg_testkit::flux`) against the local control plane, with a
//! chart served by the real test OCI registry: the test tooling the Flux backend is proved with.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_testkit::flux::Flux;
use kubepkg_testkit::registry::{Registry, RegistryOptions};
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command, wait_for};

use crate::engine_support::deploy_chart;
use crate::support::ok;

/// The real `helm` with its config, cache and registry logins in `dir`.
fn helm(bin: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("HELM_CONFIG_HOME", dir.join("helm-config"))
        .env("HELM_CACHE_HOME", dir.join("helm-cache"))
        .env("DOCKER_CONFIG", dir.join("docker"))
        .env_remove("HELM_REGISTRY_CONFIG")
        .env_remove("KUBECONFIG")
        .output()
        .unwrap()
}

/// Flux's Ready: the `Ready` condition True for the object's current generation, and the
/// whole status written for it (Flux patches conditions before the rest of the status).
fn ready(object: &DynamicObject) -> bool {
    let generation = object.metadata.generation.unwrap_or(0);
    let status = &object.data["status"];
    status["observedGeneration"] == generation
        && status["conditions"].as_array().is_some_and(|conds| {
            conds.iter().any(|c| {
                c["type"] == "Ready"
                    && c["status"] == "True"
                    && c["observedGeneration"] == generation
            })
        })
}

fn flux_api(ns: &TestNamespace, group: &str, version: &str, kind: &str) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
    Api::namespaced_with(ns.client().clone(), ns.name(), &resource)
}

/// `fluxdemo` 0.1.0 (a simulated Deployment and a ConfigMap of value `greeting`) packaged and
/// pushed by the real `helm` to `reg`'s `charts/fluxdemo`; returns the manifest digest.
fn push_chart(helm_bin: &Path, dir: &Path, reg: &Registry) -> String {
    let src = dir.join("fluxdemo");
    deploy_chart(&src, "fluxdemo", "0.1.0");
    std::fs::write(
        src.join("templates/configmap.yaml"),
        concat!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\n",
            "data:\n  greeting: {{ .Values.greeting | quote }}\n",
        ),
    )
    .unwrap();
    let values = std::fs::read_to_string(src.join("values.yaml")).unwrap();
    std::fs::write(src.join("values.yaml"), values + "greeting: hello\n").unwrap();
    let out_dir = dir.join("out");
    ok(helm(
        helm_bin,
        dir,
        &[
            "package",
            src.to_str().unwrap(),
            "-d",
            out_dir.to_str().unwrap(),
        ],
    ));
    let tgz = out_dir.join("fluxdemo-0.1.0.tgz");
    let pushed = helm(
        helm_bin,
        dir,
        &[
            "push",
            tgz.to_str().unwrap(),
            &reg.oci("charts"),
            "--plain-http",
        ],
    );
    let pushed = String::from_utf8_lossy(&pushed.stderr).to_string() + &ok(pushed);
    pushed
        .lines()
        .find_map(|l| l.strip_prefix("Digest: "))
        .unwrap_or_else(|| panic!("helm push names the digest: {pushed}"))
        .to_string()
}

/// The `OCIRepository` of [`push_chart`]'s chart in `reg`, insecure (plain HTTP), its Helm
/// chart layer copied as the artifact.
fn oci_repository(reg: &Registry) -> String {
    format!(
        r#"apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: fluxdemo
spec:
  interval: 10m
  url: {url}
  ref:
    tag: 0.1.0
  insecure: true
  layerSelector:
    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip
    operation: copy
"#,
        url = reg.oci("charts/fluxdemo")
    )
}

/// A chart pushed by the real `helm` to a plain-HTTP test registry, an `OCIRepository` for it
/// and a `HelmRelease` referencing that through `chartRef`: source-controller pulls the chart
/// into its artifact server, helm-controller downloads it from there and installs it with the
/// HelmRelease's values, waits for the simulated Deployment (Ready after 2 s), and reports
/// Ready; the objects are the chart's, and the real `helm list` shows the release Flux made.
#[tokio::test]
async fn flux_installs_a_helm_release_of_a_chart_from_the_test_registry() {
    let ns = TestNamespace::new("flux-hr").await.expect("control plane");
    let flux = Flux::start(&ns).await.expect("Flux's controllers");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let helm_bin = helm_binary("v4.3.1").expect("helm oracle");

    let tmp = tempfile::tempdir().unwrap();
    let digest = push_chart(&helm_bin, tmp.path(), &reg);
    let pulls_before = reg.requests_matching("/blobs/");

    ns.apply_yaml(&format!(
        r#"{repo}---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: fluxdemo
spec:
  interval: 10m
  releaseName: fluxdemo
  chartRef:
    kind: OCIRepository
    name: fluxdemo
  install:
    timeout: 2m
  values:
    greeting: from-flux
    readyAfter: 2s
"#,
        repo = oci_repository(&reg)
    ))
    .await
    .expect("OCIRepository and HelmRelease");

    let repos = flux_api(&ns, "source.toolkit.fluxcd.io", "v1", "OCIRepository");
    let repo = wait_for(
        &repos,
        "fluxdemo",
        Duration::from_secs(120),
        "OCIRepository fluxdemo to be Ready",
        ready,
    )
    .await
    .expect("OCIRepository Ready");
    let artifact_url = repo.data["status"]["artifact"]["url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        artifact_url.starts_with(&format!("http://{}/", flux.storage_addr())),
        "the artifact is served by this test's source-controller: {artifact_url}"
    );
    assert!(
        reg.requests_matching("/blobs/") > pulls_before,
        "source-controller pulled the chart from the test registry"
    );

    let releases = flux_api(&ns, "helm.toolkit.fluxcd.io", "v2", "HelmRelease");
    let hr = wait_for(
        &releases,
        "fluxdemo",
        Duration::from_secs(180),
        "HelmRelease fluxdemo to be Ready",
        ready,
    )
    .await
    .expect("HelmRelease Ready");
    // The chart pushed above: Flux records its manifest digest, and appends the digest's
    // first 12 hex digits to the chart version as SemVer build metadata.
    let status = &hr.data["status"];
    let last = &status["history"][0];
    let hex = digest.strip_prefix("sha256:").expect("a sha256 digest");
    let chart_version = format!("0.1.0+{}", &hex[..12]);
    assert_eq!(last["chartName"], "fluxdemo", "{status}");
    assert_eq!(last["chartVersion"], chart_version.as_str(), "{status}");
    assert_eq!(last["ociDigest"], digest.as_str(), "{status}");
    assert_eq!(last["status"], "deployed", "{status}");
    assert_eq!(last["version"], 1, "{status}");

    // The chart's objects, rendered with the HelmRelease's values, and the Deployment ready
    // (helm-controller waited for it before saying Ready).
    let cm = ns
        .api::<ConfigMap>()
        .get("fluxdemo-greeting")
        .await
        .expect("the chart's ConfigMap");
    assert_eq!(
        cm.data
            .unwrap_or_default()
            .get("greeting")
            .map(String::as_str),
        Some("from-flux")
    );
    let deploy = ns
        .api::<Deployment>()
        .get("fluxdemo")
        .await
        .expect("the chart's Deployment");
    assert_eq!(
        deploy.status.and_then(|s| s.ready_replicas),
        Some(1),
        "helm-controller waited for the Deployment"
    );

    // The release is Helm's own: the real helm lists it.
    let listed = ok(helm_command(&helm_bin, &ns, &["list", "-o", "json"])
        .output()
        .unwrap());
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let rows = listed.as_array().expect("helm list -o json is an array");
    assert_eq!(rows.len(), 1, "{listed}");
    assert_eq!(rows[0]["name"], "fluxdemo", "{listed}");
    assert_eq!(
        rows[0]["chart"],
        format!("fluxdemo-{chart_version}").as_str(),
        "{listed}"
    );
    assert_eq!(rows[0]["revision"], "1", "{listed}");
    assert_eq!(rows[0]["status"], "deployed", "{listed}");
    assert_eq!(rows[0]["namespace"], ns.name(), "{listed}");
    drop(flux);
}

/// Each test's controllers watch only its namespace: an `OCIRepository` in a namespace of its
/// own, created first, is never reconciled (no status, no finalizer) while the same object in
/// the watched namespace becomes Ready.
#[tokio::test]
async fn flux_controllers_watch_only_their_test_namespace() {
    let ns = TestNamespace::new("flux-scope")
        .await
        .expect("control plane");
    let other = TestNamespace::new("flux-scope-other")
        .await
        .expect("control plane");
    let flux = Flux::start(&ns).await.expect("Flux's controllers");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let helm_bin = helm_binary("v4.3.1").expect("helm oracle");
    let tmp = tempfile::tempdir().unwrap();
    push_chart(&helm_bin, tmp.path(), &reg);

    other
        .apply_yaml(&oci_repository(&reg))
        .await
        .expect("OCIRepository elsewhere");
    ns.apply_yaml(&oci_repository(&reg))
        .await
        .expect("OCIRepository");
    wait_for(
        &flux_api(&ns, "source.toolkit.fluxcd.io", "v1", "OCIRepository"),
        "fluxdemo",
        Duration::from_secs(120),
        "OCIRepository fluxdemo to be Ready",
        ready,
    )
    .await
    .expect("OCIRepository Ready");
    let elsewhere = flux_api(&other, "source.toolkit.fluxcd.io", "v1", "OCIRepository")
        .get("fluxdemo")
        .await
        .unwrap();
    assert!(
        elsewhere
            .data
            .get("status")
            .is_none_or(|s| s.get("conditions").is_none()),
        "not reconciled outside {}: {:?}",
        flux.namespace(),
        elsewhere.data
    );
    assert!(
        elsewhere.metadata.finalizers.is_none_or(|f| f.is_empty()),
        "no finalizer outside {}",
        flux.namespace()
    );
}

/// A Widget (a custom resource whose `Ready` condition only the test sets, as a controller
/// would) for a `readyWhen` gate the chart's own objects cannot satisfy by themselves.
const WIDGET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.fluxtest.kubepkg.dev
spec:
  group: fluxtest.kubepkg.dev
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

/// `kubepkg render --backend flux --push-charts` of a three-component package (db ← api ←
/// web, api gated by `readyWhen` on its Widget), applied as it is (what a GitOps repository
/// would hold), converges with Flux's real controllers one component after the other: web's
/// release is not installed while api's Widget is not Ready, and each release was installed
/// after the one before it was Ready; values from `--set` reach the chart.
#[tokio::test]
async fn render_for_flux_converges_one_component_after_the_other_behind_ready_when() {
    use k8s_openapi::api::core::v1::Secret;
    let ns = TestNamespace::new("flux-render")
        .await
        .expect("control plane");
    let flux = Flux::start(&ns).await.expect("Flux's controllers");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    kubepkg_testkit::apply_yaml(ns.client(), None, WIDGET_CRD, "kubepkg-test", false)
        .await
        .expect("Widget CRD");
    tokio::time::sleep(Duration::from_secs(2)).await;

    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    crate::engine_support::package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\n  rollback: {safe: true}\ncomponents:\n\
         \x20 - name: web\n    path: web\n    install: {dependsOn: [api]}\n\
         \x20 - name: api\n    path: api\n    install:\n      dependsOn: [db]\n      readyWhen:\n\
         \x20       - {apiVersion: fluxtest.kubepkg.dev/v1, kind: Widget, name: api-widget, condition: Ready}\n\
         \x20 - name: db\n    path: db\n",
        &["web", "api", "db"],
        &[],
    );
    std::fs::write(
        pkg.join("api/templates/widget.yaml"),
        "apiVersion: fluxtest.kubepkg.dev/v1\nkind: Widget\nmetadata:\n  name: api-widget\nspec:\n  size: {{ .Values.size | default 1 }}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["render", "--backend", "flux", "shop"])
        .arg(&pkg)
        .args(["-n", ns.name(), "--chart-repository", &reg.oci("charts")])
        .args(["--push-charts", "--plain-http", "--set", "api.size=3"])
        .env("HOME", tmp.path())
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap();
    let rendered = ok(out);
    ns.apply_yaml(&rendered)
        .await
        .expect("the rendered objects");

    let releases = flux_api(&ns, "helm.toolkit.fluxcd.io", "v2", "HelmRelease");
    let in_time = Duration::from_secs(180);
    wait_for(&releases, "shop-db", in_time, "shop-db Ready", ready)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", flux.log_tails(40)));
    // api is installed (its Widget exists) but not Ready: web waits, not even installed.
    let widgets = flux_api(&ns, "fluxtest.kubepkg.dev", "v1", "Widget");
    let widget = wait_for(&widgets, "api-widget", in_time, "api's Widget", |_| true)
        .await
        .expect("api's Widget");
    assert_eq!(
        widget.data["spec"]["size"], 3,
        "--set api.size reached the chart"
    );
    tokio::time::sleep(Duration::from_secs(10)).await;
    let secrets = ns.api::<Secret>();
    let release_secret = |name: &str| format!("sh.helm.release.v1.{name}.v1");
    assert!(!ready(&releases.get("shop-api").await.unwrap()));
    assert!(
        secrets
            .get_opt(&release_secret("shop-web"))
            .await
            .unwrap()
            .is_none(),
        "web installed before api was Ready"
    );
    let gate_opened = jiff::Timestamp::now();
    widgets
        .patch_status(
            "api-widget",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({
                "status": {"conditions": [{"type": "Ready", "status": "True"}]}
            })),
        )
        .await
        .expect("the Widget's status");
    for name in ["shop-api", "shop-web"] {
        wait_for(&releases, name, in_time, &format!("{name} Ready"), ready)
            .await
            .unwrap_or_else(|e| panic!("{e}\n{}", flux.log_tails(40)));
    }
    // Each release record was written after the previous release was Ready.
    let created = |name: String| {
        let secrets = secrets.clone();
        async move {
            let s = secrets.get(&name).await.unwrap();
            s.metadata.creation_timestamp.unwrap().0
        }
    };
    let db = created(release_secret("shop-db")).await;
    let api = created(release_secret("shop-api")).await;
    let web = created(release_secret("shop-web")).await;
    assert!(db <= api && api < web, "db {db}, api {api}, web {web}");
    assert!(
        web.as_second() >= gate_opened.as_second() - 1,
        "web ({web}) installed only after the Widget was Ready ({gate_opened})"
    );
    drop(flux);
}
