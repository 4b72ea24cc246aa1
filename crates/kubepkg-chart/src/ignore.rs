//! `.helmignore`: which files of a chart directory are left out when it is loaded.
//!
//! Helm's dialect, not git's: one pattern per line, `#` comments, Go `filepath.Match` globs, no
//! `**` (an error), a leading `/` anchors the pattern to the chart root, a pattern with a `/`
//! matches the whole relative path and one without matches the base name, a trailing `/` only
//! matches directories, and a leading `!` negates (with Helm's quirk that a negated pattern
//! ignores every path it does *not* match). `templates/.?*` is always added.

use crate::pattern::{BadPattern, go_match};

#[derive(Debug, Clone)]
struct Rule {
    /// The `filepath.Match` pattern (without `!`, the leading and trailing `/`).
    pattern: Pattern,
    base_only: bool,
    negate: bool,
    must_dir: bool,
}

/// Parsed `.helmignore` rules.
#[derive(Debug, Clone, Default)]
pub struct IgnoreRules {
    rules: Vec<Rule>,
}

/// A `.helmignore` line Helm rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IgnoreError {
    #[error("double-star (**) syntax is not supported")]
    DoubleStar,
    #[error("{0}")]
    Pattern(#[from] BadPattern),
}

impl IgnoreRules {
    /// Parse the text of a `.helmignore` file.
    pub fn parse(text: &str) -> Result<IgnoreRules, IgnoreError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut rules = IgnoreRules::default();
        for line in text.lines() {
            rules.add(line)?;
        }
        Ok(rules)
    }

    /// Add Helm's built-in rule (`templates/.?*`).
    pub fn add_defaults(&mut self) {
        // The default pattern is valid.
        let _ = self.add("templates/.?*");
    }

    fn add(&mut self, line: &str) -> Result<(), IgnoreError> {
        let rule = line.trim();
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err(IgnoreError::DoubleStar);
        }
        go_match(rule, "abc")?;
        let mut rule = rule;
        let negate = rule.starts_with('!');
        if negate {
            rule = &rule[1..];
        }
        let must_dir = rule.ends_with('/');
        if must_dir {
            rule = &rule[..rule.len() - 1];
        }
        let (pat, base_only) = if let Some(rest) = rule.strip_prefix('/') {
            (rest, false)
        } else {
            (rule, !rule.contains('/'))
        };
        self.rules.push(Rule {
            pattern: Pattern::new(pat),
            base_only,
            negate,
            must_dir,
        });
        Ok(())
    }

    /// Whether the slash-separated chart-relative `path` is ignored.
    pub fn ignored(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for r in &self.rules {
            let name = if r.base_only {
                path.rsplit('/').next().unwrap_or(path)
            } else {
                path
            };
            // Go logs and treats a bad pattern as "no match".
            if r.negate {
                if r.must_dir && !is_dir {
                    return true;
                }
                if !r.pattern.matches(name) {
                    return true;
                }
                continue;
            }
            if r.must_dir && !is_dir {
                continue;
            }
            if r.pattern.matches(name) {
                return true;
            }
        }
        false
    }
}

/// A rule's pattern, with the two shapes most `.helmignore` lines have answered without the
/// general matcher: the same answers as Go's `path.Match` ([`go_match`]), which decides the rest.
#[derive(Debug, Clone)]
enum Pattern {
    /// No special character: the name itself (`.DS_Store`, `.git`).
    Literal(String),
    /// `*` and then no special character (`*.swp`, `*~`): a name with that ending and no `/`
    /// before it (a star does not match a `/`).
    StarThen(String),
    /// Anything else.
    Glob(String),
}

impl Pattern {
    fn new(pattern: &str) -> Pattern {
        let plain = |s: &str| !s.contains(['*', '?', '[', '\\']);
        if plain(pattern) {
            Pattern::Literal(pattern.to_string())
        } else if let Some(rest) = pattern.strip_prefix('*')
            && plain(rest)
        {
            Pattern::StarThen(rest.to_string())
        } else {
            Pattern::Glob(pattern.to_string())
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Literal(lit) => name == lit,
            Pattern::StarThen(end) => name
                .strip_suffix(end.as_str())
                .is_some_and(|start| !start.contains('/')),
            Pattern::Glob(pattern) => go_match(pattern, name).unwrap_or(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases from Helm's pkg/ignore/rules_test.go.
    /// The shortcut shapes answer as Go's `path.Match` ([`go_match`], itself checked against Go).
    #[test]
    fn literal_and_star_then_patterns_answer_as_go_match() {
        let patterns = [
            ".DS_Store",
            ".git",
            "a/b",
            "",
            "*.swp",
            "*~",
            "*",
            "*/",
            "*a/b",
            "*.tar.gz",
            "*é",
        ];
        let names = [
            ".DS_Store",
            ".git",
            "x.git",
            "a/b",
            "a/b/c",
            "",
            "f.swp",
            "d/f.swp",
            ".swp",
            "swp",
            "f~",
            "~",
            "/~",
            "f",
            "a/",
            "x/",
            "xa/b",
            "x/a/b",
            "b.tar.gz",
            "tar.gz",
            "é",
            "xé",
        ];
        for p in patterns {
            let shape = Pattern::new(p);
            assert!(!matches!(shape, Pattern::Glob(_)), "{p} has a shortcut");
            for n in names {
                assert_eq!(
                    shape.matches(n),
                    go_match(p, n).unwrap(),
                    "pattern {p:?} name {n:?}"
                );
            }
        }
        assert!(matches!(Pattern::new("a*b"), Pattern::Glob(_)));
        assert!(matches!(Pattern::new("*.[ch]"), Pattern::Glob(_)));
        assert!(matches!(Pattern::new("\\*"), Pattern::Glob(_)));
    }

    #[test]
    fn helm_ignore_cases() {
        let r = IgnoreRules::parse("*.txt\n/mast/a.txt\ncargo/\n").unwrap();
        assert!(r.ignored("helm.txt", false));
        assert!(r.ignored("mast/a.txt", false));
        assert!(r.ignored("cargo", true));
        assert!(!r.ignored("cargo", false));
        assert!(!r.ignored("a.yaml", false));
        let mut d = IgnoreRules::default();
        d.add_defaults();
        assert!(d.ignored("templates/.dotfile", false));
        assert!(!d.ignored("templates/a.yaml", false));
        assert_eq!(
            IgnoreRules::parse("a/**/b").unwrap_err(),
            IgnoreError::DoubleStar
        );
    }
}
