//! Sprig's dictionary functions over Go `map[string]interface{}`. Go maps are references, so
//! `set`, `unset`, `merge` and `mergeOverwrite` change the map in place (and return it); merging
//! follows dario.cat/mergo's rules (nested maps merged, empty destination values filled,
//! overwrite mode replacing everything but nested maps).

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{MapRef, Value, map_read, map_write};

use crate::args::{arg, s};
use crate::cast;
use crate::lists::NIL_DEREF;
use crate::{f, fv};

pub(crate) fn functions() -> Vec<Function> {
    vec![
        fv!("dict", [], Any, dict),
        f!("get", [Map, String], |a| {
            Ok(map_of(arg(a, 0))
                .and_then(|m| map_read(&m).get(s(a, 1)).cloned())
                .unwrap_or_else(|| "".into()))
        }),
        f!("set", [Map, String, Any], |a| match arg(a, 0) {
            Value::Map(m) => {
                map_write(m).insert(s(a, 1).to_string(), arg(a, 2).clone());
                Ok(arg(a, 0).clone())
            }
            _ => Err("assignment to entry in nil map".into()),
        }),
        f!("unset", [Map, String], |a| {
            match arg(a, 0) {
                Value::Map(m) => {
                    map_write(m).remove(s(a, 1));
                    Ok(arg(a, 0).clone())
                }
                // A nil map prints as `map[]`.
                _ => Ok(Value::empty_map()),
            }
        }),
        f!("hasKey", [Map, String], |a| {
            Ok(map_of(arg(a, 0))
                .is_some_and(|m| map_read(&m).contains_key(s(a, 1)))
                .into())
        }),
        fv!("pluck", [String], Map, |a| {
            let key = s(a, 0);
            Ok(Value::list(
                a[1.min(a.len())..]
                    .iter()
                    .filter_map(map_of)
                    .filter_map(|m| map_read(&m).get(key).cloned())
                    .collect(),
            ))
        }),
        fv!("keys", [], Map, |a| {
            Ok(Value::str_list(a.iter().filter_map(map_of).flat_map(|m| {
                map_read(&m).keys().cloned().collect::<Vec<_>>()
            })))
        }),
        fv!("pick", [Map], String, |a| {
            let src = map_of(arg(a, 0));
            let mut out = std::collections::BTreeMap::new();
            if let Some(m) = src {
                let m = map_read(&m);
                for k in a[1..].iter().filter_map(Value::as_str) {
                    if let Some(v) = m.get(k) {
                        out.insert(k.to_string(), v.clone());
                    }
                }
            }
            Ok(Value::map(out))
        }),
        fv!("omit", [Map], String, |a| {
            let omit: Vec<&str> = a[1..].iter().filter_map(Value::as_str).collect();
            let out = map_of(arg(a, 0))
                .map(|m| {
                    map_read(&m)
                        .iter()
                        .filter(|(k, _)| !omit.contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            Ok(Value::map(out))
        }),
        fv!("merge", [Map], Map, |a| Ok(merge(a, false))),
        fv!("mustMerge", [Map], Map, |a| Ok(merge(a, false))),
        fv!("mergeOverwrite", [Map], Map, |a| Ok(merge(a, true))),
        fv!("mustMergeOverwrite", [Map], Map, |a| Ok(merge(a, true))),
        f!("values", [Map], |a| {
            Ok(Value::list(
                map_of(arg(a, 0))
                    .map(|m| map_read(&m).values().cloned().collect())
                    .unwrap_or_default(),
            ))
        }),
        f!("deepCopy", [Any], deep_copy),
        f!("mustDeepCopy", [Any], deep_copy),
        fv!("dig", [], Any, dig),
    ]
}

/// mitchellh/copystructure's `Copy` (a nil interface makes reflection fail).
fn deep_copy(a: &[Value]) -> FuncResult {
    match arg(a, 0) {
        Value::Nil => Err("reflect: call of reflect.Value.Type on zero Value".into()),
        v => Ok(v.deep_copy()),
    }
}

fn map_of(v: &Value) -> Option<MapRef> {
    match v {
        Value::Map(m) => Some(m.clone()),
        _ => None,
    }
}

fn dict(a: &[Value]) -> FuncResult {
    let mut m = std::collections::BTreeMap::new();
    let mut i = 0;
    while i < a.len() {
        let key = cast::strval(&a[i]);
        let v = a.get(i + 1).cloned().unwrap_or_else(|| "".into());
        m.insert(key, v);
        i += 2;
    }
    Ok(Value::map(m))
}

/// mergo's emptiness test for a destination value.
fn mergo_empty(v: Option<&Value>) -> bool {
    match v {
        None => true,
        Some(Value::Time(_)) => false,
        Some(Value::Object(_)) => false,
        Some(x) => cast::empty(x),
    }
}

fn merge(a: &[Value], overwrite: bool) -> Value {
    let dst = match arg(a, 0) {
        Value::Map(m) => m.clone(),
        _ => match Value::empty_map() {
            Value::Map(m) => m,
            _ => unreachable!("empty_map is a map"),
        },
    };
    for src in &a[1.min(a.len())..] {
        if let Value::Map(src) = src {
            merge_into(&dst, src, overwrite, 0);
        }
    }
    Value::Map(dst)
}

/// mergo's `deepMerge` for two `map[string]interface{}` (never holding two locks at once, so a
/// map merged into itself cannot deadlock).
fn merge_into(dst: &MapRef, src: &MapRef, overwrite: bool, depth: usize) {
    if depth > 10_000 {
        return;
    }
    let entries: Vec<(String, Value)> = map_read(src)
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, sv) in entries {
        if sv.is_nil() {
            if overwrite {
                map_write(dst).insert(k, Value::Nil);
            }
            continue;
        }
        let dv = map_read(dst).get(&k).cloned();
        match (&sv, &dv) {
            (Value::Map(sm), Some(Value::Map(dm))) => {
                if !MapRef::ptr_eq(sm, dm) {
                    merge_into(dm, sm, overwrite, depth + 1);
                }
                if !mergo_empty(dv.as_ref()) {
                    continue;
                }
            }
            (Value::List(..) | Value::Bytes(_), _) => {
                if !mergo_empty(dv.as_ref()) && !overwrite {
                    continue;
                }
                map_write(dst).insert(k, sv);
                continue;
            }
            _ => {}
        }
        if overwrite || mergo_empty(dv.as_ref()) {
            map_write(dst).insert(k, sv);
        }
    }
}

/// Go's `v.(map[string]interface{})`: only that exact type passes (not `map[string]string`, not
/// the named `common.Values`).
fn type_assert_map(v: &Value) -> Result<MapRef, String> {
    match v {
        Value::Map(m) if m.map_type() == kubepkg_value::MapType::Interface => Ok(m.clone()),
        Value::Nil => {
            Err("interface conversion: interface {} is nil, not map[string]interface {}".into())
        }
        other => Err(format!(
            "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
            other.type_name()
        )),
    }
}

fn dig(a: &[Value]) -> FuncResult {
    if a.len() < 3 {
        return Err("dig needs at least three arguments".into());
    }
    let mut dict = type_assert_map(&a[a.len() - 1])?;
    let def = a[a.len() - 2].clone();
    let mut keys = Vec::new();
    for k in &a[..a.len() - 2] {
        match k {
            Value::String(s) => keys.push(s.to_string()),
            Value::Nil => {
                return Err("interface conversion: interface {} is nil, not string".into());
            }
            other => {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not string",
                    other.type_name()
                ));
            }
        }
    }
    for (i, k) in keys.iter().enumerate() {
        let step = map_read(&dict).get(k).cloned();
        let Some(step) = step else { return Ok(def) };
        if i == keys.len() - 1 {
            return Ok(step);
        }
        dict = type_assert_map(&step)?;
    }
    let _ = NIL_DEREF;
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn m(pairs: &[(&str, Value)]) -> Value {
        Value::map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
        )
    }

    // From Sprig's dicts.md: merge keeps dst values, mergeOverwrite replaces them.
    #[test]
    fn merge_follows_mergo() {
        let dst = m(&[
            ("default", "default".into()),
            ("overwrite", "me".into()),
            ("key", m(&[("true", true.into())])),
        ]);
        let src = m(&[
            ("overwrite", "overwritten".into()),
            ("key", m(&[("false", false.into())])),
        ]);
        let out = merge(&[dst.clone(), src.clone()], false);
        let Value::Map(o) = &out else { panic!() };
        assert_eq!(map_read(o).get("overwrite"), Some(&Value::str("me")));
        let out = merge(&[dst, src], true);
        let Value::Map(o) = &out else { panic!() };
        assert_eq!(
            map_read(o).get("overwrite"),
            Some(&Value::str("overwritten"))
        );
        let key = map_read(o).get("key").cloned().unwrap();
        assert_eq!(key, m(&[("true", true.into()), ("false", false.into())]));
    }

    #[test]
    fn dig_walks_and_defaults() {
        let d = m(&[("a", m(&[("b", "c".into())]))]);
        assert_eq!(
            dig(&["a".into(), "b".into(), "x".into(), d.clone()]).unwrap(),
            Value::str("c")
        );
        assert_eq!(
            dig(&["a".into(), "z".into(), "x".into(), d]).unwrap(),
            Value::str("x")
        );
    }
}
