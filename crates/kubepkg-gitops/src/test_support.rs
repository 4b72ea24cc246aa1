//! Test support of the Flux and Argo CD compilers' unit tests: a package whose charts exist
//! (`db`, `api`, `web`, `check`, each version 1.2.3) and the charts a compile is given.

use std::collections::BTreeMap;

use kubepkg_model::Package;

use crate::flux::ChartRef;

/// The package `manifest` in a temporary directory holding its charts.
pub(crate) fn package(manifest: &str) -> (tempfile::TempDir, Package) {
    let dir = tempfile::tempdir().unwrap();
    for chart in ["db", "api", "web", "check"] {
        let c = dir.path().join(chart);
        std::fs::create_dir_all(c.join("templates")).unwrap();
        std::fs::write(
            c.join("Chart.yaml"),
            format!("apiVersion: v2\nname: {chart}\nversion: 1.2.3\n"),
        )
        .unwrap();
    }
    let file = dir.path().join("kubepkg.yaml");
    let package = kubepkg_model::parse::parse_manifest(manifest, &file, dir.path()).expect("valid");
    (dir, package)
}

/// The package both compilers' tests compile: shop 2.0.0 (rollback-safe), web depending on api
/// depending on db (in namespace `data`), and the PreUpgrade hook `check`. api waits for its
/// Certificate `api-tls` and for the further `readyWhen` items `more_ready_when`.
pub(crate) fn shop(more_ready_when: &str) -> String {
    format!(
        "package:
  name: shop
  version: 2.0.0
  rollback: {{safe: true}}
components:
  - name: web
    path: web
    install:
      dependsOn: [api]
  - name: api
    path: api
    values: {{replicas: 2}}
    install:
      dependsOn: [db]
      readyWhen:
        - {{apiVersion: cert-manager.io/v1, kind: Certificate, name: api-tls, condition: Ready}}
{more_ready_when}  - name: db
    path: db
    install:
      namespace: data
  - name: check
    path: check
    install:
      phase: PreUpgrade
"
    )
}

/// Chart `<name>-chart` 1.2.3 (no digest) for each component name.
pub(crate) fn charts(names: &[&str]) -> BTreeMap<String, ChartRef> {
    names
        .iter()
        .map(|n| {
            (
                n.to_string(),
                ChartRef {
                    name: format!("{n}-chart"),
                    version: "1.2.3".into(),
                    digest: None,
                },
            )
        })
        .collect()
}

/// The kind and the name of the object `o`.
fn kind_and_name(o: &serde_json::Value) -> (&str, &str) {
    (
        o["kind"].as_str().unwrap(),
        o["metadata"]["name"].as_str().unwrap(),
    )
}

/// "<kind> <name>" of each object, in order.
pub(crate) fn names(objects: &[serde_json::Value]) -> Vec<String> {
    let name = |o| {
        let (kind, name) = kind_and_name(o);
        format!("{kind} {name}")
    };
    objects.iter().map(name).collect()
}

/// The values a compile is given: api's `replicas` set to `replicas`, nothing for the others.
pub(crate) fn api_replicas(
    replicas: u32,
) -> BTreeMap<String, serde_json::Map<String, serde_json::Value>> {
    let api = serde_json::json!({ "replicas": replicas });
    BTreeMap::from([("api".to_string(), api.as_object().unwrap().clone())])
}

/// Where the object of `kind` named `name` stands among `objects`.
pub(crate) fn position(objects: &[serde_json::Value], kind: &str, name: &str) -> usize {
    objects
        .iter()
        .position(|o| kind_and_name(o) == (kind, name))
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The object of `kind` named `name` among `objects`.
pub(crate) fn object<'a>(
    objects: &'a [serde_json::Value],
    kind: &str,
    name: &str,
) -> &'a serde_json::Value {
    &objects[position(objects, kind, name)]
}
