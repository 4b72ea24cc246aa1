//! Command-line definitions (clap). Only argument shapes (and [`go_duration`], the one parser
//! of duration flags) live here; flags and environment become [`crate::settings::Settings`],
//! behaviour is in `commands` over the library crates.

use std::time::Duration;

use clap::{Parser, Subcommand};

/// A Go duration (`5m0s`, `90s`, `1.5h`, `300ms`) as Go's `time.ParseDuration` reads it, with
/// its error texts; a negative one is no time at all. Every `--timeout` flag uses it.
pub fn go_duration(s: &str) -> Result<Duration, String> {
    kubepkg_gostd::time::parse_duration(s)
        .map(|d| d.to_std())
        .map_err(|e| e.to_string())
}

/// Helm's global flags, which `helm` accepts before the verb as well as after it
/// (`helm -n shop list`): the ones kubepkg knows, with whether each takes a value.
const GLOBAL_FLAGS: &[(&str, bool)] = &[
    ("--kubeconfig", true),
    ("--kube-context", true),
    ("--namespace", true),
    ("-n", true),
    ("--no-wait-lock", false),
    ("--no-color", false),
    ("--color", true),
    ("--colour", true),
    ("--debug", false),
];

/// The command line as clap reads it, from the forms Helm users type: global flags before the
/// verb ([`with_global_flags_after_the_verb`]) and `helm package DIR`'s `kubepkg package DIR`,
/// read as `kubepkg package pack DIR` (a first word after `package` that is no verb of it and
/// is a path: it exists, or has a `/` or starts with `.`).
pub fn from_helms_forms(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let verb = leading_global_flags_end(&args);
    if let Some(word) = args.get(verb).and_then(|a| a.to_str())
        && matches!(word, "package" | "pkg")
        && let Some(next) = args.get(verb + 1).map(|a| a.to_string_lossy().into_owned())
        && !next.starts_with('-')
        && next != "help"
        // A path, not a misspelt verb of `package` (which clap then names with a suggestion).
        && (next.contains('/') || next.starts_with('.') || std::path::Path::new(&next).exists())
        && Cli::command()
            .find_subcommand("package")
            .is_some_and(|p| p.find_subcommand(&next).is_none())
    {
        args.insert(verb + 1, "pack".into());
    }
    // Helm's server dry run on `plan` is kubepkg's plan against the cluster.
    if args.get(verb).is_some_and(|w| w == "plan")
        && let Some(at) = args.iter().position(|a| a == "--dry-run=server")
    {
        args.retain(|a| a != "--dry-run=server");
        if !args.iter().any(|a| a == "--cluster") {
            args.insert(at, "--cluster".into());
        }
    }
    with_global_flags_after_the_verb(args)
}

/// The index of the first word after the program that is not one of [`GLOBAL_FLAGS`] (or a
/// value of one).
fn leading_global_flags_end(args: &[std::ffi::OsString]) -> usize {
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_string_lossy();
        let (name, inline) = match arg.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n.to_string(), true),
            _ => (arg.to_string(), false),
        };
        match GLOBAL_FLAGS.iter().find(|(f, _)| *f == name) {
            Some((_, takes_value)) => i += if *takes_value && !inline { 2 } else { 1 },
            None => break,
        }
    }
    i
}

/// The command line with Helm's global flags given before the verb moved after it (after the
/// whole verb path: `kubepkg -n shop package status x` reads as `kubepkg package status -n shop
/// x`), so they parse as the verb's own flags. Anything else is left as it is, for clap to read
/// (or refuse) as usual.
pub fn with_global_flags_after_the_verb(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let end = leading_global_flags_end(&args).min(args.len());
    if end <= 1 {
        return args;
    }
    let mut iter = args.into_iter();
    let Some(program) = iter.next() else {
        return Vec::new();
    };
    let mut rest: Vec<std::ffi::OsString> = iter.collect();
    let globals: Vec<std::ffi::OsString> = rest.drain(..end - 1).collect();
    let i = 0;
    // The verb path: the first word, and a subcommand of it while it has subcommands.
    let mut cmd = Cli::command();
    let mut path_end = i;
    if i < rest.len()
        && cmd
            .find_subcommand(rest[i].to_string_lossy().as_ref())
            .is_none()
    {
        // Not a verb (misspelt?): the flags go after it, so clap names it and suggests one.
        path_end = i + 1;
    }
    while path_end < rest.len() {
        let word = rest[path_end].to_string_lossy().to_string();
        let Some(sub) = cmd.find_subcommand(&word).cloned() else {
            break;
        };
        path_end += 1;
        if !sub.has_subcommands() {
            break;
        }
        cmd = sub;
    }
    let mut out = vec![program];
    out.extend(rest[i..path_end].iter().cloned());
    out.extend(globals);
    out.extend(rest[path_end..].iter().cloned());
    out
}

/// kubepkg installs and upgrades packages of Helm charts safely: components one at a time in
/// dependency order, each waiting until really ready.
#[derive(Debug, Parser)]
#[command(
    name = "kubepkg",
    version,
    about,
    long_about = None,
    before_help = GET_STARTED,
    after_long_help = AFTER_HELP
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub terminal: TerminalArgs,
}

/// Flags every verb takes, before or after it (Helm's global flags that are not about the
/// cluster; those are [`ClusterArgs`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GlobalArgs {
    /// Print every request made to the cluster and to registries and chart repositories
    /// (method, URL, status, time) on standard error (also: $HELM_DEBUG=true).
    #[arg(long = "debug", global = true)]
    pub debug: bool,
}

/// What `kubepkg --help` opens with: the commands a newcomer needs.
pub const GET_STARTED: &str = "\
Get started:
  kubepkg create shop                 scaffold a package (kubepkg.yaml and a chart)
  kubepkg plan shop ./shop            what apply would do: order, changes, readiness gates
  kubepkg apply shop ./shop -n shop   install or upgrade it, one component at a time
  kubepkg status shop -n shop         each component's release, revision and readiness";

/// Shown by `kubepkg --help`: how NAME is resolved and the exit codes.
pub const AFTER_HELP: &str = "\
Packages and releases:
  status, history, rollback and uninstall take a NAME. If a package NAME has revision records
  in the namespace, the verb acts on the package; otherwise on the Helm release NAME.
  --package forces the package meaning (error if there is none), --release the release meaning.
  `kubepkg list` prints Helm's release table; `kubepkg list --packages` lists packages.
  `kubepkg package status|history|rollback|uninstall|list` always mean packages.

Exit codes:
  0  succeeded (or nothing to change)
  1  error: for package verbs, before anything changed (bad flags or values, refused rollback,
     cluster unreachable, package not found); for single-release verbs, any failure (as helm)
  2  command-line usage error
  3  RolledBack: the upgrade failed and was rolled back (rollback.safe: true)
  4  UpgradeFailed: stopped, nothing more changed; fix forward
  5  InstallFailed: a first install failed; its state is kept for diagnosis
  6  RequirementsNotMet: required packages were not Ready before the timeout
  7  InvalidPackage: kubepkg.yaml or a chart of the package is invalid; nothing applied
  8  UpgradeRefused: a PreUpgrade check hook refused the upgrade; nothing else changed";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new package (kubepkg.yaml and a chart), or a bare chart with --chart.
    Create(Box<CreateArgs>),
    /// Examine a package or chart for possible issues (Helm's chart rules, as `helm lint`).
    Lint(Box<LintArgs>),
    /// Show a chart's Chart.yaml, values, README or CRDs, as `helm show` does.
    #[command(subcommand)]
    Show(ShowCommand),
    /// Render chart templates locally and print the manifests, as `helm template` does.
    Template(Box<TemplateArgs>),
    /// Show what `apply` would do to a package (order, hooks, changes, readiness gates).
    Plan(Box<PlanArgs>),
    /// Install or upgrade a package: components one at a time, each waited until ready.
    Apply(Box<ApplyArgs>),
    /// Print each component's effective values in a package revision (`--explain`: sources).
    Values(Box<PackageValuesArgs>),
    /// Packages: status, history, rollback, uninstall, list (package meaning only); push, pull
    /// (OCI registries) and lock (kubepkg.lock).
    #[command(subcommand, visible_alias = "pkg")]
    Package(PackageCommand),
    /// Install a chart as a Helm-compatible release.
    Install(Box<InstallArgs>),
    /// Upgrade a release to a new chart or values.
    Upgrade(Box<UpgradeArgs>),
    /// Roll a package or release back to an earlier revision (recorded as a new revision).
    Rollback(Box<RollbackArgs>),
    /// Uninstall a package (components in reverse order) or a release.
    Uninstall(Box<UninstallArgs>),
    /// List releases as `helm list` does (`--packages`: list packages).
    List(Box<ListArgs>),
    /// Show a package's or release's revisions.
    History(Box<QueryArgs>),
    /// Show a package's status (each component's live state) or a release's status.
    Status(Box<QueryArgs>),
    /// Print a release's values, manifest, hooks or notes.
    Get(Box<GetArgs>),
    /// Download a chart from a registry or chart repository, as `helm pull` does.
    Pull(Box<PullArgs>),
    /// Push a chart archive to an OCI registry, as `helm push` does.
    Push(Box<PushArgs>),
    /// Sign a chart or package in an OCI registry with a cosign key, as `cosign sign --key`.
    Sign(Box<SignArgs>),
    /// Log in to or out of an OCI registry (Helm's registry config, shared with `helm`).
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Run a release's test hooks.
    Test(Box<ReleaseQueryArgs>),
    /// Add, list, remove and update Helm chart repositories (shared with `helm repo`).
    #[command(subcommand)]
    Repo(RepoCommand),
    /// Search the chart repositories added with `repo add` (`search repo`).
    #[command(subcommand)]
    Search(SearchCommand),
    /// Manage a chart's Chart.yaml dependencies: update, build, list (`charts/`, `Chart.lock`).
    #[command(subcommand, visible_alias = "dep")]
    Dependency(DependencyCommand),
    /// Run the kubepkg controller: reconcile `Package` objects until SIGTERM.
    Controller(Box<ControllerArgs>),
    /// Print the kubepkg version (`-o json|yaml`, `--short`).
    Version(VersionArgs),
    /// Print the environment kubepkg reads (Helm's variables and kubepkg's own), as `helm env`.
    Env(EnvArgs),
    /// Compile a package into the objects a GitOps controller reconciles (Flux: OCIRepository
    /// and HelmRelease per component, in kubepkg's order and with its gates; Argo CD: an
    /// Application per component in sync waves), for a Git repo.
    Render(Box<RenderArgs>),
    /// Print a shell completion script (bash, zsh, fish, powershell), as `helm completion`.
    Completion(CompletionArgs),
    /// Print the JSON Schema of kubepkg.yaml (for editors: see docs/kubepkg-yaml.md).
    Schema,
}

/// Arguments of `kubepkg version`.
#[derive(Debug, clap::Args)]
pub struct VersionArgs {
    /// Print the version only (`v0.1.0`).
    #[arg(long = "short")]
    pub short: bool,
    /// Output format: text (default), json or yaml.
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
}

/// Arguments of `kubepkg env`.
#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// Print only this variable's value.
    pub name: Option<String>,
}

/// Arguments of `kubepkg completion`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = COMPLETION_HELP)]
pub struct CompletionArgs {
    /// The shell to print the script for.
    pub shell: crate::completion::Shell,
}

/// How to load the completion scripts (shown by `kubepkg completion --help`).
pub const COMPLETION_HELP: &str = "\
Load the script in the running shell, or install it for every new one:
  bash:        source <(kubepkg completion bash)
               kubepkg completion bash > /etc/bash_completion.d/kubepkg
  zsh:         source <(kubepkg completion zsh)
               kubepkg completion zsh > \"${fpath[1]}/_kubepkg\"
  fish:        kubepkg completion fish | source
               kubepkg completion fish > ~/.config/fish/completions/kubepkg.fish
  powershell:  kubepkg completion powershell | Out-String | Invoke-Expression

Release and package names, namespaces and kube contexts are completed from the cluster
(with the --kubeconfig, --kube-context and -n given on the line).";

/// Arguments of `kubepkg controller` (controller-runtime's flag names where they exist).
#[derive(Debug, clap::Args)]
pub struct ControllerArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Name of the kubeconfig context to use (default: $HELM_KUBECONTEXT, then the current one).
    #[arg(long = "kube-context", add = crate::completion::contexts())]
    pub kube_context: Option<String>,
    /// Reconcile only the Packages of these namespaces (repeatable or comma-separated;
    /// default: all namespaces).
    #[arg(long = "watch-namespace", value_delimiter = ',')]
    pub watch_namespaces: Vec<String>,
    /// Packages reconciled at once.
    #[arg(long = "concurrency", default_value_t = 4)]
    pub concurrency: u16,
    /// Address of the Prometheus /metrics endpoint (`0` turns it off).
    #[arg(long = "metrics-bind-address", default_value = ":8080")]
    pub metrics_address: String,
    /// Address of /healthz and /readyz (`0` turns them off).
    #[arg(long = "health-probe-bind-address", default_value = ":8081")]
    pub probe_address: String,
    /// Take the leader Lease before reconciling (run more than one replica with this).
    #[arg(long = "leader-elect")]
    pub leader_elect: bool,
    /// Namespace of the leader Lease (default: $POD_NAMESPACE, then kubepkg-system).
    #[arg(long = "leader-election-namespace")]
    pub leader_election_namespace: Option<String>,
    /// Log lines as `text` or `json`.
    #[arg(long = "log-format", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
    /// Per-component timeout of a Package that sets no `upgrade.timeout`.
    #[arg(long = "timeout", default_value = "10m", value_parser = go_duration)]
    pub timeout: Duration,
    /// How often an applied Package is re-checked when it sets no `interval`.
    #[arg(long = "interval", default_value = "10m", value_parser = go_duration)]
    pub interval: Duration,
}

/// Arguments of `kubepkg template [NAME] CHART` (Helm's flag names and meanings).
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

/// Where a chart comes from and how to fetch it (Helm's chart-path flags of `install`,
/// `upgrade`, `template` and `pull`); the reference itself is read by
/// `kubepkg_source::ChartRef::parse`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChartSourceArgs {
    /// Chart version: exact, or a SemVer constraint (`^1.2`, `>=1.4 <2`); default: the latest
    /// stable version. Ignored for a local chart.
    #[arg(long = "version")]
    pub version: Option<String>,
    /// Also consider pre-release versions (ignored when --version is set).
    #[arg(long = "devel")]
    pub devel: bool,
    /// Chart repository URL to look the chart name up in.
    #[arg(long = "repo")]
    pub repo: Option<String>,
    /// Username for the chart repository or registry.
    #[arg(long = "username")]
    pub username: Option<String>,
    /// Password for the chart repository or registry.
    #[arg(long = "password")]
    pub password: Option<String>,
    /// Send the credentials to every domain the repository index points at.
    #[arg(long = "pass-credentials")]
    pub pass_credentials: bool,
    /// Verify the server's certificate with this CA bundle.
    #[arg(long = "ca-file")]
    pub ca_file: Option<std::path::PathBuf>,
    /// Client certificate file (TLS).
    #[arg(long = "cert-file")]
    pub cert_file: Option<std::path::PathBuf>,
    /// Client key file (TLS).
    #[arg(long = "key-file")]
    pub key_file: Option<std::path::PathBuf>,
    /// Skip verifying the server's certificate.
    #[arg(long = "insecure-skip-tls-verify")]
    pub insecure_skip_tls_verify: bool,
    /// Use plain HTTP (no TLS) to reach an OCI registry.
    #[arg(long = "plain-http")]
    pub plain_http: bool,
    #[command(flatten)]
    pub verify: VerifyArgs,
}

impl ChartSourceArgs {
    /// The source layer's options.
    pub fn options(&self) -> kubepkg_source::SourceOptions {
        kubepkg_source::SourceOptions {
            version: self.version.clone(),
            devel: self.devel,
            repo_url: self.repo.clone(),
            username: self.username.clone(),
            password: self.password.clone(),
            pass_credentials: self.pass_credentials,
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
            insecure_skip_tls_verify: self.insecure_skip_tls_verify,
            plain_http: self.plain_http,
            verify_keys: self.verify.verify_keys.clone(),
        }
    }
}

/// `kubepkg pull CHART`: download a chart archive as `helm pull` does.
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

/// `kubepkg repo …`: Helm's `repositories.yaml` and repository cache, as `helm repo` keeps them.
#[derive(Debug, Subcommand)]
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

/// `kubepkg repo add NAME URL`.
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

/// `kubepkg repo update [NAME…]`.
#[derive(Debug, clap::Args)]
pub struct RepoUpdateArgs {
    pub names: Vec<String>,
    /// Time to wait for each index download.
    #[arg(long = "timeout", value_parser = go_duration, default_value = "2m0s")]
    pub timeout: Duration,
}

/// `kubepkg repo list`.
#[derive(Debug, clap::Args)]
pub struct RepoListArgs {
    /// Output format: table, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
    /// Print no header line.
    #[arg(long = "no-headers")]
    pub no_headers: bool,
}

/// `kubepkg repo remove NAME…`.
#[derive(Debug, clap::Args)]
pub struct RepoRemoveArgs {
    #[arg(required = true)]
    pub names: Vec<String>,
}

/// `kubepkg dependency …`, as `helm dependency`.
#[derive(Debug, Subcommand)]
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

/// `kubepkg dependency update|build CHART`.
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

/// `kubepkg dependency list CHART`.
#[derive(Debug, clap::Args)]
pub struct DependencyListArgs {
    /// The chart directory or archive.
    #[arg(default_value = ".")]
    pub chart: std::path::PathBuf,
}

/// `kubepkg search …`.
#[derive(Debug, Subcommand)]
pub enum SearchCommand {
    /// Search the added repositories' indexes for a keyword (all charts without one).
    Repo(SearchRepoArgs),
}

/// `kubepkg search repo [KEYWORD…]`, as `helm search repo`.
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
    /// Output format: table, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
}

/// Where the cluster is (Helm's `--kubeconfig`, `--kube-context`, `-n`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Name of the kubeconfig context to use (default: $HELM_KUBECONTEXT, then the current one).
    #[arg(long = "kube-context", add = crate::completion::contexts())]
    pub kube_context: Option<String>,
    /// Namespace of the release (default: $HELM_NAMESPACE, then the context's namespace).
    #[arg(short = 'n', long = "namespace", add = crate::completion::namespaces())]
    pub namespace: Option<String>,
    /// Fail at once if another operation holds the package or release instead of waiting for it.
    #[arg(long = "no-wait-lock")]
    pub no_wait_lock: bool,
}

/// Values flags shared by install and upgrade.
#[derive(Debug, Clone, clap::Args)]
pub struct ValuesArgs {
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
}

impl ValuesArgs {
    /// The values flags as the chart layer reads them.
    pub fn options(&self) -> kubepkg_chart::ValueOptions {
        kubepkg_chart::ValueOptions {
            value_files: self.values.iter().map(Into::into).collect(),
            json_values: self.set_json.clone(),
            values: self.set.clone(),
            string_values: self.set_string.clone(),
            file_values: self.set_file.clone(),
            literal_values: self.set_literal.clone(),
        }
    }
}

/// Flags of operations that change a release.
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
    /// Output format of the result: table, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// `kubepkg install NAME CHART`.
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

/// `kubepkg upgrade NAME CHART`.
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

/// Which meaning of NAME a bare verb takes: the package when one named NAME has revision
/// records in the namespace, else the Helm release.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TargetArgs {
    /// NAME is a Helm release, even if a package NAME exists.
    #[arg(long = "release", conflicts_with = "package")]
    pub release: bool,
    /// NAME is a package (fail if the namespace has none of that name).
    #[arg(long = "package")]
    pub package: bool,
}

/// Flags of the bare verbs that change a release or a package (rollback, uninstall).
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
    /// Output format: table (text) or json (packages: one JSON line per progress event, the
    /// summary last).
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// `kubepkg rollback NAME [REVISION]`.
#[derive(Debug, clap::Args)]
pub struct RollbackArgs {
    /// A package or Helm release name (a package when one of that name has revisions here).
    #[arg(add = crate::completion::names())]
    pub name: String,
    /// Revision to roll back to (default: the one before the latest; for a package, the one
    /// before the deployed revision).
    pub revision: Option<u64>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub op: ChangeArgs,
    /// Release: maximum revisions kept (0: no limit).
    #[arg(long = "history-max", default_value_t = 10)]
    pub history_max: usize,
    /// Package: roll back even though the version being left declares `rollback.safe: false`.
    #[arg(long = "force")]
    pub force: bool,
}

/// `kubepkg uninstall NAME`.
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    /// A package or Helm release name (a package when one of that name has revisions here).
    #[arg(add = crate::completion::names())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub op: ChangeArgs,
    /// Keep the release (or package revision) records, marked uninstalled.
    #[arg(long = "keep-history")]
    pub keep_history: bool,
}

/// `kubepkg list`.
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
    /// Output format: table, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
}

/// `kubepkg history NAME` / `kubepkg status NAME`: a package or a release.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub query: ReleaseQueryArgs,
    #[command(flatten)]
    pub target: TargetArgs,
}

/// `kubepkg test NAME` and the release side of `history`/`status`.
#[derive(Debug, clap::Args)]
pub struct ReleaseQueryArgs {
    /// A package or Helm release name (a package when one of that name has revisions here).
    #[arg(add = crate::completion::names())]
    pub name: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output format: table, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
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

/// `kubepkg get values|manifest|hooks|notes NAME`.
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
    #[arg(short = 'o', long = "output", default_value = "table")]
    pub output: String,
}

/// Values given to a package's components: `-f` files with a top-level key per component,
/// `--set component.key=value`.
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

/// `kubepkg plan NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    /// Package directory, `.tgz` archive, bare chart, or `oci://HOST/REPO/NAME` in a registry.
    pub package: std::path::PathBuf,
    #[command(flatten)]
    pub oci: PackageSourceArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub values: PackageValuesFlags,
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
    /// Output format: text or json.
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
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

/// Go's `strconv.ParseBool`, as Helm's boolean flags read `--flag=VALUE`.
fn go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Helm's `install`/`upgrade` flags on `plan` and `apply` (docs/cli.md#helms-install-and-upgrade-flags-on-plan-and-apply):
/// accepted where kubepkg does what they ask, else refused (a usage error) with what kubepkg
/// does instead.
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

/// `--backend`'s values: every [`kubepkg_model::Backend`], by the name users type.
fn backend_value() -> impl clap::builder::TypedValueParser<Value = kubepkg_model::Backend> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(kubepkg_model::Backend::ALL.map(|b| b.as_str()))
        .try_map(|name| name.parse::<kubepkg_model::Backend>())
}

/// How `plan` and `apply` apply components (docs/backends.md#drive-mode).
#[derive(Debug, Clone, clap::Args)]
pub struct BackendArgs {
    /// Who releases the components: helm (kubepkg itself), flux (a HelmRelease per component
    /// that Flux's helm-controller releases) or argocd (an Application per component that Argo
    /// CD syncs when kubepkg sets its sync operation), created one at a time and gated by kubepkg.
    #[arg(long = "backend", default_value = "helm", value_parser = backend_value())]
    pub backend: kubepkg_model::Backend,
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

/// `kubepkg apply NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Package instance name.
    #[arg(add = crate::completion::packages())]
    pub name: String,
    /// Package directory, `.tgz` archive, bare chart, or `oci://HOST/REPO/NAME` in a registry.
    pub package: std::path::PathBuf,
    #[command(flatten)]
    pub oci: PackageSourceArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub values: PackageValuesFlags,
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
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
    #[command(flatten)]
    pub helm: HelmInstallFlags,
}

/// `kubepkg values NAME`.
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

/// `kubepkg package save oci://HOST/REPO/NAME --version V | DIR | PKG.tgz -o pkg.tar`.
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

/// `kubepkg package load pkg.tar oci://HOST/REPO[/NAME]`.
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

/// `kubepkg package lock [PACKAGE]`.
#[derive(Debug, clap::Args)]
pub struct PackageLockArgs {
    /// The package directory (holds kubepkg.yaml).
    #[arg(default_value = ".")]
    pub package: std::path::PathBuf,
    /// For charts in OCI registries (`oci://` components).
    #[command(flatten)]
    pub access: RegistryAccessArgs,
}

/// `kubepkg package status|history NAME`.
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
    /// Output format: text, json or yaml.
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
}

/// `kubepkg package rollback NAME [REVISION]`.
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
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
}

/// `kubepkg package uninstall NAME`.
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
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
}

/// `kubepkg package list`.
#[derive(Debug, clap::Args)]
pub struct PackageListArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Packages of every namespace.
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Output format: text or json.
    #[arg(short = 'o', long = "output", default_value = "text")]
    pub output: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helms_package_dir_is_package_pack() {
        let args = |line: &str| -> Vec<String> {
            from_helms_forms(line.split(' ').map(Into::into).collect())
                .into_iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            args("kubepkg package ./chart"),
            ["kubepkg", "package", "pack", "./chart"]
        );
        assert_eq!(
            args("kubepkg pkg ./chart -d out"),
            ["kubepkg", "pkg", "pack", "./chart", "-d", "out"]
        );
        // A misspelt verb stays, for clap's suggestion.
        assert_eq!(
            args("kubepkg package hisory x"),
            ["kubepkg", "package", "hisory", "x"]
        );
        assert_eq!(
            args("kubepkg package status x"),
            ["kubepkg", "package", "status", "x"]
        );
        assert_eq!(
            args("kubepkg package pack c"),
            ["kubepkg", "package", "pack", "c"]
        );
        assert_eq!(
            args("kubepkg package --help"),
            ["kubepkg", "package", "--help"]
        );
        assert_eq!(
            args("kubepkg -n x package ./c"),
            ["kubepkg", "package", "pack", "-n", "x", "./c"]
        );
        assert_eq!(
            args("kubepkg template package"),
            ["kubepkg", "template", "package"]
        );
    }

    #[test]
    fn global_flags_before_the_verb_move_after_it() {
        let moved = |args: &[&str]| -> Vec<String> {
            with_global_flags_after_the_verb(args.iter().map(Into::into).collect())
                .into_iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            moved(&["kubepkg", "--kubeconfig", "k", "-n", "shop", "list", "-A"]),
            ["kubepkg", "list", "--kubeconfig", "k", "-n", "shop", "-A"]
        );
        assert_eq!(
            moved(&["kubepkg", "--namespace=shop", "package", "status", "web"]),
            ["kubepkg", "package", "status", "--namespace=shop", "web"]
        );
        assert_eq!(
            moved(&["kubepkg", "list", "-n", "x"]),
            ["kubepkg", "list", "-n", "x"],
            "after the verb: unchanged"
        );
        // Parsed as the verb's own flags.
        let cli = Cli::try_parse_from(with_global_flags_after_the_verb(
            ["kubepkg", "--kube-context", "c", "status", "web"]
                .iter()
                .map(Into::into)
                .collect(),
        ))
        .unwrap();
        let Command::Status(q) = cli.command else {
            unreachable!()
        };
        assert_eq!(q.query.cluster.kube_context.as_deref(), Some("c"));
    }

    #[test]
    fn durations_are_gos() {
        assert_eq!(go_duration("5m0s"), Ok(Duration::from_secs(300)));
        assert_eq!(go_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(go_duration("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(go_duration("0"), Ok(Duration::ZERO));
        assert_eq!(go_duration("-1s"), Ok(Duration::ZERO));
        assert_eq!(
            go_duration("5x").unwrap_err(),
            r#"time: unknown unit "x" in duration "5x""#
        );
        assert_eq!(
            go_duration("10").unwrap_err(),
            r#"time: missing unit in duration "10""#
        );
        assert_eq!(go_duration("").unwrap_err(), r#"time: invalid duration """#);
    }

    #[test]
    fn every_timeout_flag_reads_go_durations() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("kubepkg").chain(args.iter().copied()))
        };
        let Command::Install(i) = parse(&["install", "a", "c", "--timeout", "90s"])
            .unwrap()
            .command
        else {
            unreachable!()
        };
        assert_eq!(i.op.timeout, Duration::from_secs(90));
        let Command::Apply(a) = parse(&["apply", "p", "dir"]).unwrap().command else {
            unreachable!()
        };
        assert_eq!(
            (a.timeout, a.requirements_timeout),
            (Duration::from_secs(600), None)
        );
        let err = parse(&["rollback", "a", "--timeout", "soon"])
            .unwrap_err()
            .to_string();
        assert!(err.contains(r#"time: invalid duration "soon""#), "{err}");
    }
}

/// How to reach an OCI registry (the TLS and credential flags of `helm push` and
/// `helm registry login`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RegistryAccessArgs {
    /// Use plain HTTP (no TLS).
    #[arg(long = "plain-http")]
    pub plain_http: bool,
    /// Skip verifying the registry's certificate.
    #[arg(long = "insecure-skip-tls-verify")]
    pub insecure_skip_tls_verify: bool,
    /// Verify the registry's certificate with this CA bundle.
    #[arg(long = "ca-file")]
    pub ca_file: Option<std::path::PathBuf>,
    /// Identify the registry client with this certificate file (PEM; with --key-file).
    #[arg(long = "cert-file")]
    pub cert_file: Option<std::path::PathBuf>,
    /// Identify the registry client with this key file (PEM; with --cert-file).
    #[arg(long = "key-file")]
    pub key_file: Option<std::path::PathBuf>,
    /// Registry username (default: the logged-in or Docker credential).
    #[arg(long = "username")]
    pub username: Option<String>,
    /// Registry password.
    #[arg(long = "password")]
    pub password: Option<String>,
}

impl RegistryAccessArgs {
    /// The source layer's options for these flags.
    pub fn options(&self) -> kubepkg_source::SourceOptions {
        kubepkg_source::SourceOptions {
            username: self.username.clone(),
            password: self.password.clone(),
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
            insecure_skip_tls_verify: self.insecure_skip_tls_verify,
            plain_http: self.plain_http,
            ..Default::default()
        }
    }
}

/// `kubepkg push CHART.tgz oci://HOST/REPO`.
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

/// Cosign signature verification of what is read from a registry (`--verify-key`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct VerifyArgs {
    /// Require a cosign signature by this public key (cosign.pub) on the oci:// chart or
    /// package, checked by digest before it is used (repeatable: any one key suffices).
    #[arg(long = "verify-key", value_name = "KEY")]
    pub verify_keys: Vec<std::path::PathBuf>,
}

/// Signing what a push wrote (`--sign KEY`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SignWithArgs {
    /// Sign the pushed manifest (by digest) with this cosign private key (cosign.key, its
    /// password from COSIGN_PASSWORD), as `cosign sign --key` does.
    #[arg(long = "sign", value_name = "KEY")]
    pub sign: Option<std::path::PathBuf>,
}

/// `kubepkg sign oci://HOST/REPO/NAME:TAG|@DIGEST --key KEY`.
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
pub enum RegistryCommand {
    /// Record credentials for a registry (checked against it first), as `helm registry login`.
    Login(Box<RegistryLoginArgs>),
    /// Remove a registry's credentials, as `helm registry logout`.
    Logout(Box<RegistryLogoutArgs>),
}

/// `kubepkg registry login HOST`.
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

/// `kubepkg registry logout HOST`.
#[derive(Debug, clap::Args)]
pub struct RegistryLogoutArgs {
    /// The registry, `HOST[:PORT]`.
    pub host: String,
}

/// `kubepkg package push PKG oci://HOST/REPO[/NAME]`.
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

/// `kubepkg package pull oci://HOST/REPO/NAME --version V`.
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

/// Where an `oci://` package comes from: `--version` and the registry flags (ignored for a
/// local package).
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

/// The flags of every verb about the terminal (`--no-color`, Helm 4's `--color`; see
/// `crate::terminal`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TerminalArgs {
    /// Never colour the output (as NO_COLOR=1 does; CLICOLOR_FORCE=1 colours it even when it
    /// is not a terminal).
    #[arg(long = "no-color", global = true)]
    pub no_color: bool,
    /// Colour the output: never, auto (on a terminal, unless NO_COLOR is set) or always (also
    /// on a pipe), as Helm 4's flag.
    #[arg(long = "color", visible_alias = "colour", global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

impl TerminalArgs {
    /// The one choice both flags make (`--no-color` is `--color never`).
    pub fn choice(&self) -> ColorChoice {
        if self.no_color {
            ColorChoice::Never
        } else {
            self.color
        }
    }
}

/// The values of `--color`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// No colour.
    Never,
    /// Colour on a terminal, by the environment's rules.
    #[default]
    Auto,
    /// Colour, also on a pipe or in a file (a flag on the command line overrides NO_COLOR).
    Always,
}

/// How the verbs that change a cluster show their progress (`--progress`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ProgressArgs {
    /// Progress on standard error: `live` (one redrawn line per component, or per object of a
    /// release), `plain` (one line per event), or `auto` (live on a terminal unless $CI is set
    /// or TERM is dumb; plain otherwise).
    #[arg(long = "progress", value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

/// The values of `--progress`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// Live on a terminal that can redraw lines, outside CI; plain otherwise.
    #[default]
    Auto,
    /// Live lines always: also in CI, with TERM=dumb, or on a pipe (escape codes and all).
    Live,
    /// One line per event, as on a pipe.
    Plain,
}

/// `kubepkg lint PATH...`: a package directory (kubepkg.yaml), a chart directory or a chart
/// archive (Helm's `helm lint` flags).
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
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = ["text", "json"])]
    pub output: String,
}

/// `kubepkg create NAME`.
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

/// The chart of `kubepkg show …`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Chart reference: a directory or .tgz, `oci://HOST/REPO/CHART`, `REPO/CHART`, a chart
    /// URL, or a name with --repo.
    pub chart: String,
    #[command(flatten)]
    pub source: ChartSourceArgs,
}

/// `kubepkg package pack DIR...`.
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

/// `kubepkg render --backend flux|argocd NAME PACKAGE`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Package instance name (the releases are `NAME-COMPONENT`).
    pub name: String,
    /// Package directory, `.tgz` archive, or `oci://HOST/REPO/NAME` in a registry.
    pub package: std::path::PathBuf,
    /// The GitOps controller to compile for (`flux` or `argocd`).
    #[arg(long = "backend", value_parser = ["flux", "argocd"])]
    pub backend: String,
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
    #[arg(short = 'o', long = "output", default_value = "yaml", value_parser = ["yaml", "json"])]
    pub output: String,
}
