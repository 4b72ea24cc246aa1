//! `--set` and `--set-string` lines as Helm parses them (`helm.sh/helm/v3/pkg/strvals`).
//!
//! A line is `name1=value1,name2=value2`; names are dotted paths with optional list indexes
//! (`a.b[0].c=x`), `\` escapes the next character, `{a,b}` is a list. With `--set` a value is
//! typed like Helm types it: `true`/`false` (any case) are booleans, `null` is null, `0` and
//! decimal integers without a leading zero are 64-bit integers, anything else is a string.
//! With `--set-string` every value is a string.

use serde_json::{Map, Value};

/// Largest list index accepted (Helm's `MaxIndex`).
pub const MAX_INDEX: usize = 65536;
/// Deepest dotted name accepted (Helm's `MaxNestedNameLevel`).
pub const MAX_NESTING: usize = 30;

/// A `--set` line that cannot be parsed; the message is Helm's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StrvalsError(pub String);

/// Parses a `--set` (`strings == false`) or `--set-string` line into `dest`, overwriting keys.
pub fn parse_into(
    line: &str,
    dest: &mut Map<String, Value>,
    strings: bool,
) -> Result<(), StrvalsError> {
    let mut p = Parser {
        chars: line.chars().collect(),
        pos: 0,
        strings,
    };
    loop {
        match p.key(dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Err(e)) => return Err(StrvalsError(e)),
        }
    }
}

enum Stop {
    Eof,
    Err(String),
}

fn err<T>(msg: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Err(msg.into()))
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    strings: bool,
}

impl Parser {
    /// Reads until one of `stop` (consumed, returned) or the end (`None`), handling `\` escapes.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        while self.pos < self.chars.len() {
            let c = self.chars[self.pos];
            self.pos += 1;
            if stop.contains(&c) {
                return (out, Some(c));
            }
            if c == '\\' {
                if self.pos < self.chars.len() {
                    out.push(self.chars[self.pos]);
                    self.pos += 1;
                    continue;
                }
                return (out, None);
            }
            out.push(c);
        }
        (out, None)
    }

    fn typed(&self, s: String) -> Value {
        if self.strings {
            return Value::String(s);
        }
        if s.eq_ignore_ascii_case("true") {
            return Value::Bool(true);
        }
        if s.eq_ignore_ascii_case("false") {
            return Value::Bool(false);
        }
        if s.eq_ignore_ascii_case("null") {
            return Value::Null;
        }
        if s == "0" {
            return Value::from(0i64);
        }
        if !s.is_empty()
            && !s.starts_with('0')
            && let Ok(i) = parse_go_int(&s)
        {
            return Value::from(i);
        }
        Value::String(s)
    }

    fn key(&mut self, data: &mut Map<String, Value>, level: usize) -> Result<(), Stop> {
        let (k, last) = self.until(&['=', '[', ',', '.']);
        match last {
            None => {
                if k.is_empty() {
                    return Err(Stop::Eof);
                }
                err(format!("key {k:?} has no value"))
            }
            Some('[') => {
                let i = self.index()?;
                let mut list = match data.get(&k) {
                    None => Vec::new(),
                    Some(Value::Array(l)) => l.clone(),
                    Some(_) => return err(format!("unable to parse key: {k:?} is not a list")),
                };
                let r = self.list_item(&mut list, i, level);
                set(data, &k, Value::Array(list));
                r
            }
            Some('=') => match self.val_list() {
                Ok(Some(list)) => {
                    set(data, &k, Value::Array(list));
                    Ok(())
                }
                Ok(None) => {
                    let (v, _) = self.until(&[',']);
                    let v = self.typed(v);
                    set(data, &k, v);
                    Ok(())
                }
                Err(Stop::Eof) => {
                    set(data, &k, Value::String(String::new()));
                    Err(Stop::Eof)
                }
                Err(e) => Err(e),
            },
            Some(',') => {
                set(data, &k, Value::String(String::new()));
                err(format!("key {k:?} has no value (cannot end with ,)"))
            }
            Some(_) => {
                // '.'
                let level = level + 1;
                if level > MAX_NESTING {
                    return err(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTING}"
                    ));
                }
                let mut inner = match data.get(&k) {
                    None => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => return err(format!("unable to parse key: {k:?} is not a map")),
                };
                let r = self.key(&mut inner, level);
                if r.is_ok() && inner.is_empty() {
                    return err(format!("key map {k:?} has no value"));
                }
                if !inner.is_empty() {
                    set(data, &k, Value::Object(inner));
                }
                r
            }
        }
    }

    fn index(&mut self) -> Result<usize, Stop> {
        let (v, last) = self.until(&[']']);
        if last.is_none() {
            return Err(Stop::Eof);
        }
        let i: i64 = parse_go_int(&v).map_err(|_| {
            Stop::Err(format!(
                "error parsing index: strconv.Atoi: parsing {v:?}: invalid syntax"
            ))
        })?;
        if i < 0 {
            return err(format!("negative {i} index not allowed"));
        }
        if i as usize > MAX_INDEX {
            return err(format!(
                "index of {i} is greater than maximum supported index of {MAX_INDEX}"
            ));
        }
        Ok(i as usize)
    }

    fn list_item(&mut self, list: &mut Vec<Value>, i: usize, level: usize) -> Result<(), Stop> {
        let (k, last) = self.until(&['[', '.', '=']);
        if !k.is_empty() {
            return err(format!("unexpected data at end of array index: {k:?}"));
        }
        match last {
            None => Err(Stop::Eof),
            Some('=') => {
                let v = match self.val_list() {
                    Ok(Some(l)) => Value::Array(l),
                    Ok(None) => {
                        let (v, _) = self.until(&[',']);
                        self.typed(v)
                    }
                    Err(Stop::Eof) => Value::String(String::new()),
                    Err(e) => return Err(e),
                };
                set_index(list, i, v);
                Ok(())
            }
            Some('[') => {
                let next = self.index()?;
                let mut inner = match list.get(i) {
                    Some(Value::Array(l)) => l.clone(),
                    Some(Value::Null) | None => Vec::new(),
                    Some(_) => return err("unable to parse key: not a list"),
                };
                self.list_item(&mut inner, next, level)?;
                set_index(list, i, Value::Array(inner));
                Ok(())
            }
            Some(_) => {
                // '.': a map inside the list.
                let mut inner = match list.get(i) {
                    Some(Value::Object(m)) => m.clone(),
                    _ => Map::new(),
                };
                self.key(&mut inner, level)?;
                set_index(list, i, Value::Object(inner));
                Ok(())
            }
        }
    }

    /// `{a,b}` after `=`; `Ok(None)` when the value is not a list (nothing consumed).
    fn val_list(&mut self) -> Result<Option<Vec<Value>>, Stop> {
        if self.pos >= self.chars.len() {
            return Err(Stop::Eof);
        }
        if self.chars[self.pos] != '{' {
            return Ok(None);
        }
        self.pos += 1;
        let mut list = Vec::new();
        loop {
            let (v, last) = self.until(&[',', '}']);
            match last {
                None => return err("list must terminate with '}'"),
                Some('}') => {
                    if self.pos < self.chars.len() && self.chars[self.pos] == ',' {
                        self.pos += 1;
                    }
                    list.push(self.typed(v));
                    return Ok(Some(list));
                }
                Some(_) => list.push(self.typed(v)),
            }
        }
    }
}

fn set(data: &mut Map<String, Value>, key: &str, v: Value) {
    if !key.is_empty() {
        data.insert(key.to_string(), v);
    }
}

fn set_index(list: &mut Vec<Value>, i: usize, v: Value) {
    if list.len() <= i {
        list.resize(i + 1, Value::Null);
    }
    list[i] = v;
}

/// Go's `strconv.ParseInt(s, 10, 64)` (an optional sign, then decimal digits).
fn parse_go_int(s: &str) -> Result<i64, ()> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(());
    }
    s.parse::<i64>().map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(line: &str) -> Result<Value, String> {
        let mut m = Map::new();
        parse_into(line, &mut m, false).map_err(|e| e.0)?;
        Ok(Value::Object(m))
    }

    // Expected values follow the cases of Helm's pkg/strvals/parser_test.go.
    #[test]
    fn typed_scalars() {
        assert_eq!(
            parse("name=value,n=1,b=TRUE,f=false,z=0,lead=0123,neg=-5,nul=null,fl=1.5").unwrap(),
            json!({"name":"value","n":1,"b":true,"f":false,"z":0,"lead":"0123","neg":-5,"nul":null,"fl":"1.5"})
        );
        assert_eq!(
            parse("big=9223372036854775808").unwrap(),
            json!({"big":"9223372036854775808"})
        );
    }

    #[test]
    fn set_string_keeps_text() {
        let mut m = Map::new();
        parse_into("a=1,b=true", &mut m, true).unwrap();
        assert_eq!(Value::Object(m), json!({"a":"1","b":"true"}));
    }

    #[test]
    fn nested_names_lists_and_escapes() {
        assert_eq!(
            parse("outer.inner=value").unwrap(),
            json!({"outer":{"inner":"value"}})
        );
        assert_eq!(
            parse("outer.inner1=a,outer.inner2=b").unwrap(),
            json!({"outer":{"inner1":"a","inner2":"b"}})
        );
        assert_eq!(
            parse("name1={value1,value2}").unwrap(),
            json!({"name1":["value1","value2"]})
        );
        assert_eq!(
            parse("list[0]=foo,list[2]=bar").unwrap(),
            json!({"list":["foo",null,"bar"]})
        );
        assert_eq!(
            parse("list[0].foo=bar,list[0].hello=world").unwrap(),
            json!({"list":[{"foo":"bar","hello":"world"}]})
        );
        assert_eq!(
            parse("nested[0][1]=1").unwrap(),
            json!({"nested":[[null,1]]})
        );
        assert_eq!(
            parse("name=one\\,two,b=c").unwrap(),
            json!({"name":"one,two","b":"c"})
        );
        assert_eq!(parse("a\\.b=c").unwrap(), json!({"a.b":"c"}));
        assert_eq!(parse("name=").unwrap(), json!({"name":""}));
    }

    #[test]
    fn helm_errors() {
        assert_eq!(parse("name").unwrap_err(), "key \"name\" has no value");
        assert_eq!(
            parse("name,b=c").unwrap_err(),
            "key \"name\" has no value (cannot end with ,)"
        );
        assert_eq!(parse("a.=x").unwrap_err(), "key map \"a\" has no value");
        assert_eq!(
            parse("list[-1]=x").unwrap_err(),
            "negative -1 index not allowed"
        );
        assert!(
            parse("list[65537]=x")
                .unwrap_err()
                .contains("greater than maximum")
        );
        assert_eq!(parse("x={a,b").unwrap_err(), "list must terminate with '}'");
        assert!(
            parse("list[0]x=1")
                .unwrap_err()
                .starts_with("unexpected data at end of array index")
        );
    }
}
