//! [`kubepkg_funcs::CHANGE_THEIR_ARGUMENTS`] names exactly the functions that change a map they
//! are given: every function of Helm's table that takes a map (or any value, or a list that
//! holds a map) is called with fresh nested maps, and those whose call leaves a map different
//! from before must be the list — the engine runs templates side by side only when none of them
//! can call one, so a function missing from it would let one template's change reach another
//! out of Helm's order.

use kubepkg_template::{ArgType, Value};
use std::collections::BTreeSet;

/// A fresh map with a nested table and a scalar, as `.Values` holds.
fn fresh_map(tag: &str) -> Value {
    let mut inner = std::collections::BTreeMap::new();
    inner.insert(format!("{tag}-inner"), Value::Int(1));
    let mut m = std::collections::BTreeMap::new();
    m.insert("a".to_string(), Value::map(inner));
    m.insert(format!("{tag}-scalar"), Value::str("x"));
    Value::map(m)
}

/// An argument of the parameter's type; `None` for types no map can reach (time, objects).
fn argument(t: ArgType, tag: &str) -> Option<Value> {
    Some(match t {
        ArgType::Any | ArgType::Map => fresh_map(tag),
        ArgType::List => Value::list(vec![fresh_map(tag)]),
        ArgType::String | ArgType::StringBytes => Value::str("a"),
        ArgType::Int | ArgType::Int64 => Value::Int(1),
        ArgType::Float64 => Value::Float(1.0),
        ArgType::Bool => Value::Bool(true),
        ArgType::StringList => Value::str_list(["a"]),
        ArgType::Bytes => Value::Bytes(std::sync::Arc::from(&b"a"[..])),
        ArgType::Time | ArgType::Object(_) => return None,
    })
}

fn reaches_a_map(t: ArgType) -> bool {
    matches!(t, ArgType::Any | ArgType::Map | ArgType::List)
}

#[test]
fn the_functions_that_change_their_arguments_are_listed() {
    let mut changed = BTreeSet::new();
    let mut called = 0;
    for f in kubepkg_funcs::helm_functions() {
        let types: Vec<ArgType> = f
            .params
            .iter()
            .copied()
            .chain(f.variadic.into_iter().flat_map(|t| [t, t]))
            .collect();
        if !types.iter().copied().any(reaches_a_map) {
            continue;
        }
        let Some(args) = types
            .iter()
            .enumerate()
            .map(|(i, t)| argument(*t, &format!("arg{i}")))
            .collect::<Option<Vec<Value>>>()
        else {
            continue;
        };
        let before: Vec<String> = args
            .iter()
            .map(kubepkg_template::fmt::format_value)
            .collect();
        // An error is an answer too: only what the call did to its arguments counts.
        let _ = (f.call)(&args);
        called += 1;
        let after: Vec<String> = args
            .iter()
            .map(kubepkg_template::fmt::format_value)
            .collect();
        if before != after {
            changed.insert(f.name);
        }
    }
    assert!(
        called > 50,
        "only {called} functions take a map or any value"
    );
    let listed: BTreeSet<&str> = kubepkg_funcs::CHANGE_THEIR_ARGUMENTS.into_iter().collect();
    assert_eq!(changed, listed);
}
