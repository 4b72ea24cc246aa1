//! Validation tests: one per rule of docs/kubepkg-yaml.md#validation, each asserting the
//! message's location and advice.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::graph;
use crate::manifest::MANIFEST_FILE;

/// A package directory with the given manifest and a chart directory per name in `charts`.
fn package_dir(manifest: &str, charts: &[&str]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for c in charts {
        let dir = d.path().join(c);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("Chart.yaml"),
            format!("apiVersion: v2\nname: {c}\nversion: 1.0.0\n"),
        )
        .unwrap();
    }
    fs::write(d.path().join(MANIFEST_FILE), manifest).unwrap();
    d
}

fn load(manifest: &str, charts: &[&str]) -> Result<Package, PackageError> {
    let d = package_dir(manifest, charts);
    let r = parse_manifest(manifest, Path::new("pkg/kubepkg.yaml"), d.path());
    drop(d);
    r
}

fn problems(manifest: &str, charts: &[&str]) -> Vec<Problem> {
    match load(manifest, charts) {
        Err(PackageError::Invalid { problems, .. }) => problems,
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("manifest was accepted:\n{manifest}"),
    }
}

fn only_problem(manifest: &str, charts: &[&str]) -> Problem {
    let mut p = problems(manifest, charts);
    assert_eq!(p.len(), 1, "{p:#?}");
    p.remove(0)
}

/// Asserts that `p` was found on line `line` of the manifest, in component `component`.
#[track_caller]
fn assert_at(p: &Problem, line: u64, component: &str) {
    assert_eq!(
        (p.line, p.component.as_deref()),
        (Some(line), Some(component)),
        "{p}"
    );
}

/// Asserts that the message of `p` says `text`.
#[track_caller]
fn assert_says(p: &impl std::fmt::Display, text: &str) {
    let message = p.to_string();
    assert!(message.contains(text), "{message}");
}

/// The one problem of `manifest`, checked to say `text`.
#[track_caller]
fn only_problem_saying(manifest: &str, charts: &[&str], text: &str) -> Problem {
    let p = only_problem(manifest, charts);
    assert_says(&p, text);
    p
}

/// The one problem of `manifest`, checked to be on `line`.
#[track_caller]
fn problem_on_line(manifest: &str, charts: &[&str], line: u64) -> Problem {
    let p = only_problem(manifest, charts);
    assert_eq!(p.line, Some(line), "{p}");
    p
}

/// The one problem of `manifest`, checked to be of a kind that `is` accepts.
#[track_caller]
fn problem_where(manifest: &str, charts: &[&str], is: fn(&ProblemKind) -> bool) -> Problem {
    let p = only_problem(manifest, charts);
    assert!(is(&p.kind), "{p}");
    p
}

/// The one problem of `manifest`, checked to be `kind`, found on `line` in `component`.
#[track_caller]
fn problem_at(
    manifest: &str,
    charts: &[&str],
    (line, component): (u64, &str),
    kind: ProblemKind,
) -> Problem {
    let p = only_problem(manifest, charts);
    assert_at(&p, line, component);
    assert_eq!(p.kind, kind, "{p}");
    p
}

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/packages")
        .join(name)
}

#[test]
fn spec_example_package_loads() {
    let p = crate::source::load_dir(&testdata("kubevirt")).unwrap();
    assert_eq!(p.meta.name, "kubevirt");
    assert_eq!(p.meta.version, kubepkg_semver::Version::new(1, 4, 0));
    assert_eq!(p.meta.rollback_safe, Some(false));
    assert!(!p.meta.rollback_is_safe());
    assert_eq!(p.meta.requires.len(), 2);
    assert_eq!(p.meta.requires[0].name, "cert-manager");
    assert!(!p.meta.requires[0].optional);
    assert_eq!(
        p.meta.requires[0].version.as_ref().unwrap().as_str(),
        ">=1.14.0"
    );
    assert!(p.meta.requires[1].optional);
    assert!(p.meta.requires[1].version.is_none());
    let names: Vec<&str> = p.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["operator", "kubevirt", "migrate", "worker"]);
    let kv = p.component("kubevirt").unwrap();
    assert_eq!(kv.depends_on, ["operator"]);
    assert_eq!(kv.namespace.as_deref(), Some("kubevirt"));
    assert_eq!(
        kv.ready_when,
        [ReadyCondition {
            api_version: "kubevirt.io/v1".into(),
            kind: "KubeVirt".into(),
            name: "kubevirt".into(),
            namespace: None,
            condition: "Available".into(),
            status: "True".into(),
        }]
    );
    // YAML numbers are float64, as Helm reads values.
    assert!(kv.values["replicas"].is_f64());
    assert!(p.component("migrate").unwrap().is_hook());
    assert!(p.component("worker").unwrap().upgrade_context);
    assert!(p.component("worker").unwrap().gets_upgrade_context());
    assert!(!p.component("operator").unwrap().gets_upgrade_context());
    assert!(p.digest.starts_with("sha256:") && p.digest.len() == 7 + 64);
    assert_eq!(p.release_name("kv", "operator"), "kv-operator");
    let order = graph::order(&p.components);
    assert_eq!(order.hooks, ["migrate"]);
    assert_eq!(order.components, ["operator", "kubevirt", "worker"]);
}

#[test]
fn unknown_field_names_line_and_field() {
    let p = problem_on_line(
        "package: {name: a, version: 1.0.0}\ncomponents:\n- name: web\n  path: web\n  instal: {}\n",
        &["web"],
        5,
    );
    let msg = p.to_string();
    assert!(msg.starts_with("pkg/kubepkg.yaml:5:3: "), "{msg}");
    assert!(msg.contains("unknown field `instal`"), "{msg}");
    assert!(
        msg.contains("install"),
        "the message lists the expected fields: {msg}"
    );
}

#[test]
fn unknown_field_in_install_and_package() {
    only_problem_saying(
        "package: {name: a, version: 1.0.0}\ncomponents:\n- name: web\n  path: web\n  install: {namespace: x, depends: [a]}\n",
        &["web"],
        "unknown field `depends`",
    );
    only_problem_saying(
        "package: {name: a, version: 1.0.0, rollback: {safe: true, always: true}}\ncomponents:\n- {name: web, path: web}\n",
        &["web"],
        "unknown field `always`",
    );
}

#[test]
fn wrong_type_is_a_syntax_problem_with_location() {
    let p = problem_on_line(
        "package: {name: a, version: 1.0.0, rollback: {safe: maybe}}\ncomponents:\n- {name: web, path: web}\n",
        &["web"],
        1,
    );
    assert!(matches!(p.kind, ProblemKind::Syntax { .. }), "{p}");
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:1:53: invalid type: string \"maybe\", expected a boolean"
    );
}

/// The structure is read with go-yaml v2's scalars, as Helm reads YAML: `yes` and `on` are
/// booleans (so `safe: yes` is `true`, and `name: no` is not a string).
#[test]
fn the_structure_is_read_with_go_yamls_scalars() {
    let p = load(
        "package: {name: p, version: 1.0.0, rollback: {safe: yes}}\ncomponents:\n- {name: a, path: c, install: {upgradeContext: on}}\n",
        &["c"],
    )
    .unwrap();
    assert_eq!(p.meta.rollback_safe, Some(true));
    assert!(p.components[0].upgrade_context);
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: no\n  path: c\n",
        &["c"],
    );
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:3:9: invalid type: boolean `false`, expected a string (YAML reads it unquoted as a boolean: quote it to keep it text)"
    );
}

#[test]
fn a_missing_field_names_the_mapping_it_is_missing_from() {
    let p = only_problem(
        "package:\n  version: 1.0.0\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
    );
    assert_eq!(p.to_string(), "pkg/kubepkg.yaml:2:3: missing field `name`");
    let p = only_problem("", &[]);
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:1:1: missing field `package`"
    );
}

#[test]
fn a_second_document_is_refused() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: c}\n---\npackage: {name: q, version: 1.0.0}\n",
        &["c"],
    );
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:4:1: a second YAML document starts here; the file holds one document"
    );
}

/// Hostile input is refused as Helm's reading refuses it (bounded work), and placed: an alias bomb
/// in `values` (go-yaml's alias ratio) and values nested past kubepkg's 1000 levels.
#[test]
fn hostile_values_are_refused_and_placed() {
    let mut bomb = String::from("    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let mut prev = 'a';
    for n in "bcdefghijklm".chars() {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        bomb.push_str(&format!("    {n}: &{n} [{refs}]\n"));
        prev = n;
    }
    let p = only_problem(
        &format!(
            "package: {{name: p, version: 1.0.0}}\ncomponents:\n- name: a\n  path: c\n  values:\n{bomb}"
        ),
        &["c"],
    );
    assert!(matches!(p.kind, ProblemKind::Syntax { .. }), "{p}");
    assert_says(&p, "document contains excessive aliasing");
    assert!(p.line.is_some_and(|l| l >= 6), "{p}");
    let deep: String = (0..1_005)
        .map(|i| format!("{}- \n", " ".repeat(4 + i * 2)))
        .collect();
    let p = only_problem(
        &format!(
            "package: {{name: p, version: 1.0.0}}\ncomponents:\n- name: a\n  path: c\n  values:\n    x:\n{deep}"
        ),
        &["c"],
    );
    assert_says(&p, "exceeded max depth of 1000");
    assert!(p.line.is_some_and(|l| l > 1000), "{p}");
}

/// `<<` merges in values are Helm's: merged keys give way to keys written after them.
#[test]
fn merge_keys_in_values_are_read_as_helm_reads_them() {
    let pkg = load(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  values:\n    base: &b {x: 1, z: 2}\n    web:\n      <<: *b\n      x: 3\n",
        &["c"],
    )
    .unwrap();
    assert_eq!(
        pkg.components[0].values["web"],
        serde_json::json!({"x": 3.0, "z": 2.0})
    );
}

#[test]
fn duplicate_component_names() {
    let kind = ProblemKind::DuplicateComponent {
        name: "web".into(),
        first_line: 3,
    };
    let p = problem_at(
        "package: {name: a, version: 1.0.0}\ncomponents:\n- name: web\n  path: web\n- name: web\n  path: web\n",
        &["web"],
        (5, "web"),
        kind,
    );
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:5: component \"web\": duplicate component name \"web\" (first defined on line 3); give each component a unique name"
    );
}

#[test]
fn depends_on_a_missing_component() {
    let p = only_problem(
        "package: {name: a, version: 1.0.0}\ncomponents:\n- name: operator\n  path: op\n- name: kubevirt\n  path: kv\n  install:\n    dependsOn: [operatr]\n",
        &["op", "kv"],
    );
    assert_at(&p, 8, "kubevirt");
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:8: component \"kubevirt\": dependsOn names \"operatr\", which is not a component of this package; known components: operator, kubevirt"
    );
}

#[test]
fn cycle_is_printed() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: c, install: {dependsOn: [b]}}\n- {name: b, path: c, install: {dependsOn: [c]}}\n- {name: c, path: c, install: {dependsOn: [a]}}\n",
        &["c"],
    );
    assert_eq!(
        p.kind,
        ProblemKind::Cycle {
            cycle: "a -> b -> c -> a".into()
        }
    );
    assert_eq!(p.line, Some(3));
    assert_says(
        &p,
        "dependency cycle: a -> b -> c -> a; remove one of these dependsOn entries",
    );
}

#[test]
fn self_dependency_is_a_cycle() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: c, install: {dependsOn: [a]}}\n",
        &["c"],
    );
    assert_eq!(
        p.kind,
        ProblemKind::Cycle {
            cycle: "a -> a".into()
        }
    );
}

#[test]
fn depending_on_a_pre_upgrade_hook_is_refused() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: migrate, path: c, install: {phase: PreUpgrade}}\n- {name: app, path: c, install: {dependsOn: [migrate]}}\n",
        &["c"],
    );
    assert_eq!(p.component.as_deref(), Some("app"));
    assert_eq!(
        p.kind,
        ProblemKind::DependsOnHook {
            hook: "migrate".into()
        }
    );
    assert_says(&p, "nothing may depend on one");
}

#[test]
fn hook_depending_on_a_hook_is_refused_too() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: backup, path: c, install: {phase: PreUpgrade}}\n- {name: migrate, path: c, install: {phase: PreUpgrade, dependsOn: [backup]}}\n",
        &["c"],
    );
    assert_eq!(
        p.kind,
        ProblemKind::DependsOnHook {
            hook: "backup".into()
        }
    );
}

#[test]
fn hook_with_dependencies_is_refused() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: db, path: c}\n- {name: migrate, path: c, install: {phase: PreUpgrade, dependsOn: [db]}}\n",
        &["c"],
    );
    assert_eq!(
        p.kind,
        ProblemKind::HookWithDependencies {
            dependency: "db".into()
        }
    );
}

#[test]
fn unknown_phase() {
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: m, path: c, install: {phase: PostUpgrade}}\n",
        &["c"],
    );
    assert_eq!(
        p.kind,
        ProblemKind::UnknownPhase {
            phase: "PostUpgrade".into()
        }
    );
    assert_eq!(p.line, Some(3));
}

#[test]
fn missing_chart_path() {
    let p = problem_on_line(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: web\n  path: charts/web\n",
        &[],
        4,
    );
    assert!(
        matches!(&p.kind, ProblemKind::ChartMissing { path, .. } if path == "charts/web"),
        "{p}"
    );
    assert_says(&p, "add the chart directory or .tgz to the package");
}

#[test]
fn chart_path_must_be_a_chart_inside_the_package() {
    for path in ["../outside", "/etc"] {
        problem_where(
            &format!(
                "package: {{name: p, version: 1.0.0}}\ncomponents:\n- {{name: web, path: {path}}}\n"
            ),
            &[],
            |k| matches!(k, ProblemKind::PathOutsidePackage { .. }),
        );
    }
    // A directory without Chart.yaml.
    let d = package_dir("", &[]);
    fs::create_dir(d.path().join("empty")).unwrap();
    fs::write(d.path().join("notes.txt"), "x").unwrap();
    fs::write(d.path().join("web.tgz"), "x").unwrap();
    let text = "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: empty}\n- {name: b, path: notes.txt}\n- {name: c, path: web.tgz}\n";
    let Err(PackageError::Invalid { problems, .. }) =
        parse_manifest(text, Path::new("kubepkg.yaml"), d.path())
    else {
        panic!("accepted")
    };
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert_says(&problems[0], "has no Chart.yaml");
    assert_says(&problems[1], "not a .tgz chart archive");
}

#[cfg(unix)]
#[test]
fn chart_symlink_leaving_the_package_is_refused() {
    let outside = package_dir("", &["real"]);
    let d = package_dir("", &[]);
    std::os::unix::fs::symlink(outside.path().join("real"), d.path().join("web")).unwrap();
    let text = "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: web, path: web}\n";
    let Err(PackageError::Invalid { problems, .. }) =
        parse_manifest(text, Path::new("kubepkg.yaml"), d.path())
    else {
        panic!("accepted")
    };
    assert!(matches!(
        problems[0].kind,
        ProblemKind::PathOutsidePackage { .. }
    ));
}

#[test]
fn bad_package_semver() {
    for (v, hint) in [
        ("1.4", "quote"),
        ("\"1.4\"", "minor"),
        ("v1.4.0", ""),
        ("1.4.0.1", ""),
        ("01.4.0", ""),
    ] {
        let p = only_problem(
            &format!(
                "package:\n  name: p\n  version: {v}\ncomponents:\n- {{name: web, path: web}}\n"
            ),
            &["web"],
        );
        assert_eq!(p.line, Some(3), "{v}");
        assert!(matches!(p.kind, ProblemKind::BadVersion { .. }), "{v}: {p}");
        let msg = p.to_string();
        assert!(
            msg.contains("is not SemVer 2") && msg.contains("e.g. 1.4.0"),
            "{msg}"
        );
        if !hint.is_empty() && hint == "quote" {
            assert!(msg.contains("quote it"), "{msg}");
        }
    }
    // SemVer 2 with pre-release and build metadata is fine.
    let p = load(
        "package: {name: p, version: 2.0.0-rc.1+build.5}\ncomponents:\n- {name: web, path: web}\n",
        &["web"],
    )
    .unwrap();
    assert_eq!(p.meta.version.pre.as_str(), "rc.1");
}

#[test]
fn bad_requirement_constraint() {
    let p = problem_on_line(
        "package:\n  name: p\n  version: 1.0.0\n  requires:\n  - {name: cert-manager, version: \">>1.14\"}\ncomponents:\n- {name: web, path: web}\n",
        &["web"],
        5,
    );
    assert!(
        matches!(&p.kind, ProblemKind::BadConstraint { package, .. } if package == "cert-manager"),
        "{p}"
    );
}

#[test]
fn requirement_constraints_are_masterminds_style() {
    let p = load(
        "package:\n  name: p\n  version: 1.0.0\n  requires:\n  - {name: a, version: \"~1.2 || ^2.0.0\"}\n  - {name: b, version: 1.x}\ncomponents:\n- {name: web, path: web}\n",
        &["web"],
    )
    .unwrap();
    let a = p.meta.requires[0].version.as_ref().unwrap();
    assert!(a.matches(&kubepkg_semver::Version::new(2, 5, 0)));
    assert!(!a.matches(&kubepkg_semver::Version::new(1, 3, 0)));
    assert!(
        p.meta.requires[1]
            .version
            .as_ref()
            .unwrap()
            .matches(&kubepkg_semver::Version::new(1, 9, 0))
    );
}

#[test]
fn ready_when_without_required_fields() {
    problem_at(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: kv\n  path: kv\n  install:\n    readyWhen:\n    - {apiVersion: kubevirt.io/v1, kind: KubeVirt, name: kubevirt, condition: Available}\n    - apiVersion: kubevirt.io/v1\n      name: kubevirt\n",
        &["kv"],
        (8, "kv"),
        ProblemKind::ReadyWhenIncomplete {
            index: 1,
            missing: "kind, condition".into(),
        },
    );
}

#[test]
fn ready_when_status_defaults_to_true_and_namespace_is_kept() {
    let p = load(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: kv\n  path: kv\n  install:\n    readyWhen:\n    - {apiVersion: v1, kind: Node, name: n1, condition: Ready}\n    - {apiVersion: x/v1, kind: X, name: x, namespace: other, condition: Synced, status: \"False\"}\n",
        &["kv"],
    )
    .unwrap();
    let rw = &p.components[0].ready_when;
    assert_eq!(rw[0].status, "True");
    assert_eq!(rw[0].namespace, None);
    assert_eq!(rw[1].status, "False");
    assert_eq!(rw[1].namespace.as_deref(), Some("other"));
}

#[test]
fn names_must_be_dns_labels() {
    let ps = problems(
        "package: {name: My_Pkg, version: 1.0.0}\ncomponents:\n- {name: Web, path: web, install: {namespace: \"bad ns\"}}\n",
        &["web"],
    );
    let kinds: Vec<&str> = ps
        .iter()
        .map(|p| match &p.kind {
            ProblemKind::BadName { what, .. } => *what,
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["package name", "component name", "namespace"]);
}

#[test]
fn all_problems_are_reported_at_once() {
    let ps = problems(
        "package: {name: p, version: one}\ncomponents:\n- {name: a, path: missing, install: {dependsOn: [zz]}}\n- {name: a, path: c}\n",
        &["c"],
    );
    assert_eq!(ps.len(), 4, "{ps:#?}");
    let err = load(
        "package: {name: p, version: one}\ncomponents:\n- {name: a, path: missing, install: {dependsOn: [zz]}}\n- {name: a, path: c}\n",
        &["c"],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(
            "invalid package pkg/kubepkg.yaml: 4 problems:\n  - pkg/kubepkg.yaml:1: package version"
        ),
        "{err}"
    );
}

#[test]
fn no_components() {
    let p = only_problem("package: {name: p, version: 1.0.0}\ncomponents: []\n", &[]);
    assert_eq!(p.kind, ProblemKind::NoComponents);
}

#[test]
fn values_must_be_a_mapping() {
    problem_where(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: c, values: [1, 2]}\n",
        &["c"],
        |k| matches!(k, ProblemKind::ValuesNotAMap { .. }),
    );
}

/// A component's `values` are read as `helm install -f` reads a values file: go-yaml v2's
/// scalars (YAML 1.1 booleans in their three spellings only, `n`/`y` keys as booleans, Go's
/// number forms), not the manifest reader's own. Expectations from go-yaml v2's resolve table,
/// and the whole mapping equal to kubepkg-yaml's Helm values reading of the same text.
#[test]
fn component_values_are_read_as_helm_reads_a_values_file() {
    let values = "a: yEs\nb: y\nc: 0o17\nd: 1_000\ne: 0x1F\nf: 2001-12-14\nh: Off\ni: 012\nj: ~\nk: 1e3\nm: 0b101\nn: .5\np: NO\non: 1\n";
    let indented: String = values.lines().map(|l| format!("    {l}\n")).collect();
    let manifest = format!(
        "package: {{name: p, version: 1.0.0}}\ncomponents:\n- name: a\n  path: c\n  values:\n{indented}"
    );
    let pkg = load(&manifest, &["c"]).unwrap();
    let got = &pkg.components[0].values;
    assert_eq!(
        got["a"],
        serde_json::json!("yEs"),
        "not one of go-yaml's spellings"
    );
    assert_eq!(got["b"], serde_json::json!(true));
    assert_eq!(got["h"], serde_json::json!(false));
    assert_eq!(got["p"], serde_json::json!(false));
    assert_eq!(got["f"], serde_json::json!("2001-12-14"));
    assert_eq!(
        got["false"],
        serde_json::json!(0.5),
        "the key n is false: {got:?}"
    );
    assert_eq!(
        got["true"],
        serde_json::json!(1.0),
        "the key on is true: {got:?}"
    );
    assert!(!got.contains_key("n") && !got.contains_key("on"), "{got:?}");
    let helm = crate::chart_adapter::from_chart_value(&kubepkg_yaml::read_values(values).unwrap());
    let serde_json::Value::Object(helm) = helm else {
        panic!("not a mapping")
    };
    assert_eq!(got, &crate::values::from_yaml_numbers(helm));
}

#[test]
fn yaml_syntax_error_has_a_location() {
    let p = problem_where(
        "package: {name: p, version: 1.0.0\ncomponents: []\n",
        &[],
        |k| matches!(k, ProblemKind::Syntax { .. }),
    );
    // go-yaml: `yaml: line 1: did not find expected ',' or '}'` (libyaml's parser names the
    // line before); the problem is the `:` at line 2, column 11.
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:2:11: did not find expected ',' or '}'"
    );
}

#[test]
fn duplicate_yaml_key_is_refused() {
    let p = problem_on_line(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  name: b\n  path: c\n",
        &["c"],
        4,
    );
    assert_eq!(
        p.to_string(),
        "pkg/kubepkg.yaml:4:3: duplicate key `name` (first on line 3); write each key once"
    );
    // In values too, although Helm would keep the last silently.
    let p = problem_on_line(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  values:\n    replicas: 1\n    replicas: 2\n",
        &["c"],
        7,
    );
    assert_says(&p, "duplicate key `replicas` (first on line 6)");
}

#[test]
fn chart_archive_path_is_accepted() {
    let d = package_dir("", &[]);
    fs::write(d.path().join("web-1.0.0.tgz"), "not checked here").unwrap();
    let text =
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: web, path: ./web-1.0.0.tgz}\n";
    let p = parse_manifest(text, Path::new("kubepkg.yaml"), d.path()).unwrap();
    assert!(matches!(p.components[0].chart, ChartSource::Archive(_)));
}

#[test]
fn rollback_safe_is_tri_state() {
    let p = load(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
    )
    .unwrap();
    assert_eq!(p.meta.rollback_safe, None);
    assert!(!p.meta.rollback_is_safe());
    let p = load(
        "package: {name: p, version: 1.0.0, rollback: {safe: true}}\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
    )
    .unwrap();
    assert!(p.meta.rollback_is_safe());
}

#[test]
fn rollback_floors_are_constraints_and_imply_rollbacks_into_them() {
    let p = load(
        "package:\n  name: p\n  version: 2.1.0\n  rollback:\n    to: \">=2.0.0\"\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
    )
    .unwrap();
    assert_eq!(
        p.meta.rollback_to.as_ref().map(|c| c.as_str()),
        Some(">=2.0.0")
    );
    assert!(p.meta.rollback_is_safe());
    let bad = problem_on_line(
        "package:\n  name: p\n  version: 2.1.0\n  rollback:\n    to: \">=two\"\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
        5,
    );
    assert_says(
        &bad,
        "rollback.to \">=two\" is not a valid version constraint",
    );
    only_problem_saying(
        "package:\n  name: p\n  version: 2.1.0\n  rollback: {safe: false, to: \">=2.0.0\"}\ncomponents:\n- {name: a, path: c}\n",
        &["c"],
        "contradicts rollback.safe: false",
    );
}

#[test]
fn instance_names_must_give_valid_release_names() {
    let p = load(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- {name: operator, path: c}\n",
        &["c"],
    )
    .unwrap();
    assert!(p.check_instance_name("kv").is_ok());
    assert_eq!(
        p.check_instance_name("Bad_Name").unwrap_err().to_string(),
        "package name \"Bad_Name\" is not valid: it contains 'B'; a package name must be at most 53 characters of lowercase letters, digits and '-', starting and ending with a letter or digit (it names the Lease kubepkg.package.<name> and the Helm release <name>-<component> of each component)"
    );
    let long = "a".repeat(45);
    let e = p.check_instance_name(&long).unwrap_err().to_string();
    assert!(e.contains("is 54 characters long, Helm allows 53"), "{e}");
    assert!(p.check_instance_name(&"a".repeat(44)).is_ok());
}

#[test]
fn post_renderers_are_read_and_bad_patches_are_refused_by_component_and_patch() {
    let ok = load(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  postRenderers:\n  - kustomize:\n      patches:\n      - target: {kind: Deployment}\n        patch: |\n          - {op: add, path: /metadata/labels/x, value: y}\n      images:\n      - {name: nginx, newTag: '2'}\n",
        &["c"],
    )
    .expect("valid package");
    assert_eq!(
        ok.components[0].post_renderers.describe(),
        ["kustomize: 1 patches, 1 images"]
    );
    let p = only_problem(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  postRenderers:\n  - kustomize:\n      patches:\n      - {patch: 'kind: A'}\n      - {patch: 'a: b: c'}\n",
        &["c"],
    );
    assert!(matches!(p.kind, ProblemKind::PostRenderer { .. }), "{p}");
    assert_says(
        &p,
        "component \"a\": postRenderers[0].kustomize.patches[1]: the patch is not valid YAML",
    );
    assert_eq!(p.line, Some(6), "{p}");
    only_problem_saying(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  postRenderers:\n  - kustomize:\n      patches:\n      - {patch: '[{op: remove, path: /spec}]'}\n",
        &["c"],
        "a JSON 6902 patch needs a target",
    );
    only_problem_saying(
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: a\n  path: c\n  postRenderers:\n  - kustomise: {}\n",
        &["c"],
        "unknown field `kustomise`",
    );
}
