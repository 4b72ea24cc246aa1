//! Flux's real controllers (`kubepkg_testkit::flux`) against the local control plane, with a
//! chart served by the real test OCI registry: the test tooling the Flux backend is proved with,
//! the scenarios every GitOps backend runs (`crate::backends::scenarios`, as `flux::NAME`), and
//! what only Flux has: `render --backend flux` converging by itself, the same Helm releases from
//! compile and drive, `plan` against helm-controller's releases, `apply --force` over a flux
//! Package.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_testkit::flux::Flux;
use kubepkg_testkit::registry::{Registry, RegistryOptions};
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command, wait_for};

use crate::backends::{
    Backend, Kind, apply_command, backend_objects, finished, gated_package, greeting_chart,
    install_widget_crd, kubectl_apply, open_gate, render, widgets,
};
use crate::support::{config_map_data, ok};
use kubepkg_testkit::charts::deploy_chart;

crate::backend_scenarios!(Kind::Flux);

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
pub(crate) fn ready(object: &DynamicObject) -> bool {
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

/// The objects of `group/version` `kind` in the test namespace.
pub(crate) fn flux_api(
    ns: &TestNamespace,
    group: &str,
    version: &str,
    kind: &str,
) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
    Api::namespaced_with(ns.client().clone(), ns.name(), &resource)
}

/// Flux's OCIRepository `name` of `ns` (the source of a HelmRelease).
pub(crate) async fn oci_repository_object(ns: &TestNamespace, name: &str) -> DynamicObject {
    flux_api(ns, "source.toolkit.fluxcd.io", "v1", "OCIRepository")
        .get(name)
        .await
        .unwrap_or_else(|e| panic!("OCIRepository {name}: {e}"))
}

/// Waits at most `seconds` until Flux's object `fluxdemo` of `kind` is Ready; returns it.
async fn fluxdemo_ready(
    ns: &TestNamespace,
    group: &str,
    version: &str,
    kind: &str,
    seconds: u64,
) -> DynamicObject {
    wait_for(
        &flux_api(ns, group, version, kind),
        "fluxdemo",
        Duration::from_secs(seconds),
        &format!("{kind} fluxdemo to be Ready"),
        ready,
    )
    .await
    .unwrap_or_else(|e| panic!("{kind} Ready: {e}"))
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
    let ns = TestNamespace::fresh("flux-hr").await;
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

    let repo = fluxdemo_ready(&ns, "source.toolkit.fluxcd.io", "v1", "OCIRepository", 120).await;
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

    let hr = fluxdemo_ready(&ns, "helm.toolkit.fluxcd.io", "v2", "HelmRelease", 180).await;
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
    let cm = config_map_data(&ns, "fluxdemo-greeting").await;
    assert_eq!(cm.get("greeting").map(String::as_str), Some("from-flux"));
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
    let ns = TestNamespace::fresh("flux-scope").await;
    let other = TestNamespace::fresh("flux-scope-other").await;
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
    fluxdemo_ready(&ns, "source.toolkit.fluxcd.io", "v1", "OCIRepository", 120).await;
    let elsewhere = oci_repository_object(&other, "fluxdemo").await;
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

/// `kubepkg render --backend flux --push-charts` of a three-component package (db ← api ←
/// web, api gated by `readyWhen` on its Widget), applied as it is (what a GitOps repository
/// would hold), converges with Flux's real controllers one component after the other: web's
/// release is not installed while api's Widget is not Ready, and each release was installed
/// after the one before it was Ready; values from `--set` reach the chart.
#[tokio::test]
async fn render_for_flux_converges_one_component_after_the_other_behind_ready_when() {
    use k8s_openapi::api::core::v1::Secret;
    let (ns, flux) = Backend::for_test(Kind::Flux, "render").await;
    let reg = flux.reg();
    install_widget_crd(&ns, Kind::Flux).await;

    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    gated_package(&pkg, Kind::Flux);
    let rendered = render(
        Kind::Flux,
        &ns,
        reg,
        &pkg,
        tmp.path(),
        &["--set", "api.size=3"],
    );
    ns.apply_yaml(&rendered)
        .await
        .expect("the rendered objects");

    let releases = flux_api(&ns, "helm.toolkit.fluxcd.io", "v2", "HelmRelease");
    let in_time = Duration::from_secs(180);
    wait_for(&releases, "shop-db", in_time, "shop-db Ready", ready)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", flux.log_tails()));
    // api is installed (its Widget exists) but not Ready: web waits, not even installed.
    let widgets = widgets(&ns, Kind::Flux);
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
    open_gate(&ns, Kind::Flux).await;
    for name in ["shop-api", "shop-web"] {
        wait_for(&releases, name, in_time, &format!("{name} Ready"), ready)
            .await
            .unwrap_or_else(|e| panic!("{e}\n{}", flux.log_tails()));
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

// ---------------------------------------------------------------------------------------------
// `backend: flux` driven by kubepkg: what the shared scenarios read of a HelmRelease.

/// The HelmRelease `name` of the test namespace, as JSON (None when there is none).
pub(crate) async fn helm_release(ns: &TestNamespace, name: &str) -> Option<serde_json::Value> {
    let releases = flux_api(ns, "helm.toolkit.fluxcd.io", "v2", "HelmRelease");
    crate::support::get_json(&releases, name).await
}

/// When the object's `Ready` condition last turned (RFC 3339, second precision).
pub(crate) fn ready_since(o: &serde_json::Value) -> jiff::Timestamp {
    o["status"]["conditions"]
        .as_array()
        .and_then(|c| {
            c.iter()
                .find(|c| c["type"] == "Ready" && c["status"] == "True")
        })
        .and_then(|c| c["lastTransitionTime"].as_str())
        .unwrap_or_else(|| panic!("not Ready: {o}"))
        .parse()
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Compile and drive give the same releases; plan reads an installed flux package; `apply
// --force` takes the backend from its flags.

/// A two-component package (db ← api) whose charts print value `greeting` into a ConfigMap,
/// at package `version` with db's chart at `db_chart` and db's package value `db_greeting`.
fn greeting_package(dir: &Path, version: &str, db_chart: &str, db_greeting: &str) -> PathBuf {
    let pkg = dir.join(format!("pkg-{version}"));
    kubepkg_testkit::charts::package(
        &pkg,
        &format!(
            "package:\n  name: shop\n  version: {version}\n  rollback: {{safe: true}}\ncomponents:\n\
             \x20 - name: db\n    path: db\n    values: {{greeting: {db_greeting}}}\n\
             \x20 - name: api\n    path: api\n    install: {{dependsOn: [db]}}\n"
        ),
        &[],
        &[],
    );
    greeting_chart(&pkg.join("db"), "db", db_chart);
    greeting_chart(&pkg.join("api"), "api", "0.3.0");
    pkg
}

/// What the real `helm` says of release `name` in `ns`: its chart (`helm list`: name-version)
/// and its user-supplied values (`helm get values -o json`).
fn helm_release_facts(
    helm_bin: &Path,
    ns: &TestNamespace,
    name: &str,
) -> (String, serde_json::Value) {
    let listed = ok(helm_command(helm_bin, ns, &["list", "-o", "json"])
        .output()
        .unwrap());
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("helm lists {name} in {}: {listed}", ns.name()));
    assert_eq!(row["status"], "deployed", "{listed}");
    let values = ok(
        helm_command(helm_bin, ns, &["get", "values", name, "-o", "json"])
            .output()
            .unwrap(),
    );
    (
        row["chart"].as_str().unwrap().to_string(),
        serde_json::from_str(&values).unwrap(),
    )
}

/// `kubepkg render --backend flux --push-charts` applied with the real `kubectl apply` in one
/// namespace and `kubepkg apply --backend flux` of the same package (same `--set`) in another,
/// each with Flux's real controllers: both converge to the same Helm releases — the same chart
/// (name, version, templates and default values; each push packs the chart anew, so the
/// digests differ) and the same values, as the real `helm list` and `helm get values` report
/// them and as kubepkg's release storage reads them, and the values are the ones the package
/// and the flag give.
#[tokio::test]
async fn render_for_flux_applied_with_kubectl_makes_the_releases_apply_makes() {
    let gitops = TestNamespace::fresh("flux-same-render").await;
    let driven = TestNamespace::fresh("flux-same-apply").await;
    let flux_gitops = Flux::start(&gitops).await.expect("Flux's controllers");
    let flux_driven = Flux::start(&driven).await.expect("Flux's controllers");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let helm_bin = helm_binary("v4.3.1").expect("helm oracle");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = greeting_package(tmp.path(), "1.0.0", "1.2.0", "from-package");
    let set = ["--set", "api.greeting=from-set"];

    let rendered = render(Kind::Flux, &gitops, &reg, &pkg, tmp.path(), &set);
    kubectl_apply(&gitops, &tmp.path().join("shop-flux.yaml"), &rendered);

    let (code, lines, stderr) = finished(
        apply_command(
            Kind::Flux,
            &driven,
            Some(&reg),
            tmp.path(),
            &pkg,
            "2m",
            &set,
        )
        .output()
        .unwrap(),
    );
    assert_eq!(
        code,
        0,
        "{stderr}\n{lines:#?}\n{}",
        flux_driven.log_tails(40)
    );

    let releases = flux_api(&gitops, "helm.toolkit.fluxcd.io", "v2", "HelmRelease");
    for name in ["shop-db", "shop-api"] {
        wait_for(&releases, name, Duration::from_secs(180), name, ready)
            .await
            .unwrap_or_else(|e| panic!("{e}\n{}", flux_gitops.log_tails(40)));
    }
    let expected = [
        (
            "shop-db",
            "db-1.2.0",
            serde_json::json!({"greeting": "from-package"}),
        ),
        (
            "shop-api",
            "api-0.3.0",
            serde_json::json!({"greeting": "from-set"}),
        ),
    ];
    for (name, chart, values) in expected {
        let mut seen = Vec::new();
        for ns in [&gitops, &driven] {
            let (listed_chart, listed_values) = helm_release_facts(&helm_bin, ns, name);
            let hr = helm_release(ns, name).await.unwrap();
            let digest = hr["status"]["history"][0]["ociDigest"].clone();
            let hex = digest
                .as_str()
                .and_then(|d| d.strip_prefix("sha256:"))
                .unwrap();
            // helm-controller marks the version with the chart's digest.
            assert_eq!(
                listed_chart,
                format!("{chart}+{}", &hex[..12]),
                "{name} in {}",
                ns.name()
            );
            assert_eq!(listed_values, values, "{name} in {}", ns.name());
            let record = kubepkg_release::storage::Store::new(
                kubepkg_release::storage::SecretDriver::new(ns.client().clone(), Some(ns.name())),
            )
            .last(name)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{name}'s release record in {}", ns.name()));
            let meta = record
                .chart
                .as_ref()
                .and_then(|c| c.metadata.clone())
                .unwrap();
            assert_eq!(format!("{}-{}", meta.name, meta.version), listed_chart);
            assert_eq!(serde_json::Value::Object(record.config.clone()), values);
            let greeting = config_map_data(ns, &format!("{name}-greeting"))
                .await
                .get("greeting")
                .cloned();
            // The same chart: each push packs it anew (the archive's digest differs), so
            // what is compared is its name, version, templates and default values.
            let chart_files = record.chart.as_ref().map(|c| {
                (
                    serde_json::to_value(&c.templates).unwrap(),
                    serde_json::to_value(&c.values).unwrap(),
                )
            });
            seen.push((chart, chart_files, listed_values, greeting));
        }
        assert_eq!(
            seen[0], seen[1],
            "{name}: render + kubectl apply vs kubepkg apply"
        );
    }
    drop(flux_gitops);
    drop(flux_driven);
}

/// `kubepkg plan … --backend flux -o json`: the plan as JSON.
/// `kubepkg plan --backend flux --cluster -o json`, with `extra` flags.
fn flux_plan(
    ns: &TestNamespace,
    reg: &Registry,
    home: &Path,
    pkg: &Path,
    extra: &[&str],
) -> serde_json::Value {
    let out = crate::support::kubepkg(ns, &["plan", "shop"])
        .arg(pkg)
        .args(extra)
        .args([
            "--backend",
            "flux",
            "--chart-repository",
            &reg.oci("charts"),
        ])
        .args(["--plain-http", "--cluster", "-o", "json"])
        .env("HOME", home)
        .output()
        .unwrap();
    serde_json::from_str(&ok(out)).unwrap()
}

/// The `change` of each step of a plan: (component, change kind, charts).
fn step_changes(plan: &serde_json::Value) -> Vec<(String, String, String)> {
    plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let c = &s["change"];
            let charts = match c["kind"].as_str().unwrap() {
                "upgrade" => format!(
                    "{} -> {}",
                    c["fromChart"].as_str().unwrap(),
                    c["toChart"].as_str().unwrap()
                ),
                _ => c["chart"].as_str().unwrap().to_string(),
            };
            (
                s["name"].as_str().unwrap().to_string(),
                c["kind"].as_str().unwrap().to_string(),
                charts,
            )
        })
        .collect()
}

/// `kubepkg plan --backend flux --cluster` before an install, against the installed flux
/// package (helm-controller's records: chart version marked with the digest, objects carrying
/// its origin labels, its post-renderer's YAML), and of a second version: nothing to do for
/// the same package, and for the new one an upgrade of db's chart only, whose only object
/// change is db's ConfigMap, with db's source and HelmRelease changed and api's left alone.
#[tokio::test]
async fn plan_for_flux_compares_with_what_helm_controller_released() {
    let (ns, flux) = Backend::for_test(Kind::Flux, "plan").await;
    let reg = flux.reg();
    let tmp = tempfile::tempdir().unwrap();
    let v1 = greeting_package(tmp.path(), "1.0.0", "1.0.0", "one");
    let v2 = greeting_package(tmp.path(), "1.1.0", "1.1.0", "two");
    let objects = |changes: [&str; 4]| -> Vec<(String, String, String)> {
        [
            ("OCIRepository", "shop-db"),
            ("HelmRelease", "shop-db"),
            ("OCIRepository", "shop-api"),
            ("HelmRelease", "shop-api"),
        ]
        .iter()
        .zip(changes)
        .map(|((k, n), c)| (k.to_string(), n.to_string(), c.to_string()))
        .collect()
    };

    let before = flux_plan(&ns, reg, tmp.path(), &v1, &["--timeout", "3m"]);
    assert_eq!(before["action"], "install", "{before}");
    assert_eq!(backend_objects(&before), objects(["added"; 4]), "{before}");
    // Each step waits for its HelmRelease, then for the Helm release helm-controller made.
    let gates: Vec<(&str, &str)> = before["steps"][0]["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["kind"].as_str().unwrap(),
                g["name"]
                    .as_str()
                    .or(g["release"].as_str())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        gates,
        [("backend", "shop-db"), ("release", "shop-db")],
        "{before}"
    );
    assert_eq!(
        before["steps"][0]["gates"][0]["objectKind"], "HelmRelease",
        "{before}"
    );

    // Applied with --timeout 3m, which the HelmReleases carry: a plan with the same timeout
    // finds nothing to do, one with apply's default 10m would change both HelmReleases.
    let (code, lines, stderr) = finished(
        apply_command(Kind::Flux, &ns, Some(reg), tmp.path(), &v1, "3m", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", flux.log_tails());
    let db = helm_release(&ns, "shop-db").await.unwrap();
    assert!(
        db["status"]["history"][0]["chartVersion"]
            .as_str()
            .is_some_and(|v| v.starts_with("1.0.0+")),
        "helm-controller marked the version: {db}"
    );

    let other = flux_plan(&ns, reg, tmp.path(), &v1, &[]);
    assert_eq!(
        backend_objects(&other),
        objects(["unchanged", "changed", "unchanged", "changed"]),
        "the default --timeout (10m) differs from the applied 3m: {other}"
    );
    let again = flux_plan(&ns, reg, tmp.path(), &v1, &["--timeout", "3m"]);
    assert_eq!(again["action"], "noChange", "{again}");
    assert_eq!(
        step_changes(&again),
        [
            ("db".into(), "unchanged".into(), "db-1.0.0".into()),
            ("api".into(), "unchanged".into(), "api-0.3.0".into()),
        ],
        "{again}"
    );
    assert_eq!(
        backend_objects(&again),
        objects(["unchanged"; 4]),
        "{again}"
    );

    let next = flux_plan(&ns, reg, tmp.path(), &v2, &["--timeout", "3m"]);
    assert_eq!(next["action"], "upgrade", "{next}");
    assert_eq!(next["fromVersion"], "1.0.0", "{next}");
    assert_eq!(
        step_changes(&next),
        [
            ("db".into(), "upgrade".into(), "db-1.0.0 -> db-1.1.0".into()),
            ("api".into(), "unchanged".into(), "api-0.3.0".into()),
        ],
        "{next}"
    );
    let db_step = &next["steps"][0];
    let changed: Vec<(&str, &str)> = db_step["diff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["object"].as_str().unwrap(), d["change"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changed,
        [("ConfigMap shop-db-greeting", "changed")],
        "{db_step}"
    );
    let diff = db_step["diff"][0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("-  greeting: \"one\"") || diff.contains("-  greeting: one"),
        "{diff}"
    );
    assert!(!diff.contains("helm.toolkit.fluxcd.io"), "{diff}");
    assert_eq!(
        backend_objects(&next),
        objects(["changed", "changed", "unchanged", "unchanged"]),
        "{next}"
    );
    let db_release = next["backendObjects"][1]["yaml"].as_str().unwrap();
    assert!(db_release.contains("greeting: two"), "{db_release}");
    drop(flux);
}

/// `kubepkg apply --force` over a `backend: flux` Package object the controller installed:
/// the object is suspended and the CLI applies with the backend of its own flags — with
/// `--backend flux`, the new version goes to the HelmReleases and helm-controller makes the
/// release revision (no release of kubepkg's own beside it); without it (the helm backend), it
/// is refused in one line naming the HelmRelease and what to do, and nothing changes.
#[tokio::test]
async fn apply_force_over_a_flux_package_takes_the_backend_from_its_flags() {
    use crate::controller::{
        ControllerProcess, archive, create, install_crd, store_archive, wait_ready,
    };
    let (ns, flux) = Backend::for_test(Kind::Flux, "force").await;
    let reg = flux.reg();
    install_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    let v1 = greeting_package(tmp.path(), "1.0.0", "1.0.0", "one");
    store_archive(&ns, "shop-archive", archive(&v1)).await;
    let ctl = ControllerProcess::start(&ns, "10m", &[]);
    create(
        &ns,
        "shop",
        serde_json::json!({
            "source": {"configMapRef": {"name": "shop-archive"}},
            "backend": "flux",
            "flux": {"chartRepository": reg.oci("charts"), "insecure": true},
        }),
    )
    .await;
    wait_ready(&ns, &ctl, "shop", "True", "Succeeded").await;
    let store = kubepkg_release::storage::Store::new(kubepkg_release::storage::SecretDriver::new(
        ns.client().clone(),
        Some(ns.name()),
    ));
    let before = helm_release(&ns, "shop-db").await.unwrap();
    assert_eq!(before["status"]["history"][0]["version"], 1, "{before}");

    let v2 = greeting_package(tmp.path(), "1.1.0", "1.1.0", "two");
    let (code, lines, stderr) = finished(
        apply_command(
            Kind::Flux,
            &ns,
            Some(reg),
            tmp.path(),
            &v2,
            "2m",
            &["--force"],
        )
        .output()
        .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", flux.log_tails());
    let object = crate::controller::get(&ns, "shop").await.unwrap();
    assert_eq!(object["spec"]["suspend"], true, "{object}");
    let db = helm_release(&ns, "shop-db").await.unwrap();
    assert_eq!(db["spec"]["values"]["greeting"], "two", "{db}");
    let latest = &db["status"]["history"][0];
    // helm-controller upgraded once: a change of chart and values is one Helm revision (the
    // HelmRelease is held while its source moves, so the new chart never ran with the old
    // values).
    let upgraded = latest["version"].as_u64().unwrap();
    assert_eq!(upgraded, 2, "one upgrade, one Helm revision: {db}");
    let records = store.history("shop-db").await.unwrap();
    assert_eq!(
        records.iter().map(|r| r.version).collect::<Vec<_>>(),
        [1, 2],
        "no intermediate Helm revision"
    );
    assert!(
        latest["chartVersion"]
            .as_str()
            .unwrap()
            .starts_with("1.1.0+"),
        "{db}"
    );
    // The newest Helm release record is the one helm-controller made.
    let record = store.last("shop-db").await.unwrap().unwrap();
    assert_eq!(record.version, upgraded);
    assert_eq!(
        record.config.get("greeting"),
        Some(&serde_json::json!("two"))
    );
    assert_eq!(
        record
            .chart
            .as_ref()
            .and_then(|c| c.metadata.as_ref())
            .map(|m| m.version.clone()),
        latest["chartVersion"].as_str().map(str::to_string)
    );
    let (_, status, _) = crate::support::run(&ns, &["status", "shop", "-o", "json"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["revision"]["version"], "1.1.0", "{status}");

    // The helm backend (no --backend) over Flux's releases: refused, nothing applied.
    let v3 = greeting_package(tmp.path(), "1.2.0", "1.1.0", "three");
    let out = crate::support::kubepkg(&ns, &["apply", "shop"])
        .arg(&v3)
        .args(["--force", "--timeout", "1m"])
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(&format!("HelmRelease {}/shop-db", ns.name()))
            && stderr.contains("--backend flux")
            && stderr.contains("nothing was applied"),
        "{stderr}"
    );
    let db = helm_release(&ns, "shop-db").await.unwrap();
    assert_eq!(db["spec"]["values"]["greeting"], "two", "unchanged: {db}");
    assert_eq!(
        store.last("shop-db").await.unwrap().unwrap().version,
        upgraded
    );
    let (_, history, _) = crate::support::run(&ns, &["history", "shop", "-o", "json"]);
    let history: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert_eq!(
        history.as_array().unwrap().len(),
        2,
        "no revision recorded: {history}"
    );
    // The suspended object's finalizer would keep the namespace from being deleted.
    kubepkg_testkit::package_api(&ns)
        .patch(
            "shop",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("the Package's finalizer removed");
    drop(ctl);
    drop(flux);
}

/// A component's kubepkg.yaml `postRenderers` reach Flux's real helm-controller as its
/// HelmRelease's own, and the objects it installs carry the patch, as kubepkg's own render
/// makes them (`kubepkg plan` shows the same patched ConfigMap); a `--post-renderer` plugin is
/// refused with `--backend flux` before anything is pushed.
#[tokio::test]
async fn post_renderers_reach_flux_and_patch_what_helm_controller_installs() {
    let ns = TestNamespace::fresh("flux-post").await;
    let flux = Flux::start(&ns).await.expect("Flux's controllers");
    let reg = Registry::start(RegistryOptions::plain()).expect("test registry");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    kubepkg_testkit::charts::package(
        &pkg,
        "package: {name: shop, version: 1.0.0}\ncomponents:\n  - name: db\n    path: db\n    postRenderers:\n      - kustomize:\n          patches:\n            - target: {kind: ConfigMap}\n              patch: |\n                - {op: add, path: /data/patched, value: \"yes\"}\n",
        &[],
        &[],
    );
    greeting_chart(&pkg.join("db"), "db", "1.0.0");
    let planned = ok(crate::support::kubepkg(&ns, &["plan", "shop"])
        .arg(&pkg)
        .env("HOME", tmp.path())
        .output()
        .unwrap());
    assert!(planned.contains("+  patched: \"yes\""), "{planned}");
    let (code, lines, stderr) = finished(
        apply_command(Kind::Flux, &ns, Some(&reg), tmp.path(), &pkg, "2m", &[])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", flux.log_tails(40));
    let hr = helm_release(&ns, "shop-db").await.unwrap();
    assert_eq!(
        hr["spec"]["postRenderers"][0]["kustomize"]["patches"][0]["target"]["kind"], "ConfigMap",
        "{hr:#}"
    );
    let cm = config_map_data(&ns, "shop-db-greeting").await;
    assert_eq!(cm.get("patched").map(String::as_str), Some("yes"), "{cm:?}");
    // A plugin cannot run in helm-controller: refused before anything is pushed or applied.
    kubepkg_testkit::tree::write_files(
        tmp.path(),
        &[(
            "plugins/cat/plugin.yaml",
            "apiVersion: v1\nname: cat\nversion: 1.0.0\ntype: postrenderer/v1\nruntime: subprocess\nruntimeConfig:\n  platformCommand:\n  - command: cat\n",
        )],
    );
    let out = apply_command(Kind::Flux, &ns, Some(&reg), tmp.path(), &pkg, "2m", &[])
        .args(["--post-renderer", "cat"])
        .env("HELM_PLUGINS", tmp.path().join("plugins"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("post-rendered by plugin cat, which Flux's helm-controller cannot run"),
        "{err}"
    );
    drop(flux);
}
