//! Reading YAML as Helm does: `sigs.k8s.io/yaml.Unmarshal`.
//!
//! Three stages, each mirroring Go:
//! 1. **Parse** (saphyr-parser's event stream) into a node tree of the *first* document only,
//!    with anchors and aliases, as go-yaml v2's parser does (later documents are not read).
//! 2. **Decode** the tree as go-yaml v2 decodes into `interface{}`: YAML 1.1 scalar resolution
//!    ([`crate::resolve`]), `<<` merge keys (a mapping, an alias to one, or a list of them; later
//!    entries win over earlier ones and merged keys overwrite keys seen before the `<<`),
//!    duplicate keys silently keep the last value (Helm's non-strict decoding), quoted scalars are
//!    always strings, explicit tags (`!!str`, `!!int`, `!!binary`) are honoured.
//! 3. **Convert to JSON** like `sigs.k8s.io/yaml`: map keys become strings (`1` → `"1"`, `true` →
//!    `"true"`, floats with 32-bit `%g`), numbers become `float64`, `.inf`/`.nan` are errors,
//!    invalid UTF-8 from `!!binary` becomes U+FFFD.
//!
//! A located reading ([`crate::located`]) runs the same stages and also keeps where each node
//! starts (`Positions`, only when asked: Helm's readings keep no positions).
//!
//! Limits: nesting deeper than [`MAX_DEPTH`] (1000) levels is an error, `exceeded max depth of
//! 1000`. go-yaml allows 10 000, but kubepkg values are dropped recursively and a 10 000-deep
//! value can exhaust a 2 MiB thread stack; no real chart comes close to 1000 levels.
//! alias expansion is bounded by the ratio rule of go-yaml (once more than 100 alias-driven
//! and 1000 total decode steps happened, at most 99% of steps may come from aliases for
//! documents under 400 000 steps, falling linearly to 10% at 4 000 000), which stops
//! "billion laughs" documents with `document contains excessive aliasing` after a bounded amount
//! of work; an alias to an enclosing node is `anchor 'x' value contains itself`.

use std::collections::{BTreeMap, HashMap};

use kubepkg_value::Value;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

use crate::error::YamlError;
use crate::mark::Mark;
use crate::resolve::{Kind, Scalar, resolve_plain, resolve_tagged};
use kubepkg_gostd::strconv::format_float;

/// Deepest nesting of collections accepted when reading YAML or JSON (go-yaml: 10 000).
pub const MAX_DEPTH: usize = 1_000;

/// Nesting deeper than [`MAX_DEPTH`], found on `line`.
pub(crate) fn depth_error(line: Option<usize>) -> YamlError {
    syntax(
        line,
        format!("exceeded max depth of {MAX_DEPTH} (kubepkg's nesting limit; Helm's is 10000)"),
    )
}

/// Recursion over deeply nested documents grows the stack on the heap (`stacker`) instead of
/// overflowing it: when less than `RED_ZONE` bytes remain, a new `STACK_CHUNK` segment is used.
pub(crate) const RED_ZONE: usize = 64 * 1024;
pub(crate) const STACK_CHUNK: usize = 1024 * 1024;

/// The Go type `Unmarshal` decodes into; it decides the result for non-matching shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `interface{}`
    Any,
    /// `map[string]interface{}`
    Map,
    /// `[]interface{}`
    List,
}

/// A scalar's text in the node arena: a range of the document's text (bytes `start..end`),
/// or text of its own (unescaped, folded or repaired).
#[derive(Debug)]
pub(crate) enum ScalarText {
    Span(usize, usize),
    Own(String),
}

impl ScalarText {
    /// The text, `src` being the document the arena was read from.
    pub(crate) fn get<'a>(&'a self, src: &'a str) -> &'a str {
        match self {
            ScalarText::Span(start, end) => &src[*start..*end],
            ScalarText::Own(text) => text,
        }
    }
}

#[derive(Debug)]
pub(crate) enum Node {
    Scalar {
        value: ScalarText,
        tag: Option<String>,
        plain: bool,
    },
    Seq(Vec<usize>),
    Map(Vec<(usize, usize)>),
    /// An alias; `at` is its character position, used to name it in errors.
    Alias {
        at: usize,
        target: usize,
    },
}

/// A value as go-yaml v2 decodes it into `interface{}` (before the JSON step).
#[derive(Debug, Clone)]
pub(crate) enum GoYaml {
    Scalar(Scalar),
    /// A string from `!!binary`, possibly not UTF-8.
    Bytes(Vec<u8>),
    Seq(Vec<GoYaml>),
    /// `map[interface{}]interface{}`, in insertion order with later duplicates replacing.
    Map(Vec<(GoYaml, GoYaml)>),
}

fn syntax(line: Option<usize>, message: impl Into<String>) -> YamlError {
    YamlError::Syntax {
        line,
        message: message.into(),
    }
}

/// Which half of libyaml raised an error: go-yaml computes the reported line differently.
#[derive(Clone, Copy)]
enum Stage {
    /// Scanner errors name the 1-based line of the problem, or none on the first line.
    Scanner,
    /// Parser errors name the 0-based line of the problem (so effectively the line before),
    /// or none when that is 0.
    Parser,
    /// The problem is at the end of the input (a scanner error at EOF).
    ScannerAtEof,
}

/// Translate saphyr-parser's error into go-yaml v2's problem text and line.
pub(crate) fn scan_error(src: &str, e: &ScanError) -> YamlError {
    scan_error_stage(src, e).0
}

/// [`scan_error`] plus whether libyaml's scanner (rather than its parser) raises it.
fn scan_error_stage(src: &str, e: &ScanError) -> (YamlError, bool) {
    let info = e.info();
    if info == "recursion limit exceeded" {
        // saphyr-parser counts flow nesting in a u8; go-yaml would accept up to 10 000 levels.
        let err = syntax(
            (e.marker().line() > 1).then_some(e.marker().line()),
            "flow collections nested deeper than 255 levels are not supported",
        );
        return (err, true);
    }
    if info.starts_with("while parsing node, found unknown anchor") {
        let name = name_at(src, e.marker().index());
        return (
            syntax(None, format!("unknown anchor '{name}' referenced")),
            false,
        );
    }
    let table: &[(&str, &str, Stage)] = &[
        (
            "is only valid inside a block",
            "did not find expected node content",
            Stage::Parser,
        ),
        (
            "simple key expected",
            "could not find expected ':'",
            Stage::Scanner,
        ),
        (
            "misplaced bracket",
            "did not find expected node content",
            Stage::Parser,
        ),
        (
            "did not find expected hexadecimal number",
            "did not find expected hexdecimal number",
            Stage::Scanner,
        ),
        (
            "unknown directive name",
            "found unknown directive name",
            Stage::Scanner,
        ),
        (
            // libyaml reports the problem without saphyr's "while scanning a directive" context.
            "could not find expected directive name",
            "could not find expected directive name",
            Stage::Scanner,
        ),
        (
            "mapping values are not allowed in this context",
            "mapping values are not allowed in this context",
            Stage::Scanner,
        ),
        (
            "block sequence entries are not allowed",
            "block sequence entries are not allowed in this context",
            Stage::Scanner,
        ),
        (
            "did not find expected key",
            "did not find expected key",
            Stage::Parser,
        ),
        (
            "expected ',' or ']'",
            "did not find expected ',' or ']'",
            Stage::Parser,
        ),
        (
            // A `key: value` pair in a flow sequence whose key starts on an earlier line:
            // libyaml's scanner drops the key, and its parser meets the `:`.
            "illegal placement of ':' indicator",
            "did not find expected ',' or ']'",
            Stage::Parser,
        ),
        (
            "expected ',' or '}'",
            "did not find expected ',' or '}'",
            Stage::Parser,
        ),
        (
            "did not find expected '-' indicator",
            "did not find expected '-' indicator",
            Stage::Parser,
        ),
        (
            "did not find expected node content",
            "did not find expected node content",
            Stage::Parser,
        ),
        (
            "did not find expected <document start>",
            "did not find expected <document start>",
            Stage::Parser,
        ),
        (
            "duplicate version directive",
            "found duplicate %YAML directive",
            Stage::Parser,
        ),
        (
            "found unexpected end of stream",
            "found unexpected end of stream",
            Stage::ScannerAtEof,
        ),
        (
            "simple key expect ':'",
            "could not find expected ':'",
            Stage::Scanner,
        ),
        (
            "could not find expected ':'",
            "could not find expected ':'",
            Stage::Scanner,
        ),
        (
            "tabs disallowed",
            "found character that cannot start any token",
            Stage::Scanner,
        ),
        (
            "unexpected character",
            "found character that cannot start any token",
            Stage::Scanner,
        ),
        (
            "cannot start any token",
            "found character that cannot start any token",
            Stage::Scanner,
        ),
        (
            "did not find expected comment or line break",
            "did not find expected comment or line break",
            Stage::Scanner,
        ),
        (
            "found unknown escape character",
            "found unknown escape character",
            Stage::Scanner,
        ),
    ];
    let (msg, stage) = table
        .iter()
        .find(|(needle, _, _)| info.contains(needle))
        .map(|(_, m, st)| (m.to_string(), *st))
        .unwrap_or_else(|| (info.to_string(), Stage::Scanner));
    let line1 = e.marker().line();
    let line = match stage {
        Stage::Scanner => (line1 > 1).then_some(line1),
        Stage::Parser => (line1 > 1).then(|| line1 - 1),
        Stage::ScannerAtEof => {
            let eof0 = src.matches('\n').count();
            (eof0 > 0).then_some(eof0 + 1)
        }
    };
    (syntax(line, msg), !matches!(stage, Stage::Parser))
}

/// go-yaml (libyaml) accepts only `%YAML 1.1`; any other version is an incompatible document.
pub(crate) fn check_yaml_directive(src: &str) -> Result<(), YamlError> {
    for (i, line) in src.lines().enumerate() {
        let t = line.trim_end();
        if t.starts_with("---") || (!t.starts_with('%') && !t.starts_with('#') && !t.is_empty()) {
            break;
        }
        if let Some(v) = t.strip_prefix("%YAML") {
            let v = v.split('#').next().unwrap_or("").trim();
            if v != "1.1"
                && !v.is_empty()
                && v.split('.').all(|p| p.chars().all(|c| c.is_ascii_digit()))
            {
                return Err(syntax(
                    (i > 0).then_some(i),
                    "found incompatible YAML document",
                ));
            }
        }
    }
    Ok(())
}

/// The anchor/alias name starting at character index `idx` (after `*` or `&`).
pub(crate) fn name_at(src: &str, idx: usize) -> String {
    let byte = src
        .char_indices()
        .nth(idx)
        .map(|(b, _)| b)
        .unwrap_or(src.len());
    let rest = src[byte..].trim_start_matches(['*', '&']);
    rest.chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .collect()
}

/// The column of the outermost open collection that starts with `[` or `{` (a flow
/// collection), if any. `open` holds (character index, column) pairs in ascending order.
fn outermost_flow_column(src: &str, open: &[(usize, usize)]) -> Option<usize> {
    let mut chars = src.chars().enumerate();
    open.iter().find_map(|&(at, col)| {
        chars
            .find(|&(i, _)| i == at)
            .filter(|&(_, c)| c == '[' || c == '{')
            .map(|_| col)
    })
}

/// libyaml's error for a token that follows a quoted scalar on its line (saphyr-parser refuses
/// the trailing content itself). `at` is the character index of that content, `line1` its
/// 1-based line, `innermost` the innermost open collection (`Some('[' | '{')` if flow, whether
/// it is a sequence), if any. `None`: the quoted scalar is the document's root, which go-yaml
/// reads without looking at what follows unless the scanner fails on it.
fn trailing_content_error(
    src: &str,
    at: usize,
    line1: usize,
    innermost: Option<(Option<char>, bool)>,
) -> Option<YamlError> {
    let rest: Vec<char> = src.chars().skip(at).take_while(|&c| c != '\n').collect();
    let blank_after = |i: usize| rest.get(i).is_none_or(|c| matches!(c, ' ' | '\t' | '\r'));
    let scanner = |m: &str| Some(syntax((line1 > 1).then_some(line1), m));
    let flow = matches!(innermost, Some((Some(_), _)));
    match rest.first() {
        Some('@' | '`') => return scanner("found character that cannot start any token"),
        Some('|' | '>') if flow => return scanner("found character that cannot start any token"),
        Some('|' | '>') => {
            // A block scalar header: chomping and indentation indicators, then a comment or
            // the end of the line.
            let mut i = 1;
            let (mut chomp, mut indent) = (false, false);
            while let Some(&c) = rest.get(i) {
                match c {
                    '+' | '-' if !chomp => chomp = true,
                    '1'..='9' if !indent => indent = true,
                    _ => break,
                }
                i += 1;
            }
            while matches!(rest.get(i), Some(' ' | '\t')) {
                i += 1;
            }
            let ok = match rest.get(i) {
                None | Some('\r') => true,
                Some('#') => i > 0 && matches!(rest[i - 1], ' ' | '\t'),
                _ => false,
            };
            if !ok {
                return scanner("did not find expected comment or line break");
            }
        }
        Some('-') if !flow && blank_after(1) => {
            return scanner("block sequence entries are not allowed in this context");
        }
        Some('?') if !flow && blank_after(1) => {
            return scanner("mapping keys are not allowed in this context");
        }
        _ => {}
    }
    let message = match innermost? {
        (Some('['), _) => "did not find expected ',' or ']'",
        (Some(_), _) => "did not find expected ',' or '}'",
        (None, true) => "did not find expected '-' indicator",
        (None, false) => "did not find expected key",
    };
    Some(syntax((line1 > 1).then(|| line1 - 1), message))
}

/// Indent the continuation lines of the quoted scalar starting at `chars[at]` (its quote) to
/// `col`; false if nothing changed or a line starts with a document marker (`---`, `...`).
fn indent_quoted_continuations(chars: &mut Vec<char>, at: usize, col: usize) -> bool {
    let Some(&quote) = chars.get(at).filter(|c| matches!(c, '"' | '\'')) else {
        return false;
    };
    // Starts of the scalar's continuation lines, up to its closing quote.
    let mut line_starts = Vec::new();
    let mut i = at + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if quote == '"' => {
                if chars.get(i + 1) == Some(&'\n') {
                    line_starts.push(i + 2);
                }
                i += 1;
            }
            '\'' if quote == '\'' && chars.get(i + 1) == Some(&'\'') => i += 1,
            c if c == quote => break,
            '\n' => line_starts.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    let mut changed = false;
    for &start in line_starts.iter().rev() {
        let line: String = chars[start..].iter().take(4).collect();
        let marker = ["---", "..."].iter().any(|m| {
            line.strip_prefix(m)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n', '\r']))
        });
        if marker {
            return false;
        }
        let indent = chars[start..].iter().take_while(|&&c| c == ' ').count();
        if indent < col {
            chars.splice(start..start, std::iter::repeat_n(' ', col - indent));
            changed = true;
        }
    }
    changed
}

/// Text saphyr-parser (YAML 1.2) refuses but libyaml (YAML 1.1) reads, rewritten to an
/// equivalent spelling and parsed again.
#[derive(Clone, Copy)]
enum Rewrite {
    /// A tab separating `:` from a value: the tab nearest before this character index
    /// becomes a space.
    TabSeparator(usize),
    /// The `\'` escape in a double-quoted scalar (YAML 1.1 only): the backslash nearest before
    /// this character index is dropped.
    QuoteEscape(usize),
    /// A line inside a flow collection (`[`…`]`, `{`…`}`) indented no deeper than the block
    /// around it, e.g. a closing `]` under its key: libyaml does not check indentation in flow
    /// context, saphyr-parser does. The line holding this character index is indented to the
    /// given column (the column of the outermost open `[`/`{` plus one); leading white space
    /// of a line in flow context is not content, so the meaning is unchanged.
    FlowIndent(usize, usize),
    /// A multi-line quoted scalar whose continuation lines are indented no deeper than the
    /// block around it: libyaml accepts any indentation there. The scalar starts (with its
    /// quote) at this character index and column; its continuation lines are indented to that
    /// column, which does not change its value (leading white space of a continuation line is
    /// folded away). A document marker at the start of a line stays an error, as in libyaml.
    QuotedIndent(usize, usize),
    /// Content after the quoted scalar that is the whole document: go-yaml reads only the first
    /// document's root and never reaches the parser error; the text from this character index
    /// on is dropped.
    Truncate(usize),
}

/// The node arena of a document and its root (None if the stream is empty).
type Parsed = (Vec<Node>, Option<usize>);

/// The text a document was read from (repaired where needed) and its [`Parsed`] arena.
pub(crate) type ReadDocument<'s> = (std::borrow::Cow<'s, str>, Vec<Node>, Option<usize>);

/// Parse the first document of `src` into an arena; returns the root index (None if empty).
/// With `positions`, where each node starts is kept too (a located reading).
fn parse_first_document(
    src: &str,
    positions: Option<&mut Positions>,
) -> Result<Parsed, (YamlError, Option<Rewrite>)> {
    let mut rewrite = None;
    // Two instances, so that Helm's readings do not even test for positions.
    match positions {
        Some(p) => parse_nodes::<true>(src, &mut rewrite, Some(p)),
        None => match crate::block::read(src) {
            Some(parsed) => return Ok(parsed),
            None => parse_nodes::<false>(src, &mut rewrite, None),
        },
    }
    .map_err(|e| (e, rewrite))
}

/// The arena saphyr-parser's events give for `src`, without [`crate::block`]'s fast path: what
/// that path must give for every document it takes.
#[cfg(test)]
pub(crate) fn parse_with_saphyr(src: &str) -> Result<Parsed, YamlError> {
    parse_nodes::<false>(src, &mut None, None)
}

/// Where things are in the text, kept only when a located reading asks for them.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    /// Where each node of the arena starts, by index.
    pub marks: Vec<Mark>,
    /// Where the event being read starts, or where the scanner failed: the place of a parse
    /// error.
    pub at: Mark,
    /// Where a second document starts, when one follows the first.
    pub next_document: Option<Mark>,
    /// The text's characters (saphyr-parser's markers index characters).
    chars: Vec<char>,
}

impl Positions {
    fn clear(&mut self) {
        self.marks.clear();
        self.next_document = None;
        self.chars.clear();
    }

    /// Where libyaml places the node `ev` starts, saphyr-parser placing it at `start`: a block
    /// sequence at its first `-` (saphyr-parser: after it), a block scalar at its `|` or `>`
    /// (saphyr-parser: at its first content line). A node with an anchor or a tag starts
    /// there in both.
    fn node_start(&mut self, ev: &Event<'_>, start: &saphyr_parser::Marker) -> Mark {
        let at = mark(start);
        let idx = start.index();
        let chars = &self.chars;
        match ev {
            Event::SequenceStart(0, None)
                if chars.get(idx) != Some(&'[')
                    && !(chars.get(idx) == Some(&'-')
                        && chars.get(idx + 1).is_none_or(|c| c.is_whitespace())) =>
            {
                // saphyr-parser starts an indentless sequence after its `-`.
                let mut i = idx;
                while i > 0 && matches!(chars[i - 1], ' ' | '\t') {
                    i -= 1;
                }
                match i.checked_sub(1) {
                    Some(dash) if chars[dash] == '-' && idx - dash < at.column => Mark {
                        line: at.line,
                        column: at.column - (idx - dash),
                    },
                    _ => at,
                }
            }
            Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, 0, None) => {
                block_scalar_header(chars, idx, at).unwrap_or(at)
            }
            _ => at,
        }
    }
}

/// The `|` or `>` of the block scalar whose content starts at character `idx` (`at`): the last
/// one on the header line (the last line before the content with anything on it), outside a
/// comment.
fn block_scalar_header(chars: &[char], idx: usize, at: Mark) -> Option<Mark> {
    let mut end = idx.min(chars.len());
    while end > 0 && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    let start = chars[..end]
        .iter()
        .rposition(|&c| c == '\n' || c == '\r')
        .map_or(0, |i| i + 1);
    let line = &chars[start..end];
    let comment = (0..line.len())
        .find(|&i| line[i] == '#' && (i == 0 || matches!(line[i - 1], ' ' | '\t')))
        .unwrap_or(line.len());
    let header = line[..comment]
        .iter()
        .rposition(|&c| c == '|' || c == '>')?;
    let breaks = (end..idx.min(chars.len()))
        .filter(|&i| chars[i] == '\n' || (chars[i] == '\r' && chars.get(i + 1) != Some(&'\n')))
        .count();
    Some(Mark {
        line: at.line.checked_sub(breaks)?,
        column: header + 1,
    })
}

/// saphyr-parser's marker (1-based line, 0-based column in characters) as a [`Mark`].
fn mark(m: &saphyr_parser::Marker) -> Mark {
    Mark {
        line: m.line(),
        column: m.col() + 1,
    }
}

/// `LOCATED`: `positions` is given (its tests vanish from the instance without).
fn parse_nodes<const LOCATED: bool>(
    src: &str,
    rewrite: &mut Option<Rewrite>,
    mut positions: Option<&mut Positions>,
) -> Result<(Vec<Node>, Option<usize>), YamlError> {
    enum Frame {
        Seq(usize, Vec<usize>),
        /// node, pairs, pending key, character index where the mapping starts
        Map(usize, Vec<(usize, usize)>, Option<usize>, usize),
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut anchors: HashMap<usize, usize> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<usize> = None;
    let mut in_doc = false;
    check_yaml_directive(src)?;
    let mut parser = Parser::new_from_str(src);
    let src_chars = src.chars().count();
    if LOCATED && let Some(p) = positions.as_deref_mut() {
        p.chars = src.chars().collect();
    }
    // (character index, column) where each open collection starts, outermost first.
    let mut open: Vec<(usize, usize)> = Vec::new();
    // Where the previous event ended, and the text by character index for the flow-key rule.
    let mut last_end = 0;
    let mut text = CharText::new(src);
    while let Some(ev) = parser.next() {
        let (ev, span) = match ev {
            Ok(x) => x,
            Err(e) => {
                if LOCATED && let Some(p) = positions.as_deref_mut() {
                    p.at = mark(e.marker());
                }
                if e.info()
                    .contains("':' must be followed by a valid YAML whitespace")
                {
                    *rewrite = Some(Rewrite::TabSeparator(e.marker().index()));
                } else if e.info().contains("found unknown escape character") {
                    *rewrite = Some(Rewrite::QuoteEscape(e.marker().index()));
                } else if e.info().starts_with("invalid trailing content after") {
                    let at = e.marker().index();
                    let innermost = open.last().map(|&(idx, _)| {
                        let flow = src.chars().nth(idx).filter(|c| matches!(c, '[' | '{'));
                        (flow, matches!(stack.last(), Some(Frame::Seq(..))))
                    });
                    match trailing_content_error(src, at, e.marker().line(), innermost) {
                        Some(err) => return Err(err),
                        None => *rewrite = Some(Rewrite::Truncate(at)),
                    }
                } else if e.info() == "invalid indentation in quoted scalar" {
                    *rewrite = Some(Rewrite::QuotedIndent(e.marker().index(), e.marker().col()));
                } else if e.info().starts_with("invalid indentation")
                    && let Some(col) = outermost_flow_column(src, &open)
                {
                    *rewrite = Some(Rewrite::FlowIndent(e.marker().index(), col + 1));
                }
                return Err(scan_error(src, &e));
            }
        };
        if LOCATED && let Some(p) = positions.as_deref_mut() {
            p.at = p.node_start(&ev, &span.start);
        }
        let before = std::mem::replace(&mut last_end, span.end.index());
        match ev {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                open.push((span.start.index(), span.start.col()));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                open.pop();
            }
            _ => {}
        }
        let produced: Option<usize> = match ev {
            Event::Nothing | Event::StreamStart => None,
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                in_doc = true;
                None
            }
            Event::DocumentEnd => {
                if in_doc {
                    break;
                }
                None
            }
            Event::Alias(id) => {
                let at = span.start.index();
                let Some(&target) = anchors.get(&id) else {
                    let name = name_at(src, at);
                    return Err(syntax(None, format!("unknown anchor '{name}' referenced")));
                };
                nodes.push(Node::Alias { at, target });
                Some(nodes.len() - 1)
            }
            Event::Scalar(value, style, anchor, tag) => {
                if value.is_empty()
                    && style == ScalarStyle::Plain
                    && tag.is_none()
                    && anchor == 0
                    && let Some(Frame::Map(_, _, None, map_start)) = stack.last()
                    && implicit_empty_block_key(src, *map_start, span.start.index())
                {
                    // libyaml allows an empty key only after `?` or in a flow mapping.
                    let line1 = span.start.line();
                    return Err(syntax(
                        (line1 > 1).then(|| line1 - 1),
                        "did not find expected key",
                    ));
                }
                if let Some(Frame::Map(_, _, None, _)) = stack.last()
                    && let Some(closer) = flow_closer(&mut text, &open)
                    && let Some(err) = stale_flow_key(
                        text.chars(),
                        before,
                        (span.start.index(), span.start.line()),
                        span.end.index(),
                        closer,
                    )
                {
                    return Err(err);
                }
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let tag = tag.map(|t| {
                    t.strip_prefix("tag:yaml.org,2002:")
                        .map(|s| format!("!!{s}"))
                        .unwrap_or(t)
                });
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
                    && let Some(line) =
                        block_scalar_tab(&mut text, span.start.index(), value.is_empty())
                {
                    return Err(syntax(
                        Some(line),
                        "found a tab character where an indentation space is expected",
                    ));
                }
                let mut value = value;
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
                    && value.ends_with('\n')
                    && !src.ends_with(['\n', '\r'])
                    && span.end.index() >= src_chars
                    && last_line_is_content(src, &value)
                {
                    // libyaml keeps the final line break only if the input has one; at the
                    // very end of a file without a trailing newline there is none.
                    value.to_mut().pop();
                }
                if style == ScalarStyle::DoubleQuoted
                    && value.contains('/')
                    && let Some(line1) = yaml12_only_escape(
                        &text.span(span.start.index(), span.end.index()),
                        span.start.line(),
                    )
                {
                    // `\/` is a YAML 1.2 escape; libyaml (YAML 1.1) rejects it.
                    return Err(syntax(
                        (line1 > 1).then_some(line1),
                        "found unknown escape character",
                    ));
                }
                let value = if value.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
                    fold_unicode_breaks(src, &value, style, span.start.index(), span.end.index())
                } else {
                    value.into_owned()
                };
                nodes.push(Node::Scalar {
                    value: ScalarText::Own(value),
                    tag,
                    plain: style == ScalarStyle::Plain,
                });
                let idx = nodes.len() - 1;
                if anchor > 0 {
                    anchors.insert(anchor, idx);
                }
                Some(idx)
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(depth_error(Some(span.start.line())));
                }
                let is_seq = matches!(ev, Event::SequenceStart(..));
                nodes.push(if is_seq {
                    Node::Seq(Vec::new())
                } else {
                    Node::Map(Vec::new())
                });
                let idx = nodes.len() - 1;
                if anchor > 0 {
                    anchors.insert(anchor, idx);
                }
                stack.push(if is_seq {
                    Frame::Seq(idx, Vec::new())
                } else {
                    Frame::Map(idx, Vec::new(), None, span.start.index())
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(idx, items)) => {
                    nodes[idx] = Node::Seq(items);
                    Some(idx)
                }
                Some(Frame::Map(idx, items, _, _)) => {
                    nodes[idx] = Node::Map(items);
                    Some(idx)
                }
                None => None,
            },
        };
        if LOCATED
            && let Some(p) = positions.as_deref_mut()
            && p.marks.len() < nodes.len()
        {
            // Each event adds at most one node, starting where the event does.
            p.marks.push(p.at);
        }
        if let Some(n) = produced {
            match stack.last_mut() {
                Some(Frame::Seq(_, items)) => items.push(n),
                Some(Frame::Map(_, items, pending, _)) => match pending.take() {
                    Some(k) => items.push((k, n)),
                    None => *pending = Some(n),
                },
                None => root = Some(n),
            }
        }
        if root.is_some() {
            // go-yaml reads the root node of the first document and stops; what follows (a
            // second document, even junk) is never parsed — but to end the document libyaml
            // scans the next token, so a scanner error right there still surfaces.
            match parser.next() {
                Some(Err(e)) => {
                    let (err, scanner) = scan_error_stage(src, &e);
                    if scanner {
                        return Err(err);
                    }
                }
                Some(Ok((Event::DocumentEnd, _))) => {
                    if LOCATED && let Some(p) = positions.as_deref_mut() {
                        p.next_document = next_document(&mut parser);
                    }
                }
                _ => {}
            }
            break;
        }
    }
    Ok((nodes, root))
}

/// Where the first document after the one read starts that holds anything: an empty one (a
/// trailing `---`) does not count. Read only for a located reading (go-yaml stops before).
fn next_document<'i>(
    events: &mut impl Iterator<Item = Result<(Event<'i>, saphyr_parser::Span), ScanError>>,
) -> Option<Mark> {
    let mut start = None;
    for ev in events {
        match ev {
            Ok((Event::DocumentStart(_), span)) => start = Some(mark(&span.start)),
            Ok((Event::Scalar(v, ScalarStyle::Plain, 0, None), _)) if v.is_empty() => {}
            Ok((Event::DocumentEnd | Event::Nothing, _)) => {}
            Ok((Event::StreamEnd, _)) => return None,
            // Content, or text that does not parse, after a `---`.
            Ok(_) | Err(_) => return start,
        }
    }
    None
}

/// Whether the last line of `src` (which has no line break after it) is the block scalar's
/// last content line: it holds text, or, blank, saphyr-parser kept it as a line of spaces.
pub(crate) fn last_line_is_content(src: &str, value: &str) -> bool {
    let last = src.rsplit(['\n', '\r']).next().unwrap_or("");
    if !last.trim_matches([' ', '\t']).is_empty() {
        return true;
    }
    let body = value.strip_suffix('\n').unwrap_or(value);
    let final_line = body.rsplit('\n').next().unwrap_or("");
    !final_line.is_empty() && final_line.chars().all(|c| c == ' ')
}

/// libyaml's check of a block scalar's indentation, which saphyr-parser does not make: on
/// the lines before its indentation is known (blank lines and the first with content) a tab
/// may not follow the leading spaces, and after it no line may have a tab within the
/// indentation (the line ending the scalar included). `start`: the character where
/// saphyr-parser starts the scalar (its first content line, or its header); `empty`: whether it
/// holds nothing (its first content line then ends it). The 1-based line of the tab.
fn block_scalar_tab(text: &mut CharText, start: usize, empty: bool) -> Option<usize> {
    // Back over blank lines to the header's line, then to the line after it.
    let mut i = start;
    while i > 0
        && text
            .at(i - 1)
            .is_some_and(|c| matches!(c, ' ' | '\t' | '\n'))
    {
        i -= 1;
    }
    while text.at(i).is_some_and(|c| c != '\n') {
        i += 1;
    }
    // The line after the header's: counted from the document's start only for a tab found
    // (counting it for every block scalar would be quadratic in their number).
    let header_end = i;
    let mut below = 1;
    i += 1;
    let mut indent = 0;
    let mut max_indent = 0;
    while text.at(i).is_some() {
        let mut col = 0;
        while text.at(i) == Some(' ') && (indent == 0 || col < indent) {
            col += 1;
            i += 1;
        }
        let next = text.at(i);
        if (indent == 0 || col < indent) && next == Some('\t') {
            return Some(text.line_of(header_end) + below);
        }
        let blank = matches!(next, None | Some('\n'));
        if indent == 0 {
            max_indent = max_indent.max(col);
            if !blank {
                if empty || col < max_indent {
                    return None;
                }
                indent = col;
            }
        } else if col < indent && !blank {
            return None;
        }
        while text.at(i).is_some_and(|c| c != '\n') {
            i += 1;
        }
        i += 1;
        below += 1;
    }
    None
}

/// The 1-based line of a `\/` escape inside the double-quoted scalar `scalar` (its source
/// text, first line `line1`), if there is one.
fn yaml12_only_escape(scalar: &str, line1: usize) -> Option<usize> {
    let mut line = line1;
    let mut chars = scalar.chars();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '\\' => match chars.next() {
                Some('/') => return Some(line),
                Some('\n') => line += 1,
                _ => {}
            },
            _ => {}
        }
    }
    None
}

/// YAML 1.1 (libyaml) treats NEL, LS and PS as line breaks; YAML 1.2 (saphyr-parser) as
/// content. Re-apply 1.1 line folding to a scalar that holds them raw: blanks around such a
/// break are dropped, LS/PS stay, a single NEL becomes a space (several: newlines). Escaped
/// forms in double-quoted scalars (`\L`, `\u2028`, …) are content, so such scalars are left
/// alone.
pub(crate) fn fold_unicode_breaks(
    src: &str,
    value: &str,
    style: ScalarStyle,
    start: usize,
    end: usize,
) -> String {
    let raw: String = src
        .chars()
        .skip(start)
        .take(end.saturating_sub(start))
        .collect();
    let is_break = |c: char| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}');
    if style == ScalarStyle::DoubleQuoted && raw.contains('\\') {
        return value.to_string();
    }
    if !raw.contains(is_break) {
        return value.to_string();
    }
    let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
    let v: Vec<char> = value.chars().collect();
    let mut out = String::with_capacity(value.len());
    let mut i = 0;
    while i < v.len() {
        let c = v[i];
        if block {
            out.push(if c == '\u{85}' { '\n' } else { c });
            i += 1;
            if is_break(c) {
                while i < v.len() && v[i] == ' ' {
                    i += 1;
                }
            }
            continue;
        }
        if c != ' ' && c != '\t' && !is_break(c) {
            out.push(c);
            i += 1;
            continue;
        }
        let mut blanks = String::new();
        let mut breaks: Vec<char> = Vec::new();
        while i < v.len() && (v[i] == ' ' || v[i] == '\t' || is_break(v[i])) {
            if is_break(v[i]) {
                breaks.push(if v[i] == '\u{85}' { '\n' } else { v[i] });
            } else if breaks.is_empty() {
                blanks.push(v[i]);
            }
            i += 1;
        }
        match breaks.split_first() {
            None => out.push_str(&blanks),
            Some((&'\n', [])) => out.push(' '),
            Some((&'\n', rest)) => out.extend(rest.iter()),
            Some((&first, rest)) => {
                out.push(first);
                out.extend(rest.iter());
            }
        }
    }
    out
}

/// A document's text by character index (saphyr-parser's marks count characters): its bytes
/// when it is ASCII, else its characters, collected when first asked for.
struct CharText<'s> {
    src: &'s str,
    ascii: bool,
    chars: Option<Vec<char>>,
}

impl<'s> CharText<'s> {
    fn new(src: &'s str) -> CharText<'s> {
        CharText {
            src,
            ascii: src.is_ascii(),
            chars: None,
        }
    }

    fn at(&mut self, i: usize) -> Option<char> {
        if self.ascii {
            return self.src.as_bytes().get(i).map(|&b| char::from(b));
        }
        self.chars().get(i).copied()
    }

    fn chars(&mut self) -> &[char] {
        self.chars.get_or_insert_with(|| self.src.chars().collect())
    }

    /// The 1-based line holding character `i`.
    fn line_of(&mut self, i: usize) -> usize {
        if self.ascii {
            let end = i.min(self.src.len());
            return 1 + self.src.as_bytes()[..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
        }
        let chars = self.chars();
        1 + chars[..i.min(chars.len())]
            .iter()
            .filter(|&&c| c == '\n')
            .count()
    }

    /// The text between character indexes `start` and `end` (clamped to the document): a
    /// slice of an ASCII document, read without walking the text before it.
    fn span(&mut self, start: usize, end: usize) -> std::borrow::Cow<'s, str> {
        if self.ascii {
            let end = end.min(self.src.len());
            return std::borrow::Cow::Borrowed(&self.src[start.min(end)..end]);
        }
        let chars = self.chars();
        let end = end.min(chars.len());
        std::borrow::Cow::Owned(chars[start.min(end)..end].iter().collect())
    }
}

/// The end (`}` or `]`) of the flow collection a key of the innermost open mapping is in: a
/// flow mapping, or the one-pair mapping of a `key: value` entry of a flow sequence; `None` in
/// a block mapping.
fn flow_closer(text: &mut CharText, open: &[(usize, usize)]) -> Option<char> {
    let (map, parent) = match open {
        [.., (parent, _), (map, _)] => (*map, Some(*parent)),
        [(map, _)] => (*map, None),
        [] => return None,
    };
    if text.at(map) == Some('{') {
        return Some('}');
    }
    (parent.and_then(|p| text.at(p)) == Some('[')).then_some(']')
}

/// libyaml's rule for an implicit key in a flow collection, which saphyr-parser does not keep
/// for flow mappings and long keys: the key's first token (an anchor, a tag or the scalar) and
/// its `:` must be on one line and at most 1024 characters apart. Otherwise libyaml's scanner
/// drops the key and its parser meets the `:` where it expects `,` or `closer`: that error, on
/// the `:`'s line. `from`: where the previous event ended; `key`: where the scalar starts
/// (character index, line from 1); `key_end`: where it ends. An explicit key (`? `) is exempt.
fn stale_flow_key(
    chars: &[char],
    from: usize,
    key: (usize, usize),
    key_end: usize,
    closer: char,
) -> Option<YamlError> {
    let (key_start, key_line) = key;
    let skip = |mut i: usize, also: &[char]| {
        while let Some(&c) = chars.get(i) {
            if c == '#' && (i == 0 || chars[i - 1].is_whitespace()) {
                while chars.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            } else if c.is_whitespace() || also.contains(&c) {
                i += 1;
            } else {
                break;
            }
        }
        i
    };
    let first = skip(from.min(key_start), &[',', '{', '[', '}', ']']).min(key_start);
    let indicator =
        |i: usize| chars.get(i) == Some(&'?') && chars.get(i + 1).is_none_or(|c| c.is_whitespace());
    // The `?` may also lie before where the previous event ended (a pair's start in a sequence).
    let before_first = chars[..first].iter().rposition(|c| !c.is_whitespace());
    if indicator(first) || before_first.is_some_and(indicator) {
        return None;
    }
    let colon = skip(key_end, &[]);
    if chars.get(colon) != Some(&':') {
        return None;
    }
    let breaks = |a: usize, b: usize| chars[a..b].iter().filter(|&&c| c == '\n').count();
    if breaks(first, colon) == 0 && first + 1024 >= colon {
        return None;
    }
    let line1 = key_line + breaks(key_start, colon);
    Some(syntax(
        (line1 > 1).then(|| line1 - 1),
        format!("did not find expected ',' or '{closer}'"),
    ))
}

/// Whether an empty key at character `at` is a `: value` line in a block mapping (no `?`
/// before it, mapping not started by `{`): go-yaml rejects it, saphyr-parser accepts it.
fn implicit_empty_block_key(src: &str, map_start: usize, at: usize) -> bool {
    let chars: Vec<char> = src.chars().take(at + 1).collect();
    if chars.get(map_start) == Some(&'{') || chars.get(at) != Some(&':') {
        return false;
    }
    let before = chars[..at].iter().rev().find(|c| !c.is_whitespace());
    before != Some(&'?')
}

pub(crate) struct Decoder<'a> {
    pub(crate) src: &'a str,
    nodes: &'a [Node],
    /// Where each node starts (a located reading), or empty.
    pub(crate) marks: &'a [Mark],
    pub(crate) decode_count: usize,
    alias_count: usize,
    alias_depth: usize,
    active_aliases: Vec<usize>,
    /// Collections entered by a located reading (aliases can nest deeper than the text).
    pub(crate) depth: usize,
    /// The innermost node a located reading failed in.
    pub(crate) failed_at: Option<usize>,
    /// The first node a located reading met that JSON cannot hold (a key or a float), whose
    /// error is Helm's only if its JSON step reaches it.
    pub(crate) unconvertible: Option<usize>,
}

fn allowed_alias_ratio(decode_count: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

impl<'a> Decoder<'a> {
    pub(crate) fn new(src: &'a str, nodes: &'a [Node], marks: &'a [Mark]) -> Self {
        Decoder {
            src,
            nodes,
            marks,
            decode_count: 1, // the document node itself
            alias_count: 0,
            alias_depth: 0,
            active_aliases: Vec::new(),
            depth: 0,
            failed_at: None,
            unconvertible: None,
        }
    }

    /// The node `idx` of the arena.
    pub(crate) fn node(&self, idx: usize) -> &'a Node {
        &self.nodes[idx]
    }

    pub(crate) fn step(&mut self) -> Result<(), YamlError> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(syntax(None, "document contains excessive aliasing"));
        }
        Ok(())
    }

    /// Into `target` through the alias node `idx` (written at `at`), with `follow`: an alias
    /// met again inside its own anchor's value is go-yaml's "contains itself" error.
    pub(crate) fn through_alias<T>(
        &mut self,
        idx: usize,
        at: usize,
        target: usize,
        follow: impl FnOnce(&mut Self, usize) -> Result<T, YamlError>,
    ) -> Result<T, YamlError> {
        if self.active_aliases.contains(&idx) {
            let name = name_at(self.src, at);
            return Err(syntax(
                None,
                format!("anchor '{name}' value contains itself"),
            ));
        }
        self.active_aliases.push(idx);
        self.alias_depth += 1;
        let r = follow(self, target);
        self.alias_depth -= 1;
        self.active_aliases.pop();
        r
    }

    pub(crate) fn decode(&mut self, idx: usize) -> Result<GoYaml, YamlError> {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.decode_inner(idx))
    }

    fn decode_inner(&mut self, idx: usize) -> Result<GoYaml, YamlError> {
        self.step()?;
        match &self.nodes[idx] {
            &Node::Alias { at, target } => {
                self.through_alias(idx, at, target, |d, target| d.decode(target))
            }
            Node::Scalar { value, tag, plain } => {
                scalar(value.get(self.src), tag.as_deref(), *plain)
            }
            Node::Seq(items) => {
                let items = items.clone();
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.decode(i)?);
                }
                Ok(GoYaml::Seq(out))
            }
            Node::Map(_) => {
                let mut out = GoMap::default();
                self.mapping_into(idx, &mut out, false)?;
                Ok(GoYaml::Map(out.pairs))
            }
        }
    }

    /// Decode the mapping node `idx` into `out` (go-yaml `d.mapping` with an existing map);
    /// `merged`: its pairs come into `out` through a `<<` merge key.
    pub(crate) fn mapping_into<M: MapOut>(
        &mut self,
        idx: usize,
        out: &mut M,
        merged: bool,
    ) -> Result<(), YamlError> {
        let Node::Map(pairs) = &self.nodes[idx] else {
            return Err(syntax(
                None,
                "map merge requires map or sequence of maps as the value",
            ));
        };
        let pairs = pairs.clone();
        for (k, v) in pairs {
            if self.is_merge(k) {
                self.merge(v, out)?;
                continue;
            }
            let key = self.decode(k)?;
            if matches!(key, GoYaml::Map(_) | GoYaml::Seq(_)) {
                return Err(syntax(
                    None,
                    format!("invalid map key: {}", go_syntax(&key)),
                ));
            }
            out.pair(self, (k, key), v, merged)?;
        }
        Ok(())
    }

    fn is_merge(&self, idx: usize) -> bool {
        matches!(&self.nodes[idx], Node::Scalar { value, tag, plain }
            if value.get(self.src) == "<<" && ((*plain && tag.is_none()) || tag.as_deref() == Some("!!merge")))
    }

    fn target_kind(&self, idx: usize) -> &Node {
        match &self.nodes[idx] {
            Node::Alias { target, .. } => &self.nodes[*target],
            n => n,
        }
    }

    fn merge<M: MapOut>(&mut self, idx: usize, out: &mut M) -> Result<(), YamlError> {
        let want_map = || {
            syntax(
                None,
                "map merge requires map or sequence of maps as the value",
            )
        };
        match &self.nodes[idx] {
            Node::Map(_) => self.merge_one(idx, out),
            Node::Alias { .. } => {
                if !matches!(self.target_kind(idx), Node::Map(_)) {
                    return Err(want_map());
                }
                self.merge_one(idx, out)
            }
            Node::Seq(items) => {
                let items = items.clone();
                for &i in items.iter().rev() {
                    if !matches!(self.target_kind(i), Node::Map(_)) {
                        return Err(want_map());
                    }
                    self.merge_one(i, out)?;
                }
                Ok(())
            }
            Node::Scalar { .. } => Err(want_map()),
        }
    }

    /// `d.unmarshal(n, out)` where `out` is the map being built: counts the step, follows
    /// aliases, and decodes the mapping's pairs into `out`.
    fn merge_one<M: MapOut>(&mut self, idx: usize, out: &mut M) -> Result<(), YamlError> {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.merge_one_inner(idx, out))
    }

    fn merge_one_inner<M: MapOut>(&mut self, idx: usize, out: &mut M) -> Result<(), YamlError> {
        self.step()?;
        if let &Node::Alias { at, target } = &self.nodes[idx] {
            return self.through_alias(idx, at, target, |d, target| d.merge_one(target, out));
        }
        self.mapping_into(idx, out, true)
    }
}

/// What the pairs of a mapping are decoded into: go-yaml's map ([`GoMap`]) or a located
/// mapping ([`crate::located`]).
pub(crate) trait MapOut {
    /// One pair: its key (node index and decoded scalar, never a collection) and its value's
    /// node; `merged`: it came through a `<<` merge key.
    fn pair(
        &mut self,
        d: &mut Decoder<'_>,
        key: (usize, GoYaml),
        value: usize,
        merged: bool,
    ) -> Result<(), YamlError>;
}

impl MapOut for GoMap {
    #[inline]
    fn pair(
        &mut self,
        d: &mut Decoder<'_>,
        (_, key): (usize, GoYaml),
        value: usize,
        _merged: bool,
    ) -> Result<(), YamlError> {
        let val = d.decode(value)?;
        set_map_index(self, key, val);
        Ok(())
    }
}

/// A Go `map[interface{}]interface{}` being decoded: pairs in insertion order plus, once it
/// holds more than [`INDEX_FROM`] pairs, an index of the string keys (a later duplicate replaces
/// the value, as Go's map assignment does). A smaller map is searched pair by pair: most maps
/// have a few keys, and an index cost each a hashed copy of its key.
#[derive(Default)]
pub(crate) struct GoMap {
    pairs: Vec<(GoYaml, GoYaml)>,
    strings: Option<HashMap<String, usize>>,
}

/// Pairs a [`GoMap`] holds before it indexes its string keys.
const INDEX_FROM: usize = 16;

fn string_key(k: &GoYaml) -> Option<&str> {
    match k {
        GoYaml::Scalar(Scalar::Str(s)) => Some(s),
        GoYaml::Bytes(b) => std::str::from_utf8(b).ok(),
        _ => None,
    }
}

fn set_map_index(out: &mut GoMap, key: GoYaml, val: GoYaml) {
    if let Some(s) = string_key(&key) {
        let found = match &out.strings {
            Some(index) => index.get(s).copied(),
            None => out.pairs.iter().position(|(k, _)| string_key(k) == Some(s)),
        };
        if let Some(i) = found {
            out.pairs[i].1 = val;
            return;
        }
        if let Some(index) = &mut out.strings {
            index.insert(s.to_string(), out.pairs.len());
        }
        out.pairs.push((key, val));
        if out.strings.is_none() && out.pairs.len() > INDEX_FROM {
            let index = out.pairs.iter().enumerate();
            let index = index.filter_map(|(i, (k, _))| Some((string_key(k)?.to_string(), i)));
            out.strings = Some(index.collect());
        }
    } else if let Some(slot) = out.pairs.iter_mut().find(|(k, _)| go_key_eq(k, &key)) {
        slot.1 = val;
    } else {
        out.pairs.push((key, val));
    }
}

/// Equality of two `interface{}` map keys as Go compares them (type and value).
fn go_key_eq(a: &GoYaml, b: &GoYaml) -> bool {
    match (a, b) {
        (GoYaml::Scalar(x), GoYaml::Scalar(y)) => match (x, y) {
            (Scalar::Null, Scalar::Null) => true,
            (Scalar::Bool(p), Scalar::Bool(q)) => p == q,
            (Scalar::Int(p), Scalar::Int(q)) => p == q,
            (Scalar::Uint(p), Scalar::Uint(q)) => p == q,
            (Scalar::Float(p), Scalar::Float(q)) => p == q,
            (Scalar::Str(p), Scalar::Str(q)) => p == q,
            _ => false,
        },
        (GoYaml::Bytes(p), GoYaml::Bytes(q)) => p == q,
        (GoYaml::Bytes(p), GoYaml::Scalar(Scalar::Str(q)))
        | (GoYaml::Scalar(Scalar::Str(q)), GoYaml::Bytes(p)) => p == q.as_bytes(),
        _ => false,
    }
}

#[inline(always)]
pub(crate) fn scalar(value: &str, tag: Option<&str>, plain: bool) -> Result<GoYaml, YamlError> {
    match tag {
        None if !plain => Ok(GoYaml::Scalar(Scalar::Str(value.to_string()))),
        None | Some("!") => {
            if tag == Some("!") {
                return Ok(GoYaml::Scalar(Scalar::Str(value.to_string())));
            }
            let (_, s) = resolve_plain(value);
            Ok(GoYaml::Scalar(s))
        }
        Some("!!binary") => {
            use base64::Engine;
            let cleaned: String = value.chars().filter(|c| !c.is_whitespace()).collect();
            let _ = cleaned;
            match base64::engine::general_purpose::STANDARD.decode(value.as_bytes()) {
                Ok(b) => Ok(GoYaml::Bytes(b)),
                Err(_) => Err(syntax(None, "!!binary value contains invalid base64 data")),
            }
        }
        Some(t) => match resolve_tagged(t, value) {
            Ok(Some((Kind::Timestamp, _))) => Ok(GoYaml::Scalar(Scalar::Str(value.to_string()))),
            Ok(Some((_, s))) => Ok(GoYaml::Scalar(s)),
            Ok(None) => Ok(GoYaml::Scalar(Scalar::Str(value.to_string()))),
            Err(m) => Err(syntax(None, m)),
        },
    }
}

/// What reading one document cost: how many times it was parsed (the first read and each
/// repair's re-read) and how many decode steps ran (aliases expand into steps). Hostile input
/// is stopped by bounding these, so the tests assert them instead of a duration.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Work {
    pub reads: usize,
    pub steps: usize,
}

/// Each repair re-reads the document: at most this many re-reads.
const MAX_REPAIRS: usize = 256;

/// go-yaml v2 `Unmarshal` into `interface{}`: `None` for an empty stream.
pub(crate) fn decode_go(src: &str) -> Result<Option<GoYaml>, YamlError> {
    decode_go_work(src).0
}

/// [`decode_go`] and the [`Work`] it took.
pub(crate) fn decode_go_work(src: &str) -> (Result<Option<GoYaml>, YamlError>, Work) {
    let mut work = Work::default();
    let r = decode_go_counted(src, &mut work);
    (r, work)
}

fn decode_go_counted(src: &str, work: &mut Work) -> Result<Option<GoYaml>, YamlError> {
    let (text, nodes, root) = read_document(src, work, None)?;
    let Some(root) = root else { return Ok(None) };
    let mut d = Decoder::new(&text, &nodes, &[]);
    let r = d.decode(root).map(Some);
    work.steps = d.decode_count;
    r
}

/// The text of the first document (repaired where libyaml reads what saphyr-parser refuses),
/// its node arena and root; with `positions`, where its nodes start.
pub(crate) fn read_document<'s>(
    src: &'s str,
    work: &mut Work,
    mut positions: Option<&mut Positions>,
) -> Result<ReadDocument<'s>, YamlError> {
    let mut text = std::borrow::Cow::Borrowed(src);
    let mut retries = 0;
    loop {
        work.reads += 1;
        if let Some(p) = positions.as_deref_mut() {
            p.clear();
        }
        match parse_first_document(&text, positions.as_deref_mut()) {
            Ok((nodes, root)) => return Ok((text, nodes, root)),
            Err((e, None)) => return Err(e),
            Err((e, Some(rw))) => {
                let mut chars: Vec<char> = text.chars().collect();
                let last = chars.len().saturating_sub(1);
                let fixed = match rw {
                    Rewrite::TabSeparator(at) => (0..=at.min(last))
                        .rev()
                        .take_while(|&i| chars[i] != '\n')
                        .find(|&i| chars[i] == '\t')
                        .map(|i| chars[i] = ' ')
                        .is_some(),
                    Rewrite::QuoteEscape(at) => {
                        // the scalar starts at `at`: find its first escape saphyr does not know
                        let mut i = at + 1;
                        let mut found = None;
                        while i + 1 < chars.len() && chars[i] != '"' {
                            if chars[i] == '\\' {
                                if chars[i + 1] == '\'' {
                                    found = Some(i);
                                    break;
                                }
                                if !"0abt\tnvfre \"/\\N_LPxuU\n\r".contains(chars[i + 1]) {
                                    break;
                                }
                                i += 2;
                            } else {
                                i += 1;
                            }
                        }
                        found
                            .map(|i| {
                                chars.remove(i);
                            })
                            .is_some()
                    }
                    Rewrite::FlowIndent(at, col) => {
                        // A lone `\r` breaks lines too: without it here, the same line was
                        // indented again on each of 10 000 retries (a 40-byte file took 60 s).
                        let start = (0..at.min(chars.len()))
                            .rev()
                            .find(|&i| chars[i] == '\n' || chars[i] == '\r')
                            .map_or(0, |i| i + 1);
                        let indent = chars[start..].iter().take_while(|&&c| c == ' ').count();
                        let fixed = indent < col;
                        if fixed {
                            chars.splice(start..start, std::iter::repeat_n(' ', col - indent));
                        }
                        fixed
                    }
                    Rewrite::Truncate(at) => {
                        let fixed = at < chars.len();
                        chars.truncate(at);
                        fixed
                    }
                    Rewrite::QuotedIndent(at, col) => {
                        indent_quoted_continuations(&mut chars, at, col)
                    }
                };
                // Each retry re-reads the document: bound the work to a few hundred reads.
                if !fixed || retries >= MAX_REPAIRS {
                    return Err(e);
                }
                text = std::borrow::Cow::Owned(chars.into_iter().collect());
                retries += 1;
            }
        }
    }
}

/// Go's `%+#v` of a decoded YAML value, for sigs.k8s.io/yaml's unsupported-key message.
pub(crate) fn go_syntax(v: &GoYaml) -> String {
    go_syntax_in(v, false)
}

/// `nested`: inside an `interface{}` container, where Go prints nil as `interface {}(nil)`.
fn go_syntax_in(v: &GoYaml, nested: bool) -> String {
    match v {
        GoYaml::Scalar(Scalar::Null) if nested => "interface {}(nil)".into(),
        GoYaml::Scalar(Scalar::Null) => "<nil>".into(),
        GoYaml::Scalar(Scalar::Bool(b)) => b.to_string(),
        GoYaml::Scalar(Scalar::Int(i)) => i.to_string(),
        GoYaml::Scalar(Scalar::Uint(u)) => format!("0x{u:x}"),
        GoYaml::Scalar(Scalar::Float(f)) => format_float(*f, 'g', -1, 64),
        GoYaml::Scalar(Scalar::Str(s)) => kubepkg_gostd::strconv::quote(s),
        GoYaml::Bytes(b) => kubepkg_gostd::strconv::quote(&String::from_utf8_lossy(b)),
        GoYaml::Seq(items) => format!(
            "[]interface {{}}{{{}}}",
            items
                .iter()
                .map(|i| go_syntax_in(i, true))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        GoYaml::Map(pairs) => {
            let mut parts: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}:{}", go_syntax_in(k, true), go_syntax_in(v, true)))
                .collect();
            parts.sort();
            format!("map[interface {{}}]interface {{}}{{{}}}", parts.join(", "))
        }
    }
}

/// The JSON step of sigs.k8s.io/yaml: keys to strings, numbers to float64, errors for values
/// JSON cannot hold. Map keys are visited in sorted order as `json.Marshal` does.
fn to_json_value(v: GoYaml) -> Result<Value, YamlError> {
    stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || to_json_value_inner(v))
}

fn to_json_value_inner(v: GoYaml) -> Result<Value, YamlError> {
    match v {
        GoYaml::Scalar(s) => Ok(match s {
            Scalar::Null => Value::Nil,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Float(i as f64),
            Scalar::Uint(u) => Value::Float(u as f64),
            Scalar::Float(f) => {
                if !f.is_finite() {
                    return Err(unsupported_float(f));
                }
                Value::Float(f)
            }
            Scalar::Str(s) => Value::from(s),
        }),
        GoYaml::Bytes(b) => Ok(Value::from(kubepkg_gostd::utf8::lossy(&b))),
        GoYaml::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(to_json_value(i)?);
            }
            Ok(Value::list(out))
        }
        GoYaml::Map(pairs) => map_to_json_value(pairs, &|_| true),
    }
}

/// A map's JSON step: its keys converted first (later duplicates replacing earlier ones), then
/// its values in key order; the values of keys `keep` refuses are only checked
/// ([`check_json_value`]: the same errors, nothing built).
fn map_to_json_value(
    pairs: Vec<(GoYaml, GoYaml)>,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Value, YamlError> {
    let mut keyed: BTreeMap<String, GoYaml> = BTreeMap::new();
    for (k, v) in pairs {
        // A string key (nearly every key) is moved, not copied.
        let key = match k {
            GoYaml::Scalar(Scalar::Str(s)) => s,
            k => json_key(&k, &v)?,
        };
        keyed.insert(key, v);
    }
    let mut out = BTreeMap::new();
    for (k, v) in keyed {
        if keep(&k) {
            out.insert(k, to_json_value(v)?);
        } else {
            check_json_value(&v)?;
        }
    }
    Ok(Value::map(out))
}

/// The error [`to_json_value`] would return for `v`, found in the same order without building
/// anything.
fn check_json_value(v: &GoYaml) -> Result<(), YamlError> {
    stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || match v {
        GoYaml::Scalar(Scalar::Float(f)) if !f.is_finite() => Err(unsupported_float(*f)),
        GoYaml::Scalar(_) | GoYaml::Bytes(_) => Ok(()),
        GoYaml::Seq(items) => items.iter().try_for_each(check_json_value),
        GoYaml::Map(pairs) => {
            let mut keyed: BTreeMap<std::borrow::Cow<'_, str>, &GoYaml> = BTreeMap::new();
            for (k, v) in pairs {
                let key = match k {
                    GoYaml::Scalar(Scalar::Str(s)) => std::borrow::Cow::Borrowed(s.as_str()),
                    _ => std::borrow::Cow::Owned(json_key(k, v)?),
                };
                keyed.insert(key, v);
            }
            keyed.into_values().try_for_each(check_json_value)
        }
    })
}

/// Go's `json.Marshal` refusing a float JSON cannot hold (`.inf`, `.nan`).
fn unsupported_float(f: f64) -> YamlError {
    YamlError::Convert {
        message: format!("json: unsupported value: {}", format_float(f, 'g', -1, 64)),
    }
}

/// sigs.k8s.io/yaml's conversion of a map key to a JSON object key.
pub(crate) fn json_key(k: &GoYaml, v: &GoYaml) -> Result<String, YamlError> {
    Ok(match k {
        GoYaml::Scalar(Scalar::Str(s)) => s.clone(),
        GoYaml::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        GoYaml::Scalar(Scalar::Int(i)) => i.to_string(),
        GoYaml::Scalar(Scalar::Float(f)) => match format_float(*f, 'g', -1, 32).as_str() {
            "+Inf" => ".inf".into(),
            "-Inf" => "-.inf".into(),
            "NaN" => ".nan".into(),
            s => s.to_string(),
        },
        GoYaml::Scalar(Scalar::Bool(b)) => b.to_string(),
        other => {
            let ty = match other {
                GoYaml::Scalar(Scalar::Uint(_)) => "uint64",
                _ => "%!s(<nil>)",
            };
            return Err(YamlError::Convert {
                message: format!(
                    "unsupported map key of type: {ty}, key: {}, value: {}",
                    go_syntax(other),
                    go_syntax(v)
                ),
            });
        }
    })
}

/// `json.Marshal` of the JSON-able tree sigs.k8s.io/yaml builds: integers stay integers.
fn write_go_json(v: &GoYaml, out: &mut String) -> Result<(), YamlError> {
    stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
        match v {
            GoYaml::Scalar(Scalar::Null) => out.push_str("null"),
            GoYaml::Scalar(Scalar::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
            GoYaml::Scalar(Scalar::Int(i)) => out.push_str(&i.to_string()),
            GoYaml::Scalar(Scalar::Uint(u)) => out.push_str(&u.to_string()),
            GoYaml::Scalar(Scalar::Float(f)) => match kubepkg_gostd::json::format_float64(*f) {
                Some(t) => out.push_str(&t),
                None => return Err(unsupported_float(*f)),
            },
            GoYaml::Scalar(Scalar::Str(s)) => crate::json_string::write_json_string(out, s, true),
            GoYaml::Bytes(b) => {
                // Go writes each invalid UTF-8 byte as the escape `\ufffd`.
                out.push('"');
                let mut rest: &[u8] = b;
                while !rest.is_empty() {
                    let (good, bad) = match std::str::from_utf8(rest) {
                        Ok(s) => (s, false),
                        Err(e) => (
                            std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
                            true,
                        ),
                    };
                    let mut quoted = String::new();
                    crate::json_string::write_json_string(&mut quoted, good, true);
                    out.push_str(&quoted[1..quoted.len() - 1]);
                    rest = &rest[good.len()..];
                    if bad {
                        out.push_str("\\ufffd");
                        rest = &rest[1..];
                    }
                }
                out.push('"');
            }
            GoYaml::Seq(items) => {
                out.push('[');
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_go_json(it, out)?;
                }
                out.push(']');
            }
            GoYaml::Map(pairs) => {
                let mut keyed: BTreeMap<String, &GoYaml> = BTreeMap::new();
                for (k, v) in pairs {
                    keyed.insert(json_key(k, v)?, v);
                }
                out.push('{');
                for (i, (k, v)) in keyed.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::json_string::write_json_string(out, &k, true);
                    out.push(':');
                    write_go_json(v, out)?;
                }
                out.push('}');
            }
        }
        Ok(())
    })
}

/// `sigs.k8s.io/yaml.YAMLToJSON`: the first document as JSON text. Unlike [`unmarshal`], numbers
/// keep go-yaml's types (`3` stays `3`, `12345678901234567890` is not rounded through float64),
/// which is what Kubernetes clients send to the API server. Errors display with
/// [`YamlError::go_text`] as Go's `YAMLToJSON` reports them.
pub fn yaml_to_json(src: &str) -> Result<String, YamlError> {
    let mut out = String::new();
    match decode_go(src)? {
        None => out.push_str("null"),
        Some(g) => write_go_json(&g, &mut out)?,
    }
    Ok(out)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Map(_) => "object",
        Value::List(..) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        _ => "number",
    }
}

/// go-yaml's reader (`yaml_parser_update_buffer`) on bytes that are not UTF-8: the problem
/// it reports at the first bad sequence.
pub fn utf8_error(b: &[u8]) -> &'static str {
    let mut i = 0;
    while i < b.len() {
        let o = b[i];
        let width = match o {
            _ if o & 0x80 == 0 => 1,
            _ if o & 0xE0 == 0xC0 => 2,
            _ if o & 0xF0 == 0xE0 => 3,
            _ if o & 0xF8 == 0xF0 => 4,
            _ => return "invalid leading UTF-8 octet",
        };
        if i + width > b.len() {
            return "incomplete UTF-8 octet sequence";
        }
        let mut value: u32 = match width {
            1 => u32::from(o & 0x7F),
            2 => u32::from(o & 0x1F),
            3 => u32::from(o & 0x0F),
            _ => u32::from(o & 0x07),
        };
        for k in 1..width {
            let t = b[i + k];
            if t & 0xC0 != 0x80 {
                return "invalid trailing UTF-8 octet";
            }
            value = (value << 6) + u32::from(t & 0x3F);
        }
        let long_enough = match width {
            1 => true,
            2 => value >= 0x80,
            3 => value >= 0x800,
            _ => value >= 0x10000,
        };
        if !long_enough {
            return "invalid length of a UTF-8 sequence";
        }
        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
            return "invalid Unicode character";
        }
        i += width;
    }
    "invalid leading UTF-8 octet"
}

/// [`unmarshal`] with [`Target::Any`] for a reader of a few top-level fields: the whole
/// document is decoded and checked as there (the same errors), but of a top-level map only the
/// keys `keep` accepts are built.
pub fn unmarshal_keeping(src: &str, keep: &dyn Fn(&str) -> bool) -> Result<Value, YamlError> {
    match decode_go(src)? {
        None => Ok(Value::Nil),
        Some(GoYaml::Map(pairs)) => map_to_json_value(pairs, keep),
        Some(other) => to_json_value(other),
    }
}

/// `sigs.k8s.io/yaml.Unmarshal(src, target)`.
pub fn unmarshal(src: &str, target: Target) -> Result<Value, YamlError> {
    let go = decode_go(src)?;
    let v = match go {
        None => Value::Nil,
        Some(g) => to_json_value(g)?,
    };
    match (target, &v) {
        (Target::Any, _) => Ok(v),
        (Target::Map, Value::Nil) => Ok(Value::empty_map()),
        (Target::List, Value::Nil) => Ok(Value::list(Vec::new())),
        (Target::Map, Value::Map(_)) | (Target::List, Value::List(..)) => Ok(v),
        (Target::Map, other) => Err(YamlError::Shape {
            message: format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(other)
            ),
        }),
        (Target::List, other) => Err(YamlError::Shape {
            message: format!(
                "json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(other)
            ),
        }),
    }
}

/// The alias bomb the unit tests share with the integration tests.
#[cfg(test)]
#[path = "../tests/it/alias_bomb.rs"]
pub(crate) mod alias_bomb;

#[cfg(test)]
mod tests {
    use super::*;
    use alias_bomb::alias_bomb;

    /// "Billion laughs": 13 levels of 9 aliases each would expand to 9^13 (2.5e12) scalars;
    /// go-yaml's ratio rule stops the decoder after a few thousand steps.
    #[test]
    fn an_alias_bomb_stops_after_a_bounded_number_of_steps() {
        let src = alias_bomb();
        let (r, work) = decode_go_work(&src);
        let e = r.unwrap_err().to_string();
        assert!(e.contains("document contains excessive aliasing"), "{e}");
        assert_eq!(work.reads, 1);
        assert!(work.steps <= 10_000, "{work:?}");
    }

    /// Found by the fuzzer: a carriage return inside a flow collection made the indentation
    /// repair re-read the document 10 000 times (60 s for 40 bytes). A lone `\r` breaks lines
    /// too, so one repair suffices.
    #[test]
    fn a_carriage_return_in_a_flow_collection_is_repaired_once_at_most() {
        for src in [
            "me{tadata:\n  name: {{\r .Release.Name }}p\n",
            "a{b:\n n: {\r}\n",
        ] {
            let (_, work) = decode_go_work(src);
            assert!(work.reads <= 2, "{src:?}: {work:?}");
        }
    }

    /// Whatever the input, the repairs stop at [`MAX_REPAIRS`] re-reads (this one would need
    /// one per line).
    #[test]
    fn repairs_are_bounded() {
        // Each line needs its own indentation repair of the flow collection it continues.
        let src = "a: [\n".to_string() + &"b,\n".repeat(2 * MAX_REPAIRS) + "]\n";
        let (_, work) = decode_go_work(&src);
        assert_eq!(
            work.reads,
            MAX_REPAIRS + 1,
            "stopped at the bound: {work:?}"
        );
    }
}
