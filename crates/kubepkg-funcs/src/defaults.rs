//! Sprig's default, flow and reflection functions: `default`, `empty`, `coalesce`, `all`,
//! `any`, `ternary`, `fail`, `typeOf`/`typeIs`/`typeIsLike`/`kindOf`/`kindIs` and `deepEqual`.

use kubepkg_template::Function;
use kubepkg_value::Value;

use crate::args::{arg, s};
use crate::cast::empty;
use crate::{f, fv};

pub(crate) fn functions() -> Vec<Function> {
    vec![
        fv!("default", [Any], Any, |a| {
            let given = a.get(1);
            Ok(match given {
                Some(g) if !empty(g) => g.clone(),
                _ => arg(a, 0).clone(),
            })
        }),
        f!("empty", [Any], |a| Ok(empty(arg(a, 0)).into())),
        fv!("coalesce", [], Any, |a| Ok(a
            .iter()
            .find(|v| !empty(v))
            .cloned()
            .unwrap_or(Value::Nil))),
        fv!("all", [], Any, |a| Ok(a.iter().all(|v| !empty(v)).into())),
        fv!("any", [], Any, |a| Ok(a.iter().any(|v| !empty(v)).into())),
        f!("ternary", [Any, Any, Bool], |a| {
            Ok(if matches!(arg(a, 2), Value::Bool(true)) {
                arg(a, 0)
            } else {
                arg(a, 1)
            }
            .clone())
        }),
        f!("fail", [String], |a| Err(s(a, 0).to_string())),
        f!("typeOf", [Any], |a| Ok(arg(a, 0).type_name().into())),
        f!("typeIs", [String, Any], |a| Ok((s(a, 0)
            == arg(a, 1).type_name())
        .into())),
        f!("typeIsLike", [String, Any], |a| {
            let t = arg(a, 1).type_name();
            Ok((s(a, 0) == t || format!("*{}", s(a, 0)) == t).into())
        }),
        f!("kindOf", [Any], |a| Ok(arg(a, 0).kind_name().into())),
        f!("kindIs", [String, Any], |a| Ok((s(a, 0)
            == arg(a, 1).kind_name())
        .into())),
        f!("deepEqual", [Any, Any], |a| Ok(
            (arg(a, 0) == arg(a, 1)).into()
        )),
    ]
}
