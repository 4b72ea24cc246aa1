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
    #[default]
    None,
    /// `username` and `password` (HTTP basic).
    Basic { username: String, password: String },
    /// `bearerToken` (HTTP `Authorization: Bearer`).
    Bearer(String),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::Basic { username, .. } => write!(f, "Basic({username}, ***)"),
            Auth::Bearer(_) => f.write_str("Bearer(***)"),
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
    let repo = gix::ThreadSafeRepository::init_opts(
        scratch,
        gix::create::Kind::Bare,
        gix::create::Options::default(),
        gix::open::Options::isolated(),
    )
    .map_err(|e| fetch_error(&text, e, &Asked::default(), &options.auth))?
    .to_thread_local();
    let (spec, name) = match &source.reference {
        GitRef::Commit(c) => (c.clone(), String::new()),
        wanted => {
            let refs = list_refs(&repo, source, options, interrupt, &text)?;
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
    .map_err(|e| fetch_error(&text, e, &asked, &options.auth))?;
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
        Auth::None => None,
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
