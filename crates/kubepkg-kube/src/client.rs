//! A client to the cluster chosen as kubectl and Helm choose it: `--kubeconfig`, else
//! `KUBECONFIG` (a list of files, merged), else `~/.kube/config`, else the in-cluster
//! service account; `--context` picks the context; `-n` overrides the context's namespace.
//! Every request of the client goes through the one retry policy ([`crate::retry`]).
//!
//! A cluster may act as someone else ([`Impersonation`]): Kubernetes impersonation, the
//! `Impersonate-User`/`-Group`/`-Uid` headers kubectl's `--as` sends, on every request of the
//! client. [`Cluster::impersonating`] gives a cluster acting as another identity over the same
//! credentials and discovery cache (the controller acts as each Package's ServiceAccount so).

use std::path::PathBuf;

use kube::api::{Api, DynamicObject};
use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::discovery::Discovery;
use crate::error::KubeError;
use crate::manifest::ObjectRef;
use crate::retry::RetryPolicy;

/// Where to connect, from the CLI's global flags.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub namespace: Option<String>,
    /// How API requests are retried; `None`: the default policy with the environment's
    /// settings ([`RetryPolicy::from_env`]).
    pub retry: Option<RetryPolicy>,
    /// Whom every request acts as (kubectl's `--as`, Helm's `--kube-as-user`); none: the
    /// kubeconfig's own identity (or the kubeconfig's `as` settings).
    pub impersonate: Impersonation,
}

/// Whom requests act as, by Kubernetes impersonation: the identity the API server authorizes
/// instead of the credentials' own (which need the `impersonate` verb on it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Impersonation {
    /// The user name (`system:serviceaccount:NAMESPACE:NAME` for a ServiceAccount).
    pub user: Option<String>,
    /// Groups (the API server adds a ServiceAccount's own groups when none are given).
    pub groups: Vec<String>,
    /// The user's UID.
    pub uid: Option<String>,
}

impl Impersonation {
    /// Acting as the ServiceAccount `name` of `namespace`.
    pub fn service_account(namespace: &str, name: &str) -> Impersonation {
        Impersonation {
            user: Some(format!("system:serviceaccount:{namespace}:{name}")),
            ..Default::default()
        }
    }

    /// No impersonation: the credentials' own identity.
    pub fn is_none(&self) -> bool {
        self.user.is_none() && self.groups.is_empty() && self.uid.is_none()
    }

    /// Sets the impersonation headers of `config` (refused as kubectl refuses them: groups or
    /// a UID without a user).
    fn apply_to(&self, config: &mut kube::Config) -> Result<(), KubeError> {
        if self.is_none() {
            return Ok(());
        }
        let Some(user) = &self.user else {
            return Err(KubeError::Config(
                "impersonating a group or UID needs a user too (--kube-as-user)".into(),
            ));
        };
        config.auth_info.impersonate = Some(user.clone());
        config.auth_info.impersonate_groups =
            (!self.groups.is_empty()).then(|| self.groups.clone());
        config.auth_info.impersonate_uid = self.uid.clone();
        Ok(())
    }
}

impl std::fmt::Display for Impersonation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.user {
            Some(user) => f.write_str(user)?,
            None => f.write_str("(own identity)")?,
        }
        if !self.groups.is_empty() {
            write!(f, " (groups {})", self.groups.join(", "))?;
        }
        Ok(())
    }
}

/// What a client was built from, kept to build clients acting as other identities.
#[derive(Clone)]
struct Connection {
    config: kube::Config,
    policy: RetryPolicy,
}

/// Called with every object apply is about to send (not for dry runs): the object as the
/// manifest conversion produced it, before apply sets its namespace and Helm's ownership
/// metadata. For audits and for tests that check what apply sends (plan equals apply).
pub type ApplyObserver = std::sync::Arc<dyn Fn(&crate::ManifestObject) + Send + Sync>;

/// A connected cluster: the client, the namespace operations default to, and discovery.
#[derive(Clone)]
pub struct Cluster {
    pub client: kube::Client,
    pub namespace: String,
    pub discovery: Discovery,
    /// Sees every object applied through this cluster (see [`ApplyObserver`]).
    pub observer: Option<ApplyObserver>,
    /// Whom the client acts as (none: the credentials' own identity).
    pub identity: Impersonation,
    /// What the client was built from (`None` for a given client: it cannot impersonate).
    connection: Option<std::sync::Arc<Connection>>,
}

impl Cluster {
    /// The API for an object and its identity with the namespace fixed by scope:
    /// `default_namespace` when a namespaced object has none, none for cluster-scoped kinds.
    pub async fn locate(
        &self,
        id: &ObjectRef,
        default_namespace: &str,
    ) -> Result<(Api<DynamicObject>, ObjectRef), KubeError> {
        let r = self.discovery.resolve(&id.api_version, &id.kind).await?;
        let mut id = id.clone();
        if r.namespaced {
            if id.namespace.is_empty() {
                id.namespace = default_namespace.to_string();
            }
            Ok((
                Api::namespaced_with(self.client.clone(), &id.namespace, &r.resource),
                id,
            ))
        } else {
            id.namespace.clear();
            Ok((Api::all_with(self.client.clone(), &r.resource), id))
        }
    }

    /// Connects as described in the module docs.
    pub async fn connect(opts: &ClusterOptions) -> Result<Cluster, KubeError> {
        let config = load_config(opts).await?;
        let namespace = opts
            .namespace
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| config.default_namespace.clone());
        Cluster::from_config(config, &namespace, &opts.impersonate, opts.retry)
    }

    /// A cluster from the text of a kubeconfig that came from elsewhere (a remote cluster's,
    /// as a Secret holds it; `origin` names it in messages), its current context, operations
    /// defaulting to `namespace`. Only credentials written in the text itself are used: a
    /// kubeconfig naming a command to run (`exec`, `auth-provider`) or a file to read
    /// (`token-file`, `client-certificate`, `client-key`, `certificate-authority`) is refused,
    /// so whoever writes the Secret cannot make kubepkg run a program or read its own files.
    pub async fn from_kubeconfig_text(
        text: &str,
        origin: &str,
        namespace: &str,
    ) -> Result<Cluster, KubeError> {
        let bad = |what: String| KubeError::Config(format!("{origin}: {what}"));
        let kc = Kubeconfig::from_yaml(text).map_err(|e| bad(e.to_string()))?;
        for user in &kc.auth_infos {
            let Some(a) = &user.auth_info else { continue };
            let refused = [
                ("exec", a.exec.is_some()),
                ("auth-provider", a.auth_provider.is_some()),
                ("token-file", a.token_file.is_some()),
                ("client-certificate", a.client_certificate.is_some()),
                ("client-key", a.client_key.is_some()),
            ];
            if let Some((field, _)) = refused.iter().find(|(_, set)| *set) {
                return Err(bad(format!(
                    "user {:?} sets {field}, which names a command or a file of the machine reading it; write the credentials into the kubeconfig itself (token, client-certificate-data, client-key-data)",
                    user.name
                )));
            }
        }
        for cluster in &kc.clusters {
            if cluster
                .cluster
                .as_ref()
                .is_some_and(|c| c.certificate_authority.is_some())
            {
                return Err(bad(format!(
                    "cluster {:?} sets certificate-authority, a file of the machine reading it; use certificate-authority-data",
                    cluster.name
                )));
            }
        }
        let config = config_of(kc, None).await.map_err(|e| match e {
            KubeError::Config(m) => bad(m),
            other => other,
        })?;
        Cluster::from_config(config, namespace, &Impersonation::default(), None)
    }

    /// A cluster over `config` acting as `who` (requests retried by `retry`, else the
    /// environment's policy).
    fn from_config(
        mut config: kube::Config,
        namespace: &str,
        who: &Impersonation,
        retry: Option<RetryPolicy>,
    ) -> Result<Cluster, KubeError> {
        let policy = match retry {
            Some(p) => p,
            None => RetryPolicy::from_env(|name| std::env::var(name).ok())
                .map_err(|e| KubeError::Config(e.to_string()))?,
        };
        who.apply_to(&mut config)?;
        let client = crate::retry::client(config.clone(), policy)?;
        let mut cluster = Cluster::from_client(client, namespace);
        cluster.identity = who.clone();
        cluster.connection = Some(std::sync::Arc::new(Connection { config, policy }));
        Ok(cluster)
    }

    /// The API server this cluster talks to (`None` for a given client).
    pub fn server(&self) -> Option<String> {
        self.connection.as_ref().map(|c| {
            c.config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string()
        })
    }

    /// This cluster acting as `who` (its discovery cache shared): a new client over the same
    /// credentials whose every request carries `who`'s impersonation headers. Fails for a
    /// cluster built from a given client (nothing to build another from).
    pub fn impersonating(&self, who: &Impersonation) -> Result<Cluster, KubeError> {
        let Some(connection) = &self.connection else {
            return Err(KubeError::Config(format!(
                "cannot act as {who}: this cluster was given as a client, not a configuration"
            )));
        };
        let mut config = connection.config.clone();
        // The identity replaces the one the connection acts as, if any.
        config.auth_info.impersonate = None;
        config.auth_info.impersonate_groups = None;
        config.auth_info.impersonate_uid = None;
        who.apply_to(&mut config)?;
        let client = crate::retry::client(config, connection.policy)?;
        Ok(Cluster {
            client,
            namespace: self.namespace.clone(),
            discovery: self.discovery.clone(),
            observer: self.observer.clone(),
            identity: who.clone(),
            connection: self.connection.clone(),
        })
    }

    /// The names of the cluster's namespaces (for shell completion of `-n`).
    pub async fn namespace_names(&self) -> Result<Vec<String>, KubeError> {
        let api: kube::Api<k8s_openapi::api::core::v1::Namespace> =
            kube::Api::all(self.client.clone());
        let list = api
            .list_metadata(&kube::api::ListParams::default())
            .await
            .map_err(|e| KubeError::refused("list", "namespaces".to_string(), e))?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect())
    }

    /// Wraps an existing client (tests, controller).
    pub fn from_client(client: kube::Client, namespace: &str) -> Cluster {
        Cluster {
            discovery: Discovery::new(client.clone()),
            client,
            namespace: namespace.to_string(),
            observer: None,
            identity: Impersonation::default(),
            connection: None,
        }
    }
}

/// The kubeconfig the options name, as described in the module docs (`None`: there is none,
/// so the in-cluster service account is used).
fn read_kubeconfig(opts: &ClusterOptions) -> Result<Option<Kubeconfig>, KubeError> {
    Ok(if let Some(path) = &opts.kubeconfig {
        Some(
            Kubeconfig::read_from(path)
                .map_err(|e| KubeError::Config(format!("{}: {e}", path.display())))?,
        )
    } else if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty()) {
        Some(
            Kubeconfig::from_env()
                .map_err(|e| KubeError::Config(e.to_string()))?
                .ok_or_else(|| KubeError::Config("KUBECONFIG names no readable file".into()))?,
        )
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        match home.map(|h| h.join(".kube").join("config")) {
            Some(p) if p.is_file() => Some(
                Kubeconfig::read_from(&p)
                    .map_err(|e| KubeError::Config(format!("{}: {e}", p.display())))?,
            ),
            _ => None,
        }
    })
}

/// The `proxy-url` of the cluster of `context` (else the current context) in `kc`, as kubectl
/// follows it: every request to that cluster goes through it, loopback servers included.
fn cluster_proxy_url(kc: &Kubeconfig, context: Option<&str>) -> Option<String> {
    let name = context
        .map(str::to_string)
        .or_else(|| kc.current_context.clone())?;
    let cluster = &kc
        .contexts
        .iter()
        .find(|c| c.name == name)?
        .context
        .as_ref()?
        .cluster;
    kc.clusters
        .iter()
        .find(|c| &c.name == cluster)?
        .cluster
        .as_ref()?
        .proxy_url
        .clone()
        .filter(|u| !u.is_empty())
}

/// The names of the kubeconfig's contexts, in file order (none without a kubeconfig).
pub fn kubeconfig_contexts(opts: &ClusterOptions) -> Result<Vec<String>, KubeError> {
    Ok(read_kubeconfig(opts)?
        .map(|kc| kc.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default())
}

/// The API server URL of the context the options choose (for messages; `None` in-cluster or
/// without a kubeconfig).
pub fn server_url(opts: &ClusterOptions) -> Option<String> {
    let kc = read_kubeconfig(opts).ok().flatten()?;
    let context = opts.context.clone().or(kc.current_context.clone())?;
    let cluster = kc
        .contexts
        .iter()
        .find(|c| c.name == context)?
        .context
        .as_ref()?
        .cluster
        .clone();
    kc.clusters
        .into_iter()
        .find(|c| c.name == cluster)?
        .cluster?
        .server
}

/// The namespace operations use without connecting, as Helm's `HELM_NAMESPACE` shows it: `-n`,
/// else the chosen context's namespace, else `default`.
pub fn default_namespace(opts: &ClusterOptions) -> String {
    if let Some(ns) = opts.namespace.clone().filter(|n| !n.is_empty()) {
        return ns;
    }
    let context_namespace = read_kubeconfig(opts).ok().flatten().and_then(|kc| {
        let name = opts.context.clone().or(kc.current_context.clone())?;
        kc.contexts
            .into_iter()
            .find(|c| c.name == name)?
            .context?
            .namespace
    });
    context_namespace
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

async fn load_config(opts: &ClusterOptions) -> Result<kube::Config, KubeError> {
    match read_kubeconfig(opts)? {
        Some(kc) => config_of(kc, opts.context.as_deref()).await,
        None => kube::Config::incluster().map_err(|e| KubeError::Config(e.to_string())),
    }
}

/// The client configuration of `kc`'s `context` (else its current one).
async fn config_of(kc: Kubeconfig, context: Option<&str>) -> Result<kube::Config, KubeError> {
    if let Some(ctx) = context
        && !kc.contexts.iter().any(|c| c.name == ctx)
    {
        return Err(KubeError::NoContext(ctx.to_string()));
    }
    let kc_opts = KubeConfigOptions {
        context: context.map(str::to_string),
        ..Default::default()
    };
    let proxy_url_set = cluster_proxy_url(&kc, context).is_some();
    let mut config = kube::Config::from_custom_kubeconfig(kc, &kc_opts)
        .await
        .map_err(|e| KubeError::Config(e.to_string()))?;
    if !proxy_url_set {
        // No `proxy-url`: client-go's default, Go's `http.ProxyFromEnvironment` for the
        // server's URL (HTTPS_PROXY/HTTP_PROXY, NO_PROXY, loopback never proxied),
        // instead of kube's reading (HTTPS_PROXY for every server, loopback too).
        let proxies =
            kubepkg_fetch::Proxies::from_env().map_err(|e| KubeError::Config(e.to_string()))?;
        config.proxy_url = proxies.proxy_for(&config.cluster_url);
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(user: &str, cluster: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n{cluster}users:\n- name: u\n  user:\n{user}contexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n"
        )
    }

    #[tokio::test]
    async fn a_kubeconfig_from_elsewhere_may_not_run_commands_or_read_files() {
        for (user, cluster, field) in [
            (
                "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}\n",
                "",
                "exec",
            ),
            (
                "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token\n",
                "",
                "token-file",
            ),
            (
                "    client-certificate: /etc/kubernetes/admin.crt\n    client-key-data: eA==\n",
                "",
                "client-certificate",
            ),
            (
                "    token: t\n",
                "    certificate-authority: /etc/kubernetes/ca.crt\n",
                "certificate-authority",
            ),
        ] {
            let text = kubeconfig(user, cluster);
            let e = Cluster::from_kubeconfig_text(&text, "Secret ns/target key value", "ns")
                .await
                .err()
                .unwrap_or_else(|| panic!("accepted {field}"));
            let message = e.to_string();
            assert!(
                message.contains("Secret ns/target key value") && message.contains(field),
                "{message}"
            );
        }
        let inline = kubeconfig("    token: t\n", "    insecure-skip-tls-verify: true\n");
        let c = Cluster::from_kubeconfig_text(&inline, "Secret ns/target", "ns")
            .await
            .expect("inline credentials are accepted");
        assert_eq!(c.server().as_deref(), Some("https://127.0.0.1:1"));
        assert_eq!(c.namespace, "ns");
    }

    #[test]
    fn impersonating_a_group_needs_a_user() {
        let mut config = kube::Config::new("https://127.0.0.1:1".parse().unwrap());
        let groups_only = Impersonation {
            groups: vec!["system:masters".into()],
            ..Default::default()
        };
        let e = groups_only.apply_to(&mut config).unwrap_err();
        assert!(e.to_string().contains("--kube-as-user"), "{e}");
        let sa = Impersonation::service_account("team-a", "deployer");
        sa.apply_to(&mut config).unwrap();
        assert_eq!(
            config.auth_info.impersonate.as_deref(),
            Some("system:serviceaccount:team-a:deployer")
        );
        assert_eq!(config.auth_info.impersonate_groups, None);
    }
}
