//! `--version` against a repository's tags, as Helm resolves it
//! (`GetTagMatchingVersionOrConstraint` over the tags Helm lists): an exact tag wins; otherwise
//! the tags that are strict SemVer versions (`_` read as `+`) are sorted newest first and the
//! first that satisfies the constraint is taken (an empty version is `*`).

use kubepkg_semver::{Constraints, Version};

use crate::error::Error;
use crate::reference::{Reference, tag_of_version, version_of_tag};

/// The tag `version` selects among `tags` of `repo`.
pub fn resolve_tag(repo: &Reference, tags: &[String], version: &str) -> Result<String, Error> {
    let wanted = tag_of_version(version);
    if !version.is_empty() && tags.contains(&wanted) {
        return Ok(wanted);
    }
    let constraint_text = if version.is_empty() { "*" } else { version };
    let constraint =
        Constraints::parse(constraint_text).map_err(|source| Error::BadConstraint {
            reference: repo.repository_url(),
            constraint: version.to_string(),
            source,
        })?;
    let mut versions: Vec<(Version, &String)> = tags
        .iter()
        .filter(|t| kubepkg_semver::has_strict_core(&version_of_tag(t)))
        .filter_map(|t| Version::parse(&version_of_tag(t)).ok().map(|v| (v, t)))
        .collect();
    versions.sort_by(|a, b| b.0.compare(&a.0));
    versions
        .iter()
        .find(|(v, _)| constraint.check(v))
        .map(|(_, t)| (*t).clone())
        .ok_or_else(|| Error::NoMatchingTag {
            reference: repo.repository_url(),
            constraint: version.to_string(),
            tags: if tags.is_empty() {
                "none".to_string()
            } else {
                tags.join(", ")
            },
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> Reference {
        Reference::parse("oci://r.example/p/kv").unwrap()
    }

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn constraint_takes_the_newest_match_and_exact_tags_win() {
        let t = tags(&[
            "1.0.0", "1.4.2", "1.5.0", "2.0.0", "latest", "v1.9.0", "1.6.0_b1",
        ]);
        assert_eq!(resolve_tag(&repo(), &t, ">=1.4 <2").unwrap(), "1.6.0_b1");
        assert_eq!(resolve_tag(&repo(), &t, "1.4.2").unwrap(), "1.4.2");
        assert_eq!(resolve_tag(&repo(), &t, "latest").unwrap(), "latest");
        assert_eq!(resolve_tag(&repo(), &t, "").unwrap(), "2.0.0");
        assert_eq!(resolve_tag(&repo(), &t, "1.6.0+b1").unwrap(), "1.6.0_b1");
    }

    #[test]
    fn no_match_names_the_tags() {
        let e = resolve_tag(&repo(), &tags(&["1.0.0"]), ">=3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "oci://r.example/p/kv: no tag matches version \">=3\" (tags: 1.0.0); pick one of them"
        );
    }
}
