//! Flags that several families of verbs share: where the cluster is, how a chart is fetched,
//! values, registry access and signatures, `--progress`, and the parsers of durations, `-o`
//! and `--backend`. The bottom of `crate::cli`: it imports none of its siblings.

use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use kubepkg_model::Backend;

use crate::format::Format;
use crate::terminal::ProgressMode;

/// A Go duration (`5m0s`, `90s`, `1.5h`, `300ms`) as Go's `time.ParseDuration` reads it, with
/// its error texts; a negative one is no time at all. Every `--timeout` flag uses it.
pub fn go_duration(s: &str) -> Result<Duration, String> {
    kubepkg_gostd::time::parse_duration(s)
        .map(|d| d.to_std())
        .map_err(|e| e.to_string())
}

// Helm 4's post-renderer flags (`template`, `install`, `upgrade`, `plan`, `apply`): a
// `postrenderer/v1` plugin from Helm's plugins directories and its arguments.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PostRendererArgs {
    /// The name of a Helm `postrenderer/v1` plugin (in $HELM_PLUGINS) that post-renders the
    /// rendered manifests and hooks.
    #[arg(long = "post-renderer", value_name = "NAME")]
    pub post_renderer: Option<String>,
    /// An argument to the post-renderer (repeatable).
    #[arg(long = "post-renderer-args", value_name = "ARG")]
    pub post_renderer_args: Vec<String>,
}

impl PostRendererArgs {
    /// The plugin found in `plugins` (Helm's `NewPostRendererPlugin`), refused with Helm's
    /// flag error when there is none.
    pub fn resolve(
        &self,
        plugins: &[std::path::PathBuf],
    ) -> anyhow::Result<kubepkg_chart::postrender::PostRenderers> {
        use kubepkg_chart::postrender::PostRenderers;
        let Some(name) = self.post_renderer.as_deref().filter(|n| !n.is_empty()) else {
            return Ok(PostRenderers::none());
        };
        let plugin = kubepkg_chart::plugin::PostRendererPlugin::find(
            plugins,
            name,
            &self.post_renderer_args,
        )
        .map_err(|e| {
            anyhow::anyhow!("invalid argument {name:?} for \"--post-renderer\" flag: {e}")
        })?;
        Ok(PostRenderers(vec![std::sync::Arc::new(plugin)]))
    }
}

// Where a chart comes from and how to fetch it (Helm's chart-path flags of `install`,
// `upgrade`, `template` and `pull`); the reference itself is read by
// `kubepkg_source::ChartRef::parse`.
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

// Where the cluster is and whom to act as (Helm's `--kubeconfig`, `--kube-context`, `-n`,
// `--kube-as-user`, `--kube-as-group`).
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
    /// Act as this user (Kubernetes impersonation, kubectl's --as), e.g.
    /// system:serviceaccount:NAMESPACE:NAME.
    #[arg(long = "kube-as-user", value_name = "USER")]
    pub kube_as_user: Option<String>,
    /// Act as this group too (repeatable; needs --kube-as-user).
    #[arg(long = "kube-as-group", value_name = "GROUP")]
    pub kube_as_group: Vec<String>,
    /// Act as the user with this UID (needs --kube-as-user).
    #[arg(long = "kube-as-uid", value_name = "UID")]
    pub kube_as_uid: Option<String>,
    /// Fail at once if another operation holds the package or release instead of waiting for it.
    #[arg(long = "no-wait-lock")]
    pub no_wait_lock: bool,
}

impl ClusterArgs {
    /// Whom the flags say to act as.
    pub fn impersonation(&self) -> kubepkg_kube::Impersonation {
        kubepkg_kube::Impersonation {
            user: self.kube_as_user.clone(),
            groups: self.kube_as_group.clone(),
            uid: self.kube_as_uid.clone(),
        }
    }
}

// Values flags shared by install and upgrade.
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

/// Go's `strconv.ParseBool`, as Helm's boolean flags read `--flag=VALUE`.
pub(super) fn go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `--backend`'s values: the [`Backend`]s `allowed`, by the names users type.
pub(super) fn backend_value(allowed: &'static [Backend]) -> impl TypedValueParser<Value = Backend> {
    PossibleValuesParser::new(allowed.iter().map(|b| b.as_str()))
        .try_map(|name| name.parse::<Backend>())
}

/// `-o`'s values: the [`Format`]s `allowed`.
pub(super) fn formats(allowed: &'static [Format]) -> impl TypedValueParser<Value = Format> {
    use clap::ValueEnum as _;
    PossibleValuesParser::new(allowed.iter().filter_map(|f| f.to_possible_value()))
        .try_map(|name| Format::from_str(&name, false))
}

// How to reach an OCI registry (the TLS and credential flags of `helm push` and
// `helm registry login`).
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

// Cosign signature verification of what is read from a registry (`--verify-key`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct VerifyArgs {
    /// Require a cosign signature by this public key (cosign.pub) on the oci:// chart or
    /// package, checked by digest before it is used (repeatable: any one key suffices).
    #[arg(long = "verify-key", value_name = "KEY")]
    pub verify_keys: Vec<std::path::PathBuf>,
}

// Signing what a push wrote (`--sign KEY`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SignWithArgs {
    /// Sign the pushed manifest (by digest) with this cosign private key (cosign.key, its
    /// password from COSIGN_PASSWORD), as `cosign sign --key` does.
    #[arg(long = "sign", value_name = "KEY")]
    pub sign: Option<std::path::PathBuf>,
}

// How the verbs that change a cluster show their progress (`--progress`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ProgressArgs {
    /// Progress on standard error: `live` (one redrawn line per component, or per object of a
    /// release), `plain` (one line per event), or `auto` (live on a terminal unless $CI is set
    /// or TERM is dumb; plain otherwise).
    #[arg(long = "progress", value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}
