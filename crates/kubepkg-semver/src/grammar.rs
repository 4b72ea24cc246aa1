//! Masterminds' version and constraint grammar read by hand: what its regular expressions
//! (`versionRegex`, `constraintRegex`, `findConstraintRegex`, `validConstraintRegex`,
//! `constraintRangeRegex`, RE2 syntax) match, with the same leftmost-first choices. Every
//! piece of that grammar is followed by a character it cannot continue with (a version by a
//! space, a comma or the end, an operator by a version), so the first match is always the
//! longest one and the matchers below never back up. They replace compiling five expressions
//! per process (~0.3 ms) and running them (~12 µs a constraint); the tests hold them to the
//! expressions themselves.

use std::ops::Range;

/// RE2's `\s`: `[\t\n\f\r ]` (no vertical tab).
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// A prerelease or build identifier's character: `[0-9A-Za-z-]`.
fn is_identifier(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// A number of a version as a constraint writes it: `[0-9|x|X|\*]` (the `|` is Masterminds').
fn is_constraint_digit(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'|' | b'x' | b'X' | b'*')
}

/// An operator's character.
fn is_operator(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'>' | b'<' | b'~' | b'^')
}

/// The operators a comparison may start with (and none, which means `=`).
const OPERATORS: [&str; 11] = ["=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"];

/// Where the parts of a version lie in the text it was matched in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionSpans {
    /// The whole version, a leading `v` included.
    pub whole: Range<usize>,
    pub major: Range<usize>,
    /// `.MINOR` with its dot (empty when absent).
    pub minor: Range<usize>,
    /// `.PATCH` with its dot (empty when absent).
    pub patch: Range<usize>,
    /// `-PRERELEASE` with its dash (empty when absent).
    pub pre: Range<usize>,
    /// `+BUILD` with its plus (empty when absent).
    pub build: Range<usize>,
}

/// `v?(D+)(\.D+)?(\.D+)?(-(I+(\.I+)*))?(\+(I+(\.I+)*))?` at `start` of `s`, each part as long as
/// it goes, where `D` is `digit` and `I` an identifier character.
pub(crate) fn version_at(s: &[u8], start: usize, digit: fn(u8) -> bool) -> Option<VersionSpans> {
    let at = |i: usize, f: &dyn Fn(u8) -> bool| s.get(i).is_some_and(|&b| f(b));
    let run = |mut i: usize, f: &dyn Fn(u8) -> bool| {
        while at(i, f) {
            i += 1;
        }
        i
    };
    let mut i = start;
    if s.get(i) == Some(&b'v') {
        i += 1;
    }
    let major = i..run(i, &digit);
    if major.is_empty() {
        return None;
    }
    i = major.end;
    let dotted = |i: &mut usize| {
        let from = *i;
        if s.get(from) == Some(&b'.') && at(from + 1, &digit) {
            *i = run(from + 1, &digit);
        }
        from..*i
    };
    let minor = dotted(&mut i);
    let patch = dotted(&mut i);
    // `-` or `+`, then identifiers separated by single dots.
    let tagged = |i: &mut usize, mark: u8| {
        let from = *i;
        if s.get(from) == Some(&mark) && at(from + 1, &is_identifier) {
            let mut end = run(from + 1, &is_identifier);
            while s.get(end) == Some(&b'.') && at(end + 1, &is_identifier) {
                end = run(end + 1, &is_identifier);
            }
            *i = end;
        }
        from..*i
    };
    let pre = tagged(&mut i, b'-');
    let build = tagged(&mut i, b'+');
    Some(VersionSpans {
        whole: start..i,
        major,
        minor,
        patch,
        pre,
        build,
    })
}

/// `versionRegex` (anchored): the spans of all of `v`, or `None`.
pub(crate) fn version(v: &str) -> Option<VersionSpans> {
    version_at(v.as_bytes(), 0, |b| b.is_ascii_digit()).filter(|m| m.whole.end == v.len())
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|&b| is_space(b)) {
        i += 1;
    }
    i
}

/// A hyphen range as `constraintRangeRegex` finds it: the text it spans (its spaces around
/// included) and its two versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HyphenRange {
    pub whole: Range<usize>,
    pub low: Range<usize>,
    pub high: Range<usize>,
}

/// Every hyphen range of `c` (`\s*(V)\s+-\s+(V)\s*`), left to right, not overlapping.
pub(crate) fn hyphen_ranges(c: &str) -> Vec<HyphenRange> {
    let s = c.as_bytes();
    let at = |start: usize| {
        let low = version_at(s, skip_spaces(s, start), is_constraint_digit)?.whole;
        let dash = skip_spaces(s, low.end);
        if dash == low.end || s.get(dash) != Some(&b'-') {
            return None;
        }
        let high_start = skip_spaces(s, dash + 1);
        if high_start == dash + 1 {
            return None;
        }
        let high = version_at(s, high_start, is_constraint_digit)?.whole;
        Some(HyphenRange {
            whole: start..skip_spaces(s, high.end),
            low,
            high,
        })
    };
    let mut found = Vec::new();
    let mut start = 0;
    while start < s.len() {
        match at(start) {
            Some(r) => {
                start = r.whole.end;
                found.push(r);
            }
            None => start += 1,
        }
    }
    found
}

/// One comparison of a constraint: its operator (empty for none) and its version's spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ComparisonSpans {
    pub op: Range<usize>,
    pub version: VersionSpans,
}

/// The comparisons of one `||` alternative when all of it is a list of them
/// (`validConstraintRegex`: comparisons separated by spaces or a comma), as
/// `findConstraintRegex` then finds them; `None` when it is not such a list.
pub(crate) fn comparisons(alternative: &str) -> Option<Vec<ComparisonSpans>> {
    let s = alternative.as_bytes();
    let mut found = Vec::new();
    let mut i = skip_spaces(s, 0);
    loop {
        let op_start = i;
        while s.get(i).is_some_and(|&b| is_operator(b)) {
            i += 1;
        }
        let op = &alternative[op_start..i];
        if !op.is_empty() && !OPERATORS.contains(&op) {
            return None;
        }
        let version = version_at(s, skip_spaces(s, i), is_constraint_digit)?;
        let end = version.whole.end;
        found.push(ComparisonSpans {
            op: op_start..i,
            version,
        });
        i = skip_spaces(s, end);
        if i == s.len() {
            return Some(found);
        }
        if s[i] == b',' {
            i = skip_spaces(s, i + 1);
        } else if i == end {
            // Neither a space nor a comma after a comparison.
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    //! The oracle: Masterminds' expressions (semver v3.5, `version.go` and `constraints.go`)
    //! run by a regular-expression engine, with `\s` spelled as RE2 defines it.

    use super::*;
    use regex_lite::Regex;

    const S: &str = r"[\t\n\f\r ]";
    const LOOSE: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
    const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
    const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

    struct Oracle {
        version: Regex,
        range: Regex,
        valid: Regex,
        find: Regex,
        constraint: Regex,
    }

    fn oracle() -> Oracle {
        let re = |p: String| Regex::new(&p.replace(r"\s", S)).unwrap();
        Oracle {
            version: re(format!("^{LOOSE}$")),
            range: re(format!(r"\s*({CV})\s+-\s+({CV})\s*")),
            valid: re(format!(
                r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"
            )),
            find: re(format!(r"({OPS})\s*({CV})")),
            constraint: re(format!(r"^\s*({OPS})\s*({CV})\s*$")),
        }
    }

    /// The spans of a version as the expression's groups give them (`first` = its major's).
    fn spans(c: &regex_lite::Captures, whole: usize, first: usize) -> VersionSpans {
        let at = |i: usize, or: usize| c.get(i).map_or(or..or, |m| m.range());
        let whole = at(whole, 0);
        let major = at(first, 0);
        let minor = at(first + 1, major.end);
        let patch = at(first + 2, minor.end);
        let pre = at(first + 3, patch.end);
        let build = at(first + 6, pre.end);
        VersionSpans {
            whole,
            major,
            minor,
            patch,
            pre,
            build,
        }
    }

    fn expected_version(o: &Oracle, v: &str) -> Option<VersionSpans> {
        o.version.captures(v).map(|c| spans(&c, 0, 1))
    }

    fn expected_ranges(o: &Oracle, c: &str) -> Vec<HyphenRange> {
        o.range
            .captures_iter(c)
            .map(|m| HyphenRange {
                whole: m.get(0).unwrap().range(),
                low: m.get(1).unwrap().range(),
                high: m.get(11).unwrap().range(),
            })
            .collect()
    }

    /// The operator and version text of each comparison `findConstraintRegex` finds, read
    /// again by `constraintRegex` as `parseConstraint` does.
    fn expected_comparisons(o: &Oracle, v: &str) -> Option<Vec<(String, String, VersionSpans)>> {
        if !o.valid.is_match(v) {
            return None;
        }
        let found: Vec<(String, String, VersionSpans)> = o
            .find
            .find_iter(v)
            .map(|m| {
                let c = o.constraint.captures(m.as_str()).unwrap();
                let text = |r: std::ops::Range<usize>| m.as_str()[r].to_string();
                let s = spans(&c, 2, 3);
                let rebased = |r: std::ops::Range<usize>| r.start + m.start()..r.end + m.start();
                let s = VersionSpans {
                    whole: rebased(s.whole),
                    major: rebased(s.major),
                    minor: rebased(s.minor),
                    patch: rebased(s.patch),
                    pre: rebased(s.pre),
                    build: rebased(s.build),
                };
                (
                    text(c.get(1).unwrap().range()),
                    text(c.get(2).unwrap().range()),
                    s,
                )
            })
            .collect();
        Some(found)
    }

    fn actual_comparisons(v: &str) -> Option<Vec<(String, String, VersionSpans)>> {
        comparisons(v).map(|cs| {
            cs.into_iter()
                .map(|c| {
                    (
                        v[c.op.clone()].to_string(),
                        v[c.version.whole.clone()].to_string(),
                        c.version,
                    )
                })
                .collect()
        })
    }

    fn check(o: &Oracle, input: &str) {
        let expected = expected_version(o, input);
        assert_eq!(version(input), expected, "version {input:?}");
        assert_eq!(
            hyphen_ranges(input),
            expected_ranges(o, input),
            "range {input:?}"
        );
        assert_eq!(
            actual_comparisons(input),
            expected_comparisons(o, input),
            "comparisons {input:?}"
        );
    }

    #[test]
    fn written_cases_match_the_expressions() {
        let o = oracle();
        for input in [
            "",
            "1",
            "v1",
            "v",
            "1.2.3",
            "v1.2.3-rc.1+b.5",
            "1.2.3.4",
            "1..2",
            "01.2",
            "1.2-",
            "1.2-a.",
            "1.2-a..b",
            "1.2+",
            "1.2+a.b-c",
            "1.2-a+b+c",
            "1.2.x",
            "x",
            "*",
            "1|2",
            ">=1.2",
            ">= 1.2",
            "=>1",
            "=<1",
            "~>1.4",
            "^2",
            "!=1",
            "<>1",
            "=>=1",
            "> =1",
            ">=1.2, <2",
            ">=1.2 <2",
            ">=1.2,,<2",
            ">=1.2 ,<2",
            "1.2,",
            ",1.2",
            " 1.2 ",
            "1.2\x0B",
            "\t>=\n1.2\r",
            "1.2 - 1.4",
            "1.2 -1.4",
            "1.2- 1.4",
            ">=1.2 - 3",
            "1.2.3.4 - 5",
            "a 1 - 2 b",
            "1 - 2 - 3",
            "1 - 2 3 - 4",
            "v1.2-beta - v2.0+b ",
            "é1 - 2",
            "1.2 - 1.4.5.6",
            "x - X",
            "1.2-3 - 4",
        ] {
            check(&o, input);
        }
    }

    #[test]
    fn generated_cases_match_the_expressions() {
        let o = oracle();
        let pieces = [
            "1",
            "2",
            "0",
            "12",
            ".",
            "v",
            "x",
            "X",
            "*",
            "|",
            "-",
            "+",
            "a",
            "rc",
            "é",
            " ",
            " ",
            "\t",
            "\x0B",
            ",",
            "=",
            "!",
            ">",
            "<",
            "~",
            "^",
            ">=",
            "<=",
            "~>",
            " - ",
            "1.2.3",
            "v1.2",
            "1.2-beta.1",
            "+b.5",
            "||",
        ];
        // A fixed xorshift sequence: the same cases on every run.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..40_000 {
            let len = (next() % 9) as usize;
            let input: String = (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            check(&o, &input);
        }
    }
}
