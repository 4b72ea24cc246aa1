//! Guarded recursion over values that may contain themselves.
//!
//! Go maps are references, so a template can make a map that holds itself
//! (`{{ $_ := set $d "self" $d }}`, `{{ $_ := set .Values "self" .Values }}`). Every recursive
//! walk over a [`Value`] (printing, `toJson`, `toYaml`, `deepCopy`, conversions) goes through a
//! [`Guard`]: it tells a cycle from a deep value the way Go's `encoding/json` does, bounds the
//! nesting where the caller has a limit, and grows the stack on the heap ([`grow`]) so that a
//! deep value never overflows the thread's stack.
//!
//! Cycle detection follows `encoding/json`'s encoder exactly, because Helm's `mustToJson` shows
//! its text: nothing is tracked for the first [`START_DETECTING_CYCLES_AFTER`] levels (so
//! ordinary values cost a counter), then every map and list on the current path is remembered
//! and meeting one again is [`Recursion::Cycle`], named after the Go type of the container that
//! repeated (`json: unsupported value: encountered a cycle via map[string]interface {}`).
//!
//! Walks that cannot return an error (printing, [`Value::deep_copy`], [`PartialEq`]) stop at
//! the cycle and record it with [`note_fault`]; the template executor takes it with
//! [`take_fault`] after each function call and print and turns it into a template error, so a
//! cyclic value is an error where Go would crash (its stack overflows) instead of a crash.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

use crate::{ElemType, Value};

/// Go's `encoding/json` `startDetectingCyclesAfter`: the depth from which containers on the
/// path are remembered.
pub const START_DETECTING_CYCLES_AFTER: usize = 1000;

/// Deepest nesting of maps and lists a bounded walk accepts (go-yaml's `max depth`, which Helm's
/// `toYaml` meets when it reads back its JSON, and Go's JSON decoder's nesting limit).
pub const MAX_NESTING: usize = 10_000;

const RED_ZONE: usize = 128 * 1024;
const STACK_CHUNK: usize = 2 * 1024 * 1024;

/// Run `f` with at least 128 KiB of stack left, growing the stack on the heap when needed: what
/// every recursive walk calls once per level so that deep values cannot overflow the stack.
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK_CHUNK, f)
}

/// Run `f` on a stack of its own large enough for any value kubepkg accepts (256 MiB of
/// address space, touched only as deep as `f` goes): for code that recurses over values
/// nested up to [`MAX_NESTING`] levels without calling [`grow`] at each level (a JSON parser,
/// a merge of user values).
pub fn on_large_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(256 << 20, f)
}

/// Why a guarded walk stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recursion {
    /// The value contains itself; `via` is the Go type of the container met again
    /// (`map[string]interface {}`, `common.Values`, `[]interface {}`, …).
    Cycle { via: &'static str },
    /// The value is nested deeper than `limit` maps and lists.
    TooDeep { limit: usize },
}

impl std::fmt::Display for Recursion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recursion::Cycle { via } => write!(f, "the value contains itself (a cycle via {via})"),
            Recursion::TooDeep { limit } => {
                write!(f, "the value is nested deeper than {limit} maps and lists")
            }
        }
    }
}

impl std::error::Error for Recursion {}

/// The Go type of a map or list as a static name (`None` for other values).
pub fn container_type(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Map(m) => m.map_type().type_name(),
        Value::List(_, t) => match t {
            ElemType::Interface => "[]interface {}",
            ElemType::String => "[]string",
            ElemType::Int => "[]int",
            ElemType::Byte => "[]uint8",
            ElemType::InterfaceSlices => "[][]interface {}",
            ElemType::Maps => "[]map[string]interface {}",
        },
        _ => return None,
    })
}

/// Identity of a container: the shared entries of a map (every handle on the same Go map
/// agrees), the allocation and length of a list (Go's slice identity).
fn identity(v: &Value) -> Option<(usize, usize)> {
    match v {
        Value::Map(m) => Some((m.entries_ptr(), 0)),
        Value::List(l, _) => Some((Arc::as_ptr(l) as *const () as usize, l.len())),
        _ => None,
    }
}

/// The state of one recursive walk: how deep it is and, past
/// [`START_DETECTING_CYCLES_AFTER`], which containers are on the current path.
#[derive(Debug)]
pub struct Guard {
    depth: usize,
    max_depth: usize,
    on_path: HashSet<(usize, usize)>,
}

impl Default for Guard {
    fn default() -> Self {
        Guard::unbounded()
    }
}

impl Guard {
    /// A walk with cycle detection and no nesting limit (Go's `encoding/json`).
    pub fn unbounded() -> Guard {
        Guard::with_max_depth(usize::MAX)
    }

    /// A walk that also refuses more than `max_depth` nested maps and lists.
    pub fn with_max_depth(max_depth: usize) -> Guard {
        Guard {
            depth: 0,
            max_depth,
            on_path: HashSet::new(),
        }
    }

    /// How many containers the walk is inside.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Step into `v` (call for maps and lists; other values are ignored and always succeed).
    /// Every `Ok` must be matched by one [`Guard::leave`] of the same value.
    pub fn enter(&mut self, v: &Value) -> Result<(), Recursion> {
        let Some(id) = identity(v) else {
            return Ok(());
        };
        if self.depth >= self.max_depth {
            return Err(Recursion::TooDeep {
                limit: self.max_depth,
            });
        }
        if self.depth > START_DETECTING_CYCLES_AFTER && !self.on_path.insert(id) {
            return Err(Recursion::Cycle {
                via: container_type(v).unwrap_or("interface {}"),
            });
        }
        self.depth += 1;
        Ok(())
    }

    /// Step out of `v` (after a successful [`Guard::enter`] of it).
    pub fn leave(&mut self, v: &Value) {
        let Some(id) = identity(v) else {
            return;
        };
        self.depth -= 1;
        if self.depth > START_DETECTING_CYCLES_AFTER {
            self.on_path.remove(&id);
        }
    }

    /// Run `f` inside `v`: [`Guard::enter`], `f` on a stack grown as needed, [`Guard::leave`].
    pub fn within<T>(
        &mut self,
        v: &Value,
        f: impl FnOnce(&mut Guard) -> T,
    ) -> Result<T, Recursion> {
        self.enter(v)?;
        let r = grow(|| f(self));
        self.leave(v);
        Ok(r)
    }
}

/// Walk every map and list of `v` under `guard`: `Err` when `v` contains itself or is nested
/// deeper than the guard allows. For walks that are simpler to write unguarded once the value
/// is known to be finite (each level of them must still call [`grow`]).
pub fn check(v: &Value, guard: &mut Guard) -> Result<(), Recursion> {
    match v {
        Value::Map(m) => guard.within(v, |g| {
            crate::map_read(m).values().try_for_each(|x| check(x, g))
        })?,
        Value::List(items, _) => guard.within(v, |g| items.iter().try_for_each(|x| check(x, g)))?,
        _ => Ok(()),
    }
}

thread_local! {
    static FAULT: RefCell<Option<Recursion>> = const { RefCell::new(None) };
}

/// Record that an infallible walk (printing, [`Value::deep_copy`]) stopped at `r`; the first
/// fault recorded since the last [`take_fault`] is kept.
pub fn note_fault(r: Recursion) {
    FAULT.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(r);
        }
    });
}

/// The fault recorded on this thread since the last call, if any (see [`note_fault`]).
pub fn take_fault() -> Option<Recursion> {
    FAULT.with(|f| f.borrow_mut().take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MapRef, MapType, map_write};
    use std::collections::BTreeMap;

    fn self_map() -> Value {
        let m = MapRef::new(MapType::Interface, BTreeMap::new());
        map_write(&m).insert("self".into(), Value::Map(m.clone()));
        Value::Map(m)
    }

    fn depth_of(v: &Value, g: &mut Guard) -> Result<usize, Recursion> {
        match v {
            Value::Map(m) => {
                let inner = crate::map_read(m).get("self").cloned();
                g.within(v, |g| match inner {
                    Some(x) => depth_of(&x, g).map(|d| d + 1),
                    None => Ok(1),
                })?
            }
            _ => Ok(0),
        }
    }

    #[test]
    fn a_map_holding_itself_is_a_cycle_after_go_s_threshold() {
        let mut g = Guard::unbounded();
        let e = depth_of(&self_map(), &mut g).unwrap_err();
        assert_eq!(
            e,
            Recursion::Cycle {
                via: "map[string]interface {}"
            }
        );
        assert_eq!(g.depth(), 0, "every enter is matched by a leave");
    }

    #[test]
    fn a_bounded_walk_stops_at_its_depth() {
        let mut g = Guard::with_max_depth(10);
        let e = depth_of(&self_map(), &mut g).unwrap_err();
        assert_eq!(e, Recursion::TooDeep { limit: 10 });
    }

    #[test]
    fn a_deep_acyclic_value_is_walked_without_overflowing_the_stack() {
        let mut v = Value::empty_map();
        for _ in 0..200_000 {
            let mut m = BTreeMap::new();
            m.insert("self".to_string(), v);
            v = Value::map(m);
        }
        // Run on a small thread stack: the guard grows it on the heap.
        let d = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let d = depth_of(&v, &mut Guard::unbounded());
                crate::drop_deep(v);
                d
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(d, Ok(200_001));
    }

    #[test]
    fn cyclic_values_compare_and_copy_without_overflowing() {
        let (a, b) = (self_map(), self_map());
        assert_eq!(a, b, "DeepEqual: a pair met again counts as equal");
        assert_eq!(
            a.try_deep_copy(),
            Err(Recursion::Cycle {
                via: "map[string]interface {}"
            })
        );
        let _ = take_fault();
        assert_eq!(a.deep_copy(), Value::Nil);
        assert!(matches!(take_fault(), Some(Recursion::Cycle { .. })));
    }

    #[test]
    fn deep_lists_inside_maps_are_freed_without_recursion() {
        let mut v = Value::list(vec![]);
        for i in 0..200_000 {
            v = if i % 2 == 0 {
                Value::list(vec![v])
            } else {
                let mut m = BTreeMap::new();
                m.insert("x".to_string(), v);
                Value::map(m)
            };
        }
        let mut chain = Value::list(vec![]);
        for _ in 0..200_000 {
            chain = Value::list(vec![chain]);
        }
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                drop(v);
                crate::drop_deep(chain);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn faults_are_taken_once() {
        note_fault(Recursion::TooDeep { limit: 1 });
        note_fault(Recursion::TooDeep { limit: 2 });
        assert_eq!(take_fault(), Some(Recursion::TooDeep { limit: 1 }));
        assert_eq!(take_fault(), None);
    }
}
