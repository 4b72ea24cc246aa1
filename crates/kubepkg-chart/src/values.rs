//! Values: Helm's coalescing of chart defaults with user values, the path look-ups used by
//! dependency conditions, and merging of user value files.
//!
//! The rules are those of `chartutil.CoalesceValues` / `MergeValues`: maps merge key by key,
//! lists and scalars given by the user replace the default, a `null` from the user deletes the
//! key (coalesce) or is kept (merge, used for `import-values`), subcharts read their values under
//! their name (or alias), and `global` is copied from parent to child.

use crate::chart::Chart;
use kubepkg_gostd::slog;
use kubepkg_value::{MapRef, Value, map_read, map_write};
use std::collections::BTreeMap;
use std::io::Read;

/// The largest values file (`-f`, `--set-file`, a package's `-f`) kubepkg reads by default:
/// 64 MiB. Helm reads any size (`-f /dev/zero` never ends; a 200 MB file took 2 GB).
pub const MAX_VALUES_FILE: u64 = 64 << 20;
/// The environment variable that raises [`MAX_VALUES_FILE`] (a number of bytes).
pub const MAX_VALUES_FILE_ENV: &str = "KUBEPKG_MAX_VALUES_FILE";

/// Why a values file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadValuesError {
    /// The file could not be opened or read (Go's text: `open x.yaml: no such file or
    /// directory`).
    #[error("open {path}: {text}")]
    Open { path: String, text: String },
    /// The file is larger than the limit.
    #[error(
        "{path}: the file is larger than kubepkg's limit of {limit} bytes for a values file; set {MAX_VALUES_FILE_ENV}=BYTES to raise it"
    )]
    TooLarge { path: String, limit: u64 },
    /// The file is not UTF-8 text (go-yaml's reader refuses it; Helm's text).
    #[error("failed to parse {path}: {source}")]
    NotText {
        path: String,
        #[source]
        source: kubepkg_yaml::YamlError,
    },
    /// The limit's variable is not a number.
    #[error("{MAX_VALUES_FILE_ENV}={value:?}: want a whole number of bytes")]
    BadLimit { value: String },
}

/// [`read_values_file`] as YAML text: bytes that are not UTF-8 are refused as `helm -f`
/// refuses them.
pub fn read_values_text(path: &str) -> Result<String, ReadValuesError> {
    let raw = read_values_file(path)?;
    String::from_utf8(raw).map_err(|e| ReadValuesError::NotText {
        path: path.to_string(),
        source: kubepkg_yaml::YamlError::Document {
            document: 1,
            source: Box::new(kubepkg_yaml::YamlError::Syntax {
                line: None,
                message: kubepkg_yaml::decode::utf8_error(e.as_bytes()).to_string(),
            }),
        },
    })
}

/// Go's text for common I/O errors.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// The values-file limit: [`MAX_VALUES_FILE`] or `$KUBEPKG_MAX_VALUES_FILE`.
pub fn values_file_limit() -> Result<u64, ReadValuesError> {
    match std::env::var(MAX_VALUES_FILE_ENV) {
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| ReadValuesError::BadLimit { value: v }),
        Err(_) => Ok(MAX_VALUES_FILE),
    }
}

/// Read a user's values file (`-f`, `--set-file`; `-` is standard input), streamed and
/// stopped at the limit ([`values_file_limit`]), so `/dev/zero` or a huge file is refused
/// after reading at most the limit. The one reader of values files for every verb.
pub fn read_values_file(path: &str) -> Result<Vec<u8>, ReadValuesError> {
    let limit = values_file_limit()?;
    let open_err = |e: std::io::Error| ReadValuesError::Open {
        path: path.to_string(),
        text: io_text(&e),
    };
    let reader: Box<dyn Read> = if path.trim() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(open_err)?)
    };
    let mut buf = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(open_err)?;
    if buf.len() as u64 > limit {
        return Err(ReadValuesError::TooLarge {
            path: if path.trim() == "-" {
                "standard input".into()
            } else {
                path.to_string()
            },
            limit,
        });
    }
    Ok(buf)
}

/// Deep copy of a value tree (Go's `copystructure.Copy`); maps are fresh, not shared, and
/// plain `map[string]interface {}`. A value that contains itself (a template's `set` can make
/// one) copies as nil and records the cycle ([`kubepkg_value::walk::note_fault`]).
pub fn deep_copy(v: &Value) -> Value {
    v.copy_with(&mut kubepkg_value::walk::Guard::unbounded(), &|_| {
        kubepkg_value::MapType::Interface
    })
    .unwrap_or_else(|r| {
        kubepkg_value::walk::note_fault(r);
        Value::Nil
    })
}

fn as_map(v: &Value) -> Option<&MapRef> {
    match v {
        Value::Map(m) => Some(m),
        _ => None,
    }
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Float(f) => kubepkg_gostd::strconv::format_float(*f, 'g', -1, 64),
        Value::List(..) => "[...]".into(),
        _ => String::new(),
    }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

fn is_nil(v: &Value) -> bool {
    matches!(v, Value::Nil)
}

/// `CoalesceValues(chart, vals)`: a deep copy of `vals` with the chart's (and its subcharts')
/// defaults coalesced in.
pub fn coalesce_values(chart: &Chart, vals: &Value) -> Result<Value, String> {
    coalesce_copy(chart, vals, false, false)
}

/// [`coalesce_values`] of values nothing writes any more (the coalesced values a chart's
/// dependency conditions are read from, which it passes on to its subcharts): `vals` is copied
/// only as far as coalescing and the reader use it ([`MapRef::frozen_copy`]).
pub(crate) fn coalesce_frozen_values(chart: &Chart, vals: &Value) -> Result<Value, String> {
    coalesce_copy(chart, vals, false, true)
}

/// `MergeValues(chart, vals)`: like [`coalesce_values`] but nulls are kept.
pub fn merge_values(chart: &Chart, vals: &Value) -> Result<Value, String> {
    coalesce_copy(chart, vals, true, false)
}

/// A deep copy of `vals` (an empty map unless it is one) with the chart's defaults coalesced
/// in, nulls kept when `merge`; made as far as it is used when `vals` is `frozen`.
fn coalesce_copy(chart: &Chart, vals: &Value, merge: bool, frozen: bool) -> Result<Value, String> {
    let copied = if frozen {
        kubepkg_value::frozen_copy_of(vals, true, false)
    } else {
        deep_copy(vals)
    };
    let copy = match copied {
        Value::Map(m) => m,
        _ => match Value::empty_map() {
            Value::Map(m) => m,
            _ => unreachable!("empty_map is a map"),
        },
    };
    coalesce(chart, &copy, "", merge)?;
    Ok(Value::Map(copy))
}

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

fn coalesce(chart: &Chart, dest: &MapRef, prefix: &str, merge: bool) -> Result<(), String> {
    coalesce_chart_values(chart, dest, prefix, merge);
    coalesce_deps(chart, dest, prefix, merge)
}

fn coalesce_deps(chart: &Chart, dest: &MapRef, prefix: &str, merge: bool) -> Result<(), String> {
    for sub in &chart.dependencies {
        let existing = map_read(dest).get(sub.name()).cloned();
        let dv = match existing {
            None => {
                let m = Value::empty_map();
                map_write(dest).insert(sub.name().to_string(), m.clone());
                m
            }
            Some(v) if is_table(&v) => v,
            Some(v) => {
                return Err(format!(
                    "type mismatch on {}: %!t({}={})",
                    sub.name(),
                    v.type_name(),
                    scalar_text(&v)
                ));
            }
        };
        let Some(dvmap) = as_map(&dv) else { continue };
        let sub_prefix = concat_prefix(prefix, chart.name());
        coalesce_globals(dvmap, dest, &sub_prefix);
        coalesce(sub, dvmap, &sub_prefix, merge)?;
    }
    Ok(())
}

/// Helm's values coalescing logs through Go's `log.Printf`, which Helm 4's CLI routes to its
/// slog handler at level INFO.
fn log_printf(msg: String) {
    slog::log(slog::Record::info(msg));
}

/// Go's `%v` of a value in a coalescing warning.
fn go_v(v: &Value) -> String {
    kubepkg_template::fmt::format_value(v)
}

/// Copy the parent's `global` table into the child's (`coalesceGlobals`).
fn coalesce_globals(dest: &MapRef, src: &MapRef, prefix: &str) {
    let dg = match map_read(dest).get("global").cloned() {
        None => BTreeMap::new(),
        Some(Value::Map(m)) => map_read(&m).clone(),
        Some(_) => {
            log_printf(
                "warning: skipping globals because destination global is not a table.".into(),
            );
            return;
        }
    };
    let sg = match map_read(src).get("global").cloned() {
        None => BTreeMap::new(),
        Some(Value::Map(m)) => map_read(&m).clone(),
        Some(_) => {
            log_printf("warning: skipping globals because source global is not a table.".into());
            return;
        }
    };
    let mut dg = dg;
    for (key, val) in sg {
        if let Value::Map(vm) = &val {
            let vv = Value::map(map_read(vm).clone());
            match dg.get(&key) {
                None => {
                    dg.insert(key, vv);
                }
                Some(Value::Map(destv)) => {
                    if let Value::Map(vvm) = &vv {
                        coalesce_tables_full_key(vvm, destv, &concat_prefix(prefix, &key), true);
                    }
                    dg.insert(key, vv);
                }
                Some(_) => {
                    log_printf(format!(
                        "Conflict: cannot merge map onto non-map for {}. Skipping.",
                        kubepkg_gostd::strconv::quote(&key)
                    ));
                }
            }
        } else if dg.get(&key).is_some_and(is_table) {
            log_printf(format!("key {key} is table. Skipping"));
        } else {
            dg.insert(key, val);
        }
    }
    map_write(dest).insert("global".into(), Value::map(dg));
}

/// `coalesceValues`: the chart's defaults coalesced into `v`. Helm deep-copies the defaults,
/// removes their nulls (unless merging) and coalesces the copy; here the defaults are read as
/// they are and only what `v` takes from them is copied (an umbrella's defaults hold every
/// subchart's, most of which the destination already has by then).
fn coalesce_chart_values(chart: &Chart, v: &MapRef, prefix: &str, merge: bool) {
    let sub_prefix = concat_prefix(prefix, chart.name());
    let Value::Map(defaults) = &chart.values else {
        return;
    };
    for (key, val) in map_read(defaults).iter() {
        let existing = map_read(v).get(key).cloned();
        match existing {
            Some(value) => {
                if is_nil(&value) && !merge {
                    map_write(v).remove(key);
                } else if let Value::Map(dest) = &value {
                    if let Value::Map(src) = val {
                        let merge = merge || chart.dependencies.iter().any(|d| d.name() == key);
                        coalesce_defaults(
                            dest,
                            src,
                            &concat_prefix(&sub_prefix, key),
                            merge,
                            !merge,
                        );
                    } else if !is_nil(val) {
                        log_printf(format!(
                            "warning: skipped value for {sub_prefix}.{key}: Not a table."
                        ));
                    }
                }
            }
            None => {
                if !merge && is_nil(val) {
                    continue;
                }
                map_write(v).insert(key.clone(), copy_default(val, !merge));
            }
        }
    }
}

/// A default as Helm's copy of the defaults holds it: deep-copied, and without the nulls of
/// its tables when `without_nils`. A chart's defaults are never written once loaded (nor the
/// coalesced values that become an umbrella's defaults), so the copy is made only as far as
/// it is used ([`MapRef::frozen_copy`]): an umbrella's values are coalesced three times (for
/// the dependency conditions, for import-values and for the render), and the subcharts'
/// defaults were copied whole each time.
fn copy_default(val: &Value, without_nils: bool) -> Value {
    kubepkg_value::frozen_copy_of(val, true, without_nils)
}

/// [`coalesce_tables_full_key`] from a chart's defaults, which stay as they are: what `dst`
/// takes is copied ([`copy_default`]), and the defaults are read as if their nulls were
/// removed when `without_nils` — what Helm's coalescing of its copy of them gives.
fn coalesce_defaults(dst: &MapRef, src: &MapRef, prefix: &str, merge: bool, without_nils: bool) {
    // A copy of `src` nobody has used yet already holds what coalescing would put in it (and
    // warns of nothing): the copies of a default made by the earlier coalescings.
    if MapRef::ptr_eq(dst, src) || dst.is_unmade_copy_of(src, without_nils) {
        return;
    }
    for (key, val) in map_read(src).iter() {
        if without_nils && is_nil(val) {
            continue;
        }
        let dv = map_read(dst).get(key).cloned();
        let full_key = || concat_prefix(prefix, key);
        match dv {
            // A null in `dst` deletes the key when the default is not null (Helm first sets the
            // default to null, remembering which were not).
            Some(Value::Nil) => {
                if !merge && !is_nil(val) {
                    map_write(dst).remove(key);
                }
            }
            None => {
                map_write(dst).insert(key.clone(), copy_default(val, without_nils));
            }
            Some(dv) => {
                if let Value::Map(sv) = val {
                    if let Value::Map(dm) = &dv {
                        coalesce_defaults(dm, sv, &full_key(), merge, without_nils);
                    } else {
                        log_printf(format!(
                            "warning: cannot overwrite table with non table for {} ({})",
                            full_key(),
                            go_v(&copy_default(val, without_nils))
                        ));
                    }
                } else if is_table(&dv) && !is_nil(val) {
                    log_printf(format!(
                        "warning: destination for {} is a table. Ignoring non-table value ({})",
                        full_key(),
                        go_v(val)
                    ));
                }
            }
        }
    }
}

/// `CoalesceTables(dst, src)` (`MergeTables` when `merge`): fill `dst` from `src` without
/// overriding what `dst` has.
pub fn coalesce_tables(dst: &MapRef, src: &MapRef, merge: bool) {
    coalesce_tables_full_key(dst, src, "", merge);
}

/// `coalesceTablesFullKey`: [`coalesce_tables`] whose warnings name each key under `prefix`.
fn coalesce_tables_full_key(dst: &MapRef, src: &MapRef, prefix: &str, merge: bool) {
    if MapRef::ptr_eq(dst, src) {
        return;
    }
    let src_non_nil: std::collections::HashSet<String> = map_read(src)
        .iter()
        .filter(|(_, v)| !is_nil(v))
        .map(|(k, _)| k.clone())
        .collect();
    {
        let nil_keys: Vec<String> = map_read(dst)
            .iter()
            .filter(|(_, v)| is_nil(v))
            .map(|(k, _)| k.clone())
            .collect();
        let mut s = map_write(src);
        for k in nil_keys {
            s.insert(k, Value::Nil);
        }
    }
    let entries: Vec<(String, Value)> = map_read(src)
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, val) in entries {
        let dv = map_read(dst).get(&key).cloned();
        let full_key = || concat_prefix(prefix, &key);
        match dv {
            Some(Value::Nil) if !merge && src_non_nil.contains(&key) => {
                map_write(dst).remove(&key);
            }
            None => {
                map_write(dst).insert(key, val);
            }
            Some(dv) => {
                if let Value::Map(sv) = &val {
                    if let Value::Map(dm) = &dv {
                        coalesce_tables_full_key(dm, sv, &full_key(), merge);
                    } else {
                        log_printf(format!(
                            "warning: cannot overwrite table with non table for {} ({})",
                            full_key(),
                            go_v(&val)
                        ));
                    }
                } else if is_table(&dv) && !is_nil(&val) {
                    log_printf(format!(
                        "warning: destination for {} is a table. Ignoring non-table value ({})",
                        full_key(),
                        go_v(&val)
                    ));
                }
            }
        }
    }
}

/// `common.Values.PathValue`: the value at a dotted path, `None` when absent. The last element
/// must not itself be a table (Helm treats that as "no value").
pub fn path_value(vals: &Value, path: &str) -> Option<Value> {
    if path.is_empty() {
        return None;
    }
    let parts: Vec<&str> = path.split('.').collect();
    let (last, tables) = parts.split_last()?;
    let mut cur = vals.clone();
    for t in tables {
        let next = match &cur {
            Value::Map(m) => map_read(m).get(*t).cloned(),
            _ => None,
        }?;
        if !is_table(&next) {
            return None;
        }
        cur = next;
    }
    let v = match &cur {
        Value::Map(m) => map_read(m).get(*last).cloned(),
        _ => None,
    }?;
    if is_table(&v) {
        return None;
    }
    Some(v)
}

/// The error `common.Values.Table` returns when there is no map at a dotted path: Go's
/// `ErrNoTable` for the first element that is missing or not a table (`"x" is not a table`).
pub fn table_error(vals: &Value, path: &str) -> String {
    let mut cur = vals.clone();
    for part in path.split('.') {
        let next = match &cur {
            Value::Map(m) => map_read(m).get(part).cloned(),
            _ => None,
        };
        match next {
            Some(next) if is_table(&next) => cur = next,
            _ => return format!("{} is not a table", kubepkg_gostd::strconv::quote(part)),
        }
    }
    String::new()
}

/// `common.Values.Table`: the map at a dotted path.
pub fn table(vals: &Value, path: &str) -> Option<Value> {
    let mut cur = vals.clone();
    for part in path.split('.') {
        let next = match &cur {
            Value::Map(m) => map_read(m).get(part).cloned(),
            _ => None,
        }?;
        if !is_table(&next) {
            return None;
        }
        cur = next;
    }
    Some(cur)
}

/// Helm 4's `loader.MergeMaps(a, b)`: a new map with `b` over `a`, recursing where both hold maps.
pub fn merge_maps(a: &Value, b: &Value) -> Value {
    let mut out: BTreeMap<String, Value> = match a {
        Value::Map(m) => map_read(m).clone(),
        _ => BTreeMap::new(),
    };
    if let Value::Map(bm) = b {
        for (k, v) in map_read(bm).iter() {
            if let Value::Map(_) = v
                && let Some(existing @ Value::Map(_)) = out.get(k)
            {
                let merged = merge_maps(existing, v);
                out.insert(k.clone(), merged);
                continue;
            }
            out.insert(k.clone(), v.clone());
        }
    }
    Value::map(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(s: &str) -> Value {
        kubepkg_yaml::from_yaml_str(s).unwrap()
    }

    fn chart(values: &str, deps: Vec<Chart>, name: &str) -> Chart {
        let md = crate::metadata::Metadata {
            name: name.into(),
            ..Default::default()
        };
        Chart {
            metadata: md,
            lock: None,
            templates: vec![],
            values: y(values),
            schema: None,
            files: vec![],
            dependencies: deps,
        }
    }

    // Expected results from Helm's coalesce_test.go semantics.
    #[test]
    fn user_null_deletes_and_maps_merge() {
        let c = chart("a: 1\nb: {x: 1, z: 2}\nl: [1,2]\n", vec![], "top");
        let out = coalesce_values(&c, &y("a: null\nb: {z: 3}\nl: [9]\n")).unwrap();
        assert!(path_value(&out, "a").is_none());
        assert_eq!(path_value(&out, "b.x").unwrap().type_name(), "float64");
        let by = path_value(&out, "b.z");
        assert!(
            matches!(by, Some(Value::Float(f)) if f == 3.0),
            "{by:?} in {out:?}"
        );
        assert!(table(&out, "l").is_none());
    }

    #[test]
    fn globals_flow_to_subcharts() {
        let sub = chart("x: 1\nglobal: {g: sub}\n", vec![], "sub");
        let c = chart("global: {g: top, h: 1}\n", vec![sub], "top");
        let out = coalesce_values(&c, &Value::empty_map()).unwrap();
        assert!(matches!(path_value(&out, "sub.global.g"), Some(Value::String(s)) if &*s == "top"));
        assert!(matches!(path_value(&out, "sub.x"), Some(Value::Float(_))));
    }
}
