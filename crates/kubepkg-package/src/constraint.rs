//! SemVer constraints as Helm writes them (Masterminds/semver v3 syntax and semantics).
//!
//! Package `requires[].version` uses the same constraint language as a Chart.yaml dependency's
//! `version` and Sprig's `semverCompare`, so authors can reuse what they know: `||` separates
//! alternatives; within one alternative, comparisons separated by commas or spaces must all hold;
//! operators `=`, `!=`, `>`, `<`, `>=`/`=>`, `<=`/`=<`, `~`/`~>`, `^`; partial versions and the
//! wildcards `x`, `X`, `*` (`1.2.x`, `~1`, `^0.2`); hyphen ranges (`1.2 - 1.4.5`); an optional
//! leading `v`. As in Masterminds, a comparison whose version has no pre-release never matches a
//! pre-release version.

use std::cmp::Ordering;
use std::fmt;

use semver::{Prerelease, Version};

/// A parsed constraint such as `>=1.14.0, <2` or `~1.2 || ^2.0.0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    text: String,
    alternatives: Vec<Vec<Comparison>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    TildeOrEqual,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

/// How much of the version was written: `1` (major only), `1.2`, or `1.2.3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Precision {
    /// `*`, `x` or empty: any version.
    Any,
    Major,
    Minor,
    Full,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Comparison {
    op: Op,
    version: Version,
    precision: Precision,
    written: String,
}

/// A constraint that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("improper constraint: {text}")]
pub struct ConstraintError {
    /// The offending part of the constraint.
    pub text: String,
}

impl Constraint {
    /// Parses a constraint written in Masterminds/semver syntax.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        let rewritten = rewrite_hyphen_ranges(text);
        let mut alternatives = Vec::new();
        for alt in rewritten.split("||") {
            alternatives.push(parse_conjunction(alt)?);
        }
        Ok(Constraint {
            text: text.to_string(),
            alternatives,
        })
    }

    /// The constraint as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `version` satisfies the constraint.
    pub fn matches(&self, version: &Version) -> bool {
        self.alternatives
            .iter()
            .any(|all| all.iter().all(|c| c.matches(version)))
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn is_wild(part: &str) -> bool {
    matches!(part, "x" | "X" | "*")
}

/// `1.2 - 1.4.5` → `>= 1.2 <= 1.4.5`, for every hyphen range in the text.
fn rewrite_hyphen_ranges(text: &str) -> String {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if i + 2 < tokens.len()
            && tokens[i + 1] == "-"
            && looks_like_version(tokens[i])
            && looks_like_version(tokens[i + 2])
        {
            out.push(format!(">= {}", tokens[i]));
            out.push(format!("<= {}", tokens[i + 2]));
            i += 3;
        } else {
            out.push(tokens[i].to_string());
            i += 1;
        }
    }
    out.join(" ")
}

fn looks_like_version(s: &str) -> bool {
    let s = s.strip_prefix('v').unwrap_or(s);
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || matches!(c, 'x' | 'X' | '*'))
}

const OPS: [(&str, Op); 12] = [
    ("!=", Op::NotEqual),
    (">=", Op::GreaterEqual),
    ("=>", Op::GreaterEqual),
    ("<=", Op::LessEqual),
    ("=<", Op::LessEqual),
    ("~>", Op::Tilde),
    (">", Op::Greater),
    ("<", Op::Less),
    ("~", Op::Tilde),
    ("^", Op::Caret),
    ("=", Op::TildeOrEqual),
    ("", Op::TildeOrEqual),
];

/// One alternative: comparisons separated by commas and/or whitespace. An operator may be
/// followed by spaces before its version (`>= 1.2`).
fn parse_conjunction(alt: &str) -> Result<Vec<Comparison>, ConstraintError> {
    let err = || ConstraintError {
        text: alt.trim().to_string(),
    };
    let mut rest = alt.trim();
    if rest.is_empty() {
        // Masterminds treats an empty constraint as `*`.
        return Ok(vec![Comparison {
            op: Op::TildeOrEqual,
            version: Version::new(0, 0, 0),
            precision: Precision::Any,
            written: String::new(),
        }]);
    }
    let mut out = Vec::new();
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            let trimmed = rest.trim_start();
            let had_space = trimmed.len() != rest.len();
            rest = trimmed;
            if let Some(r) = rest.strip_prefix(',') {
                rest = r.trim_start();
            } else if !had_space {
                return Err(err());
            }
        }
        first = false;
        let (op, after) = OPS
            .iter()
            .find_map(|(sym, op)| rest.strip_prefix(sym).map(|r| (*op, r)))
            .ok_or_else(err)?;
        let after = after.trim_start();
        let end = after
            .find(|c: char| c.is_whitespace() || c == ',')
            .unwrap_or(after.len());
        let (word, r) = after.split_at(end);
        if word.is_empty() {
            return Err(err());
        }
        out.push(parse_comparison(op, word).ok_or_else(err)?);
        rest = r;
    }
    Ok(out)
}

fn parse_comparison(op: Op, word: &str) -> Option<Comparison> {
    let body = word.strip_prefix('v').unwrap_or(word);
    // Split off build metadata and pre-release (they belong to the last written part).
    let (core_and_pre, _build) = match body.split_once('+') {
        Some((a, b)) => (a, Some(b)),
        None => (body, None),
    };
    let (core, pre) = match core_and_pre.split_once('-') {
        Some((a, b)) => (a, b),
        None => (core_and_pre, ""),
    };
    if !pre.is_empty()
        && !pre
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    {
        return None;
    }
    let parts: Vec<&str> = core.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    for p in &parts {
        if p.is_empty() || !(is_wild(p) || p.chars().all(|c| c.is_ascii_digit())) {
            return None;
        }
    }
    let num = |p: &str| p.parse::<u64>().ok();
    let (precision, major, minor, patch) = if is_wild(parts[0]) {
        (Precision::Any, 0, 0, 0)
    } else if parts.len() < 2 || is_wild(parts[1]) {
        (Precision::Major, num(parts[0])?, 0, 0)
    } else if parts.len() < 3 || is_wild(parts[2]) {
        (Precision::Minor, num(parts[0])?, num(parts[1])?, 0)
    } else {
        (
            Precision::Full,
            num(parts[0])?,
            num(parts[1])?,
            num(parts[2])?,
        )
    };
    let mut version = Version::new(major, minor, patch);
    if !pre.is_empty() {
        version.pre = Prerelease::new(pre).ok()?;
    }
    Some(Comparison {
        op,
        version,
        precision,
        written: word.to_string(),
    })
}

/// Version order ignoring build metadata (SemVer precedence).
fn cmp(a: &Version, b: &Version) -> Ordering {
    a.major
        .cmp(&b.major)
        .then(a.minor.cmp(&b.minor))
        .then(a.patch.cmp(&b.patch))
        .then_with(|| match (a.pre.is_empty(), b.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.pre.cmp(&b.pre),
        })
}

impl Comparison {
    fn dirty(&self) -> bool {
        self.precision != Precision::Full
    }
    fn minor_dirty(&self) -> bool {
        matches!(self.precision, Precision::Major)
    }
    fn patch_dirty(&self) -> bool {
        matches!(self.precision, Precision::Minor)
    }

    fn matches(&self, v: &Version) -> bool {
        let c = &self.version;
        if self.precision == Precision::Any && self.op == Op::TildeOrEqual {
            // `*`/empty: any release; pre-releases only if the constraint names one.
            return v.pre.is_empty() || !c.pre.is_empty();
        }
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        match self.op {
            Op::NotEqual => {
                if self.dirty() {
                    if c.major != v.major {
                        return true;
                    }
                    if self.precision == Precision::Any || self.minor_dirty() {
                        return false;
                    }
                    if c.minor != v.minor {
                        return true;
                    }
                    return false;
                }
                cmp(v, c) != Ordering::Equal
            }
            Op::Greater => {
                if !self.dirty() {
                    return cmp(v, c) == Ordering::Greater;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty() {
                    false
                } else if self.patch_dirty() {
                    v.minor > c.minor
                } else {
                    cmp(v, c) == Ordering::Greater
                }
            }
            Op::Less => cmp(v, c) == Ordering::Less,
            Op::GreaterEqual => cmp(v, c) != Ordering::Less,
            Op::LessEqual => {
                if !self.dirty() {
                    return cmp(v, c) != Ordering::Greater;
                }
                if v.major > c.major {
                    false
                } else {
                    !(v.major == c.major && v.minor > c.minor && !self.minor_dirty())
                }
            }
            Op::TildeOrEqual => {
                if self.dirty() {
                    self.tilde(v)
                } else {
                    cmp(v, c) == Ordering::Equal
                }
            }
            Op::Tilde => self.tilde(v),
            Op::Caret => {
                if cmp(v, c) == Ordering::Less {
                    return false;
                }
                if self.precision == Precision::Any {
                    return true;
                }
                if c.major > 0 || self.minor_dirty() {
                    return v.major == c.major;
                }
                if v.major > 0 {
                    return false;
                }
                if c.minor > 0 || self.patch_dirty() {
                    return v.minor == c.minor;
                }
                v.minor == 0 && v.patch == c.patch
            }
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if cmp(v, c) == Ordering::Less {
            return false;
        }
        if self.precision == Precision::Any
            || (c.major == 0 && c.minor == 0 && c.patch == 0 && self.precision == Precision::Full)
        {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(c: &str, v: &str) -> bool {
        Constraint::parse(c)
            .unwrap_or_else(|e| panic!("{c}: {e}"))
            .matches(&Version::parse(v).unwrap())
    }

    // The expected results below are the range tables documented by Masterminds/semver
    // (README "Basic Comparisons", "Hyphen Range Comparisons", "Wildcards In Comparisons",
    // "Tilde Range Comparisons", "Caret Range Comparisons").
    #[test]
    fn basic_comparisons() {
        assert!(ok(">=1.14.0", "1.14.0"));
        assert!(ok(">=1.14.0", "2.0.0"));
        assert!(!ok(">=1.14.0", "1.13.9"));
        assert!(ok("= 1.2.3", "1.2.3"));
        assert!(!ok("1.2.3", "1.2.4"));
        assert!(ok("!=1.2.3", "1.2.4"));
        assert!(!ok("!=1.2.3", "1.2.3"));
        assert!(ok("<2", "1.99.0"));
        assert!(!ok("<2", "2.0.0"));
        assert!(ok(">= 1.2, < 3.0.0 || >= 4.2.3", "2.5.0"));
        assert!(ok(">= 1.2, < 3.0.0 || >= 4.2.3", "4.2.3"));
        assert!(!ok(">= 1.2, < 3.0.0 || >= 4.2.3", "3.5.0"));
        assert!(ok(">1.2 <3", "1.3.0"), "space separates AND comparisons");
    }

    #[test]
    fn hyphen_ranges() {
        assert!(ok("1.2 - 1.4.5", "1.2.0"));
        assert!(ok("1.2 - 1.4.5", "1.4.5"));
        assert!(!ok("1.2 - 1.4.5", "1.4.6"));
        assert!(ok("2.3.4 - 4.5", "4.5.9"), "<= 4.5 keeps 4.5.x");
        assert!(!ok("2.3.4 - 4.5", "4.6.0"));
    }

    #[test]
    fn wildcards() {
        assert!(ok("1.2.x", "1.2.9"));
        assert!(!ok("1.2.x", "1.3.0"));
        assert!(ok(">= 1.2.x", "1.2.0"));
        assert!(ok("<= 2.x", "2.9.0"));
        assert!(!ok("<= 2.x", "3.0.0"));
        assert!(ok("*", "7.0.0"));
        assert!(ok("", "0.1.0"));
        assert!(ok("!=1.x", "2.0.0"));
        assert!(!ok("!=1.x", "1.5.0"));
        assert!(!ok(">11", "11.1.0"));
        assert!(ok(">11", "12.0.0"));
        assert!(!ok(">11.1", "11.1.5"));
        assert!(ok(">11.1", "11.2.0"));
    }

    #[test]
    fn tilde_ranges() {
        assert!(ok("~1.2.3", "1.2.9"));
        assert!(!ok("~1.2.3", "1.3.0"));
        assert!(ok("~1", "1.9.0"));
        assert!(!ok("~1", "2.0.0"));
        assert!(ok("~2.3", "2.3.5"));
        assert!(!ok("~2.3", "2.4.0"));
        assert!(ok("~1.x", "1.7.0"));
        assert!(ok("~>1.2", "1.2.1"));
    }

    #[test]
    fn caret_ranges() {
        assert!(ok("^1.2.3", "1.9.9"));
        assert!(!ok("^1.2.3", "2.0.0"));
        assert!(!ok("^1.2.3", "1.2.2"));
        assert!(ok("^0.2.3", "0.2.9"));
        assert!(!ok("^0.2.3", "0.3.0"));
        assert!(ok("^0.0.3", "0.0.3"));
        assert!(!ok("^0.0.3", "0.0.4"));
        assert!(ok("^0", "0.9.0"));
        assert!(!ok("^0", "1.0.0"));
        assert!(ok("^0.0", "0.0.9"));
        assert!(!ok("^0.0", "0.1.0"));
    }

    #[test]
    fn prereleases_only_match_constraints_that_name_one() {
        assert!(!ok(">=1.2.0", "1.3.0-beta.1"));
        assert!(ok(">=1.2.0-0", "1.3.0-beta.1"));
        assert!(ok(">=1.2.3-beta.1", "1.2.3-beta.2"));
        assert!(!ok("*", "1.0.0-rc.1"));
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
