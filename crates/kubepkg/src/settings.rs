//! Flags and environment resolved once, at start-up, into the [`Settings`] every command
//! reads (as uv's `settings.rs`): where the cluster is and which release storage to use.
//! Nothing else in the binary reads the environment. Helm's rules:
//! - namespace: `-n`, else `$HELM_NAMESPACE` (empty counts as unset), else the kubeconfig
//!   context's namespace once connected, or `default` for what runs offline;
//! - context: `--kube-context`, else `$HELM_KUBECONTEXT`, else the kubeconfig's current one;
//! - kubeconfig: `--kubeconfig`, else `$KUBECONFIG`, `~/.kube/config`, in-cluster (read by
//!   `kubepkg_kube` when connecting);
//! - release storage: `$HELM_DRIVER` (secret, configmap or memory), checked when a verb opens
//!   the storage, so verbs that do not use it never fail on it;
//! - the terminal: colour of each stream (`NO_COLOR`, `--no-color`, `CLICOLOR_FORCE`) and
//!   whether progress may be live (`CI`, `TERM`), decided by [`Terminal::resolve`].

use std::path::PathBuf;

use anyhow::Result;
use kubepkg_kube::{Cluster, ClusterOptions};
use kubepkg_release::action::{Options, Releases};
use kubepkg_release::{AnyDriver, DriverKind, Store};

use crate::cli::{Cli, ClusterArgs, Command, GlobalArgs, PackageCommand};
use crate::progress::Printer;
use crate::terminal::{Streams, Terminal};

/// What every command needs to know about where it runs.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub kubeconfig: Option<PathBuf>,
    pub kube_context: Option<String>,
    /// `-n` or `$HELM_NAMESPACE`; `None`: the context's namespace (or `default` offline).
    pub namespace: Option<String>,
    /// `$HELM_DRIVER` as given.
    helm_driver: String,
    /// Wait for a busy release's lease (false: `--no-wait-lock`).
    pub wait_lock: bool,
    /// Helm's repository and registry files and kubepkg's cache (`kubepkg_source::paths`).
    pub paths: kubepkg_source::HelmPaths,
    /// `--debug` or `$HELM_DEBUG`: print the request trail ([`crate::debug`]).
    pub debug: bool,
    /// Colours and live progress (`crate::terminal`).
    pub terminal: Terminal,
}

impl Settings {
    /// Resolves the flags of the command line and the environment (`env`: a variable's value).
    pub fn resolve(cli: &Cli, env: impl Fn(&str) -> Option<String>) -> Settings {
        Settings::from_flags(
            &cli.global,
            cluster_flags(&cli.command).unwrap_or_default(),
            env,
        )
    }

    /// Resolves given flags and the environment (also for shell completion, which reads the
    /// flags of a line still being typed).
    pub fn from_flags(
        global: &GlobalArgs,
        flags: ClusterArgs,
        env: impl Fn(&str) -> Option<String>,
    ) -> Settings {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        Settings {
            kubeconfig: flags.kubeconfig,
            kube_context: flags.kube_context.or_else(|| set("HELM_KUBECONTEXT")),
            namespace: flags.namespace.or_else(|| set("HELM_NAMESPACE")),
            helm_driver: env("HELM_DRIVER").unwrap_or_default(),
            wait_lock: !flags.no_wait_lock,
            paths: kubepkg_source::HelmPaths::resolve(&env),
            debug: global.debug || set("HELM_DEBUG").is_some_and(|v| truthy(&v)),
            terminal: Terminal::default(),
        }
    }

    /// [`Settings::resolve`] of the whole command line with the process environment, and the
    /// terminal decided from `--no-color`, the same environment and the process's streams.
    pub fn from_env(cli: &Cli) -> Settings {
        let env = |name: &str| std::env::var(name).ok();
        Settings {
            terminal: Terminal::resolve(cli.terminal.choice(), Streams::probe(), env),
            ..Settings::resolve(cli, env)
        }
    }

    /// The namespace as `helm env` shows it: `-n`, `$HELM_NAMESPACE`, else the kubeconfig
    /// context's namespace, else `default` (reads the kubeconfig, does not connect).
    pub fn namespace_shown(&self) -> String {
        kubepkg_kube::default_namespace(&self.cluster_options())
    }

    /// `$HELM_DRIVER` as given (empty: Helm's default, `secret`).
    pub fn helm_driver(&self) -> &str {
        &self.helm_driver
    }

    /// The namespace of what runs without a cluster (`template`, client dry runs, `plan`).
    pub fn offline_namespace(&self) -> String {
        self.namespace
            .clone()
            .unwrap_or_else(|| "default".to_string())
    }

    /// How to connect.
    pub fn cluster_options(&self) -> ClusterOptions {
        ClusterOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.kube_context.clone(),
            namespace: self.namespace.clone(),
            ..Default::default()
        }
    }

    /// Connects to the cluster.
    pub async fn connect(&self) -> Result<Cluster> {
        Ok(Cluster::connect(&self.cluster_options()).await?)
    }

    /// The release storage `$HELM_DRIVER` names.
    pub fn driver(&self) -> Result<DriverKind> {
        Ok(DriverKind::from_helm_driver(&self.helm_driver)?)
    }

    /// The release records of the connected namespace, or of every namespace.
    pub fn store(&self, cluster: &Cluster, all_namespaces: bool) -> Result<Store<AnyDriver>> {
        let namespace = (!all_namespaces).then_some(cluster.namespace.as_str());
        Ok(Store::new(
            self.driver()?.open(cluster.client.clone(), namespace),
        ))
    }

    /// Release operations in the connected namespace, their progress printed by `printer` (a
    /// single release has no component).
    pub fn releases<'a>(
        &self,
        cluster: &'a Cluster,
        printer: &Printer,
    ) -> Result<Releases<'a, AnyDriver>> {
        let driver = self
            .driver()?
            .open(cluster.client.clone(), Some(&cluster.namespace));
        let mut releases = Releases::new(cluster, driver, &cluster.namespace);
        let sink = printer.sink();
        releases.progress =
            Box::new(move |message| sink(&kubepkg_progress::Event::message(None, message)));
        Ok(releases)
    }

    /// The release layer's options with this run's lease behaviour.
    pub fn options(&self) -> Options {
        Options {
            wait_lock: self.wait_lock,
            ..Default::default()
        }
    }
}

/// Go's `strconv.ParseBool` truth, as Helm reads `$HELM_DEBUG`.
fn truthy(v: &str) -> bool {
    matches!(v, "1" | "t" | "T" | "true" | "TRUE" | "True")
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
                    no_wait_lock: false,
                });
            }
            Command::Plan(a) => &a.cluster,
            Command::Apply(a) => &a.cluster,
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
            Command::Rollback(a) => &a.cluster,
            Command::Uninstall(a) => &a.cluster,
            Command::List(a) => &a.cluster,
            Command::History(a) | Command::Status(a) => &a.query.cluster,
            Command::Get(a) => &a.cluster,
            Command::Pull(_)
            | Command::Repo(_)
            | Command::Search(_)
            | Command::Dependency(_)
            | Command::Push(_)
            | Command::Sign(_)
            | Command::Registry(_)
            | Command::Lint(_)
            | Command::Create(_)
            | Command::Show(_) => return None,
            Command::Test(a) => &a.cluster,
            Command::Controller(a) => {
                return Some(ClusterArgs {
                    kubeconfig: a.kubeconfig.clone(),
                    kube_context: a.kube_context.clone(),
                    namespace: None,
                    no_wait_lock: false,
                });
            }
        }
        .clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn settings(args: &[&str], env: &[(&str, &str)]) -> Settings {
        let cli =
            crate::cli::Cli::parse_from(std::iter::once("kubepkg").chain(args.iter().copied()));
        Settings::resolve(&cli, |name| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn flags_win_over_helms_environment() {
        let env = [
            ("HELM_NAMESPACE", "from-env"),
            ("HELM_KUBECONTEXT", "ctx-env"),
            ("HELM_DRIVER", "configmap"),
        ];
        let s = settings(&["list", "-n", "flag", "--kube-context", "ctx"], &env);
        assert_eq!(s.namespace.as_deref(), Some("flag"));
        assert_eq!(s.kube_context.as_deref(), Some("ctx"));
        assert_eq!(s.driver().unwrap(), DriverKind::ConfigMap);
        let s = settings(&["status", "web", "--no-wait-lock"], &env);
        assert_eq!(s.namespace.as_deref(), Some("from-env"));
        assert_eq!(s.kube_context.as_deref(), Some("ctx-env"));
        assert!(!s.wait_lock);
    }

    #[test]
    fn offline_verbs_default_to_the_default_namespace() {
        let s = settings(&["template", "chart"], &[("HELM_NAMESPACE", "")]);
        assert_eq!(s.offline_namespace(), "default");
        let s = settings(&["template", "chart"], &[("HELM_NAMESPACE", "ns")]);
        assert_eq!(s.offline_namespace(), "ns");
        let s = settings(&["plan", "p", "dir", "-n", "x"], &[]);
        assert_eq!(s.offline_namespace(), "x");
        assert!(s.wait_lock);
    }

    #[test]
    fn helm_debug_is_read_as_go_reads_a_bool() {
        assert!(!settings(&["version"], &[]).debug);
        assert!(settings(&["version", "--debug"], &[]).debug);
        assert!(settings(&["--debug", "list"], &[]).debug);
        for (value, on) in [
            ("true", true),
            ("1", true),
            ("T", true),
            ("false", false),
            ("yes", false),
            ("", false),
        ] {
            assert_eq!(
                settings(&["list"], &[("HELM_DEBUG", value)]).debug,
                on,
                "{value}"
            );
        }
    }

    #[test]
    fn an_unknown_driver_fails_only_where_storage_is_used() {
        let s = settings(&["version"], &[("HELM_DRIVER", "sql")]);
        assert_eq!(
            s.driver().unwrap_err().to_string(),
            r#"HELM_DRIVER="sql" is not supported by kubepkg (use secret, configmap or memory)"#
        );
    }
}
