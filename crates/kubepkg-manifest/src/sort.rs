//! Rendered files to release manifests: splitting on `---`, reading each document's head
//! (`apiVersion`, `kind`, `metadata.name`, `metadata.annotations`), separating hooks from plain
//! manifests and sorting both in Helm's install order — `releaseutil.SortManifests`.

use crate::order::{INSTALL_ORDER, sort_by_kind};
use kubepkg_value::{Value, map_read};
use std::collections::BTreeMap;

/// The events a hook can run on (`helm.sh/hook`).
const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// The identifying head of a manifest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Head {
    pub api_version: String,
    pub kind: String,
    pub has_metadata: bool,
    pub name: String,
    pub annotations: Option<BTreeMap<String, String>>,
}

/// A plain manifest: its template path and text.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub name: String,
    pub content: String,
    pub head: Head,
}

/// A hook manifest with its events, weight and policies.
#[derive(Debug, Clone)]
pub struct Hook {
    pub name: String,
    pub kind: String,
    pub path: String,
    pub manifest: String,
    /// Events normalised as Helm does (`test-success` is `test`).
    pub events: Vec<String>,
    pub weight: i64,
    pub delete_policies: Vec<String>,
    pub output_log_policies: Vec<String>,
}

/// `releaseutil.SplitManifests`: the non-blank documents of a file, in order, each with its
/// leading whitespace removed.
pub fn split_manifests(big: &str) -> Vec<String> {
    let trimmed = big.trim_start();
    split_at_separators(trimmed)
        .into_iter()
        .filter(|d| !d.trim().is_empty())
        .map(|d| d.trim_start().to_string())
        .collect()
}

/// The pieces of `s` between separators, as splitting on the regular expression
/// `(?m)^---[ \t]*` does: `---` at the start of a line and the spaces and tabs after it.
/// Scanned by hand: a regex engine without a literal prefilter (regex-lite's PikeVM) spent
/// two thirds of `kubepkg template` on charts with megabytes of CRDs here.
fn split_at_separators(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut pieces = Vec::new();
    let (mut start, mut line) = (0, 0);
    loop {
        if b[line..].starts_with(b"---") {
            let mut end = line + 3;
            while end < b.len() && matches!(b[end], b' ' | b'\t') {
                end += 1;
            }
            pieces.push(&s[start..line]);
            start = end;
            line = end;
        }
        match b[line..].iter().position(|&c| c == b'\n') {
            Some(p) => line += p + 1,
            None => break,
        }
    }
    pieces.push(&s[start..]);
    pieces
}

fn head_string(v: Option<&Value>, field: &str) -> Result<String, String> {
    match v {
        None | Some(Value::Nil) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(Value::Bool(b)) => Ok(b.to_string()),
        Some(Value::Float(f)) => Ok(if f.fract() == 0.0 && f.abs() < 9e15 {
            format!("{}", *f as i64)
        } else {
            kubepkg_gostd::strconv::format_float(*f, 'g', -1, 32)
        }),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go struct field {field} of type string",
            other.json_kind()
        )),
    }
}

/// Decode a document's head as Helm's `yaml.Unmarshal(doc, &SimpleHead)` does.
pub fn parse_head(doc: &str) -> Result<Head, String> {
    // Only the fields read below are built (every key Go's JSON decoder matches to one of
    // them); the rest of the document is checked.
    let head_field = |k: &str| {
        ["apiVersion", "kind", "metadata"]
            .iter()
            .any(|f| kubepkg_gostd::json::names_field(k, f))
    };
    let v = kubepkg_yaml::from_yaml_str_keeping(doc, &head_field).map_err(|e| e.to_string())?;
    let m = match &v {
        Value::Nil => return Ok(Head::default()),
        Value::Map(m) => map_read(m),
        other => {
            return Err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type util.SimpleHead",
                other.json_kind()
            ));
        }
    };
    // As Go's JSON decoder fills the struct (`kubepkg_gostd::json::fill_fields`): a later
    // string replaces an earlier one and a null leaves it; objects for `metadata` fill the same
    // struct in turn, and objects for `annotations` add to the same map (a null empties it).
    let wrap = |e: String| format!("error unmarshaling JSON: while decoding JSON: {e}");
    let set = |slot: &mut String, v: &Value, field: &str| -> Result<(), String> {
        if !matches!(v, Value::Nil) {
            *slot = head_string(Some(v), field).map_err(wrap)?;
        }
        Ok(())
    };
    let mut head = Head::default();
    let entries = m.iter().map(|(k, v)| (k.as_str(), v));
    kubepkg_gostd::json::fill_fields(entries, &["apiVersion", "kind", "metadata"], |field, v| {
        match field {
            0 => set(&mut head.api_version, v, "SimpleHead.apiVersion"),
            1 => set(&mut head.kind, v, "SimpleHead.kind"),
            _ => {
                let md = match v {
                    Value::Nil => return Ok(()),
                    Value::Map(md) => map_read(md),
                    other => {
                        return Err(wrap(format!(
                            "json: cannot unmarshal {} into Go struct field SimpleHead.metadata of type struct {{ Name string \"json:\\\"name\\\"\"; Annotations map[string]string \"json:\\\"annotations\\\"\" }}",
                            other.json_kind()
                        )));
                    }
                };
                head.has_metadata = true;
                let entries = md.iter().map(|(k, v)| (k.as_str(), v));
                kubepkg_gostd::json::fill_fields(entries, &["name", "annotations"], |field, v| {
                    match (field, v) {
                        (0, _) => set(&mut head.name, v, "SimpleHead.metadata.name"),
                        (_, Value::Nil) => {
                            head.annotations = None;
                            Ok(())
                        }
                        (_, Value::Map(a)) => {
                            let out = head.annotations.get_or_insert_with(BTreeMap::new);
                            for (ak, av) in map_read(a).iter() {
                                let text = head_string(Some(av), "SimpleHead.metadata.annotations")
                                    .map_err(wrap)?;
                                out.insert(ak.clone(), text);
                            }
                            Ok(())
                        }
                        (_, other) => Err(wrap(format!(
                            "json: cannot unmarshal {} into Go struct field .metadata.annotations of type map[string]string",
                            other.json_kind()
                        ))),
                    }
                })
            }
        }
    })?;
    Ok(head)
}

/// The number of documents from which reading their heads (a YAML parse of each whole
/// document) is spread over the cores: below it the threads cost about what they save.
const HEADS_IN_PARALLEL: usize = 200;

/// `SortManifests(files, InstallOrder)`: hooks and plain manifests, each sorted by kind.
pub fn sort_manifests(
    files: &BTreeMap<String, String>,
) -> Result<(Vec<Hook>, Vec<Manifest>), String> {
    let mut hooks = Vec::new();
    let mut generic = Vec::new();
    let docs: Vec<(&String, String)> = files
        .iter()
        .filter(|(path, content)| {
            let base = path.rsplit('/').next().unwrap_or(path);
            !base.starts_with('_') && !content.trim().is_empty()
        })
        .flat_map(|(path, content)| split_manifests(content).into_iter().map(move |m| (path, m)))
        .collect();
    // The documents are read spread over the cores, then taken in order: the first that does
    // not parse is still the one Helm names.
    let heads = kubepkg_parallel::map_in_order(&docs, HEADS_IN_PARALLEL, |(_, m)| parse_head(m))
        .map_err(|(i, e)| format!("YAML parse error on {}: {e}", docs[i].0))?;
    for ((path, m), head) in docs.into_iter().zip(heads) {
        let hook_types = head
            .annotations
            .as_ref()
            .filter(|a| !a.is_empty())
            .and_then(|a| a.get(crate::object::HOOK_ANNOTATION).cloned());
        let Some(hook_types) = hook_types else {
            generic.push(Manifest {
                name: path.clone(),
                content: m,
                head,
            });
            continue;
        };
        let ann = head.annotations.clone().unwrap_or_default();
        let weight = ann
            .get("helm.sh/hook-weight")
            .and_then(|w| parse_go_atoi(w))
            .unwrap_or(0);
        let mut events = Vec::new();
        let mut unknown = false;
        for t in hook_types.split(',') {
            let t = t.trim().to_lowercase();
            if !HOOK_EVENTS.contains(&t.as_str()) {
                unknown = true;
                break;
            }
            events.push(if t == "test-success" {
                "test".into()
            } else {
                t
            });
        }
        if unknown {
            kubepkg_gostd::slog::log(
                kubepkg_gostd::slog::Record::info("skipping unknown hooks")
                    .attr("hookTypes", hook_types.as_str()),
            );
            continue;
        }
        let list = |key: &str| -> Vec<String> {
            ann.get(key)
                .map(|v| v.split(',').map(|p| p.trim().to_lowercase()).collect())
                .unwrap_or_default()
        };
        hooks.push(Hook {
            name: head.name.clone(),
            kind: head.kind.clone(),
            path: path.clone(),
            manifest: m,
            events,
            weight,
            delete_policies: list("helm.sh/hook-delete-policy"),
            output_log_policies: list("helm.sh/hook-output-log-policy"),
        });
    }
    sort_by_kind(&mut hooks, INSTALL_ORDER, |h| &h.kind);
    sort_by_kind(&mut generic, INSTALL_ORDER, |m| &m.head.kind);
    Ok((hooks, generic))
}

/// `strconv.Atoi`.
fn parse_go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    /// The hand-written splitter cuts where `(?m)^---[ \t]*` does.
    #[test]
    fn separators_split_as_the_regex_does() {
        let re = regex_lite::Regex::new(r"(?m)^---[ \t]*").expect("regex");
        for text in [
            "",
            "---",
            "a\n---\nb",
            "---\na\n--- \t \nb\n---",
            "a---b\n ---c\n----d\n---\n---\n",
            "x\r\n---\r\ny",
            "\n\n---x\n---\t---\n",
            "------\n---",
        ] {
            let want: Vec<&str> = re.split(text).collect();
            assert_eq!(split_at_separators(text), want, "{text:?}");
        }
    }

    use super::*;

    #[test]
    fn split_like_helm() {
        let docs = split_manifests("\n---\na: 1\n---   \n\n---\nb: 2\n--- # c\nc: 3\n");
        assert_eq!(docs, vec!["a: 1\n", "b: 2\n", "# c\nc: 3\n"]);
    }

    #[test]
    fn sorting_puts_unknown_kinds_last_by_name() {
        let mut files = BTreeMap::new();
        files.insert(
            "c/templates/a.yaml".to_string(),
            "kind: Zed\n---\nkind: Deployment\n---\nkind: Alpha\n---\nkind: Namespace\n"
                .to_string(),
        );
        let (_, m) = sort_manifests(&files).unwrap();
        let kinds: Vec<&str> = m.iter().map(|m| m.head.kind.as_str()).collect();
        assert_eq!(kinds, vec!["Namespace", "Deployment", "Alpha", "Zed"]);
    }

    #[test]
    fn hooks_are_separated() {
        let mut files = BTreeMap::new();
        files.insert(
            "c/templates/h.yaml".to_string(),
            "kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install,post-upgrade\n    helm.sh/hook-weight: \"-5\"\n".to_string(),
        );
        let (h, m) = sort_manifests(&files).unwrap();
        assert!(m.is_empty());
        assert_eq!(h[0].events, vec!["pre-install", "post-upgrade"]);
        assert_eq!(h[0].weight, -5);
    }
}
