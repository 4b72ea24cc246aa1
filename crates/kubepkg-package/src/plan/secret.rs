//! Secrets in a plan: what changes, never the values (docs/rules.md#plan).
//!
//! A plan shows a Secret as the rest of the object diffed as usual (metadata, type) and one
//! line per key of `data` and `stringData`, old and new: `data.password: (changed, 12 -> 16
//! bytes)`, `(unchanged, 5 bytes)`, `(added, 10 bytes)`, `(removed, 3 bytes)`. Sizes are of the
//! value itself (a `data` value's decoded bytes). The real diff is kept aside for
//! `--show-secrets` (`Plan::reveal_secrets`).

use serde::Serialize;
use serde_json::{Map, Value};

/// Whether an object of this `apiVersion` and `kind` is a core Secret.
pub fn is_secret(api_version: &str, kind: &str) -> bool {
    api_version == "v1" && kind == "Secret"
}

/// How one key of a Secret changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    Added,
    Removed,
    Changed,
    Unchanged,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
            Change::Unchanged => "unchanged",
        }
    }
}

/// One key of a Secret's `data` or `stringData`, with the sizes of its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyChange {
    /// `data.KEY` or `stringData.KEY`.
    pub key: String,
    pub change: Change,
    /// Bytes of the deployed value (absent when added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_size: Option<usize>,
    /// Bytes of the planned value (absent when removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_size: Option<usize>,
}

impl std::fmt::Display for KeyChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes = |n: usize| if n == 1 { "byte" } else { "bytes" };
        match (self.change, self.old_size, self.new_size) {
            (Change::Changed, Some(a), Some(b)) => {
                write!(f, "{}: (changed, {a} -> {b} {})", self.key, bytes(b))
            }
            (c, a, b) => {
                let n = b.or(a).unwrap_or(0);
                write!(f, "{}: ({}, {n} {})", self.key, c.word(), bytes(n))
            }
        }
    }
}

/// A Secret's change as a plan shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Masked {
    /// The unified diff of the object without `data` and `stringData` (when that part
    /// changes), then one line per key.
    pub diff: String,
    pub keys: Vec<KeyChange>,
}

/// The masked change of the Secret `id` from the YAML `old` to `new` (either may be absent:
/// added or removed). The rest of the object (without `data` and `stringData`) is diffed by
/// `diff`, the plan's diff of two YAML texts.
pub fn mask(
    id: &str,
    old: Option<&str>,
    new: Option<&str>,
    diff: impl Fn(&str, &str) -> String,
) -> Masked {
    let (old, new) = (old.map(read), new.map(read));
    if old.as_ref().is_some_and(Option::is_none) || new.as_ref().is_some_and(Option::is_none) {
        // Not readable as an object (apply would refuse it too): say nothing of its content.
        return Masked {
            diff: format!("{id}: content not shown (a Secret)\n"),
            keys: Vec::new(),
        };
    }
    let (old, new) = (old.flatten(), new.flatten());
    let mut keys = Vec::new();
    for field in ["data", "stringData"] {
        let a = old
            .as_ref()
            .map(|o| values_of(o, field))
            .unwrap_or_default();
        let b = new
            .as_ref()
            .map(|o| values_of(o, field))
            .unwrap_or_default();
        let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let (va, vb) = (a.get(name), b.get(name));
            let change = match (va, vb) {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                (Some(x), Some(y)) if x == y => Change::Unchanged,
                _ => Change::Changed,
            };
            keys.push(KeyChange {
                key: format!("{field}.{name}"),
                change,
                old_size: va.map(|v| size(field, v)),
                new_size: vb.map(|v| size(field, v)),
            });
        }
    }
    let rest = |o: &Option<Map<String, Value>>| {
        o.as_ref().map_or_else(String::new, |o| {
            let mut o = o.clone();
            o.remove("data");
            o.remove("stringData");
            kubepkg_model::values::values_yaml(&o)
        })
    };
    let (ra, rb) = (rest(&old), rest(&new));
    let mut diff = if ra == rb {
        String::new()
    } else {
        diff(&ra, &rb)
    };
    for k in &keys {
        diff.push_str(&format!("{k}\n"));
    }
    diff.push_str("(Secret values are not shown; --show-secrets shows them)\n");
    Masked { diff, keys }
}

/// The object a rendered document holds (`None` when it does not read as one).
fn read(yaml: &str) -> Option<Map<String, Value>> {
    let objects = kubepkg_manifest::parse(yaml).ok()?;
    match objects.into_iter().next()?.object {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

fn values_of(o: &Map<String, Value>, field: &str) -> Map<String, Value> {
    match o.get(field) {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    }
}

/// The size in bytes of a value: a `data` value decoded from base64 (as the API server
/// stores it), a `stringData` value as written.
fn size(field: &str, v: &Value) -> usize {
    use base64::Engine as _;
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    if field == "data"
        && let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(text.trim())
    {
        return bytes.len();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use crate::plan::{ObjectChange, RenderedObject, diff_objects, objects_from_manifest};

    fn secret(data: &str, string_data: &str, label: &str) -> Vec<RenderedObject> {
        objects_from_manifest(&format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: ns\n  labels: {{tier: {label}}}\ntype: Opaque\ndata: {{{data}}}\nstringData: {{{string_data}}}\n"
        ))
        .unwrap()
    }

    /// Old and new values of every key, in `data` (base64) and `stringData`, are absent from
    /// the masked diff and the key list; sizes are the values' bytes.
    #[test]
    fn a_changed_secret_shows_keys_and_sizes_never_values() {
        // "hunter2" (7 bytes), "correct horse" (13 bytes), "s3cr3t-v4lue" (12 bytes).
        let old = secret(
            "password: aHVudGVyMg==, user: YWRtaW4=, gone: Z29uZQ==",
            "token: old-token-value",
            "a",
        );
        let new = secret(
            "password: Y29ycmVjdCBob3JzZQ==, user: YWRtaW4=, fresh: czNjcjN0LXY0bHVl",
            "token: new-token-value!",
            "b",
        );
        let d = diff_objects(&old, &new);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].change, ObjectChange::Changed);
        let text = &d[0].diff;
        for value in [
            "aHVudGVyMg==",
            "hunter2",
            "Y29ycmVjdCBob3JzZQ==",
            "correct horse",
            "czNjcjN0LXY0bHVl",
            "s3cr3t-v4lue",
            "YWRtaW4=",
            "admin",
            "Z29uZQ==",
            "old-token-value",
            "new-token-value!",
        ] {
            assert!(!text.contains(value), "{value} in {text}");
        }
        let lines: Vec<&str> = text.lines().filter(|l| l.ends_with(" bytes)")).collect();
        assert_eq!(
            lines,
            [
                "data.fresh: (added, 12 bytes)",
                "data.gone: (removed, 4 bytes)",
                "data.password: (changed, 7 -> 13 bytes)",
                "data.user: (unchanged, 5 bytes)",
                "stringData.token: (changed, 15 -> 16 bytes)",
            ]
        );
        // The rest of the object is diffed as usual.
        assert!(text.contains("-    tier: a\n+    tier: b\n"), "{text}");
        let json = serde_json::to_string(&d[0]).unwrap();
        assert!(
            !json.contains("aHVudGVyMg==") && !json.contains("hunter2"),
            "{json}"
        );
        assert!(
            json.contains(r#""secretKeys":[{"key":"data.fresh","change":"added","newSize":12}"#),
            "{json}"
        );
        // The real diff is kept for --show-secrets.
        assert!(
            d[0].revealed
                .as_deref()
                .unwrap()
                .contains("Y29ycmVjdCBob3JzZQ==")
        );
    }

    #[test]
    fn an_added_secret_lists_its_keys_as_added() {
        let d = diff_objects(&[], &secret("k: dmFsdWU=", "", "a"));
        assert_eq!(d[0].change, ObjectChange::Added);
        assert!(!d[0].diff.contains("dmFsdWU="), "{}", d[0].diff);
        assert!(
            d[0].diff.contains("data.k: (added, 5 bytes)\n"),
            "{}",
            d[0].diff
        );
        // Other kinds are not masked.
        let cm = objects_from_manifest(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: plain}\n",
        )
        .unwrap();
        let d = diff_objects(&[], &cm);
        assert!(d[0].diff.contains("plain") && d[0].revealed.is_none());
    }
}
