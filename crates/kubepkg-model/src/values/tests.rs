//! Values layering, provenance and the upgrade context.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;
use crate::source::load_dir;

fn kubevirt() -> Package {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/kubevirt"))
        .unwrap()
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn sources(e: &Effective) -> Vec<(String, String)> {
    e.explain
        .iter()
        .map(|x| (x.path.clone(), x.source.to_string()))
        .collect()
}

/// User values with the one file `name` holding `text`.
fn with_file(name: &str, text: &str) -> UserValues {
    let mut user = UserValues::new();
    user.add_file(name, text).unwrap();
    user
}
#[test]
fn precedence_chart_then_package_then_files_then_set() {
    let pkg = kubevirt();
    let mut user = with_file(
        "prod.yaml",
        "kubevirt:\n  replicas: 3\n  extra: {a: 1}\noperator:\n  replicas: 5\n",
    );
    user.add_file("late.yaml", "kubevirt:\n  extra: {b: 2}\n")
        .unwrap();
    user.add_set("kubevirt.replicas=4,kubevirt.extra.a=9")
        .unwrap();
    user.check(&pkg).unwrap();
    let chart =
        obj(json!({"featureGates": [], "replicas": 1, "image": "kv:1", "nested": {"keep": true}}));
    let e = effective(&chart, &pkg, "kubevirt", &user, None);
    assert_eq!(
        Value::Object(e.values.clone()),
        json!({"extra": {"a": 9, "b": 2.0}, "featureGates": ["LiveMigration"], "image": "kv:1", "nested": {"keep": true}, "replicas": 4})
    );
    assert_eq!(
        sources(&e),
        [
            (
                "extra.a".into(),
                "--set kubevirt.replicas=4,kubevirt.extra.a=9".into()
            ),
            ("extra.b".into(), "file late.yaml".into()),
            (
                "featureGates".into(),
                "package default (kubepkg.yaml)".into()
            ),
            ("image".into(), "chart default".into()),
            ("nested.keep".into(), "chart default".into()),
            (
                "replicas".into(),
                "--set kubevirt.replicas=4,kubevirt.extra.a=9".into()
            ),
        ]
    );
}

#[test]
fn null_deletes_a_key_as_helm_coalescing_does() {
    let pkg = kubevirt();
    let user = with_file("f.yaml", "kubevirt:\n  featureGates: null\n  image: null\n");
    let chart = obj(json!({"featureGates": [], "replicas": 1, "image": "kv:1"}));
    let e = effective(&chart, &pkg, "kubevirt", &user, None);
    assert_eq!(Value::Object(e.values), json!({"replicas": 2.0}));
    // The user-supplied map keeps the nulls, so the chart layer deletes the chart defaults too.
    assert_eq!(
        Value::Object(user.given("kubevirt")),
        json!({"featureGates": null, "image": null})
    );
}

#[test]
fn set_addresses_component_then_path() {
    let mut user = UserValues::new();
    user.add_set("operator.replicas=2").unwrap();
    user.add_set_string("operator.tag=010").unwrap();
    assert_eq!(
        Value::Object(user.given("operator")),
        json!({"replicas": 2, "tag": "010"})
    );
    // --set integers stay int64, file numbers are float64.
    assert!(user.given("operator")["replicas"].is_i64());
    let f = with_file("a.yaml", "operator: {replicas: 2}\n");
    assert!(f.given("operator")["replicas"].is_f64());
}

#[test]
fn set_string_beats_set_beats_files_whatever_the_command_line_order() {
    let mut user = UserValues::new();
    user.add_set_string("web.x=s").unwrap();
    user.add_set("web.x=1").unwrap();
    user.add_file("a.yaml", "web: {x: f}\n").unwrap();
    assert_eq!(user.given("web")["x"], json!("s"));
}

#[test]
fn unknown_component_key_is_refused() {
    let pkg = kubevirt();
    let user = with_file("prod.yaml", "kubvirt: {replicas: 3}\n");
    let e = user.check(&pkg).unwrap_err().to_string();
    assert_eq!(
        e,
        "file prod.yaml sets values for \"kubvirt\", which is not a component of package kubevirt; the top-level key must be one of: operator, kubevirt, migrate, worker"
    );
    let mut user = UserValues::new();
    user.add_set("replicas=2").unwrap();
    assert!(
        user.check(&pkg)
            .unwrap_err()
            .to_string()
            .contains("--set replicas=2 sets values for \"replicas\"")
    );
    let user = with_file("x.yaml", "operator: 3\n");
    assert!(matches!(user.check(&pkg), Err(ValuesError::NotAMap { .. })));
}

#[test]
fn bad_values_file_and_set_line() {
    let mut user = UserValues::new();
    let e = user
        .add_file("l.yaml", "- a\n- b\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("values file l.yaml: "), "{e}");
    let e = user.add_file("s.yaml", "a: [\n").unwrap_err().to_string();
    assert!(
        e.starts_with("values file s.yaml: ")
            && e.contains("error converting YAML to JSON: yaml: line 1:"),
        "{e}"
    );
    let e = user.add_set("operator.replicas").unwrap_err().to_string();
    assert_eq!(
        e,
        "--set \"operator.replicas\": key \"replicas\" has no value"
    );
    assert!(user.add_file("empty.yaml", "").is_ok());
}

#[test]
fn upgrade_context_values() {
    let from = kubepkg_semver::Version::new(1, 3, 0);
    let to = kubepkg_semver::Version::new(1, 4, 0);
    let prev = obj(json!({"image": "worker:1.3.0", "kubepkg": {"fromVersion": "1.2.0"}}));
    let ctx = upgrade_context(Some(&from), &to, Some(&prev));
    assert_eq!(
        Value::Object(ctx.clone()),
        json!({"kubepkg": {"fromVersion": "1.3.0", "toVersion": "1.4.0", "previous": {"image": "worker:1.3.0"}}})
    );
    let first = upgrade_context(None, &to, None);
    assert_eq!(
        Value::Object(first),
        json!({"kubepkg": {"fromVersion": "", "toVersion": "1.4.0", "previous": {}}})
    );
    // The context is the top layer and is explained as such.
    let pkg = kubevirt();
    let mut user = UserValues::new();
    user.add_set("worker.kubepkg.toVersion=9.9.9").unwrap();
    let e = effective(
        &obj(json!({"image": "worker:1.4.0"})),
        &pkg,
        "worker",
        &user,
        Some(&ctx),
    );
    assert_eq!(e.values["kubepkg"]["toVersion"], json!("1.4.0"));
    assert!(
        e.explain
            .iter()
            .any(|x| x.path == "kubepkg.previous.image" && x.source == ValueSource::UpgradeContext)
    );
    let s = supplied(&pkg, "worker", &user, Some(&ctx));
    assert_eq!(s["kubepkg"]["toVersion"], json!("1.4.0"));
}

#[test]
fn empty_maps_and_dotted_keys_are_explained() {
    let pkg = kubevirt();
    let user = UserValues::new();
    let chart = obj(json!({"annotations": {}, "labels": {"app.kubernetes.io/name": "x"}}));
    let e = effective(&chart, &pkg, "operator", &user, None);
    assert_eq!(
        sources(&e),
        [
            ("annotations".into(), "chart default".into()),
            (
                "labels.app\\.kubernetes\\.io/name".into(),
                "chart default".into()
            ),
        ]
    );
    let text = render_explain("operator", &e);
    assert_eq!(
        text,
        "# operator\nannotations: {}  # chart default\nlabels.app\\.kubernetes\\.io/name: \"x\"  # chart default\n"
    );
}

#[test]
fn numbers_print_as_go_prints_them() {
    // As `helm get values` shows them: encoding/json prints the float64 ('f' format below
    // 1e21, 'e' above), sigs.k8s.io/yaml re-reads that text (integral numbers become ints) and
    // go-yaml v2 prints floats with strconv 'g' (so 1e-7 is "1e-07").
    let n = |f: f64| display_value(&Value::Number(serde_json::Number::from_f64(f).unwrap()));
    assert_eq!(n(2.0), "2");
    assert_eq!(n(1.5), "1.5");
    assert_eq!(n(1e21), "1e+21");
    assert_eq!(n(1e-7), "1e-07");
    assert_eq!(n(123456789.0), "123456789");
    assert_eq!(display_value(&json!(-3)), "-3");
}

#[test]
fn recorded_values_round_trip() {
    let mut user = with_file("a.yaml", "web: {x: 1}\ndb: {}\n");
    user.add_set("web.y=2").unwrap();
    let given = user.given_all();
    assert_eq!(given.keys().collect::<Vec<_>>(), ["web"]);
    let back = UserValues::from_recorded(&given, ValueSource::File("revision 3".into()));
    assert_eq!(back.given("web"), user.given("web"));
}

#[test]
fn merge_maps_is_helms() {
    let a = obj(json!({"a": {"b": 1, "c": 2}, "l": [1, 2], "s": "x"}));
    let b = obj(json!({"a": {"c": 3, "d": null}, "l": [3], "s": {"now": "map"}}));
    assert_eq!(
        Value::Object(merge_maps(a, &b)),
        json!({"a": {"b": 1, "c": 3, "d": null}, "l": [3], "s": {"now": "map"}})
    );
}

#[test]
fn values_files_are_read_as_helm_reads_them() {
    // go-yaml v2 (YAML 1.1) scalars through JSON: `yes` is a boolean, 0x1F an integer, every
    // number a float64; a second document merges over the first (Helm 4's loader).
    let user = with_file(
        "v.yaml",
        "web:\n  enabled: yes\n  port: 0x1F\n  ratio: 1.5\n---\nweb:\n  extra: on\n",
    );
    let g = user.given("web");
    assert_eq!(g["enabled"], json!(true));
    assert_eq!(g["extra"], json!(true));
    assert!(g["port"].is_f64() && g["port"].as_f64() == Some(31.0));
    assert_eq!(g["ratio"], json!(1.5));
}

#[derive(serde::Deserialize)]
struct OracleFile {
    name: String,
    text: String,
}

#[derive(serde::Deserialize)]
struct OracleSetFile {
    line: String,
    path: String,
    text: String,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct OracleCase {
    name: String,
    chart: Map<String, Value>,
    #[serde(default)]
    files: Vec<OracleFile>,
    #[serde(default)]
    set_json: Vec<String>,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    set_string: Vec<String>,
    #[serde(default)]
    set_file: Vec<OracleSetFile>,
}

/// Numbers compared as float64 (Helm's toJson prints int64 2 and float64 2 alike).
fn as_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.iter().map(as_floats).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), as_floats(v))).collect())
        }
        other => other.clone(),
    }
}

fn oracle_user(case: &OracleCase) -> UserValues {
    // Flags given highest kind first: Helm's order does not depend on the command line's.
    let mut user = UserValues::new();
    for f in &case.set_file {
        let text = f.text.clone();
        let path = f.path.clone();
        let read = move |p: &str| {
            if p == path {
                Ok(text.clone())
            } else {
                Err(format!("open {p}: no such file or directory"))
            }
        };
        user.add_set_file(&f.line, &read).unwrap();
    }
    for s in &case.set_string {
        user.add_set_string(s).unwrap();
    }
    for s in &case.set {
        user.add_set(s).unwrap();
    }
    for s in &case.set_json {
        user.add_set_json(s).unwrap();
    }
    for f in &case.files {
        user.add_file(&f.name, &f.text).unwrap();
    }
    user
}

fn oracle_cases() -> (Vec<OracleCase>, Map<String, Value>) {
    let cases: Vec<OracleCase> =
        serde_json::from_str(include_str!("../../testdata/values-precedence/cases.json")).unwrap();
    let helm: Map<String, Value> =
        serde_json::from_str(include_str!("../../testdata/values-precedence/helm.json")).unwrap();
    (cases, helm)
}

#[test]
fn precedence_matches_helm_template() {
    // Oracle: testdata/values-precedence/helm.json, written by gen.py from real `helm template`
    // (v4.3.1) printing `.Values` for the same chart defaults and flags.
    let (cases, helm) = oracle_cases();
    assert_eq!(cases.len(), helm.len());
    let pkg = kubevirt();
    for case in &cases {
        let user = oracle_user(case);
        let chart = match case.chart.get("app") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        let e = effective(&chart, &pkg, "app", &user, None);
        assert_eq!(
            as_floats(&Value::Object(e.values)),
            as_floats(&helm[&case.name]["app"]),
            "case {}",
            case.name
        );
    }
}

#[test]
fn every_flag_kind_is_named_as_the_source_of_what_it_won() {
    let (cases, _) = oracle_cases();
    let by_name = |n: &str| cases.iter().find(|c| c.name == n).unwrap();
    let explain = |n: &str| {
        let case = by_name(n);
        let chart = match case.chart.get("app") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        sources(&effective(
            &chart,
            &kubevirt(),
            "app",
            &oracle_user(case),
            None,
        ))
    };
    assert_eq!(
        explain("set_json_beats_files_set_beats_set_json"),
        [
            ("a".to_string(), "file f.yaml".to_string()),
            ("b.k".into(), "--set-json app.b={\"k\":[1,2]}".into()),
            ("c".into(), "--set app.c=set".into()),
        ]
    );
    assert_eq!(
        explain("set_file_beats_set_string"),
        [(
            "cert".to_string(),
            "--set-file app.cert=cert.pem".to_string()
        )]
    );
    // The list a file gave, edited by --set at one index: the list as a whole is --set's now.
    assert_eq!(
        explain("set_index_edits_the_list_a_file_gave"),
        [("list".to_string(), "--set app.list[1]=z".to_string())]
    );
    assert_eq!(
        explain("later_set_of_the_same_kind_wins"),
        [
            ("r".to_string(), "--set app.r=2,app.s=x".to_string()),
            ("s".into(), "--set app.r=2,app.s=x".into()),
        ]
    );
    assert_eq!(
        explain("set_json_object_form_merges"),
        [
            ("a".to_string(), "chart default".to_string()),
            (
                "j".into(),
                "--set-json {\"app\": {\"m\": {\"y\": 2}, \"j\": true}}".into()
            ),
            ("m.x".into(), "file f.yaml".into()),
            (
                "m.y".into(),
                "--set-json {\"app\": {\"m\": {\"y\": 2}, \"j\": true}}".into()
            ),
        ]
    );
}

#[test]
fn bad_set_json_and_set_file_lines_are_refused_with_the_flag() {
    let mut user = UserValues::new();
    let e = user.add_set_json("{not json").unwrap_err().to_string();
    assert!(e.starts_with("--set-json \"{not json\": "), "{e}");
    let e = user
        .add_set_file("app.cert=missing.pem", &|p: &str| {
            Err(format!("open {p}: no such file or directory"))
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("--set-file") && e.contains("missing.pem"), "{e}");
    assert!(user.is_empty());
}

#[test]
fn values_print_as_helm_get_values() {
    // Expected text as `helm get values` prints these values (keys sorted, floats in Go form).
    let v = obj(
        json!({"replicas": 2.0, "image": {"tag": "v1", "repo": "x/y"}, "big": 1e21, "list": ["a", 1.5], "empty": {}}),
    );
    assert_eq!(
        values_yaml(&v),
        "big: 1e+21\nempty: {}\nimage:\n  repo: x/y\n  tag: v1\nlist:\n- a\n- 1.5\nreplicas: 2\n"
    );
}
