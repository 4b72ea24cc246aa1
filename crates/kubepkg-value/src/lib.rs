//! The dynamic value model of kubepkg's chart pipeline.
//!
//! Helm evaluates templates over Go `interface{}` values: maps decoded from YAML through JSON
//! (so every number in a values file is a `float64`), Go `int`s from built-ins such as `len`,
//! `[]interface{}` and `[]string` lists, and Go structs (`.Release`, `.Chart`, `.Files`, …) with
//! fields and methods. [`Value`] models exactly the distinctions a template can observe: the
//! dynamic type (`typeOf`, `kindOf`, `printf "%T"`), how `fmt` prints it, and how functions treat
//! it. It is cheap to clone (atomically reference counted, `Send + Sync`) and immutable; functions that "modify" a map in Go
//! (`set`, `unset`, `merge`) work on [`Value::Map`] through [`MapRef`], which shares mutation like
//! a Go map does.
//!
//! Printing (`fmt` verbs) lives in the template crate; this crate only holds data and the type
//! names Go would report.

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A Go map `map[string]interface{}`. Go maps are reference types: `set $d "k" v` is visible
/// through every copy of `$d`, so the map is shared and interior-mutable. Keys iterate in sorted
/// order, as text/template's `range` and `fmt` print them.
pub type MapRef = Arc<RwLock<BTreeMap<String, Value>>>;

/// Read access to a shared map; a poisoned lock (a panic elsewhere) still yields the data.
pub fn map_read(m: &MapRef) -> RwLockReadGuard<'_, BTreeMap<String, Value>> {
    m.read().unwrap_or_else(|e| e.into_inner())
}

/// Write access to a shared map; a poisoned lock still yields the data.
pub fn map_write(m: &MapRef) -> RwLockWriteGuard<'_, BTreeMap<String, Value>> {
    m.write().unwrap_or_else(|e| e.into_inner())
}

/// The element type of a Go slice. Most slices in templates are `[]interface{}`; Sprig returns
/// `[]string` from `splitList`, `keys`, `sortAlpha`… and `[]int` from `until`. The contents are
/// always stored as [`Value`]s; the tag only changes what `typeOf` reports and how some
/// functions (e.g. `join`) treat the slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// `[]interface {}`
    Interface,
    /// `[]string`
    String,
    /// `[]int`
    Int,
    /// `[]uint8` (Go `[]byte`), stored as [`Value::Bytes`] instead; listed for completeness.
    Byte,
    /// `[][]interface {}` (Sprig's `chunk`): a slice whose elements are `[]interface{}` lists.
    InterfaceSlices,
}

/// An instant in time as Go's `time.Time` carries it: wall clock seconds and nanoseconds since
/// the Unix epoch, the zone offset in seconds east of UTC and the zone's abbreviation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoTime {
    pub unix_secs: i64,
    pub nanos: u32,
    pub offset_secs: i32,
    pub zone: String,
}

/// A Go struct or named type reachable from templates: `.Release`, `.Chart`, `.Capabilities`,
/// `.Files`, a `*semver.Version`, a Sprig certificate, … Field access and method calls are
/// resolved by name, as text/template does with reflection.
pub trait GoObject: fmt::Debug + Send + Sync {
    /// Go's type name as `%T` prints it, e.g. `*chart.Metadata` or `chartutil.Capabilities`.
    fn type_name(&self) -> &str;
    /// `reflect.Kind` name as `kindOf` prints it (`struct`, `ptr`, `map`, …).
    fn kind(&self) -> &str {
        "struct"
    }
    /// A field (or a niladic method, which text/template calls implicitly) by name.
    fn field(&self, name: &str) -> Option<Value>;
    /// Whether `name` is a method taking arguments; `call_method` is then used.
    fn has_method(&self, _name: &str) -> bool {
        false
    }
    /// Call a method with arguments. The error text is what Go's method would return.
    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        Err(format!("can't call method/function {name:?}"))
    }
    /// How `fmt` prints it with `%v` (Go prints structs as `{a b}`, Stringers via `String()`).
    fn format_v(&self) -> String;
    /// The value's JSON form for `toJson`/`toYaml` (Go's encoding/json of the struct), if any.
    fn to_plain(&self) -> Value {
        Value::Nil
    }
    /// Identity for `eq` on comparable structs; default: never equal to anything else.
    fn truthy(&self) -> bool {
        true
    }
}

/// A dynamically typed Go value as a template sees it.
#[derive(Clone, Default)]
pub enum Value {
    /// Go `nil` (an untyped nil interface, or a missing map key).
    #[default]
    Nil,
    /// Go `bool`.
    Bool(bool),
    /// Go `int` (Helm's `.Release.Revision`, `len`, `atoi`, Sprig `int`).
    Int(i64),
    /// Go `int64` (Sprig arithmetic `add`, `int64`, `toDecimal`).
    Int64(i64),
    /// Go `uint64` (rare; `randInt` never returns it but constants in templates can overflow int).
    Uint(u64),
    /// Go `float64` — every number read from a values file, and Sprig's float math.
    Float(f64),
    /// Go `string`.
    String(Arc<str>),
    /// Go `[]byte`.
    Bytes(Arc<[u8]>),
    /// A Go slice (see [`ElemType`]).
    List(Arc<Vec<Value>>, ElemType),
    /// Go `map[string]interface{}` (values, `dict`, decoded YAML/JSON objects).
    Map(MapRef),
    /// Go `time.Time`.
    Time(Arc<GoTime>),
    /// A Go struct, pointer or other named type with fields/methods.
    Object(Arc<dyn GoObject>),
}

impl Value {
    /// A string value.
    pub fn str(s: impl AsRef<str>) -> Value {
        Value::String(Arc::from(s.as_ref()))
    }

    /// A `[]interface{}` list.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(items), ElemType::Interface)
    }

    /// A `[]string` list.
    pub fn str_list<I, S>(items: I) -> Value
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Value::List(
            Arc::new(items.into_iter().map(Value::str).collect()),
            ElemType::String,
        )
    }

    /// A fresh `map[string]interface{}`.
    pub fn map(entries: BTreeMap<String, Value>) -> Value {
        Value::Map(Arc::new(RwLock::new(entries)))
    }

    /// An empty `map[string]interface{}`.
    pub fn empty_map() -> Value {
        Value::map(BTreeMap::new())
    }

    /// Go's type name as `printf "%T"` / Sprig `typeOf` print it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Int64(_) => "int64".into(),
            Value::Uint(_) => "uint64".into(),
            Value::Float(_) => "float64".into(),
            Value::String(_) => "string".into(),
            Value::Bytes(_) => "[]uint8".into(),
            Value::List(_, ElemType::Interface) => "[]interface {}".into(),
            Value::List(_, ElemType::String) => "[]string".into(),
            Value::List(_, ElemType::Int) => "[]int".into(),
            Value::List(_, ElemType::Byte) => "[]uint8".into(),
            Value::List(_, ElemType::InterfaceSlices) => "[][]interface {}".into(),
            Value::Map(_) => "map[string]interface {}".into(),
            Value::Time(_) => "time.Time".into(),
            Value::Object(o) => o.type_name().into(),
        }
    }

    /// Go's `reflect.Kind` name as Sprig `kindOf` prints it.
    pub fn kind_name(&self) -> String {
        match self {
            Value::Nil => "invalid".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Int64(_) => "int64".into(),
            Value::Uint(_) => "uint64".into(),
            Value::Float(_) => "float64".into(),
            Value::String(_) => "string".into(),
            Value::Bytes(_) | Value::List(..) => "slice".into(),
            Value::Map(_) => "map".into(),
            Value::Time(_) => "struct".into(),
            Value::Object(o) => o.kind().into(),
        }
    }

    /// text/template's notion of truth (`if`, `and`, `or`, `not`): false for the zero value of
    /// its type and for empty collections.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint(u) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l, _) => !l.is_empty(),
            Value::Map(m) => !map_read(m).is_empty(),
            Value::Time(_) => true,
            Value::Object(o) => o.truthy(),
        }
    }

    /// The string inside, if this is a Go string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether this is Go `nil`.
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// A deep copy: maps and lists are duplicated so later `set`s on the copy do not reach the
    /// original (Sprig `deepCopy`, and Helm's copying of values between charts).
    pub fn deep_copy(&self) -> Value {
        match self {
            Value::Map(m) => Value::map(
                map_read(m)
                    .iter()
                    .map(|(k, v)| (k.clone(), v.deep_copy()))
                    .collect(),
            ),
            Value::List(l, t) => {
                Value::List(Arc::new(l.iter().map(Value::deep_copy).collect()), *t)
            }
            other => other.clone(),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => write!(f, "nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Int64(i) => write!(f, "int64({i})"),
            Value::Uint(u) => write!(f, "uint64({u})"),
            Value::Float(x) => write!(f, "float64({x})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "bytes{b:?}"),
            Value::List(l, _) => f.debug_list().entries(l.iter()).finish(),
            Value::Map(m) => f.debug_map().entries(map_read(m).iter()).finish(),
            Value::Time(t) => write!(f, "{t:?}"),
            Value::Object(o) => write!(f, "{o:?}"),
        }
    }
}

/// Structural equality as used by tests and by Sprig's `has`/`uniq` (`reflect.DeepEqual`):
/// same type and same contents.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a == b,
            (Value::Uint(a), Value::Uint(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::List(a, ta), Value::List(b, tb)) => ta == tb && a == b,
            (Value::Map(a), Value::Map(b)) => Arc::ptr_eq(a, b) || *map_read(a) == *map_read(b),
            (Value::Time(a), Value::Time(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::str(s)
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(Arc::from(s))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Float(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_follow_go() {
        assert_eq!(Value::list(vec![]).type_name(), "[]interface {}");
        assert_eq!(Value::str_list(["a"]).type_name(), "[]string");
        assert_eq!(Value::empty_map().type_name(), "map[string]interface {}");
        assert_eq!(Value::Float(1.0).kind_name(), "float64");
    }

    #[test]
    fn maps_share_mutation_like_go_maps() {
        let m = Value::empty_map();
        let alias = m.clone();
        if let Value::Map(inner) = &m {
            map_write(inner).insert("k".into(), Value::Int(1));
        }
        let Value::Map(a) = alias else { unreachable!() };
        assert_eq!(map_read(&a).get("k"), Some(&Value::Int(1)));
    }

    #[test]
    fn deep_copy_detaches_maps() {
        let m = Value::empty_map();
        let copy = m.deep_copy();
        if let Value::Map(inner) = &m {
            map_write(inner).insert("k".into(), Value::Int(1));
        }
        let Value::Map(c) = copy else { unreachable!() };
        assert!(map_read(&c).is_empty());
    }

    #[test]
    fn truthiness_matches_text_template() {
        assert!(!Value::Nil.truthy());
        assert!(!Value::str("").truthy());
        assert!(!Value::Float(0.0).truthy());
        assert!(!Value::list(vec![]).truthy());
        assert!(Value::str("x").truthy());
    }
}
