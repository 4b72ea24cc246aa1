//! Sprig's regular-expression functions with Go's RE2 syntax and semantics on top of the
//! `regex` crate (also RE2-like): Go's ASCII-only `\d \w \s \b` classes, `\Q…\E` literals and
//! Go's error texts (`error parsing regexp: missing closing ): `(a``); the non-`must` variants
//! panic on a bad pattern as Go's `regexp.MustCompile` does.

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::Value;
use regex::Regex;

use crate::args::{int, s};
use crate::{f, gofmt};

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("regexMatch", [String, String], |a| Ok(compile(s(a, 0))
            .map(|r| r.is_match(s(a, 1)))
            .unwrap_or(false)
            .into())),
        f!("mustRegexMatch", [String, String], |a| Ok(compile(s(
            a, 0
        ))?
        .is_match(s(a, 1))
        .into())),
        f!("regexFindAll", [String, String, Int], |a| find_all(
            must(s(a, 0))?,
            s(a, 1),
            int(a, 2)
        )),
        f!("mustRegexFindAll", [String, String, Int], |a| find_all(
            compile(s(a, 0))?,
            s(a, 1),
            int(a, 2)
        )),
        f!("regexFind", [String, String], |a| Ok(must(s(a, 0))?
            .find(s(a, 1))
            .map(|m| m.as_str())
            .unwrap_or("")
            .into())),
        f!("mustRegexFind", [String, String], |a| {
            Ok(compile(s(a, 0))?
                .find(s(a, 1))
                .map(|m| m.as_str())
                .unwrap_or("")
                .into())
        }),
        f!("regexReplaceAll", [String, String, String], |a| Ok(
            replace(&must(s(a, 0))?, s(a, 1), s(a, 2), false)
        )),
        f!("mustRegexReplaceAll", [String, String, String], |a| Ok(
            replace(&compile(s(a, 0))?, s(a, 1), s(a, 2), false)
        )),
        f!("regexReplaceAllLiteral", [String, String, String], |a| Ok(
            replace(&must(s(a, 0))?, s(a, 1), s(a, 2), true)
        )),
        f!(
            "mustRegexReplaceAllLiteral",
            [String, String, String],
            |a| { Ok(replace(&compile(s(a, 0))?, s(a, 1), s(a, 2), true)) }
        ),
        f!("regexSplit", [String, String, Int], |a| Ok(split(
            &must(s(a, 0))?,
            s(a, 1),
            int(a, 2)
        ))),
        f!("mustRegexSplit", [String, String, Int], |a| Ok(split(
            &compile(s(a, 0))?,
            s(a, 1),
            int(a, 2)
        ))),
        f!("regexQuoteMeta", [String], |a| Ok(
            quote_meta(s(a, 0)).into()
        )),
    ]
}

/// `regexp.MustCompile`'s panic text.
fn must(expr: &str) -> Result<Regex, String> {
    compile(expr).map_err(|e| format!("regexp: Compile({}): {e}", go_regexp_quote(expr)))
}

fn go_regexp_quote(s: &str) -> String {
    if !s.contains('`')
        && !s
            .chars()
            .any(|c| c != '\t' && (c.is_control() || c == '\u{FEFF}'))
    {
        format!("`{s}`")
    } else {
        gofmt::quote(s)
    }
}

/// `regexp.Compile` with Go's syntax and error texts. Each pattern is compiled once per
/// process: charts call `regexMatch`/`regexReplaceAll` with the same few literal patterns in
/// every template and `range` iteration, and compiling (the `regex` crate builds its automata
/// up front) costs far more than matching. The cache holds the answer, errors included, for
/// at most [`REGEX_CACHE_ENTRIES`] patterns (it starts over when full, so patterns made from
/// values cannot grow it without bound); a `Regex` is a shared handle, cheap to clone.
pub fn compile(expr: &str) -> Result<Regex, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Cache = Mutex<HashMap<String, Result<Regex, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(expr) {
        return hit.clone();
    }
    let compiled = translate(expr).and_then(|translated| {
        Regex::new(&translated).map_err(|e| rust_error_to_go(expr, &e.to_string()))
    });
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= REGEX_CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(expr.to_string(), compiled.clone());
    compiled
}

/// The most patterns [`compile`] keeps compiled.
pub const REGEX_CACHE_ENTRIES: usize = 1024;

fn perr(code: &str, arg: &str) -> String {
    format!("error parsing regexp: {code}: `{arg}`")
}

/// Rewrites Go-only syntax and checks the errors Go reports but the `regex` crate words
/// differently (or accepts).
fn translate(expr: &str) -> Result<String, String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = String::with_capacity(expr.len() + 8);
    let mut i = 0;
    let mut depth: i64 = 0;
    let mut in_class = false;
    let mut class_start = 0usize;
    let mut prev_repeat = false;
    let mut can_repeat = false;
    let mut last_rep_start = 0usize;
    let mut names: Vec<String> = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&n) = chars.get(i + 1) else {
                return Err(perr("trailing backslash at end of expression", ""));
            };
            let rep = match n {
                'd' => Some("[0-9]"),
                'D' => Some("[^0-9]"),
                'w' => Some("[0-9A-Za-z_]"),
                'W' => Some("[^0-9A-Za-z_]"),
                's' => Some("[\\t\\n\\f\\r ]"),
                'S' => Some("[^\\t\\n\\f\\r ]"),
                'b' if !in_class => Some("(?-u:\\b)"),
                'B' if !in_class => Some("(?-u:\\B)"),
                _ => None,
            };
            if let Some(r) = rep {
                out.push_str(r);
                i += 2;
                prev_repeat = false;
                can_repeat = !matches!(n, 'b' | 'B');
                continue;
            }
            if n == 'Q' && !in_class {
                let rest: String = chars[i + 2..].iter().collect();
                let (lit, after) = match rest.find("\\E") {
                    Some(p) => (rest[..p].to_string(), p + 2),
                    None => (rest.clone(), rest.len()),
                };
                out.push_str(&regex::escape(&lit));
                i += 2 + rest[..after].chars().count();
                prev_repeat = false;
                can_repeat = !lit.is_empty();
                continue;
            }
            let valid = n.is_ascii_punctuation()
                || matches!(
                    n,
                    'a' | 'f'
                        | 't'
                        | 'n'
                        | 'r'
                        | 'v'
                        | 'x'
                        | 'p'
                        | 'P'
                        | 'A'
                        | 'z'
                        | 'C'
                        | 'b'
                        | 'B'
                )
                || ('0'..='7').contains(&n);
            if !valid {
                let mut esc = format!("\\{n}");
                if n.is_alphanumeric() {
                    // Go quotes just the escape.
                } else {
                    esc = format!("\\{n}");
                }
                return Err(perr("invalid escape sequence", &esc));
            }
            if matches!(n, 'p' | 'P') && chars.get(i + 2) == Some(&'{') {
                let rest: String = chars[i..].iter().collect();
                let Some(end) = rest.find('}') else {
                    return Err(perr("invalid character class range", &rest));
                };
                out.push_str(&rest[..=end]);
                i += rest[..=end].chars().count();
                prev_repeat = false;
                can_repeat = true;
                continue;
            }
            if ('1'..='7').contains(&n) && !in_class {
                return Err(perr("invalid escape sequence", &format!("\\{n}")));
            }
            out.push(c);
            out.push(n);
            i += 2;
            prev_repeat = false;
            can_repeat = !matches!(n, 'A' | 'z');
            continue;
        }
        if in_class {
            if c == ']' && i > class_start {
                in_class = false;
                can_repeat = true;
            } else if c == '[' && chars.get(i + 1) == Some(&':') {
                let rest: String = chars[i..].iter().collect();
                if let Some(end) = rest.find(":]") {
                    let cls = &rest[..end + 2];
                    let name = cls[2..cls.len() - 2].trim_start_matches('^');
                    const POSIX: [&str; 14] = [
                        "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
                        "print", "punct", "space", "upper", "word", "xdigit",
                    ];
                    if !POSIX.contains(&name) {
                        return Err(perr("invalid character class range", cls));
                    }
                    out.push_str(cls);
                    i += cls.chars().count();
                    continue;
                }
            } else if c != '\\'
                && chars.get(i + 1) == Some(&'-')
                && chars
                    .get(i + 2)
                    .is_some_and(|h| *h != ']' && *h != '\\' && *h != '[')
            {
                let hi = chars[i + 2];
                if hi < c {
                    return Err(perr("invalid character class range", &format!("{c}-{hi}")));
                }
            } else if c == '[' {
                out.push_str("\\[");
                i += 1;
                continue;
            } else if matches!(c, '&' | '~' | '-') && chars.get(i + 1) == Some(&c) {
                out.push('\\');
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                class_start = i + 1;
                if chars.get(i + 1) == Some(&'^') {
                    out.push_str("[^");
                    i += 2;
                    class_start = i;
                    if chars.get(i) == Some(&']') {
                        out.push_str("\\]");
                        i += 1;
                    }
                    continue;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("[\\]");
                    i += 2;
                    class_start = i;
                    continue;
                }
                out.push('[');
                i += 1;
                continue;
            }
            '(' => {
                depth += 1;
                can_repeat = false;
                prev_repeat = false;
                if chars.get(i + 1) == Some(&'?') {
                    // Go supports (?flags), (?flags:…), (?P<name>…), (?<name>…).
                    let rest: String = chars[i + 2..].iter().collect();
                    let named = rest.starts_with("P<") || rest.starts_with('<');
                    let flags: String = rest
                        .chars()
                        .take_while(|c| *c != ')' && *c != ':')
                        .collect();
                    let flags_ok = !flags.is_empty()
                        && flags
                            .chars()
                            .all(|c| matches!(c, 'i' | 'm' | 's' | 'U' | '-'))
                        && rest.len() > flags.len();
                    if named {
                        let Some(end) = rest.find('>') else {
                            return Err(perr("invalid named capture", expr));
                        };
                        let prefix = if rest.starts_with("P<") { "P<" } else { "<" };
                        let name = &rest[prefix.len()..end];
                        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
                        {
                            return Err(perr(
                                "invalid named capture",
                                &format!("(?{}", &rest[..=end]),
                            ));
                        }
                        // Go allows repeated names (the first wins); the regex crate does not.
                        let unique = if names.iter().any(|n| n == name) {
                            format!("{name}__kubepkg_dup{}", names.len())
                        } else {
                            name.to_string()
                        };
                        names.push(name.to_string());
                        out.push_str(&format!("(?P<{unique}>"));
                        i += 2 + rest[..=end].chars().count();
                        continue;
                    }
                    if !flags_ok {
                        let shown: String = chars[i..(i + 3).min(chars.len())].iter().collect();
                        return Err(perr("invalid or unsupported Perl syntax", &shown));
                    }
                    let closer = rest[flags.len()..].chars().next().unwrap_or(')');
                    if closer == ')' {
                        depth -= 1;
                    }
                    out.push_str("(?");
                    out.push_str(&flags);
                    out.push(closer);
                    i += 2 + flags.chars().count() + 1;
                    continue;
                }
            }
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(perr("unexpected )", expr));
                }
                can_repeat = true;
                prev_repeat = false;
            }
            '*' | '+' | '?' => {
                if prev_repeat && !(c == '?' && chars.get(i.wrapping_sub(1)) != Some(&'?')) {
                    let shown: String = chars[last_rep_start..=i].iter().collect();
                    return Err(perr("invalid nested repetition operator", &shown));
                }
                if !can_repeat && !prev_repeat {
                    return Err(perr(
                        "missing argument to repetition operator",
                        &c.to_string(),
                    ));
                }
                if prev_repeat && c == '?' {
                    // Lazy modifier.
                    out.push(c);
                    i += 1;
                    prev_repeat = false;
                    can_repeat = false;
                    continue;
                }
                prev_repeat = true;
                last_rep_start = i;
                out.push(c);
                i += 1;
                continue;
            }
            '{' | '}' => {
                if c == '{' {
                    let rest: String = chars[i..].iter().collect();
                    if let Some(end) = rest.find('}') {
                        let body = &rest[1..end];
                        let parts: Vec<&str> = body.splitn(2, ',').collect();
                        let numeric = !parts[0].is_empty()
                            && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
                        if numeric {
                            let lo: i64 = parts[0].parse().unwrap_or(i64::MAX);
                            let hi: i64 = match parts.get(1) {
                                Some(p) if !p.is_empty() => p.parse().unwrap_or(i64::MAX),
                                Some(_) => -1,
                                None => lo,
                            };
                            let rep = &rest[..end + 1];
                            if lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo) {
                                return Err(perr("invalid repeat count", rep));
                            }
                            if !can_repeat && !prev_repeat {
                                return Err(perr("missing argument to repetition operator", rep));
                            }
                            if prev_repeat {
                                let n = rep.chars().count();
                                let shown: String = chars[last_rep_start..i + n].iter().collect();
                                return Err(perr("invalid nested repetition operator", &shown));
                            }
                            out.push_str(rep);
                            last_rep_start = i;
                            i += rep.chars().count();
                            prev_repeat = true;
                            continue;
                        }
                    }
                }
                // A brace that opens no repetition, or closes one, is a literal.
                out.push('\\');
                out.push(c);
                i += 1;
                can_repeat = true;
                prev_repeat = false;
                continue;
            }
            '|' => {
                can_repeat = false;
                prev_repeat = false;
            }
            '^' | '$' => {
                can_repeat = true;
                prev_repeat = false;
            }
            _ => {
                can_repeat = true;
                prev_repeat = false;
            }
        }
        out.push(c);
        i += 1;
    }
    if in_class {
        let start: String = chars[class_start.saturating_sub(1)..].iter().collect();
        let start = if start.starts_with('[') {
            start
        } else {
            format!("[{start}")
        };
        return Err(perr("missing closing ]", &start));
    }
    if depth > 0 {
        return Err(perr("missing closing )", expr));
    }
    Ok(out)
}

fn rust_error_to_go(expr: &str, msg: &str) -> String {
    if msg.contains("invalid character class range") || msg.contains("class range") {
        return perr("invalid character class range", expr);
    }
    if msg.contains("exceeds size limit") || msg.contains("size limit") {
        return perr("expression too large", expr);
    }
    if msg.contains("Unicode property") || msg.contains("unicode class") {
        return perr("invalid character class range", expr);
    }
    let first = msg.lines().last().unwrap_or(msg).trim();
    format!("error parsing regexp: {first}: `{expr}`")
}

fn find_all(r: Regex, s: &str, n: i64) -> FuncResult {
    let it = r.find_iter(s).map(|m| m.as_str().to_string());
    let v: Vec<String> = if n < 0 {
        it.collect()
    } else {
        it.take(n as usize).collect()
    };
    if v.is_empty() {
        // Go returns a nil []string.
        return Ok(Value::str_list(Vec::<String>::new()));
    }
    Ok(Value::str_list(v))
}

/// Go's `Regexp.ReplaceAllString` template expansion (`$1`, `${name}`, `$$`).
fn expand(template: &str, caps: &regex::Captures<'_>, r: &Regex) -> String {
    let mut out = String::new();
    let b = template.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            let ch = template[i..].chars().next().unwrap_or('$');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if i + 1 < b.len() && b[i + 1] == b'$' {
            out.push('$');
            i += 2;
            continue;
        }
        let (name, next) = if i + 1 < b.len() && b[i + 1] == b'{' {
            match template[i + 2..].find('}') {
                Some(e) => {
                    let name = &template[i + 2..i + 2 + e];
                    if name.is_empty()
                        || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
                    {
                        (None, i + 1)
                    } else {
                        (Some(name), i + 3 + e)
                    }
                }
                None => (None, i + 1),
            }
        } else {
            let e = template[i + 1..]
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            if e == 0 {
                (None, i + 1)
            } else {
                (Some(&template[i + 1..i + 1 + e]), i + 1 + e)
            }
        };
        match name {
            None => {
                out.push('$');
                i = next;
            }
            Some(name) => {
                let m = if let Ok(n) = name.parse::<usize>() {
                    caps.get(n)
                } else {
                    let _ = r;
                    caps.name(name)
                };
                if let Some(m) = m {
                    out.push_str(m.as_str());
                }
                i = next;
            }
        }
    }
    out
}

fn replace(r: &Regex, s: &str, repl: &str, literal: bool) -> Value {
    if literal {
        return r.replace_all(s, regex::NoExpand(repl)).into_owned().into();
    }
    r.replace_all(s, |caps: &regex::Captures<'_>| expand(repl, caps, r))
        .into_owned()
        .into()
}

/// Go's `Regexp.Split(s, n)`.
fn split(r: &Regex, s: &str, n: i64) -> Value {
    if n == 0 {
        return Value::str_list(Vec::<String>::new());
    }
    if !r.as_str().is_empty() && s.is_empty() {
        return Value::str_list([""]);
    }
    let it = r.find_iter(s).map(|m| (m.start(), m.end()));
    let matches: Vec<(usize, usize)> = if n > 0 {
        it.take(n as usize).collect()
    } else {
        it.collect()
    };
    let mut out: Vec<String> = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for (ms, me) in matches {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = ms;
        if me != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = me;
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    Value::str_list(out)
}

/// `regexp.QuoteMeta`.
fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values from Sprig's docs (strings.md) and Go's regexp documentation.
    #[test]
    fn regex_functions_match_go() {
        let r = compile("a(x*)b").unwrap();
        assert_eq!(
            replace(&r, "-ab-axxb-", "${1}W", false),
            Value::str("-W-xxW-")
        );
        assert_eq!(replace(&r, "-ab-axxb-", "$1W", false), Value::str("---"));
        assert_eq!(
            replace(&r, "-ab-axxb-", "${1}", true),
            Value::str("-${1}-${1}-")
        );
        let r = compile("a*").unwrap();
        assert_eq!(
            split(&r, "abaabaccadaaae", 5),
            Value::str_list(["", "b", "b", "c", "cadaaae"])
        );
        assert!(compile(r"\d+").unwrap().is_match("a1"));
        assert!(!compile(r"^\d$").unwrap().is_match("٣"));
        crate::assert_refusals(
            compile,
            &[
                ("(a", "error parsing regexp: missing closing ): `(a`"),
                ("a)", "error parsing regexp: unexpected ): `a)`"),
                ("[a", "error parsing regexp: missing closing ]: `[a`"),
                (
                    "*a",
                    "error parsing regexp: missing argument to repetition operator: `*`",
                ),
                (
                    "a**",
                    "error parsing regexp: invalid nested repetition operator: `**`",
                ),
            ],
        );
        assert_eq!(quote_meta("1.5-2.0?"), "1\\.5-2\\.0\\?");
        assert!(compile("(?i)^h").unwrap().is_match("Hello"));
        assert!(compile(r"\p{Greek}+").unwrap().is_match("αβγ"));
        let r = compile(r"(?P<n>\w+)@(\w+)").unwrap();
        assert_eq!(
            replace(&r, "me@host", "$2 at ${n}", false),
            Value::str("host at me")
        );
    }
}
