//! Plan tests: hooks and why, changes and diffs, gates, failure policy, text and JSON.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::revision::{ComponentRecord, History, PackageRevision, RevisionStatus};
use kubepkg_model::source::load_dir;

fn kubevirt() -> Package {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/kubevirt"))
        .unwrap()
}

fn deployment(name: &str, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: kubevirt\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: {name}\n        image: {image}\n"
    )
}

fn rendered(version: &str) -> BTreeMap<String, RenderedComponent> {
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

fn previous_revision(version: &str, safe: Option<bool>) -> PackageRevision {
    let rec = |name: &str, release: &str, ns: &str, rev: u64, chart: &str| ComponentRecord {
        name: name.into(),
        release: release.into(),
        namespace: ns.into(),
        revision: rev,
        chart: chart.into(),
        ready_when: vec![],
        backend: None,
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
        reason: Some(crate::revision::Reason::Succeeded),
        first_deployed: String::new(),
        last_deployed: String::new(),
        conditions: vec![],
        hooks_completed: Vec::new(),
        hook_verdicts: Vec::new(),
        rollback_hooks: Vec::new(),
    }
}

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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        None,
        &rendered("1.4.0"),
    );
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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
        &rendered("1.4.0"),
    );
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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
        &now,
    );
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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
        &rendered("1.4.0"),
    );
    assert_eq!(p.action, Action::NoChange);
    assert_eq!(p.revision, None);
}

#[test]
fn rollback_runs_no_hooks() {
    let pkg = kubevirt();
    let prev = previous_revision("1.5.0", Some(true));
    let old = rendered("1.5.0");
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Rollback { to_revision: 2 },
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
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
    });
    let none = BTreeMap::new();
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &none,
        }),
        &rendered("1.4.0"),
    );
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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
        &rendered("1.4.0"),
    );
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
    let history = History::new(vec![prev.clone()]);
    let with_floor = |floor: &str, safe: Option<bool>| {
        let mut pkg = kubevirt();
        pkg.meta.version = semver::Version::parse("2.1.0").unwrap();
        pkg.meta.rollback_safe = safe;
        pkg.meta.rollback_to = Some(kubepkg_model::Constraint::parse(floor).unwrap());
        plan(
            &pkg,
            "kv",
            "kubepkg-system",
            Intent::Apply,
            Some(Previous {
                revision: &prev,
                history: &history,
                rendered: &old,
            }),
            &rendered("2.1.0"),
        )
        .on_failure
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

/// A lower version than the deployed one is a downgrade: the plan says so, with the rollback
/// policy's verdict over every version that ran since (here 1.5.0 forbids it; the same
/// downgrade from a safe 1.5.0 is allowed).
#[test]
fn a_downgrade_is_stated_with_the_rollback_policy_verdict() {
    let pkg = kubevirt();
    assert_eq!(pkg.meta.version.to_string(), "1.4.0");
    let old = rendered("1.5.0");
    for (safe, verdict) in [
        (
            Some(false),
            "Downgrade from 1.5.0 to 1.4.0: refused: 1.5.0 (revision 3) declares rollback.safe: false, so 1.4.0 may not run again once it has run; apply refuses it unless given --allow-downgrade\n",
        ),
        (
            Some(true),
            "Downgrade from 1.5.0 to 1.4.0: allowed: no version that ran since 1.4.0 last ran forbids it (by rollback.safe: false or a rollback.to floor)\n",
        ),
    ] {
        let prev = previous_revision("1.5.0", safe);
        let mut earlier = previous_revision("1.4.0", None);
        earlier.revision = 2;
        earlier.status = RevisionStatus::Superseded;
        let history = History::new(vec![earlier, prev.clone()]);
        let p = plan(
            &pkg,
            "kv",
            "kubepkg-system",
            Intent::Apply,
            Some(Previous {
                revision: &prev,
                history: &history,
                rendered: &old,
            }),
            &rendered("1.4.0"),
        );
        let d = p.downgrade.as_ref().expect("a downgrade");
        assert_eq!(d.allowed(), safe == Some(true));
        let text = render_text(&p, false);
        assert!(
            text.starts_with(&format!(
                "Plan: downgrade kv of package kubevirt 1.5.0 -> 1.4.0 in namespace kubepkg-system\nRecords revision 4.\n{verdict}"
            )),
            "{text}"
        );
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["downgrade"]["from"], "1.5.0");
        assert_eq!(
            json["downgrade"]["forbiddenBy"].as_array().unwrap().len(),
            usize::from(safe == Some(false))
        );
    }
    // An upgrade is no downgrade.
    let prev = previous_revision("1.3.0", Some(false));
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &rendered("1.3.0"),
        }),
        &rendered("1.4.0"),
    );
    assert_eq!(p.downgrade, None);
    assert!(!render_text(&p, false).contains("owngrade"));
}

#[test]
fn text_snapshot_of_an_upgrade() {
    let pkg = kubevirt();
    let prev = previous_revision("1.3.0", Some(true));
    let old = rendered("1.3.0");
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &old,
        }),
        &rendered("1.4.0"),
    );
    let expected = "\
Plan: upgrade kv of package kubevirt 1.3.0 -> 1.4.0 in namespace kubepkg-system
Records revision 4.

Requires (must be Ready first):
  cert-manager >=1.14.0
  monitoring (optional: waits only if installed)

PreUpgrade hooks:
  migrate [runs] the package moves from 1.3.0 to 1.4.0
    release kv-migrate in app; waits for it, then uninstalls it after a successful upgrade
    creates Job app/migrate-1-4-0

Order (one at a time; each waits for the previous to be ready):
  1. operator: upgrade kubevirt-operator-1.3.0 -> kubevirt-operator-1.4.0 (release revision 4 -> 5)
     release kv-operator in namespace kubevirt
     ready when: release kv-operator ready
     ~ Deployment kubevirt/virt-operator
       --- Deployment kubevirt/virt-operator (deployed)
       +++ Deployment kubevirt/virt-operator (planned)
       @@ -10,4 +10,4 @@
            spec:
              containers:
              - name: virt-operator
       -        image: quay.io/kubevirt/virt-operator:v1.3.0
       +        image: quay.io/kubevirt/virt-operator:v1.4.0
  2. kubevirt (after operator): unchanged kubevirt-1.0.0 (release revision 2)
     release kv-kubevirt in namespace kubevirt
     ready when: release kv-kubevirt ready
     ready when: KubeVirt kubevirt/kubevirt (kubevirt.io/v1) condition Available=True
  3. worker (after kubevirt): upgrade worker-1.3.0 -> worker-1.4.0 (release revision 3 -> 4)
     release kv-worker in namespace app
     gets kubepkg.fromVersion, kubepkg.toVersion, kubepkg.previous
     ready when: release kv-worker ready
     ~ Deployment app/worker
       --- Deployment app/worker (deployed)
       +++ Deployment app/worker (planned)
       @@ -4,4 +4,4 @@
          name: worker
          namespace: app
        spec:
       -  image: worker:1.3.0
       +  image: worker:1.4.0

If a component fails: no rollback (this version declares rollback.safe: false); stop with UpgradeFailed and fix forward
";
    let text = render_text(&p, true);
    assert_eq!(text, expected, "\n--- got ---\n{text}");
    // Without diffs only the object list is shown.
    assert!(!render_text(&p, false).contains("@@"));

    // In colour: the same text, each diff line and change mark styled as `git diff` does.
    let coloured = render_styled(&p, true, Palette::ANSI);
    assert_eq!(strip_ansi(&coloured), expected);
    for line in [
        "\x1b[1mPlan: upgrade kv of package kubevirt 1.3.0 -> 1.4.0 in namespace kubepkg-system\x1b[0m",
        "     \x1b[33m~\x1b[0m Deployment app/worker",
        "       \x1b[1m--- Deployment app/worker (deployed)\x1b[0m",
        "       \x1b[1m+++ Deployment app/worker (planned)\x1b[0m",
        "       \x1b[36m@@ -4,4 +4,4 @@\x1b[0m",
        "       \x1b[31m-  image: worker:1.3.0\x1b[0m",
        "       \x1b[32m+  image: worker:1.4.0\x1b[0m",
        "          name: worker",
    ] {
        assert!(
            coloured.lines().any(|l| l == line),
            "{line:?} in\n{coloured}"
        );
    }
    assert_eq!(render_styled(&p, true, Palette::PLAIN), expected);
}

/// `text` without its ANSI escapes (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        let m = rest[i..].find('m').expect("an escape ends with m");
        rest = &rest[i + m + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn json_output_is_structured() {
    let pkg = kubevirt();
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        None,
        &rendered("1.4.0"),
    );
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
    let p = plan(
        &pkg,
        "kv",
        "kubepkg-system",
        Intent::Apply,
        None,
        &rendered("1.4.0"),
    );
    let d = p.steps[1].diff.as_ref().unwrap();
    assert_eq!(d[0].object, "KubeVirt kubevirt/kubevirt");
    assert_eq!(d[0].change, ObjectChange::Added);
}

/// A test manifest as objects (through the one manifest conversion).
fn manifest_objects(m: &str) -> Vec<crate::plan::RenderedObject> {
    crate::plan::objects_from_manifest(m).expect("test manifest")
}
