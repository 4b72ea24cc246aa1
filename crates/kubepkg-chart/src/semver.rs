//! Semantic versions and version constraints as Helm checks them (Masterminds `semver/v3`).
//!
//! Helm validates `Chart.yaml` versions with `semver.NewVersion` in its default "coerce" mode:
//! `v1`, `1.2` and `01.2.3` are accepted and read as `1.0.0`, `1.2.0` and `1.2.3`, while
//! prerelease and build identifiers are checked strictly. Constraints (`kubeVersion`, dependency
//! `version` ranges) follow Masterminds' grammar: `||` alternatives of `,`/space separated
//! comparisons, the operators `= != > < >= => <= =< ~ ~> ^`, wildcards `x X *`, hyphen ranges
//! `1.2 - 1.4`, and the rule that a prerelease only satisfies a group whose own bounds name a
//! prerelease.

use regex::Regex;
use std::cmp::Ordering;
use std::fmt;
use std::sync::LazyLock;

const LOOSE: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

static VERSION_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{LOOSE}$")).expect("static regex"));
static CONSTRAINT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*({OPS})\s*({CV})\s*$")).expect("static regex"));
static RANGE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\s*({CV})\s+-\s+({CV})\s*")).expect("static regex"));
static FIND_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"({OPS})\s*({CV})")).expect("static regex"));
static VALID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"
    ))
    .expect("static regex")
});

/// A parsed semantic version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
    /// The text it was parsed from.
    pub original: String,
}

/// Why a version string is not a semantic version (Masterminds' error texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SemverError {
    #[error("Invalid Semantic Version")]
    Invalid,
    #[error("Invalid Prerelease string")]
    Prerelease,
    #[error("Version segment starts with 0")]
    SegmentStartsZero,
    #[error("Invalid Metadata string")]
    Metadata,
    #[error("version is too long")]
    TooLong,
    #[error("improper constraint: {0}")]
    Constraint(String),
    #[error("constraint string is too long (max 512 bytes)")]
    ConstraintTooLong,
    #[error("too many constraint groups (max 32)")]
    TooManyGroups,
}

fn only(s: &str, allowed: impl Fn(char) -> bool) -> bool {
    s.chars().all(allowed)
}

impl Version {
    /// `semver.NewVersion` (coerce mode).
    pub fn parse(v: &str) -> Result<Version, SemverError> {
        if v.len() > 256 {
            return Err(SemverError::TooLong);
        }
        let m = VERSION_RE.captures(v).ok_or(SemverError::Invalid)?;
        let seg = |i: usize| -> Result<u64, SemverError> {
            match m.get(i) {
                None => Ok(0),
                Some(s) => s
                    .as_str()
                    .trim_start_matches('.')
                    .parse()
                    .map_err(|_| SemverError::Invalid),
            }
        };
        let pre = m.get(5).map_or("", |s| s.as_str()).to_string();
        let metadata = m.get(8).map_or("", |s| s.as_str()).to_string();
        for p in pre.split('.').filter(|_| !pre.is_empty()) {
            let alnum = |c: char| c.is_ascii_alphanumeric() || c == '-';
            if p.is_empty() {
                return Err(SemverError::Prerelease);
            } else if only(p, |c| c.is_ascii_digit()) {
                if p.len() > 1 && p.starts_with('0') {
                    return Err(SemverError::SegmentStartsZero);
                }
            } else if !only(p, alnum) {
                return Err(SemverError::Prerelease);
            }
        }
        for p in metadata.split('.').filter(|_| !metadata.is_empty()) {
            if p.is_empty() || !only(p, |c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(SemverError::Metadata);
            }
        }
        Ok(Version {
            major: seg(1)?,
            minor: seg(2)?,
            patch: seg(3)?,
            pre,
            metadata,
            original: v.to_string(),
        })
    }

    fn cmp_version(&self, o: &Version) -> Ordering {
        self.major
            .cmp(&o.major)
            .then(self.minor.cmp(&o.minor))
            .then(self.patch.cmp(&o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let ap: Vec<&str> = a.split('.').collect();
    let bp: Vec<&str> = b.split('.').collect();
    for i in 0..ap.len().max(bp.len()) {
        let s = ap.get(i).copied().unwrap_or("");
        let o = bp.get(i).copied().unwrap_or("");
        let d = compare_pre_part(s, o);
        if d != Ordering::Equal {
            return d;
        }
    }
    Ordering::Equal
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Comparison {
    op: String,
    con: Version,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

/// A parsed constraint such as `>= 1.20.0-0, < 1.30` or `^2 || ~1.4`.
#[derive(Debug, Clone)]
pub struct Constraints {
    groups: Vec<(Vec<Comparison>, bool)>,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_comparison(s: &str) -> Result<Comparison, SemverError> {
    let m = CONSTRAINT_RE
        .captures(s)
        .ok_or_else(|| SemverError::Constraint(format!("{s:?}")))?;
    let g = |i: usize| m.get(i).map_or("", |x| x.as_str());
    let (major, minor, patch, pre) = (g(3), g(4), g(5), g(6));
    let (ver, dirty, minor_dirty, patch_dirty) = if is_x(major) || major.is_empty() {
        (format!("0.0.0{pre}"), true, false, false)
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        (format!("{major}.0.0{pre}"), true, true, false)
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        (format!("{major}{minor}.0{pre}"), true, false, true)
    } else {
        (g(2).to_string(), false, false, false)
    };
    let con = Version::parse(&ver)
        .map_err(|_| SemverError::Constraint("constraint parser error".into()))?;
    Ok(Comparison {
        op: g(1).to_string(),
        con,
        dirty,
        minor_dirty,
        patch_dirty,
    })
}

impl Constraints {
    /// `semver.NewConstraint`.
    pub fn parse(c: &str) -> Result<Constraints, SemverError> {
        if c.len() > 512 {
            return Err(SemverError::ConstraintTooLong);
        }
        let mut rewritten = c.to_string();
        for m in RANGE_RE.captures_iter(c) {
            let whole = m.get(0).map_or("", |x| x.as_str());
            let lo = m.get(1).map_or("", |x| x.as_str());
            let hi = m.get(11).map_or("", |x| x.as_str());
            rewritten = rewritten.replacen(whole, &format!(">= {lo}, <= {hi} "), 1);
        }
        let ors: Vec<&str> = rewritten.split("||").collect();
        if ors.len() > 32 {
            return Err(SemverError::TooManyGroups);
        }
        let mut groups = Vec::new();
        for v in ors {
            if !VALID_RE.is_match(v) {
                return Err(SemverError::Constraint(format!("{v:?}")));
            }
            let mut found: Vec<&str> = FIND_RE.find_iter(v).map(|m| m.as_str()).collect();
            if found.is_empty() {
                found.push(v);
            }
            let mut cs = Vec::new();
            let mut has_pre = false;
            for s in found {
                let pc = parse_comparison(s)?;
                has_pre |= !pc.con.pre.is_empty();
                cs.push(pc);
            }
            groups.push((cs, has_pre));
        }
        Ok(Constraints { groups })
    }

    /// `Constraints.Check`: whether any alternative accepts `v`.
    pub fn check(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|(cs, pre)| cs.iter().all(|c| c.check(v, *pre)))
    }
}

impl Comparison {
    fn check(&self, v: &Version, include_pre: bool) -> bool {
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let c = &self.con;
        match self.op.as_str() {
            "" | "=" => {
                if self.dirty {
                    self.tilde(v)
                } else {
                    v.cmp_version(c) == Ordering::Equal
                }
            }
            "!=" => {
                if self.dirty {
                    if c.major != v.major {
                        return true;
                    }
                    if c.minor != v.minor && !self.minor_dirty {
                        return true;
                    } else if self.minor_dirty {
                        return false;
                    } else if c.patch != v.patch && !self.patch_dirty {
                        return true;
                    } else if self.patch_dirty {
                        if !v.pre.is_empty() || !c.pre.is_empty() {
                            return compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
                        }
                        return false;
                    }
                }
                v.cmp_version(c) != Ordering::Equal
            }
            ">" => {
                if !self.dirty {
                    return v.cmp_version(c) == Ordering::Greater;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v.cmp_version(c) == Ordering::Greater
                }
            }
            "<" => v.cmp_version(c) == Ordering::Less,
            ">=" | "=>" => v.cmp_version(c) != Ordering::Less,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.cmp_version(c) != Ordering::Greater;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            "~" | "~>" => self.tilde(v),
            "^" => {
                if v.cmp_version(c) == Ordering::Less {
                    return false;
                }
                if c.major > 0 || self.minor_dirty {
                    return v.major == c.major;
                }
                if v.major > 0 {
                    return false;
                }
                if c.minor > 0 || self.patch_dirty {
                    return v.minor == c.minor;
                }
                if v.minor > 0 {
                    return false;
                }
                c.patch == v.patch
            }
            _ => false,
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.con;
        if v.cmp_version(c) == Ordering::Less {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty
    }
}

/// Helm's `chartutil.IsCompatibleRange`: false when either side does not parse.
pub fn is_compatible_range(constraint: &str, version: &str) -> bool {
    let Ok(v) = Version::parse(version) else {
        return false;
    };
    let Ok(c) = Constraints::parse(constraint) else {
        return false;
    };
    c.check(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expectations from Masterminds/semver v3 constraints_test.go and Helm's behaviour.
    #[test]
    fn constraints_match_masterminds() {
        let cases = [
            (">=1.20.0-0", "v1.20.0", true),
            (">=1.20.0", "v1.20.0-gke.1", false),
            (">=1.20.0-0", "1.21.3-gke.100", true),
            ("^1.2.3", "1.8.0", true),
            ("^1.2.3", "2.0.0", false),
            ("~1.2.3", "1.2.9", true),
            ("~1.2.3", "1.3.0", false),
            ("1.2.x", "1.2.7", true),
            ("1.2.x", "1.3.0", false),
            ("*", "4.5.6", true),
            (">= 1.1, < 2", "1.5.0", true),
            (">= 1.1 < 2", "2.0.0", false),
            ("1.1 - 2", "2.0.5", true),
            ("<1.18 || >=1.20", "1.19.0", false),
            ("<1.18 || >=1.20", "1.21.0", true),
            ("!=1.2.3", "1.2.3", false),
            ("^0.2.3", "0.2.9", true),
            ("^0.2.3", "0.3.0", false),
            ("<=1.2", "1.2.9", true),
            ("<=1.2", "1.3.0", false),
            (">1.2", "1.2.5", false),
            (">1.2", "1.3.0", true),
        ];
        for (c, v, want) in cases {
            assert_eq!(is_compatible_range(c, v), want, "{c} vs {v}");
        }
    }

    #[test]
    fn versions_coerce_like_helm() {
        assert_eq!(Version::parse("v1.2").unwrap().to_string(), "1.2.0");
        assert_eq!(Version::parse("01.2.3").unwrap().to_string(), "1.2.3");
        assert!(Version::parse("1.2.3.4").is_err());
        assert!(Version::parse("1.0.0-01").is_err());
        assert!(Version::parse("latest").is_err());
    }
}
