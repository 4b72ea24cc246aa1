//! File-name patterns: Go's `path/filepath.Match` (used by `.helmignore` and `--show-only`;
//! [`go_match`], Go's own algorithm in `kubepkg_gostd::path`) and the `gobwas/glob` dialect used
//! by `.Files.Glob` (`**` crosses `/`, `{a,b}` alternatives), translated to anchored regular
//! expressions (`regex-lite`, cheap to compile).

use regex_lite::Regex;

pub use kubepkg_gostd::path::BadPattern;

/// Translate a bracket class starting after `[` at `chars[i]` (`!` negates it); returns the
/// regex text and the index after `]`.
fn class(chars: &[char], mut i: usize) -> Result<(String, usize), BadPattern> {
    let mut out = String::from("[");
    if chars.get(i) == Some(&'!') {
        // gobwas does not keep `/` out of a negated class.
        out.push('^');
        i += 1;
    }
    let mut first = true;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(BadPattern);
        };
        if c == ']' && !first {
            i += 1;
            break;
        }
        if c == ']' && first {
            // An empty class is an error.
            return Err(BadPattern);
        }
        first = false;
        let mut lo = c;
        if c == '\\' {
            i += 1;
            lo = *chars.get(i).ok_or(BadPattern)?;
        }
        i += 1;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            let mut hi = chars[i + 1];
            i += 2;
            if hi == '\\' {
                hi = *chars.get(i).ok_or(BadPattern)?;
                i += 1;
            }
            if hi < lo {
                return Err(BadPattern);
            }
            out.push_str(&regex_lite::escape(&lo.to_string()));
            out.push('-');
            out.push_str(&regex_lite::escape(&hi.to_string()));
        } else {
            out.push_str(&regex_lite::escape(&lo.to_string()));
        }
    }
    out.push(']');
    Ok((out, i))
}

/// Translate and compile a gobwas pattern: `*`, `?`, classes (negated with `!`) and `\`
/// escapes, `**` (crossing `/`) and `{a,b}` alternatives.
fn compile(pattern: &str) -> Result<Regex, BadPattern> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut re = String::from("(?s)^");
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                re.push_str(".*");
                i += 2;
            }
            '*' => {
                re.push_str("[^/]*");
                i += 1;
            }
            '?' => {
                re.push_str("[^/]");
                i += 1;
            }
            '[' => {
                let (c, next) = class(&chars, i + 1)?;
                re.push_str(&c);
                i = next;
            }
            '{' => {
                depth += 1;
                re.push_str("(?:");
                i += 1;
            }
            ',' if depth > 0 => {
                re.push('|');
                i += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                re.push(')');
                i += 1;
            }
            '\\' => {
                let c = *chars.get(i + 1).ok_or(BadPattern)?;
                re.push_str(&regex_lite::escape(&c.to_string()));
                i += 2;
            }
            c => {
                re.push_str(&regex_lite::escape(&c.to_string()));
                i += 1;
            }
        }
    }
    if depth > 0 {
        return Err(BadPattern);
    }
    re.push('$');
    Regex::new(&re).map_err(|_| BadPattern)
}

/// `filepath.Match(pattern, name)`.
pub fn go_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    kubepkg_gostd::path::matches(pattern, name)
}

/// A `gobwas/glob` pattern (`.Files.Glob`) as an anchored regular expression, compiled once
/// per process (see [`cached`]).
pub fn glob_pattern(pattern: &str) -> Result<Regex, BadPattern> {
    cached(pattern)
}

/// The most patterns kept compiled; the cache starts over when full.
const PATTERN_CACHE_ENTRIES: usize = 1024;

/// Charts glob the same few patterns in every template (and a controller renders the same
/// charts again and again): each is translated and compiled once; a `Regex` is a shared handle.
fn cached(pattern: &str) -> Result<Regex, BadPattern> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Cache = Mutex<HashMap<String, Result<Regex, BadPattern>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = pattern.to_string();
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return hit.clone();
    }
    let compiled = compile(pattern);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= PATTERN_CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(key, compiled.clone());
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_match_follows_filepath_match() {
        assert!(go_match("*.txt", "a.txt").unwrap());
        assert!(!go_match("*.txt", "d/a.txt").unwrap());
        assert!(go_match("templates/.?*", "templates/.hidden").unwrap());
        assert!(!go_match("templates/.?*", "templates/.").unwrap());
        assert!(go_match("[a-c]x", "bx").unwrap());
        assert!(go_match("[^a-c]x", "dx").unwrap());
        assert!(go_match("a[", "a").is_err());
        // Checked with Go 1.26's filepath.Match: classes, negated or not, match `/`; `?` does not.
        assert!(go_match("a[^x]b", "a/b").unwrap());
        assert!(go_match("a[/]b", "a/b").unwrap());
        assert!(!go_match("a?b", "a/b").unwrap());
    }

    #[test]
    fn glob_crosses_separators_only_with_double_star() {
        let g = glob_pattern("files/**").unwrap();
        assert!(g.is_match("files/a/b.txt"));
        let g = glob_pattern("files/*").unwrap();
        assert!(!g.is_match("files/a/b.txt"));
        let g = glob_pattern("{a,b}/*.conf").unwrap();
        assert!(g.is_match("b/x.conf"));
        // gobwas' list matcher tests only membership, so `[!x]` matches the separator too.
        let g = glob_pattern("a[!x]b").unwrap();
        assert!(g.is_match("a/b"));
    }
}
