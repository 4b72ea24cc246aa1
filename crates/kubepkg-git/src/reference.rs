//! What a Git package source names: the repository URL, the ref and the path in the tree,
//! read from the CLI's form `git+SCHEME://HOST/REPO.git//PATH?ref=NAME` ([`GitSource::parse`])
//! or built from a `Package`'s `spec.source.git` fields, and printed back in the CLI's form
//! (without any password) for messages and records.

use std::fmt;

use crate::GitError;

/// Which commit of the repository: Flux's `GitRepository.spec.ref`, plus `Name` for the CLI's
/// `?ref=` (a tag, else a branch, else a full commit hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitRef {
    /// The remote's default branch (its `HEAD`).
    Default,
    Branch(String),
    Tag(String),
    /// The newest tag whose name is a version matching this SemVer constraint.
    Semver(String),
    /// A full commit hash (40 hex digits).
    Commit(String),
    /// `?ref=NAME`: a tag of that name, else a branch, else (40 hex digits) a commit.
    Name(String),
}

impl GitRef {
    /// The query of the CLI form (`?ref=v1`), empty for the default branch.
    fn query(&self) -> String {
        match self {
            GitRef::Default => String::new(),
            GitRef::Branch(b) => format!("?branch={b}"),
            GitRef::Tag(t) => format!("?tag={t}"),
            GitRef::Semver(s) => format!("?semver={s}"),
            GitRef::Commit(c) => format!("?commit={c}"),
            GitRef::Name(n) => format!("?ref={n}"),
        }
    }
}

impl fmt::Display for GitRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitRef::Default => f.write_str("the default branch"),
            GitRef::Branch(b) => write!(f, "branch {b}"),
            GitRef::Tag(t) => write!(f, "tag {t}"),
            GitRef::Semver(s) => write!(f, "the newest tag matching {s:?}"),
            GitRef::Commit(c) => write!(f, "commit {c}"),
            GitRef::Name(n) => write!(f, "ref {n}"),
        }
    }
}

/// A package in a Git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The repository as Git reads it: `https://…`, `http://…`, `ssh://…` or `file://…`.
    pub url: String,
    pub reference: GitRef,
    /// The package directory in the tree, `/`-separated, without leading or trailing `/`;
    /// empty for the root.
    pub path: String,
}

/// The schemes a Git source may use.
const SCHEMES: [&str; 4] = ["https://", "http://", "ssh://", "file://"];

impl GitSource {
    /// Whether `text` is meant as a Git source (`git+…`), before it is checked.
    pub fn is_git(text: &str) -> bool {
        text.starts_with("git+")
    }

    /// A source from its parts (a `Package`'s `spec.source.git`): the URL checked, the path
    /// normalised.
    pub fn new(url: &str, reference: GitRef, path: &str) -> Result<GitSource, GitError> {
        let url = url.strip_prefix("git+").unwrap_or(url).to_string();
        if !SCHEMES.iter().any(|s| url.starts_with(s)) {
            return Err(invalid(
                &url,
                "the URL must start with https://, http://, ssh:// or file://",
            ));
        }
        let rest = url.split_once("://").map(|(_, r)| r).unwrap_or_default();
        if rest.trim_matches('/').is_empty() {
            return Err(invalid(&url, "the URL names no repository"));
        }
        if let GitRef::Commit(c) = &reference
            && !is_full_hash(c)
        {
            return Err(invalid(
                &url,
                &format!("commit {c:?} is not a full commit hash (40 hex digits)"),
            ));
        }
        let path = normalise(&url, path)?;
        Ok(GitSource {
            url,
            reference,
            path,
        })
    }

    /// The CLI's form: `git+https://host/repo.git//path/in/repo?ref=v1.2.0` (`//` starts the
    /// path, which may be left out; the query is one of `ref`, `branch`, `tag`, `semver`,
    /// `commit`, or none for the default branch).
    pub fn parse(text: &str) -> Result<GitSource, GitError> {
        let Some(body) = text.strip_prefix("git+") else {
            return Err(invalid(text, "a Git source starts with git+"));
        };
        let (location, query) = match body.split_once('?') {
            Some((l, q)) => (l, Some(q)),
            None => (body, None),
        };
        let Some((scheme, rest)) = location.split_once("://") else {
            return Err(invalid(
                text,
                "write git+https://HOST/REPO.git//PATH?ref=REF (or git+http, git+ssh, git+file)",
            ));
        };
        // `//` after the repository starts the path; for file:// the repository path itself
        // starts with `/`, so look past the first character.
        let (repo, path) = match rest.get(1..).and_then(|r| r.find("//")) {
            Some(i) => (&rest[..i + 1], &rest[i + 3..]),
            None => (rest, ""),
        };
        let reference = match query {
            None | Some("") => GitRef::Default,
            Some(q) => {
                let mut found = None;
                for pair in q.split('&') {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    let value = value.to_string();
                    if value.is_empty() {
                        return Err(invalid(text, &format!("?{key}= needs a value")));
                    }
                    let r = match key {
                        "ref" if is_full_hash(&value) => GitRef::Commit(value),
                        "ref" => GitRef::Name(value),
                        "branch" => GitRef::Branch(value),
                        "tag" => GitRef::Tag(value),
                        "semver" => GitRef::Semver(value),
                        "commit" => GitRef::Commit(value),
                        other => {
                            return Err(invalid(
                                text,
                                &format!(
                                    "unknown query {other:?}: use one of ref, branch, tag, semver, commit"
                                ),
                            ));
                        }
                    };
                    if found.replace(r).is_some() {
                        return Err(invalid(
                            text,
                            "give one of ref, branch, tag, semver or commit",
                        ));
                    }
                }
                found.unwrap_or(GitRef::Default)
            }
        };
        GitSource::new(&format!("{scheme}://{repo}"), reference, path)
    }

    /// The URL without a password (for messages and records).
    pub fn display_url(&self) -> String {
        redact(&self.url)
    }
}

impl fmt::Display for GitSource {
    /// The CLI's form, without a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "git+{}", self.display_url())?;
        if !self.path.is_empty() {
            write!(f, "//{}", self.path)?;
        }
        f.write_str(&self.reference.query())
    }
}

/// `url` with the password of its user information replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}{}", &rest[authority_end..])
        }
        _ => url.to_string(),
    }
}

fn is_full_hash(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `path` without leading, trailing or doubled `/` and `.`; `..` is refused.
fn normalise(url: &str, path: &str) -> Result<String, GitError> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(invalid(
                    url,
                    &format!("path {path:?} leaves the repository (..)"),
                ));
            }
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

fn invalid(source: &str, reason: &str) -> GitError {
    GitError::InvalidSource {
        source_text: redact(source),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_form_names_repository_path_and_ref() {
        let s = GitSource::parse("git+https://example.test/org/repo.git//deploy/shop?ref=v1.2.0")
            .unwrap();
        assert_eq!(s.url, "https://example.test/org/repo.git");
        assert_eq!(s.path, "deploy/shop");
        assert_eq!(s.reference, GitRef::Name("v1.2.0".into()));
        assert_eq!(
            s.to_string(),
            "git+https://example.test/org/repo.git//deploy/shop?ref=v1.2.0"
        );
    }

    #[test]
    fn file_urls_keep_their_absolute_path_and_the_path_and_query_are_optional() {
        let s = GitSource::parse("git+file:///srv/git/repo.git//pkg?branch=main").unwrap();
        assert_eq!(s.url, "file:///srv/git/repo.git");
        assert_eq!(s.path, "pkg");
        assert_eq!(s.reference, GitRef::Branch("main".into()));
        let s = GitSource::parse("git+ssh://git@example.test/repo.git").unwrap();
        assert_eq!(s.url, "ssh://git@example.test/repo.git");
        assert_eq!(s.path, "");
        assert_eq!(s.reference, GitRef::Default);
        let hash = "0123456789abcdef0123456789abcdef01234567";
        let s = GitSource::parse(&format!("git+http://h/r.git//a/?ref={hash}")).unwrap();
        assert_eq!(s.reference, GitRef::Commit(hash.into()));
        assert_eq!(s.path, "a");
    }

    #[test]
    fn bad_forms_say_what_to_write_and_never_show_a_password() {
        for (text, expect) in [
            ("git+ftp://h/r.git", "must start with https://"),
            ("git+https://h/r.git?ref=a&tag=b", "give one of"),
            ("git+https://h/r.git?color=red", "unknown query \"color\""),
            ("git+https://h/r.git//../x", "leaves the repository"),
            ("git+https://h/r.git?commit=abc", "not a full commit hash"),
            ("git+nothing", "write git+https://"),
        ] {
            let e = GitSource::parse(text).unwrap_err().to_string();
            assert!(e.contains(expect), "{text}: {e}");
        }
        let e = GitSource::parse("git+https://u:secret@h/r.git?x=1")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret") && e.contains("u:***@h"), "{e}");
        // Odd input is an error or a source, never a panic.
        for odd in [
            "git+",
            "git+https://",
            "git+https:///",
            "git+https://h/r.git//",
            "git+https://ü/r.git//x?ref=é",
            "git+file://ü//",
            "git+https://h/r.git?ref",
            "git+https://h/r.git?&&",
        ] {
            let _ = GitSource::parse(odd);
        }
        assert!(GitSource::parse("git+https://").is_err());
        let s = GitSource::parse("git+https://u:secret@h/r.git").unwrap();
        assert_eq!(s.to_string(), "git+https://u:***@h/r.git");
    }
}
