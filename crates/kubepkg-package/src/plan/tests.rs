//! Plan tests: hooks and why, changes and diffs, gates, failure policy, text and JSON.

use std::collections::BTreeMap;

use super::fixtures::{
    apply_over, first_install, kubevirt, manifest_objects, plan_over, previous_revision, rendered,
};
use super::*;
use crate::revision::{ComponentRecord, History};

#[test]
fn objects_are_split_from_a_manifest_stream() {
    let objs = manifest_objects(
        "---\n# Source: a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: ns}\n---\n# only a comment\n",
    );
    let ids: Vec<String> = objs.iter().map(RenderedObject::id).collect();
    assert_eq!(ids, ["ConfigMap a", "Service ns/b"]);
    assert_eq!(
        objs[0].yaml,
        "# Source: a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    );
}

#[test]
fn first_install_runs_no_hook_and_keeps_state_on_failure() {
    let pkg = kubevirt();
    let p = first_install(&pkg, &rendered("1.4.0"));
    assert_eq!(p.action, Action::Install);
    assert_eq!(p.revision, Some(1));
    assert!(!p.hooks[0].runs);
    assert_eq!(p.hooks[0].why, "not run: first install");
    assert_eq!(p.on_failure, FailurePolicy::KeepForDiagnosis);
    assert!(
        p.steps
            .iter()
            .all(|s| matches!(s.change, Change::Install { .. }))
    );
    let names: Vec<&str> = p.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["operator", "kubevirt", "worker"]);
}

#[test]
fn version_change_runs_hooks_and_diffs_components() {
    let pkg = kubevirt();
    let prev = previous_revision("1.3.0", Some(true));
    let old = rendered("1.3.0");
    let p = apply_over(&pkg, &prev, &old, &rendered("1.4.0"));
    assert_eq!(p.action, Action::Upgrade);
    assert_eq!(p.revision, Some(4));
    assert!(p.hooks[0].runs);
    assert_eq!(p.hooks[0].why, "the package moves from 1.3.0 to 1.4.0");
    assert_eq!(p.hooks[0].objects, ["Job app/migrate-1-4-0"]);
    assert!(matches!(
        &p.steps[0].change,
        Change::Upgrade { from_chart, to_chart, from_revision: 4, to_revision: 5 }
            if from_chart == "kubevirt-operator-1.3.0" && to_chart == "kubevirt-operator-1.4.0"
    ));
    assert_eq!(
        p.steps[1].change,
        Change::Unchanged {
            chart: "kubevirt-1.0.0".into(),
            revision: 2
        }
    );
    // The new version (1.4.0 in testdata) declares rollback.safe: false.
    assert_eq!(
        p.on_failure,
        FailurePolicy::StopUpgradeFailed {
            declared: Some(false)
        }
    );
    let d = p.steps[0].diff.as_ref().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].change, ObjectChange::Changed);
    assert!(d[0].diff.contains("-        image: quay.io/kubevirt/virt-operator:v1.3.0\n+        image: quay.io/kubevirt/virt-operator:v1.4.0\n"), "{}", d[0].diff);
}

#[test]
fn values_only_change_runs_no_hook() {
    let pkg = kubevirt();
    let prev = previous_revision("1.4.0", Some(false));
    let old = rendered("1.4.0");
    let mut now = rendered("1.4.0");
    now.get_mut("worker").unwrap().objects[0]
        .yaml
        .push_str("  replicas: 3\n");
    let p = apply_over(&pkg, &prev, &old, &now);
    assert_eq!(p.action, Action::Reconfigure);
    assert!(!p.hooks[0].runs);
    assert!(
        p.hooks[0]
            .why
            .contains("values or configuration change only"),
        "{}",
        p.hooks[0].why
    );
    assert!(matches!(
        p.steps[2].change,
        Change::Upgrade {
            from_revision: 3,
            to_revision: 4,
            ..
        }
    ));
    assert!(matches!(p.steps[0].change, Change::Unchanged { .. }));
}

#[test]
fn nothing_changed_records_no_revision() {
    let pkg = kubevirt();
    let mut prev = previous_revision("1.4.0", Some(false));
    prev.manifest_digest = pkg.digest.clone();
    let old = rendered("1.4.0");
    let p = apply_over(&pkg, &prev, &old, &rendered("1.4.0"));
    assert_eq!(p.action, Action::NoChange);
    assert_eq!(p.revision, None);
}

#[test]
fn rollback_runs_no_hooks() {
    let pkg = kubevirt();
    let prev = previous_revision("1.5.0", Some(true));
    let old = rendered("1.5.0");
    let p = plan_over(
        &pkg,
        Intent::Rollback { to_revision: 2 },
        &prev,
        &History::new(vec![prev.clone()]),
        &old,
        &rendered("1.4.0"),
    );
    assert_eq!(p.action, Action::Rollback);
    assert!(!p.hooks[0].runs);
    assert_eq!(p.hooks[0].why, "not run: hooks never run on a rollback");
}

#[test]
fn unknown_previous_rendering_and_removed_components() {
    let pkg = kubevirt();
    let mut prev = previous_revision("1.3.0", Some(true));
    prev.components.push(ComponentRecord {
        name: "legacy".into(),
        release: "kv-legacy".into(),
        namespace: "app".into(),
        revision: 1,
        chart: "legacy-0.1.0".into(),
        ready_when: vec![],
        backend: None,
        post_renderers: Vec::new(),
        depends_on: Vec::new(),
    });
    let none = BTreeMap::new();
    let p = apply_over(&pkg, &prev, &none, &rendered("1.4.0"));
    assert_eq!(p.steps[0].diff, None);
    assert_eq!(
        p.removals,
        [Removal {
            name: "legacy".into(),
            release: "kv-legacy".into(),
            namespace: "app".into()
        }]
    );
}

#[test]
fn safe_new_version_rolls_back_to_the_previous_revision() {
    let mut pkg = kubevirt();
    pkg.meta.rollback_safe = Some(true);
    let prev = previous_revision("1.3.0", Some(false));
    let old = rendered("1.3.0");
    let p = apply_over(&pkg, &prev, &old, &rendered("1.4.0"));
    assert_eq!(
        p.on_failure,
        FailurePolicy::RollBack {
            to_revision: 3,
            to_version: "1.3.0".into(),
            floors: vec![]
        }
    );
}

/// Rollback floors in the plan: the new version's `rollback.to` admits the deployed version
/// (the verdict names the floor), or excludes it (no rollback, naming who forbids it); a
/// floor alone (no `rollback.safe`) allows automatic rollbacks to what it admits.
#[test]
fn the_plan_states_the_rollback_floor_verdict() {
    let prev = previous_revision("2.0.1", Some(true));
    let old = rendered("2.0.1");
    let with_floor = |floor: &str, safe: Option<bool>| {
        let mut pkg = kubevirt();
        pkg.meta.version = kubepkg_semver::Version::parse_strict("2.1.0").unwrap();
        pkg.meta.rollback_safe = safe;
        pkg.meta.rollback_to = Some(kubepkg_model::Constraint::parse(floor).unwrap());
        apply_over(&pkg, &prev, &old, &rendered("2.1.0")).on_failure
    };
    let allowed = with_floor(">=2.0.0", Some(true));
    assert_eq!(
        allowed.to_string(),
        "roll every changed component back to revision 3 (2.0.1): allowed by 2.1.0's rollback.to >=2.0.0"
    );
    assert_eq!(with_floor(">=2.0.0", None), allowed);
    let forbidden = with_floor(">=2.1.0", None);
    assert_eq!(
        forbidden.to_string(),
        "no rollback to revision 3 (2.0.1): 2.1.0 (revision 4) declares rollback.to >=2.1.0; stop with UpgradeFailed and fix forward"
    );
}

#[test]
fn json_output_is_structured() {
    let pkg = kubevirt();
    let p = first_install(&pkg, &rendered("1.4.0"));
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["action"], "install");
    assert_eq!(v["revision"], 1);
    assert_eq!(v["onFailure"]["kind"], "keepForDiagnosis");
    assert_eq!(v["hooks"][0]["runs"], false);
    assert_eq!(v["steps"][1]["dependsOn"][0], "operator");
    assert_eq!(v["steps"][1]["gates"][1]["kind"], "condition");
    assert_eq!(v["steps"][1]["gates"][1]["objectKind"], "KubeVirt");
    assert_eq!(v["steps"][1]["gates"][1]["namespace"], "kubevirt");
    assert_eq!(v["steps"][0]["change"]["kind"], "install");
    assert_eq!(v["steps"][0]["diff"][0]["change"], "added");
}

#[test]
fn plan_does_not_need_crds_to_exist() {
    // The KubeVirt custom resource is planned although nothing knows its CRD: the plan only
    // compares rendered objects and never looks anything up.
    let pkg = kubevirt();
    let p = first_install(&pkg, &rendered("1.4.0"));
    let d = p.steps[1].diff.as_ref().unwrap();
    assert_eq!(d[0].object, "KubeVirt kubevirt/kubevirt");
    assert_eq!(d[0].change, ObjectChange::Added);
}
