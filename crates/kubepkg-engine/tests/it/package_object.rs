//! The `Package` object (docs/package-object.md) on the local control plane: the CRD installs
//! and the API server enforces its schema; applying a package writes the status of the
//! `Package` of the same name — revision, version, kstatus conditions, components — and kstatus
//! reads it as `kubepkg status` does, while waiting for requirements and once deployed.

use std::time::Duration;

use crate::support::*;
use kube::api::{Api, DynamicObject, PostParams};
use kubepkg_kube::readiness::{self, Status};
use kubepkg_package::revision::Reason;
use kubepkg_package_object as object;
use kubepkg_testkit::TestNamespace;
use serde_json::{Value, json};

const SHORT: Duration = Duration::from_secs(60);

fn packages(ns: &TestNamespace) -> Api<DynamicObject> {
    kubepkg_testkit::package_api(ns)
}

fn package_object(name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "kubepkg.dev/v1alpha1",
        "kind": "Package",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap()
}

/// Installs the CRD (idempotent) and waits until Packages can be created.
async fn install_crd(ns: &TestNamespace) {
    kubepkg_testkit::install_package_crd(ns, object::CRD)
        .await
        .expect("the CRD applies and is served");
}

async fn status(ns: &TestNamespace, name: &str) -> Value {
    let o = packages(ns).get(name).await.unwrap();
    serde_json::to_value(o).unwrap()
}

fn conds(obj: &Value) -> Vec<(String, String, String)> {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    (
                        c["type"].as_str().unwrap_or("").to_string(),
                        c["status"].as_str().unwrap_or("").to_string(),
                        c["reason"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

#[tokio::test]
async fn crd_schema_refuses_bad_specs() {
    let ns = TestNamespace::fresh("pkgobj-schema").await;
    install_crd(&ns).await;
    let api = packages(&ns);
    let pp = PostParams::default();
    // A spec with every field (docs/package-object.md#spec) is accepted, with the defaults
    // filled in.
    let ok = api
        .create(
            &pp,
            &package_object(
                "kubevirt",
                json!({"source": {"oci": "oci://registry.example/pkgs/kubevirt", "version": "1.4.0"},
                       "values": {"kubevirt": {"featureGates": ["Snapshot"]}},
                       "valuesFrom": [{"kind": "Secret", "name": "kubevirt-values"}]}),
            ),
        )
        .await
        .expect("the example spec is valid");
    let v = serde_json::to_value(ok).unwrap();
    assert_eq!(v["spec"]["backend"], json!("helm"));
    assert_eq!(
        v["spec"]["upgrade"],
        Value::Null,
        "no upgrade block, no default inside it"
    );
    let spec: object::PackageSpec = serde_json::from_value(v["spec"].clone()).unwrap();
    assert_eq!(
        spec.source.oci.as_deref(),
        Some("oci://registry.example/pkgs/kubevirt")
    );

    for (name, spec, says) in [
        (
            "bad-backend",
            json!({"source": {"path": "."}, "backend": "helmfile"}),
            "Unsupported value",
        ),
        (
            "two-sources",
            json!({"source": {"path": ".", "oci": "oci://r/p"}}),
            "exactly one of oci, url, configMapRef, secretRef, git, sourceRef or path",
        ),
        (
            "url-without-digest",
            json!({"source": {"url": "https://example.invalid/p.tgz"}}),
            "a url source needs its sha256",
        ),
        (
            "bad-timeout",
            json!({"source": {"path": "."}, "upgrade": {"timeout": "ten minutes"}}),
            "spec.upgrade.timeout",
        ),
        (
            "verify-without-oci",
            json!({"source": {"path": ".", "verify": {"provider": "cosign", "secretRef": {"name": "k"}}}}),
            "verify checks the cosign signature of an oci source",
        ),
        (
            "verify-other-provider",
            json!({"source": {"oci": "oci://r/p", "verify": {"provider": "notation", "secretRef": {"name": "k"}}}}),
            "spec.source.verify.provider",
        ),
        (
            "verify-without-keys",
            json!({"source": {"oci": "oci://r/p", "verify": {"provider": "cosign"}}}),
            "spec.source.verify.secretRef",
        ),
    ] {
        let e = api
            .create(&pp, &package_object(name, spec))
            .await
            .expect_err(name)
            .to_string();
        assert!(e.contains(says), "{name}: {e}");
    }
}

#[tokio::test]
async fn apply_writes_the_package_status_that_kstatus_reads() {
    let ns = TestNamespace::fresh("pkgobj-status").await;
    install_crd(&ns).await;
    let tmp = tempfile::tempdir().unwrap();
    let req = format!("pkgobj-req-{}", std::process::id());
    let dir = tmp.path().join("p");
    package(
        &dir,
        &format!(
            "package:\n  name: p\n  version: 1.2.3\n  requires: [{{name: {req}}}]\ncomponents:\n- {{name: a, path: a}}\n"
        ),
        &["a"],
        &[],
    );
    packages(&ns)
        .create(
            &PostParams::default(),
            &package_object(
                "pkg",
                json!({"source": {"path": dir.display().to_string()}}),
            ),
        )
        .await
        .unwrap();

    // While the apply waits for its requirement, the object says so.
    let (mut kc, _) = logged_cluster(&ns, SHORT);
    kc.requirements_timeout = Duration::from_secs(300);
    let nsname = ns.name().to_string();
    let d = dir.clone();
    let task = tokio::spawn(async move { apply(&mut kc, &nsname, "pkg", &d, SHORT).await });
    let waiting = eventually(
        Duration::from_secs(30),
        "status RequirementsNotMet",
        async || {
            let o = status(&ns, "pkg").await;
            (conds(&o).first().map(|c| c.2.as_str()) == Some("RequirementsNotMet")).then_some(o)
        },
    )
    .await;
    assert_eq!(
        conds(&waiting),
        [
            t("Ready", "False", "RequirementsNotMet"),
            t("Reconciling", "True", "RequirementsNotMet")
        ]
    );
    assert_eq!(
        waiting["status"]["conditions"][0]["message"],
        json!(format!("waiting for package {req} (not installed)"))
    );
    let k = readiness::compute(&waiting, jiff::Timestamp::now());
    assert_eq!(
        (k.status, k.reason.as_str()),
        (Status::InProgress, "RequirementsNotMet")
    );

    // The requirement arrives; the apply proceeds and the object ends Ready.
    let b = tmp.path().join("req");
    package(
        &b,
        &format!("package: {{name: {req}, version: 1.0.0}}\ncomponents:\n- {{name: a, path: a}}\n"),
        &["a"],
        &[],
    );
    let mut other = kube_cluster(&ns, SHORT, Lines::default());
    assert_eq!(
        apply(&mut other, ns.name(), &req, &b, SHORT).await.reason,
        Reason::Succeeded
    );
    let o = tokio::time::timeout(Duration::from_secs(120), task)
        .await
        .expect("proceeds")
        .unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let done = status(&ns, "pkg").await;
    assert_eq!(conds(&done), [t("Ready", "True", "Succeeded")]);
    assert_eq!(done["status"]["revision"], json!(1));
    assert_eq!(done["status"]["version"], json!("1.2.3"));
    assert_eq!(
        done["status"]["components"],
        json!([{"name": "a", "release": "pkg-a", "namespace": ns.name(), "revision": 1, "ready": true}])
    );
    let k = readiness::compute(&done, jiff::Timestamp::now());
    assert_eq!(k.status, Status::Current, "{k:?}");

    // Uninstalled (records deleted): the object no longer claims a Ready package.
    let mut kc = kube_cluster(&ns, SHORT, Lines::default());
    let gone = kubepkg_engine::ops::uninstall(
        &mut kc,
        kubepkg_engine::Instance {
            name: "pkg",
            namespace: ns.name(),
        },
        false,
        SHORT,
    )
    .await
    .unwrap();
    assert_eq!(gone, ["a"]);
    let after = status(&ns, "pkg").await;
    assert_eq!(conds(&after), [t("Ready", "False", "Uninstalled")]);
    assert_eq!(after["status"]["components"][0]["ready"], json!(false));
}
