//! The fetch: the remote's refs listed, the ref resolved to a commit, the commit's package
//! directory taken from the cache when it is there, else the commit fetched shallowly (depth
//! 1) into a scratch repository and the directory written into the cache.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gix::bstr::ByteSlice;
use gix::protocol::handshake::Ref;
use gix::remote::Direction;

use crate::{Checkout, GitError, GitRef, GitSource, cache};

/// Credentials, with Flux's Secret keys.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Auth {
    /// None for HTTP(S); for `ssh://`, the user's own `ssh` setup (keys, agent,
    /// `known_hosts`), without prompts.
    #[default]
    None,
    /// `username` and `password` (HTTP basic).
    Basic { username: String, password: String },
    /// `bearerToken` (HTTP `Authorization: Bearer`).
    Bearer(String),
    /// `identity` (a private key, PEM or OpenSSH) and `known_hosts` (the host keys accepted)
    /// for `ssh://`.
    Ssh {
        identity: String,
        known_hosts: String,
    },
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::Basic { username, .. } => write!(f, "Basic({username}, ***)"),
            Auth::Bearer(_) => f.write_str("Bearer(***)"),
            Auth::Ssh { .. } => f.write_str("Ssh(***)"),
        }
    }
}

/// The variable that replaces [`Limits::max_bytes`]'s default.
pub const MAX_BYTES_ENV: &str = "KUBEPKG_GIT_MAX_BYTES";

/// How much a fetch may bring and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of fetched objects, and the most bytes of the package's files (256 MiB,
    /// as a package archive's cap; `KUBEPKG_GIT_MAX_BYTES`).
    pub max_bytes: u64,
    /// The longest a fetch may take (300 s, as a package archive's fetch).
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 256 * 1024 * 1024,
            timeout: Duration::from_secs(300),
        }
    }
}

impl Limits {
    /// The defaults, `max_bytes` replaced by `KUBEPKG_GIT_MAX_BYTES` when set (a whole number
    /// of bytes, `_` separators allowed).
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<Limits, GitError> {
        let mut limits = Limits::default();
        if let Some(v) = env(MAX_BYTES_ENV).filter(|v| !v.trim().is_empty()) {
            limits.max_bytes =
                v.trim()
                    .replace('_', "")
                    .parse()
                    .map_err(|_| GitError::InvalidSource {
                        source_text: format!("{MAX_BYTES_ENV}={v}"),
                        reason: "not a whole number of bytes".into(),
                    })?;
        }
        Ok(limits)
    }
}

/// How to fetch: credentials, TLS, where the cache is, limits.
#[derive(Debug, Clone)]
pub struct Options {
    pub auth: Auth,
    /// The CA file, client certificate and verification of HTTPS (kubepkg's one TLS
    /// configuration, `kubepkg_fetch::tls_client_config`).
    pub tls: kubepkg_fetch::TlsOptions,
    /// kubepkg's content cache; Git checkouts go under `git/`.
    pub cache: PathBuf,
    pub limits: Limits,
}

/// Fetches `source` (blocking; `interrupt` stops it): see [`crate::fetch`].
pub(crate) fn fetch_blocking(
    source: &GitSource,
    options: &Options,
    interrupt: &AtomicBool,
    scratch: &Path,
) -> Result<Checkout, GitError> {
    let text = source.to_string();
    if let GitRef::Commit(commit) = &source.reference
        && let Some(hit) = cache::lookup(&options.cache, commit, &source.path, "")
    {
        return Ok(hit);
    }
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| GitError::Io { what, path, source }
    };
    std::fs::create_dir_all(scratch).map_err(io("creating", scratch))?;
    let mut repo = gix::ThreadSafeRepository::init_opts(
        scratch,
        gix::create::Kind::Bare,
        gix::create::Options::default(),
        gix::open::Options::isolated(),
    )
    .map_err(|e| fetch_error(&text, e, &Asked::default(), &options.auth))?
    .to_thread_local();
    let ssh_log = ssh_setup(&mut repo, source, options, scratch, &text)?;
    let classify = |e: GitError| ssh_error(e, ssh_log.as_deref());
    let (spec, name) = match &source.reference {
        GitRef::Commit(c) => (c.clone(), String::new()),
        wanted => {
            let refs = list_refs(&repo, source, options, interrupt, &text).map_err(classify)?;
            let (full, name, commit) = resolve(wanted, &refs, &text)?;
            if let Some(hit) = cache::lookup(&options.cache, &commit, &source.path, &name) {
                return Ok(hit);
            }
            (format!("+{full}:{full}"), name)
        }
    };
    let asked = Asked::default();
    let remote = repo
        .remote_at(source.url.as_str())
        .and_then(|r| r.with_refspecs([spec.as_str()], Direction::Fetch))
        .map_err(|e| fetch_error(&text, e, &asked, &options.auth))?
        .with_fetch_tags(gix::remote::fetch::Tags::None);
    let outcome = (|| {
        let connection = connect(&remote, options, &asked)?;
        connection
            .prepare_fetch(gix::progress::Discard, Default::default())?
            .with_shallow(gix::remote::fetch::Shallow::DepthAtRemote(NonZeroU32::MIN))
            .receive(gix::progress::Discard, interrupt)
    })()
    .map_err(|e| classify(fetch_error(&text, e, &asked, &options.auth)))?;
    let commit = outcome
        .ref_map
        .mappings
        .iter()
        .find_map(|m| m.remote.as_id().map(|id| id.to_owned()))
        .ok_or_else(|| GitError::RefNotFound {
            source_text: text.clone(),
            wanted: source.reference.to_string(),
            known: String::new(),
        })?;
    let commit = peel_to_commit(&repo, commit, &text)?;
    cache::store(&repo, commit, source, &name, options, &text)
}

/// For `ssh://`: the `ssh` command gitoxide runs (`core.sshCommand`): never prompting, its
/// errors written to a file of `scratch` (returned) instead of kubepkg's standard error; with
/// [`Auth::Ssh`], only that key and those host keys. HTTP credentials are refused for it.
fn ssh_setup(
    repo: &mut gix::Repository,
    source: &GitSource,
    options: &Options,
    scratch: &Path,
    text: &str,
) -> Result<Option<PathBuf>, GitError> {
    if !source.url.starts_with("ssh://") {
        return Ok(None);
    }
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| GitError::Io { what, path, source }
    };
    let dir = scratch.join("ssh");
    std::fs::create_dir_all(&dir).map_err(io("creating", &dir))?;
    let log = dir.join("stderr");
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let mut command = String::from(
        "ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=4",
    );
    match &options.auth {
        Auth::None => {}
        Auth::Ssh {
            identity,
            known_hosts,
        } => {
            use std::os::unix::fs::PermissionsExt as _;
            let key = dir.join("identity");
            let mut identity = identity.clone();
            if !identity.ends_with('\n') {
                identity.push('\n');
            }
            std::fs::write(&key, identity).map_err(io("writing", &key))?;
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
                .map_err(io("protecting", &key))?;
            let hosts = dir.join("known_hosts");
            std::fs::write(&hosts, known_hosts).map_err(io("writing", &hosts))?;
            command = format!(
                "{command} -F /dev/null -o IdentitiesOnly=yes -i {} -o UserKnownHostsFile={} -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes",
                quote(&key),
                quote(&hosts)
            );
        }
        Auth::Basic { .. } | Auth::Bearer(_) => {
            return Err(GitError::InvalidSource {
                source_text: text.to_string(),
                reason: "a username and password or a bearer token are for https:// URLs; an ssh:// URL takes an SSH key (identity and known_hosts)".into(),
            });
        }
    }
    command = format!("{command} 2>>{}", quote(&log));
    let mut config = repo.config_snapshot_mut();
    let set = config
        .set_value(&gix::config::tree::Core::SSH_COMMAND, command.as_str())
        .and_then(|_| config.set_raw_value("ssh.variant", "ssh"));
    set.map_err(|source| GitError::Fetch {
        source_text: text.to_string(),
        source,
    })?;
    drop(config);
    Ok(Some(log))
}

/// A failed `ssh://` fetch classified by what `ssh` said: a refused key, an unknown or changed
/// host key, or a host that does not answer.
fn ssh_error(e: GitError, log: Option<&Path>) -> GitError {
    let Some(said) = log.and_then(|l| std::fs::read_to_string(l).ok()) else {
        return e;
    };
    let said = said.trim().to_string();
    let (source_text, source) = match e {
        GitError::Fetch {
            source_text,
            source,
        }
        | GitError::Unreachable {
            source_text,
            source,
        } => (source_text, source),
        other => return other,
    };
    if said.contains("Permission denied") {
        GitError::CredentialsRejected {
            source_text,
            source,
        }
    } else if said.contains("Host key verification failed")
        || said.contains("REMOTE HOST IDENTIFICATION HAS CHANGED")
        || said.contains("No ED25519 host key is known")
        || said.contains("host key is known")
    {
        GitError::HostKeyRejected { source_text, said }
    } else if said.contains("Connection refused")
        || said.contains("Could not resolve")
        || said.contains("timed out")
        || said.contains("No route")
    {
        GitError::Unreachable {
            source_text,
            source,
        }
    } else {
        GitError::Fetch {
            source_text,
            source,
        }
    }
}

/// Who asked for credentials: set by the credentials callback, read when a fetch failed.
#[derive(Default, Clone)]
struct Asked {
    /// Credentials were asked for.
    get: Arc<AtomicBool>,
    /// The credentials given were refused.
    erase: Arc<AtomicBool>,
}

/// A connection to `remote` with `options`' credentials and the HTTP limits.
fn connect<'r>(
    remote: &'r gix::Remote<'r>,
    options: &Options,
    asked: &Asked,
) -> gix::Result<
    gix::remote::Connection<
        'r,
        'static,
        'r,
        Box<dyn gix::protocol::transport::client::blocking_io::Transport + Send>,
    >,
> {
    let mut connection = remote.connect(Direction::Fetch)?;
    let asked = asked.clone();
    // Credentials go with every request (below), so a request for them means none were given
    // or those given were refused; gitoxide's own prompt and helpers are never used.
    connection.set_credentials(move |action| {
        use gix::credentials::helper::Action;
        match action {
            Action::Get(_) => asked.get.store(true, Ordering::SeqCst),
            Action::Erase(_) => asked.erase.store(true, Ordering::SeqCst),
            Action::Store(_) => {}
        }
        Ok(None)
    });
    let timeout = options.limits.timeout;
    let tls =
        kubepkg_fetch::tls_client_config(&options.tls).map_err(|e| gix::Error::from_error(e))?;
    let authorization = match &options.auth {
        Auth::None | Auth::Ssh { .. } => None,
        Auth::Basic { username, password } => {
            use base64::Engine as _;
            let pair = format!("{username}:{password}");
            Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ))
        }
        Auth::Bearer(token) => Some(format!("Bearer {token}")),
    };
    use gix::protocol::transport::client::blocking_io::http;
    let backend = http::reqwest::Options {
        configure_client: Some(Box::new(move |builder| {
            Ok(builder
                .tls_backend_preconfigured(tls.clone())
                .timeout(timeout)
                .connect_timeout(Duration::from_secs(30)))
        })),
        configure_request: authorization.map(|value| {
            Box::new(move |request: &mut reqwest::blocking::Request| {
                if let Ok(v) = reqwest::header::HeaderValue::from_str(&value) {
                    request
                        .headers_mut()
                        .insert(reqwest::header::AUTHORIZATION, v);
                }
                Ok(())
            }) as Box<http::reqwest::ConfigureRequestFn>
        }),
    };
    let http_options = http::Options {
        connect_timeout: Some(Duration::from_secs(30)),
        backend: Some(Arc::new(Mutex::new(backend))),
        ..Default::default()
    };
    if remote
        .url(Direction::Fetch)
        .is_some_and(|u| matches!(u.scheme, gix::url::Scheme::Http | gix::url::Scheme::Https))
    {
        connection.set_transport_options(Box::new(http_options));
    }
    Ok(connection)
}

/// The remote's branches, tags and `HEAD`.
fn list_refs(
    repo: &gix::Repository,
    source: &GitSource,
    options: &Options,
    interrupt: &AtomicBool,
    text: &str,
) -> Result<Vec<Ref>, GitError> {
    let asked = Asked::default();
    let listed = (|| {
        let remote = repo
            .remote_at(source.url.as_str())?
            .with_refspecs(
                [
                    "+HEAD:refs/remotes/origin/HEAD",
                    "+refs/heads/*:refs/remotes/origin/*",
                    "+refs/tags/*:refs/tags/*",
                ],
                Direction::Fetch,
            )?
            .with_fetch_tags(gix::remote::fetch::Tags::None);
        if interrupt.load(Ordering::SeqCst) {
            return Err(gix::Error::from_error(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted",
            )));
        }
        let connection = connect(&remote, options, &asked)?;
        let (map, _) = connection.ref_map(gix::progress::Discard, Default::default())?;
        Ok(map.remote_refs)
    })();
    listed.map_err(|e| fetch_error(text, e, &asked, &options.auth))
}

/// The full ref name, its short name and the commit `wanted` names among `refs`.
fn resolve(
    wanted: &GitRef,
    refs: &[Ref],
    text: &str,
) -> Result<(String, String, String), GitError> {
    let entries: Vec<(String, String)> = refs
        .iter()
        .filter_map(|r| {
            let (name, target, peeled) = r.unpack();
            let oid = peeled.or(target)?;
            Some((name.to_str_lossy().into_owned(), oid.to_string()))
        })
        .collect();
    let find = |full: &str| entries.iter().find(|(n, _)| n == full).cloned();
    let names = |prefix: &str| -> Vec<String> {
        entries
            .iter()
            .filter_map(|(n, _)| n.strip_prefix(prefix).map(str::to_string))
            .collect()
    };
    let known = |kind: &str, list: Vec<String>| {
        if list.is_empty() {
            format!(" (it has no {kind})")
        } else {
            let more = if list.len() > 10 { ", …" } else { "" };
            let shown: Vec<_> = list.into_iter().take(10).collect();
            format!(" (its {kind}: {}{more})", shown.join(", "))
        }
    };
    let not_found = |known: String| GitError::RefNotFound {
        source_text: text.to_string(),
        wanted: wanted.to_string(),
        known,
    };
    let found = |full: String, short: &str, oid: String| Ok((full, short.to_string(), oid));
    match wanted {
        GitRef::Default => {
            let head = refs.iter().find_map(|r| match r {
                Ref::Symbolic {
                    full_ref_name,
                    target,
                    object,
                    ..
                } if full_ref_name == "HEAD" => Some((target.to_string(), object.to_string())),
                _ => None,
            });
            match head {
                Some((target, oid)) => {
                    let short = target.strip_prefix("refs/heads/").unwrap_or(&target);
                    let short = short.to_string();
                    found(target, &short, oid)
                }
                None => Err(not_found(known("branches", names("refs/heads/")))),
            }
        }
        GitRef::Branch(b) => match find(&format!("refs/heads/{b}")) {
            Some((full, oid)) => found(full, b, oid),
            None => Err(not_found(known("branches", names("refs/heads/")))),
        },
        GitRef::Tag(t) => match find(&format!("refs/tags/{t}")) {
            Some((full, oid)) => found(full, t, oid),
            None => Err(not_found(known("tags", names("refs/tags/")))),
        },
        GitRef::Name(n) => {
            match find(&format!("refs/tags/{n}")).or_else(|| find(&format!("refs/heads/{n}"))) {
                Some((full, oid)) => found(full, n, oid),
                None => {
                    let mut all = names("refs/tags/");
                    all.extend(names("refs/heads/"));
                    Err(not_found(known("tags and branches", all)))
                }
            }
        }
        GitRef::Semver(constraint) => {
            let parsed = kubepkg_semver::Constraints::parse(constraint).map_err(|source| {
                GitError::BadConstraint {
                    source_text: text.to_string(),
                    constraint: constraint.clone(),
                    source,
                }
            })?;
            let best = names("refs/tags/")
                .into_iter()
                .filter_map(|t| {
                    let v = kubepkg_semver::Version::parse(&t).ok()?;
                    parsed.check(&v).then_some((v, t))
                })
                .max_by(|a, b| a.0.compare(&b.0));
            match best {
                Some((_, tag)) => {
                    let (full, oid) = find(&format!("refs/tags/{tag}")).unwrap_or_default();
                    found(full, &tag, oid)
                }
                None => Err(not_found(known("tags", names("refs/tags/")))),
            }
        }
        GitRef::Commit(c) => found(c.clone(), "", c.clone()),
    }
}

/// The commit `id` names (an annotated tag is peeled).
fn peel_to_commit(
    repo: &gix::Repository,
    id: gix::ObjectId,
    text: &str,
) -> Result<gix::ObjectId, GitError> {
    let object = repo
        .find_object(id)
        .and_then(|o| o.peel_to_commit())
        .map_err(|source| GitError::Fetch {
            source_text: text.to_string(),
            source,
        })?;
    Ok(object.id)
}

/// The typed error of a failed fetch: credentials asked for and none given, credentials
/// refused, the host unreachable, or anything else.
fn fetch_error(text: &str, source: gix::Error, asked: &Asked, auth: &Auth) -> GitError {
    let source_text = text.to_string();
    let refused = asked.erase.load(Ordering::SeqCst)
        || (asked.get.load(Ordering::SeqCst) && *auth != Auth::None);
    if refused {
        return GitError::CredentialsRejected {
            source_text,
            source,
        };
    }
    if asked.get.load(Ordering::SeqCst) {
        return GitError::CredentialsNeeded {
            source_text,
            source,
        };
    }
    if says(&source, "HTTP status 404") {
        return GitError::RepositoryNotFound {
            source_text,
            source,
        };
    }
    if is_io(&source) {
        return GitError::Unreachable {
            source_text,
            source,
        };
    }
    GitError::Fetch {
        source_text,
        source,
    }
}

/// Whether an error of the chain of `e` says `text`.
fn says(e: &gix::Error, text: &str) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.to_string().contains(text) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// Whether the chain of `e` has an I/O or connection failure (the host did not answer).
fn is_io(e: &gix::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<std::io::Error>() {
            return true;
        }
        let text = c.to_string();
        if text.contains("error sending request")
            || text.contains("onnection refused")
            || text.contains("dns error")
            || text.contains("No such file or directory")
        {
            return true;
        }
        cause = c.source();
    }
    false
}
