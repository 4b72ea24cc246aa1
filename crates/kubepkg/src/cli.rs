//! Command-line definitions (clap). Only argument shapes live here; behaviour is in `commands`.

use clap::{Parser, Subcommand};

/// kubepkg installs and upgrades packages of Helm charts safely: components one at a time in
/// dependency order, each waiting until really ready.
#[derive(Debug, Parser)]
#[command(name = "kubepkg", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the kubepkg version.
    Version,
    /// Render chart templates locally and print the manifests, as `helm template` does.
    Template(Box<TemplateArgs>),
}

/// Arguments of `kubepkg template [NAME] CHART` (Helm's flag names and meanings).
#[derive(Debug, clap::Args)]
pub struct TemplateArgs {
    /// Release name and chart path (directory or .tgz); with one argument the name is
    /// `release-name`.
    #[arg(num_args = 1..=2, required = true)]
    pub args: Vec<String>,
    /// Values files (repeatable or comma-separated; `-` reads standard input).
    #[arg(short = 'f', long = "values", value_delimiter = ',')]
    pub values: Vec<String>,
    /// Set values (`a.b=c,d[0]=e`), typed as Helm does.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Set string values.
    #[arg(long = "set-string")]
    pub set_string: Vec<String>,
    /// Set values from files (`key=path`).
    #[arg(long = "set-file")]
    pub set_file: Vec<String>,
    /// Set JSON values (`key=JSON` or a JSON object).
    #[arg(long = "set-json")]
    pub set_json: Vec<String>,
    /// Set literal string values (no parsing of the value).
    #[arg(long = "set-literal")]
    pub set_literal: Vec<String>,
    /// Namespace of the release (default: $HELM_NAMESPACE or `default`).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Only show manifests rendered from the given templates (glob on `templates/…`).
    #[arg(short = 's', long = "show-only")]
    pub show_only: Vec<String>,
    /// Include CRDs (the chart's `crds/` files) in the output.
    #[arg(long = "include-crds")]
    pub include_crds: bool,
    /// Accepted for compatibility; CRDs are only printed with --include-crds.
    #[arg(long = "skip-crds")]
    pub skip_crds: bool,
    /// Extra API versions for `.Capabilities.APIVersions` (repeatable or comma-separated).
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// Kubernetes version for `.Capabilities.KubeVersion`.
    #[arg(long = "kube-version")]
    pub kube_version: Option<String>,
    /// Set `.Release.IsUpgrade` instead of `.Release.IsInstall`.
    #[arg(long = "is-upgrade")]
    pub is_upgrade: bool,
    /// Write the manifests to files under this directory instead of standard output.
    #[arg(long = "output-dir")]
    pub output_dir: Option<std::path::PathBuf>,
    /// Use the release name in the --output-dir path.
    #[arg(long = "release-name")]
    pub release_name: bool,
    /// Leave out test hooks.
    #[arg(long = "skip-tests")]
    pub skip_tests: bool,
    /// Leave out all hooks.
    #[arg(long = "no-hooks")]
    pub no_hooks: bool,
    /// Do not validate values against `values.schema.json`.
    #[arg(long = "skip-schema-validation")]
    pub skip_schema_validation: bool,
}
