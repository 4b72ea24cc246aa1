//! Sprig's string functions: case conversion (Go's simple per-rune mappings and huandu/xstrings'
//! word splitting), trimming, splitting, padding, abbreviation and wrapping (Masterminds/goutils,
//! which counts bytes, not characters), quoting and random strings.

use std::collections::BTreeMap;

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{ElemType, Value};
use rand::Rng;

use crate::args::{arg, bytes, int, s};
use crate::{cast, gofmt};
use crate::{f, fv};

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("hello", [], |_| Ok("Hello!".into())),
        f!("abbrev", [Int, StringBytes], |a| Ok(Value::from_go_bytes(
            abbrev(int(a, 0), bytes(a, 1))
        ))),
        f!("abbrevboth", [Int, Int, StringBytes], |a| {
            Ok(Value::from_go_bytes(abbrevboth(
                int(a, 0),
                int(a, 1),
                bytes(a, 2),
            )))
        }),
        f!("trunc", [Int, StringBytes], |a| Ok(Value::from_go_bytes(
            trunc(int(a, 0), bytes(a, 1))
        ))),
        f!("trim", [String], |a| Ok(s(a, 0).trim().into())),
        f!("upper", [String], |a| Ok(go_upper(s(a, 0)).into())),
        f!("lower", [String], |a| Ok(go_lower(s(a, 0)).into())),
        f!("title", [String], |a| Ok(title(s(a, 0)).into())),
        f!("untitle", [String], |a| Ok(untitle(s(a, 0)).into())),
        f!("substr", [Int, Int, StringBytes], |a| substr(
            int(a, 0),
            int(a, 1),
            bytes(a, 2)
        )),
        f!("repeat", [Int, String], |a| repeat(s(a, 1), int(a, 0))
            .map(Value::from)),
        f!("trimall", [String, String], |a| Ok(trim_cutset(
            s(a, 1),
            s(a, 0)
        )
        .into())),
        f!("trimAll", [String, String], |a| Ok(trim_cutset(
            s(a, 1),
            s(a, 0)
        )
        .into())),
        f!("trimSuffix", [String, String], |a| {
            Ok(s(a, 1).strip_suffix(s(a, 0)).unwrap_or(s(a, 1)).into())
        }),
        f!("trimPrefix", [String, String], |a| {
            Ok(s(a, 1).strip_prefix(s(a, 0)).unwrap_or(s(a, 1)).into())
        }),
        f!("nospace", [String], |a| Ok(nospace(s(a, 0)).into())),
        f!("initials", [String], |a| Ok(initials(s(a, 0)).into())),
        f!("randAlphaNum", [Int], |a| random_string(int(a, 0), ALNUM)
            .map(Value::from)),
        f!("randAlpha", [Int], |a| random_string(int(a, 0), ALPHA)
            .map(Value::from)),
        f!("randAscii", [Int], |a| random_string(int(a, 0), ASCII)
            .map(Value::from)),
        f!("randNumeric", [Int], |a| random_string(int(a, 0), DIGITS)
            .map(Value::from)),
        f!("swapcase", [String], |a| Ok(swapcase(s(a, 0)).into())),
        f!("shuffle", [String], |a| Ok(shuffle(s(a, 0)).into())),
        f!("snakecase", [String], |a| Ok(
            camel_to_lower(s(a, 0), '_').into()
        )),
        f!("camelcase", [String], |a| Ok(pascal_case(s(a, 0)).into())),
        f!("kebabcase", [String], |a| Ok(
            camel_to_lower(s(a, 0), '-').into()
        )),
        f!("wrap", [Int, StringBytes], |a| Ok(Value::from_go_bytes(
            wrap_custom(bytes(a, 1), int(a, 0), "", false)
        ))),
        f!("wrapWith", [Int, String, StringBytes], |a| {
            Ok(Value::from_go_bytes(wrap_custom(
                bytes(a, 2),
                int(a, 0),
                s(a, 1),
                true,
            )))
        }),
        f!("contains", [String, String], |a| Ok(s(a, 1)
            .contains(s(a, 0))
            .into())),
        f!("hasPrefix", [String, String], |a| Ok(s(a, 1)
            .starts_with(s(a, 0))
            .into())),
        f!("hasSuffix", [String, String], |a| Ok(s(a, 1)
            .ends_with(s(a, 0))
            .into())),
        fv!("quote", [], Any, |a| Ok(quote_all(a).into())),
        fv!("squote", [], Any, |a| Ok(squote_all(a).into())),
        fv!("cat", [], Any, |a| Ok(Value::from_go_bytes(cat(a)))),
        f!("indent", [Int, String], |a| indent(int(a, 0), s(a, 1), "")
            .map(Value::from)),
        f!("nindent", [Int, String], |a| indent(
            int(a, 0),
            s(a, 1),
            "\n"
        )
        .map(Value::from)),
        f!("replace", [String, String, String], |a| Ok(s(a, 2)
            .replace(s(a, 0), s(a, 1))
            .into())),
        f!("plural", [String, String, Int], |a| {
            Ok(if int(a, 2) == 1 { s(a, 0) } else { s(a, 1) }.into())
        }),
        f!("toString", [Any], |a| Ok(cast::strval(arg(a, 0)).into())),
        f!("split", [String, String], |a| Ok(parts_map(split(
            s(a, 1),
            s(a, 0),
            -1
        )))),
        f!("splitList", [String, String], |a| Ok(Value::str_list(
            split(s(a, 1), s(a, 0), -1)
        ))),
        f!("splitn", [String, Int, String], |a| Ok(parts_map(split(
            s(a, 2),
            s(a, 0),
            int(a, 1)
        )))),
        f!("toStrings", [Any], |a| Ok(Value::str_list(strslice(arg(
            a, 0
        ))))),
        f!("join", [String, Any], |a| Ok(strslice(arg(a, 1))
            .join(s(a, 0))
            .into())),
        f!("sortAlpha", [Any], |a| Ok(sort_alpha(arg(a, 0)))),
    ]
}

/// Go's `unicode.ToUpper` per rune (a simple, one-to-one mapping: `ß` stays `ß`).
pub(crate) fn upper_rune(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Go's `unicode.ToLower` per rune.
pub(crate) fn lower_rune(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Go's `unicode.ToTitle` per rune (title case differs from upper case only for digraphs).
fn title_rune(c: char) -> char {
    match c {
        '\u{1C4}'..='\u{1C6}' => '\u{1C5}',
        '\u{1C7}'..='\u{1C9}' => '\u{1C8}',
        '\u{1CA}'..='\u{1CC}' => '\u{1CB}',
        '\u{1F1}'..='\u{1F3}' => '\u{1F2}',
        _ => upper_rune(c),
    }
}

fn is_title_case(c: char) -> bool {
    matches!(c, '\u{1C5}' | '\u{1C8}' | '\u{1CB}' | '\u{1F2}' | '\u{1F88}'..='\u{1F8F}' | '\u{1F98}'..='\u{1F9F}' | '\u{1FA8}'..='\u{1FAF}' | '\u{1FBC}' | '\u{1FCC}' | '\u{1FFC}')
}

/// Go's `unicode.IsUpper` (category Lu).
pub(crate) fn is_upper(c: char) -> bool {
    c.is_uppercase() && !is_title_case(c) && c.to_lowercase().next() != Some(c)
}

/// Go's `unicode.IsLower` (category Ll).
pub(crate) fn is_lower(c: char) -> bool {
    c.is_lowercase() && c.to_uppercase().next() != Some(c) || c == 'ß'
}

/// `strings.ToUpper`.
pub fn go_upper(s: &str) -> String {
    s.chars().map(upper_rune).collect()
}

/// `strings.ToLower`.
pub fn go_lower(s: &str) -> String {
    s.chars().map(lower_rune).collect()
}

/// A string from bytes that may have been cut inside a UTF-8 sequence (Go keeps the bytes;
/// we must hold valid UTF-8 and replace them).
/// Sprig's `trunc`: a cut at a byte offset (which may split a character, as in Go).
fn trunc(c: i64, s: &[u8]) -> Vec<u8> {
    let len = s.len() as i64;
    if c < 0 && len + c > 0 {
        return s[(len + c) as usize..].to_vec();
    }
    if c >= 0 && len > c {
        return s[..c as usize].to_vec();
    }
    s.to_vec()
}

/// Go's runtime panic text for an out-of-range slice expression `s[start:end]`.
fn slice_panic(start: Option<i64>, end: i64, len: i64) -> String {
    match start {
        None if end < 0 => format!("runtime error: slice bounds out of range [:{end}]"),
        None => format!("runtime error: slice bounds out of range [:{end}] with length {len}"),
        Some(st) if st < 0 => format!("runtime error: slice bounds out of range [{st}:]"),
        Some(st) => format!("runtime error: slice bounds out of range [{st}:{end}]"),
    }
}

/// Sprig's `substr`: byte offsets, as Go slices strings.
fn substr(start: i64, end: i64, b: &[u8]) -> FuncResult {
    let len = b.len() as i64;
    let cut = |r: &[u8]| Ok(Value::from_go_bytes(r.to_vec()));
    if start < 0 {
        if end < 0 || end > len {
            return Err(slice_panic(None, end, len));
        }
        return cut(&b[..end as usize]);
    }
    if end < 0 || end > len {
        if start > len {
            return Err(slice_panic(Some(start), len, len));
        }
        return cut(&b[start as usize..]);
    }
    if start > end {
        return Err(slice_panic(Some(start), end, len));
    }
    cut(&b[start as usize..end as usize])
}

fn repeat(s: &str, count: i64) -> Result<String, String> {
    if count < 0 {
        return Err("strings: negative Repeat count".into());
    }
    kubepkg_template::budget::check_string((s.len() as u128) * (count as u128))?;
    Ok(s.repeat(count as usize))
}

fn trim_cutset(s: &str, cutset: &str) -> String {
    s.trim_matches(|c| cutset.contains(c)).to_string()
}

/// Go's `unicode.IsSpace`.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// goutils' byte-wise loops treat each byte as a Latin-1 rune.
fn nospace(s: &str) -> String {
    if !s.bytes().any(|b| is_space(b as char)) {
        return s.to_string();
    }
    s.bytes()
        .filter(|b| !is_space(*b as char))
        .map(|b| b as char)
        .collect()
}

fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut gap = true;
    for b in s.bytes() {
        let ch = b as char;
        if is_space(ch) {
            gap = true;
        } else if gap {
            out.push(ch);
            gap = false;
        }
    }
    out
}

fn title(s: &str) -> String {
    fn is_separator(r: char) -> bool {
        if (r as u32) <= 0x7f {
            return !(r.is_ascii_alphanumeric() || r == '_');
        }
        if r.is_alphabetic() || r.is_numeric() {
            return false;
        }
        is_space(r)
    }
    let mut prev = ' ';
    s.chars()
        .map(|r| {
            let out = if is_separator(prev) { title_rune(r) } else { r };
            prev = r;
            out
        })
        .collect()
}

fn untitle(s: &str) -> String {
    let mut next = true;
    s.chars()
        .map(|c| {
            if is_space(c) {
                next = true;
                c
            } else if next {
                next = false;
                lower_rune(c)
            } else {
                c
            }
        })
        .collect()
}

fn swapcase(s: &str) -> String {
    let mut whitespace = true;
    s.chars()
        .map(|c| {
            if is_upper(c) || is_title_case(c) {
                whitespace = false;
                lower_rune(c)
            } else if is_lower(c) {
                if whitespace {
                    whitespace = false;
                    title_rune(c)
                } else {
                    upper_rune(c)
                }
            } else {
                whitespace = is_space(c);
                c
            }
        })
        .collect()
}

const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const DIGITS: &str = "0123456789";
const ASCII: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/// goutils' `CryptoRandom*`: `count` characters drawn from `alphabet` (empty for count ≤ 0).
/// Sprig's `randAlphaNum` and friends: `count` characters drawn uniformly from `alphabet` by a
/// cryptographic generator seeded from the operating system (Sprig draws each from
/// `crypto/rand`; one system call per character made long strings take minutes).
fn random_string(count: i64, alphabet: &str) -> Result<String, String> {
    if count <= 0 {
        return Ok(String::new());
    }
    kubepkg_template::budget::check_string(count as u128)?;
    use rand::SeedableRng;
    let chars = alphabet.as_bytes();
    let mut rng = rand::rngs::StdRng::from_rng(rand::rngs::OsRng).map_err(|e| e.to_string())?;
    Ok((0..count)
        .map(|_| chars[rng.gen_range(0..chars.len())] as char)
        .collect())
}

fn shuffle(s: &str) -> String {
    let mut runes: Vec<char> = s.chars().collect();
    let mut rng = rand::thread_rng();
    for i in (1..runes.len()).rev() {
        let j = rng.gen_range(0..=i);
        runes.swap(i, j);
    }
    runes.into_iter().collect()
}

fn is_connector(r: char) -> bool {
    r == '-' || r == '_' || is_space(r)
}

/// xstrings `ToPascalCase` (Sprig's `camelcase`).
fn pascal_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let mut i = 0;
    let mut first_upper = false;
    let mut r0 = '\0';
    let mut found = false;
    while i < chars.len() {
        r0 = chars[i];
        i += 1;
        if !is_connector(r0) {
            first_upper = is_upper(r0);
            r0 = upper_rune(r0);
            found = true;
            break;
        }
        out.push(r0);
    }
    if i >= chars.len() {
        if found {
            out.push(r0);
        }
        return out;
    }
    while i < chars.len() {
        let r1 = r0;
        r0 = chars[i];
        i += 1;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = is_upper(r0);
            r0 = upper_rune(r0);
        } else {
            if first_upper {
                if is_upper(r0) {
                    r0 = lower_rune(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Word {
    Invalid,
    Number,
    UpperCase,
    Alphabet,
    Connector,
    Punct,
    Other,
}

fn is_alphabet(r: char) -> bool {
    if !r.is_alphabetic() {
        return false;
    }
    !matches!(r, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

fn is_punct(r: char) -> bool {
    r.is_ascii_punctuation() && !matches!(r, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~')
        || (!r.is_ascii()
            && !r.is_alphanumeric()
            && !r.is_whitespace()
            && !r.is_control()
            && is_unicode_punct(r))
}

fn is_unicode_punct(r: char) -> bool {
    matches!(r, '\u{A1}' | '\u{A7}' | '\u{AB}' | '\u{B6}' | '\u{B7}' | '\u{BB}' | '\u{BF}' | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}' | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}' | '\u{FF01}'..='\u{FF0F}')
}

/// xstrings `nextWord`: the next word of `s` from `start`, returning its type and end.
fn next_word(s: &[char], start: usize) -> (Word, usize) {
    let n = s.len();
    if start >= n {
        return (Word::Invalid, start);
    }
    let r = s[start];
    let mut end = start + 1;
    let wt;
    if is_connector(r) {
        wt = Word::Connector;
        while end < n && is_connector(s[end]) {
            end += 1;
        }
    } else if is_punct(r) {
        wt = Word::Punct;
        while end < n && is_punct(s[end]) {
            end += 1;
        }
    } else if is_upper(r) {
        wt = Word::UpperCase;
        if end < n {
            let r2 = s[end];
            if is_upper(r2) {
                let mut last = end;
                end += 1;
                while end < n && is_upper(s[end]) {
                    last = end;
                    end += 1;
                }
                if end < n && is_alphabet(s[end]) {
                    end = last;
                }
            } else if is_alphabet(r2) {
                end += 1;
                while end < n && is_alphabet(s[end]) && !is_upper(s[end]) {
                    end += 1;
                }
            }
        }
    } else if is_alphabet(r) {
        wt = Word::Alphabet;
        while end < n && is_alphabet(s[end]) && !is_upper(s[end]) {
            end += 1;
        }
    } else if r.is_numeric() {
        wt = Word::Number;
        while end < n && s[end].is_numeric() {
            end += 1;
        }
    } else {
        wt = Word::Other;
        while end < n {
            let c = s[end];
            if is_connector(c) || is_alphabet(c) || c.is_numeric() || is_punct(c) {
                break;
            }
            end += 1;
        }
    }
    (wt, end)
}

fn push_lower(out: &mut String, wt: Word, word: &[char], connector: char) {
    if wt != Word::UpperCase && wt != Word::Connector {
        out.extend(word);
        return;
    }
    for &r in word {
        if is_connector(r) {
            out.push(connector);
        } else if is_upper(r) {
            out.push(lower_rune(r));
        } else {
            out.push(r);
        }
    }
}

/// xstrings `camelCaseToLowerCase` (Sprig's `snakecase` and `kebabcase`).
fn camel_to_lower(s: &str, connector: char) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let mut pos = 0;
    let (mut wt, mut end) = next_word(&chars, pos);
    let mut word = (pos, end);
    pos = end;
    macro_rules! advance {
        () => {{
            let (w, e) = next_word(&chars, pos);
            wt = w;
            word = (pos, e);
            end = e;
            pos = end;
        }};
    }
    while pos < chars.len() {
        if wt != Word::Connector {
            push_lower(&mut out, wt, &chars[word.0..word.1], connector);
        }
        let prev = wt;
        let last = word;
        advance!();
        match prev {
            Word::Number => {
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, &chars[word.0..word.1], connector);
                    advance!();
                }
                if wt != Word::Invalid && wt != Word::Punct && wt != Word::Connector {
                    out.push(connector);
                }
            }
            Word::Connector => push_lower(&mut out, prev, &chars[last.0..last.1], connector),
            Word::Punct => {}
            _ => {
                if wt != Word::Number {
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                } else if pos < chars.len() {
                    let last = word;
                    advance!();
                    if wt != Word::Alphabet {
                        push_lower(&mut out, Word::Number, &chars[last.0..last.1], connector);
                        if wt != Word::Connector && wt != Word::Punct {
                            out.push(connector);
                        }
                    } else {
                        out.push(connector);
                        push_lower(&mut out, Word::Number, &chars[last.0..last.1], connector);
                        while wt == Word::Alphabet || wt == Word::Number {
                            push_lower(&mut out, wt, &chars[word.0..word.1], connector);
                            advance!();
                        }
                        if wt != Word::Invalid && wt != Word::Connector && wt != Word::Punct {
                            out.push(connector);
                        }
                    }
                }
            }
        }
    }
    let _ = end;
    push_lower(&mut out, wt, &chars[word.0..word.1], connector);
    out
}

/// goutils `WrapCustom` (byte offsets, as Go's version).
fn wrap_custom(b: &[u8], wrap_len: i64, newline: &str, wrap_long: bool) -> Vec<u8> {
    if b.is_empty() {
        return Vec::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let wrap = wrap_len.max(1) as usize;
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::new();
    while len - offset > wrap {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = wrap + offset + 1;
        let space = b[offset..end].iter().rposition(|c| *c == b' ');
        if let Some(sp) = space.map(|p| p + offset) {
            out.extend_from_slice(&b[offset..sp]);
            out.extend_from_slice(newline.as_bytes());
            offset = sp + 1;
        } else if wrap_long {
            let end = wrap + offset;
            out.extend_from_slice(&b[offset..end]);
            out.extend_from_slice(newline.as_bytes());
            offset += wrap;
        } else {
            let end = wrap + offset;
            match b[end..].iter().position(|c| *c == b' ') {
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = len;
                }
                Some(i) => {
                    let sp = i + end;
                    out.extend_from_slice(&b[offset..sp]);
                    out.extend_from_slice(newline.as_bytes());
                    offset = sp + 1;
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    out
}

fn abbrev(width: i64, s: &[u8]) -> Vec<u8> {
    if width < 4 {
        return s.to_vec();
    }
    abbreviate_full(s, 0, width).unwrap_or_default()
}

fn abbrevboth(left: i64, right: i64, s: &[u8]) -> Vec<u8> {
    if right < 4 || left > 0 && right < 7 {
        return s.to_vec();
    }
    abbreviate_full(s, left, right).unwrap_or_default()
}

/// goutils `AbbreviateFull` (byte offsets, as Go slices strings); `None` where Go returns an
/// error (Sprig then prints "").
fn abbreviate_full(b: &[u8], offset: i64, max_width: i64) -> Option<Vec<u8>> {
    if b.is_empty() {
        return Some(Vec::new());
    }
    if max_width < 4 {
        return None;
    }
    let len = b.len() as i64;
    if len <= max_width {
        return Some(b.to_vec());
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    if offset <= 4 {
        return Some([&b[..(max_width - 3) as usize], b"..."].concat());
    }
    if max_width < 7 {
        return None;
    }
    if offset + max_width - 3 < len {
        let rest = &b[offset as usize..];
        return abbreviate_full(rest, 0, max_width - 3).map(|r| [&b"..."[..], &r].concat());
    }
    Some([&b"..."[..], &b[(len - (max_width - 3)) as usize..]].concat())
}

fn quote_all(a: &[Value]) -> String {
    a.iter()
        .filter(|v| !v.is_nil())
        .map(|v| gofmt::quote(&cast::strval(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn squote_all(a: &[Value]) -> String {
    a.iter()
        .filter(|v| !v.is_nil())
        .map(|v| format!("'{}'", gofmt::sprint_v(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sprig's `cat`: `fmt.Sprintf("%v %v …")` of the non-nil arguments, as the Go string it makes
/// (a string that is not UTF-8 keeps its bytes).
fn cat(a: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, v) in a.iter().filter(|v| !v.is_nil()).enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        match v {
            Value::NonUtf8String(b) => out.extend_from_slice(b),
            other => out.extend_from_slice(gofmt::sprint_v(other).as_bytes()),
        }
    }
    out
}

/// Sprig's `indent` (`lead` empty) and `nindent` (`lead` a newline): `lead`, then every line
/// of `v` after `spaces` spaces, written once into a string of its final length (the chart
/// scaffold's templates call them for nearly every block they emit).
fn indent(spaces: i64, v: &str, lead: &str) -> Result<String, String> {
    const SPACES: &str = "                                                                ";
    let pad = match usize::try_from(spaces) {
        Ok(n) if n <= SPACES.len() => std::borrow::Cow::Borrowed(&SPACES[..n]),
        _ => std::borrow::Cow::Owned(repeat(" ", spaces)?),
    };
    let lines = v.matches('\n').count() + 1;
    kubepkg_template::budget::check_string(
        (pad.len() as u128) * (lines as u128) + v.len() as u128,
    )?;
    let mut out = String::with_capacity(lead.len() + pad.len() * lines + v.len());
    out.push_str(lead);
    for (i, line) in v.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&pad);
        out.push_str(line);
    }
    Ok(out)
}

/// `strings.SplitN(s, sep, n)` (n < 0: all parts).
pub(crate) fn split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && (n as usize) < chars.len() {
            let k = n as usize - 1;
            let head: usize = chars[..k].iter().map(String::len).sum();
            let mut out: Vec<String> = chars[..k].to_vec();
            out.push(s[head..].to_string());
            return out;
        }
        return chars;
    }
    if n < 0 {
        s.split(sep).map(String::from).collect()
    } else {
        s.splitn(n as usize, sep).map(String::from).collect()
    }
}

/// Sprig's `split`/`splitn` result: a `map[string]string` keyed `_0`, `_1`, ….
fn parts_map(parts: Vec<String>) -> Value {
    let m: BTreeMap<String, Value> = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::from(p)))
        .collect();
    Value::typed_map(kubepkg_value::MapType::String, m)
}

/// Sprig's `strslice`: a `[]string` from any slice (nils dropped) or a single value.
pub(crate) fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(items, ElemType::String) => items.iter().map(cast::strval).collect(),
        Value::List(items, _) => items
            .iter()
            .filter(|x| !x.is_nil())
            .map(cast::strval)
            .collect(),
        Value::Bytes(b) => b.iter().map(|x| x.to_string()).collect(),
        Value::Nil => Vec::new(),
        other => vec![cast::strval(other)],
    }
}

fn sort_alpha(v: &Value) -> Value {
    match v {
        Value::List(..) | Value::Bytes(_) => {
            let mut l = strslice(v);
            l.sort();
            Value::str_list(l)
        }
        other => Value::str_list([cast::strval(other)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sprig's `indent` as its source states it: `pad + strings.Replace(v, "\n", "\n"+pad, -1)`
    /// with `pad = strings.Repeat(" ", spaces)`; `nindent` is `"\n" + indent(spaces, v)`.
    #[test]
    fn indent_is_sprigs_pad_and_replace() {
        let texts = ["", "a", "a\nb", "a\n", "\n\n", "x\r\ny\n\nz", "ü\n€"];
        for spaces in [0, 1, 2, 8, 63, 64, 65, 200] {
            let pad = " ".repeat(spaces);
            for v in texts {
                let want = format!("{pad}{}", v.replace('\n', &format!("\n{pad}")));
                assert_eq!(
                    indent(spaces as i64, v, ""),
                    Ok(want.clone()),
                    "{spaces} {v:?}"
                );
                assert_eq!(indent(spaces as i64, v, "\n"), Ok(format!("\n{want}")));
            }
        }
        assert_eq!(
            indent(-1, "a", ""),
            Err("strings: negative Repeat count".to_string())
        );
    }

    // Expected values from Sprig's own documentation and tests (strings_test.go).
    #[test]
    fn case_conversions_match_sprig_docs() {
        assert_eq!(camel_to_lower("FirstName", '_'), "first_name");
        assert_eq!(camel_to_lower("FirstName", '-'), "first-name");
        assert_eq!(camel_to_lower("HTTPServer", '_'), "http_server");
        assert_eq!(camel_to_lower("NoHTTPS", '_'), "no_https");
        assert_eq!(camel_to_lower("GO_PATH", '_'), "go_path");
        assert_eq!(camel_to_lower("GO PATH", '_'), "go_path");
        assert_eq!(camel_to_lower("GO-PATH", '_'), "go_path");
        assert_eq!(camel_to_lower("http2xx", '_'), "http_2xx");
        assert_eq!(camel_to_lower("HTTP20xOK", '_'), "http_20x_ok");
        assert_eq!(camel_to_lower("Duration2m3s", '_'), "duration_2m3s");
        assert_eq!(camel_to_lower("Bld4Floor3rd", '_'), "bld4_floor_3rd");
        assert_eq!(pascal_case("http_server"), "HttpServer");
        assert_eq!(pascal_case("_camel_case"), "_CamelCase");
        assert_eq!(pascal_case("no_https"), "NoHttps");
        assert_eq!(pascal_case("all"), "All");
        assert_eq!(swapcase("This Is A.Test"), "tHIS iS a.tEST");
        assert_eq!(title("hello world"), "Hello World");
        assert_eq!(untitle("Hello World"), "hello world");
        assert_eq!(initials("John Doe"), "JD");
    }

    #[test]
    fn goutils_byte_semantics() {
        assert_eq!(abbrev(5, b"hello world"), b"he...");
        assert_eq!(abbrevboth(5, 10, b"1234 5678 9123"), b"...5678...");
        assert_eq!(wrap_custom(b"Hello World", 5, "", false), b"Hello\nWorld");
        assert_eq!(
            wrap_custom(b"Hello World", 5, "<br>", true),
            b"Hello<br>World"
        );
        assert_eq!(trunc(5, b"hello world"), b"hello");
        assert_eq!(trunc(-5, b"hello world"), b"world");
        // A cut inside a character keeps the lone byte, as Go does.
        assert_eq!(trunc(1, "é".as_bytes()), [0xc3]);
        assert_eq!(nospace("hello w o r l d"), "helloworld");
    }

    #[test]
    fn substr_panics_like_go() {
        assert_eq!(substr(0, 5, b"hello world").unwrap(), Value::str("hello"));
        assert_eq!(
            substr(0, 1, "é".as_bytes()).unwrap(),
            Value::NonUtf8String(std::sync::Arc::from(&[0xc3u8][..]))
        );
        assert_eq!(
            substr(7, 3, b"hello").unwrap_err(),
            "runtime error: slice bounds out of range [7:3]"
        );
        assert_eq!(
            substr(7, 10, b"hello").unwrap_err(),
            "runtime error: slice bounds out of range [7:5]"
        );
    }
}
