//! Offline plan of a real package directory, rendered through the chart layer (docs/rules.md#plan):
//! no cluster, and a custom resource whose CRD only an earlier component provides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::plan::{Change, FailurePolicy, Intent, Previous, plan};
use crate::render::{RenderInput, chart_defaults, render_package};
use crate::revision::{ComponentRecord, History, PackageRevision, RevisionStatus};
use kubepkg_model::source::load_dir;
use kubepkg_model::values::{UserValues, effective, render_explain};
use serde_json::{Map, Value, json};

/// Helm's offline `.Capabilities` (as `helm template`).
fn offline() -> kubepkg_chart::objects::Capabilities {
    kubepkg_chart::objects::Capabilities::new(None, &[])
}

fn widgets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/widgets")
}

#[test]
fn first_install_plan_renders_every_component_offline() {
    let pkg = load_dir(&widgets()).unwrap();
    let input = RenderInput::new("shop", "apps", offline());
    let rendered = render_package(&pkg, &input).unwrap();
    let ids = |c: &str| -> Vec<String> { rendered[c].objects.iter().map(|o| o.id()).collect() };
    assert_eq!(
        ids("operator"),
        [
            "CustomResourceDefinition widgets.example.dev",
            "Deployment widgets-system/shop-operator"
        ]
    );
    // The Widget exists only because the operator's CRD (rendered first) made its API known.
    assert_eq!(ids("instance"), ["Widget apps/main"]);
    let widget = &rendered["instance"].objects[0].yaml;
    assert_eq!(
        widget,
        "# Source: widget-instance/templates/widget.yaml\napiVersion: example.dev/v1\nkind: Widget\nmetadata:\n  name: main\n  namespace: apps\nspec:\n  size: medium\n  replicas: 1\n  movingFrom: \"\"\n"
    );
    assert_eq!(rendered["instance"].chart, "widget-instance-2.0.0");
    let p = plan(&pkg, "shop", "apps", Intent::Apply, None, &rendered);
    assert!(!p.hooks[0].runs);
    assert_eq!(p.on_failure, FailurePolicy::KeepForDiagnosis);
    let order: Vec<&str> = p.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(order, ["operator", "instance"]);
    // Its text: crates/kubepkg/src/present/plan.rs.
}

#[test]
fn upgrade_plan_runs_the_hook_with_versions_and_passes_previous_values() {
    let pkg = load_dir(&widgets()).unwrap();
    let from = kubepkg_semver::Version::new(1, 0, 0);
    let mut previous_values = BTreeMap::new();
    previous_values.insert(
        "instance".to_string(),
        json!({"size": "small", "replicas": 1.0})
            .as_object()
            .cloned()
            .unwrap(),
    );
    let mut user = UserValues::new();
    user.add_set("instance.replicas=3").unwrap();
    user.check(&pkg).unwrap();
    let input = RenderInput {
        user: Some(&user),
        from_version: Some(&from),
        previous_values: Some(&previous_values),
        last_revisions: BTreeMap::from([("operator".into(), 1), ("instance".into(), 1)]),
        ..RenderInput::new("shop", "apps", offline())
    };
    let rendered = render_package(&pkg, &input).unwrap();
    let job = &rendered["upgrade-check"].objects[0].yaml;
    assert!(
        job.contains("image: example.dev/upgrade-check:2.0.0\n"),
        "{job}"
    );
    assert!(
        job.contains("args: [--from, \"1.0.0\", --to, \"2.0.0\"]\n"),
        "{job}"
    );
    let widget = &rendered["instance"].objects[0].yaml;
    assert!(
        widget.ends_with("  replicas: 3\n  movingFrom: \"1.0.0\"\n  previousSize: small\n"),
        "{widget}"
    );

    let record = |name: &str, ns: &str, chart: &str| ComponentRecord {
        name: name.into(),
        release: format!("shop-{name}"),
        namespace: ns.into(),
        revision: 1,
        chart: chart.into(),
        ready_when: vec![],
        backend: None,
        post_renderers: Vec::new(),
        depends_on: Vec::new(),
    };
    let prev = PackageRevision {
        name: "shop".into(),
        namespace: "apps".into(),
        revision: 1,
        package: "widgets".into(),
        version: "1.0.0".into(),
        manifest_digest: "sha256:x".into(),
        rollback_safe: Some(true),
        components: vec![
            record("operator", "widgets-system", "widget-operator-2.0.0"),
            record("instance", "apps", "widget-instance-1.0.0"),
        ],
        status: RevisionStatus::Deployed,
        ..Default::default()
    };
    // The deployed operator rendered exactly what the new one renders: unchanged.
    let mut before = BTreeMap::new();
    before.insert("operator".to_string(), rendered["operator"].clone());
    let p = plan(
        &pkg,
        "shop",
        "apps",
        Intent::Apply,
        Some(Previous {
            revision: &prev,
            history: &History::new(vec![prev.clone()]),
            rendered: &before,
        }),
        &rendered,
    );
    assert!(p.hooks[0].runs, "{:?}", p.hooks[0]);
    assert_eq!(p.hooks[0].why, "the package moves from 1.0.0 to 2.0.0");
    assert!(matches!(p.steps[0].change, Change::Unchanged { .. }));
    assert!(matches!(
        &p.steps[1].change,
        Change::Upgrade {
            from_revision: 1,
            to_revision: 2,
            ..
        }
    ));
    assert_eq!(
        p.steps[1].diff, None,
        "no previous rendering of instance was given"
    );
    assert!(
        matches!(
            &p.on_failure,
            FailurePolicy::RollBack { to_revision: 1, floors, .. } if floors.is_empty()
        ),
        "{:?}",
        p.on_failure
    );
}

#[test]
fn values_explain_over_real_chart_defaults() {
    let pkg = load_dir(&widgets()).unwrap();
    let mut user = UserValues::new();
    user.add_file("prod.yaml", "instance:\n  replicas: 2\n")
        .unwrap();
    let defaults: Map<String, Value> = chart_defaults(&pkg, "instance").unwrap();
    let e = effective(&defaults, &pkg, "instance", &user, None);
    assert_eq!(
        render_explain("instance", &e),
        "# instance\nreplicas: 2  # file prod.yaml\nsize: \"medium\"  # package default (kubepkg.yaml)\n"
    );
}
