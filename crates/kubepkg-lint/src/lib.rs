//! Lint rules for kubepkg: `kubepkg lint PKG|CHART`.
//!
//! - Charts get Helm's chart lint rules with Helm's messages (`helm lint`, Helm v4.3.1's
//!   `pkg/chart/v2/lint/rules`): [`chartfile`] (`Chart.yaml`), [`values`] (`values.yaml` and
//!   the schema), [`templates`] (rendered through kubepkg's one render path, in Helm's lint
//!   mode), [`dependencies`] and [`crds`], in Helm's order ([`chart::lint_chart`]). Object
//!   names follow [`names`], deprecated APIs [`deprecations`]; [`decode`] reads manifests as
//!   apimachinery's YAML-or-JSON decoder does.
//! - Packages ([`package`]) get everything the package loader refuses (the one loader of
//!   `kubepkg_package`), kubepkg's own warnings, and the chart rules for each chart.
//! - [`report`] prints results as `helm lint` does, or as kubepkg's JSON.
//!
//! Messages are [`support::Message`]s: a [`support::Severity`], a path and a text.
//!
//! The deprecated-API table of [`deprecations`] is generated from k8s.io/api by
//! `tools/lint-ref/deprecated_apis.py`. [`names`] holds Kubernetes' object name rules. The
//! command is described in docs/chart-verbs.md.

#![forbid(unsafe_code)]

pub mod chart;
pub mod chartfile;
pub mod crds;
pub mod decode;
pub mod dependencies;
pub mod deprecations;
pub mod names;
pub mod package;
pub mod report;
pub mod support;
pub mod templates;
mod urls;
pub mod values;

pub use chart::{Target, lint_chart, lint_path};
pub use report::{LintReport, Outcome};
pub use support::{Linter, Message, Severity};

/// What a lint run takes besides the path (Helm's `helm lint` flags).
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// `--strict`: warnings fail the lint too.
    pub strict: bool,
    /// `.Release.Namespace` for the render (`-n`, else `default`).
    pub namespace: String,
    /// `--kube-version`: `.Capabilities.KubeVersion` and the deprecation checks.
    pub kube_version: Option<kubepkg_chart::objects::KubeVersion>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
}

/// Why a path could not be linted at all (printed as `Error TEXT` under its heading, as Helm
/// prints a chart it cannot open).
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    /// The path has no `Chart.yaml` (and, for `kubepkg lint`, no `kubepkg.yaml`).
    #[error("unable to check Chart.yaml file in chart: stat {path}: no such file or directory")]
    NotAChart { path: String },
    /// A chart archive could not be read or unpacked.
    #[error("unable to extract tarball: {0}")]
    Extract(String),
    /// The scratch directory for an archive could not be made or written.
    #[error("unable to create temp dir to extract tarball: {0}")]
    Scratch(#[source] std::io::Error),
}
