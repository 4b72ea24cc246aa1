//! Semantic versions and version constraints exactly as Helm checks them: a port of
//! Masterminds/semver v3 (v3.5, the version Helm links), used for `Chart.yaml` versions,
//! `kubeVersion` and dependency ranges (kubepkg-chart), package requirements (kubepkg-package)
//! and Sprig's `semver`/`semverCompare` (kubepkg-funcs).
//!
//! - [`Version::parse`] is `semver.NewVersion` in its default coercing mode: `v1`, `1.2` and
//!   `01.2.3` read as `1.0.0`, `1.2.0` and `1.2.3`; prerelease and build identifiers are checked
//!   strictly.
//! - [`Constraints::parse`] is `semver.NewConstraint`: `||` alternatives of `,`/space separated
//!   comparisons, the operators `= != > < >= => <= =< ~ ~> ^`, wildcards `x X *`, hyphen ranges
//!   `1.2 - 1.4`; [`Constraints::check`] applies the rule that a prerelease version only
//!   satisfies an alternative that itself names a prerelease (so `>=1.19.0-0` accepts
//!   `v1.29.3-gke.1200` and `>=1.19.0` does not).
//! - [`Version::parse_strict`] is SemVer 2 exactly (semver.org's grammar, no `v`, no
//!   coercion): a package's own version (`kubepkg.yaml` `package.version`), ordered by
//!   precedence ([`Ord`]); its errors say what is wrong and where.
//! - Errors ([`SemverError`]) print Masterminds' texts, which templates see through Sprig.
//!
//! Limits are Masterminds': versions of at most 256 bytes, constraints of at most 512 bytes and
//! 32 alternatives.

#![forbid(unsafe_code)]

mod grammar;

use std::cmp::Ordering;
use std::fmt;

/// Why a version or constraint does not parse; the texts are Masterminds'.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SemverError {
    /// Not a version at all (`latest`, `1.2.3.4`).
    #[error("invalid semantic version")]
    Invalid,
    /// A prerelease identifier with characters other than `[0-9A-Za-z-]`, or empty.
    #[error("invalid prerelease string")]
    Prerelease,
    /// A numeric prerelease identifier with a leading zero (`1.0.0-01`).
    #[error("version segment starts with 0")]
    SegmentStartsZero,
    /// A build metadata identifier with characters other than `[0-9A-Za-z-]`, or empty.
    #[error("invalid metadata string")]
    Metadata,
    /// A version longer than 256 bytes.
    #[error("version string is too long (max 256 bytes)")]
    TooLong,
    /// A major, minor or patch number beyond `u64`.
    #[error("error parsing version segment: strconv.ParseUint: parsing {}: value out of range", kubepkg_gostd::strconv::quote(.0))]
    SegmentOutOfRange(String),
    /// A constraint alternative that is not a list of comparisons (the text as written).
    #[error("improper constraint: {}", kubepkg_gostd::strconv::quote(.0))]
    Constraint(String),
    /// A comparison whose version does not parse.
    #[error("constraint parser error")]
    ConstraintVersion,
    /// A constraint longer than 512 bytes.
    #[error("constraint string is too long (max 512 bytes)")]
    ConstraintTooLong,
    /// More than 32 `||` alternatives.
    #[error("too many constraint groups (max 32)")]
    TooManyGroups,
    /// Not strict SemVer 2 ([`Version::parse_strict`]): what is wrong and where, e.g.
    /// `unexpected character 'o' while parsing major version number`.
    #[error("{0}")]
    NotStrict(String),
}

/// A parsed semantic version (Masterminds' `*semver.Version`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// The prerelease identifiers without the `-` (empty when none).
    pub pre: String,
    /// The build metadata without the `+` (empty when none).
    pub metadata: String,
    /// The text it was parsed from.
    pub original: String,
}

fn identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn segment(s: &str) -> Result<u64, SemverError> {
    let t = s.trim_start_matches('.');
    t.parse()
        .map_err(|_| SemverError::SegmentOutOfRange(t.to_string()))
}

impl Version {
    /// `MAJOR.MINOR.PATCH` with no prerelease or build metadata.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: String::new(),
            metadata: String::new(),
            original: format!("{major}.{minor}.{patch}"),
        }
    }

    /// Strict SemVer 2 (semver.org): `MAJOR.MINOR.PATCH`, each a number without a leading zero,
    /// then an optional `-PRERELEASE` (dot-separated identifiers of `[0-9A-Za-z-]`, numeric ones
    /// without a leading zero) and `+BUILD` (dot-separated identifiers of `[0-9A-Za-z-]`). No
    /// `v` prefix and no coercion: what a package's own version must be. The error says what is
    /// wrong and where ([`SemverError::NotStrict`]).
    pub fn parse_strict(v: &str) -> Result<Version, SemverError> {
        let bad = |why: String| SemverError::NotStrict(why);
        if v.is_empty() {
            return Err(bad("empty string, expected a semver version".into()));
        }
        let mut parts = [0u64; 3];
        let mut left = v;
        for (i, name) in ["major", "minor", "patch"].iter().enumerate() {
            let end = left
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(left.len());
            let (digits, after) = left.split_at(end);
            if digits.is_empty() {
                return Err(bad(match after.chars().next() {
                    Some(c) => {
                        format!("unexpected character {c:?} while parsing {name} version number")
                    }
                    None => format!("unexpected end of input while parsing {name} version number"),
                }));
            }
            if digits.len() > 1 && digits.starts_with('0') {
                return Err(bad(format!(
                    "invalid leading zero in {name} version number"
                )));
            }
            parts[i] = digits
                .parse()
                .map_err(|_| bad(format!("value of {name} version number exceeds u64::MAX")))?;
            left = after;
            if i < 2 {
                left = match (after.strip_prefix('.'), after.chars().next()) {
                    (Some(next), _) => next,
                    (None, Some(c)) => {
                        return Err(bad(format!(
                            "unexpected character {c:?} after {name} version number"
                        )));
                    }
                    (None, None) => {
                        return Err(bad(format!(
                            "unexpected end of input while parsing {name} version number"
                        )));
                    }
                };
            }
        }
        // What follows the patch number: `-PRERELEASE`, then `+BUILD`, then nothing.
        let mut pre = "";
        let mut metadata = "";
        let mut after = "patch version number";
        for (mark, what, slot) in [
            ('-', "pre-release identifier", &mut pre),
            ('+', "build metadata", &mut metadata),
        ] {
            let Some(text) = left.strip_prefix(mark) else {
                continue;
            };
            let end = if mark == '-' {
                text.find('+').unwrap_or(text.len())
            } else {
                text.len()
            };
            let (ids, rest) = text.split_at(end);
            for id in ids.split('.') {
                if id.is_empty() {
                    return Err(bad(format!("empty identifier segment in {what}")));
                }
                if let Some(c) = id.chars().find(|c| !identifier_char(*c)) {
                    return Err(bad(format!("unexpected character {c:?} after {what}")));
                }
                if mark == '-'
                    && id.len() > 1
                    && id.starts_with('0')
                    && id.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(bad(format!("invalid leading zero in {what}")));
                }
            }
            *slot = ids;
            after = what;
            left = rest;
        }
        if let Some(c) = left.chars().next() {
            return Err(bad(format!("unexpected character {c:?} after {after}")));
        }
        Ok(Version {
            major: parts[0],
            minor: parts[1],
            patch: parts[2],
            pre: pre.to_string(),
            metadata: metadata.to_string(),
            original: v.to_string(),
        })
    }

    /// `semver.NewVersion` (coercing, as Masterminds' `CoerceNewVersion` is on by default).
    pub fn parse(v: &str) -> Result<Version, SemverError> {
        if v.len() > 256 {
            return Err(SemverError::TooLong);
        }
        let m = grammar::version(v).ok_or(SemverError::Invalid)?;
        let part = |r: &std::ops::Range<usize>| &v[r.clone()];
        let number = |r: &std::ops::Range<usize>| match part(r) {
            "" => Ok(0),
            n => segment(n),
        };
        let ver = Version {
            major: number(&m.major)?,
            minor: number(&m.minor)?,
            patch: number(&m.patch)?,
            pre: part(&m.pre).get(1..).unwrap_or_default().to_string(),
            metadata: part(&m.build).get(1..).unwrap_or_default().to_string(),
            original: v.to_string(),
        };
        if !ver.pre.is_empty() {
            for part in ver.pre.split('.') {
                if part.is_empty() {
                    return Err(SemverError::Prerelease);
                } else if part.bytes().all(|b| b.is_ascii_digit()) {
                    if part.len() > 1 && part.starts_with('0') {
                        return Err(SemverError::SegmentStartsZero);
                    }
                } else if !part.chars().all(identifier_char) {
                    return Err(SemverError::Prerelease);
                }
            }
        }
        if !ver.metadata.is_empty()
            && ver
                .metadata
                .split('.')
                .any(|p| p.is_empty() || !p.chars().all(identifier_char))
        {
            return Err(SemverError::Metadata);
        }
        Ok(ver)
    }

    /// `Version.Compare`: precedence by major, minor, patch, then prerelease (a version without
    /// one is greater); build metadata is ignored.
    pub fn compare(&self, o: &Version) -> Ordering {
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

    /// `IncMajor`, `IncMinor`, `IncPatch`: the next version of that kind (metadata and
    /// prerelease dropped; a prerelease's patch increment only drops the prerelease), with the
    /// original text rebuilt keeping a leading `v`.
    pub fn increment(&self, part: Part) -> Version {
        let mut n = self.clone();
        n.metadata.clear();
        match part {
            Part::Major => {
                n.major += 1;
                n.minor = 0;
                n.patch = 0;
            }
            Part::Minor => {
                n.minor += 1;
                n.patch = 0;
            }
            Part::Patch => {
                if self.pre.is_empty() {
                    n.patch += 1;
                }
            }
        }
        n.pre.clear();
        let v = if self.original.starts_with('v') {
            "v"
        } else {
            ""
        };
        n.original = format!("{v}{n}");
        n
    }
}

/// Precedence ([`Version::compare`]), then build metadata and the text as written, so that
/// the order agrees with equality.
impl Ord for Version {
    fn cmp(&self, o: &Version) -> Ordering {
        self.compare(o)
            .then_with(|| self.metadata.cmp(&o.metadata))
            .then_with(|| self.original.cmp(&o.original))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, o: &Version) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Which number [`Version::increment`] raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Major,
    Minor,
    Patch,
}

/// `Version.String`: `MAJOR.MINOR.PATCH[-PRE][+META]` (the coerced form).
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
        let d = compare_pre_part(
            ap.get(i).copied().unwrap_or(""),
            bp.get(i).copied().unwrap_or(""),
        );
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

/// One comparison of a constraint (`>= 1.2`, `~1.4.x`).
#[derive(Debug, Clone)]
struct Comparison {
    op: String,
    con: Version,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

impl Comparison {
    /// The comparison `c` spans in `alternative` (`parseConstraint`).
    fn new(alternative: &str, c: &grammar::ComparisonSpans) -> Result<Comparison, SemverError> {
        let part = |r: &std::ops::Range<usize>| &alternative[r.clone()];
        let m = &c.version;
        let (major, minor, patch, pre) =
            (part(&m.major), part(&m.minor), part(&m.patch), part(&m.pre));
        let (ver, dirty, minor_dirty, patch_dirty) = if is_x(major) {
            (format!("0.0.0{pre}"), true, false, false)
        } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
            (format!("{major}.0.0{pre}"), true, true, false)
        } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
            (format!("{major}{minor}.0{pre}"), true, false, true)
        } else {
            (part(&m.whole).to_string(), false, false, false)
        };
        let mut con = Version::parse(&ver).map_err(|_| SemverError::ConstraintVersion)?;
        con.original = part(&m.whole).to_string();
        Ok(Comparison {
            op: part(&c.op).to_string(),
            con,
            dirty,
            minor_dirty,
            patch_dirty,
        })
    }

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
                    v.compare(c) == Ordering::Equal
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
                v.compare(c) != Ordering::Equal
            }
            ">" => {
                if !self.dirty {
                    return v.compare(c) == Ordering::Greater;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v.compare(c) == Ordering::Greater
                }
            }
            "<" => v.compare(c) == Ordering::Less,
            ">=" | "=>" => v.compare(c) != Ordering::Less,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.compare(c) != Ordering::Greater;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            "~" | "~>" => self.tilde(v),
            "^" => {
                if v.compare(c) == Ordering::Less {
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
        if v.compare(c) == Ordering::Less {
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

/// A parsed constraint such as `>= 1.20.0-0, < 1.30` or `^2 || ~1.4`.
#[derive(Debug, Clone)]
pub struct Constraints {
    /// The `||` alternatives: their comparisons, and whether one of them names a prerelease.
    groups: Vec<(Vec<Comparison>, bool)>,
}

impl Constraints {
    /// `semver.NewConstraint`.
    pub fn parse(c: &str) -> Result<Constraints, SemverError> {
        if c.len() > 512 {
            return Err(SemverError::ConstraintTooLong);
        }
        // Hyphen ranges become `>= lo, <= hi`.
        let mut rewritten = c.to_string();
        for r in grammar::hyphen_ranges(c) {
            let (lo, hi) = (&c[r.low], &c[r.high]);
            rewritten = rewritten.replacen(&c[r.whole], &format!(">= {lo}, <= {hi} "), 1);
        }
        let ors: Vec<&str> = rewritten.split("||").collect();
        if ors.len() > 32 {
            return Err(SemverError::TooManyGroups);
        }
        let mut groups = Vec::with_capacity(ors.len());
        for v in ors {
            let found =
                grammar::comparisons(v).ok_or_else(|| SemverError::Constraint(v.to_string()))?;
            let mut cs = Vec::with_capacity(found.len());
            let mut has_pre = false;
            for c in &found {
                let pc = Comparison::new(v, c)?;
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

/// Masterminds' `StrictNewVersion` accepts `v` (what Helm asks of a plugin's version and of a
/// chart archive's or tag's): exactly `MAJOR.MINOR.PATCH`, then an optional pre-release and
/// build as [`Version::parse`] checks them.
pub fn is_strict_new_version(v: &str) -> bool {
    has_strict_core(v) && Version::parse(v).is_ok()
}

/// `v` up to its pre-release or build is exactly `MAJOR.MINOR.PATCH`: three numbers without
/// leading zeros, no `v` (the shape [`is_strict_new_version`] asks for first).
pub fn has_strict_core(v: &str) -> bool {
    let core = v.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_lite::Regex;

    #[test]
    fn strict_new_version_asks_three_plain_numbers_then_what_parse_accepts() {
        for (v, core, strict) in [
            ("1.2.3", true, true),
            ("0.1.0-rc.1+b.5", true, true),
            ("v1.2.3", false, false),
            ("1.2", false, false),
            ("01.2.3", false, false),
            ("1.2.3-01", true, false),
            ("1.2.3-", true, false),
        ] {
            assert_eq!(
                (has_strict_core(v), is_strict_new_version(v)),
                (core, strict),
                "{v}"
            );
        }
    }

    /// semver.org's own expression for a SemVer 2 version (the oracle of `parse_strict`).
    const SEMVER_ORG: &str = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";

    #[test]
    fn strict_parsing_accepts_exactly_what_semver_org_does() {
        let oracle = Regex::new(SEMVER_ORG).unwrap();
        let cases = [
            "0.0.4",
            "1.2.3",
            "10.20.30",
            "1.1.2-prerelease+meta",
            "1.1.2+meta",
            "1.1.2+meta-valid",
            "1.0.0-alpha",
            "1.0.0-beta",
            "1.0.0-alpha.beta",
            "1.0.0-alpha.beta.1",
            "1.0.0-alpha.1",
            "1.0.0-alpha0.valid",
            "1.0.0-alpha.0valid",
            "1.0.0-rc.1+build.1",
            "2.0.0-rc.1+build.123",
            "1.2.3-beta",
            "10.2.3-DEV-SNAPSHOT",
            "1.2.3-SNAPSHOT-123",
            "2.0.0+build.1848",
            "2.0.1-alpha.1227",
            "1.0.0-alpha+beta",
            "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
            "1.2.3----R-S.12.9.1--.12+meta",
            "1.0.0+0.build.1-rc.10000aaa-kk-0.1",
            "1.0.0-0A.is.legal",
            "1",
            "1.2",
            "1.2.3-0123",
            "1.2.3-0123.0123",
            "1.1.2+.123",
            "+invalid",
            "-invalid",
            "-invalid+invalid",
            "-invalid.01",
            "alpha",
            "alpha.beta",
            "alpha.beta.1",
            "alpha.1",
            "alpha+beta",
            "alpha_beta",
            "alpha.",
            "alpha..",
            "beta",
            "1.0.0-alpha_beta",
            "-alpha.",
            "1.0.0-alpha..",
            "1.0.0-alpha..1",
            "1.0.0-alpha...1",
            "01.1.1",
            "1.01.1",
            "1.1.01",
            "1.2.3.DEV",
            "1.2-SNAPSHOT",
            "1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788",
            "v1.2.3",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-+",
            "1.2.3 ",
            " 1.2.3",
            "",
            "1.2.3-a+b+c",
            "9.8.7+meta+meta",
            "99999999999999999999999.999999999999999999.99999999999999999",
        ];
        for case in cases {
            let want = oracle.is_match(case) && !case.starts_with("99999999999999999999999");
            let got = Version::parse_strict(case);
            assert_eq!(got.is_ok(), want, "{case:?}: {got:?}");
            if let Ok(v) = got {
                assert_eq!(v.to_string(), case, "{case:?} prints as written");
            }
        }
    }

    #[test]
    fn strict_parsing_says_what_is_wrong_and_where() {
        let why = |v: &str| Version::parse_strict(v).unwrap_err().to_string();
        assert_eq!(
            why("one"),
            "unexpected character 'o' while parsing major version number"
        );
        assert_eq!(
            why("1.4"),
            "unexpected end of input while parsing minor version number"
        );
        assert_eq!(
            why("v1.4.0"),
            "unexpected character 'v' while parsing major version number"
        );
        assert_eq!(
            why("01.4.0"),
            "invalid leading zero in major version number"
        );
        assert_eq!(
            why("1.4.0-01"),
            "invalid leading zero in pre-release identifier"
        );
        assert_eq!(
            why("1.4.0+a..b"),
            "empty identifier segment in build metadata"
        );
        assert_eq!(why(""), "empty string, expected a semver version");
    }

    /// semver.org §11's example of precedence, in order.
    #[test]
    fn versions_order_by_precedence_then_build_metadata() {
        let ordered = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.0+build.1",
            "1.0.0+build.2",
            "2.0.0",
            "2.1.0",
            "2.1.1",
        ];
        let parsed: Vec<Version> = ordered
            .iter()
            .map(|v| Version::parse_strict(v).unwrap())
            .collect();
        for pair in parsed.windows(2) {
            assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(
            Version::new(1, 4, 0),
            Version::parse_strict("1.4.0").unwrap()
        );
    }

    // Expectations from Masterminds/semver v3's README and constraints_test.go.
    #[test]
    fn constraints_match_masterminds() {
        let cases = [
            (">=1.20.0-0", "v1.20.0", true),
            (">=1.20.0", "v1.20.0-gke.1", false),
            (">=1.19.0-0", "v1.29.3-gke.1200", true),
            (">=1.19.0", "v1.29.3-gke.1200", false),
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
            ("1.2 - 1.4.5", "1.4.6", false),
            ("<1.18 || >=1.20", "1.19.0", false),
            ("<1.18 || >=1.20", "1.21.0", true),
            ("!=1.2.3", "1.2.3", false),
            ("!=1.2.3", "1.2.4", true),
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
        assert_eq!(Version::parse("1.2.3.4"), Err(SemverError::Invalid));
        assert_eq!(
            Version::parse("1.0.0-01"),
            Err(SemverError::SegmentStartsZero)
        );
        assert_eq!(Version::parse("latest"), Err(SemverError::Invalid));
    }

    #[test]
    fn errors_print_masterminds_texts() {
        assert_eq!(
            Constraints::parse("bad!").unwrap_err().to_string(),
            "improper constraint: \"bad!\""
        );
        assert_eq!(
            Version::parse("99999999999999999999.0.0")
                .unwrap_err()
                .to_string(),
            "error parsing version segment: strconv.ParseUint: parsing \"99999999999999999999\": value out of range"
        );
    }

    #[test]
    fn increments_keep_the_v() {
        let v = Version::parse("v1.2.3-rc.1+b").unwrap();
        assert_eq!(v.increment(Part::Patch).original, "v1.2.3");
        assert_eq!(v.increment(Part::Minor).original, "v1.3.0");
        assert_eq!(v.increment(Part::Major).to_string(), "2.0.0");
    }
}
