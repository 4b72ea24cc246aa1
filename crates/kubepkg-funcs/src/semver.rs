//! Sprig's `semver` and `semverCompare` over [`kubepkg_semver`] (Masterminds/semver v3, shared
//! with chart loading): `semver` returns a `*semver.Version` with its fields (`Major`,
//! `Prerelease`, …) and methods (`Compare`, `LessThan`, `IncMinor`, …); `semverCompare` checks a
//! constraint, with the rule that prereleases only satisfy constraints that name one (so
//! `>=1.19.0-0` accepts `v1.29.3-gke.1200`).

use std::cmp::Ordering;
use std::sync::Arc;

use kubepkg_semver::{Constraints, Part, Version};
use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{GoObject, Value};

use crate::args::s;
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("semver", [String], |a| Version::parse(s(a, 0))
            .map(|v| Value::Object(Arc::new(SemverVersion(v))))
            .map_err(|e| e.to_string())),
        f!("semverCompare", [String, String], |a| semver_compare(
            s(a, 0),
            s(a, 1)
        )),
    ]
}

/// `semverCompare`: whether `version` satisfies `constraint`. A chart asks the same few
/// questions (`>=1.19.0-0` of the cluster's version) from helpers included many times, and
/// parsing a constraint is the costly part, so each thread keeps the answers it gave (at most
/// [`COMPARES_KEPT`]; then it starts over).
fn semver_compare(constraint: &str, version: &str) -> FuncResult {
    /// Per constraint, the versions asked about and the answers.
    type Answers = std::collections::HashMap<Box<str>, Vec<(Box<str>, Result<bool, String>)>>;
    thread_local! {
        static ANSWERS: std::cell::RefCell<(Answers, usize)> = std::cell::RefCell::default();
    }
    let kept = ANSWERS.with(|a| {
        let a = a.borrow();
        let versions = a.0.get(constraint)?;
        versions
            .iter()
            .find(|(v, _)| **v == *version)
            .map(|(_, answer)| answer.clone())
    });
    if let Some(answer) = kept {
        return Ok(answer?.into());
    }
    let answer = Constraints::parse(constraint)
        .map_err(|e| e.to_string())
        .and_then(|c| {
            let v = Version::parse(version).map_err(|e| e.to_string())?;
            Ok(c.check(&v))
        });
    ANSWERS.with(|a| {
        let (answers, count) = &mut *a.borrow_mut();
        if *count >= COMPARES_KEPT {
            answers.clear();
            *count = 0;
        }
        answers
            .entry(Box::from(constraint))
            .or_default()
            .push((Box::from(version), answer.clone()));
        *count += 1;
    });
    Ok(answer?.into())
}

/// How many `semverCompare` answers a thread keeps.
const COMPARES_KEPT: usize = 1024;

/// Masterminds' `*semver.Version` as templates see it.
#[derive(Debug, Clone)]
struct SemverVersion(Version);

impl GoObject for SemverVersion {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }
    fn field(&self, name: &str) -> Option<Value> {
        let v = &self.0;
        let inc = |p: Part| Value::Object(Arc::new(SemverVersion(v.increment(p))));
        Some(match name {
            "Major" => Value::Uint(v.major),
            "Minor" => Value::Uint(v.minor),
            "Patch" => Value::Uint(v.patch),
            "Prerelease" => v.pre.as_str().into(),
            "Metadata" => v.metadata.as_str().into(),
            "Original" => v.original.as_str().into(),
            "String" => v.to_string().into(),
            "IncMajor" => inc(Part::Major),
            "IncMinor" => inc(Part::Minor),
            "IncPatch" => inc(Part::Patch),
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
                    Some(Value::String(s)) => Version::parse(&s).map_err(|e| e.to_string())?,
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
        let c = self.0.compare(&other);
        Ok(match name {
            "Compare" => Value::Int(match c {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }),
            "LessThan" => (c == Ordering::Less).into(),
            "GreaterThan" => (c == Ordering::Greater).into(),
            "Equal" => (c == Ordering::Equal).into(),
            "LessThanEqual" => (c != Ordering::Greater).into(),
            _ => (c != Ordering::Less).into(),
        })
    }
    fn format_v(&self) -> String {
        self.0.to_string()
    }
    fn to_plain(&self) -> Value {
        self.0.to_string().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(c: &str, v: &str) -> bool {
        matches!(semver_compare(c, v), Ok(Value::Bool(true)))
    }

    #[test]
    fn semver_compare_reports_masterminds_errors() {
        assert!(cmp(">=1.19.0-0", "v1.29.3-gke.1200"));
        assert!(!cmp(">=1.19.0", "v1.29.3-gke.1200"));
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
    fn a_kept_answer_is_the_answer() {
        // Asked again (answered from the thread's answers), and after they start over.
        for _ in 0..2 {
            assert!(cmp(">=1.19.0-0", "v1.29.3-gke.1200"));
            assert!(!cmp(">=1.19.0", "v1.29.3-gke.1200"));
            assert!(!cmp(">=1.19.0-0", "v1.18.0"));
            assert_eq!(
                semver_compare("bad!", "1.0.0").unwrap_err(),
                "improper constraint: \"bad!\""
            );
            assert_eq!(
                semver_compare("1.2.3", "abc").unwrap_err(),
                "invalid semantic version"
            );
        }
        for i in 0..=COMPARES_KEPT {
            assert!(cmp(">=1.0.0", &format!("1.{i}.0")));
        }
        assert!(cmp(">=1.19.0-0", "v1.29.3-gke.1200"));
        assert!(!cmp(">=1.19.0-0", "v1.18.0"));
    }

    #[test]
    fn version_fields() {
        let v = SemverVersion(Version::parse("v1.2.3-beta.1+build").unwrap());
        assert_eq!(v.field("Major"), Some(Value::Uint(1)));
        assert_eq!(v.field("Prerelease"), Some(Value::str("beta.1")));
        assert_eq!(v.format_v(), "1.2.3-beta.1+build");
    }
}
