//! Go strings are bytes; this is how Go's `unicode/utf8` (and `for range` over a string) reads
//! them when they are not valid UTF-8: every byte that does not start a valid sequence is one
//! rune, `U+FFFD` (`utf8.DecodeRune`, `utf8.RuneCount`).

/// Decode Go string bytes as Go's `for range` does: valid UTF-8 sequences as their characters,
/// every other byte as U+FFFD (one per byte, unlike `String::from_utf8_lossy`, which replaces a
/// truncated sequence by a single U+FFFD).
pub fn lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                // Go decodes one invalid byte at a time.
                out.push('\u{FFFD}');
                rest = &bad[1..];
            }
        }
    }
    out
}

/// Go's `utf8.DecodeRune`: the first character of `b` and its length in bytes, or `None` and 1
/// when `b` does not start with a valid UTF-8 sequence (and `None`, 0 for empty input).
pub fn decode_rune(b: &[u8]) -> (Option<char>, usize) {
    if b.is_empty() {
        return (None, 0);
    }
    let head = &b[..b.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    match valid.chars().next() {
        Some(c) => (Some(c), c.len_utf8()),
        None => (None, 1),
    }
}

/// The number of characters Go counts in string bytes (`utf8.RuneCount`: each invalid byte is
/// one character).
pub fn rune_count(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.chars().count(),
        Err(_) => lossy(bytes).chars().count(),
    }
}

/// The length in bytes of the first `n` Go runes of `b` (each invalid byte counts as one rune).
pub fn prefix_len(b: &[u8], n: usize) -> usize {
    let mut i = 0;
    for _ in 0..n {
        if i >= b.len() {
            break;
        }
        i += decode_rune(&b[i..]).1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_are_one_rune_each() {
        assert_eq!(lossy(b"a\xff\xe2\x82"), "a\u{FFFD}\u{FFFD}\u{FFFD}");
        assert_eq!(rune_count(b"a\xff\xe2\x82"), 4);
        assert_eq!(decode_rune("é".as_bytes()), (Some('é'), 2));
        assert_eq!(decode_rune(b"\xff"), (None, 1));
        assert_eq!(prefix_len(b"\xc3\xa9a\xffb", 2), 3);
    }
}
