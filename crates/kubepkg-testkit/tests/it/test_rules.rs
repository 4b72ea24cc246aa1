//! The project's rules for tests, checked on every Rust source of the workspace (tests, test
//! support and `#[cfg(test)]` modules alike).
//!
//! **No timing assertions**: a test asserts behaviour (bounded work, an error, an ordering),
//! never that something took less or more than a duration, so neither a fast nor a slow
//! machine decides a result; durations worth knowing are measured by scripts under `bench/`.
//! Checked as: no assertion macro's arguments contain `.elapsed()`. A wait's limit (how long a
//! test waits for something that must happen) is written as a deadline, `Instant::now() <
//! deadline`, which this rule leaves alone.

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && !name.to_string_lossy().starts_with('.') {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The byte just past the literal starting at `at` (`"…"`, `r#"…"#`, `b"…"`, `'c'`), or
/// `None` when no literal starts there (a lifetime's `'a` is not one).
fn skip_literal(src: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    if src[i] == b'b' && matches!(src.get(i + 1), Some(b'"' | b'\'' | b'r')) {
        i += 1;
    }
    if src[i] == b'r' && matches!(src.get(i + 1), Some(b'"' | b'#')) {
        let hashes = src[i + 1..].iter().take_while(|&&c| c == b'#').count();
        let open = i + 1 + hashes;
        if src.get(open) != Some(&b'"') {
            return None;
        }
        let close: Vec<u8> = std::iter::once(b'"')
            .chain(std::iter::repeat_n(b'#', hashes))
            .collect();
        return src[open + 1..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map(|p| open + 1 + p + close.len());
    }
    match src[i] {
        b'"' => {
            i += 1;
            while i < src.len() && src[i] != b'"' {
                i += if src[i] == b'\\' { 2 } else { 1 };
            }
            Some(i + 1)
        }
        b'\'' => {
            // 'x', '\n', '\u{..}', '"': a char literal closes within a few bytes.
            let end = if src.get(i + 1) == Some(&b'\\') {
                src[i + 2..].iter().position(|&c| c == b'\'')? + i + 2
            } else {
                let len = std::str::from_utf8(&src[i + 1..(i + 5).min(src.len())])
                    .map_or(1, |s| s.chars().next().map_or(1, char::len_utf8));
                i + 1 + len
            };
            (src.get(end) == Some(&b'\'')).then_some(end + 1)
        }
        _ => None,
    }
}

/// The arguments of every assertion macro in `src` (with its parentheses, literals as `""`: only
/// code), with the line each starts on.
fn assertions(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            i += b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i);
            continue;
        }
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if word_start && let Some(end) = skip_literal(b, i) {
            i = end;
            continue;
        }
        let rest = &src[i..];
        let name = ["debug_assert", "assert"]
            .iter()
            .find(|m| word_start && rest.starts_with(*m));
        if let Some(m) = name {
            let after = &rest[m.len()..];
            let suffix = ["_eq!", "_ne!", "!"].iter().find(|s| after.starts_with(*s));
            if let Some(s) = suffix {
                let open = i + m.len() + s.len();
                let open = open + src[open..].len() - src[open..].trim_start().len();
                if b.get(open) == Some(&b'(') {
                    let mut depth = 0;
                    let mut j = open;
                    let mut code = Vec::new();
                    while j < b.len() {
                        if let Some(end) = skip_literal(b, j)
                            .filter(|_| !(b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'_'))
                        {
                            code.extend_from_slice(b"\"\"");
                            j = end;
                            continue;
                        }
                        code.push(b[j]);
                        match b[j] {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let line = src[..i].matches('\n').count() + 1;
                    out.push((line, String::from_utf8_lossy(&code).into_owned()));
                    i = j;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

#[test]
fn the_scanner_finds_assertions_and_reads_past_literals() {
    let src = r#####"
fn t() {
    let s = "assert!(x.elapsed() > d)";
    let c = '(';
    assert!(started.elapsed() < limit, "({}", 1);
    assert_eq!(
        f(')'),
        r#"a ) "b" "#
    );
    // assert!(a.elapsed() < d)
    debug_assert!(Instant::now() < deadline);
}
"#####;
    let found = assertions(src);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].0, 5);
    assert_eq!(found[0].1, "(started.elapsed() < limit, \"\", 1)");
    assert_eq!(found[1].1, "(\n        f(\"\"),\n        \"\"\n    )");
    assert_eq!(found[2].1, "(Instant::now() < deadline)");
}

#[test]
fn no_test_asserts_a_duration() {
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    files.sort();
    assert!(files.len() > 100, "found the workspace's sources");
    let mut timed = Vec::new();
    for file in &files {
        let src = fs::read_to_string(file).unwrap();
        for (line, args) in assertions(&src) {
            if args.contains(".elapsed()") {
                let rel = file.strip_prefix(repo()).unwrap_or(file);
                timed.push(format!("{}:{line}", rel.display()));
            }
        }
    }
    assert!(
        timed.is_empty(),
        "timing assertions (assert the behaviour instead; measure durations in bench/; a wait's \
         limit is a deadline, `Instant::now() < deadline`): {timed:#?}"
    );
}
