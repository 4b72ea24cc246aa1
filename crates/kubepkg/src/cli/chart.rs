//! The arguments of Helm's chart and repository verbs and kubepkg's registry verbs:
//! `template`, `pull`, `push`, `sign`, `registry`, `repo`, `search`, `dependency`, `lint`,
//! `create`, `show`.

use std::time::Duration;

use clap::Subcommand;

use super::common::{
    ChartSourceArgs, PostRendererArgs, RegistryAccessArgs, SignWithArgs, ValuesArgs, formats,
    go_duration,
};
use crate::format::Format;

// Arguments of `kubepkg template [NAME] CHART` (Helm's flag names and meanings).
#[derive(Debug, clap::Args)]
pub struct TemplateArgs {
    /// Release name and chart (a directory or .tgz, `oci://…`, `REPO/CHART`, a chart URL);
    /// with one argument the name is `release-name`.
    #[arg(num_args = 1..=2, required = true)]
    pub args: Vec<String>,
    #[command(flatten)]
    pub source: ChartSourceArgs,
    #[command(flatten)]
    pub values: ValuesArgs,
    #[command(flatten)]
    pub post_render: PostRendererArgs,
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
    /// Generate the release name (`<chart>-<unix time>`), as Helm does.
    #[arg(short = 'g', long = "generate-name")]
    pub generate_name: bool,
    /// `client` (default) renders offline; `server` renders against the cluster's
    /// `.Capabilities` (its version and served API versions), as `helm template` does.
    #[arg(long = "dry-run", num_args = 0..=1, default_missing_value = "client")]
    pub dry_run: Option<String>,
    /// Accepted for compatibility with `helm template` (no effect offline).
    #[arg(long = "kube-context")]
    pub kube_context: Option<String>,
    /// Accepted for compatibility with `helm template` (no effect offline).
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<String>,
    /// Accepted for compatibility with `helm template` (no effect when rendering).
    #[arg(long = "create-namespace")]
    pub create_namespace: bool,
    /// Accepted for compatibility with `helm template` (no effect when rendering).
    #[arg(long = "wait", num_args = 0..=1, default_missing_value = "watcher")]
    pub wait: Option<String>,
    /// Accepted for compatibility with `helm template` (no effect when rendering).
    #[arg(long = "timeout", value_parser = go_duration)]
    pub timeout: Option<Duration>,
    /// Accepted for compatibility with `helm template` (no effect when rendering).
    #[arg(long = "description")]
    pub description: Option<String>,
}

// `kubepkg pull CHART`: download a chart archive as `helm pull` does.
#[derive(Debug, clap::Args)]
pub struct PullArgs {
    /// Chart reference: `oci://HOST/REPO/CHART`, `REPO/CHART`, a chart URL, or a name with
    /// --repo.
    pub chart: String,
    #[command(flatten)]
    pub source: ChartSourceArgs,
    /// Directory to write the chart into.
    #[arg(short = 'd', long = "destination", default_value = ".")]
    pub destination: std::path::PathBuf,
    /// Unpack the chart after downloading it.
    #[arg(long = "untar")]
    pub untar: bool,
    /// With --untar: the directory to unpack into (relative to --destination).
    #[arg(long = "untardir", default_value = ".")]
    pub untardir: std::path::PathBuf,
}

/// `kubepkg plugin …`: the plugins Helm 4 installed (`helm plugin list`).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum PluginCommand {
    /// List the plugins in Helm's plugins directories, as `helm plugin list`.
    #[command(visible_alias = "ls")]
    List(PluginListArgs),
}

// Arguments of `kubepkg plugin list`.
#[derive(Debug, clap::Args)]
pub struct PluginListArgs {
    /// Only plugins of this type (`cli/v1`, `getter/v1`, `postrenderer/v1`).
    #[arg(long = "type", value_name = "TYPE")]
    pub plugin_type: Option<String>,
}

/// `kubepkg repo …`: Helm's `repositories.yaml` and repository cache, as `helm repo` keeps them.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RepoCommand {
    /// Add a chart repository.
    Add(Box<RepoAddArgs>),
    /// Download the latest indexes of the chart repositories (all, or those named).
    #[command(visible_alias = "up")]
    Update(RepoUpdateArgs),
    /// List the chart repositories.
    #[command(visible_alias = "ls")]
    List(RepoListArgs),
    /// Remove one or more chart repositories.
    #[command(visible_alias = "rm")]
    Remove(RepoRemoveArgs),
}

// `kubepkg repo add NAME URL`.
#[derive(Debug, clap::Args)]
pub struct RepoAddArgs {
    /// The name the repository is known by (`NAME/CHART`).
    pub name: String,
    pub url: String,
    /// Chart repository username.
    #[arg(long = "username", default_value = "")]
    pub username: String,
    /// Chart repository password.
    #[arg(long = "password", default_value = "")]
    pub password: String,
    /// Read the chart repository password from standard input.
    #[arg(long = "password-stdin")]
    pub password_stdin: bool,
    /// Send the credentials to every domain the index points at, not only the repository's.
    #[arg(long = "pass-credentials")]
    pub pass_credentials: bool,
    /// Replace (overwrite) the repository if it already exists.
    #[arg(long = "force-update")]
    pub force_update: bool,
    /// Identify the HTTPS client with this certificate file.
    #[arg(long = "cert-file", default_value = "")]
    pub cert_file: String,
    /// Identify the HTTPS client with this key file.
    #[arg(long = "key-file", default_value = "")]
    pub key_file: String,
    /// Verify certificates of HTTPS servers with this CA bundle.
    #[arg(long = "ca-file", default_value = "")]
    pub ca_file: String,
    /// Skip TLS certificate checks for the repository.
    #[arg(long = "insecure-skip-tls-verify")]
    pub insecure_skip_tls_verify: bool,
    /// Time to wait for the index download.
    #[arg(long = "timeout", value_parser = go_duration, default_value = "2m0s")]
    pub timeout: Duration,
}

// `kubepkg repo update [NAME…]`.
#[derive(Debug, clap::Args)]
pub struct RepoUpdateArgs {
    pub names: Vec<String>,
    /// Time to wait for each index download.
    #[arg(long = "timeout", value_parser = go_duration, default_value = "2m0s")]
    pub timeout: Duration,
}

// `kubepkg repo list`.
#[derive(Debug, clap::Args)]
pub struct RepoListArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::HELM))]
    pub output: Format,
    /// Print no header line.
    #[arg(long = "no-headers")]
    pub no_headers: bool,
}

// `kubepkg repo remove NAME…`.
#[derive(Debug, clap::Args)]
pub struct RepoRemoveArgs {
    #[arg(required = true)]
    pub names: Vec<String>,
}

/// `kubepkg dependency …`, as `helm dependency`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum DependencyCommand {
    /// Resolve Chart.yaml's dependencies, download them into charts/ and write Chart.lock.
    #[command(visible_alias = "up")]
    Update(DependencyArgs),
    /// Download the dependencies Chart.lock names into charts/ (no lock: as update).
    Build(DependencyArgs),
    /// List the dependencies of a chart and whether charts/ has them.
    #[command(visible_alias = "ls")]
    List(DependencyListArgs),
}

// `kubepkg dependency update|build CHART`.
#[derive(Debug, clap::Args)]
pub struct DependencyArgs {
    /// The chart directory.
    pub chart: std::path::PathBuf,
    /// Do not refresh the repository indexes first.
    #[arg(long = "skip-refresh")]
    pub skip_refresh: bool,
    /// For `oci://` dependencies.
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

// `kubepkg dependency list CHART`.
#[derive(Debug, clap::Args)]
pub struct DependencyListArgs {
    /// The chart directory or archive.
    #[arg(default_value = ".")]
    pub chart: std::path::PathBuf,
}

/// `kubepkg search …`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum SearchCommand {
    /// Search the added repositories' indexes for a keyword (all charts without one).
    Repo(SearchRepoArgs),
}

// `kubepkg search repo [KEYWORD…]`, as `helm search repo`.
#[derive(Debug, clap::Args)]
pub struct SearchRepoArgs {
    pub keyword: Vec<String>,
    /// Read the keyword as a regular expression.
    #[arg(short = 'r', long = "regexp")]
    pub regexp: bool,
    /// Print every version of each chart, not only the newest.
    #[arg(short = 'l', long = "versions")]
    pub versions: bool,
    /// Include pre-release versions (`>0.0.0-0`); ignored when --version is set.
    #[arg(long = "devel")]
    pub devel: bool,
    /// A SemVer constraint the versions must meet.
    #[arg(long = "version", default_value = "")]
    pub version: String,
    /// Maximum column width of the table.
    #[arg(long = "max-col-width", default_value_t = 50)]
    pub max_col_width: usize,
    /// Fail when nothing is found.
    #[arg(long = "fail-on-no-result")]
    pub fail_on_no_result: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::HELM))]
    pub output: Format,
}

// `kubepkg push CHART.tgz oci://HOST/REPO`.
#[derive(Debug, clap::Args)]
pub struct PushArgs {
    /// The chart archive (`.tgz`, as `helm package` makes it).
    pub chart: std::path::PathBuf,
    /// The repository to push into: `oci://HOST[:PORT]/REPO` (the chart goes to
    /// `REPO/<chart name>:<version>`).
    pub remote: String,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub sign: SignWithArgs,
}

// `kubepkg sign oci://HOST/REPO/NAME:TAG|@DIGEST --key KEY`.
#[derive(Debug, clap::Args)]
pub struct SignArgs {
    /// The chart or package to sign: `oci://HOST[:PORT]/REPO/NAME:TAG` or `…@sha256:…`.
    pub reference: String,
    /// The cosign private key (cosign.key; its password from COSIGN_PASSWORD, else standard
    /// input or a prompt), or an unencrypted PKCS#8/SEC1 EC P-256 key.
    #[arg(long = "key", value_name = "KEY")]
    pub key: std::path::PathBuf,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

/// `kubepkg registry login|logout`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RegistryCommand {
    /// Record credentials for a registry (checked against it first), as `helm registry login`.
    Login(Box<RegistryLoginArgs>),
    /// Remove a registry's credentials, as `helm registry logout`.
    Logout(Box<RegistryLogoutArgs>),
}

// `kubepkg registry login HOST`.
#[derive(Debug, clap::Args)]
pub struct RegistryLoginArgs {
    /// The registry, `HOST[:PORT]`.
    pub host: String,
    /// Registry username.
    #[arg(short = 'u', long = "username")]
    pub username: String,
    /// Registry password or identity token.
    #[arg(short = 'p', long = "password", conflicts_with = "password_stdin")]
    pub password: Option<String>,
    /// Read the password from standard input.
    #[arg(long = "password-stdin")]
    pub password_stdin: bool,
    /// Use plain HTTP (no TLS).
    #[arg(long = "plain-http")]
    pub plain_http: bool,
    /// Skip verifying the registry's certificate.
    #[arg(long = "insecure")]
    pub insecure: bool,
    /// Verify the registry's certificate with this CA bundle.
    #[arg(long = "ca-file")]
    pub ca_file: Option<std::path::PathBuf>,
    /// Identify the registry client with this certificate file (PEM; with --key-file).
    #[arg(long = "cert-file")]
    pub cert_file: Option<std::path::PathBuf>,
    /// Identify the registry client with this key file (PEM; with --cert-file).
    #[arg(long = "key-file")]
    pub key_file: Option<std::path::PathBuf>,
}

// `kubepkg registry logout HOST`.
#[derive(Debug, clap::Args)]
pub struct RegistryLogoutArgs {
    /// The registry, `HOST[:PORT]`.
    pub host: String,
}

// `kubepkg lint PATH...`: a package directory (kubepkg.yaml), a chart directory or a chart
// archive (Helm's `helm lint` flags).
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Package directories, chart directories or chart archives (.tgz).
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Fail on lint warnings.
    #[arg(long = "strict")]
    pub strict: bool,
    /// Print only warnings and errors.
    #[arg(long = "quiet")]
    pub quiet: bool,
    /// Lint dependent charts (the charts of a chart's charts/ directory) too.
    #[arg(long = "with-subcharts")]
    pub with_subcharts: bool,
    /// Do not validate values against values.schema.json.
    #[arg(long = "skip-schema-validation")]
    pub skip_schema_validation: bool,
    /// Kubernetes version used for capabilities and deprecation checks.
    #[arg(long = "kube-version")]
    pub kube_version: Option<String>,
    #[command(flatten)]
    pub values: ValuesArgs,
    /// `.Release.Namespace` of the render (default: $HELM_NAMESPACE or `default`).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Output format: text (as `helm lint`) or json.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::TEXT_JSON))]
    pub output: Format,
}

// `kubepkg create NAME`.
#[derive(Debug, clap::Args)]
pub struct CreateArgs {
    /// The package (or, with --chart, chart) to create: a name, or a path whose last element
    /// is the name.
    pub name: String,
    /// Write a bare chart, exactly as `helm create NAME` does, instead of a package.
    #[arg(long = "chart")]
    pub chart: bool,
}

/// `kubepkg show all|chart|readme|values|crds CHART`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ShowCommand {
    /// Show all the information of the chart (Chart.yaml, values, README, CRDs).
    All(ShowArgs),
    /// Show the chart's Chart.yaml.
    Chart(ShowArgs),
    /// Show the chart's README.
    Readme(ShowArgs),
    /// Show the chart's values.yaml.
    Values(ShowArgs),
    /// Show the chart's CRDs.
    Crds(ShowArgs),
}

// The chart of `kubepkg show …`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Chart reference: a directory or .tgz, `oci://HOST/REPO/CHART`, `REPO/CHART`, a chart
    /// URL, or a name with --repo.
    pub chart: String,
    #[command(flatten)]
    pub source: ChartSourceArgs,
}
