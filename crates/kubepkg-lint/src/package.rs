//! A package linted: everything the package loader refuses (`kubepkg_model::source::load`,
//! the one reader and validator of `kubepkg.yaml`), a render of every component as `plan`
//! renders it, kubepkg's warnings, and Helm's chart rules for each component's chart.
//!
//! Warnings (kubepkg's own):
//! - a component without `readyWhen` whose chart creates custom resources (objects whose
//!   apiVersion is not one of Kubernetes' built-in API versions): kubepkg waits only for the
//!   readiness it knows, so it cannot tell when those are ready;
//! - a `PreUpgrade` hook component whose chart has no Job: nothing runs to completion, so the
//!   hook checks nothing;
//! - `package.rollback.safe` missing: whether the versions before this one may run again
//!   after it has is not said, so a failed upgrade is not rolled back automatically.

use std::path::Path;

use kubepkg_model::manifest::{ChartSource, Phase};
use kubepkg_model::values::UserValues;
use kubepkg_model::{Package, PackageError};
use kubepkg_package::render::{RenderInput, render_package};
use kubepkg_value::Value;

use crate::chart::Scratch;
use crate::support::{Linter, Severity};
use crate::{LintError, LintOptions, chart};

/// The file the package messages are about.
pub const MANIFEST: &str = kubepkg_model::manifest::MANIFEST_FILE;

/// One component's chart, linted.
#[derive(Debug)]
pub struct ChartLint {
    /// The chart as shown in the report (its directory or archive).
    pub path: String,
    pub result: Result<Linter, LintError>,
}

/// A package's lint: the package's own messages and its charts'.
#[derive(Debug)]
pub struct PackageLint {
    pub package: Linter,
    pub charts: Vec<ChartLint>,
}

/// Lints the package in `dir` (`user`: the package's `-f/--set` values, as `plan` takes them).
pub fn lint_package(dir: &Path, user: Option<&UserValues>, opts: &LintOptions) -> PackageLint {
    let mut package = Linter::default();
    let scratch = Scratch::unique("kubepkg-lint-pkg");
    let loaded = kubepkg_model::source::load(dir, &scratch.0);
    let pkg = match loaded {
        Ok(p) => p,
        Err(e) => {
            refusals(&mut package, &e);
            return PackageLint {
                package,
                charts: Vec::new(),
            };
        }
    };
    warnings(&mut package, &pkg, user, opts);
    let mut charts: Vec<ChartLint> = Vec::new();
    for c in &pkg.components {
        // Components sharing a chart: the chart is linted once.
        if !matches!(c.chart, ChartSource::Repository(_))
            && charts
                .iter()
                .any(|l| l.path == c.chart.path().display().to_string())
        {
            continue;
        }
        let (path, result) = match &c.chart {
            ChartSource::Directory(p) => {
                let shown = p.display().to_string();
                let abs = std::path::absolute(p)
                    .map(|a| a.display().to_string())
                    .unwrap_or_else(|_| shown.clone());
                (shown, chart::lint_chart(p, &abs, &Value::empty_map(), opts))
            }
            ChartSource::Archive(p) => {
                let shown = p.display().to_string();
                let r = chart::lint_path(&shown, &Value::empty_map(), opts);
                (shown, r)
            }
            ChartSource::Repository(r) => {
                package.rule(
                    Severity::Info,
                    MANIFEST,
                    Some(format!(
                        "component {:?}: its chart comes from the repository {} ({} {}) and is not linted",
                        c.name, r.repository, r.name, r.version
                    )),
                );
                continue;
            }
        };
        charts.push(ChartLint { path, result });
    }
    PackageLint { package, charts }
}

/// One ERROR per problem the loader found.
fn refusals(linter: &mut Linter, e: &PackageError) {
    match e {
        PackageError::Invalid { problems, .. } => {
            for p in problems {
                let mut text = String::new();
                if let Some(line) = p.line {
                    text.push_str(&format!("line {line}"));
                    if let Some(col) = p.column {
                        text.push_str(&format!(", column {col}"));
                    }
                    text.push_str(": ");
                }
                if let Some(c) = &p.component {
                    text.push_str(&format!("component {c:?}: "));
                }
                text.push_str(&p.kind.to_string());
                linter.error(MANIFEST, text);
            }
        }
        other => {
            linter.error(MANIFEST, other.to_string());
        }
    }
}

fn warnings(linter: &mut Linter, pkg: &Package, user: Option<&UserValues>, opts: &LintOptions) {
    if pkg.meta.rollback_safe.is_none() && !pkg.bare_chart {
        linter.rule(
            Severity::Warning,
            MANIFEST,
            Some(
                "package.rollback.safe is not set: say whether the versions before this one may run again once it has run (a failed upgrade is rolled back automatically only when it is true)"
                    .into(),
            ),
        );
    }
    let namespace = if opts.namespace.is_empty() {
        "default"
    } else {
        &opts.namespace
    };
    let caps = kubepkg_chart::objects::Capabilities::new(opts.kube_version.clone(), &[]);
    let mut input = RenderInput::new(&pkg.meta.name, namespace, caps);
    input.user = user;
    let rendered = match render_package(pkg, &input) {
        Ok(r) => r,
        Err(e) => {
            linter.error(MANIFEST, e.to_string());
            return;
        }
    };
    let builtin = kubepkg_chart::objects::default_api_versions();
    for c in &pkg.components {
        let Some(r) = rendered.get(&c.name) else {
            continue;
        };
        if c.phase == Phase::Install && c.ready_when.is_empty() {
            let mut custom: Vec<String> = r
                .objects
                .iter()
                .filter(|o| !builtin.iter().any(|b| b == &o.api_version))
                .map(|o| format!("{} {}", o.api_version, o.kind))
                .collect();
            custom.dedup();
            if !custom.is_empty() {
                linter.rule(
                    Severity::Warning,
                    MANIFEST,
                    Some(format!(
                        "component {:?}: its chart creates custom resources ({}) and the component has no readyWhen: kubepkg cannot tell when they are ready",
                        c.name,
                        custom.join(", ")
                    )),
                );
            }
        }
        if c.phase == Phase::PreUpgrade
            && !r
                .objects
                .iter()
                .any(|o| o.kind == "Job" && o.api_version == "batch/v1")
        {
            linter.rule(
                Severity::Warning,
                MANIFEST,
                Some(format!(
                    "component {:?}: a PreUpgrade hook whose chart has no Job: nothing runs to completion, so the hook checks nothing",
                    c.name
                )),
            );
        }
    }
}
