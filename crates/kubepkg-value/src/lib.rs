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
//! Two Go facts shape the model beyond plain JSON-like data:
//! - maps have Go types ([`MapType`]): `map[string]interface {}`, the `map[string]string` Sprig's
//!   `split` returns, and Helm's named `common.Values` (`.Values`), which name themselves
//!   differently, are accepted by different functions and carry different methods;
//! - strings are bytes: [`Value::String`] holds UTF-8 text (nearly every string) and
//!   [`Value::NonUtf8String`] the rest, so each Go string has exactly one representation
//!   ([`Value::from_go_bytes`], [`Value::go_bytes`]); [`go_lossy`], [`go_decode_rune`] and
//!   [`go_rune_count`] decode bytes exactly as Go's `range` over a string does.
//!
//! Printing (`fmt` verbs) lives in the template crate; this crate only holds data and the type
//! names Go would report. A `time.Time` value is [`GoTime`], `kubepkg_gostd::time::Time`.
//!
//! Helm copies values often (each chart's defaults, three times for an umbrella): a copy of a
//! map nobody writes any more is made level by level as it is first read or written
//! ([`MapRef::frozen_copy`]), so the parts nothing looks at are never copied.
//!
//! [`walk`] is the one guard of recursive walks over values: Go's `encoding/json` cycle
//! detection, nesting bounds, a stack grown on the heap, and the fault record of walks that
//! cannot fail. Deep values are freed without recursion (`MapRef`'s `Drop`).

#![forbid(unsafe_code)]

pub mod walk;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The Go type of a map a template can hold. Every map has string keys and iterates in sorted
/// key order (as text/template's `range` and `fmt` print maps); the type decides what `typeOf`
/// and `%T` report, which functions accept the map (Sprig's dict functions take
/// `map[string]interface {}` only) and what a field access on an element reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MapType {
    /// `map[string]interface {}`: values files, `dict`, decoded YAML/JSON objects.
    #[default]
    Interface,
    /// `map[string]string`: what Sprig's `split` and `splitn` return (keys `_0`, `_1`, …).
    /// Every value is a Go string ([`Value::String`] or [`Value::NonUtf8String`]).
    String,
    /// Helm's named type `common.Values` (`map[string]interface {}` underneath, assignable to
    /// it): `.Values` and `.Template`. It has Helm's methods `AsMap`, `YAML`, `Table` and
    /// `PathValue`, which a field access tries before the map's keys, as Go's does.
    HelmValues,
}

impl MapType {
    /// Go's name of the map type as `%T` prints it.
    pub fn type_name(self) -> &'static str {
        match self {
            MapType::Interface => "map[string]interface {}",
            MapType::String => "map[string]string",
            MapType::HelmValues => "common.Values",
        }
    }

    /// Whether a value of this type can be passed where Go expects `map[string]interface {}`
    /// (the same underlying type: named types are assignable to it, `map[string]string` is not).
    pub fn is_interface_map(self) -> bool {
        matches!(self, MapType::Interface | MapType::HelmValues)
    }
}

/// A Go map: a handle on shared entries plus the map's Go type. Go maps are reference types:
/// `set $d "k" v` is visible through every copy of `$d`, so the entries are shared and
/// interior-mutable; a conversion to another map type with the same underlying type
/// (`Values.AsMap`, or passing `.Values` where `map[string]interface {}` is expected) is another
/// handle on the same entries ([`MapRef::with_type`]). Keys iterate in sorted order. Read and
/// write the entries with [`map_read`] and [`map_write`].
#[derive(Clone, Debug, Default)]
pub struct MapRef {
    ty: MapType,
    entries: Arc<Entries>,
}

/// The shared entries of a Go map, or the recipe of a deep copy not made yet
/// ([`MapRef::frozen_copy`]): the first [`map_read`] or [`map_write`] of such a map makes its
/// own level of the copy, its nested maps again copies not made yet.
#[derive(Debug, Default)]
struct Entries {
    map: RwLock<BTreeMap<String, Value>>,
    /// Whether `copy` still holds a copy to make (read without taking its lock).
    pending: AtomicBool,
    copy: Mutex<Option<FrozenCopy>>,
    /// Whether a [`MapRef::frozen_copy`] reads this map, which must then never be written: a
    /// debug build (the tests) checks it at every [`map_write`].
    #[cfg(debug_assertions)]
    frozen: AtomicBool,
}

/// A deep copy of a map nobody writes any more, made level by level as it is first used.
#[derive(Debug, Clone)]
struct FrozenCopy {
    source: MapRef,
    /// Every map of the copy a plain `map[string]interface {}` (Helm's values copy), or each
    /// with its source's type.
    interface_maps: bool,
    /// The nulls of the source's maps left out at every level (lists' elements keep theirs).
    without_nils: bool,
}

impl MapRef {
    /// A new map of the given Go type.
    pub fn new(ty: MapType, entries: BTreeMap<String, Value>) -> MapRef {
        MapRef {
            ty,
            entries: Arc::new(Entries {
                map: RwLock::new(entries),
                ..Entries::default()
            }),
        }
    }

    /// A deep copy of `frozen` (as [`Value::copy_with`] makes, with every map a plain
    /// `map[string]interface {}` when `interface_maps`, and the nulls of its maps left out at
    /// every level when `without_nils`) that costs nothing until it is used: each level is
    /// copied at its first read or write, its nested maps again such copies, so the parts
    /// nobody looks at are never copied. The copy is a map of its own at once (writes to it
    /// never reach `frozen`), but it reads `frozen` later: `frozen` must never be written again
    /// and must not contain itself — the values of a loaded chart, and the coalesced values
    /// made from them, which nothing changes once they are made.
    pub fn frozen_copy(frozen: &MapRef, interface_maps: bool, without_nils: bool) -> MapRef {
        // A copy of a copy not yet made is a copy of its source (nothing wrote either).
        let recipe = match frozen.unmade_copy() {
            Some(inner) => FrozenCopy {
                source: inner.source,
                interface_maps: interface_maps || inner.interface_maps,
                without_nils: without_nils || inner.without_nils,
            },
            None => FrozenCopy {
                source: frozen.clone(),
                interface_maps,
                without_nils,
            },
        };
        #[cfg(debug_assertions)]
        recipe.source.entries.frozen.store(true, Ordering::Relaxed);
        let ty = if interface_maps {
            MapType::Interface
        } else {
            frozen.ty
        };
        MapRef {
            ty,
            entries: Arc::new(Entries {
                pending: AtomicBool::new(true),
                copy: Mutex::new(Some(recipe)),
                ..Entries::default()
            }),
        }
    }

    /// Whether this map is a [`MapRef::frozen_copy`] of `source` that nobody has read or
    /// written yet, with the same entries as `source` — or, when `nils_ignored`, the same but
    /// perhaps for nulls at any level: then coalescing `source` into it changes nothing.
    pub fn is_unmade_copy_of(&self, source: &MapRef, nils_ignored: bool) -> bool {
        self.unmade_copy()
            .is_some_and(|c| MapRef::ptr_eq(&c.source, source) && (nils_ignored || !c.without_nils))
    }

    fn unmade_copy(&self) -> Option<FrozenCopy> {
        if !self.entries.pending.load(Ordering::Acquire) {
            return None;
        }
        self.entries
            .copy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Make this map's level of a [`MapRef::frozen_copy`] if it is one not made yet.
    fn make_copy(&self) {
        if !self.entries.pending.load(Ordering::Acquire) {
            return;
        }
        let mut copy = self.entries.copy.lock().unwrap_or_else(|e| e.into_inner());
        let Some(c) = copy.take() else {
            return; // another thread made it while this one waited
        };
        // `source` was made (or never a copy) when this recipe was written, and nothing
        // writes it: reading it makes nothing and waits for no other recipe.
        let made: BTreeMap<String, Value> = map_read(&c.source)
            .iter()
            .filter(|(_, v)| !(c.without_nils && v.is_nil()))
            .map(|(k, v)| {
                (
                    k.clone(),
                    frozen_copy_of(v, c.interface_maps, c.without_nils),
                )
            })
            .collect();
        *self.entries.map.write().unwrap_or_else(|e| e.into_inner()) = made;
        self.entries.pending.store(false, Ordering::Release);
    }

    /// The map's Go type.
    pub fn map_type(&self) -> MapType {
        self.ty
    }

    /// The same map seen as another Go map type (Go's conversion between map types with the
    /// same underlying type): both handles share the entries.
    pub fn with_type(&self, ty: MapType) -> MapRef {
        MapRef {
            ty,
            entries: self.entries.clone(),
        }
    }

    /// Whether both handles reach the same entries (Go map identity).
    pub fn ptr_eq(a: &MapRef, b: &MapRef) -> bool {
        Arc::ptr_eq(&a.entries, &b.entries)
    }

    /// The address of the shared entries: the identity of the Go map (see [`walk`]).
    pub fn entries_ptr(&self) -> usize {
        Arc::as_ptr(&self.entries) as *const () as usize
    }
}

thread_local! {
    /// Entries of maps whose last handle was dropped while another drop was running, freed one
    /// at a time by the outermost drop (see `impl Drop for MapRef`).
    static PENDING_DROPS: RefCell<Option<Vec<Value>>> = const { RefCell::new(None) };
}

/// Dropping the last handle of a map frees its entries without recursion: a value nested a
/// million maps deep (a template can build one with `set` in a `range`) would otherwise
/// overflow the stack when it is freed. Nested maps and lists are queued and freed in a loop
/// by the outermost drop.
impl Drop for MapRef {
    fn drop(&mut self) {
        let Some(shared) = Arc::get_mut(&mut self.entries) else {
            return;
        };
        let entries = std::mem::take(shared.map.get_mut().unwrap_or_else(|e| e.into_inner()));
        if entries.is_empty() {
            return;
        }
        let queued = PENDING_DROPS.try_with(|p| {
            let mut p = p.borrow_mut();
            match p.as_mut() {
                Some(q) => {
                    q.extend(entries.into_values());
                    None
                }
                None => {
                    *p = Some(Vec::new());
                    Some(entries)
                }
            }
        });
        // Outermost drop (or the thread is exiting): free here, draining what nested drops queue.
        let Ok(Some(entries)) = queued else { return };
        let mut work: Vec<Value> = entries.into_values().collect();
        loop {
            while let Some(v) = work.pop() {
                release(v, &mut work);
            }
            let more = PENDING_DROPS
                .try_with(|p| p.borrow_mut().as_mut().map(std::mem::take))
                .ok()
                .flatten()
                .unwrap_or_default();
            if more.is_empty() {
                break;
            }
            work = more;
        }
        let _ = PENDING_DROPS.try_with(|p| p.borrow_mut().take());
    }
}

/// Free `v`, moving the elements of a list only it holds onto `work` instead of freeing them
/// recursively (a map's entries are queued by its own `Drop`).
fn release(v: Value, work: &mut Vec<Value>) {
    if let Value::List(items, _) = v
        && let Ok(items) = Arc::try_unwrap(items)
    {
        work.extend(items);
    }
}

/// Free a value that may be nested very deeply (maps or lists) without recursion.
pub fn drop_deep(v: Value) {
    // Only a list that this value alone holds has elements to free here (a map frees its own
    // entries without recursion, anything else holds nothing nested): its vector, emptied from
    // the end, is the work list, so freeing a variable allocates nothing.
    let Value::List(items, _) = v else { return };
    let Ok(mut work) = Arc::try_unwrap(items) else {
        return;
    };
    while let Some(v) = work.pop() {
        release(v, &mut work);
    }
}

/// Read access to a shared map; a poisoned lock (a panic elsewhere) still yields the data.
pub fn map_read(m: &MapRef) -> RwLockReadGuard<'_, BTreeMap<String, Value>> {
    m.make_copy();
    m.entries.map.read().unwrap_or_else(|e| e.into_inner())
}

/// Write access to a shared map; a poisoned lock still yields the data.
pub fn map_write(m: &MapRef) -> RwLockWriteGuard<'_, BTreeMap<String, Value>> {
    #[cfg(debug_assertions)]
    assert!(
        !m.entries.frozen.load(Ordering::Relaxed),
        "a map read by a MapRef::frozen_copy was written: the copy would see the write"
    );
    m.make_copy();
    m.entries.map.write().unwrap_or_else(|e| e.into_inner())
}

/// `v` as one level of a [`MapRef::frozen_copy`] holds it: a map as a copy not made yet, a
/// list copied with its maps so (its elements keep their nulls), anything else shared.
pub fn frozen_copy_of(v: &Value, interface_maps: bool, without_nils: bool) -> Value {
    match v {
        Value::Map(m) => Value::Map(MapRef::frozen_copy(m, interface_maps, without_nils)),
        Value::List(items, t) => walk::grow(|| {
            let items = items
                .iter()
                .map(|x| frozen_copy_of(x, interface_maps, false))
                .collect();
            Value::List(Arc::new(items), *t)
        }),
        other => other.clone(),
    }
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
    /// `[]map[string]interface {}` (BurntSushi/toml's arrays of tables, from `fromToml`).
    Maps,
}

/// An instant in time as Go's `time.Time` carries it (see [`kubepkg_gostd::time::Time`]).
pub use kubepkg_gostd::time::Time as GoTime;

/// A Go struct or named type reachable from templates: `.Release`, `.Chart`, `.Capabilities`,
/// `.Files`, a `*semver.Version`, a Sprig certificate, … Field access and method calls are
/// resolved by name, as text/template does with reflection.
pub trait GoObject: fmt::Debug + Send + Sync {
    /// Go's type name as `%T` prints it, e.g. `*chart.Metadata` or `chartutil.Capabilities`.
    fn type_name(&self) -> &str;
    /// `reflect.Kind` name as `kindOf` prints it (`struct`, `ptr`, `map`, …). By default it
    /// follows from [`GoObject::type_name`]: `ptr` for a pointer type (`*chart.Metadata`), else
    /// `struct`.
    fn kind(&self) -> &str {
        if self.type_name().starts_with('*') {
            "ptr"
        } else {
            "struct"
        }
    }
    /// A field (or a niladic method, which text/template calls implicitly) by name; none by
    /// default (a named slice or number has no fields).
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
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
    /// Go's `len` of the value when its kind has one (`map`, `slice`, `array`, `string`): what
    /// `len` returns and what decides its truth. `None` for other kinds.
    fn go_len(&self) -> Option<usize> {
        None
    }
    /// The value's truth as Go's `reflect` kinds decide it ([`Value::truthy`] asks only this
    /// for objects). The default is Go's rule by [`GoObject::kind`]: a `map`, `slice`, `array` or
    /// `string` is true when [`GoObject::go_len`] is not zero; a `struct`, and a non-nil `ptr`
    /// (an object is never a nil pointer), is true. Named numbers (`time.Duration`,
    /// `time.Month`, `complex128`) override it with their zero test.
    fn truthy(&self) -> bool {
        match self.kind() {
            "map" | "slice" | "array" | "string" => self.go_len().unwrap_or(0) > 0,
            _ => true,
        }
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
    /// Go `uint8` (`byte`): what `index` yields on a string or a `[]byte`.
    Uint8(u8),
    /// Go `float64` — every number read from a values file, and Sprig's float math.
    Float(f64),
    /// Go `string` whose bytes are valid UTF-8 (nearly every string).
    String(Arc<str>),
    /// Go `string` whose bytes are not valid UTF-8. Go strings are byte sequences: `b64dec` of
    /// binary data, `substr` cutting a multi-byte character or a `"\xff"` literal make such
    /// strings, and Go hashes, measures, slices and prints their exact bytes. A string is held
    /// here only when its bytes are not UTF-8, so each Go string has one representation; build
    /// strings from bytes with [`Value::from_go_bytes`] and read either variant with
    /// [`Value::go_bytes`].
    NonUtf8String(Arc<[u8]>),
    /// Go `[]byte`.
    Bytes(Arc<[u8]>),
    /// A Go slice (see [`ElemType`]).
    List(Arc<Vec<Value>>, ElemType),
    /// A Go map with string keys; its Go type is [`MapRef::map_type`] (see [`MapType`]).
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
        Value::Map(MapRef::new(MapType::Interface, entries))
    }

    /// A fresh map of the given Go type (for [`MapType::String`] every value must be a string).
    pub fn typed_map(ty: MapType, entries: BTreeMap<String, Value>) -> Value {
        Value::Map(MapRef::new(ty, entries))
    }

    /// The Go string made of these bytes: [`Value::String`] when they are UTF-8, else
    /// [`Value::NonUtf8String`] (copied once, into the value's shared text).
    pub fn from_go_slice(bytes: &[u8]) -> Value {
        match std::str::from_utf8(bytes) {
            Ok(s) => Value::String(Arc::from(s)),
            Err(_) => Value::NonUtf8String(Arc::from(bytes)),
        }
    }

    /// [`Value::from_go_slice`] of bytes it is given (a `Vec` cannot become the value's shared
    /// text without a copy either).
    pub fn from_go_bytes(bytes: Vec<u8>) -> Value {
        Value::from_go_slice(&bytes)
    }

    /// The bytes of a Go string (either string variant); `None` for other values.
    pub fn go_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::String(s) => Some(s.as_bytes()),
            Value::NonUtf8String(b) => Some(b),
            _ => None,
        }
    }

    /// Whether this is a Go `string` (either variant).
    pub fn is_go_string(&self) -> bool {
        matches!(self, Value::String(_) | Value::NonUtf8String(_))
    }

    /// A Go string as text: borrowed when it is UTF-8, else decoded as Go's `range` over a
    /// string decodes it (each byte that does not start a valid sequence becomes U+FFFD); `None`
    /// for other values.
    pub fn go_str_lossy(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
            Value::NonUtf8String(b) => Some(std::borrow::Cow::Owned(go_lossy(b))),
            _ => None,
        }
    }

    /// An empty `map[string]interface{}`.
    pub fn empty_map() -> Value {
        Value::map(BTreeMap::new())
    }

    /// Go's type name as `printf "%T"` / Sprig `typeOf` print it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bytes(_) => "[]uint8".into(),
            Value::List(_, ElemType::Interface) => "[]interface {}".into(),
            Value::List(_, ElemType::String) => "[]string".into(),
            Value::List(_, ElemType::Int) => "[]int".into(),
            Value::List(_, ElemType::Byte) => "[]uint8".into(),
            Value::List(_, ElemType::InterfaceSlices) => "[][]interface {}".into(),
            Value::List(_, ElemType::Maps) => "[]map[string]interface {}".into(),
            Value::Map(m) => m.map_type().type_name().into(),
            Value::Time(_) => "time.Time".into(),
            Value::Object(o) => o.type_name().into(),
            basic => basic
                .basic_name()
                .expect("the other values are basic")
                .into(),
        }
    }

    /// Go's `reflect.Kind` name as Sprig `kindOf` prints it.
    pub fn kind_name(&self) -> String {
        match self {
            Value::Nil => "invalid".into(),
            Value::Bytes(_) | Value::List(..) => "slice".into(),
            Value::Map(_) => "map".into(),
            Value::Time(_) => "struct".into(),
            Value::Object(o) => o.kind().into(),
            basic => basic
                .basic_name()
                .expect("the other values are basic")
                .into(),
        }
    }

    /// The JSON kind of the value as `encoding/json` names it in `json: cannot unmarshal KIND
    /// into …` (`null`, `bool`, `number`, `string`, `array`, `object`): the value as it reads
    /// back from its JSON text.
    pub fn json_kind(&self) -> &'static str {
        match self {
            Value::Nil => "null",
            Value::Bool(_) => "bool",
            Value::Int(_)
            | Value::Int64(_)
            | Value::Uint(_)
            | Value::Uint8(_)
            | Value::Float(_) => "number",
            Value::String(_) | Value::NonUtf8String(_) | Value::Bytes(_) | Value::Time(_) => {
                "string"
            }
            Value::List(..) => "array",
            Value::Map(_) | Value::Object(_) => "object",
        }
    }

    /// The name Go gives both the type and the kind of a basic value (`bool`, `int`, `int64`,
    /// `uint64`, `uint8`, `float64`, `string`); `None` for nil, bytes, lists, maps, times and
    /// objects, whose type and kind names differ.
    fn basic_name(&self) -> Option<&'static str> {
        Some(match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint(_) => "uint64",
            Value::Uint8(_) => "uint8",
            Value::Float(_) => "float64",
            Value::String(_) | Value::NonUtf8String(_) => "string",
            Value::Nil
            | Value::Bytes(_)
            | Value::List(..)
            | Value::Map(_)
            | Value::Time(_)
            | Value::Object(_) => return None,
        })
    }

    /// Go's truth of a value, the one rule kubepkg has: text/template's `isTrue` (`if`, `with`,
    /// `and`, `or`, `not`) and, negated, Sprig's `empty` (`default`, `coalesce`, `compact`,
    /// `all`, `any`), which judge by `reflect` kind alike: false for nil, the zero number,
    /// `false`, and a string, slice or map (any Go type of map: `common.Values`,
    /// `map[string]string`, Helm's `engine.files`) of length zero; true for every struct
    /// (`time.Time`, `.Capabilities.KubeVersion`, …). Objects decide by
    /// [`GoObject::truthy`].
    pub fn truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint(u) => *u != 0,
            Value::Uint8(u) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::NonUtf8String(_) => true,
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
    /// original (Sprig `deepCopy`, and Helm's copying of values between charts). A value that
    /// contains itself is copied up to the cycle, which is recorded with [`walk::note_fault`]
    /// (see [`Value::try_deep_copy`]).
    pub fn deep_copy(&self) -> Value {
        match self.try_deep_copy() {
            Ok(v) => v,
            Err(r) => {
                walk::note_fault(r);
                Value::Nil
            }
        }
    }

    /// A deep copy, or why there is none: the value contains itself (Go's `copystructure`
    /// never finishes on such a value).
    pub fn try_deep_copy(&self) -> Result<Value, walk::Recursion> {
        self.copy_with(&mut walk::Guard::unbounded(), &|m| m.map_type())
    }

    /// A deep copy whose maps get the type `map_type` chooses (`copystructure.Copy` keeps
    /// types; Helm's values copy makes every map a plain `map[string]interface {}`).
    pub fn copy_with(
        &self,
        guard: &mut walk::Guard,
        map_type: &dyn Fn(&MapRef) -> MapType,
    ) -> Result<Value, walk::Recursion> {
        match self {
            Value::Map(m) => guard.within(self, |g| {
                // Collected in the source's (sorted) order: the map is built in bulk.
                let out = map_read(m)
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), v.copy_with(g, map_type)?)))
                    .collect::<Result<BTreeMap<_, _>, _>>()?;
                Ok(Value::typed_map(map_type(m), out))
            })?,
            Value::List(l, t) => guard.within(self, |g| {
                let items = l
                    .iter()
                    .map(|x| x.copy_with(g, map_type))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Value::List(Arc::new(items), *t))
            })?,
            other => Ok(other.clone()),
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
            Value::Uint8(u) => write!(f, "uint8({u})"),
            Value::Float(x) => write!(f, "float64({x})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::NonUtf8String(b) => write!(f, "string{b:?}"),
            Value::Bytes(b) => write!(f, "bytes{b:?}"),
            Value::List(l, _) => f.debug_list().entries(l.iter()).finish(),
            Value::Map(m) => f.debug_map().entries(map_read(m).iter()).finish(),
            Value::Time(t) => write!(f, "{t:?}"),
            Value::Object(o) => write!(f, "{o:?}"),
        }
    }
}

/// Structural equality as used by tests and by Sprig's `has`/`uniq` (`reflect.DeepEqual`):
/// same type and same contents. Like `DeepEqual`, a pair of maps met again while comparing
/// them (values that contain themselves) counts as equal.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        deep_equal(self, other, &mut Vec::new())
    }
}

fn deep_equal(a: &Value, b: &Value, visiting: &mut Vec<(usize, usize)>) -> bool {
    match (a, b) {
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a == b,
        (Value::Uint(a), Value::Uint(b)) => a == b,
        (Value::Uint8(a), Value::Uint8(b)) => a == b,
        (Value::Float(a), Value::Float(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::NonUtf8String(a), Value::NonUtf8String(b)) => a == b,
        (Value::Bytes(a), Value::Bytes(b)) => a == b,
        (Value::List(x, ta), Value::List(y, tb)) => {
            ta == tb
                && x.len() == y.len()
                && walk::grow(|| {
                    x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| deep_equal(p, q, visiting))
                })
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.map_type() != y.map_type() {
                return false;
            }
            if MapRef::ptr_eq(x, y) {
                return true;
            }
            let pair = (x.entries_ptr(), y.entries_ptr());
            if visiting.contains(&pair) {
                return true;
            }
            let (mx, my) = (map_read(x), map_read(y));
            if mx.len() != my.len() {
                return false;
            }
            visiting.push(pair);
            let eq = walk::grow(|| {
                mx.iter()
                    .zip(my.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && deep_equal(va, vb, visiting))
            });
            visiting.pop();
            eq
        }
        (Value::Time(a), Value::Time(b)) => a == b,
        (Value::Object(a), Value::Object(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// Go's `utf8.DecodeRune` (see [`kubepkg_gostd::utf8::decode_rune`]).
pub use kubepkg_gostd::utf8::decode_rune as go_decode_rune;
/// Go string bytes decoded as Go's `for range` does (see [`kubepkg_gostd::utf8::lossy`]).
pub use kubepkg_gostd::utf8::lossy as go_lossy;
/// Go's `utf8.RuneCount` (see [`kubepkg_gostd::utf8::rune_count`]).
pub use kubepkg_gostd::utf8::rune_count as go_rune_count;

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

    /// The entries of `derive` (a clone or a deep copy) of a new empty map, after `k` was set
    /// to 1 in that map through its shared handle, as a Go map assignment does.
    fn entries_after_setting_k(derive: fn(&Value) -> Value) -> BTreeMap<String, Value> {
        let m = Value::empty_map();
        let derived = derive(&m);
        let Value::Map(inner) = &m else {
            unreachable!()
        };
        map_write(inner).insert("k".into(), Value::Int(1));
        let Value::Map(d) = derived else {
            unreachable!()
        };
        map_read(&d).clone()
    }

    #[test]
    fn maps_share_mutation_like_go_maps() {
        let alias = entries_after_setting_k(Value::clone);
        assert_eq!(alias.get("k"), Some(&Value::Int(1)));
    }

    #[test]
    fn deep_copy_detaches_maps() {
        assert!(entries_after_setting_k(Value::deep_copy).is_empty());
    }

    #[test]
    fn go_strings_have_one_representation() {
        assert_eq!(Value::from_go_bytes(b"ok".to_vec()), Value::str("ok"));
        let bad = Value::from_go_bytes(vec![b'a', 0xff]);
        assert!(matches!(bad, Value::NonUtf8String(_)));
        assert_eq!(bad.type_name(), "string");
        assert_eq!(bad.go_bytes(), Some(&[b'a', 0xff][..]));
    }

    #[test]
    fn lossy_decoding_replaces_each_invalid_byte_like_go() {
        // "\xe6\x97" is a truncated 3-byte sequence: Go's range yields two U+FFFD.
        assert_eq!(go_lossy(&[b'a', 0xe6, 0x97, b'b']), "a\u{FFFD}\u{FFFD}b");
        assert_eq!(go_rune_count(&[0xe6, 0x97, 0xa5, 0xff]), 2);
    }

    /// `{a: {b: 1, gone: null, deep: {c: 2, gone: null}}, list: [{x: null}], top: null}`
    /// with `common.Values` maps inside, as the source of frozen copies.
    fn frozen_source() -> MapRef {
        let typed = |pairs: Vec<(&str, Value)>| {
            let m: BTreeMap<String, Value> =
                pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            Value::typed_map(MapType::HelmValues, m)
        };
        let deep = typed(vec![("c", Value::Int(2)), ("gone", Value::Nil)]);
        let a = typed(vec![
            ("b", Value::Int(1)),
            ("gone", Value::Nil),
            ("deep", deep),
        ]);
        let list = Value::list(vec![typed(vec![("x", Value::Nil)])]);
        let Value::Map(m) = typed(vec![("a", a), ("list", list), ("top", Value::Nil)]) else {
            unreachable!()
        };
        m
    }

    fn as_map(v: &Value) -> MapRef {
        match v {
            Value::Map(m) => m.clone(),
            other => panic!("not a map: {other:?}"),
        }
    }

    #[test]
    fn a_frozen_copy_equals_the_deep_copy_and_is_a_map_of_its_own() {
        let src = frozen_source();
        let copy = MapRef::frozen_copy(&src, false, false);
        assert_eq!(
            Value::Map(copy.clone()),
            Value::Map(src.clone()).deep_copy()
        );
        // Writes at every depth stay in the copy.
        let a = as_map(&map_read(&copy)["a"]);
        let deep = as_map(&map_read(&a)["deep"]);
        map_write(&deep).insert("c".into(), Value::Int(9));
        map_write(&a).insert("new".into(), Value::Bool(true));
        let in_list = match &map_read(&copy)["list"] {
            Value::List(items, _) => as_map(&items[0]),
            other => panic!("not a list: {other:?}"),
        };
        map_write(&in_list).insert("x".into(), Value::Int(3));
        assert_eq!(Value::Map(src.clone()), Value::Map(frozen_source()));
        assert!(!MapRef::ptr_eq(&copy, &src));
        assert_eq!(map_read(&deep)["c"], Value::Int(9));
    }

    #[test]
    fn a_frozen_copy_leaves_out_the_nulls_of_its_maps_and_retypes_them_when_asked() {
        let src = frozen_source();
        let copy = Value::Map(MapRef::frozen_copy(&src, true, true));
        assert_eq!(copy.type_name(), "map[string]interface {}");
        let copy = as_map(&copy);
        assert!(!map_read(&copy).contains_key("top"));
        let a = as_map(&map_read(&copy)["a"]);
        assert_eq!(
            map_read(&a).keys().collect::<Vec<_>>(),
            ["b", "deep"],
            "nulls left out one level down"
        );
        let deep = map_read(&a)["deep"].clone();
        assert_eq!(deep.type_name(), "map[string]interface {}");
        assert!(!map_read(&as_map(&deep)).contains_key("gone"));
        // A list's elements keep their nulls (Helm removes them from tables only).
        let Value::List(items, _) = map_read(&copy)["list"].clone() else {
            panic!("the list is a list")
        };
        assert_eq!(map_read(&as_map(&items[0]))["x"], Value::Nil);
        // Without retyping, each map keeps its type.
        let kept = MapRef::frozen_copy(&src, false, true);
        assert_eq!(map_read(&kept)["a"].type_name(), "common.Values");
    }

    #[test]
    fn an_unused_copy_of_an_unused_copy_is_a_copy_of_the_source() {
        let src = frozen_source();
        let once = MapRef::frozen_copy(&src, true, false);
        let twice = MapRef::frozen_copy(&once, false, true);
        assert!(twice.is_unmade_copy_of(&src, true));
        assert!(!twice.is_unmade_copy_of(&src, false), "it left out nulls");
        assert!(once.is_unmade_copy_of(&src, false));
        assert!(!twice.is_unmade_copy_of(&once, true));
        // Once read, it is a map like any other.
        assert_eq!(
            Value::Map(twice.clone()).type_name(),
            "map[string]interface {}"
        );
        assert!(!map_read(&twice).contains_key("top"));
        assert!(!twice.is_unmade_copy_of(&src, true));
        // A copy of a copy already made is a copy of that one.
        let third = MapRef::frozen_copy(&twice, true, true);
        assert!(third.is_unmade_copy_of(&twice, true));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "frozen_copy was written")]
    fn writing_a_map_a_frozen_copy_reads_fails_a_debug_build() {
        let src = frozen_source();
        let _copy = MapRef::frozen_copy(&src, true, true);
        map_write(&src).insert("late".into(), Value::Nil);
    }

    #[test]
    fn threads_reading_one_frozen_copy_see_it_made_once() {
        let src = frozen_source();
        let copy = MapRef::frozen_copy(&src, true, true);
        let seen: Vec<Value> = std::thread::scope(|s| {
            let readers: Vec<_> = (0..8)
                .map(|_| s.spawn(|| map_read(&copy)["a"].clone()))
                .collect();
            readers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let first = as_map(&seen[0]);
        assert!(seen.iter().all(|a| MapRef::ptr_eq(&as_map(a), &first)));
    }

    #[test]
    fn map_types_name_themselves_like_go() {
        let m = Value::typed_map(MapType::String, BTreeMap::new());
        assert_eq!(m.type_name(), "map[string]string");
        assert_eq!(m.kind_name(), "map");
        assert_eq!(m.deep_copy().type_name(), "map[string]string");
        let v = Value::typed_map(MapType::HelmValues, BTreeMap::new());
        assert_eq!(v.type_name(), "common.Values");
        assert_ne!(m, Value::empty_map());
    }

    #[test]
    fn truthiness_matches_text_template() {
        assert!(!Value::Nil.truthy());
        assert!(!Value::str("").truthy());
        assert!(!Value::Float(0.0).truthy());
        assert!(!Value::list(vec![]).truthy());
        assert!(Value::str("x").truthy());
        assert!(!Value::typed_map(MapType::String, BTreeMap::new()).truthy());
        assert!(!Value::typed_map(MapType::HelmValues, BTreeMap::new()).truthy());
        assert!(!Value::Bytes(Arc::from(&[][..])).truthy());
    }

    /// A named map type (Helm's `engine.files`) is judged by its length, a struct is always
    /// true: Go's `isTrue` by `reflect` kind.
    #[test]
    fn objects_are_judged_by_kind() {
        #[derive(Debug)]
        struct Obj(&'static str, usize);
        impl GoObject for Obj {
            fn type_name(&self) -> &str {
                "test.Obj"
            }
            fn kind(&self) -> &str {
                self.0
            }
            fn go_len(&self) -> Option<usize> {
                (self.0 != "struct").then_some(self.1)
            }
            fn format_v(&self) -> String {
                String::new()
            }
        }
        let obj = |k, n| Value::Object(Arc::new(Obj(k, n)));
        assert!(!obj("map", 0).truthy());
        assert!(obj("map", 2).truthy());
        assert!(!obj("slice", 0).truthy());
        assert!(obj("struct", 0).truthy());
        assert!(obj("ptr", 0).truthy());
    }
}
