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
