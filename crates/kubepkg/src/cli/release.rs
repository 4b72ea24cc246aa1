//! The arguments of the verbs on a single Helm release (`install`, `upgrade`, `get`, `test`)
//! and of the bare verbs that take a package or a release NAME (`rollback`, `uninstall`,
//! `list`, `status`, `history`).

use std::time::Duration;

use super::common::{
    ChartSourceArgs, ClusterArgs, PostRendererArgs, ProgressArgs, ValuesArgs, formats, go_duration,
};
use crate::format::Format;

// Flags of operations that change a release.
#[derive(Debug, Clone, clap::Args)]
pub struct OperationArgs {
    /// Wait until every object of the release is ready (kstatus rules), showing progress.
    #[arg(long = "wait")]
    pub wait: bool,
    /// Time to wait for any single operation step (Go duration: 5m0s, 90s).
    #[arg(long = "timeout", default_value = "5m0s", value_parser = go_duration)]
    pub timeout: Duration,
    /// Do not run hooks.
    #[arg(long = "no-hooks")]
    pub no_hooks: bool,
    /// A custom description recorded for the revision.
    #[arg(long = "description")]
    pub description: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::HELM))]
    pub output: Format,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

// `kubepkg install NAME CHART`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    pub name: String,
    /// Chart: a directory or .tgz, `oci://HOST/REPO/CHART`, `REPO/CHART`, or a chart URL.
    pub chart: String,
    #[command(flatten)]
    pub source: ChartSourceArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub values: ValuesArgs,
    #[command(flatten)]
    pub op: OperationArgs,
    #[command(flatten)]
    pub post_render: PostRendererArgs,
    /// Create the release namespace if absent.
    #[arg(long = "create-namespace")]
    pub create_namespace: bool,
    /// Uninstall (install) or roll back (upgrade) when the operation fails; implies --wait.
    #[arg(long = "atomic", visible_alias = "rollback-on-failure")]
    pub atomic: bool,
    /// Adopt existing objects that lack this release's ownership metadata.
    #[arg(long = "take-ownership")]
    pub take_ownership: bool,
    /// Render and validate only: `client` (no cluster) or `server` (cluster dry run).
    #[arg(long = "dry-run", num_args = 0..=1, default_missing_value = "client")]
    pub dry_run: Option<String>,
}

// `kubepkg upgrade NAME CHART`.
#[derive(Debug, clap::Args)]
pub struct UpgradeArgs {
    #[command(flatten)]
    pub common: InstallArgs,
    /// Install the release when it does not exist.
    #[arg(short = 'i', long = "install")]
    pub install: bool,
    /// Merge the previous revision's user values under the new ones.
    #[arg(long = "reuse-values")]
    pub reuse_values: bool,
    /// Ignore the previous revision's user values.
    #[arg(long = "reset-values")]
    pub reset_values: bool,
    /// Chart defaults of the new chart, then previous user values, then new ones.
    #[arg(long = "reset-then-reuse-values")]
    pub reset_then_reuse_values: bool,
    /// Maximum revisions kept (0: no limit).
    #[arg(long = "history-max", default_value_t = 10)]
    pub history_max: usize,
}

// Which meaning of NAME a bare verb takes: the package when one named NAME has revision
// records in the namespace, else the Helm release.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TargetArgs {
    /// NAME is a Helm release, even if a package NAME exists.
    #[arg(long = "release", conflicts_with = "package")]
    pub release: bool,
    /// NAME is a package (fail if the namespace has none of that name).
    #[arg(long = "package")]
    pub package: bool,
}

// Flags of the bare verbs that change a release or a package (rollback, uninstall).
#[derive(Debug, Clone, clap::Args)]
pub struct ChangeArgs {
    /// Release: wait until every object is ready (packages always wait for each component).
    #[arg(long = "wait")]
    pub wait: bool,
    /// Time to wait for any single step (Go duration). Default: 5m0s for a release, 10m for
    /// each component of a package.
    #[arg(long = "timeout", value_parser = go_duration)]
    pub timeout: Option<Duration>,
    /// Release: do not run hooks.
    #[arg(long = "no-hooks")]
    pub no_hooks: bool,
    /// Release: a custom description recorded for the revision.
    #[arg(long = "description")]
    pub description: Option<String>,
    /// Output format: text (also spelt table) or json (packages: one JSON line per progress
    /// event, the summary last).
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::EVENTS))]
    pub output: Format,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

// What the bare verbs that change a release or a package (rollback, uninstall) act on and
// how: NAME, the cluster, which meaning of NAME, and the flags of the change.
#[derive(Debug, clap::Args)]
pub struct BareChangeArgs {
    /// A package or Helm release name (a package when one of that name has revisions here).
    #[arg(add = crate::completion::names())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub op: ChangeArgs,
}

// `kubepkg rollback NAME [REVISION]`.
#[derive(Debug, clap::Args)]
pub struct RollbackArgs {
    #[command(flatten)]
    pub change: BareChangeArgs,
    /// Revision to roll back to (default: the one before the latest; for a package, the one
    /// before the deployed revision).
    pub revision: Option<u64>,
    /// Release: maximum revisions kept (0: no limit).
    #[arg(long = "history-max", default_value_t = 10)]
    pub history_max: usize,
    /// Package: roll back even though the version being left declares `rollback.safe: false`.
    #[arg(long = "force")]
    pub force: bool,
}

// `kubepkg uninstall NAME`.
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub change: BareChangeArgs,
    /// Keep the release (or package revision) records, marked uninstalled.
    #[arg(long = "keep-history")]
    pub keep_history: bool,
}

// `kubepkg list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// List releases of every namespace.
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Show releases of every status (the default when no state flag is given, as Helm 4).
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Show deployed releases.
    #[arg(long = "deployed")]
    pub deployed: bool,
    /// Show failed releases.
    #[arg(long = "failed")]
    pub failed: bool,
    /// Show pending releases (pending-install, -upgrade, -rollback).
    #[arg(long = "pending")]
    pub pending: bool,
    /// Show superseded releases.
    #[arg(long = "superseded")]
    pub superseded: bool,
    /// Show uninstalled releases (kept by `uninstall --keep-history`).
    #[arg(long = "uninstalled")]
    pub uninstalled: bool,
    /// Show releases being uninstalled.
    #[arg(long = "uninstalling")]
    pub uninstalling: bool,
    /// Only the releases whose name matches this regular expression.
    #[arg(short = 'f', long = "filter")]
    pub filter: Option<String>,
    /// Only the releases whose storage labels match (`k=v`, `k==v`, `k!=v`, comma-separated).
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Sort by release date (oldest first; `-r`: newest first).
    #[arg(short = 'd', long = "date")]
    pub date: bool,
    /// Reverse the sort order.
    #[arg(short = 'r', long = "reverse")]
    pub reverse: bool,
    /// Maximum number of releases shown.
    #[arg(short = 'm', long = "max", default_value_t = 256)]
    pub max: usize,
    /// Index of the first release shown.
    #[arg(long = "offset", default_value_t = 0)]
    pub offset: usize,
    /// Only the release names.
    #[arg(short = 'q', long = "short")]
    pub short: bool,
    /// No header row in the table.
    #[arg(long = "no-headers")]
    pub no_headers: bool,
    /// List packages (the latest revision of each) instead of releases.
    #[arg(long = "packages")]
    pub packages: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::QUERY))]
    pub output: Format,
}

// `kubepkg history NAME` / `kubepkg status NAME`: a package or a release.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub query: ReleaseQueryArgs,
    #[command(flatten)]
    pub target: TargetArgs,
}

// `kubepkg test NAME` and the release side of `history`/`status`.
#[derive(Debug, clap::Args)]
pub struct ReleaseQueryArgs {
    /// A package or Helm release name (a package when one of that name has revisions here).
    #[arg(add = crate::completion::names())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::QUERY))]
    pub output: Format,
    /// Release status: the revision to show (default: latest).
    #[arg(long = "revision")]
    pub revision: Option<u64>,
    /// Release history: maximum number of revisions shown (Helm's default 256).
    #[arg(long = "max", default_value_t = 256)]
    pub max: usize,
    /// Test: time to wait for the test hooks (Go duration).
    #[arg(long = "timeout", default_value = "5m0s", value_parser = go_duration)]
    pub timeout: Duration,
}

// `kubepkg get values|manifest|hooks|notes NAME`.
#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// What to print: all, values, manifest, hooks, notes or metadata.
    pub what: String,
    /// The Helm release name.
    #[arg(add = crate::completion::releases())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// values: include chart defaults (computed values).
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    #[arg(long = "revision")]
    pub revision: Option<u64>,
    /// values: table (with Helm's heading), json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table", value_parser = formats(Format::HELM))]
    pub output: Format,
}
