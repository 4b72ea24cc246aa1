//! The writer: `sigs.k8s.io/yaml.Marshal`, byte for byte.
//!
//! Go does it in three steps, and so do we: `encoding/json` turns the value into JSON text
//! (sorted keys, `[]byte` as base64, times as RFC 3339, floats in Go's JSON format); go-yaml v2
//! reads that JSON back (so `1000000` becomes an `int`, `1e+21` a `float64`, `-0` the int `0`,
//! `10000000000000000000` a `uint64`); go-yaml v2's encoder and its port of libyaml's emitter
//! print it. The emitter rules reproduced here:
//! - map keys are ordered by go-yaml's "natural" order (digit runs compare as numbers, letters
//!   before other characters), sequences inside mappings are not indented (`a:\n- x`);
//! - strings that would read back as something else (`"yes"`, `"1.0"`, `"2006-01-02"`, `"~"`,
//!   `"1:20"`) are double-quoted; strings with a line feed use a literal block (`|`, `|-`, `|+`,
//!   with an indentation hint when they start with a space or break); strings that cannot be
//!   plain (leading/trailing space, indicators such as `- `, `: `, ` #`, `{`) are single-quoted;
//!   strings with non-printable characters (tab, control characters, emoji, BOM) are
//!   double-quoted with go-yaml's escapes (`\t`, `\x7F`, `\U0001F600`);
//! - plain, single- and double-quoted scalars are folded at spaces once the line passes column 80;
//! - empty maps and lists are written in flow style `{}` / `[]`; keys longer than 128 bytes
//!   or spanning lines become complex keys (`? key`).

use std::cmp::Ordering;

use kubepkg_value::walk::{Guard, MAX_NESTING};
use kubepkg_value::{MapRef, Value, map_read};

use crate::decode::{RED_ZONE, STACK_CHUNK};
use crate::error::YamlError;
use crate::resolve::{Scalar, needs_quotes, resolve_plain};
use kubepkg_gostd::json::format_float64 as json_float;
use kubepkg_gostd::strconv::format_float;

/// A value as go-yaml v2 holds it after reading the JSON text back.
#[derive(Debug, Clone)]
enum Node {
    /// A scalar as go-yaml resolves it (`nil`, `bool`, `int`, `uint64`, `float64`, `string`).
    Scalar(Scalar),
    /// A scalar written in plain style as given (go-yaml's `time.Time` encoding).
    Raw(String),
    /// go-yaml v3's form of a string that is not UTF-8: the base64 of its bytes tagged
    /// `!!binary` (in 70-column lines, as a literal block when there is more than one).
    Binary(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

fn marshal_error(f: f64) -> YamlError {
    YamlError::Marshal {
        message: format!("json: unsupported value: {}", format_float(f, 'g', -1, 64)),
    }
}

/// `encoding/json` + go-yaml's reading of the JSON text. `depth` counts the maps and lists
/// around `v`: go-yaml refuses to read JSON nested deeper than [`MAX_NESTING`] levels.
fn to_node(v: &Value, depth: usize) -> Result<Node, YamlError> {
    if !matches!(v, Value::Map(_) | Value::List(..)) {
        return to_node_inner(v, depth);
    }
    if depth >= MAX_NESTING {
        return Err(YamlError::Reread {
            message: format!("exceeded max depth of {MAX_NESTING}"),
        });
    }
    stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || to_node_inner(v, depth + 1))
}

fn to_node_inner(v: &Value, depth: usize) -> Result<Node, YamlError> {
    Ok(match v {
        Value::Nil => Node::Scalar(Scalar::Null),
        Value::Bool(b) => Node::Scalar(Scalar::Bool(*b)),
        Value::Int(i) | Value::Int64(i) => Node::Scalar(Scalar::Int(*i)),
        Value::Uint(u) => {
            if *u <= i64::MAX as u64 {
                Node::Scalar(Scalar::Int(*u as i64))
            } else {
                Node::Scalar(Scalar::Uint(*u))
            }
        }
        Value::Float(f) => {
            let text = json_float(*f).ok_or_else(|| marshal_error(*f))?;
            match resolve_plain(&text).1 {
                n @ (Scalar::Int(_) | Scalar::Uint(_) | Scalar::Float(_)) => Node::Scalar(n),
                _ => Node::Scalar(Scalar::Str(text)),
            }
        }
        Value::Uint8(u) => Node::Scalar(Scalar::Int(i64::from(*u))),
        Value::String(s) => Node::Scalar(Scalar::Str(reread_json_string(s)?)),
        // encoding/json writes each invalid byte as `\ufffd`, which reads back as U+FFFD.
        Value::NonUtf8String(b) => Node::Scalar(Scalar::Str(reread_json_string(
            &kubepkg_value::go_lossy(b),
        )?)),
        Value::Bytes(b) => {
            use base64::Engine;
            Node::Scalar(Scalar::Str(
                base64::engine::general_purpose::STANDARD.encode(b),
            ))
        }
        Value::Time(t) => Node::Scalar(Scalar::Str(crate::json::rfc3339_nano(t))),
        Value::Object(o) => to_node(&o.to_plain(), depth)?,
        Value::List(items, _) => seq_node(items, |x| to_node(x, depth))?,
        Value::Map(m) => map_node(m, false, reread_json_string, |v| to_node(v, depth))?,
    })
}

/// The node of a list, each item converted by `item`.
fn seq_node(
    items: &[Value],
    item: impl FnMut(&Value) -> Result<Node, YamlError>,
) -> Result<Node, YamlError> {
    Ok(Node::Seq(items.iter().map(item).collect::<Result<_, _>>()?))
}

/// The node of a map, each key converted by `key` and each value by `value`, in go-yaml's key
/// order (v3's with `v3`, else v2's).
fn map_node(
    m: &MapRef,
    v3: bool,
    mut key: impl FnMut(&str) -> Result<String, YamlError>,
    mut value: impl FnMut(&Value) -> Result<Node, YamlError>,
) -> Result<Node, YamlError> {
    let m = map_read(m);
    let mut pairs = Vec::with_capacity(m.len());
    for (k, v) in m.iter() {
        pairs.push((key(k)?, value(v)?));
    }
    drop(m);
    Ok(Node::Map(sort_keys(pairs, v3)))
}

/// What go-yaml gets back when it reads a Go JSON string literal as a double-quoted YAML
/// scalar. Go's JSON leaves DEL, the C1 controls, U+FFFE and U+FFFF unescaped, which go-yaml's
/// reader rejects (`yaml: control characters are not allowed`); a raw NEL (U+0085) is a YAML
/// line break, so it is folded like any break inside a quoted scalar (one break → a space,
/// n+1 breaks → n newlines, blanks around breaks dropped).
fn reread_json_string(s: &str) -> Result<String, YamlError> {
    let bad = |c: char| {
        let u = c as u32;
        u == 0x7F || (0x80..=0x9F).contains(&u) && u != 0x85 || u == 0xFFFE || u == 0xFFFF
    };
    if s.chars().any(bad) {
        return Err(YamlError::Reread {
            message: "control characters are not allowed".into(),
        });
    }
    if !s.contains('\u{85}') {
        return Ok(s.to_string());
    }
    let v: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] != ' ' && v[i] != '\u{85}' {
            out.push(v[i]);
            i += 1;
            continue;
        }
        // a run of blanks and NEL breaks
        let mut whitespace = String::new();
        let mut breaks = 0usize;
        while i < v.len() && (v[i] == ' ' || v[i] == '\u{85}') {
            if v[i] == ' ' {
                if breaks == 0 {
                    whitespace.push(' ');
                }
            } else {
                breaks += 1;
            }
            i += 1;
        }
        if breaks == 0 {
            out.push_str(&whitespace);
        } else if breaks == 1 {
            out.push(' ');
        } else {
            for _ in 1..breaks {
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// go-yaml v3 encoding the Go value itself (Helm's `toYamlPretty`): floats keep their `%g` text
/// (`1e+06`, `-0`, `.nan`), `[]byte` is a list of integers, nothing is re-read.
/// go-yaml v3's encoding of the value itself. It has no cycle check (Helm's `toYamlPretty`
/// of a value that contains itself never finishes); the guard makes that an error.
fn to_node_v3(v: &Value, guard: &mut Guard) -> Result<Node, YamlError> {
    if !matches!(v, Value::Map(_) | Value::List(..)) {
        return to_node_v3_inner(v, guard);
    }
    guard.enter(v).map_err(|r| {
        // Helm's toYamlPretty returns "" on an error, but Go never gets here: it recurses
        // until it runs out of memory. Record it so the template fails where Go would crash.
        kubepkg_value::walk::note_fault(r.clone());
        YamlError::Reread {
            message: format!("{r}; Go would never finish"),
        }
    })?;
    let n = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || to_node_v3_inner(v, guard));
    guard.leave(v);
    n
}

fn to_node_v3_inner(v: &Value, guard: &mut Guard) -> Result<Node, YamlError> {
    Ok(match v {
        Value::Nil => Node::Scalar(Scalar::Null),
        Value::Bool(b) => Node::Scalar(Scalar::Bool(*b)),
        Value::Int(i) | Value::Int64(i) => Node::Scalar(Scalar::Int(*i)),
        Value::Uint(u) => Node::Scalar(Scalar::Uint(*u)),
        Value::Uint8(u) => Node::Scalar(Scalar::Int(i64::from(*u))),
        Value::Float(f) => Node::Scalar(Scalar::Float(*f)),
        Value::String(s) => Node::Scalar(Scalar::Str(s.to_string())),
        // go-yaml v3 writes a string that is not UTF-8 as base64 tagged `!!binary`.
        Value::NonUtf8String(b) => {
            use base64::Engine;
            let enc = base64::engine::general_purpose::STANDARD.encode(b);
            const LINE: usize = 70;
            let text = if enc.len() < LINE {
                enc
            } else {
                let mut t = String::with_capacity(enc.len() + enc.len() / LINE + 1);
                for chunk in enc.as_bytes().chunks(LINE) {
                    t.push_str(std::str::from_utf8(chunk).unwrap_or_default());
                    t.push('\n');
                }
                t
            };
            Node::Binary(text)
        }
        Value::Bytes(b) => Node::Seq(
            b.iter()
                .map(|&x| Node::Scalar(Scalar::Int(x as i64)))
                .collect(),
        ),
        Value::Time(t) => Node::Raw(crate::json::rfc3339_nano(t)),
        Value::Object(o) => to_node_v3(&o.to_plain(), guard)?,
        Value::List(items, _) => seq_node(items, |x| to_node_v3(x, guard))?,
        Value::Map(m) => map_node(m, true, |k| Ok(k.to_string()), |v| to_node_v3(v, guard))?,
    })
}

fn is_letter(c: char) -> bool {
    c.is_alphabetic()
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// Sort map entries in go-yaml's key order (each key decoded to characters once).
fn sort_keys(pairs: Vec<(String, Node)>, v3: bool) -> Vec<(String, Node)> {
    let mut keyed: Vec<(Vec<char>, (String, Node))> = pairs
        .into_iter()
        .map(|p| (p.0.chars().collect(), p))
        .collect();
    keyed.sort_by(|a, b| {
        if key_less_chars(&a.0, &b.0, v3) {
            Ordering::Less
        } else if key_less_chars(&b.0, &a.0, v3) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// go-yaml's `keyList.Less` for two string keys (v3 differs when a letter meets a digit right
/// after a run of equal digits).
fn key_less_chars(ar: &[char], br: &[char], v3: bool) -> bool {
    let n = ar.len().min(br.len());
    let mut digits = false;
    for i in 0..n {
        if ar[i] == br[i] {
            digits = is_digit(ar[i]);
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if v3 && digits { al } else { bl };
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && is_digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

pub(crate) struct Analysis {
    pub(crate) multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
}

pub(crate) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_blankz(c: char) -> bool {
    is_blank(c) || is_break(c) || c == '\0'
}

/// Where one kind of white space (spaces, or line breaks) stands in a scalar, as libyaml's
/// `yaml_emitter_analyze_scalar` tracks it.
#[derive(Default)]
struct WhiteSpace {
    /// Anywhere.
    any: bool,
    /// At the start.
    leading: bool,
    /// At the end.
    trailing: bool,
    /// Right after the other kind.
    after_other: bool,
}

impl WhiteSpace {
    /// Notes one at index `i` of a scalar of `n` characters, right after the other kind or not.
    fn note(&mut self, i: usize, n: usize, after_other: bool) {
        self.any = true;
        self.leading |= i == 0;
        self.trailing |= i + 1 == n;
        self.after_other |= after_other;
    }
}

/// Whether `c`, the first character of a scalar, is a flow and a block indicator.
fn first_char_indicator(c: char, followed_ws: bool) -> (bool, bool) {
    match c {
        '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
        | '@' | '`' => (true, true),
        '?' | ':' => (true, followed_ws),
        '-' if followed_ws => (true, true),
        _ => (false, false),
    }
}

/// Whether `c`, a later character of a scalar, is a flow and a block indicator.
fn inner_char_indicator(c: char, followed_ws: bool, preceded_ws: bool) -> (bool, bool) {
    match c {
        ',' | '?' | '[' | ']' | '{' | '}' => (true, false),
        ':' => (true, followed_ws),
        '#' if preceded_ws => (true, true),
        _ => (false, false),
    }
}

impl Analysis {
    /// Neither plain style, flow or block, may write the scalar.
    fn forbid_plain(&mut self) {
        self.flow_plain_allowed = false;
        self.block_plain_allowed = false;
    }
}

/// libyaml's `yaml_emitter_analyze_scalar` (with unicode output enabled).
pub(crate) fn analyze(v: &[char], v3: bool) -> Analysis {
    if v.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_ind = false;
    let mut flow_ind = false;
    let mut special = false;
    let mut spaces = WhiteSpace::default();
    let mut breaks = WhiteSpace::default();
    let (mut prev_space, mut prev_break) = (false, false);
    let mut tabs = false;
    if v.len() >= 3 && (v[..3] == ['-', '-', '-'] || v[..3] == ['.', '.', '.']) {
        block_ind = true;
        flow_ind = true;
    }
    let mut preceded_ws = true;
    let n = v.len();
    for i in 0..n {
        let c = v[i];
        let followed_ws = i + 1 >= n || is_blank(v[i + 1]);
        let (flow, block) = if i == 0 {
            first_char_indicator(c, followed_ws)
        } else {
            inner_char_indicator(c, followed_ws, preceded_ws)
        };
        flow_ind |= flow;
        block_ind |= block;
        if v3 && c == '\t' {
            tabs = true;
        } else if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            spaces.note(i, n, prev_break);
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            breaks.note(i, n, prev_space);
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_ws = is_blankz(c);
    }
    let mut a = Analysis {
        multiline: breaks.any,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if spaces.leading || breaks.leading || spaces.trailing || breaks.trailing {
        a.forbid_plain();
    }
    if spaces.trailing {
        a.block_allowed = false;
    }
    // A space after a break, a break after a space, a tab (v3) or an unprintable character.
    if spaces.after_other || breaks.after_other || tabs || special {
        a.forbid_plain();
        a.single_quoted_allowed = false;
    }
    if breaks.after_other || special {
        a.block_allowed = false;
    }
    if breaks.any {
        a.forbid_plain();
    }
    if flow_ind {
        a.flow_plain_allowed = false;
    }
    if block_ind {
        a.block_plain_allowed = false;
    }
    a
}

/// A port of the parts of libyaml's emitter that go-yaml v2's encoder drives.
pub(crate) struct Emitter {
    pub(crate) out: String,
    pub(crate) column: usize,
    pub(crate) indent: i64,
    pub(crate) indents: Vec<i64>,
    pub(crate) whitespace: bool,
    pub(crate) indention: bool,
    pub(crate) flow_level: usize,
    pub(crate) best_indent: i64,
    pub(crate) best_width: usize,
    /// go-yaml v3 (toYamlPretty): block sequences indented inside mappings, tabs allowed in
    /// literal blocks, `indention` tracked by line breaks only.
    pub(crate) v3: bool,
    /// go-yaml v3's `CompactSeqIndent` (kyaml): a block sequence inside a mapping is not
    /// indented (`key:\n- item`).
    pub(crate) compact_seq: bool,
    pub(crate) root_ctx: bool,
    pub(crate) mapping_ctx: bool,
    pub(crate) simple_key_ctx: bool,
    /// The scalar being written, by character: one buffer for every scalar of the document.
    scalar_chars: Vec<char>,
}

impl Emitter {
    pub(crate) fn new(best_indent: i64, best_width: usize, v3: bool) -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            flow_level: 0,
            best_indent,
            best_width,
            v3,
            compact_seq: false,
            root_ctx: false,
            mapping_ctx: false,
            simple_key_ctx: false,
            scalar_chars: Vec::new(),
        }
    }

    pub(crate) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    pub(crate) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        if self.v3 {
            self.indention = true;
        }
    }

    pub(crate) fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
            if self.v3 {
                self.indention = true;
            }
        }
    }

    pub(crate) fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if !indentless {
            self.indent += self.best_indent;
        }
    }

    pub(crate) fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(crate) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        if !self.v3 {
            self.indention = true;
        }
    }

    pub(crate) fn write_indicator(
        &mut self,
        ind: &str,
        need_ws: bool,
        is_ws: bool,
        is_indention: bool,
    ) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in ind.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, n: &Node, root: bool, mapping: bool, simple_key: bool) {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.node_inner(n, root, mapping, simple_key)
        })
    }

    fn node_inner(&mut self, n: &Node, root: bool, mapping: bool, simple_key: bool) {
        self.root_ctx = root;
        self.mapping_ctx = mapping;
        self.simple_key_ctx = simple_key;
        match n {
            Node::Scalar(Scalar::Null) => self.scalar("null", Style::Plain),
            Node::Scalar(Scalar::Bool(b)) => {
                self.scalar(if *b { "true" } else { "false" }, Style::Plain)
            }
            Node::Scalar(Scalar::Int(i)) => self.scalar(&i.to_string(), Style::Plain),
            Node::Scalar(Scalar::Uint(u)) => self.scalar(&u.to_string(), Style::Plain),
            Node::Scalar(Scalar::Float(f)) => {
                let s = match format_float(*f, 'g', -1, 64).as_str() {
                    "+Inf" => ".inf".to_string(),
                    "-Inf" => "-.inf".to_string(),
                    "NaN" => ".nan".to_string(),
                    s => s.to_string(),
                };
                self.scalar(&s, Style::Plain)
            }
            Node::Raw(s) => self.scalar(s, Style::Plain),
            Node::Binary(s) => {
                self.write_indicator("!!binary", true, false, false);
                let style = if s.contains('\n') {
                    Style::Literal
                } else {
                    Style::Plain
                };
                self.scalar(s, style)
            }
            Node::Scalar(Scalar::Str(s)) => {
                let style = if s.contains('\n') {
                    Style::Literal
                } else if !needs_quotes(s) {
                    Style::Plain
                } else {
                    Style::Double
                };
                self.scalar(s, style)
            }
            Node::Seq(items) => {
                if self.flow_level > 0 || items.is_empty() {
                    self.write_indicator("[", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    // only empty sequences are written in flow style by go-yaml's encoder
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator("]", false, false, false);
                } else {
                    let indentless = self.mapping_ctx && !self.indention && !self.v3;
                    self.increase_indent(false, indentless);
                    for item in items {
                        self.write_indent();
                        self.write_indicator("-", true, false, true);
                        self.node(item, false, false, false);
                    }
                    self.pop_indent();
                }
            }
            Node::Map(pairs) => {
                if self.flow_level > 0 || pairs.is_empty() {
                    self.write_indicator("{", true, true, false);
                    self.increase_indent(true, false);
                    self.pop_indent();
                    self.write_indicator("}", false, false, false);
                } else {
                    self.increase_indent(false, false);
                    for (k, v) in pairs {
                        self.write_indent();
                        let key = Node::Scalar(Scalar::Str(k.clone()));
                        let kc: Vec<char> = k.chars().collect();
                        let simple = !analyze(&kc, self.v3).multiline && k.len() <= 128;
                        if simple {
                            self.node(&key, false, true, true);
                            self.write_indicator(":", false, false, false);
                        } else {
                            self.write_indicator("?", true, false, true);
                            self.node(&key, false, true, false);
                            self.write_indent();
                            self.write_indicator(":", true, false, true);
                        }
                        self.node(v, false, true, false);
                    }
                    self.pop_indent();
                }
            }
        }
    }

    fn select_style(&self, requested: Style, a: &Analysis, empty: bool) -> Style {
        let mut style = requested;
        if self.simple_key_ctx && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            if (self.flow_level > 0 && !a.flow_plain_allowed)
                || (self.flow_level == 0 && !a.block_plain_allowed)
            {
                style = Style::Single;
            }
            if empty && (self.flow_level > 0 || self.simple_key_ctx) {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if matches!(style, Style::Literal | Style::Folded)
            && (!a.block_allowed || self.flow_level > 0 || self.simple_key_ctx)
        {
            style = Style::Double;
        }
        style
    }

    pub(crate) fn scalar(&mut self, value: &str, requested: Style) {
        let mut v = std::mem::take(&mut self.scalar_chars);
        v.clear();
        v.extend(value.chars());
        let a = analyze(&v, self.v3);
        let style = self.select_style(requested, &a, v.is_empty());
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_ctx;
        match style {
            Style::Plain => self.write_plain(&v, allow_breaks),
            Style::Single => self.write_single(&v, allow_breaks),
            Style::Double => self.write_double(&v, allow_breaks),
            Style::Literal => self.write_literal(&v),
            Style::Folded => self.write_folded(&v),
        }
        self.scalar_chars = v;
        self.pop_indent();
    }

    /// libyaml's `yaml_emitter_write_folded_scalar` (go-yaml v3), its look-ahead for a blank
    /// line included as Go has it (it looks from the start of the value).
    fn write_folded(&mut self, v: &[char]) {
        self.start_block_scalar(">", v);
        let mut breaks = true;
        let mut leading_spaces = true;
        let mut i = 0;
        while i < v.len() {
            let c = v[i];
            if is_break(c) {
                if !breaks && !leading_spaces && c == '\n' {
                    let mut k = 0;
                    while k < v.len() && is_break(v[k]) {
                        k += 1;
                    }
                    if !(k >= v.len() || is_blankz(v[k])) {
                        self.put_break();
                    }
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = is_blank(c);
                }
                if !breaks
                    && c == ' '
                    && v.get(i + 1) != Some(&' ')
                    && self.column > self.best_width
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                self.indention = false;
                breaks = false;
            }
            i += 1;
        }
    }

    fn write_plain(&mut self, v: &[char], allow_breaks: bool) {
        if !(self.whitespace || self.v3 && v.is_empty()) {
            self.put(' ');
        }
        self.write_unescaped(v, allow_breaks, false);
        if !(self.v3 && v.is_empty()) {
            self.whitespace = false;
        }
        self.indention = false;
    }

    fn write_single(&mut self, v: &[char], allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        self.write_unescaped(v, allow_breaks, true);
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// The characters of a plain or single-quoted scalar (the loops of go-yaml's
    /// `yaml_emitter_write_plain_scalar` and `…_single_quoted_scalar`): a lone space past the
    /// best width folds the line (inside the quotes only, for a quoted one), line breaks are
    /// written with a blank line before the first, and a quoted `'` is doubled.
    fn write_unescaped(&mut self, v: &[char], allow_breaks: bool, quoted: bool) {
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in v.iter().enumerate() {
            if c == ' ' {
                let inside = !quoted || (i > 0 && i + 1 < v.len());
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && inside
                    && v.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if quoted && c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
    }

    fn write_double(&mut self, v: &[char], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator("\"", true, false, false);
        let bom = v.first() == Some(&'\u{feff}');
        let n = v.len();
        for i in 0..n {
            let c = v[i];
            if !is_printable(c) || bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let u = c as u32;
                match u {
                    0x00 => self.put('0'),
                    0x07 => self.put('a'),
                    0x08 => self.put('b'),
                    0x09 => self.put('t'),
                    0x0A => self.put('n'),
                    0x0B => self.put('v'),
                    0x0C => self.put('f'),
                    0x0D => self.put('r'),
                    0x1B => self.put('e'),
                    0x22 => self.put('"'),
                    0x5C => self.put('\\'),
                    0x85 => self.put('N'),
                    0xA0 => self.put('_'),
                    0x2028 => self.put('L'),
                    0x2029 => self.put('P'),
                    _ => {
                        let (ch, w) = if u <= 0xFF {
                            ('x', 2)
                        } else if u <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(ch);
                        for k in (0..w).rev() {
                            let d = (u >> (k * 4)) & 0xF;
                            self.put(
                                std::char::from_digit(d, 16)
                                    .unwrap_or('0')
                                    .to_ascii_uppercase(),
                            );
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > self.best_width && i > 0 && i + 1 < n {
                    self.write_indent();
                    if v[i + 1] == ' ' {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_block_hints(&mut self, v: &[char]) {
        if let Some(&c) = v.first()
            && (c == ' ' || is_break(c))
        {
            let hint = char::from(b'0' + self.best_indent as u8);
            self.write_indicator(&hint.to_string(), false, false, false);
        }
        let chomp = match v.len() {
            0 => Some('-'),
            n => {
                if !is_break(v[n - 1]) {
                    Some('-')
                } else if n == 1 || is_break(v[n - 2]) {
                    Some('+')
                } else {
                    None
                }
            }
        };
        if let Some(h) = chomp {
            self.write_indicator(&h.to_string(), false, false, false);
        }
    }

    /// The header of a literal (`|`) or folded (`>`) block scalar `v`: its indicator and
    /// hints, then the line break its content starts after.
    fn start_block_scalar(&mut self, indicator: &str, v: &[char]) {
        self.write_indicator(indicator, true, false, false);
        self.write_block_hints(v);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
    }

    fn write_literal(&mut self, v: &[char]) {
        self.start_block_scalar("|", v);
        let mut breaks = true;
        for &c in v {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn document(mut self, root: &Node) -> String {
        self.node(root, true, false, false);
        // DOCUMENT-END (implicit): finish the last line.
        self.write_indent();
        let _ = self.root_ctx;
        self.out
    }
}

/// The first value `encoding/json` cannot write (NaN, ±Inf, a value that contains itself), in
/// the order it walks the value, as `json.Marshal`'s error.
fn first_unsupported(v: &Value, guard: &mut Guard) -> Option<YamlError> {
    match v {
        Value::Float(f) if !f.is_finite() => Some(marshal_error(*f)),
        Value::List(..) | Value::Map(_) => {
            if let Err(r) = guard.enter(v) {
                return Some(YamlError::Marshal {
                    message: crate::json::cycle_error(&r),
                });
            }
            let found = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || match v {
                Value::List(items, _) => items.iter().find_map(|x| first_unsupported(x, guard)),
                Value::Map(m) => map_read(m)
                    .values()
                    .find_map(|x| first_unsupported(x, guard)),
                _ => None,
            });
            guard.leave(v);
            found
        }
        Value::Object(o) => first_unsupported(&o.to_plain(), guard),
        _ => None,
    }
}

/// `sigs.k8s.io/yaml.Marshal(v)`.
pub fn marshal(v: &Value) -> Result<String, YamlError> {
    // json.Marshal fails before go-yaml sees anything.
    if let Some(e) = first_unsupported(v, &mut Guard::unbounded()) {
        return Err(e);
    }
    let node = to_node(v, 0)?;
    Ok(Emitter::new(2, 80, false).document(&node))
}

/// Helm's `toYamlPretty`: go-yaml v3's encoder with `SetIndent(2)` on the value itself.
pub fn marshal_pretty(v: &Value) -> Result<String, YamlError> {
    let node = to_node_v3(v, &mut Guard::unbounded())?;
    Ok(Emitter::new(2, usize::MAX / 2, true).document(&node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_key_order() {
        // Order printed by go-yaml v2 for these keys (corpus case `key-order`).
        let keys = vec![
            "a10", "a2", "b", "a", "1", "10", "2", "A", "_", "a01", "é", "",
        ];
        let pairs = keys
            .into_iter()
            .map(|k| (k.to_string(), Node::Scalar(Scalar::Null)))
            .collect();
        let keys: Vec<String> = sort_keys(pairs, false).into_iter().map(|p| p.0).collect();
        assert_eq!(
            keys,
            vec![
                "", "_", "1", "2", "10", "A", "a", "a01", "a2", "a10", "b", "é"
            ]
        );
    }
}
