//! Helm's `strvals` parser: `--set`, `--set-string`, `--set-file`, `--set-json` and
//! `--set-literal` expressions such as `a.b[0].c=x,list={1,2},esc\,aped=v`.
//!
//! Typing follows Helm: with `--set`, `true`/`false`/`null` (any case) become booleans and nil,
//! `0` and integers without a leading zero become `int64`, everything else stays a string;
//! `--set-string` keeps strings; `--set-json` decodes a JSON value; `--set-file` reads the
//! file named by the value; `--set-literal` takes the rest of the text verbatim. Indices are
//! limited to 65536 and key nesting to 30 levels, as in Helm.

use kubepkg_value::{Value, map_read};
use std::collections::BTreeMap;

const MAX_INDEX: i64 = 65536;
const MAX_NESTED: usize = 30;

/// A mutable value tree used while parsing.
#[derive(Debug, Clone)]
pub enum Tree {
    Map(BTreeMap<String, Tree>),
    List(Vec<Tree>),
    Leaf(Value),
}

impl Tree {
    /// From a [`Value`] (maps and `[]interface{}` lists become editable nodes).
    pub fn from_value(v: &Value) -> Tree {
        match v {
            Value::Map(m) => Tree::Map(
                map_read(m)
                    .iter()
                    .map(|(k, v)| (k.clone(), Tree::from_value(v)))
                    .collect(),
            ),
            Value::List(items, kubepkg_value::ElemType::Interface) => {
                Tree::List(items.iter().map(Tree::from_value).collect())
            }
            other => Tree::Leaf(other.clone()),
        }
    }

    /// Back to a [`Value`].
    pub fn into_value(self) -> Value {
        match self {
            Tree::Map(m) => Value::map(m.into_iter().map(|(k, v)| (k, v.into_value())).collect()),
            Tree::List(l) => Value::list(l.into_iter().map(Tree::into_value).collect()),
            Tree::Leaf(v) => v,
        }
    }

    fn go_type(&self) -> &'static str {
        match self {
            Tree::Map(_) => "map[string]interface {}",
            Tree::List(_) => "[]interface {}",
            Tree::Leaf(Value::Nil) => "nil",
            Tree::Leaf(Value::String(_)) => "string",
            Tree::Leaf(Value::Bool(_)) => "bool",
            Tree::Leaf(Value::Int64(_)) => "int64",
            Tree::Leaf(Value::Float(_)) => "float64",
            Tree::Leaf(_) => "interface {}",
        }
    }
}

/// How values are produced from the text after `=`.
#[derive(Clone, Copy)]
enum Mode<'a> {
    Typed,
    Strings,
    Json,
    File(&'a dyn Fn(&str) -> Result<Value, String>),
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    mode: Mode<'a>,
}

#[derive(Debug)]
enum Stop {
    Eof,
    Err(String),
}

type PResult<T> = Result<T, Stop>;

fn typed_val(s: &str, strings: bool) -> Value {
    if strings {
        return Value::str(s);
    }
    if s.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if s.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if s.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if s == "0" {
        return Value::Int64(0);
    }
    if !s.is_empty()
        && !s.starts_with('0')
        && let Some(i) = parse_go_int(s)
    {
        return Value::Int64(i);
    }
    Value::str(s)
}

/// `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits only.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `a.b`: `parse` one level deeper, into the map at `k` (made when absent), stored back
/// when it got entries; Helm's nesting limit and its error for a key map left empty.
fn nested_key(
    data: &mut BTreeMap<String, Tree>,
    k: String,
    level: usize,
    parse: impl FnOnce(&mut BTreeMap<String, Tree>, usize) -> PResult<()>,
) -> PResult<()> {
    let level = level + 1;
    if level > MAX_NESTED {
        return Err(Stop::Err(format!(
            "value name nested level is greater than maximum supported nested level of {MAX_NESTED}"
        )));
    }
    let mut inner = match data.get(&k) {
        None => BTreeMap::new(),
        Some(Tree::Map(m)) => m.clone(),
        Some(other) => return Err(conversion_panic(other, "map[string]interface {}")),
    };
    let e = parse(&mut inner, level);
    if e.is_ok() && inner.is_empty() {
        return Err(Stop::Err(format!("key map {k:?} has no value")));
    }
    if !inner.is_empty() && !k.is_empty() {
        data.insert(k, Tree::Map(inner));
    }
    e
}

/// `a[i]`: `parse` the item into the list at `k` (made when absent), stored back under a
/// non-empty key whatever `parse` gave.
fn indexed_key(
    data: &mut BTreeMap<String, Tree>,
    k: String,
    parse: impl FnOnce(&mut Vec<Tree>) -> PResult<()>,
) -> PResult<()> {
    let mut list = match data.get(&k) {
        None => Vec::new(),
        Some(Tree::List(l)) => l.clone(),
        Some(other) => return Err(conversion_panic(other, "[]interface {}")),
    };
    let r = parse(&mut list);
    if !k.is_empty() {
        data.insert(k, Tree::List(list));
    }
    r
}

/// The input ended after the key `k`: the end of the list, or a key without a value.
fn end_of_key(k: &str) -> Stop {
    if k.is_empty() {
        Stop::Eof
    } else {
        Stop::Err(format!("key {k:?} has no value"))
    }
}

/// Helm's checks of list index `i` once what follows its `]` was read up to the next `[`, `.`
/// or `=` (`rest`, which must be empty).
fn check_list_index(i: i64, rest: &str) -> PResult<()> {
    if i < 0 {
        return Err(Stop::Err(format!("negative {i} index not allowed")));
    }
    if !rest.is_empty() {
        return Err(Stop::Err(format!(
            "unexpected data at end of array index: {rest:?}"
        )));
    }
    Ok(())
}

/// The list at `list[i]` that an index path goes on into: a new one when there is nothing or
/// null there; any other value is Helm's failed type assertion.
fn list_at(list: &[Tree], i: i64) -> PResult<Vec<Tree>> {
    match list.get(i as usize) {
        None | Some(Tree::Leaf(Value::Nil)) => Ok(Vec::new()),
        Some(Tree::List(l)) => Ok(l.clone()),
        Some(other) => Err(conversion_panic(other, "[]interface {}")),
    }
}

/// The map at `list[i]` that a key path goes on into, or a new one when there is no map.
fn map_at(list: &[Tree], i: i64) -> BTreeMap<String, Tree> {
    match list.get(i as usize) {
        Some(Tree::Map(m)) => m.clone(),
        _ => BTreeMap::new(),
    }
}

fn conversion_panic(got: &Tree, want: &str) -> Stop {
    Stop::Err(format!(
        "unable to parse key: interface conversion: interface {{}} is {}, not {want}",
        got.go_type()
    ))
}

impl<'a> Parser<'a> {
    fn read(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn unread(&mut self) {
        self.pos -= 1;
    }

    /// Runes until one of `stop` (consumed), with `\` escaping the next rune.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut v = String::new();
        loop {
            match self.read() {
                None => return (v, None),
                Some(c) if stop.contains(&c) => return (v, Some(c)),
                Some('\\') => match self.read() {
                    None => return (v, None),
                    Some(n) => v.push(n),
                },
                Some(c) => v.push(c),
            }
        }
    }

    fn reader(&self, rs: &str) -> Result<Value, String> {
        match self.mode {
            Mode::Typed => Ok(typed_val(rs, false)),
            Mode::Strings => Ok(typed_val(rs, true)),
            Mode::File(f) => f(rs),
            Mode::Json => Ok(Value::str(rs)),
        }
    }

    fn parse(&mut self, data: &mut BTreeMap<String, Tree>) -> Result<(), String> {
        loop {
            match self.key(data, 0) {
                Ok(()) => continue,
                Err(Stop::Eof) => return Ok(()),
                Err(Stop::Err(e)) => return Err(e),
            }
        }
    }

    fn key(&mut self, data: &mut BTreeMap<String, Tree>, level: usize) -> PResult<()> {
        let (k, last) = self.until(&['=', '[', ',', '.']);
        match last {
            None => Err(end_of_key(&k)),
            Some('[') => {
                let i = self.key_index()?;
                indexed_key(data, k, |list| self.list_item(list, i, level))
            }
            Some('=') => {
                if matches!(self.mode, Mode::Json) {
                    return self.json_value(|v| {
                        if !k.is_empty() {
                            data.insert(k.clone(), v);
                        }
                    });
                }
                match self.val_list() {
                    Ok(vl) => {
                        if !k.is_empty() {
                            data.insert(k, Tree::List(vl));
                        }
                        Ok(())
                    }
                    Err(ListErr::Eof) => {
                        if !k.is_empty() {
                            data.insert(k, Tree::Leaf(Value::str("")));
                        }
                        Err(Stop::Eof)
                    }
                    Err(ListErr::NotList) => {
                        let (rs, _) = self.until(&[',']);
                        let v = self.reader(&rs).map_err(Stop::Err)?;
                        if !k.is_empty() {
                            data.insert(k, Tree::Leaf(v));
                        }
                        Ok(())
                    }
                    Err(ListErr::Other(e)) => Err(Stop::Err(e)),
                }
            }
            Some(',') => {
                if !k.is_empty() {
                    data.insert(k.clone(), Tree::Leaf(Value::str("")));
                }
                Err(Stop::Err(format!(
                    "key {k:?} has no value (cannot end with ,)"
                )))
            }
            _ => nested_key(data, k, level, |inner, level| self.key(inner, level)),
        }
    }

    fn json_value(&mut self, mut set: impl FnMut(Tree)) -> PResult<()> {
        if self.empty_val() {
            set(Tree::Leaf(Value::Nil));
            return Ok(());
        }
        let rest: String = self.chars[self.pos..].iter().collect();
        if json_depth(&rest) > kubepkg_value::walk::MAX_NESTING {
            return Err(Stop::Err(format!(
                "the JSON value is nested deeper than {} levels (Helm's limit)",
                kubepkg_value::walk::MAX_NESTING
            )));
        }
        // Helm (Go's encoding/json) reads up to 10 000 levels; serde_json's own limit (128) is
        // off and the caller runs on a large stack (`ValueOptions::merge`).
        let mut de = serde_json::Deserializer::from_str(&rest);
        de.disable_recursion_limit();
        let mut de = de.into_iter::<serde_json::Value>();
        let v = match de.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(Stop::Err(e.to_string())),
            None => return Err(Stop::Err("EOF".into())),
        };
        let consumed = rest[..de.byte_offset()].chars().count();
        self.pos += consumed;
        set(Tree::from_value(&json_to_value(&v)));
        self.empty_val();
        Ok(())
    }

    /// Skip whitespace up to and including a `,`; true at end of input or after a comma.
    fn empty_val(&mut self) -> bool {
        loop {
            match self.read() {
                None => return true,
                Some(',') => return true,
                Some(c) if c.is_whitespace() => {}
                Some(_) => {
                    self.unread();
                    return false;
                }
            }
        }
    }

    fn key_index(&mut self) -> PResult<i64> {
        let (v, last) = self.until(&[']']);
        if last.is_none() {
            return Err(Stop::Eof);
        }
        v.parse::<i64>().map_err(|_| {
            Stop::Err(format!(
                "error parsing index: strconv.Atoi: parsing {v:?}: invalid syntax"
            ))
        })
    }

    fn set_index(list: &mut Vec<Tree>, index: i64, val: Tree) -> PResult<()> {
        if index < 0 {
            return Err(Stop::Err(format!("negative {index} index not allowed")));
        }
        if index > MAX_INDEX {
            return Err(Stop::Err(format!(
                "index of {index} is greater than maximum supported index of {MAX_INDEX}"
            )));
        }
        let i = index as usize;
        if list.len() <= i {
            list.resize(i + 1, Tree::Leaf(Value::Nil));
        }
        list[i] = val;
        Ok(())
    }

    fn list_item(&mut self, list: &mut Vec<Tree>, i: i64, level: usize) -> PResult<()> {
        let (k, last) = self.until(&['[', '.', '=']);
        check_list_index(i, &k)?;
        match last {
            None => Err(Stop::Eof),
            Some('=') => {
                if matches!(self.mode, Mode::Json) {
                    let mut slot = None;
                    let r = self.json_value(|v| slot = Some(v));
                    if let Some(v) = slot {
                        Self::set_index(list, i, v)?;
                    }
                    return r;
                }
                match self.val_list() {
                    Ok(vl) => Self::set_index(list, i, Tree::List(vl)),
                    Err(ListErr::Eof) => Self::set_index(list, i, Tree::Leaf(Value::str(""))),
                    Err(ListErr::NotList) => {
                        let (rs, _) = self.until(&[',']);
                        let v = self.reader(&rs).map_err(Stop::Err)?;
                        Self::set_index(list, i, Tree::Leaf(v))
                    }
                    Err(ListErr::Other(e)) => Err(Stop::Err(e)),
                }
            }
            Some('[') => {
                let next = self.key_index()?;
                let mut crt = list_at(list, i)?;
                self.list_item(&mut crt, next, level)?;
                Self::set_index(list, i, Tree::List(crt))
            }
            _ => {
                let mut inner = map_at(list, i);
                self.key(&mut inner, level)?;
                Self::set_index(list, i, Tree::Map(inner))
            }
        }
    }

    fn val_list(&mut self) -> Result<Vec<Tree>, ListErr> {
        match self.read() {
            None => return Err(ListErr::Eof),
            Some('{') => {}
            Some(_) => {
                self.unread();
                return Err(ListErr::NotList);
            }
        }
        let mut list = Vec::new();
        loop {
            let (rs, last) = self.until(&[',', '}']);
            match last {
                None => return Err(ListErr::Other("list must terminate with '}'".into())),
                Some('}') => {
                    if let Some(c) = self.read()
                        && c != ','
                    {
                        self.unread();
                    }
                    let v = self.reader(&rs).map_err(ListErr::Other)?;
                    list.push(Tree::Leaf(v));
                    return Ok(list);
                }
                _ => {
                    let v = self.reader(&rs).map_err(ListErr::Other)?;
                    list.push(Tree::Leaf(v));
                }
            }
        }
    }
}

enum ListErr {
    Eof,
    NotList,
    Other(String),
}

/// Convert decoded JSON to a [`Value`] as Go's `encoding/json` into `interface{}` does
/// (numbers are `float64`).
/// The deepest nesting of arrays and objects in the JSON text (brackets inside strings do not
/// count); a check before parsing.
pub fn json_depth(s: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for b in s.bytes() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

pub fn json_to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::str(s),
        serde_json::Value::Array(a) => Value::list(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => Value::map(
            o.iter()
                .map(|(k, v)| (k.clone(), json_to_value(v)))
                .collect(),
        ),
    }
}

fn run(s: &str, dest: &mut BTreeMap<String, Tree>, mode: Mode<'_>) -> Result<(), String> {
    let mut p = Parser {
        chars: s.chars().collect(),
        pos: 0,
        mode,
    };
    p.parse(dest)
}

/// `strvals.ParseInto` (`--set`).
pub fn parse_into(s: &str, dest: &mut BTreeMap<String, Tree>) -> Result<(), String> {
    run(s, dest, Mode::Typed)
}

/// `strvals.ParseIntoString` (`--set-string`).
pub fn parse_into_string(s: &str, dest: &mut BTreeMap<String, Tree>) -> Result<(), String> {
    run(s, dest, Mode::Strings)
}

/// `strvals.ParseJSON` (`--set-json key=JSON`).
pub fn parse_json(s: &str, dest: &mut BTreeMap<String, Tree>) -> Result<(), String> {
    run(s, dest, Mode::Json)
}

/// `strvals.ParseIntoFile` (`--set-file key=path`); `read` returns the file's text.
pub fn parse_into_file(
    s: &str,
    dest: &mut BTreeMap<String, Tree>,
    read: &dyn Fn(&str) -> Result<Value, String>,
) -> Result<(), String> {
    run(s, dest, Mode::File(read))
}

/// `strvals.ParseLiteralInto` (`--set-literal key=verbatim text`).
pub fn parse_literal_into(s: &str, dest: &mut BTreeMap<String, Tree>) -> Result<(), String> {
    let chars: Vec<char> = s.chars().collect();
    let mut pos = 0usize;
    loop {
        match literal_key(&chars, &mut pos, dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Err(e)) => return Err(e),
        }
    }
}

fn literal_until(chars: &[char], pos: &mut usize, stop: &[char]) -> (String, Option<char>) {
    let mut v = String::new();
    while let Some(&c) = chars.get(*pos) {
        *pos += 1;
        if stop.contains(&c) {
            return (v, Some(c));
        }
        v.push(c);
    }
    (v, None)
}

fn literal_key(
    chars: &[char],
    pos: &mut usize,
    data: &mut BTreeMap<String, Tree>,
    level: usize,
) -> PResult<()> {
    let (k, last) = literal_until(chars, pos, &['=', '[', '.']);
    match last {
        None => Err(end_of_key(&k)),
        Some('=') => {
            let (v, _) = literal_until(chars, pos, &[]);
            if !k.is_empty() {
                data.insert(k, Tree::Leaf(Value::str(v)));
            }
            Ok(())
        }
        Some('.') => nested_key(data, k, level, |inner, level| {
            literal_key(chars, pos, inner, level)
        }),
        _ => {
            let i = literal_index(chars, pos)?;
            indexed_key(data, k, |list| {
                literal_list_item(chars, pos, list, i, level)
            })
        }
    }
}

/// The index of `[i]` (after the `[`), read up to its `]` as `strconv.Atoi` reads it.
fn literal_index(chars: &[char], pos: &mut usize) -> PResult<i64> {
    let (iv, l) = literal_until(chars, pos, &[']']);
    if l.is_none() {
        return Err(Stop::Eof);
    }
    iv.parse().map_err(|_| {
        Stop::Err(format!(
            "error parsing index: strconv.Atoi: parsing {iv:?}: invalid syntax"
        ))
    })
}

fn literal_list_item(
    chars: &[char],
    pos: &mut usize,
    list: &mut Vec<Tree>,
    i: i64,
    level: usize,
) -> PResult<()> {
    let (k, last) = literal_until(chars, pos, &['[', '.', '=']);
    check_list_index(i, &k)?;
    match last {
        None => Err(Stop::Eof),
        Some('=') => {
            let (v, _) = literal_until(chars, pos, &[]);
            Parser::set_index(list, i, Tree::Leaf(Value::str(v)))
        }
        Some('.') => {
            let mut inner = map_at(list, i);
            literal_key(chars, pos, &mut inner, level)?;
            Parser::set_index(list, i, Tree::Map(inner))
        }
        _ => {
            let next = literal_index(chars, pos)?;
            let mut crt = list_at(list, i)?;
            literal_list_item(chars, pos, &mut crt, next, level)?;
            Parser::set_index(list, i, Tree::List(crt))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> Result<Value, String> {
        let mut m = BTreeMap::new();
        parse_into(s, &mut m)?;
        Ok(Tree::Map(m).into_value())
    }

    /// The top-level map of what `s` sets.
    fn set_map(s: &str) -> BTreeMap<String, Value> {
        match set(s).unwrap() {
            Value::Map(m) => map_read(&m).clone(),
            other => panic!("{s}: not a map: {other:?}"),
        }
    }

    fn y(s: &str) -> String {
        format!("{:?}", kubepkg_yaml::from_yaml_str(s).unwrap())
    }

    // Expectations from Helm's pkg/strvals/parser_test.go.
    #[test]
    fn typed_values_and_structure() {
        let m = set_map("name=value,long.key=x,list[1].a=2,t=TRUE,n=null,z=0,o=0123,e=");
        assert!(matches!(m["t"], Value::Bool(true)));
        assert!(matches!(m["n"], Value::Nil));
        assert!(matches!(m["z"], Value::Int64(0)));
        assert!(matches!(&m["o"], Value::String(s) if &**s == "0123"));
        assert!(matches!(&m["e"], Value::String(s) if s.is_empty()));
        let _ = y("a: 1");
    }

    #[test]
    fn lists_and_escapes() {
        let m = set_map("a={1,2,x},b=c\\,d");
        assert!(matches!(&m["a"], Value::List(l, _) if l.len() == 3));
        assert!(matches!(&m["b"], Value::String(s) if &**s == "c,d"));
    }

    #[test]
    fn errors_are_helms() {
        assert_eq!(set("name").unwrap_err(), "key \"name\" has no value");
        assert_eq!(
            set("name1=value1,,,,name2=value2,").unwrap_err(),
            "key \"\" has no value (cannot end with ,)"
        );
        assert!(
            set("a=1,a.b=2")
                .unwrap_err()
                .starts_with("unable to parse key")
        );
        assert_eq!(
            set("list[-1]=x").unwrap_err(),
            "negative -1 index not allowed"
        );
    }

    #[test]
    fn literal_keeps_text() {
        let mut m = BTreeMap::new();
        parse_literal_into("a.b=x,y={z}", &mut m).unwrap();
        let v = Tree::Map(m).into_value();
        let s = format!("{v:?}");
        assert!(s.contains("x,y={z}"), "{s}");
    }
}
