//! Sprig's list functions over Helm's named slice and map types.
//!
//! Some values Helm hands to templates are Go slices or maps under a named type:
//! `.Capabilities.APIVersions` is a `VersionSet` (`[]string`), `.Files` a `Files`
//! (`map[string][]byte`). kubepkg models them as [`kubepkg_value::GoObject`]s with fields and
//! methods. Sprig's list functions inspect their arguments with reflection
//! (`reflect.ValueOf(list).Kind()`), so in Go `has "v1" .Capabilities.APIVersions` works as on
//! any slice; the functions named in [`REFLECTING`] therefore receive such an object as the
//! plain list or map it is ([`kubepkg_value::GoObject::to_plain`]). Arguments that are not such
//! objects pass through untouched, without a copy.

use std::collections::HashMap;
use std::sync::LazyLock;

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::Value;

/// The functions whose original implementations the wrappers call, by name.
static ORIGINALS: LazyLock<HashMap<&'static str, Function>> = LazyLock::new(|| {
    crate::helm_functions_as_declared()
        .into_iter()
        .map(|f| (f.name, f))
        .collect()
});

fn is_object_collection(v: &Value) -> bool {
    matches!(v, Value::Object(o) if matches!(o.kind(), "slice" | "map"))
}

/// Call the original `name` with named slices and maps replaced by their plain values.
fn call_plain(name: &str, args: &[Value]) -> FuncResult {
    let Some(f) = ORIGINALS.get(name) else {
        return Err(format!("function {name:?} not defined"));
    };
    if !args.iter().any(is_object_collection) {
        return (f.call)(args);
    }
    let plain: Vec<Value> = args
        .iter()
        .map(|a| match a {
            Value::Object(o) if is_object_collection(a) => o.to_plain(),
            other => other.clone(),
        })
        .collect();
    (f.call)(&plain)
}

macro_rules! reflecting {
    ($($name:literal => $fn:ident),* $(,)?) => {
        $(fn $fn(a: &[Value]) -> FuncResult { call_plain($name, a) })*

        /// The names of the functions that see named slices and maps as plain ones.
        pub const REFLECTING: &[&str] = &[$($name),*];

        /// `funcs` with each function named in [`REFLECTING`] wrapped as described above.
        pub(crate) fn wrap(mut funcs: Vec<Function>) -> Vec<Function> {
            for f in &mut funcs {
                match f.name {
                    $($name => f.call = $fn,)*
                    _ => {}
                }
            }
            funcs
        }
    };
}

reflecting! {
    "has" => has, "mustHas" => must_has, "join" => join, "sortAlpha" => sort_alpha,
    "first" => first, "mustFirst" => must_first, "last" => last, "mustLast" => must_last,
    "uniq" => uniq, "mustUniq" => must_uniq, "without" => without, "mustWithout" => must_without,
    "toJson" => to_json, "mustToJson" => must_to_json, "toPrettyJson" => to_pretty_json,
    "toRawJson" => to_raw_json, "toYaml" => to_yaml, "mustToYaml" => must_to_yaml,
    "toYamlPretty" => to_yaml_pretty, "toToml" => to_toml, "keys" => keys,
    "concat" => concat, "rest" => rest, "initial" => initial, "reverse" => reverse,
}
