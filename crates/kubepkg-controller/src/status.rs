//! The parts of a Package's status the controller writes itself, as merge patches: the
//! generation and inputs it acted on, and the conditions of states that have no package
//! revision (a spec, source or values problem, requirements not met). The revision fields and
//! the conditions of an apply are written by the engine (`KubeCluster::publish_status`), the
//! same writer the CLI uses.

use kubepkg_package::revision::Condition;
use serde_json::{Map, Value, json};

/// One status merge patch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusPatch {
    pub observed_generation: Option<i64>,
    pub last_attempted_version: Option<String>,
    pub last_attempted_digest: Option<String>,
    /// The digest of the `spec.valuesOnce` an apply used.
    pub values_once_digest: Option<String>,
    pub conditions: Option<Vec<Condition>>,
    /// With `spec.kubeConfig`: where the components are applied.
    pub target: Option<kubepkg_package_object::Target>,
    /// With `source.git`: the branch or tag and commit last read (`main@sha1:…`).
    pub source_revision: Option<String>,
}

impl StatusPatch {
    /// The `{"status": {...}}` merge patch (fields left `None` are not touched).
    pub fn to_json(&self) -> Value {
        json!({ "status": self.fields() })
    }

    /// The fields of the status it sets.
    pub fn fields(&self) -> Map<String, Value> {
        let mut status = Map::new();
        if let Some(g) = self.observed_generation {
            status.insert("observedGeneration".into(), json!(g));
        }
        if let Some(v) = &self.last_attempted_version {
            status.insert("lastAttemptedVersion".into(), json!(v));
        }
        if let Some(d) = &self.last_attempted_digest {
            status.insert("lastAttemptedDigest".into(), json!(d));
        }
        if let Some(r) = &self.source_revision {
            status.insert("sourceRevision".into(), json!(r));
        }
        if let Some(d) = &self.values_once_digest {
            status.insert("valuesOnceDigest".into(), json!(d));
        }
        if let Some(c) = &self.conditions {
            status.insert(
                "conditions".into(),
                serde_json::to_value(c).unwrap_or(Value::Null),
            );
        }
        if let Some(t) = &self.target {
            status.insert(
                "target".into(),
                serde_json::to_value(t).unwrap_or(Value::Null),
            );
        }
        status
    }
}

/// Keeps each condition's `lastTransitionTime` from `before` when its status did not change
/// (as `metav1.Condition` requires).
pub fn carry_transition_times(mut next: Vec<Condition>, before: &[Condition]) -> Vec<Condition> {
    for c in &mut next {
        if let Some(b) = before.iter().find(|b| b.type_ == c.type_)
            && b.status == c.status
            && !b.last_transition_time.is_empty()
        {
            c.last_transition_time = b.last_transition_time.clone();
        }
    }
    next
}

/// The conditions in the object's status now.
pub fn conditions_of(obj: &kube::api::DynamicObject) -> Vec<Condition> {
    obj.data
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(|c| serde_json::from_value(c.clone()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubepkg_package::conditions::{reason, reconciling, stopped};

    #[test]
    fn only_the_fields_set_are_patched() {
        let p = StatusPatch {
            observed_generation: Some(4),
            ..Default::default()
        };
        assert_eq!(p.to_json(), json!({"status": {"observedGeneration": 4}}));
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let before = stopped(reason::INVALID_PACKAGE, "bad", "t1");
        let same = carry_transition_times(stopped(reason::SOURCE_UNAVAILABLE, "x", "t2"), &before);
        assert!(same.iter().all(|c| c.last_transition_time == "t1"));
        let changed = carry_transition_times(reconciling(reason::PROGRESSING, "x", "t2"), &before);
        // Ready stays False (t1); Reconciling is new (t2).
        assert_eq!(changed[0].last_transition_time, "t1");
        assert_eq!(changed[1].last_transition_time, "t2");
    }
}
