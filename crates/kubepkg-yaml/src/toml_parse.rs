//! The TOML parser of Helm's `fromToml`, behaving as BurntSushi/toml v1.6.0's: it pulls items
//! from [`crate::toml_lex`], builds the document (tables, arrays of tables, implicit tables
//! from dotted keys and headers), and reports errors as BurntSushi's `ParseError.Error()` does:
//! `toml: line N (last key "K"): MESSAGE`, with the same message, line and last key. Values are
//! what BurntSushi decodes into `interface{}`: `int64`, `float64`, `bool`, `string`,
//! `time.Time` (see [`crate::toml`] for the zones), lists and maps.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use kubepkg_value::{ElemType, GoTime, Value};

use crate::toml_lex::{Item, ItemType, Lexer, is_digit, is_hex};
use kubepkg_gostd::strconv::{quote as go_quote, quote_rune};

/// A TOML document as BurntSushi holds it while parsing.
#[derive(Debug, Clone)]
enum Node {
    Table(BTreeMap<String, Node>),
    Tables(Vec<BTreeMap<String, Node>>),
    Array(Vec<Node>),
    Leaf(Value),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Primitive,
    Array,
    Hash,
    ArrayHash,
}

/// A parse failure: BurntSushi's `ParseError` text.
#[derive(Debug)]
pub(crate) struct ParseFailure(pub String);

type Res<T> = Result<T, ParseFailure>;

/// BurntSushi's `Key.String()`: pieces joined with `.`, non-bare ones double-quoted.
fn key_string(k: &[String]) -> String {
    k.iter()
        .map(|p| {
            if p.is_empty() {
                "\"\"".to_string()
            } else if p.chars().all(crate::toml_lex::is_bare_key_char) {
                p.clone()
            } else {
                crate::toml_form::quote(p)
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

struct Parser<'a> {
    lx: Lexer<'a>,
    context: Vec<String>,
    current_key: String,
    pos_line: i64,
    key_info: HashMap<String, Kind>,
    mapping: BTreeMap<String, Node>,
    implicits: HashSet<String>,
    /// Arrays and inline tables currently open (see [`crate::decode::MAX_DEPTH`]).
    depth: usize,
}

/// Decodes `src` as BurntSushi's `toml.Unmarshal` into `map[string]interface{}`.
pub(crate) fn parse(src: &str) -> Res<Value> {
    let data = if let Some(rest) = src
        .strip_prefix("\u{feff}")
        .or_else(|| src.strip_prefix("\u{fffe}"))
    {
        rest
    } else {
        src
    };
    let head = &data.as_bytes()[..data.len().min(6)];
    if head.contains(&0) {
        return Err(ParseFailure(
            "toml: line 1: files cannot contain NULL bytes; probably using UTF-16; TOML files must be UTF-8".into(),
        ));
    }
    let mut p = Parser {
        lx: Lexer::new(data),
        context: Vec::new(),
        current_key: String::new(),
        pos_line: 0,
        key_info: HashMap::new(),
        mapping: BTreeMap::new(),
        implicits: HashSet::new(),
        depth: 0,
    };
    loop {
        let it = p.next()?;
        if it.typ == ItemType::Eof {
            break;
        }
        p.top_level(it)?;
    }
    Ok(to_value(Node::Table(std::mem::take(&mut p.mapping))))
}

fn to_value(n: Node) -> Value {
    stacker::maybe_grow(crate::decode::RED_ZONE, crate::decode::STACK_CHUNK, || {
        to_value_inner(n)
    })
}

fn to_value_inner(n: Node) -> Value {
    match n {
        Node::Table(m) => Value::map(
            m.into_iter()
                .map(|(k, v)| (k, to_value(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
        Node::Tables(v) => Value::List(
            Arc::new(v.into_iter().map(|m| to_value(Node::Table(m))).collect()),
            ElemType::Maps,
        ),
        Node::Array(v) => Value::list(v.into_iter().map(to_value).collect()),
        Node::Leaf(v) => v,
    }
}

impl Parser<'_> {
    fn current(&self) -> String {
        if self.current_key.is_empty() {
            return key_string(&self.context);
        }
        if self.context.is_empty() {
            return self.current_key.clone();
        }
        format!("{}.{}", key_string(&self.context), self.current_key)
    }

    fn fail(&self, line: i64, msg: String) -> ParseFailure {
        let last = self.current();
        if last.is_empty() {
            ParseFailure(format!("toml: line {line}: {msg}"))
        } else {
            ParseFailure(format!(
                "toml: line {line} (last key {}): {msg}",
                go_quote(&last)
            ))
        }
    }

    fn bug(&self, msg: String) -> ParseFailure {
        ParseFailure(format!("BUG: {msg}\n\n"))
    }

    /// `panicf`: an error at the position of the last key read.
    fn failf(&self, msg: String) -> ParseFailure {
        self.fail(self.pos_line, msg)
    }

    /// The next item past any comments (a comment's text is read and dropped).
    fn next_past_comments(&mut self) -> Res<Item> {
        loop {
            let it = self.next()?;
            if it.typ != ItemType::CommentStart {
                return Ok(it);
            }
            self.expect(ItemType::Text)?;
        }
    }

    fn next(&mut self) -> Res<Item> {
        let it = self.lx.next_item();
        if it.typ == ItemType::Error {
            return Err(self.fail(it.line, it.val));
        }
        Ok(it)
    }

    fn next_pos(&mut self) -> Res<Item> {
        let it = self.next()?;
        self.pos_line = it.line;
        Ok(it)
    }

    fn expect(&mut self, typ: ItemType) -> Res<Item> {
        let it = self.next()?;
        if it.typ != typ {
            return Err(self.bug(format!("Expected '{typ:?}' but got '{:?}'.", it.typ)));
        }
        Ok(it)
    }

    fn read_key(&mut self, end: ItemType) -> Res<Vec<String>> {
        let mut name = self.next_pos()?;
        let mut key = Vec::new();
        while name.typ != end && name.typ != ItemType::Eof {
            key.push(self.key_string_of(&name)?);
            name = self.next()?;
        }
        if name.typ != end {
            return Err(self.bug(format!("Expected '{end:?}' but got '{:?}'.", name.typ)));
        }
        Ok(key)
    }

    fn top_level(&mut self, it: Item) -> Res<()> {
        match it.typ {
            ItemType::CommentStart => {
                self.expect(ItemType::Text)?;
            }
            ItemType::TableStart | ItemType::ArrayTableStart => {
                let array = it.typ == ItemType::ArrayTableStart;
                let end = if array {
                    ItemType::ArrayTableEnd
                } else {
                    ItemType::TableEnd
                };
                let key = self.read_key(end)?;
                if key.is_empty() {
                    return Err(self.bug("empty table name".into()));
                }
                self.add_context(&key, array)?;
                self.set_type("", if array { Kind::ArrayHash } else { Kind::Hash });
            }
            ItemType::KeyStart => {
                let outer = self.context.clone();
                self.key_value()?;
                self.context = outer;
                self.current_key.clear();
            }
            t => return Err(self.bug(format!("Unexpected type at top level: {t:?}"))),
        }
        Ok(())
    }

    fn key_string_of(&mut self, it: &Item) -> Res<String> {
        match it.typ {
            ItemType::Text => Ok(it.val.clone()),
            ItemType::Str
            | ItemType::StrEsc
            | ItemType::MlStr
            | ItemType::RawStr
            | ItemType::RawMlStr => match self.value(it, false)? {
                (Node::Leaf(Value::String(s)), _) => Ok(s.to_string()),
                _ => Err(self.bug("key is not a string".into())),
            },
            t => Err(self.bug(format!("Unexpected key type: {t:?}"))),
        }
    }

    fn value(&mut self, it: &Item, parent_is_array: bool) -> Res<(Node, Kind)> {
        let leaf = |v: Value| Ok((Node::Leaf(v), Kind::Primitive));
        match it.typ {
            ItemType::Str | ItemType::RawStr => leaf(Value::from(it.val.clone())),
            ItemType::StrEsc => leaf(Value::from(self.replace_escapes(it, &it.val)?)),
            ItemType::MlStr => {
                let s = strip_escaped_newlines(strip_first_newline(&it.val));
                leaf(Value::from(self.replace_escapes(it, &s)?))
            }
            ItemType::RawMlStr => leaf(Value::from(strip_first_newline(&it.val).to_string())),
            ItemType::Integer => leaf(self.value_integer(it)?),
            ItemType::Float => leaf(self.value_float(it)?),
            ItemType::Bool => match it.val.as_str() {
                "true" => leaf(Value::Bool(true)),
                "false" => leaf(Value::Bool(false)),
                v => Err(self.bug(format!("Expected boolean value, but got '{v}'."))),
            },
            ItemType::Datetime => leaf(self.value_datetime(it)?),
            ItemType::Array | ItemType::InlineTableStart => {
                if self.depth >= crate::decode::MAX_DEPTH {
                    return Err(self.fail(
                        it.line,
                        format!(
                            "arrays and inline tables nested deeper than {} levels (a kubepkg limit)",
                            crate::decode::MAX_DEPTH
                        ),
                    ));
                }
                self.depth += 1;
                let r = stacker::maybe_grow(
                    crate::decode::RED_ZONE,
                    crate::decode::STACK_CHUNK,
                    || {
                        if it.typ == ItemType::Array {
                            self.value_array()
                        } else {
                            self.value_inline_table(parent_is_array)
                        }
                    },
                );
                self.depth -= 1;
                r
            }
            t => Err(self.bug(format!("Unexpected value type: {t:?}"))),
        }
    }

    /// BurntSushi's "Invalid integer/float" error for the number `it`.
    fn invalid_number(&self, it: &Item, kind: &str, why: &str) -> ParseFailure {
        let msg = format!("Invalid {kind} {}: {why}", go_quote(it.val.as_str()));
        self.fail(it.line, msg)
    }

    fn value_integer(&self, it: &Item) -> Res<Value> {
        let s = it.val.as_str();
        if !num_underscores_ok(s) {
            return Err(self.invalid_number(
                it,
                "integer",
                "underscores must be surrounded by digits",
            ));
        }
        if num_has_leading_zero(s) {
            return Err(self.invalid_number(it, "integer", "cannot have leading zeroes"));
        }
        match go_parse_int(s) {
            Ok(n) => Ok(Value::Int64(n)),
            Err(true) => Err(self.fail(it.line, format!("{s} is out of range for int64"))),
            Err(false) => Err(self.bug(format!("Expected integer value, but got '{s}'."))),
        }
    }

    fn value_float(&self, it: &Item) -> Res<Value> {
        let s = it.val.as_str();
        let parts: Vec<&str> = s.split(['.', 'e', 'E']).filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| !num_underscores_ok(p)) {
            return Err(self.invalid_number(
                it,
                "float",
                "underscores must be surrounded by digits",
            ));
        }
        if parts.first().is_some_and(|p| num_has_leading_zero(p)) {
            return Err(self.invalid_number(it, "float", "cannot have leading zeroes"));
        }
        if !num_periods_ok(s) {
            return Err(self.invalid_number(
                it,
                "float",
                "'.' must be followed by one or more digits",
            ));
        }
        let mut val = s.replace('_', "");
        let mut neg_nan = false;
        if val == "+nan" || val == "-nan" {
            neg_nan = val == "-nan";
            val = "nan".into();
        }
        match kubepkg_gostd::strconv::parse_float_saturating(&val, 64).ok() {
            Some(f) if f.is_infinite() && !val.to_ascii_lowercase().contains("inf") => {
                Err(self.fail(it.line, format!("{s} is out of range for float64")))
            }
            Some(f) => Ok(Value::Float(if neg_nan { -f.abs() } else { f })),
            None => Err(self.fail(it.line, format!("Invalid float value: {}", go_quote(s)))),
        }
    }

    fn value_datetime(&self, it: &Item) -> Res<Value> {
        let v: String = it
            .val
            .chars()
            .map(|c| match c {
                'z' => 'Z',
                't' | ' ' => 'T',
                c => c,
            })
            .collect();
        for (layout, zone) in DT_LAYOUTS {
            if let Some(t) = parse_time(layout, &v, zone) {
                if missing_leading_zero(&v, layout) {
                    break;
                }
                return Ok(Value::Time(Arc::new(t)));
            }
        }
        Err(self.fail(it.line, format!("invalid datetime: {}", go_quote(&v))))
    }

    fn value_array(&mut self) -> Res<(Node, Kind)> {
        let ck = self.current_key.clone();
        self.set_type(&ck, Kind::Array);
        let mut array = Vec::new();
        loop {
            let it = self.next_past_comments()?;
            if it.typ == ItemType::ArrayEnd {
                break;
            }
            array.push(self.value(&it, true)?.0);
        }
        Ok((Node::Array(array), Kind::Array))
    }

    fn value_inline_table(&mut self, parent_is_array: bool) -> Res<(Node, Kind)> {
        let mut top: BTreeMap<String, Node> = BTreeMap::new();
        let outer_context = self.context.clone();
        let outer_key = self.current_key.clone();
        self.context.push(outer_key.clone());
        let prev_context = self.context.clone();
        self.current_key.clear();
        self.implicits.insert(key_string(&self.context));
        let ctx = self.context.clone();
        self.add_context(&ctx, parent_is_array)?;
        loop {
            if self.next_past_comments()?.typ == ItemType::InlineTableEnd {
                break;
            }
            let (parent, ck, val) = self.key_value()?;
            let mut hash = &mut top;
            for c in &parent {
                let entry = hash
                    .entry(c.clone())
                    .or_insert_with(|| Node::Table(BTreeMap::new()));
                match entry {
                    Node::Table(m) => hash = m,
                    _ => {
                        let msg =
                            format!("{} is not a table", go_quote(&key_string(&self.context)));
                        return Err(self.failf(msg));
                    }
                }
            }
            hash.insert(ck, val);
            self.context = prev_context.clone();
        }
        self.context = outer_context;
        self.current_key = outer_key;
        Ok((Node::Table(top), Kind::Hash))
    }

    /// `key = value`, at the top level or in an inline table: the dotted key's parent tables
    /// made implicitly, the value read, then set and typed under the key's last part (the
    /// current key). Returns the parent path, the last part and the value.
    fn key_value(&mut self) -> Res<(Vec<String>, String, Node)> {
        let mut key = self.read_key(ItemType::KeyEnd)?;
        let Some(last) = key.pop() else {
            return Err(self.bug("empty key".into()));
        };
        self.current_key = last.clone();
        for piece in &key {
            let mut k = self.context.clone();
            k.push(piece.clone());
            self.add_implicit_context(&k)?;
        }
        let v = self.next()?;
        let (val, typ) = self.value(&v, false)?;
        self.set_value(&last, val.clone())?;
        self.set_type(&last, typ);
        Ok((key, last, val))
    }

    fn add_implicit_context(&mut self, key: &[String]) -> Res<()> {
        self.implicits.insert(key_string(key));
        self.add_context(key, false)
    }

    /// BurntSushi's `addContext`: makes `key` the current table (or appends a table to the
    /// array of tables `key`), creating implicit parents.
    fn add_context(&mut self, key: &[String], array: bool) -> Res<()> {
        let Some((last, parent)) = key.split_last() else {
            return Err(self.bug("empty context".into()));
        };
        let mut key_context: Vec<String> = Vec::new();
        let err_last = self.current();
        let err_line = self.pos_line;
        {
            let mut hash = &mut self.mapping;
            for k in parent {
                key_context.push(k.clone());
                if !hash.contains_key(k) {
                    self.implicits.insert(key_string(&key_context));
                    hash.insert(k.clone(), Node::Table(BTreeMap::new()));
                }
                match hash.get_mut(k) {
                    Some(Node::Tables(t)) if !t.is_empty() => {
                        hash = t.last_mut().expect("non-empty");
                    }
                    Some(Node::Table(m)) => hash = m,
                    _ => {
                        let msg = format!(
                            "Key '{}' was already created as a hash.",
                            key_string(&key_context)
                        );
                        return Err(fail_with(&err_last, err_line, msg));
                    }
                }
            }
        }
        self.context = key_context;
        if array {
            let ctx = self.context.clone();
            let hash = match navigate(&mut self.mapping, &ctx) {
                Ok(h) => h,
                Err(n) => {
                    let msg = format!("Key '{}' has already been defined.", key_string(&ctx[..n]));
                    return Err(self.failf(msg));
                }
            };
            let entry = hash
                .entry(last.clone())
                .or_insert_with(|| Node::Tables(Vec::new()));
            if let Node::Tables(t) = entry {
                t.push(BTreeMap::new());
            } else {
                let msg = format!(
                    "Key '{}' was already created and cannot be used as an array.",
                    key_string(key)
                );
                return Err(self.failf(msg));
            }
        } else {
            self.set_value(last, Node::Table(BTreeMap::new()))?;
        }
        self.context.push(last.clone());
        Ok(())
    }

    /// BurntSushi's `setValue`: `key = value` in the current table; a key may be redefined
    /// only when it was implicit (and arrays when they were set up by an inline table).
    fn set_value(&mut self, key: &str, value: Node) -> Res<()> {
        let ctx = self.context.clone();
        let mut kc = ctx.clone();
        kc.push(key.to_string());
        let kcs = key_string(&kc);
        let exists = match navigate(&mut self.mapping, &ctx) {
            Ok(h) => h.contains_key(key),
            Err(n) => {
                let msg = format!("Key '{}' has already been defined.", key_string(&ctx[..n]));
                return Err(self.failf(msg));
            }
        };
        if exists {
            if self.key_info.get(&kcs) == Some(&Kind::Array) {
                if !self.implicits.contains(&kcs) {
                    return Err(self.failf(format!("Key '{kcs}' has already been defined.")));
                }
                self.implicits.remove(&kcs);
            } else if self.implicits.remove(&kcs) {
                return Ok(());
            } else {
                return Err(self.failf(format!("Key '{kcs}' has already been defined.")));
            }
        }
        if let Ok(h) = navigate(&mut self.mapping, &ctx) {
            h.insert(key.to_string(), value);
        }
        Ok(())
    }

    fn set_type(&mut self, key: &str, typ: Kind) {
        let mut kc = self.context.clone();
        if !key.is_empty() {
            kc.push(key.to_string());
        }
        if kc.is_empty() {
            kc.push(String::new());
        }
        self.key_info.insert(key_string(&kc), typ);
    }

    fn replace_escapes(&self, it: &Item, s: &str) -> Res<String> {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(&(_, e)) = chars.peek() else {
                return Err(self.bug("Escape sequence at end of string.".into()));
            };
            chars.next();
            let simple = match e {
                'b' => Some('\u{8}'),
                't' => Some('\t'),
                'n' => Some('\n'),
                'f' => Some('\u{c}'),
                'r' => Some('\r'),
                'e' => Some('\u{1b}'),
                '"' => Some('"'),
                '\\' => Some('\\'),
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                continue;
            }
            let n = match e {
                ' ' | '\t' => {
                    return Err(self.fail(it.line, format!("invalid escape: '\\{e}'")));
                }
                'x' => 2,
                'u' => 4,
                'U' => 8,
                _ => {
                    return Err(self.bug(format!(
                        "Expected valid escape code after \\, but got {}.",
                        quote_rune(e, false)
                    )));
                }
            };
            let hex = s.get(i + 2..i + 2 + n).unwrap_or("");
            for _ in 0..n {
                chars.next();
            }
            let code = u32::from_str_radix(hex, 16).ok();
            match code.and_then(char::from_u32) {
                Some(c) => out.push(c),
                None => {
                    return Err(self.fail(
                        it.line,
                        format!("Escaped character '\\u{hex}' is not valid UTF-8."),
                    ));
                }
            }
        }
        Ok(out)
    }
}

fn fail_with(last: &str, line: i64, msg: String) -> ParseFailure {
    if last.is_empty() {
        ParseFailure(format!("toml: line {line}: {msg}"))
    } else {
        ParseFailure(format!(
            "toml: line {line} (last key {}): {msg}",
            go_quote(last)
        ))
    }
}

/// The table at `path`, walking into the last table of arrays of tables; `Err(n)` when the
/// `n`th piece is not a table.
fn navigate<'m>(
    mut hash: &'m mut BTreeMap<String, Node>,
    path: &[String],
) -> Result<&'m mut BTreeMap<String, Node>, usize> {
    for (i, k) in path.iter().enumerate() {
        match hash.get_mut(k) {
            Some(Node::Tables(t)) if !t.is_empty() => hash = t.last_mut().expect("non-empty"),
            Some(Node::Table(m)) => hash = m,
            _ => return Err(i + 1),
        }
    }
    Ok(hash)
}

fn strip_first_newline(s: &str) -> &str {
    s.strip_prefix('\n')
        .or_else(|| s.strip_prefix("\r\n"))
        .unwrap_or(s)
}

/// Removes a line-ending backslash and the whitespace after it in a multi-line basic string.
fn strip_escaped_newlines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut s = s;
    let mut i = 0;
    loop {
        let Some(ix) = s[i..].find('\\') else {
            out.push_str(s);
            return out;
        };
        i += ix;
        if s.as_bytes().get(i + 1) == Some(&b'\\') {
            i += 2;
            continue;
        }
        let b = s.as_bytes();
        let mut j = i + 1;
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if j == i + 1 || !s[i..j].contains('\n') {
            i += 1;
            continue;
        }
        out.push_str(&s[..i]);
        s = &s[j..];
        i = 0;
    }
}

fn num_has_leading_zero(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() > 1 && b[0] == b'0' && !matches!(b[1], b'b' | b'o' | b'x') {
        return true;
    }
    b.len() > 2 && (b[0] == b'-' || b[0] == b'+') && b[1] == b'0'
}

fn num_underscores_ok(s: &str) -> bool {
    if matches!(s, "nan" | "+nan" | "-nan" | "inf" | "-inf" | "+inf") {
        return true;
    }
    let mut accept = false;
    for r in s.chars() {
        if r == '_' && !accept {
            return false;
        }
        accept = is_hex(r);
    }
    accept
}

fn num_periods_ok(s: &str) -> bool {
    let mut period = false;
    for r in s.chars() {
        if period && !is_digit(r) {
            return false;
        }
        period = r == '.';
    }
    !period
}

/// Go's `strconv.ParseInt(s, 0, 64)` on what the lexer produces; `Err(true)` is a range error.
fn go_parse_int(s: &str) -> Result<i64, bool> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(d) = rest.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = rest.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = rest.strip_prefix("0b") {
        (2, d)
    } else {
        (10, rest)
    };
    let digits = digits.replace('_', "");
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(false);
    }
    let mag = u128::from_str_radix(&digits, radix).map_err(|_| true)?;
    if neg {
        if mag > 1u128 << 63 {
            return Err(true);
        }
        Ok((-(mag as i128)) as i64)
    } else if mag > i64::MAX as u128 {
        Err(true)
    } else {
        Ok(mag as i64)
    }
}

#[derive(Clone, Copy)]
enum Zone {
    Offset,
    Named(&'static str),
}

const DT_LAYOUTS: [(&str, Zone); 7] = [
    ("2006-01-02T15:04:05.999999999Z07:00", Zone::Offset),
    (
        "2006-01-02T15:04:05.999999999",
        Zone::Named(crate::toml_form::LOCAL_DATETIME),
    ),
    ("2006-01-02", Zone::Named(crate::toml_form::LOCAL_DATE)),
    (
        "15:04:05.999999999",
        Zone::Named(crate::toml_form::LOCAL_TIME),
    ),
    ("2006-01-02T15:04Z07:00", Zone::Offset),
    (
        "2006-01-02T15:04",
        Zone::Named(crate::toml_form::LOCAL_DATETIME),
    ),
    ("15:04", Zone::Named(crate::toml_form::LOCAL_TIME)),
];

/// Go's `missingLeadingZero` check of BurntSushi (Go's parser accepts a one-digit hour).
fn missing_leading_zero(d: &str, layout: &str) -> bool {
    let d = d.as_bytes();
    for (i, c) in layout.bytes().enumerate() {
        if c == b'.' || c == b'Z' {
            return false;
        }
        if !c.is_ascii_digit() && d.get(i) != Some(&c) {
            return true;
        }
    }
    false
}

fn take_num(v: &mut &str, fixed: bool) -> Option<i64> {
    let b = v.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    if b.len() < 2 || !b[1].is_ascii_digit() {
        if fixed {
            return None;
        }
        let n = (b[0] - b'0') as i64;
        *v = &v[1..];
        return Some(n);
    }
    let n = ((b[0] - b'0') * 10 + (b[1] - b'0')) as i64;
    *v = &v[2..];
    Some(n)
}

fn lit(v: &mut &str, c: char) -> Option<()> {
    *v = v.strip_prefix(c)?;
    Some(())
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Go's `time.ParseInLocation` for the seven layouts BurntSushi tries (local zone = UTC).
fn parse_time(layout: &str, value: &str, zone: Zone) -> Option<GoTime> {
    let mut v = value;
    let (mut year, mut month, mut day) = (0i64, 1i64, 1i64);
    let has_date = layout.starts_with("2006");
    if has_date {
        let y = v.get(..4)?;
        if !y.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        year = y.parse().ok()?;
        v = &v[4..];
        lit(&mut v, '-')?;
        month = take_num(&mut v, true)?;
        lit(&mut v, '-')?;
        day = take_num(&mut v, true)?;
        if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
            return None;
        }
    }
    let (mut hour, mut min, mut sec, mut nanos) = (0i64, 0i64, 0i64, 0u32);
    if layout.contains("15:04") {
        if has_date {
            lit(&mut v, 'T')?;
        }
        hour = take_num(&mut v, false)?;
        lit(&mut v, ':')?;
        min = take_num(&mut v, true)?;
        if layout.contains(":05") {
            lit(&mut v, ':')?;
            sec = take_num(&mut v, true)?;
            let b = v.as_bytes();
            if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
                let mut n = 1;
                while n < b.len() && b[n].is_ascii_digit() {
                    n += 1;
                }
                let digits = &v[1..n.min(10)];
                let mut ns: u32 = digits.parse().ok()?;
                for _ in digits.len()..9 {
                    ns *= 10;
                }
                nanos = ns;
                v = &v[n..];
            }
        }
        if hour >= 24 || min >= 60 || sec >= 60 {
            return None;
        }
    }
    let mut offset = 0i64;
    let mut utc = false;
    if layout.ends_with("Z07:00") {
        if let Some(rest) = v.strip_prefix('Z') {
            v = rest;
            utc = true;
        } else {
            let b = v.as_bytes();
            if b.len() < 6 || b[3] != b':' || !(b[0] == b'+' || b[0] == b'-') {
                return None;
            }
            let mut h = &v[1..3];
            let mut m = &v[4..6];
            let hh = take_num(&mut h, true)?;
            let mm = take_num(&mut m, true)?;
            if hh > 24 || mm > 60 {
                return None;
            }
            offset = (hh * 3600 + mm * 60) * if b[0] == b'-' { -1 } else { 1 };
            v = &v[6..];
        }
    }
    if !v.is_empty() {
        return None;
    }
    let local = kubepkg_gostd::time::civil::to_days(year, month as u32, day as u32) * 86_400
        + hour * 3600
        + min * 60
        + sec;
    let (offset_secs, zone) = match zone {
        Zone::Named(z) => (0, z.to_string()),
        Zone::Offset if utc || offset == 0 => (0, "UTC".to_string()),
        Zone::Offset => (offset as i32, String::new()),
    };
    Some(GoTime {
        unix_secs: local - offset_secs as i64,
        nanos,
        offset_secs,
        zone,
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Every prefix of every document (cut at each character) is read without a panic: the
    /// lexer's backing up and the parser's table bookkeeping stay in bounds on truncated input.
    #[test]
    fn truncated_documents_never_panic() {
        let docs = [
            r#"a = 1
[b]
c = "x\u00e9\x41"
[[d]]
e = [1, {f = 'g'}, 1979-05-27T07:32:00Z]"#,
            "s = \"\"\"\nl1 \\\n  l2\"\"\"\nr = '''\nx'''\nt = {a.b = 0x1F, c = -inf}",
            "é = 1\nx = ina\ny = 0b\nz = 1_000.5e-3\n\"q\\U0001F600\" = 07:32\n",
            "[a.\"b\".'c']\n\t d = 1979-05-27 07:32:00.999+01:00 # ü\r\n",
        ];
        for doc in docs {
            for (i, _) in doc.char_indices() {
                let _ = parse(&doc[..i]);
            }
        }
        assert!(parse(docs[0]).is_ok());
        assert!(parse(docs[1]).is_ok());
        assert!(parse(docs[3]).is_ok());
    }

    /// Nesting beyond the limit is an error, not a stack overflow.
    #[test]
    fn deep_nesting_is_an_error() {
        let deep = format!("a = {}{}", "[".repeat(5000), "]".repeat(5000));
        let err = parse(&deep).unwrap_err().0;
        assert!(err.contains("nested deeper than 1000 levels"), "{err}");
        let ok = format!("a = {}{}", "[".repeat(999), "]".repeat(999));
        assert!(parse(&ok).is_ok());
    }
}
