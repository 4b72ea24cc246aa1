//! `oci://host[:port]/repo/name[:tag|@sha256:…]` references, parsed by Helm's rules
//! (`helm.sh/helm/v4/pkg/registry`'s reference over ORAS's grammar): the `oci://` scheme, a
//! digest after the last `@`, a tag after the last `:` that is not followed by `/`, with `+`
//! written `_` (OCI tags may not contain `+`, SemVer build metadata does).

use std::fmt;

use crate::error::Error;

/// The scheme prefix of registry references.
pub const SCHEME: &str = "oci://";

/// Whether `s` names a registry artifact (`oci://…`).
pub fn is_oci(s: &str) -> bool {
    s.starts_with(SCHEME)
}

/// A parsed registry reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// `host[:port]`.
    pub registry: String,
    /// The repository path (`repo/name`).
    pub repository: String,
    /// The tag, `+` already written `_`.
    pub tag: Option<String>,
    /// `sha256:<hex>`.
    pub digest: Option<String>,
}

impl Reference {
    /// Parses `oci://host/repo[:tag][@digest]` (the scheme is required).
    pub fn parse(input: &str) -> Result<Reference, Error> {
        let bad = |reason: &str| Error::InvalidReference {
            input: input.to_string(),
            reason: reason.to_string(),
        };
        let rest = input
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it must start with oci://"))?;
        let (rest, digest) = match rest.rfind('@') {
            Some(i) => (&rest[..i], Some(rest[i + 1..].to_string())),
            None => (rest, None),
        };
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| bad("it has no repository after the registry host"))?;
        if !valid_registry(registry) {
            return Err(bad("the registry host is not host[:port]"));
        }
        let (repository, tag) = match path.rfind(':') {
            Some(i) if !path[i + 1..].contains('/') => {
                (&path[..i], Some(path[i + 1..].replace('+', "_")))
            }
            _ => (path, None),
        };
        if !valid_repository(repository) {
            return Err(bad(
                "the repository must be lowercase path components of letters, digits and . _ -",
            ));
        }
        if let Some(tag) = &tag
            && !valid_tag(tag)
        {
            return Err(bad(
                "the tag must be 1-128 letters, digits, _ . - (not starting with . or -)",
            ));
        }
        if let Some(d) = &digest
            && !valid_digest(d)
        {
            return Err(bad(
                "the digest must be sha256: and 64 lowercase hex digits",
            ));
        }
        Ok(Reference {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    /// This repository at `tag` (a version: `+` becomes `_`), digest dropped.
    pub fn with_tag(&self, tag: &str) -> Reference {
        Reference {
            tag: Some(tag_of_version(tag)),
            digest: None,
            ..self.clone()
        }
    }

    /// This repository at `digest`.
    pub fn with_digest(&self, digest: &str) -> Reference {
        Reference {
            digest: Some(digest.to_string()),
            ..self.clone()
        }
    }

    /// This repository with a path component appended (`oci://host/repo` + `chart`).
    pub fn join(&self, name: &str) -> Reference {
        Reference {
            repository: format!("{}/{}", self.repository, name),
            tag: None,
            digest: None,
            ..self.clone()
        }
    }

    /// The last path component (a chart's or package's name).
    pub fn name(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(&self.repository)
    }

    /// What a manifest request asks for: the digest when there is one, else the tag.
    pub fn target(&self) -> Option<&str> {
        self.digest.as_deref().or(self.tag.as_deref())
    }

    /// The repository without tag or digest, `oci://host/repo`.
    pub fn repository_url(&self) -> String {
        format!("{SCHEME}{}/{}", self.registry, self.repository)
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(t) = &self.tag {
            write!(f, ":{t}")?;
        }
        if let Some(d) = &self.digest {
            write!(f, "@{d}")?;
        }
        Ok(())
    }
}

/// The tag a version is stored under: `+` is not allowed in tags, Helm writes `_`.
pub fn tag_of_version(version: &str) -> String {
    version.replace('+', "_")
}

/// The version a tag stands for: `_` back to `+`.
pub fn version_of_tag(tag: &str) -> String {
    tag.replace('_', "+")
}

fn valid_registry(s: &str) -> bool {
    let (host, port) = match s.rsplit_once(':') {
        Some((h, p)) if !h.contains(']') || h.ends_with(']') => (h, Some(p)),
        _ => (s, None),
    };
    let host_ok = !host.is_empty()
        && (host.starts_with('[') && host.ends_with(']')
            || host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'));
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.parse::<u16>().is_ok());
    host_ok && port_ok
}

fn valid_repository(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && s.split('/').all(|c| {
            let b = c.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_lowercase() | b[0].is_ascii_digit()
                && b[b.len() - 1].is_ascii_lowercase() | b[b.len() - 1].is_ascii_digit()
                && b.iter()
                    .all(|&x| x.is_ascii_lowercase() || x.is_ascii_digit() || b"._-".contains(&x))
        })
}

fn valid_tag(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|&x| x.is_ascii_alphanumeric() || b"_.-".contains(&x))
}

/// `sha256:` and 64 lowercase hex digits.
pub fn valid_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_port_repository_and_tag() {
        let r = Reference::parse("oci://127.0.0.1:5000/charts/nginx:1.2.3").unwrap();
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "charts/nginx");
        assert_eq!(r.tag.as_deref(), Some("1.2.3"));
        assert_eq!(r.name(), "nginx");
        assert_eq!(r.to_string(), "oci://127.0.0.1:5000/charts/nginx:1.2.3");
    }

    #[test]
    fn a_colon_before_a_slash_is_the_port_not_a_tag() {
        let r = Reference::parse("oci://localhost:5000/charts").unwrap();
        assert_eq!(r.registry, "localhost:5000");
        assert_eq!(r.tag, None);
    }

    #[test]
    fn plus_in_a_tag_is_written_underscore_as_helm_does() {
        let r = Reference::parse("oci://r.example/c/app:1.0.0+build.1").unwrap();
        assert_eq!(r.tag.as_deref(), Some("1.0.0_build.1"));
        assert_eq!(version_of_tag("1.0.0_build.1"), "1.0.0+build.1");
        assert_eq!(r.with_tag("2.0.0+x").tag.as_deref(), Some("2.0.0_x"));
    }

    #[test]
    fn digest_after_the_last_at() {
        let d = format!("sha256:{}", "a".repeat(64));
        let r = Reference::parse(&format!("oci://r.example/p/kv@{d}")).unwrap();
        assert_eq!(r.digest.as_deref(), Some(d.as_str()));
        assert_eq!(r.target(), Some(d.as_str()));
        let r = Reference::parse(&format!("oci://r.example/p/kv:1.0.0@{d}")).unwrap();
        assert_eq!(r.tag.as_deref(), Some("1.0.0"));
    }

    #[test]
    fn refuses_what_helm_refuses() {
        for bad in [
            "r.example/c/app",
            "oci://r.example",
            "oci://r.example/Upper/app",
            "oci://r.example/c/app:-bad",
            "oci://r.example/c/app@sha256:abc",
            "oci://bad host/c",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad}");
        }
    }
}
