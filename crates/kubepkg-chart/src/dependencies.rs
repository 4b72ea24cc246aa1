//! Subchart selection and value imports before rendering: Helm's `ProcessDependencies`.
//!
//! For each chart (recursively): declared dependencies are matched to the loaded subcharts by
//! name and version range (aliases copy the chart under another name); `tags` enable or disable
//! (any true tag enables, otherwise any false tag disables); `condition` paths override tags (the
//! first path that resolves to a boolean wins); disabled subcharts are removed. Then
//! `import-values` copy child values into the parent (`{child, parent}` maps or export names).

use crate::chart::Chart;
use crate::semver::is_compatible_range;
use crate::values::{
    coalesce_frozen_values, coalesce_tables, coalesce_values, deep_copy, merge_values, path_value,
    table, table_error,
};
use kubepkg_gostd::slog;
use kubepkg_value::{Value, map_read};
use std::collections::{BTreeMap, HashSet};

/// Charts named in `dependencies` but absent from `charts/` (`action.CheckDependencies`).
pub fn check_dependencies(chart: &Chart) -> Result<(), String> {
    let missing: Vec<&str> = chart
        .metadata
        .deps()
        .filter(|r| !chart.dependencies.iter().any(|d| d.name() == r.name))
        .map(|r| r.name.as_str())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "found in Chart.yaml, but missing in charts/ directory: {}",
            missing.join(", ")
        ))
    }
}

/// `chartutil.ProcessDependenciesWithMerge(chart, vals)` (what install, upgrade and template
/// run).
pub fn process_dependencies(chart: &mut Chart, vals: &Value) -> Result<(), String> {
    process_dependencies_with(chart, vals, true)
}

/// `chartutil.ProcessDependencies(chart, vals)` when `merge` is false (what `helm lint` runs:
/// imported values coalesced rather than merged), else [`process_dependencies`].
pub fn process_dependencies_with(
    chart: &mut Chart,
    vals: &Value,
    merge: bool,
) -> Result<(), String> {
    process_enabled(chart, vals, "", false)?;
    process_import_values_rec(chart, merge)
}

fn alias_dependency(charts: &[Chart], dep: &crate::metadata::Dependency) -> Option<Chart> {
    for c in charts {
        if c.name() != dep.name {
            continue;
        }
        if !is_compatible_range(&dep.version, &c.metadata.version) {
            continue;
        }
        let mut out = c.clone();
        if !dep.alias.is_empty() {
            out.metadata.name = dep.alias.clone();
        }
        return Some(out);
    }
    None
}

/// `processDependencyEnabled`: drops the subcharts whose tags or conditions disable them, from
/// `c`'s values coalesced over `v` — the user's values at the top, then (`v_frozen`) the
/// parent's coalesced values, which nothing writes.
fn process_enabled(c: &mut Chart, v: &Value, path: &str, v_frozen: bool) -> Result<(), String> {
    if !c.metadata.dependencies_set {
        return Ok(());
    }
    let mut chart_deps: Vec<Chart> = Vec::new();
    for existing in &c.dependencies {
        let declared = c.metadata.deps().any(|req| {
            existing.name() == req.name
                && is_compatible_range(&req.version, &existing.metadata.version)
        });
        if !declared {
            chart_deps.push(existing.clone());
        }
    }
    let loaded = std::mem::take(&mut c.dependencies);
    for req in c.metadata.dependencies.iter_mut().flatten() {
        if let Some(d) = alias_dependency(&loaded, req) {
            chart_deps.push(d);
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
    }
    c.dependencies = chart_deps;
    for r in c.metadata.dependencies.iter_mut().flatten() {
        r.enabled = true;
    }
    let cvals = if v_frozen {
        coalesce_frozen_values(c, v)?
    } else {
        coalesce_values(c, v)?
    };
    // Tags.
    if let Some(Value::Map(tags)) = table(&cvals, "tags") {
        let tags = map_read(&tags).clone();
        for r in c.metadata.dependencies.iter_mut().flatten() {
            let (mut has_true, mut has_false) = (false, false);
            for k in &r.tags {
                match tags.get(k) {
                    Some(Value::Bool(true)) => has_true = true,
                    Some(Value::Bool(false)) => has_false = true,
                    Some(_) => slog::log(
                        slog::Record::warn("returned non-bool value")
                            .attr("tag", k)
                            .attr("chart", &r.name),
                    ),
                    None => {}
                }
            }
            r.enabled = has_true || !has_false;
        }
    }
    // Conditions.
    for r in c.metadata.dependencies.iter_mut().flatten() {
        for cond in r.condition.trim().split(',') {
            if cond.is_empty() {
                continue;
            }
            match path_value(&cvals, &format!("{path}{cond}")) {
                Some(Value::Bool(b)) => {
                    r.enabled = b;
                    break;
                }
                Some(_) => slog::log(
                    slog::Record::warn("returned non-bool value")
                        .attr("path", cond)
                        .attr("chart", &r.name),
                ),
                None => {}
            }
        }
    }
    let removed: HashSet<String> = c
        .metadata
        .deps()
        .filter(|r| !r.enabled)
        .map(|r| r.name.clone())
        .collect();
    c.dependencies.retain(|d| !removed.contains(d.name()));
    c.metadata
        .dependencies
        .retain(|d| d.as_ref().is_none_or(|d| !removed.contains(&d.name)));
    // Go rebuilds the slice with append(nil, kept...): empty means nil from here on.
    c.metadata.dependencies_set = !c.metadata.dependencies.is_empty();
    for t in &mut c.dependencies {
        let subpath = format!("{path}{}.", t.name());
        process_enabled(t, &cvals, &subpath, true)?;
    }
    Ok(())
}

fn path_to_map(path: &str, data: Value) -> Value {
    if path == "." {
        return data;
    }
    let mut cur = data;
    for part in path.split('.').rev() {
        let mut m = BTreeMap::new();
        m.insert(part.to_string(), cur);
        cur = Value::map(m);
    }
    cur
}

fn as_mapref(v: &Value) -> Option<kubepkg_value::MapRef> {
    match v {
        Value::Map(m) => Some(m.clone()),
        _ => None,
    }
}

fn merge_into(b: &mut Value, add: Value, merge: bool) {
    if let (Some(bm), Some(am)) = (as_mapref(b), as_mapref(&add)) {
        // MergeTables/CoalesceTables(dst=b, src=add): b keeps its keys, add fills in.
        coalesce_tables(&bm, &am, merge);
    }
}

fn trim_nil_values(v: &Value) -> Value {
    match deep_copy(v) {
        Value::Map(m) => {
            fn trim(m: &kubepkg_value::MapRef) {
                let mut w = kubepkg_value::map_write(m);
                w.retain(|_, v| !matches!(v, Value::Nil));
                for v in w.values() {
                    if let Value::Map(s) = v {
                        trim(s);
                    }
                }
            }
            trim(&m);
            Value::Map(m)
        }
        other => other,
    }
}

fn process_import_values(c: &mut Chart, merge: bool) -> Result<(), String> {
    if !c.metadata.dependencies_set {
        return Ok(());
    }
    let cvals = if merge {
        merge_values(c, &Value::empty_map())?
    } else {
        coalesce_values(c, &Value::empty_map())?
    };
    let mut b = Value::empty_map();
    for r in c.metadata.dependencies.iter_mut().flatten() {
        let mut outiv = Vec::new();
        for riv in &r.import_values {
            match riv {
                Value::Map(iv) => {
                    let iv = map_read(iv).clone();
                    let child = go_v(iv.get("child"));
                    let parent = go_v(iv.get("parent"));
                    let mut m = BTreeMap::new();
                    m.insert("child".to_string(), Value::str(&child));
                    m.insert("parent".to_string(), Value::str(&parent));
                    outiv.push(Value::map(m));
                    match table(&cvals, &format!("{}.{child}", r.name)) {
                        Some(vv) => {
                            let add = path_to_map(&parent, deep_copy(&vv));
                            merge_into(&mut b, add, merge);
                        }
                        None => slog::log(
                            slog::Record::warn("ImportValues missing table from chart")
                                .attr("chart", &r.name)
                                .attr("error", table_error(&cvals, &format!("{}.{child}", r.name))),
                        ),
                    }
                }
                Value::String(iv) => {
                    let child = format!("exports.{iv}");
                    let mut m = BTreeMap::new();
                    m.insert("child".to_string(), Value::str(&child));
                    m.insert("parent".to_string(), Value::str("."));
                    outiv.push(Value::map(m));
                    match table(&cvals, &format!("{}.{child}", r.name)) {
                        Some(vm) => merge_into(&mut b, deep_copy(&vm), merge),
                        None => slog::log(
                            slog::Record::warn("ImportValues missing table")
                                .attr("error", table_error(&cvals, &format!("{}.{child}", r.name))),
                        ),
                    }
                }
                _ => {}
            }
        }
        r.import_values = outiv;
    }
    // Helm deep-copies the merged values here; ours are already a fresh tree that nothing else
    // holds (the imported tables in `b` are copies too), so they are taken as they are.
    let base = if merge {
        cvals
    } else {
        trim_nil_values(&cvals)
    };
    if let (Some(bm), Some(bb)) = (as_mapref(&base), as_mapref(&b)) {
        coalesce_tables(&bm, &bb, merge);
    }
    c.values = base;
    Ok(())
}

/// Go's `fmt.Sprintf("%v", x)` for the scalar forms `child`/`parent` take.
fn go_v(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Nil) => "<nil>".into(),
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Int(i) | Value::Int64(i)) => i.to_string(),
        Some(Value::Float(f)) => kubepkg_gostd::strconv::format_float(*f, 'g', -1, 64),
        Some(other) => other.type_name(),
    }
}

fn process_import_values_rec(c: &mut Chart, merge: bool) -> Result<(), String> {
    for d in &mut c.dependencies {
        process_import_values_rec(d, merge)?;
    }
    process_import_values(c, merge)
}
