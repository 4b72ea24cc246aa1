//! Remote clusters (docs/controller.md#remote-clusters): the real `kubepkg controller` on the
//! local control plane applies a Package whose `spec.kubeConfig` names a Secret with a second
//! local control plane's kubeconfig. Its components, their releases, its revision records and
//! Leases live in the target, made there as the Package's ServiceAccount (impersonated by the
//! kubeconfig's user); the Package and its status stay home. It installs, upgrades
//! (the hook sees the versions), fails and rolls back there; the CLI pointed at the target
//! reads the same revisions; an outage of the target's API server during an upgrade is a
//! retried `TargetUnreachable`, and once it answers again the upgrade finishes with no pending
//! revision and no Lease left.

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ListParams};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::relay::Relay;
use serde_json::{Value, json};

use crate::controller::{
    ControllerProcess, condition, create, get, install_crd, patch_spec, ready_at, release_count,
    source, store_versions, wait_ready,
};
use crate::support::{run, run_ok};

/// Waits until the Package's Ready condition has `reason` (any generation). An outage is
/// noticed after the client's retries of a request (about 20 s) and 20 s of a wait's watches
/// refused, or at the latest when the component's wait (60 s) ends and its rollback meets the
/// outage, so this allows five minutes.
async fn wait_reason(home: &TestNamespace, ctl: &ControllerProcess, reason: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if let Some(o) = get(home, "shop").await
            && condition(&o, "Ready").is_some_and(|c| c.1 == reason)
        {
            return o;
        }
        assert!(
            Instant::now() < deadline,
            "Ready never had reason {reason}: {:?}\ncontroller log:\n{}",
            get(home, "shop").await.map(|o| o["status"].clone()),
            ctl.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_package_is_applied_in_its_target_cluster_and_outlives_an_outage_there() {
    let home = TestNamespace::fresh("remote").await;
    install_crd(&home).await;
    let plane = kubepkg_testkit::target_plane().expect("the second control plane");
    let there = TestNamespace::named_in(plane.clone(), home.name())
        .await
        .expect("the target's namespace");
    // The components are applied as this ServiceAccount of the target (impersonated there).
    crate::tenancy::tenant_service_account(&there, "deployer").await;
    let relay = Relay::start(&plane).await.expect("relay to the target");
    crate::support::create_secret(
        &home,
        json!({
            "metadata": {"name": "target-kubeconfig"},
            "stringData": {"value": relay.kubeconfig_text()},
        }),
    )
    .await;
    let ctl = ControllerProcess::start(&home, "5s", &[]);
    let tmp = tempfile::tempdir().unwrap();
    // Every version safe to roll back.
    let versions = ["1.0.0", "2.0.0", "2.0.1", "2.1.0"].map(|v| (v, true));
    store_versions(&home, tmp.path(), &versions).await;

    // Install: the components and every record are in the target, the status at home.
    create(
        &home,
        "shop",
        json!({"source": source("1.0.0"), "serviceAccountName": "deployer",
               "kubeConfig": {"secretRef": {"name": "target-kubeconfig"}}}),
    )
    .await;
    let o = wait_ready(&home, &ctl, "shop", "True", "Succeeded").await;
    assert_eq!(
        o.pointer("/status/target/server"),
        Some(&json!(relay.server()))
    );
    assert_eq!(
        o.pointer("/status/target/kubeConfig"),
        Some(&json!(format!("{}/target-kubeconfig", home.name())))
    );
    // The CLI pointed at the managing cluster says where the package is.
    let (code, _, err) = run(&home, &["status", "shop"]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("another cluster") && err.contains(&relay.server()),
        "status does not name the target: {err}"
    );
    let deployments: Api<Deployment> = there.api();
    assert!(deployments.get_opt("shop-app").await.unwrap().is_some());
    let home_deployments: Api<Deployment> = home.api();
    assert!(
        home_deployments
            .get_opt("shop-app")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(release_count(&there, "shop-app").await, 1);
    assert_eq!(release_count(&home, "shop-app").await, 0);

    // Upgrade with its hook, in the target.
    patch_spec(&home, "shop", json!({"source": source("2.0.0")})).await;
    wait_ready(&home, &ctl, "shop", "True", "Succeeded").await;
    crate::controller::assert_migrated(&there, "1.0.0", "2.0.0").await;

    // A failing safe version is rolled back there.
    let o = crate::controller::upgrade_to_unready_2_0_1(&home, &ctl).await;
    assert_eq!(o.pointer("/status/version"), Some(&json!("2.0.0")));

    // The CLI pointed at the target (its own kubeconfig) reads the same revisions.
    let out = run_ok(&there, &["history", "shop", "--package", "-o", "json"]);
    let history: Value = serde_json::from_str(&out).unwrap();
    let versions: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["version"].as_str())
        .collect();
    assert!(
        versions.contains(&"1.0.0") && versions.contains(&"2.0.1"),
        "{out}"
    );

    // The target's API server goes away during an upgrade (its app takes 15 s to be ready).
    patch_spec(
        &home,
        "shop",
        json!({"source": source("2.1.0"), "values": {"app": {"sim": "ok", "readyAfter": "15s"}}, "upgrade": {"timeout": "60s"}}),
    )
    .await;
    wait_reason(&home, &ctl, "Progressing").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    relay.set_up(false);
    let o = wait_reason(&home, &ctl, "TargetUnreachable").await;
    let (_, _, message) = condition(&o, "Ready").unwrap();
    assert!(message.contains(&relay.server()), "{message}");
    assert_eq!(
        condition(&o, "Reconciling").map(|c| c.0),
        Some("True".into()),
        "retried, not stalled"
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    relay.set_up(true);
    ready_at(&home, &ctl, "shop", "2.1.0").await;
    // Nothing pending, no Lease held in the target.
    let out = run_ok(&there, &["history", "shop", "--package", "-o", "json"]);
    let history: Value = serde_json::from_str(&out).unwrap();
    let statuses: Vec<(u64, &str)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["revision"].as_u64().unwrap_or_default(),
                r["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        statuses.iter().all(|(_, s)| !s.starts_with("pending")),
        "a pending revision is left: {statuses:?}\ncontroller log:\n{}",
        ctl.log()
    );
    // The interrupted revision was superseded by the one that finished the upgrade there.
    assert_eq!(
        statuses.last().map(|(_, s)| *s),
        Some("deployed"),
        "{statuses:?}"
    );
    // The kubeconfig's credentials are nowhere the controller reports.
    let kubeconfig: Value = serde_json::from_str(relay.kubeconfig_text()).unwrap();
    let key = kubeconfig
        .pointer("/users/0/user/client-key-data")
        .and_then(Value::as_str)
        .expect("the relay's kubeconfig carries a client key");
    let events: Api<k8s_openapi::api::core::v1::Event> = home.api();
    let reported = format!(
        "{}\n{:?}\n{}",
        ctl.log(),
        events.list(&ListParams::default()).await.unwrap().items,
        get(&home, "shop").await.unwrap()["status"]
    );
    assert!(
        !reported.contains(key) && !reported.contains(&key[..40]),
        "the kubeconfig's key was reported"
    );
    let leases: Api<Lease> = there.api();
    let held: Vec<String> = leases
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|l| {
            l.spec
                .as_ref()
                .is_some_and(|s| s.holder_identity.as_deref().is_some_and(|h| !h.is_empty()))
        })
        .filter_map(|l| l.metadata.name)
        .collect();
    assert!(held.is_empty(), "Leases left held in the target: {held:?}");
}

/// A cluster serving an older Package CRD (one without `spec.kubeConfig` and
/// `spec.serviceAccountName`, which its API server would prune from every Package): the
/// controller refuses to start, naming the fields and what to apply, instead of applying
/// Packages to the wrong cluster as the wrong identity. The second plane serves no Packages
/// otherwise, so the older CRD is installed there and deleted after.
#[tokio::test]
async fn a_controller_refuses_a_cluster_serving_an_older_package_crd() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let plane = kubepkg_testkit::target_plane().expect("the second control plane");
    let ns = TestNamespace::named_in(plane, &format!("crd-older-{}", std::process::id()))
        .await
        .expect("a namespace of the second plane");
    let mut older = serde_json::to_value(
        kubepkg_testkit::parse_yaml_objects(kubepkg_package_object::CRD)
            .unwrap()
            .remove(0),
    )
    .unwrap();
    let spec = older
        .pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
        .and_then(Value::as_object_mut)
        .expect("the CRD's spec properties");
    assert!(spec.remove("kubeConfig").is_some() && spec.remove("serviceAccountName").is_some());
    kubepkg_testkit::install_package_crd(&ns, &older.to_string())
        .await
        .expect("the older CRD installed");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args([
            "controller",
            "--watch-namespace",
            ns.name(),
            "--metrics-bind-address",
            "0",
            "--health-probe-bind-address",
            "0",
            "--kubeconfig",
        ])
        .arg(ns.plane().kubeconfig())
        .env_remove("KUBECONFIG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubepkg controller");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            break None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let crds: Api<CustomResourceDefinition> = Api::all(ns.client().clone());
    crds.delete("packages.kubepkg.dev", &Default::default())
        .await
        .expect("the older CRD deleted");
    let status = status.unwrap_or_else(|| panic!("the controller kept running:\n{err}"));
    assert!(!status.success(), "the controller started:\n{err}");
    for part in [
        "spec.kubeConfig",
        "spec.serviceAccountName",
        "older than this controller",
        "charts/kubepkg-controller/crds/",
    ] {
        assert!(err.contains(part), "the refusal lacks {part:?}:\n{err}");
    }
}
