//! `spec.source.sourceRef`: a Package read from the artifact of a Flux `GitRepository` that the
//! real source-controller (`kubepkg_testkit::flux`) fetched from the real Git server on
//! loopback (`kubepkg_testkit::git_server`). The revision records the source, the artifact's
//! revision and digest as Flux's status gives them; a new artifact reconciles the Package at
//! once through the controller's watch of the source (the Package's interval is an hour); a
//! missing source and a path without a package are conditions naming them. And the same from
//! an `OCIRepository` of a package pushed to the real registry (`kubepkg_testkit::registry`).

use kube::api::{Patch, PatchParams};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::flux::Flux;
use kubepkg_testkit::git_server::{GitAuth, GitServer};
use serde_json::json;

use crate::controller::{ControllerProcess, create, install_crd, ready_at, wait_ready};
use crate::git_source::{assert_shop_upgraded, revisions, wait_source_revision};

/// The `status.artifact` of the Flux source `kind` `name` once its revision holds `wanted`
/// (a commit, or `TAG@`): (revision, digest).
async fn artifact_of(ns: &TestNamespace, kind: &str, name: &str, wanted: &str) -> (String, String) {
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
        ns.client().clone(),
        ns.name(),
        &kubepkg_controller::flux_source::api_resource(kind),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let o = api.get(name).await.unwrap();
        let field = |f: &str| {
            o.data
                .pointer(&format!("/status/artifact/{f}"))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        if field("revision").contains(wanted) {
            return (field("revision"), field("digest"));
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{kind} {name} never published {wanted}: {:?}",
            o.data.get("status")
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
}

/// Asks source-controller to look at the repository now (Flux's `reconcile.fluxcd.io/requestedAt`).
async fn request_reconcile(ns: &TestNamespace, name: &str) {
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
        ns.client().clone(),
        ns.name(),
        &kubepkg_controller::flux_source::api_resource("GitRepository"),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
        .to_string();
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(
            json!({"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": now}}}),
        ),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_package_from_a_flux_git_repository_follows_its_artifact() {
    let ns = TestNamespace::fresh("flux-source").await;
    install_crd(&ns).await;
    let _flux = Flux::start(&ns).await.unwrap();
    let server = GitServer::start(GitAuth::None).unwrap();
    let repo = server.repo("platform").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // Version `v` of `shop` committed to `packages/shop` on main: the commit.
    let commit = |v: &str| {
        let dir = crate::controller::shop_version(tmp.path(), v);
        repo.commit("main", "packages/shop", Some(&dir), &[], v)
            .unwrap()
    };
    let c1 = commit("1.0.0");
    ns.apply_yaml(&format!(
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: platform}}\nspec: {{url: {url}, interval: 1h, ref: {{branch: main}}}}\n",
        url = server.url("platform")
    ))
    .await
    .unwrap();
    // An hour's interval: only the watch of the GitRepository can bring a new artifact in.
    let ctl = ControllerProcess::start(&ns, "1h", &[]);
    create(
        &ns,
        "shop",
        json!({"source": {"sourceRef": {"kind": "GitRepository", "name": "platform", "path": "./packages/shop"}}}),
    )
    .await;
    let (rev1, digest1) = artifact_of(&ns, "GitRepository", "platform", &c1).await;
    assert_eq!(rev1, format!("main@sha1:{c1}"));
    wait_source_revision(&ns, &ctl, "shop", &rev1).await;
    ready_at(&ns, &ctl, "shop", "1.0.0").await;
    let recorded = format!("flux:GitRepository/{}/platform//packages/shop", ns.name());
    assert_eq!(
        revisions(&ns, "shop").await,
        vec![(1, "1.0.0".into(), format!("{recorded} {rev1} ({digest1})"))]
    );

    // A new version pushed; Flux publishes it; the Package upgrades without waiting its hour.
    let c2 = commit("1.1.0");
    request_reconcile(&ns, "platform").await;
    let (rev2, digest2) = artifact_of(&ns, "GitRepository", "platform", &c2).await;
    let sources = [
        format!("{recorded} {rev1} ({digest1})"),
        format!("{recorded} {rev2} ({digest2})"),
    ];
    assert_shop_upgraded(&ns, &ctl, &rev2, sources).await;

    // A source that does not exist, and a path with no package: each named, nothing applied.
    create(
        &ns,
        "missing",
        json!({"source": {"sourceRef": {"kind": "GitRepository", "name": "nope"}}}),
    )
    .await;
    let o = wait_ready(&ns, &ctl, "missing", "False", "SourceUnavailable").await;
    let message = o.pointer("/status/conditions").unwrap().to_string();
    assert!(
        message.contains(&format!(
            "GitRepository {}/nope (source.sourceRef) not found",
            ns.name()
        )),
        "{message}"
    );
    create(
        &ns,
        "nopkg",
        json!({"source": {"sourceRef": {"kind": "GitRepository", "name": "platform", "path": "docs"}}}),
    )
    .await;
    let o = wait_ready(&ns, &ctl, "nopkg", "False", "InvalidPackage").await;
    let message = o.pointer("/status/conditions").unwrap().to_string();
    assert!(message.contains("docs"), "{message}");
    assert_eq!(revisions(&ns, "missing").await.len(), 0);
    assert_eq!(revisions(&ns, "nopkg").await.len(), 0);
}

/// An `OCIRepository` of a package pushed with `kubepkg package push` (Flux extracts the
/// package layer; the artifact's one directory is the package): installed, then upgraded when
/// the OCIRepository's tag moves, the digest as Flux's status gives it.
#[tokio::test]
async fn a_package_from_a_flux_oci_repository_follows_its_tag() {
    use kubepkg_testkit::registry::{Registry, RegistryOptions};
    let ns = TestNamespace::fresh("flux-oci-source").await;
    install_crd(&ns).await;
    let _flux = Flux::start(&ns).await.unwrap();
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for v in ["1.0.0", "1.1.0"] {
        let dir = crate::controller::shop_version(tmp.path(), v);
        crate::support::ok(
            std::process::Command::new(env!("CARGO_BIN_EXE_kubepkg"))
                .args(["package", "push"])
                .arg(&dir)
                .args([&reg.oci("pkgs"), "--plain-http"])
                .output()
                .unwrap(),
        );
    }
    let oci_repository = |tag: &str| {
        format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {{name: shop}}\nspec: {{url: '{url}', insecure: true, interval: 1h, ref: {{tag: '{tag}'}}, layerSelector: {{mediaType: '{media}', operation: extract}}}}\n",
            url = reg.oci("pkgs/shop"),
            media = kubepkg_oci::package::ARCHIVE_LAYER_MEDIA_TYPE,
        )
    };
    ns.apply_yaml(&oci_repository("1.0.0")).await.unwrap();
    let ctl = ControllerProcess::start(&ns, "1h", &[]);
    create(
        &ns,
        "shop",
        json!({"source": {"sourceRef": {"kind": "OCIRepository", "name": "shop"}}}),
    )
    .await;
    let (rev1, digest1) = artifact_of(&ns, "OCIRepository", "shop", "1.0.0@").await;
    wait_source_revision(&ns, &ctl, "shop", &rev1).await;
    ready_at(&ns, &ctl, "shop", "1.0.0").await;
    ns.apply_yaml(&oci_repository("1.1.0")).await.unwrap();
    let (rev2, digest2) = artifact_of(&ns, "OCIRepository", "shop", "1.1.0@").await;
    wait_source_revision(&ns, &ctl, "shop", &rev2).await;
    ready_at(&ns, &ctl, "shop", "1.1.0").await;
    let recorded = format!("flux:OCIRepository/{}/shop", ns.name());
    assert_eq!(
        revisions(&ns, "shop").await,
        vec![
            (1, "1.0.0".into(), format!("{recorded} {rev1} ({digest1})")),
            (2, "1.1.0".into(), format!("{recorded} {rev2} ({digest2})")),
        ]
    );
}
