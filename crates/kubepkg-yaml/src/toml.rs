//! TOML as Helm's `toToml`/`fromToml` (BurntSushi/toml v1).
//!
//! Encoding follows BurntSushi's encoder exactly: in every table the plain keys come first
//! (sorted by byte order), then sub-tables `[a.b]` and arrays of tables `[[a]]`; keys of nested
//! tables are indented two spaces per level; `nil` map entries are skipped; floats are `%g` with
//! `.0` appended when there is neither a dot nor an exponent (`100.0`, `1e+06`, `nan`, `-inf`);
//! strings are double-quoted with `\uXXXX` for control characters; lists whose elements are all
//! maps become arrays of tables, other lists inline arrays (maps inside them inline tables);
//! a list containing `nil` is `toml: cannot encode array with nil element`.
//!
//! Decoding is our own port of BurntSushi's lexer and parser ([`crate::toml_lex`],
//! [`crate::toml_parse`]): the same accepted documents, the same values in `interface{}`
//! (integers `int64`, floats `float64`, datetimes `time.Time`, tables maps, arrays of tables
//! lists of maps) and the same error texts (`toml: line N (last key "K"): …`). Datetimes:
//! `Z` is UTC; a numeric offset is a zone without a name (printed `+0200`), except that an
//! offset of zero is taken as the local zone, assumed to be UTC (as in containers and CI);
//! local datetimes, dates and times are in BurntSushi's named zero-offset zones.

use kubepkg_value::{GoTime, Value, map_read};

use crate::toml_form::quote;
pub use crate::toml_form::{LOCAL_DATE, LOCAL_DATETIME, LOCAL_TIME};

use crate::error::TomlError;
use kubepkg_gostd::strconv::format_float;

fn encode_err(m: &str) -> TomlError {
    TomlError::Encode {
        message: m.to_string(),
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum TomlType {
    Nil,
    Scalar,
    Array,
    Hash,
    ArrayHash,
}

/// BurntSushi's `tomlTypeOfGo`, including its error for a `nil` anywhere in a list.
fn toml_type(v: &Value) -> Result<TomlType, TomlError> {
    kubepkg_value::walk::grow(|| toml_type_inner(v))
}

fn toml_type_inner(v: &Value) -> Result<TomlType, TomlError> {
    Ok(match v {
        Value::Nil => TomlType::Nil,
        Value::Map(_) => TomlType::Hash,
        Value::Object(o) => toml_type(&o.to_plain())?,
        Value::List(items, _) => {
            if items.is_empty() {
                return Ok(TomlType::Array);
            }
            let mut all_hash = true;
            for it in items.iter() {
                let t = toml_type(it)?;
                if t == TomlType::Nil {
                    return Err(encode_err("toml: cannot encode array with nil element"));
                }
                if t != TomlType::Hash {
                    all_hash = false;
                }
            }
            if all_hash {
                TomlType::ArrayHash
            } else {
                TomlType::Array
            }
        }
        // []byte is a list of integers: never a table array.
        Value::Bytes(_) => TomlType::Array,
        _ => TomlType::Scalar,
    })
}

fn is_bare(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|r| r.is_ascii_alphanumeric() || r == '_' || r == '-')
}

fn key_piece(k: &str) -> String {
    if k.is_empty() {
        "\"\"".into()
    } else if is_bare(k) {
        k.to_string()
    } else {
        quote(k)
    }
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| key_piece(k))
        .collect::<Vec<_>>()
        .join(".")
}

struct Encoder {
    out: String,
}

impl Encoder {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&self, key: &[String]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    fn element(&mut self, v: &Value) -> Result<(), TomlError> {
        kubepkg_value::walk::grow(|| self.element_inner(v))
    }

    fn element_inner(&mut self, v: &Value) -> Result<(), TomlError> {
        match v {
            Value::Nil => return Err(encode_err("toml: cannot encode a nil value")),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) | Value::Int64(i) => self.out.push_str(&i.to_string()),
            Value::Uint(u) => self.out.push_str(&u.to_string()),
            Value::Uint8(u) => self.out.push_str(&u.to_string()),
            Value::Float(f) => {
                if f.is_nan() {
                    if f.is_sign_negative() {
                        self.out.push('-');
                    }
                    self.out.push_str("nan");
                } else if f.is_infinite() {
                    if *f < 0.0 {
                        self.out.push('-');
                    }
                    self.out.push_str("inf");
                } else {
                    let s = format_float(*f, 'g', -1, 64);
                    self.out.push_str(&s);
                    if !s.contains('e') && !s.contains('.') {
                        self.out.push_str(".0");
                    }
                }
            }
            Value::String(s) => self.out.push_str(&quote(s)),
            // The TOML text is a Go string too: the bytes go through unchanged; the result is
            // decoded as text here, so they come out as U+FFFD.
            Value::NonUtf8String(b) => self.out.push_str(&quote(&kubepkg_value::go_lossy(b))),
            Value::Time(t) => self.out.push_str(&toml_time(t)),
            Value::Bytes(b) => {
                self.out.push('[');
                let parts: Vec<String> = b.iter().map(|x| x.to_string()).collect();
                self.out.push_str(&parts.join(", "));
                self.out.push(']');
            }
            Value::List(items, _) => {
                self.out.push('[');
                for (i, it) in items.iter().enumerate() {
                    self.element(it)?;
                    if i + 1 != items.len() {
                        self.out.push_str(", ");
                    }
                }
                self.out.push(']');
            }
            Value::Map(_) => self.map(&[], v, true)?,
            Value::Object(o) => self.element(&o.to_plain())?,
        }
        Ok(())
    }

    fn key_value(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), TomlError> {
        if key.is_empty() {
            return self.element(v);
        }
        let ind = self.indent(key);
        self.out.push_str(&ind);
        self.out.push_str(&key_piece(&key[key.len() - 1]));
        self.out.push_str(" = ");
        self.element(v)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), TomlError> {
        kubepkg_value::walk::grow(|| self.encode_inner(key, v))
    }

    fn encode_inner(&mut self, key: &[String], v: &Value) -> Result<(), TomlError> {
        match v {
            Value::Nil => Ok(()),
            Value::Map(_) => {
                if key.len() == 1 {
                    self.newline();
                }
                if !key.is_empty() {
                    let ind = self.indent(key);
                    self.out.push_str(&format!("{ind}[{}]", key_string(key)));
                    self.newline();
                }
                self.map(key, v, false)
            }
            Value::Object(o) => self.encode(key, &o.to_plain()),
            Value::List(items, _) if toml_type(v)? == TomlType::ArrayHash => {
                if key.is_empty() {
                    return Err(encode_err(
                        "toml: top-level values must be Go maps or structs",
                    ));
                }
                for it in items.iter() {
                    self.newline();
                    let ind = self.indent(key);
                    self.out.push_str(&format!("{ind}[[{}]]", key_string(key)));
                    self.newline();
                    self.map(key, it, false)?;
                }
                Ok(())
            }
            _ => self.key_value(key, v, false),
        }
    }

    fn map(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), TomlError> {
        let entries: Vec<(String, Value)> = match v {
            Value::Map(m) => map_read(m)
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (k, val) in entries {
            match toml_type(&val)? {
                TomlType::Hash | TomlType::ArrayHash => sub.push((k, val)),
                _ => direct.push((k, val)),
            }
        }
        if inline {
            self.out.push('{');
        }
        let has_sub = !sub.is_empty();
        for (group, trail) in [(direct, has_sub), (sub, false)] {
            let n = group.len();
            for (i, (k, val)) in group.into_iter().enumerate() {
                if matches!(val, Value::Nil) {
                    continue;
                }
                if inline {
                    self.key_value(&[k], &val, true)?;
                    if trail || i + 1 != n {
                        self.out.push_str(", ");
                    }
                } else {
                    let mut kk = key.to_vec();
                    kk.push(k);
                    self.encode(&kk, &val)?;
                }
            }
        }
        if inline {
            self.out.push('}');
        }
        Ok(())
    }
}

/// Helm's `toToml`: BurntSushi's `toml.NewEncoder(b).Encode(v)`. On error Helm's `toToml`
/// returns the error text as the result (`mustToToml` fails instead).
pub fn to_toml(v: &Value) -> Result<String, TomlError> {
    // BurntSushi's encoder recurses into a value that contains itself until Go's stack
    // overflows, and writes a key path per level (quadratic in the nesting): refuse both.
    kubepkg_value::walk::check(
        v,
        &mut kubepkg_value::walk::Guard::with_max_depth(kubepkg_value::walk::MAX_NESTING),
    )
    .map_err(|r| {
        // Helm's toToml returns an error's text, but Go never gets here on a cycle (its stack
        // overflows): record it so the template fails where Go would crash.
        if matches!(r, kubepkg_value::walk::Recursion::Cycle { .. }) {
            kubepkg_value::walk::note_fault(r.clone());
        }
        encode_err(&format!("toml: cannot encode it: {r}"))
    })?;
    let mut e = Encoder { out: String::new() };
    match v {
        Value::Nil => {
            return Err(encode_err(
                "panic: reflect: call of reflect.Value.Type on zero Value",
            ));
        }
        _ => e.encode(&[], v)?,
    }
    Ok(e.out)
}

/// BurntSushi's encoding of a `time.Time`: local datetimes, dates and times (see
/// [`LOCAL_DATETIME`]) in their TOML forms, anything else as RFC 3339 with nanoseconds.
fn toml_time(t: &GoTime) -> String {
    let full = t.format(kubepkg_gostd::time::RFC3339_NANO);
    let (date, rest) = full.split_once('T').unwrap_or((&full, ""));
    let time_end = rest.find(['Z', '+', '-']).unwrap_or(rest.len());
    let time = &rest[..time_end];
    match t.zone.as_str() {
        LOCAL_DATETIME => format!("{date}T{time}"),
        LOCAL_DATE => date.to_string(),
        LOCAL_TIME => time.to_string(),
        _ => full,
    }
}

/// Helm's `fromToml`: BurntSushi's `toml.Unmarshal` into `map[string]interface{}` (see
/// [`crate::toml_parse`]); a malformed document gives BurntSushi's error text.
pub fn from_toml(src: &str) -> Result<Value, TomlError> {
    crate::toml_parse::parse(src).map_err(|e| TomlError::Parse { message: e.0 })
}
