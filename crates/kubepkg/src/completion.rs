//! Shell completion, as `helm completion` offers it: `kubepkg completion SHELL` prints a script
//! that registers kubepkg with the shell; on every TAB the script runs kubepkg again with
//! `KUBEPKG_COMPLETE=<shell>` and the words of the line, and [`complete_if_asked`] (the first
//! thing `main` does, handed the command definition of `crate::cli`) answers from clap's
//! completion engine (`clap_complete`'s dynamic completion: verbs, flags and their values come
//! from that one command definition, so they never drift from what parses).
//!
//! Values that only the cluster knows are completed by the completers here: release and
//! package names (status, history, rollback, uninstall, get, test, upgrade, package verbs),
//! rollout names (`rollout` verbs),
//! namespaces (`-n`) and kube contexts (`--kube-context`, from the kubeconfig only). They read
//! `--kubeconfig`, `--kube-context` and `-n` from the line being completed, resolve them with
//! the environment as every verb does ([`Settings::from_flags`]), and give up silently after
//! [`CLUSTER_BUDGET`]: completion never hangs on an unreachable cluster.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::time::Duration;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use clap_complete::env::{Bash, CompleteEnv, EnvCompleter, Fish, Powershell, Shells, Zsh};

use crate::settings::{Flags, Settings};

/// The environment variable that asks kubepkg to complete instead of running.
pub const VAR: &str = "KUBEPKG_COMPLETE";

/// How long a completer may spend on the cluster before it offers nothing.
pub const CLUSTER_BUDGET: Duration = Duration::from_secs(5);

/// The shells `kubepkg completion` writes scripts for (Helm's four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

impl Shell {
    fn completer(self) -> &'static dyn EnvCompleter {
        match self {
            Shell::Bash => &Bash,
            Shell::Zsh => &Zsh,
            Shell::Fish => &Fish,
            Shell::Powershell => &Powershell,
        }
    }
}

const SHELLS: Shells<'static> = Shells(&[&Bash, &Zsh, &Fish, &Powershell]);

/// Answers a completion request of a registered shell from the command `factory` makes (the
/// one definition in `crate::cli`) and exits; returns (doing nothing) when kubepkg was not
/// called for completion.
pub fn complete_if_asked(factory: fn() -> clap::Command) {
    CompleteEnv::with_factory(factory)
        .var(VAR)
        .shells(SHELLS)
        .complete();
}

/// Writes the registration script of `shell`; it calls back `program` (this binary as it was
/// invoked: a bare name is looked up on `PATH` by the shell, a path is made absolute).
pub fn write_script(shell: Shell, program: &OsStr, out: &mut dyn Write) -> std::io::Result<()> {
    let mut completer = std::path::PathBuf::from(program);
    if completer.components().count() > 1
        && let Ok(dir) = std::env::current_dir()
    {
        completer = dir.join(completer);
    }
    shell.completer().write_registration(
        VAR,
        "kubepkg",
        "kubepkg",
        &completer.to_string_lossy(),
        out,
    )
}

/// Completes a release or package NAME: releases and packages of the namespace.
pub fn names() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        from_cluster(current, |settings| async move {
            let cluster = settings.connect().await.ok()?;
            let mut names = package_names(&cluster).await.unwrap_or_default();
            names.extend(release_names(&settings, &cluster).await.unwrap_or_default());
            Some(names)
        })
    })
}

/// Completes a package NAME: the packages of the namespace.
pub fn packages() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        from_cluster(current, |settings| async move {
            let cluster = settings.connect().await.ok()?;
            package_names(&cluster).await
        })
    })
}

/// Completes a release NAME: the Helm releases of the namespace.
pub fn releases() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        from_cluster(current, |settings| async move {
            let cluster = settings.connect().await.ok()?;
            release_names(&settings, &cluster).await
        })
    })
}

/// Completes a rollout NAME: the PackageRollouts of the namespace.
pub fn rollouts() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        from_cluster(current, |settings| async move {
            let cluster = settings.connect().await.ok()?;
            let rollouts: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
                cluster.client.clone(),
                &cluster.namespace,
                &kubepkg_controller::rollout::api_resource(),
            );
            let list = rollouts.list_metadata(&Default::default()).await.ok()?;
            Some(
                list.items
                    .into_iter()
                    .filter_map(|o| o.metadata.name)
                    .collect(),
            )
        })
    })
}

/// Completes `-n`: the cluster's namespaces.
pub fn namespaces() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        from_cluster(current, |settings| async move {
            let cluster = settings.connect().await.ok()?;
            cluster.namespace_names().await.ok()
        })
    })
}

/// Completes `--kube-context`: the kubeconfig's contexts (no connection).
pub fn contexts() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let settings = line_settings();
        let names =
            kubepkg_kube::kubeconfig_contexts(&settings.cluster_options()).unwrap_or_default();
        candidates(current, names)
    })
}

async fn package_names(cluster: &kubepkg_kube::Cluster) -> Option<Vec<String>> {
    let store = kubepkg_engine::store::RevisionStore::new(cluster.client.clone());
    let latest = store.list_latest(Some(&cluster.namespace)).await.ok()?;
    Some(latest.into_iter().map(|r| r.name).collect())
}

async fn release_names(
    settings: &Settings,
    cluster: &kubepkg_kube::Cluster,
) -> Option<Vec<String>> {
    use kubepkg_release::query::{self, ListOptions, Selector, StateMask};
    let store = settings.store(cluster, false).ok()?;
    let opts = ListOptions {
        states: StateMask::all(),
        filter: None,
        selector: Selector::default(),
        by_date: false,
        reverse: false,
        max: 0,
        offset: 0,
    };
    let list = query::list(&store.driver, &opts).await.ok()?;
    Some(list.into_iter().map(|r| r.name).collect())
}

/// Runs `list` on the runtime `main` entered within [`CLUSTER_BUDGET`] and offers what it
/// found that starts with `current` (nothing on an error or a timeout).
fn from_cluster<F, Fut>(current: &OsStr, list: F) -> Vec<CompletionCandidate>
where
    F: FnOnce(Settings) -> Fut,
    Fut: std::future::Future<Output = Option<Vec<String>>>,
{
    let settings = line_settings();
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return Vec::new();
    };
    let found = runtime
        .block_on(async { tokio::time::timeout(CLUSTER_BUDGET, list(settings)).await })
        .ok()
        .flatten()
        .unwrap_or_default();
    candidates(current, found)
}

/// The names that start with what was typed, sorted, each once.
fn candidates(current: &OsStr, mut names: Vec<String>) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|n| n.starts_with(prefix.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}

/// The settings of the line being completed: its cluster flags and the environment.
fn line_settings() -> Settings {
    let flags = cluster_flags_of(std::env::args_os().skip_while(|a| a != "--").skip(1));
    Settings::from_flags(flags, |name| std::env::var(name).ok())
}

/// `--kubeconfig`, `--kube-context`, `-n`/`--namespace` and `--kube-as-*` of a (partial)
/// command line (candidates are listed as that identity sees them), in
/// both `--flag value` and `--flag=value` forms; the last one given wins, as in clap.
fn cluster_flags_of(words: impl IntoIterator<Item = OsString>) -> Flags {
    let words: Vec<String> = words
        .into_iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let mut flags = Flags::default();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        if matches!(
            name,
            "--kubeconfig"
                | "--kube-context"
                | "-n"
                | "--namespace"
                | "--kube-as-user"
                | "--kube-as-group"
                | "--kube-as-uid"
        ) {
            let value = match inline {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    words.get(i).cloned()
                }
            };
            match (name, value) {
                ("--kubeconfig", Some(v)) => flags.kubeconfig = Some(v.into()),
                ("--kube-context", Some(v)) => flags.kube_context = Some(v),
                ("--kube-as-user", Some(v)) => flags.impersonate.user = Some(v),
                ("--kube-as-group", Some(v)) => flags.impersonate.groups.push(v),
                ("--kube-as-uid", Some(v)) => flags.impersonate.uid = Some(v),
                (_, Some(v)) => flags.namespace = Some(v),
                (_, None) => {}
            }
        }
        i += 1;
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cluster flags of a command line as typed, its words split at each space (so a
    /// trailing space leaves the word being completed empty).
    fn flags(line: &str) -> Flags {
        cluster_flags_of(line.split(' ').map(OsString::from))
    }

    #[test]
    fn the_cluster_flags_of_a_partial_line_are_read() {
        let f = flags("kubepkg status -n shop --kube-context=c1 ");
        assert_eq!(f.namespace.as_deref(), Some("shop"));
        assert_eq!(f.kube_context.as_deref(), Some("c1"));
        let f = flags("kubepkg --kubeconfig /k history --namespace=x w");
        assert_eq!(f.kubeconfig.as_deref(), Some(std::path::Path::new("/k")));
        assert_eq!(f.namespace.as_deref(), Some("x"));
        // A flag still waiting for its value sets nothing; other flags are skipped.
        let f = flags("kubepkg status --output json -n");
        assert_eq!(f.namespace, None);
        let f = flags("kubepkg -n a status -n b");
        assert_eq!(f.namespace.as_deref(), Some("b"));
        // Candidates are listed as the identity the line acts as would see them.
        let f = flags(
            "kubepkg status --kube-as-user=system:serviceaccount:a:deployer --kube-as-group g1 --kube-as-group=g2 ",
        );
        assert_eq!(
            f.impersonate.user.as_deref(),
            Some("system:serviceaccount:a:deployer")
        );
        assert_eq!(f.impersonate.groups, ["g1", "g2"]);
    }

    #[test]
    fn candidates_are_the_sorted_names_with_the_typed_prefix() {
        let c = candidates(
            OsStr::new("sh"),
            vec!["shop".into(), "db".into(), "shelf".into(), "shop".into()],
        );
        let values: Vec<String> = c
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect();
        assert_eq!(values, ["shelf", "shop"]);
    }
}
