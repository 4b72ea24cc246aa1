//! Sprig's path functions: Go's `path` package (`base`, `dir`, `clean`, `ext`, `isAbs`) and
//! `path/filepath` (`osBase`…), which behave identically on the Unix systems Helm runs on.

use kubepkg_template::Function;

use crate::args::s;
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("base", [String], |a| Ok(base(s(a, 0)).into())),
        f!("dir", [String], |a| Ok(dir(s(a, 0)).into())),
        f!("clean", [String], |a| Ok(clean(s(a, 0)).into())),
        f!("ext", [String], |a| Ok(ext(s(a, 0)).into())),
        f!("isAbs", [String], |a| Ok(s(a, 0).starts_with('/').into())),
        f!("osBase", [String], |a| Ok(base(s(a, 0)).into())),
        f!("osDir", [String], |a| Ok(dir(s(a, 0)).into())),
        f!("osClean", [String], |a| Ok(clean(s(a, 0)).into())),
        f!("osExt", [String], |a| Ok(ext(s(a, 0)).into())),
        f!("osIsAbs", [String], |a| Ok(s(a, 0).starts_with('/').into())),
    ]
}

/// `path.Clean`.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// `path.Base`.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

/// `path.Dir`.
pub fn dir(p: &str) -> String {
    let i = p.rfind('/').map(|i| i + 1).unwrap_or(0);
    clean(&p[..i])
}

/// `path.Ext`.
pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases from Go's path package tests.
    #[test]
    fn paths_match_go() {
        assert_eq!(clean("a/c/../b//"), "a/b");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("../../a"), "../../a");
        assert_eq!(base("/a/b/"), "b");
        assert_eq!(base("////"), "/");
        assert_eq!(dir("/a/b/c"), "/a/b");
        assert_eq!(dir("abc"), ".");
        assert_eq!(ext("/a/b.tar.gz"), ".gz");
        assert_eq!(ext("a.b/c"), "");
    }
}
