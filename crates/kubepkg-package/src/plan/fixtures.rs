//! Plans of the kubevirt test package (`testdata/packages/kubevirt`) and what it renders, for
//! the plan's tests here and the CLI's tests of the plan's text (feature `fixtures`).

use std::collections::BTreeMap;
use std::path::Path;

use super::{
    Intent, Plan, Previous, RenderedComponent, RenderedObject, objects_from_manifest, plan,
};
use crate::revision::{ComponentRecord, History, PackageRevision, Reason, RevisionStatus};
use kubepkg_model::manifest::Package;
use kubepkg_model::source::load_dir;

/// The kubevirt test package (version 1.4.0).
pub fn kubevirt() -> Package {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/kubevirt"))
        .unwrap()
}

fn deployment(name: &str, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: kubevirt\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: {name}\n        image: {image}\n"
    )
}

/// A rendered component: its chart (name-version) and the objects of its manifest.
fn component(chart: String, manifest: &str) -> RenderedComponent {
    RenderedComponent {
        chart,
        objects: manifest_objects(manifest),
    }
}

/// What each component of the kubevirt package renders at `version`.
pub fn rendered(version: &str) -> BTreeMap<String, RenderedComponent> {
    BTreeMap::from([
        (
            "operator".to_string(),
            component(
                format!("kubevirt-operator-{version}"),
                &format!(
                    "---\n# Source: kubevirt-operator/templates/deployment.yaml\n{}",
                    deployment(
                        "virt-operator",
                        &format!("quay.io/kubevirt/virt-operator:v{version}")
                    )
                ),
            ),
        ),
        (
            "kubevirt".to_string(),
            component(
                "kubevirt-1.0.0".into(),
                "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec: {}\n",
            ),
        ),
        (
            "migrate".to_string(),
            component(
                format!("migrate-{version}"),
                &format!(
                    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{}\n  namespace: app\n",
                    version.replace('.', "-")
                ),
            ),
        ),
        (
            "worker".to_string(),
            component(
                format!("worker-{version}"),
                &format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n  namespace: app\nspec:\n  image: worker:{version}\n"
                ),
            ),
        ),
    ])
}

/// The deployed revision 3 of `kv` at `version`, declaring `rollback.safe: safe`.
pub fn previous_revision(version: &str, safe: Option<bool>) -> PackageRevision {
    let rec = |name: &str, release: &str, ns: &str, rev: u64, chart: &str| ComponentRecord {
        name: name.into(),
        release: release.into(),
        namespace: ns.into(),
        revision: rev,
        chart: chart.into(),
        ready_when: vec![],
        backend: None,
        post_renderers: Vec::new(),
        depends_on: Vec::new(),
    };
    PackageRevision {
        name: "kv".into(),
        namespace: "kubepkg-system".into(),
        revision: 3,
        package: "kubevirt".into(),
        version: version.into(),
        manifest_digest: "sha256:old".into(),
        rollback_safe: safe,
        components: vec![
            rec(
                "operator",
                "kv-operator",
                "kubevirt",
                4,
                &format!("kubevirt-operator-{version}"),
            ),
            rec("kubevirt", "kv-kubevirt", "kubevirt", 2, "kubevirt-1.0.0"),
            rec(
                "worker",
                "kv-worker",
                "app",
                3,
                &format!("worker-{version}"),
            ),
        ],
        status: RevisionStatus::Deployed,
        description: "Upgrade complete".into(),
        reason: Some(Reason::Succeeded),
        ..Default::default()
    }
}

/// A test manifest as objects (through the one manifest conversion).
pub fn manifest_objects(m: &str) -> Vec<RenderedObject> {
    objects_from_manifest(m).expect("test manifest")
}

/// The apply plan of the instance `kv` in `kubepkg-system` as a first install rendering `now`.
pub fn first_install(pkg: &Package, now: &BTreeMap<String, RenderedComponent>) -> Plan {
    plan(pkg, "kv", "kubepkg-system", Intent::Apply, None, now)
}

/// The apply plan of the instance `kv` in `kubepkg-system` over the deployed revision `prev`
/// (its only one) that rendered `old`, now rendering `now`.
pub fn apply_over(
    pkg: &Package,
    prev: &PackageRevision,
    old: &BTreeMap<String, RenderedComponent>,
    now: &BTreeMap<String, RenderedComponent>,
) -> Plan {
    let history = History::new(vec![prev.clone()]);
    plan_over(pkg, Intent::Apply, prev, &history, old, now)
}

/// The plan for `intent` of the instance `kv` in `kubepkg-system` over the deployed revision
/// `prev` of `history` that rendered `old`, now rendering `now`.
pub fn plan_over(
    pkg: &Package,
    intent: Intent,
    prev: &PackageRevision,
    history: &History,
    old: &BTreeMap<String, RenderedComponent>,
    now: &BTreeMap<String, RenderedComponent>,
) -> Plan {
    let previous = Previous {
        revision: prev,
        history,
        rendered: old,
    };
    plan(pkg, "kv", "kubepkg-system", intent, Some(previous), now)
}
