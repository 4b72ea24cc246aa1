//! Command-line definitions (clap), parsed once in `main`: the command tree ([`Cli`],
//! [`Command`]), Helm's argument forms ([`from_helms_forms`]) and what the command line
//! resolves to ([`Cli::settings`]). Each family's arguments are in a module of its own —
//! [`common`] (shared flags and the value parsers: [`go_duration`], `-o`, `--backend`),
//! [`chart`], [`release`], [`package`] — re-exported here; behaviour is in `commands` over the
//! library crates.
//!
//! A verb's flags and subcommands are defined only when that verb is parsed (clap's `defer` on
//! each subcommand enum): a `template` builds its own definition, not the whole tree's. Clap
//! applies a deferred definition last, and it would make an argument struct's doc comment the
//! verb's about text over the verb's own: the `clap::Args` structs therefore carry plain `//`
//! comments (the help snapshots in `tests/it/help.rs` catch a `///` that slips back).

use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::settings::{Flags, Settings};
use crate::terminal::{ColorChoice, Streams, Terminal};

pub mod chart;
pub mod common;
pub mod package;
pub mod release;

pub use self::chart::*;
use self::common::formats;
pub use self::common::*;
pub use self::package::*;
pub use self::release::*;
pub use crate::format::Format;

/// Helm's global flags, which `helm` accepts before the verb as well as after it
/// (`helm -n shop list`): the ones kubepkg knows, with whether each takes a value.
const GLOBAL_FLAGS: &[(&str, bool)] = &[
    ("--kubeconfig", true),
    ("--kube-context", true),
    ("--namespace", true),
    ("-n", true),
    ("--kube-as-user", true),
    ("--kube-as-group", true),
    ("--kube-as-uid", true),
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
        && Cli::command().find_subcommand("package").is_some_and(|p| {
            // Its subcommands are defined when it is built (`defer` on [`Command`]).
            let mut package = p.clone();
            package.build();
            package.find_subcommand(&next).is_none()
        })
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
        let Some(mut sub) = cmd.find_subcommand(&word).cloned() else {
            break;
        };
        // A verb's subcommands are defined when it is built (`defer` on [`Command`]).
        sub.build();
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
    after_long_help = after_help()
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub terminal: TerminalArgs,
}

// Flags every verb takes, before or after it (Helm's global flags that are not about the
// cluster; those are [`ClusterArgs`]).
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

/// Shown by `kubepkg --help`: how NAME is resolved.
pub const PACKAGES_AND_RELEASES: &str = "\
Packages and releases:
  status, history, rollback and uninstall take a NAME. If a package NAME has revision records
  in the namespace, the verb acts on the package; otherwise on the Helm release NAME.
  --package forces the package meaning (error if there is none), --release the release meaning.
  `kubepkg list` prints Helm's release table; `kubepkg list --packages` lists packages.
  `kubepkg package status|history|rollback|uninstall|list` always mean packages.";

/// The end of `kubepkg --help`: how NAME is resolved, and the exit codes ([`crate::exit`]).
fn after_help() -> String {
    format!("{PACKAGES_AND_RELEASES}\n\n{}", crate::exit::help_section())
}

/// The verbs; each one's flags are defined when it is the one parsed (see the module docs).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
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
    /// Fleet rollouts (PackageRollout objects): status, promote, pause, resume.
    #[command(subcommand)]
    Rollout(RolloutCommand),
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
    /// List Helm's plugins ($HELM_PLUGINS); `postrenderer/v1` ones serve `--post-renderer`.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Manage a chart's Chart.yaml dependencies: update, build, list (`charts/`, `Chart.lock`).
    #[command(subcommand, visible_alias = "dep")]
    Dependency(DependencyCommand),
    /// Run the kubepkg controller: reconcile `Package` objects until SIGTERM.
    Controller(Box<ControllerArgs>),
    /// Serve a read-only web dashboard of the packages (state, graph, history, diffs, values),
    /// live, on this machine, with your kubeconfig's permissions.
    Dashboard(Box<DashboardArgs>),
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

impl Cli {
    /// The settings of this command line with the process environment, the terminal decided
    /// from `--color`/`--no-color`, the same environment and the process's streams.
    pub fn settings(&self) -> Settings {
        let env = |name: &str| std::env::var(name).ok();
        let mut settings = self.resolve(env);
        settings.terminal = Terminal::resolve(self.terminal.choice(), Streams::probe(), env);
        settings
    }

    /// The settings of this command line's flags and the environment `env` (a variable's
    /// value).
    pub fn resolve(&self, env: impl Fn(&str) -> Option<String>) -> Settings {
        let cluster = cluster_flags(&self.command).unwrap_or_default();
        Settings::from_flags(
            Flags {
                impersonate: cluster.impersonation(),
                kubeconfig: cluster.kubeconfig,
                kube_context: cluster.kube_context,
                namespace: cluster.namespace,
                no_wait_lock: cluster.no_wait_lock,
                debug: self.global.debug,
            },
            env,
        )
    }
}

/// The cluster flags of the command line (`template` has its own).
fn cluster_flags(command: &Command) -> Option<ClusterArgs> {
    Some(
        match command {
            Command::Version(_) | Command::Env(_) | Command::Completion(_) | Command::Schema => {
                return None;
            }
            Command::Render(a) => {
                return Some(ClusterArgs {
                    namespace: a.namespace.clone(),
                    ..ClusterArgs::default()
                });
            }
            Command::Template(a) => {
                return Some(ClusterArgs {
                    kubeconfig: a.kubeconfig.clone().map(Into::into),
                    kube_context: a.kube_context.clone(),
                    namespace: a.namespace.clone(),
                    ..ClusterArgs::default()
                });
            }
            Command::Plan(a) => &a.input.cluster,
            Command::Apply(a) => &a.input.cluster,
            Command::Values(a) => &a.cluster,
            Command::Package(p) => match p {
                PackageCommand::Status(a) | PackageCommand::History(a) => &a.cluster,
                PackageCommand::Rollback(a) => &a.cluster,
                PackageCommand::Uninstall(a) => &a.cluster,
                PackageCommand::List(a) => &a.cluster,
                PackageCommand::Lock(_)
                | PackageCommand::Push(_)
                | PackageCommand::Pull(_)
                | PackageCommand::Pack(_)
                | PackageCommand::Save(_)
                | PackageCommand::Load(_) => {
                    return None;
                }
            },
            Command::Install(a) => &a.cluster,
            Command::Upgrade(a) => &a.common.cluster,
            Command::Rollback(a) => &a.change.cluster,
            Command::Rollout(r) => match r {
                RolloutCommand::Status(a) => &a.rollout.cluster,
                RolloutCommand::Plan(a) => &a.rollout.cluster,
                RolloutCommand::Pause(a)
                | RolloutCommand::Resume(a)
                | RolloutCommand::Abort(a)
                | RolloutCommand::History(a) => &a.cluster,
                RolloutCommand::Promote(a) => &a.cluster,
            },
            Command::Uninstall(a) => &a.change.cluster,
            Command::List(a) => &a.cluster,
            Command::History(a) | Command::Status(a) => &a.query.cluster,
            Command::Get(a) => &a.cluster,
            Command::Pull(_)
            | Command::Repo(_)
            | Command::Plugin(_)
            | Command::Search(_)
            | Command::Dependency(_)
            | Command::Push(_)
            | Command::Sign(_)
            | Command::Registry(_)
            | Command::Lint(_)
            | Command::Create(_)
            | Command::Show(_) => return None,
            Command::Test(a) => &a.cluster,
            Command::Dashboard(a) => &a.cluster,
            Command::Controller(a) => {
                return Some(ClusterArgs {
                    kubeconfig: a.kubeconfig.clone(),
                    kube_context: a.kube_context.clone(),
                    ..ClusterArgs::default()
                });
            }
        }
        .clone(),
    )
}

/// The verbs of [`Command::runs_on_one_thread`], by the names they are typed with.
const ONE_THREAD_VERBS: [&str; 8] = [
    "create",
    "lint",
    "show",
    "template",
    "version",
    "env",
    "completion",
    "schema",
];

/// Whether the command line `args` (the program first) names a verb that runs on one thread,
/// read from its words before clap parses them (past Helm's global flags, as
/// [`from_helms_forms`] finds the verb): for what must be decided before the parse allocates.
/// A verb clap would read otherwise (a prefix, a misspelling) answers `false`.
pub fn verb_runs_on_one_thread(args: &[std::ffi::OsString]) -> bool {
    args.get(leading_global_flags_end(args))
        .and_then(|w| w.to_str())
        .is_some_and(|w| ONE_THREAD_VERBS.contains(&w))
}

impl Command {
    /// Whether the verb does its work in this process without waiting on others, so one
    /// thread runs it: the chart verbs that read, render and print (`template`, `lint`,
    /// `show`, …). The others get worker threads: they talk to clusters and registries, watch,
    /// serve, and run several waits at once. [`ONE_THREAD_VERBS`] names the same verbs.
    pub fn runs_on_one_thread(&self) -> bool {
        matches!(
            self,
            Command::Create(_)
                | Command::Lint(_)
                | Command::Show(_)
                | Command::Template(_)
                | Command::Version(_)
                | Command::Env(_)
                | Command::Completion(_)
                | Command::Schema
        )
    }

    /// Whether the verb exits as `helm` does, 1 for any failure: Helm's own verbs (and
    /// kubepkg's chart and registry verbs beside them). The package verbs exit by what
    /// happened ([`crate::exit::Exit`]).
    pub fn exits_as_helm(&self) -> bool {
        !matches!(
            self,
            Command::Plan(_)
                | Command::Apply(_)
                | Command::Values(_)
                | Command::Package(_)
                | Command::Render(_)
                | Command::Rollback(_)
                | Command::Rollout(_)
                | Command::Uninstall(_)
                | Command::History(_)
                | Command::Status(_)
                | Command::List(_)
                | Command::Controller(_)
                | Command::Dashboard(_)
        )
    }
}

// Arguments of `kubepkg version`.
#[derive(Debug, clap::Args)]
pub struct VersionArgs {
    /// Print the version only (`v0.1.0`).
    #[arg(long = "short")]
    pub short: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = formats(Format::QUERY))]
    pub output: Format,
}

// Arguments of `kubepkg env`.
#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// Print only this variable's value.
    pub name: Option<String>,
}

// Arguments of `kubepkg completion`.
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

// Arguments of `kubepkg dashboard`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = DASHBOARD_HELP)]
pub struct DashboardArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Show the packages of every namespace, as `list --packages -A` lists them (default: the
    /// namespace of -n or the context).
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Port to listen on (0: any free port; the URL is printed).
    #[arg(long = "port", default_value_t = 8484)]
    pub port: u16,
    /// Address to listen on. Anyone who can reach it sees what your kubeconfig may read: keep
    /// it on loopback unless you mean to share it.
    #[arg(long = "address", default_value = "127.0.0.1")]
    pub address: std::net::IpAddr,
    /// Open the dashboard in the browser (xdg-open, open or $BROWSER) once it listens.
    #[arg(long = "open")]
    pub open: bool,
}

/// Shown by `kubepkg dashboard --help`.
pub const DASHBOARD_HELP: &str = "\
The dashboard reads the cluster as your kubeconfig lets you (as kubectl would) and changes
nothing. Its pages: the packages with their state and what each waits for; a package's
components in dependsOn order, live; its history, the diff between two revisions (Secrets
masked as `plan` masks them) and failures' diagnosis; values with where each came from.
It runs until interrupted (Ctrl-C). See docs/dashboard.md.";

// Arguments of `kubepkg controller` (controller-runtime's flag names where they exist).
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
    /// Reconcile only the Packages this label selector picks (one shard of several
    /// controllers: `kubepkg.dev/shard=a`, and `!kubepkg.dev/shard` for the rest).
    #[arg(long = "watch-label-selector", value_name = "SELECTOR")]
    pub watch_label_selector: Option<String>,
    /// Packages reconciled at once.
    #[arg(long = "concurrency", default_value_t = 4)]
    pub concurrency: u16,
    /// Address of the Prometheus /metrics endpoint (`0` turns it off).
    #[arg(long = "metrics-bind-address", default_value = ":8080")]
    pub metrics_address: String,
    /// Address of /healthz and /readyz (`0` turns them off).
    #[arg(long = "health-probe-bind-address", default_value = ":8081")]
    pub probe_address: String,
    /// Address of the read-only web dashboard (`0`: off). Each user signs in with a
    /// Kubernetes bearer token (TokenReview) and sees the namespaces they may `get packages`
    /// in (SubjectAccessReview); docs/dashboard.md.
    #[arg(long = "dashboard-bind-address", default_value = "0")]
    pub dashboard_address: String,
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
    /// The ServiceAccount (of each Package's namespace) a Package that names no
    /// `serviceAccountName` is applied as; with it set, the controller's own identity never
    /// applies package contents.
    #[arg(long = "default-service-account", value_name = "NAME")]
    pub default_service_account: Option<String>,
    /// Refuse Packages whose `valuesFrom`, `source.*Ref` or `source.verify` name a ConfigMap or
    /// Secret of another namespace.
    #[arg(long = "no-cross-namespace-refs")]
    pub no_cross_namespace_refs: bool,
}

// The flags of every verb about the terminal (`--no-color`, Helm 4's `--color`; see
// `crate::terminal`).
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

#[cfg(test)]
mod tests;
