//! The arguments of the package verbs: `plan`, `apply`, `values`, `render` and `package …`,
//! with the Helm install flags `plan` and `apply` accept or refuse.

use std::time::Duration;

use clap::Subcommand;
use kubepkg_model::Backend;

use super::common::{
    ClusterArgs, PostRendererArgs, ProgressArgs, RegistryAccessArgs, SignWithArgs, VerifyArgs,
    backend_value, formats, go_bool, go_duration,
};
use crate::format::Format;

// Values given to a package's components: `-f` files with a top-level key per component,
// `--set component.key=value`.
#[derive(Debug, Clone, clap::Args)]
pub struct PackageValuesFlags {
    /// Values files (a top-level key per component; repeatable or comma-separated).
    #[arg(short = 'f', long = "values", value_delimiter = ',')]
    pub values: Vec<String>,
    /// Set values (`component.a.b=c`), typed as Helm does.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Set string values (`component.a.b=c`).
    #[arg(long = "set-string")]
    pub set_string: Vec<String>,
    /// Set JSON values (`component.a=JSON`, or a JSON object with a key per component).
    #[arg(long = "set-json")]
    pub set_json: Vec<String>,
    /// Set values from files (`component.a=path`; `-` reads standard input).
    #[arg(long = "set-file")]
    pub set_file: Vec<String>,
    /// Values files for this revision only (an approval, a one-time switch): above every other
    /// source, recorded as such, never noted as dropped by a later apply.
    #[arg(long = "values-once", value_delimiter = ',')]
    pub values_once: Vec<String>,
    /// Set values for this revision only (`component.a.b=c`).
    #[arg(long = "set-once")]
    pub set_once: Vec<String>,
    /// Set JSON values for this revision only (`component.a=JSON`, or a JSON object).
    #[arg(long = "set-json-once")]
    pub set_json_once: Vec<String>,
}

// What `plan` and `apply` take alike: the instance, the package and where it comes from, the
// cluster, the values and the post-renderers.
#[derive(Debug, clap::Args)]
pub struct PackageInputArgs {
    /// Package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    /// Package directory, `.tgz` archive, bare chart, `oci://HOST/REPO/NAME` in a registry, or
    /// `git+https://HOST/REPO.git//PATH?ref=REF` in a Git repository (--username/--password
    /// for a private one).
    pub package: std::path::PathBuf,
    #[command(flatten)]
    pub oci: PackageSourceArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub values: PackageValuesFlags,
    #[command(flatten)]
    pub post_render: PostRendererArgs,
}

// `kubepkg plan NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: PackageInputArgs,
    /// With --backend flux: the per-component timeout the HelmReleases are planned with
    /// (their `spec.timeout`), as `apply --timeout` sets it (Go duration).
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Compare with what is installed in the cluster (default: offline, as a first install).
    #[arg(long = "cluster")]
    pub with_cluster: bool,
    /// Leave out the diff of rendered objects.
    #[arg(long = "no-diff")]
    pub no_diff: bool,
    /// Show the values of Secrets in the diff (by default only each key, whether it changes,
    /// and its size).
    #[arg(long = "show-secrets")]
    pub show_secrets: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::TEXT_JSON))]
    pub output: Format,
    /// Accepted as Helm's: `plan` is a dry run and plans without the cluster (`client`, the
    /// default); `--dry-run=server` plans against it, as --cluster does.
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = "client", value_name = "MODE", value_parser = plan_dry_run)]
    pub dry_run: Option<String>,
    #[command(flatten)]
    pub helm: HelmInstallFlags,
}

/// `plan --dry-run[=MODE]`: Helm's modes (`--dry-run=server` was read as --cluster before
/// parsing, by [`from_helms_forms`]).
fn plan_dry_run(s: &str) -> Result<String, String> {
    match s {
        "client" | "server" | "true" | "none" | "false" => Ok(s.to_string()),
        _ => Err("Helm's dry-run modes are client, server and none".to_string()),
    }
}

/// `apply --dry-run[=MODE]`: bare, `true` or `server` plan against the cluster and change
/// nothing; `none`/`false` apply; `client` (Helm's offline render) is `kubepkg plan`.
fn apply_dry_run(s: &str) -> Result<bool, String> {
    match s {
        "true" | "server" => Ok(true),
        "false" | "none" => Ok(false),
        "client" => Err(
            "kubepkg apply --dry-run (or =server) plans against the cluster and changes \
             nothing; for a plan without the cluster, as Helm's client dry run renders, run \
             `kubepkg plan NAME PACKAGE`"
                .to_string(),
        ),
        _ => Err("Helm's dry-run modes are client, server and none".to_string()),
    }
}

// Helm's `install`/`upgrade` flags on `plan` and `apply` (docs/cli.md#helms-install-and-upgrade-flags-on-plan-and-apply):
// accepted where kubepkg does what they ask, else refused (a usage error) with what kubepkg
// does instead.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HelmInstallFlags {
    /// Accepted as Helm's: apply creates each component's namespace when it is absent (always).
    #[arg(long = "create-namespace")]
    pub create_namespace: bool,
    /// Accepted as Helm's (`--wait`, `=watcher`, `=legacy`, `=true`): apply waits until each
    /// component is ready before it starts the next one (always).
    #[arg(long = "wait", num_args = 0..=1, require_equals = true, default_missing_value = "watcher", value_name = "STRATEGY", value_parser = helm_wait)]
    pub wait: Option<bool>,
    /// Refused: see docs/cli.md.
    #[arg(long = "atomic", visible_alias = "rollback-on-failure", hide = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL", value_parser = helm_atomic)]
    pub atomic: Option<bool>,
    /// Refused: see docs/cli.md.
    #[arg(long = "description", hide = true, value_parser = helm_description)]
    pub description: Option<String>,
    /// Refused: see docs/cli.md.
    #[arg(long = "history-max", hide = true, value_parser = helm_history_max)]
    pub history_max: Option<usize>,
}

fn helm_wait(s: &str) -> Result<bool, String> {
    match (s, go_bool(s)) {
        ("watcher" | "legacy", _) | (_, Some(true)) => Ok(true),
        ("hookOnly", _) | (_, Some(false)) => Err(
            "kubepkg always waits until each component is ready before it starts the next one \
             (the order of a package depends on it), so the wait cannot be turned off or \
             narrowed to hooks"
                .to_string(),
        ),
        _ => Err("Helm's wait strategies are watcher, hookOnly and legacy".to_string()),
    }
}

fn helm_atomic(s: &str) -> Result<bool, String> {
    match go_bool(s) {
        Some(false) => Ok(false),
        Some(true) => Err(
            "kubepkg rolls a failed upgrade back by itself exactly when the new version declares \
             that safe (rollback.safe or rollback.to in kubepkg.yaml) and keeps a failed first \
             install for diagnosis, so no flag decides it (docs/rules.md)"
                .to_string(),
        ),
        None => Err(format!("invalid boolean {s:?}")),
    }
}

fn helm_description(_: &str) -> Result<String, String> {
    Err(
        "kubepkg writes each package revision's description itself (what it did, or why it \
         failed: `kubepkg history NAME` shows it) and takes no description of yours"
            .to_string(),
    )
}

fn helm_history_max(_: &str) -> Result<usize, String> {
    Err(format!(
        "kubepkg keeps every package revision, and of each component's release the history its \
         backend keeps (helm: the last {} records, Helm's default; flux: helm-controller's), \
         with no limit of yours",
        kubepkg_release::storage::DEFAULT_MAX_HISTORY
    ))
}

// How `plan` and `apply` apply components (docs/backends.md#drive-mode).
#[derive(Debug, Clone, clap::Args)]
pub struct BackendArgs {
    /// Who releases the components: helm (kubepkg itself), flux (a HelmRelease per component
    /// that Flux's helm-controller releases) or argocd (an Application per component that Argo
    /// CD syncs when kubepkg sets its sync operation), created one at a time and gated by kubepkg.
    #[arg(long = "backend", default_value = "helm", value_parser = backend_value(&Backend::ALL))]
    pub backend: Backend,
    /// With --backend flux|argocd: the OCI repository each component's chart is pushed to and
    /// Flux or Argo CD pulls it from, `oci://HOST/PATH` (the registry flags above apply to it).
    #[arg(long = "chart-repository")]
    pub chart_repository: Option<String>,
    /// With --backend argocd: the namespace of the Applications (Argo CD's, or one of its
    /// --application-namespaces; default: the package's namespace).
    #[arg(long = "argocd-namespace")]
    pub argocd_namespace: Option<String>,
    /// With --backend argocd: the AppProject of the Applications.
    #[arg(long = "argocd-project")]
    pub argocd_project: Option<String>,
}

// `kubepkg apply NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub input: PackageInputArgs,
    /// Time each component may take to become ready (Go duration).
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    /// How long to wait for required packages to be Ready (Go duration; default: --timeout).
    #[arg(long = "requirements-timeout", value_parser = go_duration)]
    pub requirements_timeout: Option<Duration>,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Print the plan against the cluster and change nothing (Helm's `--dry-run=server`;
    /// `=none` applies; `=client` is `kubepkg plan`).
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", hide_default_value = true, value_name = "MODE", action = clap::ArgAction::Set, value_parser = apply_dry_run)]
    pub dry_run: bool,
    /// Apply even though a `Package` object of this name is reconciled by the controller:
    /// the object is suspended first (`spec.suspend: true`), so the controller leaves the
    /// package to the CLI until it is resumed.
    #[arg(long = "force")]
    pub force: bool,
    /// Apply a lower version than the package runs even when a version that ran since
    /// declares `rollback.safe: false` (a downgrade is a rollback in effect).
    #[arg(long = "allow-downgrade")]
    pub allow_downgrade: bool,
    /// Apply CustomResourceDefinition changes that are unsafe for existing objects (a removed
    /// field or version, a type change, a new required field…; `plan` lists them).
    #[arg(long = "allow-unsafe-crd-changes")]
    pub allow_unsafe_crd_changes: bool,
    /// With --dry-run: show the values of Secrets in the diff.
    #[arg(long = "show-secrets")]
    pub show_secrets: bool,
    #[command(flatten)]
    pub progress: ProgressArgs,
    /// Output format: text, or json (one JSON line per progress event as it happens, the
    /// summary — `state: summary` with reason, message and exitCode — last).
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::EVENTS))]
    pub output: Format,
    #[command(flatten)]
    pub helm: HelmInstallFlags,
}

// `kubepkg values NAME`.
#[derive(Debug, clap::Args)]
pub struct PackageValuesArgs {
    /// Package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Revision to show (default: the deployed one).
    #[arg(long = "revision")]
    pub revision: Option<u64>,
    /// Show where each value came from.
    #[arg(long = "explain")]
    pub explain: bool,
    /// Only this component.
    #[arg(long = "component")]
    pub component: Option<String>,
}

/// `kubepkg package …`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum PackageCommand {
    /// A package's latest revision and each component's live state.
    Status(PackageQueryArgs),
    /// A package's revisions.
    History(PackageQueryArgs),
    /// Roll a package back to an earlier revision (recorded as a new revision).
    Rollback(PackageRollbackArgs),
    /// Uninstall every component of a package, in reverse order.
    Uninstall(PackageUninstallArgs),
    /// List installed packages.
    List(PackageListArgs),
    /// Resolve each `chart: {repository, name, version}` and `path: oci://…` component into
    /// kubepkg.lock (exact version and digest), fetching the charts into kubepkg's cache.
    Lock(PackageLockArgs),
    /// Publish a package (kubepkg.yaml and its charts) to an OCI registry as one artifact.
    Push(Box<PackagePushArgs>),
    /// Download a package from an OCI registry into a directory.
    Pull(Box<PackagePullArgs>),
    /// Pack a chart directory into NAME-VERSION.tgz as `helm package` does, or a package
    /// directory into the package archive `package push` publishes.
    Pack(Box<PackagePackArgs>),
    /// Save a package of a registry (with its cosign signature), or a local package, as an OCI
    /// image layout tar, for moving it to a registry without a network path to this one.
    Save(Box<PackageSaveArgs>),
    /// Push a package saved by `package save` (with its signature) to a registry.
    Load(Box<PackageLoadArgs>),
}

// `kubepkg package save oci://HOST/REPO/NAME --version V | DIR | PKG.tgz -o pkg.tar`.
#[derive(Debug, clap::Args)]
pub struct PackageSaveArgs {
    /// The package: its repository, `oci://HOST[:PORT]/REPO/NAME[:TAG|@DIGEST]`, or a local
    /// package directory or `.tgz` (saved as `package push` would push it).
    pub reference: String,
    /// A version, a SemVer constraint over the tags (`>=1.4 <2`), or `@sha256:…`; default:
    /// the newest version.
    #[arg(long = "version")]
    pub version: Option<String>,
    /// The tar file to write (an OCI image layout: oci-layout, index.json, blobs/sha256/…).
    #[arg(short = 'o', long = "output")]
    pub output: std::path::PathBuf,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

// `kubepkg package load pkg.tar oci://HOST/REPO[/NAME]`.
#[derive(Debug, clap::Args)]
pub struct PackageLoadArgs {
    /// A tar written by `kubepkg package save` (an OCI image layout).
    pub archive: std::path::PathBuf,
    /// Where to push: `oci://HOST[:PORT]/REPO` (the package goes to `REPO/<package name>`),
    /// or `oci://HOST/REPO/NAME` when the last component is the package's name.
    pub remote: String,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

// `kubepkg package lock [PACKAGE]`.
#[derive(Debug, clap::Args)]
pub struct PackageLockArgs {
    /// The package directory (holds kubepkg.yaml).
    #[arg(default_value = ".")]
    pub package: std::path::PathBuf,
    /// For charts in OCI registries (`oci://` components).
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

// `kubepkg package status|history NAME`.
#[derive(Debug, clap::Args)]
pub struct PackageQueryArgs {
    /// The package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// status: show this recorded revision (its state, what failed, its hooks' verdicts)
    /// instead of the latest one with its live state.
    #[arg(long = "revision")]
    pub revision: Option<u64>,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::QUERY))]
    pub output: Format,
}

// `kubepkg package rollback NAME [REVISION]`.
#[derive(Debug, clap::Args)]
pub struct PackageRollbackArgs {
    /// The package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    /// Revision to go back to (default: the one before the deployed revision).
    pub revision: Option<u64>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Roll back even though the version being left declares `rollback.safe: false`.
    #[arg(long = "force")]
    pub force: bool,
    #[command(flatten)]
    pub progress: ProgressArgs,
    /// Time each component may take to become ready (Go duration).
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    /// Output format: text, or json (one JSON line per progress event, the summary last).
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::EVENTS))]
    pub output: Format,
}

// `kubepkg package uninstall NAME`.
#[derive(Debug, clap::Args)]
pub struct PackageUninstallArgs {
    /// The package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Keep the revision records, marked uninstalled.
    #[arg(long = "keep-history")]
    pub keep_history: bool,
    /// Time each component's uninstall may take (Go duration).
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    #[command(flatten)]
    pub progress: ProgressArgs,
    /// Output format: text, or json (one JSON line per progress event, the summary last).
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::EVENTS))]
    pub output: Format,
}

// `kubepkg package list`.
#[derive(Debug, clap::Args)]
pub struct PackageListArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Packages of every namespace.
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::QUERY))]
    pub output: Format,
}

// `kubepkg package push PKG oci://HOST/REPO[/NAME]`.
#[derive(Debug, clap::Args)]
pub struct PackagePushArgs {
    /// The package: a directory with kubepkg.yaml, or a package `.tgz`.
    pub package: std::path::PathBuf,
    /// Where to push: `oci://HOST[:PORT]/REPO` (the package goes to `REPO/<package name>`), or
    /// `oci://HOST/REPO/NAME` when the last component is the package's name.
    pub remote: String,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub sign: SignWithArgs,
}

// `kubepkg package pull oci://HOST/REPO/NAME --version V`.
#[derive(Debug, clap::Args)]
pub struct PackagePullArgs {
    /// The package's repository, `oci://HOST[:PORT]/REPO/NAME[:TAG|@DIGEST]`.
    pub reference: String,
    /// A version, a SemVer constraint over the tags (`>=1.4 <2`), or `@sha256:…`.
    #[arg(long = "version")]
    pub version: Option<String>,
    /// Directory to write the package into (as `<name>-<version>.tgz`).
    #[arg(short = 'd', long = "destination", default_value = ".")]
    pub destination: std::path::PathBuf,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub verify: VerifyArgs,
}

// Where an `oci://` package comes from: `--version` and the registry flags (ignored for a
// local package).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PackageSourceArgs {
    /// For an `oci://` package: a version, a SemVer constraint over the tags (`>=1.4 <2`), or
    /// `@sha256:…`; default: the newest version.
    #[arg(long = "version")]
    pub version: Option<String>,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub verify: VerifyArgs,
}

// `kubepkg package pack DIR...`.
#[derive(Debug, clap::Args)]
pub struct PackagePackArgs {
    /// Chart directories (to NAME-VERSION.tgz) or package directories (kubepkg.yaml).
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
    /// Where to write the archive.
    #[arg(short = 'd', long = "destination", default_value = ".")]
    pub destination: std::path::PathBuf,
    /// Set the chart's version (Chart.yaml `version`) in the archive.
    #[arg(long = "version")]
    pub version: Option<String>,
    /// Set the chart's appVersion in the archive.
    #[arg(long = "app-version")]
    pub app_version: Option<String>,
}

// `kubepkg render --backend flux|argocd NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Package instance name (the releases are `NAME-COMPONENT`).
    pub name: String,
    /// Package directory, `.tgz` archive, `oci://HOST/REPO/NAME` in a registry, or
    /// `git+https://HOST/REPO.git//PATH?ref=REF` in a Git repository.
    pub package: std::path::PathBuf,
    /// The GitOps controller to compile for (`flux` or `argocd`).
    #[arg(long = "backend", value_parser = backend_value(&[Backend::Flux, Backend::Argocd]))]
    pub backend: Backend,
    /// Argo CD: the namespace of the Applications (Argo CD's, or one of its
    /// --application-namespaces; default: the package's namespace).
    #[arg(long = "argocd-namespace")]
    pub argocd_namespace: Option<String>,
    /// Argo CD: the AppProject of the Applications.
    #[arg(long = "argocd-project", default_value = "default")]
    pub argocd_project: String,
    /// The OCI repository the component charts are (or, with --push-charts, are put) in:
    /// `oci://HOST/PATH`, each chart at `oci://HOST/PATH/<chart name>:<chart version>`.
    #[arg(long = "chart-repository")]
    pub chart_repository: String,
    /// Push each component's chart there first (Flux: the sources pinned to the pushed digests).
    #[arg(long = "push-charts")]
    pub push_charts: bool,
    /// Flux: how often Flux re-checks the sources and releases (Go duration).
    #[arg(long = "interval", default_value = "10m", value_parser = go_duration)]
    pub interval: Duration,
    /// Flux: each release's timeout (Go duration): kubepkg's per-component timeout.
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    /// Namespace of the package (and of the Flux objects; default: $HELM_NAMESPACE or `default`).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub values: PackageValuesFlags,
    #[command(flatten)]
    pub oci: PackageSourceArgs,
    /// Output format: yaml (a multi-document stream for kubectl apply -f -) or json (a List).
    #[arg(short = 'o', long = "output", default_value = "yaml", value_parser = formats(Format::YAML_JSON))]
    pub output: Format,
}

/// `kubepkg rollout …`: fleet rollouts (docs/fleet.md).
#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum RolloutCommand {
    /// Show a rollout: its phase, its stages and each cluster's version and state.
    Status(RolloutStatusArgs),
    /// Approve the stage awaiting approval (or STAGE) for the rollout's current version.
    Promote(RolloutPromoteArgs),
    /// Start no further cluster (those in progress finish).
    Pause(RolloutArgs),
    /// Start clusters again after a pause.
    Resume(RolloutArgs),
    /// Stop the current version's rollout for good (clusters in progress finish).
    ///
    /// No cluster starts or rolls back any more, and resume does not continue it; the next
    /// version is a new rollout.
    Abort(RolloutArgs),
    /// The versions the rollout rolled (the last ten) and how each ended.
    History(RolloutArgs),
    /// What the rollout's current spec would do, changing nothing: per stage, which clusters
    /// change; and the package plan in the first of them.
    Plan(RolloutPlanArgs),
}

// `kubepkg rollout plan NAME`.
#[derive(Debug, clap::Args)]
pub struct RolloutPlanArgs {
    #[command(flatten)]
    pub rollout: RolloutArgs,
    /// Leave out the diff of rendered objects.
    #[arg(long = "no-diff")]
    pub no_diff: bool,
    /// Without the managing cluster: the stages by their selectors, and the plan of the
    /// package as a first install (needs --filename, and --package unless the rollout's
    /// source is `oci`).
    #[arg(long = "offline")]
    pub offline: bool,
    /// The PackageRollout from this YAML file instead of the cluster (it must be NAME).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filename: Option<std::path::PathBuf>,
    /// With --offline: the package to plan (a directory, archive, `oci://` or `git+…`, as
    /// `kubepkg plan` takes) instead of the rollout's source.
    #[arg(long = "package", value_name = "PACKAGE")]
    pub package: Option<std::path::PathBuf>,
}

// `kubepkg rollout status|pause|resume|abort|history NAME`.
#[derive(Debug, clap::Args)]
pub struct RolloutArgs {
    /// The PackageRollout's name.
    #[arg(add = crate::completion::rollouts())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output format (status, history).
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::QUERY))]
    pub output: Format,
}

// `kubepkg rollout status NAME`.
#[derive(Debug, clap::Args)]
pub struct RolloutStatusArgs {
    #[command(flatten)]
    pub rollout: RolloutArgs,
    /// Follow the rollout until it rests (Succeeded, Halted, RolledBack, Aborted, Invalid, or
    /// waiting for a person): live on a terminal, one line per change elsewhere; then print
    /// its status and exit by how it ended.
    #[arg(short = 'w', long = "watch")]
    pub watch: bool,
}

// `kubepkg rollout promote NAME [STAGE]`.
#[derive(Debug, clap::Args)]
pub struct RolloutPromoteArgs {
    /// The PackageRollout's name.
    #[arg(add = crate::completion::rollouts())]
    pub name: String,
    /// The stage to approve (default: the one awaiting approval).
    pub stage: Option<String>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}
