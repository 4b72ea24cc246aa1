//! SemVer constraints as Helm writes them (Masterminds/semver v3 syntax and semantics).
//!
//! Package `requires[].version` uses the same constraint language as a Chart.yaml dependency's
//! `version` and Sprig's `semverCompare`, so authors can reuse what they know: `||` separates
//! alternatives; within one alternative, comparisons separated by commas or spaces must all hold;
//! operators `=`, `!=`, `>`, `<`, `>=`/`=>`, `<=`/`=<`, `~`/`~>`, `^`; partial versions and the
//! wildcards `x`, `X`, `*` (`1.2.x`, `~1`, `^0.2`); hyphen ranges (`1.2 - 1.4.5`); an optional
//! leading `v`. As in Masterminds, a pre-release version only satisfies an alternative whose own
//! comparisons name a pre-release.

use std::fmt;

use kubepkg_semver::Version;

/// A parsed constraint such as `>=1.14.0, <2` or `~1.2 || ^2.0.0`.
///
/// The grammar and matching are the chart layer's port of Masterminds/semver
/// ([`kubepkg_semver::Constraints`]), so a package's `requires` behave exactly like a
/// chart dependency's `version`.
#[derive(Debug, Clone)]
pub struct Constraint {
    text: String,
    inner: kubepkg_semver::Constraints,
}

impl PartialEq for Constraint {
    fn eq(&self, other: &Constraint) -> bool {
        self.text == other.text
    }
}

impl Eq for Constraint {}

/// A constraint that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConstraintError {
    /// What Masterminds/semver says about it.
    pub message: String,
}

impl Constraint {
    /// Parses a constraint written in Masterminds/semver syntax.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        let inner = kubepkg_semver::Constraints::parse(text).map_err(|e| ConstraintError {
            message: e.to_string(),
        })?;
        Ok(Constraint {
            text: text.to_string(),
            inner,
        })
    }

    /// The constraint as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `version` satisfies the constraint (Masterminds' rules, as Helm checks chart
    /// versions; a package version is the strict SemVer 2 subset of the same type).
    pub fn matches(&self, version: &Version) -> bool {
        self.inner.check(version)
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(c: &str, v: &str) -> bool {
        Constraint::parse(c)
            .unwrap_or_else(|e| panic!("{c}: {e}"))
            .matches(&Version::parse_strict(v).unwrap())
    }

    /// Checks that each (constraint, version) case of `matching` matches and each of
    /// `not_matching` does not, naming the failing case.
    fn check(matching: &[(&str, &str)], not_matching: &[(&str, &str)]) {
        for &(c, v) in matching {
            assert!(ok(c, v), "{c:?} should match {v}");
        }
        for &(c, v) in not_matching {
            assert!(!ok(c, v), "{c:?} should not match {v}");
        }
    }

    // The expected results below are the range tables documented by Masterminds/semver
    // (README "Basic Comparisons", "Hyphen Range Comparisons", "Wildcards In Comparisons",
    // "Tilde Range Comparisons", "Caret Range Comparisons").
    #[test]
    fn basic_comparisons() {
        check(
            &[
                (">=1.14.0", "1.14.0"),
                (">=1.14.0", "2.0.0"),
                ("= 1.2.3", "1.2.3"),
                ("!=1.2.3", "1.2.4"),
                ("<2", "1.99.0"),
                (">= 1.2, < 3.0.0 || >= 4.2.3", "2.5.0"),
                (">= 1.2, < 3.0.0 || >= 4.2.3", "4.2.3"),
                // space separates AND comparisons
                (">1.2 <3", "1.3.0"),
            ],
            &[
                (">=1.14.0", "1.13.9"),
                ("1.2.3", "1.2.4"),
                ("!=1.2.3", "1.2.3"),
                ("<2", "2.0.0"),
                (">= 1.2, < 3.0.0 || >= 4.2.3", "3.5.0"),
            ],
        );
    }

    #[test]
    fn a_versions_prerelease_and_build_reach_the_constraint() {
        // The package's SemVer 2 parts are what Masterminds compares: build metadata is
        // ignored, a pre-release is below its release.
        check(
            &[
                ("1.2.3", "1.2.3+build.5"),
                ("<1.2.3-0 || 1.2.3-rc.1", "1.2.3-rc.1"),
            ],
            &[(">=1.2.3-0", "1.2.2+build.9")],
        );
    }

    #[test]
    fn hyphen_ranges() {
        check(
            &[
                ("1.2 - 1.4.5", "1.2.0"),
                ("1.2 - 1.4.5", "1.4.5"),
                // <= 4.5 keeps 4.5.x
                ("2.3.4 - 4.5", "4.5.9"),
            ],
            &[("1.2 - 1.4.5", "1.4.6"), ("2.3.4 - 4.5", "4.6.0")],
        );
    }

    #[test]
    fn wildcards() {
        check(
            &[
                ("1.2.x", "1.2.9"),
                (">= 1.2.x", "1.2.0"),
                ("<= 2.x", "2.9.0"),
                ("*", "7.0.0"),
            ],
            &[("1.2.x", "1.3.0"), ("<= 2.x", "3.0.0")],
        );
        // As in Masterminds, NewConstraint("") is an error (the grammar needs a version).
        assert!(Constraint::parse("").is_err());
        check(
            &[("!=1.x", "2.0.0"), (">11", "12.0.0"), (">11.1", "11.2.0")],
            &[("!=1.x", "1.5.0"), (">11", "11.1.0"), (">11.1", "11.1.5")],
        );
    }

    #[test]
    fn tilde_ranges() {
        check(
            &[
                ("~1.2.3", "1.2.9"),
                ("~1", "1.9.0"),
                ("~2.3", "2.3.5"),
                ("~1.x", "1.7.0"),
                ("~>1.2", "1.2.1"),
            ],
            &[("~1.2.3", "1.3.0"), ("~1", "2.0.0"), ("~2.3", "2.4.0")],
        );
    }

    #[test]
    fn caret_ranges() {
        check(
            &[
                ("^1.2.3", "1.9.9"),
                ("^0.2.3", "0.2.9"),
                ("^0.0.3", "0.0.3"),
                ("^0", "0.9.0"),
                ("^0.0", "0.0.9"),
            ],
            &[
                ("^1.2.3", "2.0.0"),
                ("^1.2.3", "1.2.2"),
                ("^0.2.3", "0.3.0"),
                ("^0.0.3", "0.0.4"),
                ("^0", "1.0.0"),
                ("^0.0", "0.1.0"),
            ],
        );
    }

    #[test]
    fn prereleases_only_match_constraints_that_name_one() {
        check(
            &[
                (">=1.2.0-0", "1.3.0-beta.1"),
                (">=1.2.3-beta.1", "1.2.3-beta.2"),
            ],
            &[(">=1.2.0", "1.3.0-beta.1"), ("*", "1.0.0-rc.1")],
        );
    }

    #[test]
    fn improper_constraints_are_errors() {
        for bad in [
            ">=",
            "1.2.3.4",
            ">>1",
            "abc",
            "1.2,,3",
            ">=1.2 ||| 3",
            "1.a",
        ] {
            assert!(Constraint::parse(bad).is_err(), "{bad:?} should not parse");
        }
    }
}
