//! Sprig's `semver` and `semverCompare` with Masterminds/semver v3 (v3.5, the version Helm
//! links) semantics: lenient version parsing (`v1.2`, `1`, coerced), constraint groups joined by
//! `||` and `,`/spaces, `^ ~ ~> x X *` wildcards, hyphen ranges, and the rule that prereleases
//! only satisfy constraints that mention a prerelease (so `>=1.19.0-0` accepts
//! `v1.29.3-gke.1200`).

use std::sync::{Arc, LazyLock};

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{GoObject, Value};
use regex::Regex;

use crate::args::s;
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("semver", [String], |a| Version::parse(s(a, 0))
            .map(|v| Value::Object(Arc::new(v)))),
        f!("semverCompare", [String, String], |a| semver_compare(
            s(a, 0),
            s(a, 1)
        )),
    ]
}

fn semver_compare(constraint: &str, version: &str) -> FuncResult {
    let c = Constraints::parse(constraint)?;
    let v = Version::parse(version)?;
    Ok(c.check(&v).into())
}

const LOOSE: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

static LOOSE_RE: LazyLock<Regex> =
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

/// A Masterminds `*semver.Version`.
#[derive(Debug, Clone)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
    original: String,
}

const ALLOWED: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

fn valid_prerelease(p: &str) -> Result<(), String> {
    for part in p.split('.') {
        if part.is_empty() {
            return Err("invalid prerelease string".into());
        } else if part.bytes().all(|b| b.is_ascii_digit()) {
            if part.len() > 1 && part.starts_with('0') {
                return Err("version segment starts with 0".into());
            }
        } else if !part.chars().all(|c| ALLOWED.contains(c)) {
            return Err("invalid prerelease string".into());
        }
    }
    Ok(())
}

fn valid_metadata(m: &str) -> Result<(), String> {
    for part in m.split('.') {
        if part.is_empty() || !part.chars().all(|c| ALLOWED.contains(c)) {
            return Err("invalid metadata string".into());
        }
    }
    Ok(())
}

fn seg(s: &str) -> Result<u64, String> {
    let t = s.trim_start_matches('.');
    t.parse::<u64>().map_err(|_| {
        format!(
            "error parsing version segment: strconv.ParseUint: parsing {}: value out of range",
            crate::gofmt::quote(t)
        )
    })
}

impl Version {
    /// `semver.NewVersion` (coercing, as `CoerceNewVersion` is on by default).
    pub fn parse(v: &str) -> Result<Version, String> {
        if v.len() > 256 {
            return Err("version string is too long (max 256 bytes)".into());
        }
        let m = LOOSE_RE.captures(v).ok_or("invalid semantic version")?;
        let g = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
        let ver = Version {
            major: seg(g(1))?,
            minor: if g(2).is_empty() { 0 } else { seg(g(2))? },
            patch: if g(3).is_empty() { 0 } else { seg(g(3))? },
            pre: g(5).to_string(),
            metadata: g(8).to_string(),
            original: v.to_string(),
        };
        if !ver.pre.is_empty() {
            valid_prerelease(&ver.pre)?;
        }
        if !ver.metadata.is_empty() {
            valid_metadata(&ver.metadata)?;
        }
        Ok(ver)
    }

    fn string(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            s.push('-');
            s.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            s.push('+');
            s.push_str(&self.metadata);
        }
        s
    }

    fn compare(&self, o: &Version) -> i32 {
        for (a, b) in [
            (self.major, o.major),
            (self.minor, o.minor),
            (self.patch, o.patch),
        ] {
            if a != b {
                return if a < b { -1 } else { 1 };
            }
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => -1,
            _ => compare_prerelease(&self.pre, &o.pre),
        }
    }
}

fn compare_prerelease(a: &str, b: &str) -> i32 {
    let sp: Vec<&str> = a.split('.').collect();
    let op: Vec<&str> = b.split('.').collect();
    for i in 0..sp.len().max(op.len()) {
        let d = compare_pre_part(
            sp.get(i).copied().unwrap_or(""),
            op.get(i).copied().unwrap_or(""),
        );
        if d != 0 {
            return d;
        }
    }
    0
}

fn compare_pre_part(s: &str, o: &str) -> i32 {
    if s == o {
        return 0;
    }
    if s.is_empty() {
        return -1;
    }
    if o.is_empty() {
        return 1;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                1
            } else {
                -1
            }
        }
        (Ok(_), Err(_)) => -1,
        (Err(_), Ok(_)) => 1,
        (Ok(si), Ok(oi)) => {
            if si > oi {
                1
            } else {
                -1
            }
        }
    }
}

impl GoObject for Version {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }
    fn kind(&self) -> &str {
        "ptr"
    }
    fn field(&self, name: &str) -> Option<Value> {
        Some(match name {
            "Major" => Value::Uint(self.major),
            "Minor" => Value::Uint(self.minor),
            "Patch" => Value::Uint(self.patch),
            "Prerelease" => self.pre.as_str().into(),
            "Metadata" => self.metadata.as_str().into(),
            "Original" => self.original.as_str().into(),
            "String" => self.string().into(),
            "IncMajor" | "IncMinor" | "IncPatch" => {
                let mut n = self.clone();
                n.metadata.clear();
                match name {
                    "IncMajor" => {
                        n.pre.clear();
                        n.major += 1;
                        n.minor = 0;
                        n.patch = 0;
                    }
                    "IncMinor" => {
                        n.pre.clear();
                        n.minor += 1;
                        n.patch = 0;
                    }
                    _ => {
                        if self.pre.is_empty() {
                            n.patch += 1;
                        }
                        n.pre.clear();
                    }
                }
                n.original = format!(
                    "{}{}",
                    if self.original.starts_with('v') {
                        "v"
                    } else {
                        ""
                    },
                    n.string()
                );
                Value::Object(Arc::new(n))
            }
            _ => return None,
        })
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(
            name,
            "Compare" | "LessThan" | "GreaterThan" | "Equal" | "LessThanEqual" | "GreaterThanEqual"
        )
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let other = match args.first() {
            Some(Value::Object(o)) if o.type_name() == "*semver.Version" => {
                match o.field("Original") {
                    Some(Value::String(s)) => Version::parse(&s)?,
                    _ => return Err("invalid semantic version".into()),
                }
            }
            Some(v) => {
                return Err(format!(
                    "wrong type for value; expected *semver.Version; got {}",
                    v.type_name()
                ));
            }
            None => return Err(format!("wrong number of args for {name}: want 1 got 0")),
        };
        let c = self.compare(&other);
        Ok(match name {
            "Compare" => Value::Int(i64::from(c)),
            "LessThan" => (c < 0).into(),
            "GreaterThan" => (c > 0).into(),
            "Equal" => (c == 0).into(),
            "LessThanEqual" => (c <= 0).into(),
            _ => (c >= 0).into(),
        })
    }
    fn format_v(&self) -> String {
        self.string()
    }
    fn to_plain(&self) -> Value {
        self.string().into()
    }
}

#[derive(Debug, Clone)]
struct Constraint {
    con: Version,
    op: String,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "*" | "X")
}

impl Constraint {
    fn parse(c: &str) -> Result<Constraint, String> {
        let m = CONSTRAINT_RE
            .captures(c)
            .ok_or_else(|| format!("improper constraint: {}", crate::gofmt::quote(c)))?;
        let g = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
        // Groups: 1 op, 2 version, 3 major, 4 .minor, 5 .patch, 6 -pre (with dash), …
        let (major, minor, patch, pre) = (g(3), g(4), g(5), g(6));
        let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
        let ver = if is_x(major) || major.is_empty() {
            dirty = true;
            format!("0.0.0{pre}")
        } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
            minor_dirty = true;
            dirty = true;
            format!("{major}.0.0{pre}")
        } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
            dirty = true;
            patch_dirty = true;
            format!("{major}{minor}.0{pre}")
        } else {
            g(2).to_string()
        };
        let con = Version::parse(&ver).map_err(|_| "constraint parser error".to_string())?;
        let mut con = con;
        con.original = g(2).to_string();
        Ok(Constraint {
            con,
            op: g(1).to_string(),
            minor_dirty,
            patch_dirty,
            dirty,
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
                    v.compare(c) == 0
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
                            return compare_prerelease(&v.pre, &c.pre) != 0;
                        }
                        return false;
                    }
                }
                v.compare(c) != 0
            }
            ">" => {
                if !self.dirty {
                    return v.compare(c) == 1;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v.compare(c) == 1
                }
            }
            "<" => v.compare(c) < 0,
            ">=" | "=>" => v.compare(c) >= 0,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.compare(c) <= 0;
                }
                !(v.major > c.major || v.major == c.major && v.minor > c.minor && !self.minor_dirty)
            }
            "~" | "~>" => self.tilde(v),
            "^" => {
                if v.compare(c) < 0 {
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
        if v.compare(c) < 0 {
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

struct Constraints {
    groups: Vec<(Vec<Constraint>, bool)>,
}

impl Constraints {
    fn parse(c: &str) -> Result<Constraints, String> {
        if c.len() > 512 {
            return Err("constraint string is too long (max 512 bytes)".into());
        }
        let c = rewrite_range(c);
        let ors: Vec<&str> = c.split("||").collect();
        if ors.len() > 32 {
            return Err("too many constraint groups (max 32)".into());
        }
        let mut groups = Vec::new();
        for v in ors {
            if !VALID_RE.is_match(v) {
                return Err(format!("improper constraint: {}", crate::gofmt::quote(v)));
            }
            let mut cs: Vec<&str> = FIND_RE.find_iter(v).map(|m| m.as_str()).collect();
            if cs.is_empty() {
                cs.push(v);
            }
            let mut result = Vec::new();
            let mut has_pre = false;
            for s in cs {
                let pc = Constraint::parse(s)?;
                if !pc.con.pre.is_empty() {
                    has_pre = true;
                }
                result.push(pc);
            }
            groups.push((result, has_pre));
        }
        Ok(Constraints { groups })
    }

    fn check(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|(cs, pre)| cs.iter().all(|c| c.check(v, *pre)))
    }
}

fn rewrite_range(i: &str) -> String {
    let mut o = i.to_string();
    for m in RANGE_RE.captures_iter(i) {
        let whole = m.get(0).map(|x| x.as_str()).unwrap_or("");
        let a = m.get(1).map(|x| x.as_str()).unwrap_or("");
        let b = m.get(11).map(|x| x.as_str()).unwrap_or("");
        o = o.replacen(whole, &format!(">= {a}, <= {b} "), 1);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(c: &str, v: &str) -> bool {
        matches!(semver_compare(c, v), Ok(Value::Bool(true)))
    }

    // Expectations from Masterminds/semver's README and constraints_test.go.
    #[test]
    fn constraints_follow_masterminds() {
        assert!(cmp(">=1.19.0-0", "v1.29.3-gke.1200"));
        assert!(!cmp(">=1.19.0", "v1.29.3-gke.1200"));
        assert!(cmp("^1.2.3", "1.9.0"));
        assert!(!cmp("^1.2.3", "2.0.0"));
        assert!(cmp("~1.2.3", "1.2.9"));
        assert!(!cmp("~1.2.3", "1.3.0"));
        assert!(cmp("1.2 - 1.4.5", "1.3.0"));
        assert!(!cmp("1.2 - 1.4.5", "1.4.6"));
        assert!(cmp("1.2.x", "1.2.7"));
        assert!(cmp(">= 1.2, < 3.0.0 || >= 4.2.3", "4.5.0"));
        assert!(!cmp(">= 1.2, < 3.0.0 || >= 4.2.3", "3.5.0"));
        assert!(cmp("^0.2.3", "0.2.9"));
        assert!(!cmp("^0.2.3", "0.3.0"));
        assert!(cmp("!=1.2.3", "1.2.4"));
        assert!(cmp("*", "1.2.3"));
        assert_eq!(
            semver_compare("1.2.3", "abc").unwrap_err(),
            "invalid semantic version"
        );
        assert_eq!(
            semver_compare("bad!", "1.0.0").unwrap_err(),
            "improper constraint: \"bad!\""
        );
    }

    #[test]
    fn version_fields() {
        let v = Version::parse("v1.2.3-beta.1+build").unwrap();
        assert_eq!(v.field("Major"), Some(Value::Uint(1)));
        assert_eq!(v.field("Prerelease"), Some(Value::str("beta.1")));
        assert_eq!(v.format_v(), "1.2.3-beta.1+build");
    }
}
