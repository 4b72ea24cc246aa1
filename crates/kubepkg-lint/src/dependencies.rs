//! Helm's dependency rules (`rules/dependencies.go`): the chart loads, every chart in
//! `charts/` is declared, no two declarations share a name or alias, and every declared
//! dependency is in `charts/` (a warning). Messages name the chart's absolute directory, as
//! Helm's do.

use std::path::Path;

use crate::support::{Linter, Severity};

/// Runs the dependency rules of the chart in `dir`, naming it `shown` in the messages.
pub fn lint(linter: &mut Linter, dir: &Path, shown: &str) {
    let chart = match kubepkg_chart::chart::load_dir(dir) {
        Ok(c) => c,
        Err(e) => {
            linter.error("", format!("unable to load chart\n\t{e}"));
            return;
        }
    };
    let declared: Vec<&kubepkg_chart::metadata::Dependency> =
        chart.metadata.dependencies.iter().flatten().collect();
    let loaded: Vec<&str> = chart.dependencies.iter().map(|d| d.name()).collect();
    let undeclared: Vec<&str> = loaded
        .iter()
        .copied()
        .filter(|n| !declared.iter().any(|d| d.name == *n))
        .collect();
    linter.rule(
        Severity::Error,
        shown,
        (!undeclared.is_empty()).then(|| {
            format!(
                "chart metadata is missing these dependencies: {}",
                undeclared.join(",")
            )
        }),
    );
    let mut seen: Vec<&str> = Vec::new();
    let mut shadowing: Vec<&str> = Vec::new();
    for d in &declared {
        let key = if d.alias.is_empty() {
            &d.name
        } else {
            &d.alias
        };
        if seen.contains(&key.as_str()) {
            shadowing.push(key);
        }
        seen.push(key);
    }
    linter.rule(
        Severity::Error,
        shown,
        (!shadowing.is_empty()).then(|| {
            format!(
                "multiple dependencies with name or alias: {}",
                shadowing.join(",")
            )
        }),
    );
    let missing: Vec<&str> = declared
        .iter()
        .filter(|d| !loaded.contains(&d.name.as_str()))
        .map(|d| d.name.as_str())
        .collect();
    linter.rule(
        Severity::Warning,
        shown,
        (!missing.is_empty()).then(|| {
            format!(
                "chart directory is missing these dependencies: {}",
                missing.join(",")
            )
        }),
    );
}
