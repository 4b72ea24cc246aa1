//! Flags and environment resolved once, at start-up, into the [`Settings`] every command
//! reads (as uv's `settings.rs`): where the cluster is and which release storage to use.
//! Nothing else in the binary reads the environment. Helm's rules:
//! - namespace: `-n`, else `$HELM_NAMESPACE` (empty counts as unset), else the kubeconfig
//!   context's namespace once connected, or `default` for what runs offline;
//! - context: `--kube-context`, else `$HELM_KUBECONTEXT`, else the kubeconfig's current one;
//! - kubeconfig: `--kubeconfig`, else `$KUBECONFIG`, `~/.kube/config`, in-cluster (read by
//!   `kubepkg_kube` when connecting);
//! - identity: `--kube-as-user`, `--kube-as-group`, `--kube-as-uid` (Kubernetes
//!   impersonation on every request, as Helm and kubectl's `--as`), else `$HELM_KUBEASUSER`,
//!   `$HELM_KUBEASGROUPS` (comma-separated);
//! - release storage: `$HELM_DRIVER` (secret, configmap or memory), checked when a verb opens
//!   the storage, so verbs that do not use it never fail on it;
//! - the terminal: colour of each stream (`NO_COLOR`, `--no-color`, `CLICOLOR_FORCE`) and
//!   whether progress may be live (`CI`, `TERM`), decided by [`Terminal::resolve`].
//!
//! The command line's flags arrive as [`Flags`] (`crate::cli::Cli::settings` reads them), so
//! this module knows nothing of clap.

use std::path::PathBuf;

use anyhow::Result;
use kubepkg_kube::{Cluster, ClusterOptions};
use kubepkg_release::action::{Options, Releases};
use kubepkg_release::{AnyDriver, DriverKind, Store};

use crate::progress::Printer;
use crate::terminal::Terminal;

/// What every command needs to know about where it runs.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub kubeconfig: Option<PathBuf>,
    pub kube_context: Option<String>,
    /// `-n` or `$HELM_NAMESPACE`; `None`: the context's namespace (or `default` offline).
    pub namespace: Option<String>,
    /// Whom every request acts as (`--kube-as-*`).
    pub impersonate: kubepkg_kube::Impersonation,
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

/// The flags settings are resolved from, as the command line (`crate::cli`) or a line being
/// completed (`crate::completion`) gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flags {
    pub kubeconfig: Option<PathBuf>,
    pub kube_context: Option<String>,
    pub namespace: Option<String>,
    pub impersonate: kubepkg_kube::Impersonation,
    pub no_wait_lock: bool,
    pub debug: bool,
}

/// The flags' identity, else Helm's variables for it.
fn impersonation(
    flags: kubepkg_kube::Impersonation,
    set: &impl Fn(&str) -> Option<String>,
) -> kubepkg_kube::Impersonation {
    let groups = if flags.groups.is_empty() {
        set("HELM_KUBEASGROUPS")
            .map(|g| {
                g.split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    } else {
        flags.groups
    };
    kubepkg_kube::Impersonation {
        user: flags.user.or_else(|| set("HELM_KUBEASUSER")),
        groups,
        uid: flags.uid,
    }
}

impl Settings {
    /// Resolves given flags and the environment (`env`: a variable's value).
    pub fn from_flags(flags: Flags, env: impl Fn(&str) -> Option<String>) -> Settings {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        Settings {
            kubeconfig: flags.kubeconfig,
            kube_context: flags.kube_context.or_else(|| set("HELM_KUBECONTEXT")),
            namespace: flags.namespace.or_else(|| set("HELM_NAMESPACE")),
            impersonate: impersonation(flags.impersonate, &set),
            helm_driver: env("HELM_DRIVER").unwrap_or_default(),
            wait_lock: !flags.no_wait_lock,
            paths: kubepkg_source::HelmPaths::resolve(&env),
            debug: flags.debug || set("HELM_DEBUG").is_some_and(|v| truthy(&v)),
            terminal: Terminal::default(),
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
            impersonate: self.impersonate.clone(),
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

/// The environment `env` of `(variable, value)` pairs as [`Settings::from_flags`] and
/// [`Terminal::resolve`] read one: a variable's value (tests).
#[cfg(test)]
pub(crate) fn vars<'a>(
    env: &'a [(&'a str, &'a str)],
) -> impl Fn(&str) -> Option<String> + Copy + 'a {
    move |name| {
        env.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identity_is_the_flags_else_helms_variables() {
        let env = vars(&[
            ("HELM_KUBEASUSER", "alice"),
            ("HELM_KUBEASGROUPS", "dev, ops,"),
        ]);
        let s = Settings::from_flags(Flags::default(), env);
        assert_eq!(s.impersonate.user.as_deref(), Some("alice"));
        assert_eq!(s.impersonate.groups, ["dev", "ops"]);
        let flags = Flags {
            impersonate: kubepkg_kube::Impersonation {
                user: Some("bob".into()),
                groups: vec!["qa".into()],
                uid: None,
            },
            ..Flags::default()
        };
        let s = Settings::from_flags(flags, env);
        assert_eq!(s.impersonate.user.as_deref(), Some("bob"));
        assert_eq!(s.impersonate.groups, ["qa"]);
        assert_eq!(s.cluster_options().impersonate, s.impersonate);
    }
}
