//! Sprig's list functions. They take `interface{}` and accept any Go slice (Sprig checks the
//! reflect kind), return `[]interface{}` (except `slice`, which keeps the slice's type), and
//! report misuse with Sprig's texts (`Cannot push on type map`); a nil list makes Go's reflection
//! dereference nil, which the engine reports as Go's runtime error.

use std::sync::Arc;

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{ElemType, Value};

use crate::args::{arg, int};
use crate::cast;
use crate::{f, fv};

/// Go's panic text when reflection inspects a nil interface.
pub(crate) const NIL_DEREF: &str =
    "runtime error: invalid memory address or nil pointer dereference";

pub(crate) fn functions() -> Vec<Function> {
    vec![
        fv!("list", [], Any, |a| Ok(Value::list(a.to_vec()))),
        fv!("tuple", [], Any, |a| Ok(Value::list(a.to_vec()))),
        f!("push", [Any, Any], |a| push(a, "push")),
        f!("append", [Any, Any], |a| push(a, "push")),
        f!("mustPush", [Any, Any], |a| push(a, "push")),
        f!("mustAppend", [Any, Any], |a| push(a, "push")),
        f!("prepend", [Any, Any], prepend),
        f!("mustPrepend", [Any, Any], prepend),
        f!("first", [Any], |a| first_last(a, "first")),
        f!("mustFirst", [Any], |a| first_last(a, "first")),
        f!("last", [Any], |a| first_last(a, "last")),
        f!("mustLast", [Any], |a| first_last(a, "last")),
        f!("rest", [Any], |a| rest_initial(a, "rest")),
        f!("mustRest", [Any], |a| rest_initial(a, "rest")),
        f!("initial", [Any], |a| rest_initial(a, "initial")),
        f!("mustInitial", [Any], |a| rest_initial(a, "initial")),
        f!("reverse", [Any], reverse),
        f!("mustReverse", [Any], reverse),
        f!("uniq", [Any], uniq),
        f!("mustUniq", [Any], uniq),
        fv!("without", [Any], Any, without),
        fv!("mustWithout", [Any], Any, without),
        f!("has", [Any, Any], has),
        f!("mustHas", [Any, Any], has),
        fv!("slice", [Any], Any, slice),
        fv!("mustSlice", [Any], Any, slice),
        fv!("concat", [], Any, concat),
        f!("chunk", [Int, Any], chunk),
        f!("mustChunk", [Int, Any], chunk),
        f!("compact", [Any], compact),
        f!("mustCompact", [Any], compact),
        f!("until", [Int], |a| {
            let n = int(a, 0);
            until_step(0, n, if n < 0 { -1 } else { 1 }).map(int_list)
        }),
        f!("untilStep", [Int, Int, Int], |a| until_step(
            int(a, 0),
            int(a, 1),
            int(a, 2)
        )
        .map(int_list)),
        fv!("seq", [], Int, seq),
    ]
}

/// The elements of a Go slice, or Sprig's error naming the reflect kind.
pub(crate) fn elems(v: &Value, what: &str) -> Result<Vec<Value>, String> {
    match v {
        Value::List(items, _) => Ok(items.to_vec()),
        Value::Bytes(b) => Ok(b.iter().map(|x| Value::Int(i64::from(*x))).collect()),
        Value::Nil => Err(NIL_DEREF.into()),
        other => Err(format!("{what} {}", other.kind_name())),
    }
}

fn push(a: &[Value], _: &str) -> FuncResult {
    let mut l = elems(arg(a, 0), "Cannot push on type")?;
    l.push(arg(a, 1).clone());
    Ok(Value::list(l))
}

fn prepend(a: &[Value]) -> FuncResult {
    let mut l = elems(arg(a, 0), "Cannot prepend on type")?;
    l.insert(0, arg(a, 1).clone());
    Ok(Value::list(l))
}

fn first_last(a: &[Value], which: &str) -> FuncResult {
    let l = elems(arg(a, 0), &format!("Cannot find {which} on type"))?;
    let v = if which == "first" {
        l.first()
    } else {
        l.last()
    };
    Ok(v.cloned().unwrap_or(Value::Nil))
}

fn rest_initial(a: &[Value], which: &str) -> FuncResult {
    let l = elems(arg(a, 0), &format!("Cannot find {which} on type"))?;
    if l.is_empty() {
        return Ok(Value::list(Vec::new()));
    }
    Ok(Value::list(if which == "rest" {
        l[1..].to_vec()
    } else {
        l[..l.len() - 1].to_vec()
    }))
}

fn reverse(a: &[Value]) -> FuncResult {
    let mut l = elems(arg(a, 0), "Cannot find reverse on type")?;
    l.reverse();
    Ok(Value::list(l))
}

fn uniq(a: &[Value]) -> FuncResult {
    let l = elems(arg(a, 0), "Cannot find uniq on type")?;
    let mut out: Vec<Value> = Vec::new();
    for x in l {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    Ok(Value::list(out))
}

fn without(a: &[Value]) -> FuncResult {
    let l = elems(arg(a, 0), "Cannot find without on type")?;
    let omit = &a[1.min(a.len())..];
    Ok(Value::list(
        l.into_iter().filter(|x| !omit.contains(x)).collect(),
    ))
}

fn has(a: &[Value]) -> FuncResult {
    let hay = arg(a, 1);
    if hay.is_nil() {
        return Ok(false.into());
    }
    let l = elems(hay, "Cannot find has on type")?;
    Ok(l.contains(arg(a, 0)).into())
}

fn slice(a: &[Value]) -> FuncResult {
    let list = arg(a, 0);
    let (items, et): (Vec<Value>, ElemType) = match list {
        Value::List(items, t) => (items.to_vec(), *t),
        Value::Bytes(b) => {
            let n = b.len() as i64;
            if n == 0 {
                return Ok(Value::Nil);
            }
            let (st, en) = slice_bounds(a, n)?;
            return Ok(Value::Bytes(Arc::from(&b[st..en])));
        }
        Value::Nil => return Err(NIL_DEREF.into()),
        other => {
            return Err(format!(
                "list should be type of slice or array but {}",
                other.kind_name()
            ));
        }
    };
    if items.is_empty() {
        return Ok(Value::Nil);
    }
    let (st, en) = slice_bounds(a, items.len() as i64)?;
    Ok(Value::List(Arc::new(items[st..en].to_vec()), et))
}

fn slice_bounds(a: &[Value], len: i64) -> Result<(usize, usize), String> {
    let start = if a.len() > 1 { cast::to_int(&a[1]) } else { 0 };
    let end = if a.len() < 3 {
        len
    } else {
        cast::to_int(&a[2])
    };
    if start < 0 || end < start || end > len {
        return Err("reflect.Value.Slice: slice index out of bounds".into());
    }
    Ok((start as usize, end as usize))
}

fn concat(a: &[Value]) -> FuncResult {
    let mut out = Vec::new();
    for l in a {
        match l {
            Value::Nil => return Err(NIL_DEREF.into()),
            Value::List(..) | Value::Bytes(_) => out.extend(elems(l, "")?),
            other => return Err(format!("Cannot concat type {} as list", other.kind_name())),
        }
    }
    Ok(Value::list(out))
}

fn chunk(a: &[Value]) -> FuncResult {
    let size = int(a, 0);
    let l = elems(arg(a, 1), "Cannot chunk type")?;
    let n = l.len() as i64;
    let cs = ((n - 1) as f64 / size as f64).floor() + 1.0;
    if !cs.is_finite() || cs < 0.0 || cs > kubepkg_template::budget::current().max_list_len as f64 {
        return Err("runtime error: makeslice: len out of range".into());
    }
    let cs = cs as i64;
    let mut out = Vec::with_capacity(cs as usize);
    for i in 0..cs {
        let mut clen = size;
        if i == cs - 1 {
            clen = ((n as f64) % (size as f64)).floor() as i64;
            if clen == 0 {
                clen = size;
            }
        }
        if clen < 0 {
            return Err("runtime error: makeslice: len out of range".into());
        }
        let mut c = Vec::with_capacity(clen as usize);
        for j in 0..clen {
            let ix = i * size + j;
            match l.get(ix as usize) {
                Some(x) if ix >= 0 => c.push(x.clone()),
                _ => {
                    return Err("reflect: slice index out of range".into());
                }
            }
        }
        out.push(Value::list(c));
    }
    Ok(Value::List(Arc::new(out), ElemType::InterfaceSlices))
}

fn compact(a: &[Value]) -> FuncResult {
    let l = elems(arg(a, 0), "Cannot compact on type")?;
    Ok(Value::list(
        l.into_iter().filter(|x| !cast::empty(x)).collect(),
    ))
}

fn int_list(v: Vec<i64>) -> Value {
    Value::List(
        Arc::new(v.into_iter().map(Value::Int).collect()),
        ElemType::Int,
    )
}

/// Sprig `untilStep`.
pub(crate) fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, String> {
    // Sprig's loop, with its length known first so that a huge list is refused before it is
    // built (Go would exhaust memory instead).
    let span = i128::from(stop) - i128::from(start);
    let step_w = i128::from(step);
    let len = if (span > 0 && step_w > 0) || (span < 0 && step_w < 0) {
        (span.abs() + step_w.abs() - 1) / step_w.abs()
    } else {
        0
    };
    kubepkg_template::budget::check_list(len as u128)?;
    let mut v = Vec::with_capacity(len as usize);
    let mut i = start;
    if len == 0 {
        return Ok(v);
    }
    if stop < start {
        while i > stop {
            v.push(i);
            i = i.wrapping_add(step);
        }
        return Ok(v);
    }
    while i < stop {
        v.push(i);
        match i.checked_add(step) {
            Some(n) => i = n,
            None => break,
        }
    }
    Ok(v)
}

fn seq(a: &[Value]) -> FuncResult {
    let p: Vec<i64> = (0..a.len()).map(|i| int(a, i)).collect();
    let list = match p.len() {
        1 => {
            let (start, end) = (1, p[0]);
            let inc = if end < start { -1 } else { 1 };
            until_step(start, end + inc, inc)?
        }
        2 => {
            let (start, end) = (p[0], p[1]);
            let step = if end < start { -1 } else { 1 };
            until_step(start, end + step, step)?
        }
        3 => {
            let (start, step, end) = (p[0], p[1], p[2]);
            let mut inc = 1;
            if end < start {
                inc = -1;
                if step > 0 {
                    return Ok("".into());
                }
            }
            until_step(start, end + inc, step)?
        }
        _ => return Ok("".into()),
    };
    Ok(list
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" ")
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::list(v.iter().map(|i| Value::Int(*i)).collect())
    }

    // Expected values from Sprig's docs (lists.md, integer_slice.md).
    #[test]
    fn seq_and_until_match_sprig_docs() {
        let s = |p: &[i64]| seq(&p.iter().map(|i| Value::Int(*i)).collect::<Vec<_>>()).unwrap();
        assert_eq!(s(&[5]), Value::str("1 2 3 4 5"));
        assert_eq!(s(&[-3]), Value::str("1 0 -1 -2 -3"));
        assert_eq!(s(&[0, 2]), Value::str("0 1 2"));
        assert_eq!(s(&[2, -2]), Value::str("2 1 0 -1 -2"));
        assert_eq!(s(&[0, 2, 10]), Value::str("0 2 4 6 8 10"));
        assert_eq!(s(&[0, -2, -5]), Value::str("0 -2 -4"));
        assert_eq!(until_step(3, 6, 2).unwrap(), vec![3, 5]);
    }

    #[test]
    fn list_errors_name_the_kind() {
        let e = push(&[Value::empty_map(), Value::Int(1)], "push").unwrap_err();
        assert_eq!(e, "Cannot push on type map");
        let c = chunk(&[Value::Int(2), ints(&[1, 2, 3])]).unwrap();
        assert_eq!(
            c,
            Value::List(
                Arc::new(vec![ints(&[1, 2]), ints(&[3])]),
                ElemType::InterfaceSlices
            )
        );
        assert_eq!(c.type_name(), "[][]interface {}");
    }
}
