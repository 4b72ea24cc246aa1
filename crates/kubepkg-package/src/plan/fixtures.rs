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

/// What each component of the kubevirt package renders at `version`.
pub fn rendered(version: &str) -> BTreeMap<String, RenderedComponent> {
    let mut m = BTreeMap::new();
    m.insert(
        "operator".to_string(),
        RenderedComponent {
            chart: format!("kubevirt-operator-{version}"),
            objects: manifest_objects(&format!(
                "---\n# Source: kubevirt-operator/templates/deployment.yaml\n{}",
                deployment(
                    "virt-operator",
                    &format!("quay.io/kubevirt/virt-operator:v{version}")
                )
            )),
        },
    );
    m.insert(
        "kubevirt".to_string(),
        RenderedComponent {
            chart: "kubevirt-1.0.0".into(),
            objects: manifest_objects(
                "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec: {}\n",
            ),
        },
    );
    m.insert(
        "migrate".to_string(),
        RenderedComponent {
            chart: format!("migrate-{version}"),
            objects: manifest_objects(&format!(
                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{}\n  namespace: app\n",
                version.replace('.', "-")
            )),
        },
    );
    m.insert(
        "worker".to_string(),
        RenderedComponent {
            chart: format!("worker-{version}"),
            objects: manifest_objects(&format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n  namespace: app\nspec:\n  image: worker:{version}\n"
            )),
        },
    );
    m
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
        source: None,
        name: "kv".into(),
        namespace: "kubepkg-system".into(),
        revision: 3,
        package: "kubevirt".into(),
        version: version.into(),
        manifest_digest: "sha256:old".into(),
        values: BTreeMap::new(),
        values_digest: String::new(),
        value_sources: Vec::new(),
        rollback_safe: safe,
        rollback_to: None,
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
        first_deployed: String::new(),
        last_deployed: String::new(),
        conditions: vec![],
        hooks_completed: Vec::new(),
        hook_verdicts: Vec::new(),
        rollback_hooks: Vec::new(),
        to_apply: Vec::new(),
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
    let previous = Previous {
        revision: prev,
        history: &history,
        rendered: old,
    };
    plan(
        pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(previous),
        now,
    )
}
