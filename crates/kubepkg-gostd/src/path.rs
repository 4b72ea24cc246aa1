//! `path`: lexical operations on slash-separated paths (chart files, archive entries, template
//! names), independent of the operating system's separator, and Go's shell patterns over them.

/// Go's `path.Clean`: the shortest equivalent path by lexical processing (`.` elements and
/// repeated slashes dropped, `..` applied to the element before it, leading `..` kept on a
/// relative path and dropped on a rooted one); `.` for an empty result.
pub fn clean(p: &str) -> String {
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// A malformed pattern (Go's `path.ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("syntax error in pattern")]
pub struct BadPattern;

/// Go's `path.Match` (`filepath.Match` where the separator is `/`): whether all of `name`
/// matches the shell pattern — `*` any run of non-`/` bytes, `?` one non-`/` character,
/// `[…]` a class (ranges, `^` negation; a class matches `/` too), `\` escapes. Go's algorithm,
/// so its answers where a regular expression would give another: a star takes the shortest
/// run after which the next chunk matches and is not taken back once a later chunk is reached
/// (`a*[^x]*` does not match `ab/c`), and a malformed pattern is an error even where the name
/// fails to match before reaching the bad part.
pub fn matches(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let mut pattern = pattern.as_bytes();
    let mut name = name.as_bytes();
    'chunks: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing star takes the rest of the name, unless that crosses a `/`.
            return Ok(!name.contains(&b'/'));
        }
        // The chunk right here; the last chunk must also reach the end of the name.
        if let Some(after) = match_chunk(chunk, name)?
            && (after.is_empty() || !pattern.is_empty())
        {
            name = after;
            continue;
        }
        if star {
            // The star takes one more byte at a time, never a `/`.
            let mut skip = 0;
            while skip < name.len() && name[skip] != b'/' {
                skip += 1;
                if let Some(after) = match_chunk(chunk, &name[skip..])? {
                    if pattern.is_empty() && !after.is_empty() {
                        continue;
                    }
                    name = after;
                    continue 'chunks;
                }
            }
        }
        // No match; the rest of the pattern must still be well formed.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, b"")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// The leading stars of `pattern` (whether there were any), the chunk after them up to the
/// next star outside a class, and what follows.
fn scan_chunk(pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let stars = pattern.iter().take_while(|&&b| b == b'*').count();
    let pattern = &pattern[stars..];
    let mut in_class = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'*' if !in_class => break,
            _ => {}
        }
        i += 1;
    }
    (stars > 0, &pattern[..i], &pattern[i..])
}

/// Matches the star-free `chunk` at the start of `s`: what is left of `s` after it, `None`
/// when it does not match. Once the match has failed the chunk is still read to the end, so
/// that a malformed one is an error whatever `s` is.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> Result<Option<&'s [u8]>, BadPattern> {
    let mut failed = false;
    while let Some(&c) = chunk.first() {
        failed |= s.is_empty();
        match c {
            b'[' => {
                let mut got = '\0';
                if !failed {
                    let (r, n) = crate::utf8::decode_rune(s);
                    got = r.unwrap_or(char::REPLACEMENT_CHARACTER);
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut found = false;
                let mut ranges = 0;
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = class_char(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk.first() == Some(&b'-') {
                        (hi, chunk) = class_char(&chunk[1..])?;
                    }
                    found |= lo <= got && got <= hi;
                    ranges += 1;
                }
                failed |= found == negated;
            }
            b'?' => {
                if !failed {
                    failed = s[0] == b'/';
                    let (_, n) = crate::utf8::decode_rune(s);
                    s = &s[n..];
                }
                chunk = &chunk[1..];
            }
            _ => {
                let literal = if c == b'\\' {
                    chunk = &chunk[1..];
                    *chunk.first().ok_or(BadPattern)?
                } else {
                    c
                };
                if !failed {
                    failed = literal != s[0];
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    Ok(if failed { None } else { Some(s) })
}

/// One character of a class (`\` escapes the next), and the class text after it; a class
/// that ends there, or a character that is `-`, `]` or not UTF-8, is malformed.
fn class_char(chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    let chunk = match chunk.first() {
        None | Some(b'-' | b']') => return Err(BadPattern),
        Some(b'\\') => &chunk[1..],
        Some(_) => chunk,
    };
    let (r, n) = crate::utf8::decode_rune(chunk);
    let (Some(r), rest) = (r, &chunk[n..]) else {
        return Err(BadPattern);
    };
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, rest))
}
