//! Helm's `crds/` rules (`rules/crds.go`): when the directory exists it is a directory, and
//! every document of every CRD file (this chart's and its subcharts') is plain YAML of
//! `apiextensions.k8s.io` and kind `CustomResourceDefinition`.

use std::path::Path;

use crate::decode::documents;
use crate::support::{Linter, Severity};

/// Runs the CRD rules of the chart in `dir`.
pub fn lint(linter: &mut Linter, dir: &Path) {
    let crds = dir.join("crds");
    let Ok(md) = std::fs::metadata(&crds) else {
        return;
    };
    if !linter.rule(
        Severity::Error,
        "crds/",
        (!md.is_dir()).then(|| "not a directory".to_string()),
    ) {
        return;
    }
    let chart = match kubepkg_chart::load(dir) {
        Ok(c) => c,
        Err(e) => {
            linter.error("crds/", e.to_string());
            return;
        }
    };
    for (name, data) in crd_files(&chart) {
        let text = String::from_utf8_lossy(&data);
        for doc in documents(&text) {
            match doc {
                Err(e) => {
                    linter.error(&name, format!("unable to parse YAML: {e}"));
                    return;
                }
                Ok(None) => {}
                Ok(Some(s)) => {
                    linter.rule(
                        Severity::Error,
                        &name,
                        (!s.api_version.starts_with("apiextensions.k8s.io"))
                            .then(|| "apiVersion is not in 'apiextensions.k8s.io'".to_string()),
                    );
                    linter.rule(
                        Severity::Error,
                        &name,
                        (s.kind != "CustomResourceDefinition")
                            .then(|| "object kind is not 'CustomResourceDefinition'".to_string()),
                    );
                }
            }
        }
    }
}

/// `Chart.CRDObjects()` by file name within its chart (`crds/x.yaml`), this chart's first.
fn crd_files(chart: &kubepkg_chart::Chart) -> Vec<(String, std::sync::Arc<[u8]>)> {
    let name = chart.name().to_string();
    chart
        .crd_objects(&name)
        .into_iter()
        .map(|(full, data)| {
            let rel = full.rsplit_once("/crds/").map(|(_, f)| format!("crds/{f}"));
            (rel.unwrap_or(full), data)
        })
        .collect()
}
