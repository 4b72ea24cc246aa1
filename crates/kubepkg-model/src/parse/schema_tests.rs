//! The JSON Schema of kubepkg.yaml (`kubepkg schema`, `docs/kubepkg.schema.json`) against the
//! parser: the committed file is what the types generate; every example and test package
//! validates; and on a table of manifests, schema and parser refuse the same ones — except the
//! checks a schema cannot state (listed per case as `Parser`), where the schema accepts and
//! only the parser refuses. The schema is never stricter than the parser: an editor must not
//! mark a manifest kubepkg accepts.

use std::path::{Path, PathBuf};

use crate::parse::{json_schema, json_schema_text, parse_manifest};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft7::new(&json_schema()).expect("the generated schema compiles")
}

fn yaml_to_json(text: &str) -> serde_json::Value {
    serde_json::from_str(&kubepkg_yaml::yaml_to_json(text).expect("test manifests are YAML"))
        .unwrap()
}

#[test]
fn the_committed_schema_is_what_the_types_generate() {
    let path = repo().join("docs/kubepkg.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == format!("{}\n", json_schema_text()),
        "{} is not what `kubepkg schema` prints; regenerate it: \
         cargo run -p kubepkg -- schema > docs/kubepkg.schema.json",
        path.display()
    );
}

#[test]
fn every_example_and_test_package_validates_against_the_schema() {
    let validator = validator();
    let mut checked = 0;
    for dir in ["examples", "testdata/packages"] {
        for file in manifests(&repo().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&yaml_to_json(&text))
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            let root = file.parent().unwrap();
            parse_manifest(&text, &file, root)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} manifests found");
}

fn manifests(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = kubepkg_testkit::tree::walk(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "kubepkg.yaml"))
        .collect();
    out.sort();
    out
}

/// Who refuses a manifest of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// Nobody: a valid manifest.
    No,
    /// Both the schema and the parser.
    Both,
    /// Only the parser: a check no JSON Schema can state.
    Parser,
}

const HEAD: &str = "package:\n  name: shop\n  version: 1.0.0\n";

/// The one component of most cases.
const WEB: &str = "  - name: web\n    path: charts/web\n";

/// Cases whose manifest is [`HEAD`] with these `components:` entries, by who refuses them:
/// (who, [(what, entries)]).
const COMPONENT_CASES: &[(Refused, &[(&str, &str)])] = &[
    (
        Refused::No,
        &[
            ("minimal", WEB),
            (
                "a repository chart",
                "  - name: pg\n    chart:\n      repository: https://charts.example.com\n      name: postgresql\n      version: 15.x\n",
            ),
            (
                "path null beside a chart",
                "  - name: pg\n    path: null\n    chart:\n      repository: https://c.example.com\n      name: pg\n      version: 1.0.0\n",
            ),
            (
                "a chart of an OCI registry",
                "  - name: pg\n    chart:\n      repository: oci://r.example.com/charts\n      name: pg\n      version: 1.0.0\n",
            ),
            (
                "an oci:// path with a version",
                "  - name: pg\n    path: oci://r.example.com/charts/pg\n    version: \"1.x\"\n",
            ),
        ],
    ),
    (
        Refused::Both,
        &[
            (
                "an unknown component field",
                "  - name: web\n    path: charts/web\n    chartPath: x\n",
            ),
            (
                "an unknown install field",
                "  - name: web\n    path: charts/web\n    install:\n      waitFor: x\n",
            ),
            (
                "a component name with _",
                "  - name: my_web\n    path: charts/web\n",
            ),
            ("a component without a chart", "  - name: web\n"),
            (
                "both path and chart",
                "  - name: web\n    path: charts/web\n    chart:\n      repository: https://c.example.com\n      name: pg\n      version: 1.0.0\n",
            ),
            (
                "a chart repository that is not http(s) or oci",
                "  - name: pg\n    chart:\n      repository: ftp://r.example.com/charts\n      name: pg\n      version: 1.0.0\n",
            ),
            (
                "a chart name with /",
                "  - name: pg\n    chart:\n      repository: https://c.example.com\n      name: stable/pg\n      version: 1.0.0\n",
            ),
            (
                "a chart without a version",
                "  - name: pg\n    chart:\n      repository: https://c.example.com\n      name: pg\n",
            ),
            (
                "values that are a list",
                "  - name: web\n    path: charts/web\n    values: [1, 2]\n",
            ),
            (
                "an unknown phase",
                "  - name: web\n    path: charts/web\n    install:\n      phase: PostUpgrade\n",
            ),
            (
                "readyWhen without a kind",
                "  - name: web\n    path: charts/web\n    install:\n      readyWhen:\n        - apiVersion: v1\n          name: x\n          condition: Ready\n",
            ),
            (
                "readyWhen with a null condition",
                "  - name: web\n    path: charts/web\n    install:\n      readyWhen:\n        - apiVersion: v1\n          kind: ConfigMap\n          name: x\n          condition: null\n",
            ),
            (
                "a dependency listed twice",
                "  - name: db\n    path: charts/db\n  - name: web\n    path: charts/web\n    install:\n      dependsOn: [db, db]\n",
            ),
            (
                "dependsOn not a list",
                "  - name: web\n    path: charts/web\n    install:\n      dependsOn: db\n",
            ),
        ],
    ),
    // What only the parser can check.
    (
        Refused::Parser,
        &[
            (
                "an oci:// path without a version",
                "  - name: pg\n    path: oci://r.example.com/charts/pg\n",
            ),
            (
                "a version beside a path in the package",
                "  - name: web\n    path: charts/web\n    version: 1.0.0\n",
            ),
            (
                "a component name used twice",
                "  - name: web\n    path: charts/web\n  - name: web\n    path: charts/db\n",
            ),
            (
                "dependsOn an unknown component",
                "  - name: web\n    path: charts/web\n    install:\n      dependsOn: [db]\n",
            ),
            (
                "a dependency cycle",
                "  - name: db\n    path: charts/db\n    install:\n      dependsOn: [web]\n  - name: web\n    path: charts/web\n    install:\n      dependsOn: [db]\n",
            ),
            (
                "a chart path outside the package",
                "  - name: web\n    path: ../web\n",
            ),
            (
                "a chart path that does not exist",
                "  - name: web\n    path: charts/nope\n",
            ),
            (
                "a chart version that does not parse",
                "  - name: pg\n    chart:\n      repository: https://c.example.com\n      name: pg\n      version: \"not a version\"\n",
            ),
        ],
    ),
];

/// Cases whose manifest is this `package:` section with the [`WEB`] component, by who refuses
/// them: (who, [(what, section)]).
const PACKAGE_CASES: &[(Refused, &[(&str, &str)])] = &[
    (
        Refused::No,
        &[(
            "a number as requirement version",
            "package:\n  name: shop\n  version: 1.0.0\n  requires:\n    - name: base\n      version: 1.2\n",
        )],
    ),
    (
        Refused::Both,
        &[
            (
                "an unknown package field",
                "package:\n  name: shop\n  version: 1.0.0\n  colour: red\n",
            ),
            (
                "an upper-case package name",
                "package:\n  name: Shop\n  version: 1.0.0\n",
            ),
            (
                "a package name ending in -",
                "package:\n  name: shop-\n  version: 1.0.0\n",
            ),
            (
                "a version that is not SemVer",
                "package:\n  name: shop\n  version: \"1.0\"\n",
            ),
            (
                "a version YAML reads as a number",
                "package:\n  name: shop\n  version: 1.5\n",
            ),
            (
                "a version with a leading zero",
                "package:\n  name: shop\n  version: 1.02.0\n",
            ),
            (
                "a version with a v",
                "package:\n  name: shop\n  version: v1.0.0\n",
            ),
            (
                "rollback.safe not a bool",
                "package:\n  name: shop\n  version: 1.0.0\n  rollback:\n    safe: maybe\n",
            ),
            (
                "a requirement without a name",
                "package:\n  name: shop\n  version: 1.0.0\n  requires:\n    - version: \">=1\"\n",
            ),
        ],
    ),
    // What only the parser can check.
    (
        Refused::Parser,
        &[
            (
                "a requirement listed twice",
                "package:\n  name: shop\n  version: 1.0.0\n  requires:\n    - name: base\n    - name: base\n",
            ),
            (
                "a requirement constraint that does not parse",
                "package:\n  name: shop\n  version: 1.0.0\n  requires:\n    - name: base\n      version: \">>1\"\n",
            ),
            (
                "a rollback floor that does not parse",
                "package:\n  name: shop\n  version: 1.0.0\n  rollback:\n    to: \"not a version\"\n",
            ),
            (
                "a rollback floor beside safe: false",
                "package:\n  name: shop\n  version: 1.0.0\n  rollback:\n    safe: false\n    to: \">=1.0.0\"\n",
            ),
        ],
    ),
];

/// (what, manifest, who refuses it). `charts/web` and `charts/db` exist.
fn cases() -> Vec<(&'static str, String, Refused)> {
    let with = |components: &str| format!("{HEAD}components:\n{components}");
    let mut cases = vec![
        (
            "everything",
                "package:\n  name: shop\n  version: 2.0.0-rc.1+b5\n  rollback:\n    safe: true\n    to: \">=1.0.0\"\n  requires:\n    - name: base\n      version: \">=1\"\n    - name: extra\n      optional: true\n\
                 components:\n  - name: db\n    path: charts/db\n    values: {replicas: 1}\n    install:\n      namespace: data\n      readyWhen:\n        - apiVersion: v1\n          kind: ConfigMap\n          name: x\n          condition: Ready\n          status: \"True\"\n\
                 \x20 - name: web\n    path: charts/web\n    install:\n      dependsOn: [db]\n      upgradeContext: true\n\
                 \x20 - name: check\n    path: charts/web\n    install:\n      phase: PreUpgrade\n"
            .to_string(),
            Refused::No,
        ),
        ("no components", HEAD.to_string(), Refused::Both),
        (
            "empty components",
            format!("{HEAD}components: []\n"),
            Refused::Both,
        ),
        ("no package", format!("components:\n{WEB}"), Refused::Both),
        (
            "an unknown top-level field",
            format!("{}extra: 1\n", with(WEB)),
            Refused::Both,
        ),
        (
            "a 54-character package name",
            format!(
                "package:\n  name: {}\n  version: 1.0.0\ncomponents:\n{WEB}",
                "a".repeat(54)
            ),
            Refused::Both,
        ),
    ];
    for &(refused, table) in COMPONENT_CASES {
        cases.extend(
            table
                .iter()
                .map(|&(what, components)| (what, with(components), refused)),
        );
    }
    for &(refused, table) in PACKAGE_CASES {
        cases.extend(
            table
                .iter()
                .map(|&(what, package)| (what, format!("{package}components:\n{WEB}"), refused)),
        );
    }
    cases
}

#[test]
fn the_schema_and_the_parser_refuse_the_same_manifests() {
    let dir = tempfile::tempdir().unwrap();
    for chart in ["web", "db"] {
        let c = dir.path().join("charts").join(chart);
        std::fs::create_dir_all(c.join("templates")).unwrap();
        std::fs::write(
            c.join("Chart.yaml"),
            format!("apiVersion: v2\nname: {chart}\nversion: 0.1.0\n"),
        )
        .unwrap();
    }
    let file = dir.path().join("kubepkg.yaml");
    let validator = validator();
    let mut wrong = Vec::new();
    for (what, text, refused) in cases() {
        let schema_ok = validator.is_valid(&yaml_to_json(&text));
        let parser = parse_manifest(&text, &file, dir.path());
        let expected = match refused {
            Refused::No => (true, true),
            Refused::Both => (false, false),
            Refused::Parser => (true, false),
        };
        if (schema_ok, parser.is_ok()) != expected {
            wrong.push(format!(
                "{what}: schema accepts: {schema_ok}, parser accepts: {} ({}), expected {refused:?}",
                parser.is_ok(),
                parser.err().map(|e| e.to_string()).unwrap_or_default()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
