//! Each backend driven by kubepkg (`kubepkg apply --backend …`, and the controller): the same
//! rules over the objects each one releases (HelmReleases that helm-controller installs,
//! Applications that Argo CD's application controller syncs when kubepkg sets their operation,
//! and, for the native backend `helm`, kubepkg's own Helm releases). Each scenario runs once per
//! backend ([`backend_scenarios!`](crate::backend_scenarios)); what only one backend has is said
//! where it is checked.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use kubepkg_testkit::charts::package;
use kubepkg_testkit::registry::{Registry, RegistryOptions};
use serde_json::Value;

use super::{
    Backend, Kind, api_server_without_crds, apply_command, component, config_value, finished,
    gated_package, greeting_chart, history_rows, install_widget_crd, open_gate, widgets,
};
use crate::controller::{
    ControllerProcess, archive, create, install_crd, store_archive, wait_ready,
};
use crate::controller_chart::{
    CRDS, Scope, delete_shop_as_service_account, deployment_ready, install_for_backend,
    shop_package, shop_ready_as_service_account,
};

/// A three-component package (db ← api ← web; api gated by `readyWhen` on its Widget) applied
/// with the backend: kubepkg creates each component's object only once the backend is done with
/// the one before it (its creation after the previous one's Ready transition, after its sync
/// operation finished, or after its release record was written `deployed`), web's not at all while api's Widget is not Ready (Flux holds api back by
/// its health check expression; Argo CD calls api Healthy regardless, so kubepkg's `readyWhen`
/// does, as it does for its own releases), and records each component's revision as the
/// backend made it (helm-controller's release revision; the Application's sync history entry,
/// id + 1; kubepkg's release revision); its progress says what the backend reports.
pub(crate) async fn apply_creates_each_component_after_the_previous_is_ready(kind: Kind) {
    let (ns, b) = Backend::for_test(kind, "drive").await;
    install_widget_crd(&ns, kind).await;
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    gated_package(&pkg, kind);
    let child = apply_command(
        kind,
        &ns,
        b.reg.as_ref(),
        tmp.path(),
        &pkg,
        "3m",
        &["--set", "api.size=3"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();

    // api is released (the backend made its Widget) but its gate does not hold: web's object
    // does not exist yet.
    let widget = kubepkg_testkit::wait_for(
        &widgets(&ns, kind),
        "api-widget",
        Duration::from_secs(240),
        "api's Widget",
        |_| true,
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", b.log_tails()));
    assert_eq!(
        widget.data["spec"]["size"], 3,
        "--set api.size reached the chart"
    );
    if kind.checks_ready_when() {
        // Argo CD ends api's sync and calls it Healthy, kubepkg's release of api is deployed:
        // only the readyWhen holds web back.
        super::until(Duration::from_secs(120), "api not done", async || {
            let api = b.object(&ns, "shop-api").await.unwrap();
            (b.done(&api), api)
        })
        .await;
        tokio::time::sleep(Duration::from_secs(3)).await;
    } else {
        // helm-controller released db before api's HelmRelease was made.
        assert!(b.healthy(&b.object(&ns, "shop-db").await.unwrap()));
    }
    assert!(
        b.object(&ns, "shop-web").await.is_none(),
        "web created before api's readyWhen held"
    );
    let gate_opened = jiff::Timestamp::now();
    open_gate(&ns, kind).await;
    let (code, lines, stderr) = finished(
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", b.log_tails());

    let db = b.object(&ns, "shop-db").await.unwrap();
    let api = b.object(&ns, "shop-api").await.unwrap();
    let web = b.object(&ns, "shop-web").await.unwrap();
    for o in [&db, &api, &web] {
        b.assert_converged(o, "1.0.0");
    }
    assert!(
        b.created(&api) >= b.done_at(&db),
        "api {} before the backend was done with db {}",
        b.created(&api),
        b.done_at(&db)
    );
    assert!(
        b.created(&web) >= b.done_at(&api),
        "web {} before the backend was done with api {}",
        b.created(&web),
        b.done_at(&api)
    );
    assert!(
        b.created(&web).as_second() >= gate_opened.as_second(),
        "web ({}) created only after the Widget was Ready ({gate_opened})",
        b.created(&web)
    );
    match kind {
        // The objects are the compiled ones: the chain, the gate as CEL, kubepkg's own rollback,
        // the source pinned to the pushed digest, which Flux released.
        Kind::Flux => {
            assert_eq!(web["spec"]["dependsOn"][0]["name"], "shop-api");
            assert!(
                api["spec"]["healthCheckExprs"][0]["current"]
                    .as_str()
                    .unwrap()
                    .contains("api-widget")
            );
            assert_eq!(api["spec"]["upgrade"]["remediation"]["retries"], 0);
            let source = crate::flux::oci_repository_object(&ns, "shop-api").await;
            assert_eq!(
                source.data["spec"]["ref"]["digest"], api["status"]["history"][0]["ociDigest"],
                "the source pins the pushed digest, and Flux released it"
            );
        }
        // No automated sync; the sync operations are kubepkg's, with prune (Helm's upgrade
        // deletes what a chart no longer renders).
        Kind::ArgoCd => {
            for app in [&db, &api, &web] {
                assert!(
                    app["spec"]
                        .get("syncPolicy")
                        .is_none_or(|p| p.get("automated").is_none()),
                    "no automated sync: {app:#}"
                );
            }
            assert_eq!(
                db["status"]["operationState"]["operation"],
                kubepkg_gitops::argocd::sync::sync_operation(
                    db["spec"]["source"]["targetRevision"].as_str().unwrap(),
                    true
                )
            );
        }
        // The releases are Helm's own: the real `helm` reads each as one deployed revision of
        // its chart.
        Kind::Helm => {
            for name in ["db", "api", "web"] {
                assert_eq!(
                    super::helm_history(&ns, &format!("shop-{name}")),
                    [(
                        1,
                        "deployed".into(),
                        format!("{name}-1.0.0"),
                        "Install complete".into()
                    )]
                );
            }
        }
    }

    // The package revision records the revisions the backend made; each component is ready.
    let (code, status, err) = crate::support::run(&ns, &["status", "shop", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&status).unwrap();
    for (name, o) in [("db", &db), ("api", &api), ("web", &web)] {
        let recorded = component(&status["revision"]["components"], name);
        assert_eq!(recorded["revision"], b.revision(o), "{status}");
        assert_eq!(
            component(&status["components"], name)["ready"],
            true,
            "{status}"
        );
    }
    assert_eq!(status["revision"]["status"], "deployed", "{status}");
    // While api waited, the progress said what a GitOps backend reported about its object, and,
    // where kubepkg checks the readyWhen itself, what it waited for (the Widget; the native
    // backend's own objects of api may be ready before kubepkg first looks).
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    if kind.gitops() {
        assert!(
            text.iter()
                .any(|l| l.contains(kind.reported_kind()) && l.contains("shop-api")),
            "{text:#?}"
        );
    }
    if kind.checks_ready_when() {
        assert!(text.iter().any(|l| l.contains("api-widget")), "{text:#?}");
    }
}

/// An upgrade with a `PreUpgrade` hook: the hook runs first as a backend object of its own (its
/// chart sees `kubepkg.fromVersion`/`toVersion`) and is deleted after the upgrade succeeded,
/// with its Job; then a failing version with `rollback.safe: false` ends `UpgradeFailed` (exit
/// 4) with the backend's words naming its object, and nothing is reverted: the object keeps the
/// failing values; the native backend records the release revision `failed`, as `helm upgrade
/// --wait` does, and `status` calls db not ready for every backend.
pub(crate) async fn upgrade_runs_its_hook_first_and_a_failing_unsafe_version_is_not_reverted(
    kind: Kind,
) {
    let (ns, b) = Backend::for_test(kind, "hook").await;
    let tmp = tempfile::tempdir().unwrap();
    let write = |version: &str, db_values: &str| {
        let pkg = tmp.path().join(format!("pkg-{version}"));
        package(
            &pkg,
            &format!(
                "package:\n  name: shop\n  version: {version}\n  rollback: {{safe: false}}\ncomponents:\n\
                 \x20 - name: db\n    path: db\n    values: {db_values}\n\
                 \x20 - name: migrate\n    path: migrate\n    install: {{phase: PreUpgrade}}\n"
            ),
            &["db"],
            &["migrate"],
        );
        // db's values reach its objects: with the same objects and chart, the native backend
        // leaves a component as it is (rules.md, apply step 7), the GitOps ones do not.
        greeting_chart(&pkg.join("db"), "db", "1.0.0");
        pkg
    };
    let v1 = write("1.0.0", "{greeting: one}");
    let (code, lines, stderr) = b.apply_finished(&ns, tmp.path(), &v1, "2m", &[]);
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", b.log_tails());
    assert!(
        b.object(&ns, "shop-migrate").await.is_none(),
        "no hook on a first install"
    );

    let v2 = write("1.1.0", "{greeting: two}");
    let (code, lines, stderr) = b.apply_finished(&ns, tmp.path(), &v2, "2m", &[]);
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", b.log_tails());
    // The hook's ConfigMap (helm.sh/resource-policy: keep, which helm-controller's uninstall and
    // Argo CD's deletion of an Application's objects honour) says what the hook's chart saw.
    let from = config_value(&ns, "migrated-1-1-0", "from").await;
    let to = config_value(&ns, "migrated-1-1-0", "to").await;
    assert_eq!(from.as_deref(), Some("1.0.0"));
    assert_eq!(to.as_deref(), Some("1.1.0"));
    assert!(
        b.object(&ns, "shop-migrate").await.is_none(),
        "the hook's {} is deleted after the upgrade",
        kind.object_kind()
    );
    assert!(
        ns.api::<Job>()
            .get_opt("migrate-1-1-0")
            .await
            .unwrap()
            .is_none(),
        "the backend deleted the hook's Job with its {}",
        kind.object_kind()
    );
    // The hook ran before the component changed.
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
    let db = b.object(&ns, "shop-db").await.unwrap();
    assert_eq!(b.values(&db)["greeting"], "two");
    assert_eq!(
        config_value(&ns, "shop-db-greeting", "greeting")
            .await
            .as_deref(),
        Some("two")
    );
    b.assert_converged(&db, "1.0.0");
    let deployed = b.revision(&db);

    // 1.2.0 fails (its pod never runs) and may not be rolled back.
    let v3 = write("1.2.0", "{greeting: three, sim: fail}");
    let (code, lines, stderr) = b.apply_finished(&ns, tmp.path(), &v3, "20s", &[]);
    assert_eq!(code, 4, "UpgradeFailed: {stderr}\n{lines:#?}");
    let summary = lines.last().unwrap().to_string();
    assert!(
        summary.contains(kind.reported_kind()) && summary.contains("shop-db"),
        "the backend's words, naming its object: {summary}"
    );
    assert!(summary.contains("rollback.safe: false"), "{summary}");
    let db = b.object(&ns, "shop-db").await.unwrap();
    assert_eq!(b.values(&db)["sim"], "fail", "not reverted: {db:#}");
    assert_eq!(b.values(&db)["greeting"], "three", "not reverted: {db:#}");
    assert_ne!(b.revision(&db), deployed, "the backend tried the upgrade");
    assert!(!b.healthy(&db), "{db:#}");
    if kind == Kind::Helm {
        // As `helm upgrade --wait` leaves it, read by the real `helm`: the upgrade that did
        // not become ready failed, the revision before it deployed again.
        assert_failed_upgrade(&super::helm_history(&ns, "shop-db"), "shop-db");
    }
    let (code, status, err) = crate::support::run(&ns, &["status", "shop", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(
        component(&status["components"], "db")["ready"],
        false,
        "kubepkg calls db not ready: {status}"
    );
    let (_, history) = history_rows(&ns);
    let last = history.as_array().unwrap().last().unwrap();
    assert_eq!(last["status"], "failed", "{history}");
    assert_eq!(last["reason"], "UpgradeFailed", "{history}");
}

/// A failing version with `rollback.safe: true`: every object the upgrade changed is put back on
/// its previous chart (version, and with Flux its digest) and values, newest first, and the
/// backend converges on them (exit 3, `RolledBack`): the chart's ConfigMap holds the old value
/// again. With Argo CD, `kubepkg rollback shop 1` then syncs the first revision's source again.
pub(crate) async fn a_failing_safe_version_puts_each_changed_component_back(kind: Kind) {
    let (ns, b) = Backend::for_test(kind, "rollback").await;
    let tmp = tempfile::tempdir().unwrap();
    let write = |version: &str, db_chart: &str, db_values: &str, api_values: &str| {
        let pkg = tmp.path().join(format!("pkg-{version}"));
        package(
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
    let (code, lines, stderr) = b.apply_finished(&ns, tmp.path(), &v1, "2m", &[]);
    assert_eq!(code, 0, "{stderr}\n{lines:#?}\n{}", b.log_tails());
    let before = b.object(&ns, "shop-db").await.unwrap();
    let api_before = b.object(&ns, "shop-api").await.unwrap();
    let digest_before = before["status"]["history"][0]["ociDigest"].clone();
    if kind == Kind::Flux {
        assert!(digest_before.is_string(), "{before}");
    }

    // 2.0.0: db moves to chart 1.1.0 with another value (fine), api fails.
    let v2 = write("2.0.0", "1.1.0", "{greeting: two}", "{sim: fail}");
    let (code, lines, stderr) = b.apply_finished(&ns, tmp.path(), &v2, "20s", &[]);
    if code != 3 {
        let api = b.object(&ns, "shop-api").await;
        let deploy = ns.api::<Deployment>().get("shop-api").await.ok();
        panic!(
            "RolledBack expected, got {code}: {stderr}\n{lines:#?}\napi's spec: {}\nDeployment: {:?}\n{}",
            api.map(|a| a["spec"].clone()).unwrap_or_default(),
            deploy.map(|d| serde_json::to_value(d).unwrap_or_default()["status"].clone()),
            b.log_tails()
        );
    }
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("rolled back") || l.contains("rolledBack")),
        "{text:#?}"
    );

    let db = b.object(&ns, "shop-db").await.unwrap();
    b.assert_converged(&db, "1.0.0");
    assert_eq!(b.values(&db)["greeting"], "one", "db's values back");
    match kind {
        Kind::Flux => {
            let latest = &db["status"]["history"][0];
            assert_eq!(latest["ociDigest"], digest_before, "db's chart back: {db}");
            // What the source pulled is the earlier chart (pinned by digest when the
            // HelmRelease's history still holds it, else by its version's tag, which kubepkg
            // pushed).
            let source = crate::flux::oci_repository_object(&ns, "shop-db").await;
            assert!(
                source.data["status"]["artifact"]["revision"]
                    .as_str()
                    .is_some_and(|r| r.ends_with(digest_before.as_str().unwrap())),
                "{:?}",
                source.data
            );
        }
        Kind::ArgoCd => {
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
                        crate::argocd::chart_at(
                            b.reg(),
                            e["revision"].as_str().unwrap_or_default(),
                        )
                        .1,
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
        }
        // kubepkg rolled db back as Helm does: a third revision of the first one's chart and
        // values, as the real `helm` reads the records.
        Kind::Helm => assert_eq!(
            super::helm_history(&ns, "shop-db"),
            [
                (
                    1,
                    "superseded".into(),
                    "db-1.0.0".into(),
                    "Install complete".into()
                ),
                (
                    2,
                    "superseded".into(),
                    "db-1.1.0".into(),
                    "Upgrade complete".into()
                ),
                (
                    3,
                    "deployed".into(),
                    "db-1.0.0".into(),
                    "Rollback to 1".into()
                ),
            ],
        ),
    }
    assert_eq!(
        config_value(&ns, "shop-db-greeting", "greeting")
            .await
            .as_deref(),
        Some("one")
    );
    let api = b.object(&ns, "shop-api").await.unwrap();
    b.assert_converged(&api, "1.0.0");
    if kind == Kind::Helm {
        // api's upgrade failed as `helm upgrade --wait --atomic` records it: failed, then a
        // rollback that superseded the first revision.
        let history = super::helm_history(&ns, "shop-api");
        let rows: Vec<(u64, &str)> = history.iter().map(|r| (r.0, r.1.as_str())).collect();
        assert_eq!(
            rows,
            [(1, "superseded"), (2, "failed"), (3, "deployed")],
            "{history:?}"
        );
        assert!(
            history[1].3.starts_with("Upgrade \"shop-api\" failed: "),
            "{history:?}"
        );
        assert_eq!(history[2].3, "Rollback to 1", "{history:?}");
    }
    assert!(
        b.values(&api).get("sim").is_none(),
        "api's values back: {api}"
    );
    if kind == Kind::ArgoCd {
        assert_eq!(
            api["spec"]["source"], api_before["spec"]["source"],
            "{api:#}"
        );
    }
    let (rows, history) = history_rows(&ns);
    assert_eq!(
        rows,
        [
            ("superseded".into(), "Succeeded".into()),
            ("failed".into(), "RolledBack".into()),
            ("deployed".into(), "RolledBack".into()),
        ],
        "{history}"
    );
    if kind == Kind::ArgoCd {
        crate::argocd::rollback_to_the_first_revision_syncs_its_source_again(&ns, &b, &db, &before)
            .await;
    }
}

/// A `Package` with the backend reconciled by the kubepkg controller: its components become
/// backend objects one after the other, the Package ends Ready with the revisions the backend
/// made, and deleting it deletes the objects (helm-controller uninstalls the releases, Argo CD
/// deletes what it applied, kubepkg uninstalls its own releases).
pub(crate) async fn the_controller_drives_a_package_to_ready_and_removes_it_on_delete(kind: Kind) {
    let (ns, b) = Backend::for_test(kind, "ctl").await;
    install_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    shop_package(&pkg);
    store_archive(&ns, "shop-archive", archive(&pkg)).await;
    let ctl = ControllerProcess::start(&ns, "10m", &[]);
    let mut spec = serde_json::json!({"source": {"configMapRef": {"name": "shop-archive"}}});
    spec.as_object_mut()
        .unwrap()
        .extend(b.package_spec().as_object().unwrap().clone());
    create(&ns, "shop", spec).await;
    let o = wait_ready(&ns, &ctl, "shop", "True", "Succeeded").await;
    let db = b.object(&ns, "shop-db").await.expect("db's object");
    let api = b.object(&ns, "shop-api").await.expect("api's object");
    assert!(
        b.created(&api) >= b.done_at(&db),
        "api {} before the backend was done with db {}",
        b.created(&api),
        b.done_at(&db)
    );
    for (name, o_) in [("db", &db), ("api", &api)] {
        b.assert_converged(o_, "1.0.0");
        let c = component(&o["status"]["components"], name);
        assert_eq!(c["revision"], b.revision(o_), "{o}");
    }
    let deployments = ns.api::<Deployment>();
    assert!(
        deployments.get_opt("shop-api").await.unwrap().is_some(),
        "the backend deployed api"
    );

    kubepkg_testkit::package_api(&ns)
        .delete("shop", &kube::api::DeleteParams::default())
        .await
        .expect("Package deleted");
    super::until(
        Duration::from_secs(120),
        "objects not deleted",
        async || {
            let left = (
                b.object(&ns, "shop-db").await.is_some(),
                b.object(&ns, "shop-api").await.is_some(),
            );
            (left == (false, false), (left, ctl.log(), b.log_tails()))
        },
    )
    .await;
    assert!(
        deployments.get_opt("shop-api").await.unwrap().is_none(),
        "the backend deleted api's Deployment with its {}",
        kind.object_kind()
    );
}

/// A cluster without the backend's CRDs: `apply --backend …` refuses in one line naming the CRD
/// and what to install, before any chart is pushed (the real registry saw no request) or anything
/// applied (the API server saw only reads). Flux also refuses a `readyWhen` it cannot evaluate
/// (naming the component and the object); Argo CD's flags are refused with another backend.
pub(crate) fn refuses_a_cluster_without_the_backend_before_pushing_anything(kind: Kind) {
    let (url, seen) = api_server_without_crds();
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
    let apply = |pkg: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["apply", "shop"])
            .arg(pkg)
            .args([
                "--backend",
                kind.name(),
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
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let pkg = tmp.path().join("pkg");
    package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n",
        &["db"],
        &[],
    );
    let requests_before = reg.requests_matching("/v2/");
    let (code, stderr) = apply(&pkg);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    let said: &[&str] = match kind {
        Kind::Flux => &[
            "helmreleases.helm.toolkit.fluxcd.io is not installed",
            "install Flux's source-controller and helm-controller",
            "nothing was applied",
        ],
        Kind::ArgoCd => &[
            "applications.argoproj.io is not installed",
            "install Argo CD or use --backend helm",
            "nothing was pushed or applied",
        ],
        Kind::Helm => unreachable!("not a scenario of the native backend (backend_scenarios!)"),
    };
    assert!(said.iter().all(|s| stderr.contains(s)), "{stderr}");
    assert_eq!(
        reg.requests_matching("/v2/"),
        requests_before,
        "no chart pushed"
    );

    match kind {
        Kind::Flux => {
            let gated = tmp.path().join("gated");
            package(
                &gated,
                "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n    install:\n      readyWhen:\n        - {apiVersion: v1, kind: ConfigMap, name: flag, namespace: elsewhere, condition: Ready}\n",
                &["db"],
                &[],
            );
            let (code, stderr) = apply(&gated);
            assert_eq!(code, Some(1), "{stderr}");
            assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
            assert!(
                stderr.contains(
                    "component db: readyWhen ConfigMap elsewhere/flag is outside the release's namespace"
                ) && stderr.contains("nothing was applied"),
                "{stderr}"
            );
        }
        Kind::ArgoCd => {
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
                stderr.contains(
                    "--argocd-namespace argocd: only --backend argocd makes Applications"
                ),
                "{stderr}"
            );
        }
        Kind::Helm => unreachable!("not a scenario of the native backend (backend_scenarios!)"),
    }
    let requests = seen.lock().unwrap().clone();
    assert!(!requests.is_empty(), "kubepkg asked the server");
    assert!(
        requests.iter().all(|r| r.starts_with("GET ")),
        "only reads before the refusal: {requests:#?}"
    );
}

/// The controller chart's RBAC for the backend under a real ServiceAccount (the chart installed,
/// its package-contents role reading Deployments only): the account may do what the backend
/// calls on its objects and read its CRDs, and nothing more of the backend or of the contents;
/// the real `kubepkg controller` authenticated with a token of it reconciles a Package of the
/// backend to Ready with the backend's real controllers (so the rules are enough), never
/// refused, and deleting the Package removes the backend's objects.
pub(crate) async fn the_controllers_service_account_is_enough_for_a_package_and_no_more(
    kind: Kind,
) {
    let (ns, b) = Backend::for_test(kind, "rbac").await;
    let here = Scope::Namespace(ns.name());
    let crd_get = (("get", CRDS, None), Scope::AllNamespaces);
    // (CRDs are listed and watched, metadata only, for `.Capabilities`: README.md#rbac.)
    let contents_refused = [
        ("create", CRDS, None),
        ("create", "deployments.apps", None),
        ("patch", "deployments.apps", None),
        ("create", "configmaps", None),
    ];
    let (mut may, mut may_not) = (Vec::new(), Vec::new());
    match kind {
        Kind::Flux => {
            for verb in ["get", "list", "watch", "create", "patch", "delete"] {
                for resource in [
                    "helmreleases.helm.toolkit.fluxcd.io",
                    "ocirepositories.source.toolkit.fluxcd.io",
                ] {
                    may.push(((verb, resource, None), here));
                }
            }
            may_not.extend([
                ("update", "helmreleases.helm.toolkit.fluxcd.io", None),
                (
                    "patch",
                    "helmreleases.helm.toolkit.fluxcd.io",
                    Some("status"),
                ),
                ("update", "ocirepositories.source.toolkit.fluxcd.io", None),
                ("create", "helmrepositories.source.toolkit.fluxcd.io", None),
                ("create", "helmcharts.source.toolkit.fluxcd.io", None),
                ("create", "gitrepositories.source.toolkit.fluxcd.io", None),
            ]);
        }
        Kind::ArgoCd => {
            for verb in [
                "get", "list", "watch", "create", "patch", "update", "delete",
            ] {
                may.push(((verb, "applications.argoproj.io", None), here));
            }
            // A bare verb finds a component's Application in any namespace.
            may.push((
                ("list", "applications.argoproj.io", None),
                Scope::AllNamespaces,
            ));
            may_not.extend([
                ("create", "applicationsets.argoproj.io", None),
                ("create", "appprojects.argoproj.io", None),
                ("patch", "appprojects.argoproj.io", None),
            ]);
        }
        Kind::Helm => unreachable!("not a scenario of the native backend (backend_scenarios!)"),
    }
    may.push(crd_get);
    may_not.extend(contents_refused);
    let installed = install_for_backend(&ns, &may, &may_not);
    let tmp = tempfile::tempdir().unwrap();
    let tails = || b.log_tails();
    let (ctl, object) =
        shop_ready_as_service_account(&ns, &installed, tmp.path(), b.package_spec(), &tails).await;
    for (name, release) in [("db", "shop-db"), ("api", "shop-api")] {
        let o = b.object(&ns, release).await.expect("the backend's object");
        b.assert_converged(&o, "1.0.0");
        let c = component(&object["status"]["components"], name);
        assert_eq!(c["revision"], b.revision(&o), "{object}");
    }
    deployment_ready(&ns, "shop-db", 1).await;

    delete_shop_as_service_account(&ns, &ctl, &tails).await;
    for release in ["shop-db", "shop-api"] {
        assert!(
            b.object(&ns, release).await.is_none(),
            "{release}'s {} left after the uninstall",
            kind.object_kind()
        );
    }
    drop(ctl);
    drop(installed);
}

/// `helm history` of a release whose last revision, an upgrade, did not become ready: that one
/// failed as Helm words it, the one before it deployed, the earlier ones superseded.
#[track_caller]
fn assert_failed_upgrade(history: &[(u64, String, String, String)], release: &str) {
    let statuses: Vec<&str> = history.iter().map(|r| r.1.as_str()).collect();
    let mut expected = vec!["superseded"; history.len().saturating_sub(2)];
    expected.extend(["deployed", "failed"]);
    assert_eq!(statuses, expected, "{history:?}");
    let failed = format!("Upgrade {release:?} failed: ");
    assert!(
        history[history.len() - 1].3.starts_with(&failed),
        "{history:?}"
    );
}
