//! Sprig's path functions: Go's `path` package (`base`, `dir`, `clean`, `ext`, `isAbs`) and
//! `path/filepath` (`osBase`…), which behave identically on the Unix systems Helm runs on.
//! Go's path functions only look at `/` and `.`, so they keep every other byte of the path as
//! it is, including bytes that are not UTF-8 ([`bytewise`]).

use kubepkg_template::Function;
use kubepkg_value::Value;

use crate::args::{arg, s};
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("base", [StringBytes], |a| Ok(bytewise(arg(a, 0), base))),
        f!("dir", [StringBytes], |a| Ok(bytewise(arg(a, 0), dir))),
        f!("clean", [StringBytes], |a| Ok(bytewise(arg(a, 0), clean))),
        f!("ext", [StringBytes], |a| Ok(bytewise(arg(a, 0), ext))),
        f!("isAbs", [String], |a| Ok(s(a, 0).starts_with('/').into())),
        f!("osBase", [StringBytes], |a| Ok(bytewise(arg(a, 0), base))),
        f!("osDir", [StringBytes], |a| Ok(bytewise(arg(a, 0), dir))),
        f!("osClean", [StringBytes], |a| Ok(bytewise(arg(a, 0), clean))),
        f!("osExt", [StringBytes], |a| Ok(bytewise(arg(a, 0), ext))),
        f!("osIsAbs", [String], |a| Ok(s(a, 0).starts_with('/').into())),
    ]
}

/// Apply a text function that only inspects ASCII characters to a Go string, keeping its other
/// bytes exactly: a string that is not UTF-8 goes through with each byte as the character of
/// the same number (a lossless stand-in, since the function never looks at them) and back.
fn bytewise(v: &Value, f: fn(&str) -> String) -> Value {
    match v {
        Value::NonUtf8String(b) => {
            let stand_in: String = b.iter().map(|&x| char::from(x)).collect();
            let out: Vec<u8> = f(&stand_in).chars().map(|c| c as u32 as u8).collect();
            Value::from_go_bytes(out)
        }
        other => Value::from(f(other.as_str().unwrap_or(""))),
    }
}

/// `path.Clean`.
pub use kubepkg_gostd::path::clean;

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

    #[test]
    fn path_functions_keep_bytes_that_are_not_utf8() {
        let p = Value::from_go_bytes(vec![b'a', b'/', 0xd3, 0x1d, b'.', 0xff]);
        assert_eq!(
            bytewise(&p, base),
            Value::from_go_bytes(vec![0xd3, 0x1d, b'.', 0xff])
        );
        assert_eq!(bytewise(&p, ext), Value::from_go_bytes(vec![b'.', 0xff]));
        assert_eq!(bytewise(&p, dir), Value::str("a"));
    }

    // Cases from Go's path package tests.
    #[test]
    fn paths_match_go() {
        /// A path function, by name, and its (path, result) cases.
        type Cases<'a> = (&'a str, fn(&str) -> String, &'a [(&'a str, &'a str)]);
        let cases: [Cases; 4] = [
            (
                "clean",
                clean,
                &[
                    ("a/c/../b//", "a/b"),
                    ("/../a", "/a"),
                    ("../../a", "../../a"),
                ],
            ),
            ("base", base, &[("/a/b/", "b"), ("////", "/")]),
            ("dir", dir, &[("/a/b/c", "/a/b"), ("abc", ".")]),
            ("ext", ext, &[("/a/b.tar.gz", ".gz"), ("a.b/c", "")]),
        ];
        for (name, f, pairs) in cases {
            for &(path, want) in pairs {
                assert_eq!(f(path), want, "{name}({path:?})");
            }
        }
    }
}
