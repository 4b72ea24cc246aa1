//! Kubernetes label selectors (`matchLabels`, `matchExpressions` with `In`, `NotIn`, `Exists`,
//! `DoesNotExist`), matched against a cluster's labels as the API server matches them: every
//! term must hold; an empty selector matches everything.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A label selector, as in `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<Requirement>,
}

/// One `matchExpressions` term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// The operators of `matchExpressions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl LabelSelector {
    /// Whether `labels` satisfy every term.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator {
                    Operator::In => value.is_some_and(|v| r.values.contains(v)),
                    // As the API server: a missing label is "not in".
                    Operator::NotIn => value.is_none_or(|v| !r.values.contains(v)),
                    Operator::Exists => value.is_some(),
                    Operator::DoesNotExist => value.is_none(),
                }
            })
    }

    /// Why the selector cannot be used (the API server refuses the same): `In`/`NotIn` without
    /// values, `Exists`/`DoesNotExist` with values.
    pub fn check(&self) -> Result<(), String> {
        for r in &self.match_expressions {
            match (r.operator, r.values.is_empty()) {
                (Operator::In | Operator::NotIn, true) => {
                    return Err(format!(
                        "matchExpressions key {}: operator {:?} needs values",
                        r.key, r.operator
                    ));
                }
                (Operator::Exists | Operator::DoesNotExist, false) => {
                    return Err(format!(
                        "matchExpressions key {}: operator {:?} takes no values",
                        r.key, r.operator
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn selector(v: serde_json::Value) -> LabelSelector {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_term_must_hold() {
        let s = selector(json!({"matchLabels": {"env": "prod"},
            "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu", "us"]},
                                 {"key": "canary", "operator": "DoesNotExist"}]}));
        assert!(s.matches(&labels(&[("env", "prod"), ("region", "eu")])));
        assert!(!s.matches(&labels(&[("env", "prod"), ("region", "ap")])));
        assert!(!s.matches(&labels(&[("env", "dev"), ("region", "eu")])));
        assert!(!s.matches(&labels(&[
            ("env", "prod"),
            ("region", "eu"),
            ("canary", "")
        ])));
    }

    #[test]
    fn not_in_matches_a_missing_label_and_empty_matches_all() {
        let s = selector(
            json!({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["edge"]}]}),
        );
        assert!(s.matches(&labels(&[])));
        assert!(!s.matches(&labels(&[("tier", "edge")])));
        assert!(LabelSelector::default().matches(&labels(&[("a", "b")])));
    }

    #[test]
    fn operators_with_the_wrong_values_are_refused() {
        let s = selector(json!({"matchExpressions": [{"key": "tier", "operator": "In"}]}));
        assert!(s.check().unwrap_err().contains("needs values"));
        let s = selector(
            json!({"matchExpressions": [{"key": "tier", "operator": "Exists", "values": ["x"]}]}),
        );
        assert!(s.check().unwrap_err().contains("takes no values"));
    }
}
