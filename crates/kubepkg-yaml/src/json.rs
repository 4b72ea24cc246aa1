//! JSON exactly as Go's `encoding/json` (what Helm's `toJson`/`fromJson` and Sprig's
//! `toPrettyJson`/`toRawJson` call): sorted map keys, HTML-safe escaping (`<` → `\u003c`) unless
//! raw, U+2028/U+2029 escaped, `[]byte` as base64, floats in Go's JSON format (`1e+21`, `1e-7`,
//! `-0`), `time.Time` as RFC 3339 with nanoseconds; decoding makes every number a `float64` and
//! reports errors with Go's text (`invalid character 'x' looking for beginning of value`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use kubepkg_value::walk::{Guard, Recursion};
use kubepkg_value::{GoTime, Value, map_read};

use crate::decode::{RED_ZONE, STACK_CHUNK, Target};
use crate::error::JsonError;
use crate::json_string::{write_json_go_bytes, write_json_string};
use kubepkg_gostd::json::format_float64 as json_float;
use kubepkg_gostd::strconv::format_float;

struct Writer {
    out: String,
    escape_html: bool,
    indent: Option<&'static str>,
    depth: usize,
    guard: Guard,
}

/// Go's error for a value that contains itself (see [`kubepkg_value::walk`]).
pub(crate) fn cycle_error(r: &Recursion) -> String {
    match r {
        Recursion::Cycle { via } => {
            format!("json: unsupported value: encountered a cycle via {via}")
        }
        other => format!("json: unsupported value: {other}"),
    }
}

fn unsupported(f: f64) -> JsonError {
    JsonError::Unsupported {
        message: format!("json: unsupported value: {}", format_float(f, 'g', -1, 64)),
    }
}

impl Writer {
    fn newline(&mut self) {
        if let Some(ind) = self.indent {
            self.out.push('\n');
            for _ in 0..self.depth {
                self.out.push_str(ind);
            }
        }
    }

    fn string(&mut self, s: &str) {
        write_json_string(&mut self.out, s, self.escape_html);
    }

    fn value(&mut self, v: &Value) -> Result<(), JsonError> {
        if !matches!(v, Value::Map(_) | Value::List(..)) {
            return self.value_inner(v);
        }
        self.guard.enter(v).map_err(|r| JsonError::Unsupported {
            message: cycle_error(&r),
        })?;
        let r = kubepkg_value::walk::grow(|| self.value_inner(v));
        self.guard.leave(v);
        r
    }

    fn value_inner(&mut self, v: &Value) -> Result<(), JsonError> {
        match v {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) | Value::Int64(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Uint(u) => {
                let _ = write!(self.out, "{u}");
            }
            Value::Uint8(u) => {
                let _ = write!(self.out, "{u}");
            }
            Value::Float(f) => self
                .out
                .push_str(&json_float(*f).ok_or_else(|| unsupported(*f))?),
            Value::String(s) => self.string(s),
            Value::NonUtf8String(b) => write_json_go_bytes(&mut self.out, b, self.escape_html),
            Value::Bytes(b) => {
                use base64::Engine;
                let enc = base64::engine::general_purpose::STANDARD.encode(b);
                self.string(&enc);
            }
            Value::Time(t) => {
                let s = rfc3339_nano(t);
                self.string(&s);
            }
            Value::Object(o) => {
                let plain = o.to_plain();
                self.value(&plain)?;
            }
            Value::List(items, _) => {
                self.out.push('[');
                if !items.is_empty() {
                    self.depth += 1;
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.out.push(',');
                        }
                        self.newline();
                        self.value(item)?;
                    }
                    self.depth -= 1;
                    self.newline();
                }
                self.out.push(']');
            }
            Value::Map(m) => {
                let m = map_read(m).clone();
                self.out.push('{');
                if !m.is_empty() {
                    self.depth += 1;
                    for (i, (k, val)) in m.iter().enumerate() {
                        if i > 0 {
                            self.out.push(',');
                        }
                        self.newline();
                        self.string(k);
                        self.out.push(':');
                        if self.indent.is_some() {
                            self.out.push(' ');
                        }
                        self.value(val)?;
                    }
                    self.depth -= 1;
                    self.newline();
                }
                self.out.push('}');
            }
        }
        Ok(())
    }
}

/// Go's `time.Time.Format(time.RFC3339Nano)`, as `MarshalJSON` writes it.
pub fn rfc3339_nano(t: &GoTime) -> String {
    t.format(kubepkg_gostd::time::RFC3339_NANO)
}

fn encode(v: &Value, escape_html: bool, indent: Option<&'static str>) -> Result<String, JsonError> {
    let mut w = Writer {
        out: String::new(),
        escape_html,
        indent,
        depth: 0,
        guard: Guard::unbounded(),
    };
    w.value(v)?;
    Ok(w.out)
}

/// Helm's `toJson`/`mustToJson`: `json.Marshal(v)`.
pub fn to_json(v: &Value) -> Result<String, JsonError> {
    encode(v, true, None)
}

/// Sprig's `toPrettyJson`: `json.MarshalIndent(v, "", "  ")`.
pub fn to_pretty_json(v: &Value) -> Result<String, JsonError> {
    encode(v, true, Some("  "))
}

/// Sprig's `toRawJson`: an encoder without HTML escaping, final newline trimmed.
pub fn to_raw_json(v: &Value) -> Result<String, JsonError> {
    encode(v, false, None)
}

/// `json.Unmarshal(src, &v)` with `v interface{}`.
pub fn from_json(src: &str) -> Result<Value, JsonError> {
    unmarshal(src, Target::Any)
}

/// Helm's `fromJson`: `json.Unmarshal` into `map[string]interface{}` (`null` gives an empty map).
pub fn from_json_map(src: &str) -> Result<Value, JsonError> {
    unmarshal(src, Target::Map)
}

/// Helm's `fromJsonArray`: `json.Unmarshal` into `[]interface{}`.
pub fn from_json_array(src: &str) -> Result<Value, JsonError> {
    unmarshal(src, Target::List)
}

/// Helm's `fromJson` as Go leaves its map: `json.Unmarshal(src, &m)` stops at a syntax error
/// or a top-level value of another shape before storing anything (an empty map), but a number
/// out of float64 range inside the object only records the error and leaves that entry nil, so
/// the rest of the object is kept. The error, if any, comes with the map.
pub fn from_json_map_partial(src: &str) -> (Value, Option<JsonError>) {
    match unmarshal_partial(src, Target::Map) {
        Ok((v, err)) => (v, err),
        Err(e) => (Value::empty_map(), Some(e)),
    }
}

fn unmarshal(src: &str, target: Target) -> Result<Value, JsonError> {
    match unmarshal_partial(src, target)? {
        (_, Some(e)) => Err(e),
        (v, None) => Ok(v),
    }
}

/// `json.Unmarshal`: `Err` for a syntax error or a top-level shape mismatch (nothing decoded);
/// otherwise the decoded value and the first type error Go recorded while decoding (a number
/// out of range, whose place is left nil).
fn unmarshal_partial(src: &str, target: Target) -> Result<(Value, Option<JsonError>), JsonError> {
    let mut p = JsonParser {
        overflow: None,
        b: src.as_bytes(),
        src,
        i: 0,
        depth: 0,
    };
    // Go validates the whole input before decoding.
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.i < p.b.len() {
        return Err(p.invalid("after top-level value"));
    }
    let top_number_overflow =
        p.overflow.is_some() && matches!(v, Value::Nil) && !src.trim().starts_with('n');
    let kind = match &v {
        Value::Nil if top_number_overflow => "number",
        Value::Map(_) => "object",
        Value::List(..) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Nil => "null",
        _ => "number",
    };
    let shape_ok = matches!(
        (target, kind),
        (Target::Any, _) | (_, "null") | (Target::Map, "object") | (Target::List, "array")
    );
    let recorded = if shape_ok {
        p.overflow.map(|m| JsonError::Shape { message: m })
    } else {
        None
    };
    match (target, kind) {
        (Target::Any, _) => Ok((v, recorded)),
        (Target::Map, "null") => Ok((Value::empty_map(), recorded)),
        (Target::List, "null") => Ok((Value::list(Vec::new()), recorded)),
        (Target::Map, "object") | (Target::List, "array") => Ok((v, recorded)),
        (Target::Map, k) => Err(JsonError::Shape {
            message: format!(
                "json: cannot unmarshal {k} into Go value of type map[string]interface {{}}"
            ),
        }),
        (Target::List, k) => Err(JsonError::Shape {
            message: format!("json: cannot unmarshal {k} into Go value of type []interface {{}}"),
        }),
    }
}

struct JsonParser<'a> {
    overflow: Option<String>,
    b: &'a [u8],
    src: &'a str,
    i: usize,
    depth: usize,
}

/// Go's `quoteChar` for scanner errors.
fn quote_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        c => {
            let q = kubepkg_gostd::strconv::quote(&c.to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

impl JsonParser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn cur_char(&self) -> Option<char> {
        self.src.get(self.i..).and_then(|s| s.chars().next())
    }

    /// The byte Go's scanner reports, shown as the Latin-1 character Go's `quoteChar` prints.
    fn cur_byte_char(&self) -> Option<char> {
        self.b.get(self.i).map(|&b| b as char)
    }

    /// Go feeds a space to its scanner at end of input: inside a literal or number that space
    /// is the invalid character.
    fn eof_in(&self, context: &str) -> JsonError {
        JsonError::Syntax {
            offset: self.b.len(),
            message: format!("invalid character ' ' {context}"),
        }
    }

    fn eof(&self) -> JsonError {
        JsonError::Syntax {
            offset: self.b.len(),
            message: "unexpected end of JSON input".into(),
        }
    }

    fn invalid(&self, context: &str) -> JsonError {
        match self.cur_byte_char() {
            None => self.eof(),
            Some(c) => JsonError::Syntax {
                offset: self.i + 1,
                message: format!("invalid character {} {context}", quote_char(c)),
            },
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        // Go's scanner refuses the 10 001st nested array or object; kubepkg stops at
        // `decode::MAX_DEPTH` (1000) so deep values can be dropped on small stacks.
        if matches!(self.b.get(self.i), Some(b'[' | b'{')) {
            self.depth += 1;
            if self.depth > crate::decode::MAX_DEPTH {
                return Err(self.invalid("exceeded max depth"));
            }
        } else {
            self.depth += 1;
        }
        let r = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.value_inner());
        self.depth -= 1;
        r
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, JsonError> {
        let wb = word.as_bytes();
        for (k, &expect) in wb.iter().enumerate() {
            match self.b.get(self.i + k) {
                None => {
                    self.i = self.b.len();
                    return Err(self.eof_in(&format!(
                        "in literal {word} (expecting {})",
                        quote_char(expect as char)
                    )));
                }
                Some(&c) if c == expect => {}
                Some(_) => {
                    self.i += k;
                    return Err(self.invalid(&format!(
                        "in literal {word} (expecting {})",
                        quote_char(expect as char)
                    )));
                }
            }
        }
        self.i += wb.len();
        Ok(v)
    }

    /// An object's or array's elements, from its opening bracket to `close`: none, or
    /// `element`s separated by commas; `after` says where an unexpected byte after an element
    /// stands.
    fn elements(
        &mut self,
        close: u8,
        after: &str,
        mut element: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.i += 1;
        self.skip_ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            element(self)?;
            self.skip_ws();
            match self.b.get(self.i) {
                None => return Err(self.eof()),
                Some(b',') => self.i += 1,
                Some(&c) if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                Some(_) => return Err(self.invalid(after)),
            }
        }
    }

    fn value_inner(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.eof());
        };
        match c {
            b'{' => {
                let mut m = BTreeMap::new();
                self.elements(b'}', "after object key:value pair", |p| {
                    p.skip_ws();
                    match p.b.get(p.i) {
                        None => return Err(p.eof()),
                        Some(b'"') => {}
                        Some(_) => {
                            return Err(p.invalid("looking for beginning of object key string"));
                        }
                    }
                    let k = p.string()?;
                    p.skip_ws();
                    match p.b.get(p.i) {
                        None => return Err(p.eof()),
                        Some(b':') => p.i += 1,
                        Some(_) => return Err(p.invalid("after object key")),
                    }
                    let v = p.value()?;
                    m.insert(k, v);
                    Ok(())
                })?;
                Ok(Value::map(m))
            }
            b'[' => {
                let mut items = Vec::new();
                self.elements(b']', "after array element", |p| {
                    items.push(p.value()?);
                    Ok(())
                })?;
                Ok(Value::list(items))
            }
            b'"' => Ok(Value::from(self.string()?)),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Nil),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.invalid("looking for beginning of value")),
        }
    }

    /// Go's scanner error unless a digit comes next (`context`: where in the number).
    fn expect_digit(&self, context: &str) -> Result<(), JsonError> {
        match self.b.get(self.i) {
            None => Err(self.eof_in(context)),
            Some(b'0'..=b'9') => Ok(()),
            Some(_) => Err(self.invalid(context)),
        }
    }

    /// Past the digits that come next.
    fn skip_digits(&mut self) {
        while matches!(self.b.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
            self.expect_digit("in numeric literal")?;
        }
        if self.b[self.i] == b'0' {
            self.i += 1;
        } else {
            self.skip_digits();
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.expect_digit("after decimal point in numeric literal")?;
            self.skip_digits();
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.expect_digit("in exponent of numeric literal")?;
            self.skip_digits();
        }
        let text = &self.src[start..self.i];
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => {
                // Go records the error, keeps decoding and returns the first one at the end.
                if self.overflow.is_none() {
                    self.overflow = Some(format!(
                        "json: cannot unmarshal number {text} into Go value of type float64"
                    ));
                }
                Ok(Value::Nil)
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(&c) = self.b.get(self.i) else {
                return Err(self.eof());
            };
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.invalid("in \\u hexadecimal character escape"))?;
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let Some(c) = self.cur_char() else {
                return Err(self.eof());
            };
            match c {
                '"' => {
                    self.i += 1;
                    return Ok(out);
                }
                '\\' => {
                    self.i += 1;
                    let Some(&e) = self.b.get(self.i) else {
                        return Err(self.eof());
                    };
                    let simple = match e {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\u{8}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'u' => None,
                        _ => return Err(self.invalid("in string escape code")),
                    };
                    self.i += 1;
                    if let Some(s) = simple {
                        out.push(s);
                        continue;
                    }
                    let u = self.hex4()?;
                    if (0xD800..0xDC00).contains(&u) {
                        // a high surrogate: Go pairs it with a following \uDC00-\uDFFF escape
                        if self.b.get(self.i) == Some(&b'\\')
                            && self.b.get(self.i + 1) == Some(&b'u')
                        {
                            let save = self.i;
                            self.i += 2;
                            let lo = self.hex4()?;
                            if (0xDC00..0xE000).contains(&lo) {
                                let cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                                continue;
                            }
                            self.i = save;
                        }
                        out.push('\u{FFFD}');
                    } else {
                        out.push(char::from_u32(u).unwrap_or('\u{FFFD}'));
                    }
                }
                c if (c as u32) < 0x20 => return Err(self.invalid("in string literal")),
                c => {
                    out.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escaping_and_sorting() {
        let mut m = BTreeMap::new();
        m.insert("b".to_string(), Value::str("<a&b>"));
        m.insert("a".to_string(), Value::Float(1e21));
        let v = Value::map(m);
        assert_eq!(
            to_json(&v).unwrap(),
            r#"{"a":1e+21,"b":"\u003ca\u0026b\u003e"}"#
        );
        assert_eq!(to_raw_json(&v).unwrap(), r#"{"a":1e+21,"b":"<a&b>"}"#);
    }

    #[test]
    fn go_error_texts() {
        for (text, error) in [
            ("{", "unexpected end of JSON input"),
            ("x", "invalid character 'x' looking for beginning of value"),
        ] {
            assert_eq!(from_json(text).unwrap_err().to_string(), error, "{text}");
        }
    }
}
