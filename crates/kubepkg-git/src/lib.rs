//! Packages kept in Git repositories: `git+https://host/repo.git//path?ref=v1.2.0` on the
//! CLI and `spec.source.git` of a `Package` ([`GitSource`]). [`fetch`] lists the remote's
//! refs, resolves the ref (a branch, a tag, the newest tag matching a SemVer constraint, a
//! commit, or the default branch) to a commit, and returns the package directory of that
//! commit ([`Checkout`]): from kubepkg's cache when that commit and path were fetched before
//! (`<cache>/git/checkouts/`, keyed by commit), else fetched with depth 1 into a scratch
//! repository and written into the cache. The checkout also carries the Git tree id of the
//! package directory, which changes exactly when a file under it changes: the controller
//! compares it, so a moved branch whose commit changed nothing under the path makes no
//! revision.
//!
//! Credentials are Flux's: `username` and `password` (HTTP basic auth) or `bearerToken`, and
//! for `ssh://` an `identity` with `known_hosts` ([`Auth`]). Limits ([`Limits`]): the fetched
//! objects and the package's files are each capped at 256 MiB (`KUBEPKG_GIT_MAX_BYTES`) and a
//! fetch at 300 s, as package archives are; every error ([`GitError`]) names the source and
//! says what to do.
//!
//! **Why gitoxide.** Git is spoken through gitoxide (the `gix` crate), a maintained pure-Rust
//! implementation of Git's protocols and object database, rather than by running the `git`
//! program: the controller must not depend on a `git` binary in its image nor on a user's Git
//! configuration (credential helpers, `~/.gitconfig`), and reading another program's output
//! and exit codes would make every failure (a refused password, a missing ref, an unreachable
//! host) a guess from text. `gix` gives typed refs and objects, a shallow fetch, a credentials
//! callback that sees a refused password, an interrupt flag and the HTTP client's timeouts,
//! over blocking HTTP(S) through `reqwest` with kubepkg's one TLS configuration
//! (`kubepkg_fetch::tls_client_config`: rustls with ring, the system's roots or `--ca-file`).
//! Two transports reach another program, as in `git` itself, since gitoxide has no SSH client
//! of its own: `git+ssh://` runs `ssh` (never prompting; with [`Auth::Ssh`], only that key and
//! those host keys, written to a scratch directory; what `ssh` says goes to a file there and
//! decides the error), and `git+file://` runs `git-upload-pack`.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod cache;
mod error;
mod fetch;
mod reference;

#[cfg(test)]
mod tests;

pub use error::GitError;
pub use fetch::{Auth, Limits, MAX_BYTES_ENV, Options};
pub use reference::{GitRef, GitSource};

/// The package directory of one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The directory (in the cache; read it, do not change it).
    pub dir: PathBuf,
    /// The commit, 40 hex digits.
    pub commit: String,
    /// The Git tree id of the package directory: equal for two commits exactly when nothing
    /// under the path differs.
    pub tree: String,
    /// The branch or tag the ref resolved to (`main`, `v1.2.0`); empty for a commit.
    pub reference: String,
}

/// Fetches the package directory `source` names (see the crate docs). Runs on a blocking
/// thread; a fetch past `options.limits.timeout`, or whose objects grow past
/// `options.limits.max_bytes`, is stopped and is an error.
pub async fn fetch(source: &GitSource, options: &Options) -> Result<Checkout, GitError> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let scratch = cache::scratch_dir(&options.cache);
    let mut task = {
        let (source, options, interrupt, scratch) = (
            source.clone(),
            options.clone(),
            interrupt.clone(),
            scratch.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let result = fetch::fetch_blocking(&source, &options, &interrupt, &scratch);
            let _ = std::fs::remove_dir_all(&scratch);
            result
        })
    };
    let text = source.to_string();
    let deadline = tokio::time::Instant::now() + options.limits.timeout;
    loop {
        tokio::select! {
            joined = &mut task => {
                return match joined {
                    Ok(result) => result,
                    Err(e) => Err(GitError::Fetch {
                        source_text: text,
                        source: gix::Error::from_error(std::io::Error::other(e.to_string())),
                    }),
                };
            }
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        if tokio::time::Instant::now() >= deadline {
            interrupt.store(true, Ordering::SeqCst);
            return Err(GitError::Timeout {
                source_text: text,
                seconds: options.limits.timeout.as_secs(),
            });
        }
        if size_of(&scratch) > options.limits.max_bytes {
            interrupt.store(true, Ordering::SeqCst);
            return Err(GitError::TooLarge {
                source_text: text,
                what: "fetched repository data",
                limit: options.limits.max_bytes,
                variable: MAX_BYTES_ENV,
            });
        }
    }
}

/// The bytes of the files under `dir` (what a fetch has written so far).
fn size_of(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size_of(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}
