//! `kubepkg status NAME` of a Helm release, as `helm status` (v4) prints it: the release
//! header with its description, the live RESOURCES of the release (each object of the manifest
//! and the pods related to its workloads, as the API server's own tables), the test suite and
//! the notes; `-o json|yaml` is the release record without its chart, with `info.resources`.

use std::collections::BTreeMap;

use anyhow::Result;
use kubepkg_kube::Cluster;
use kubepkg_release::record::{self, Release};
use serde_json::{Map, Value};

use super::get::{computed_values, go_sorted, values_yaml};
use super::releases;

/// The kinds whose `spec.selector.matchLabels` select related pods (Helm's list).
const POD_OWNERS: [&str; 5] = [
    "ReplicaSet",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
];

/// Helm's key for a resource group: the object's API version (without group) and kind.
fn group_key(api_version: &str, kind: &str) -> String {
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    format!("{version}/{kind}")
}

/// The pods' label selector of a manifest object, as Helm finds it.
fn pod_selector(object: &Value) -> Option<BTreeMap<String, String>> {
    let kind = object.get("kind")?.as_str()?;
    let labels = if POD_OWNERS.contains(&kind) {
        object.pointer("/spec/selector/matchLabels")?
    } else if kind == "ReplicationController" {
        object.pointer("/spec/selector")?
    } else {
        return None;
    };
    Some(
        labels
            .as_object()?
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
    )
}

/// Sends `$request` (a GET built by `kube::core::Request`) and decodes the JSON answer, as a
/// server-side Table with the object included when `$table` (the Accept header and parameter
/// kubectl and Helm send); `None` when it fails.
macro_rules! fetch {
    ($cluster:expr, $request:expr, $table:expr) => {
        async {
            let mut request = $request.ok()?;
            if $table {
                let uri = request.uri().to_string();
                let sep = if uri.contains('?') { '&' } else { '?' };
                *request.uri_mut() = format!("{uri}{sep}includeObject=Object").parse().ok()?;
                request.headers_mut().insert(
                    "accept",
                    "application/json;as=Table;v=v1;g=meta.k8s.io,\
                     application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
                        .parse()
                        .ok()?,
                );
            }
            $cluster.client.request::<Value>(request).await.ok()
        }
    };
}

/// The live resources of `release` as `helm status` gathers them: each manifest object by its
/// `version/Kind`, then `v1/Pod(related)` for workloads (each distinct selector once).
/// Objects that cannot be read are left out, as Helm does.
pub async fn resources(
    cluster: &Cluster,
    release: &Release,
    table: bool,
) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let Ok(objects) = kubepkg_kube::manifest::parse(&release.manifest) else {
        return out;
    };
    let mut selectors: Vec<BTreeMap<String, String>> = Vec::new();
    for o in objects {
        let Ok((api, id)) = kubepkg_kube::apply::locate(cluster, &o.id, &release.namespace).await
        else {
            continue;
        };
        let request = kube::core::Request::new(api.resource_url())
            .get(&id.name, &kube::api::GetParams::default());
        let Some(live) = fetch!(cluster, request, table).await else {
            continue;
        };
        out.entry(group_key(&id.api_version, &id.kind))
            .or_default()
            .push(live);
        let Some(selector) = pod_selector(&o.object) else {
            continue;
        };
        if selectors.contains(&selector) {
            continue;
        }
        let query: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
        selectors.push(selector);
        let namespace = if id.namespace.is_empty() {
            release.namespace.clone()
        } else {
            id.namespace.clone()
        };
        let request = kube::core::Request::new(format!("/api/v1/namespaces/{namespace}/pods"))
            .list(&kube::api::ListParams::default().labels(&query.join(",")));
        if let Some(mut pods) = fetch!(cluster, request, table).await {
            // Go's unstructured list decoding gives every item its apiVersion and kind.
            if let Some(items) = pods.get_mut("items").and_then(Value::as_array_mut) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    item.insert("apiVersion".into(), "v1".into());
                    item.insert("kind".into(), "Pod".into());
                }
            }
            out.entry("v1/Pod(related)".into()).or_default().push(pods);
        }
    }
    out
}

/// A server-side Table as kubectl prints it for `helm status`: the columns of priority 0,
/// headers upper-cased, cells padded to the widest plus three spaces (at least six wide), the
/// last column unpadded. `None` when `table` is not a Table. The header is left out when the
/// columns are those of the previous table printed (`last_columns`), as kubectl does.
fn print_table(table: &Value, last_columns: &mut Option<Value>) -> Option<String> {
    if table.get("kind")?.as_str()? != "Table" {
        return None;
    }
    let columns = table.get("columnDefinitions")?.as_array()?;
    let shown: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.get("priority").and_then(Value::as_i64).unwrap_or(0) == 0)
        .map(|(i, _)| i)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let same = last_columns.as_ref() == Some(table.get("columnDefinitions")?);
    if !columns.is_empty() && !same {
        rows.push(
            shown
                .iter()
                .map(|i| {
                    columns[*i]
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_uppercase()
                })
                .collect(),
        );
    }
    *last_columns = table.get("columnDefinitions").cloned();
    for row in table
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cells = row.get("cells").and_then(Value::as_array);
        rows.push(
            shown
                .iter()
                .map(|i| match cells.and_then(|c| c.get(*i)) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => "<none>".into(),
                    Some(v) => v.to_string(),
                })
                .collect(),
        );
    }
    Some(tabwriter(&rows))
}

/// Go's `text/tabwriter` as kubectl configures it (min width 6, padding 3, spaces): every
/// cell but a line's last padded to its column's width.
fn tabwriter(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter(|r| i + 1 < r.len())
                .map(|r| r[i].chars().count() + 3)
                .max()
                .unwrap_or(0)
                .max(6)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}", w = widths[i]));
            }
        }
        out.push('\n');
    }
    out
}

/// Prints `release` as `helm status` does, its resources read from the cluster.
pub async fn print(cluster: &Cluster, r: &Release, output: &str) -> Result<()> {
    match output {
        "json" | "yaml" => {
            let mut v: Value = serde_json::from_slice(&kubepkg_release::codec::to_json(r)?)?;
            let resources = resources(cluster, r, false).await;
            if let Some(m) = v.as_object_mut() {
                m.shift_remove("chart");
                if !resources.is_empty()
                    && let Some(info) = m.get_mut("info").and_then(Value::as_object_mut)
                {
                    let map: Map<String, Value> = resources
                        .into_iter()
                        .map(|(k, objs)| {
                            // Unstructured objects: Go writes their keys sorted.
                            (k, Value::Array(objs.into_iter().map(go_sorted).collect()))
                        })
                        .collect();
                    info.insert("resources".into(), Value::Object(map));
                }
            }
            releases::print_json_or_yaml(output, &v)?;
        }
        "table" => {
            let info = r.info.clone().unwrap_or_default();
            let mut s = header(r, false);
            let resources = resources(cluster, r, true).await;
            if !resources.is_empty() {
                let mut buf = String::new();
                let mut last_columns = None;
                for (kind, tables) in &resources {
                    buf.push_str(&format!("==> {kind}\n"));
                    for t in tables {
                        if let Some(text) = print_table(t, &mut last_columns) {
                            buf.push_str(&text);
                        }
                    }
                    buf.push('\n');
                }
                s.push_str(&format!("RESOURCES:\n{buf}\n"));
            }
            s.push_str(&test_suite(r));
            if !info.notes.is_empty() {
                s.push_str(&format!("NOTES:\n{}\n", info.notes.trim()));
            }
            print!("{s}");
        }
        other => anyhow::bail!("invalid format type {other:?}"),
    }
    Ok(())
}

/// The first lines of `helm status` (`metadata`: also the chart's name and versions, as
/// `helm get all` prints them).
fn header(r: &Release, metadata: bool) -> String {
    let info = r.info.clone().unwrap_or_default();
    let mut s = format!("NAME: {}\n", r.name);
    if let Some(t) = info.last_deployed {
        s.push_str(&format!("LAST DEPLOYED: {}\n", releases::ansic(Some(t))));
    }
    s.push_str(&format!("NAMESPACE: {}\n", r.namespace));
    s.push_str(&format!("STATUS: {}\n", info.status));
    s.push_str(&format!("REVISION: {}\n", r.version));
    if metadata {
        let m = r
            .chart
            .as_ref()
            .and_then(|c| c.metadata.clone())
            .unwrap_or_default();
        s.push_str(&format!("CHART: {}\n", m.name));
        s.push_str(&format!("VERSION: {}\n", m.version));
        s.push_str(&format!("APP_VERSION: {}\n", m.app_version));
    }
    s.push_str(&format!("DESCRIPTION: {}\n", info.description));
    s
}

/// The TEST SUITE lines: each test hook that has run, or `None`.
fn test_suite(r: &Release) -> String {
    let tests: Vec<&record::Hook> = r
        .hooks
        .iter()
        .filter(|h| h.events.contains(&record::HookEvent::Test))
        .collect();
    if tests.is_empty() {
        return "TEST SUITE: None\n".into();
    }
    let mut s = String::new();
    for h in tests {
        let Some(started) = h.last_run.started_at else {
            continue;
        };
        s.push_str(&format!(
            "TEST SUITE:     {}\nLast Started:   {}\nLast Completed: {}\nPhase:          {}\n",
            h.name,
            releases::ansic(Some(started)),
            releases::ansic(h.last_run.completed_at),
            h.last_run.phase
        ));
    }
    s
}

/// `helm get all`: the status with chart metadata, the user-supplied and computed values,
/// the hooks, the manifest and the notes of a stored revision.
pub fn get_all(r: &Release) -> Result<String> {
    let mut s = header(r, true);
    s.push_str(&test_suite(r));
    let user = go_sorted(Value::Object(r.config.clone()));
    s.push_str("USER-SUPPLIED VALUES:\n");
    s.push_str(&values_yaml(&user)?);
    s.push_str("\nCOMPUTED VALUES:\n");
    s.push_str(&values_yaml(&computed_values(r))?);
    s.push_str("\nHOOKS:\n");
    for h in &r.hooks {
        s.push_str(&format!("---\n# Source: {}\n{}\n", h.path, h.manifest));
    }
    s.push_str(&format!("MANIFEST:\n{}\n", r.manifest));
    let notes = r.info.as_ref().map(|i| i.notes.trim()).unwrap_or_default();
    if !notes.is_empty() {
        s.push_str(&format!("NOTES:\n{notes}\n"));
    }
    Ok(s)
}
