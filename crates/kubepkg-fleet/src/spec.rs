//! `PackageRollout`'s spec (what the user declares) and status (what the controller reports),
//! with the checks the controller makes before acting on a spec.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use kubepkg_package_object::PackageSpec;

use crate::selector::LabelSelector;

/// `spec` of a `PackageRollout`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RolloutSpec {
    /// The `Package` spec every cluster's Package gets (its `kubeConfig` is set per cluster;
    /// one given here is refused).
    pub package: Map<String, Value>,
    /// Which registered clusters take part (all registered clusters when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<LabelSelector>,
    /// Values for the clusters a selector matches, over `package.values`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_values: Vec<ClusterValues>,
    /// The stages, in order; a cluster belongs to the first stage that selects it.
    pub stages: Vec<Stage>,
    /// What a failed cluster does to the rollout.
    #[serde(default)]
    pub on_failure: OnFailure,
    /// What a new digest does to clusters still in progress with an earlier one.
    #[serde(default)]
    pub supersede: Supersede,
    /// No cluster starts while paused (those already started finish).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

/// Values for the clusters `selector` matches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterValues {
    pub selector: LabelSelector,
    pub values: Map<String, Value>,
}

/// One stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Stage {
    pub name: String,
    /// The clusters of this stage (those no earlier stage took); all remaining when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// At most this many of its clusters in progress at once: a number or a percentage of the
    /// stage's clusters (`"50%"`, rounded up, at least 1). All at once when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent: Option<Value>,
    /// How long every cluster of the stage must have been Ready before the next stage starts
    /// (a Go duration: `10m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bake: Option<String>,
    /// `Manual`: the stage starts only once approved (`kubepkg rollout promote`).
    #[serde(default)]
    pub approval: Approval,
    /// Conditions every cluster's Package must show, besides Ready, before the stage is done
    /// (and its bake begins).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<Gate>,
}

/// A stage gate: the condition `condition` of each cluster's Package has status `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Gate {
    /// A condition type of the Package's status (`Drifted`, or one another tool writes).
    pub condition: String,
    /// `"True"` (the default) or `"False"`.
    #[serde(default = "default_gate_status")]
    pub status: String,
}

fn default_gate_status() -> String {
    "True".into()
}

/// How a stage is let start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Approval {
    #[default]
    Automatic,
    Manual,
}

/// What a failed cluster does to the rollout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnFailure {
    /// No cluster starts any more; the failed one follows its package's rollback rule.
    #[default]
    Halt,
    /// No cluster starts any more, and every cluster given this digest goes back to the
    /// Package spec it had before — only when every one of them may (the package's rollback
    /// policy in each cluster); otherwise as `Halt`, naming the version that forbids it.
    Rollback,
}

/// What a new digest (a spec change) does while clusters are in progress with an earlier one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Supersede {
    /// The new digest starts at once, in stage order; a cluster in progress with the earlier
    /// one is given the new one when its turn comes (the latest spec is what is wanted, and a
    /// fix for a failing version must not queue behind it).
    #[default]
    Replace,
    /// No cluster starts the new digest until every cluster in progress with an earlier one
    /// has finished (Ready or failed).
    Wait,
}

/// A spec the controller refuses, and why (the rollout's `InvalidRollout` condition).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidSpec(pub String);

/// A stage's settings read once.
#[derive(Debug, Clone, PartialEq)]
pub struct StagePlan {
    pub name: String,
    pub selector: Option<LabelSelector>,
    pub max_concurrent: MaxConcurrent,
    pub bake: Duration,
    pub approval: Approval,
    pub gates: Vec<Gate>,
}

/// `maxConcurrent` read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxConcurrent {
    All,
    Count(u32),
    Percent(u32),
}

impl MaxConcurrent {
    /// How many of `members` clusters may be in progress at once.
    pub fn of(self, members: usize) -> usize {
        match self {
            MaxConcurrent::All => members.max(1),
            MaxConcurrent::Count(n) => n.max(1) as usize,
            MaxConcurrent::Percent(p) => ((members * p as usize).div_ceil(100)).max(1),
        }
    }
}

impl RolloutSpec {
    /// The stages read, or why the spec cannot be acted on: no stages, a repeated stage name,
    /// a bad `maxConcurrent`, `bake` or selector, a `package` that is not a Package spec or
    /// sets its own `kubeConfig`.
    pub fn check(&self) -> Result<Vec<StagePlan>, InvalidSpec> {
        let bad = |m: String| Err(InvalidSpec(m));
        if self.package.contains_key("kubeConfig") {
            return bad(
                "spec.package.kubeConfig: each cluster's Package targets its cluster; remove it"
                    .into(),
            );
        }
        if let Err(e) = serde_json::from_value::<PackageSpec>(Value::Object(self.package.clone())) {
            return bad(format!("spec.package is not a Package spec: {e}"));
        }
        if self.stages.is_empty() {
            return bad("spec.stages: at least one stage is needed".into());
        }
        for s in self
            .clusters
            .iter()
            .chain(self.cluster_values.iter().map(|c| &c.selector))
        {
            s.check()
                .map_err(|e| InvalidSpec(format!("selector: {e}")))?;
        }
        let mut plans: Vec<StagePlan> = Vec::new();
        for (i, s) in self.stages.iter().enumerate() {
            if s.name.is_empty() || plans.iter().any(|p| p.name == s.name) {
                return bad(format!(
                    "spec.stages[{i}].name {:?}: stage names must be set and distinct",
                    s.name
                ));
            }
            if let Some(sel) = &s.selector {
                sel.check()
                    .map_err(|e| InvalidSpec(format!("spec.stages[{i}].selector: {e}")))?;
            }
            let max_concurrent = match &s.max_concurrent {
                None => MaxConcurrent::All,
                Some(Value::Number(n)) => match n.as_u64() {
                    Some(n) if n >= 1 => MaxConcurrent::Count(u32::try_from(n).unwrap_or(u32::MAX)),
                    _ => {
                        return bad(format!(
                            "spec.stages[{i}].maxConcurrent {n}: a whole number of at least 1, or a percentage such as \"25%\""
                        ));
                    }
                },
                Some(Value::String(t)) => {
                    match t.strip_suffix('%').and_then(|p| p.parse::<u32>().ok()) {
                        Some(p) if (1..=100).contains(&p) => MaxConcurrent::Percent(p),
                        _ => {
                            return bad(format!(
                                "spec.stages[{i}].maxConcurrent {t:?}: a whole number of at least 1, or a percentage from \"1%\" to \"100%\""
                            ));
                        }
                    }
                }
                Some(other) => {
                    return bad(format!(
                        "spec.stages[{i}].maxConcurrent {other}: a whole number of at least 1, or a percentage such as \"25%\""
                    ));
                }
            };
            let bake = match &s.bake {
                None => Duration::ZERO,
                Some(t) => match kubepkg_gostd::time::parse_duration(t) {
                    Ok(d) if d.nanos() >= 0 => d.to_std(),
                    _ => {
                        return bad(format!(
                            "spec.stages[{i}].bake {t:?}: a Go duration such as 10m or 1h30m"
                        ));
                    }
                },
            };
            for (g, gate) in s.gates.iter().enumerate() {
                if gate.condition.is_empty() {
                    return bad(format!(
                        "spec.stages[{i}].gates[{g}].condition: name a condition type of the Package's status, such as Drifted"
                    ));
                }
                if !matches!(gate.status.as_str(), "True" | "False") {
                    return bad(format!(
                        "spec.stages[{i}].gates[{g}].status {:?}: \"True\" or \"False\"",
                        gate.status
                    ));
                }
            }
            plans.push(StagePlan {
                name: s.name.clone(),
                selector: s.selector.clone(),
                max_concurrent,
                bake,
                approval: s.approval,
                gates: s.gates.clone(),
            });
        }
        Ok(plans)
    }

    /// The rollout's digest: what every cluster's Package is given (its package spec and the
    /// per-cluster values), in hex. A new digest is a new rollout.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(Value::Object(self.package.clone()).to_string().as_bytes());
        h.update(b"\n");
        h.update(
            serde_json::to_string(&self.cluster_values)
                .unwrap_or_default()
                .as_bytes(),
        );
        let d = h.finalize();
        d.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// The Package spec for a cluster with `labels` whose kubeconfig Secret is `secret`:
    /// `package` with `kubeConfig.secretRef` and the matching `clusterValues` merged over its
    /// values (per component key, later entries over earlier).
    pub fn package_for(
        &self,
        labels: &std::collections::BTreeMap<String, String>,
        secret: &str,
    ) -> Map<String, Value> {
        let mut spec = self.package.clone();
        let mut values = match spec.remove("values") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for cv in self
            .cluster_values
            .iter()
            .filter(|c| c.selector.matches(labels))
        {
            merge(&mut values, &cv.values);
        }
        if !values.is_empty() {
            spec.insert("values".into(), Value::Object(values));
        }
        spec.insert(
            "kubeConfig".into(),
            serde_json::json!({"secretRef": {"name": secret}}),
        );
        spec
    }
}

/// `over` merged into `base`: maps key by key, anything else replaced (Helm's values merge).
fn merge(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> RolloutSpec {
        serde_json::from_value(v).unwrap()
    }

    fn base() -> Value {
        json!({"package": {"source": {"configMapRef": {"name": "shop"}}, "values": {"app": {"replicas": 1, "tier": "a"}}},
               "stages": [{"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}, "maxConcurrent": 1},
                          {"name": "rest", "maxConcurrent": "50%", "bake": "5m", "approval": "Manual"}]})
    }

    #[test]
    fn stages_are_read() {
        let plans = spec(base()).check().unwrap();
        assert_eq!(plans[0].max_concurrent, MaxConcurrent::Count(1));
        assert_eq!(plans[1].max_concurrent, MaxConcurrent::Percent(50));
        assert_eq!(plans[1].bake, Duration::from_secs(300));
        assert_eq!(plans[1].approval, Approval::Manual);
        assert_eq!(MaxConcurrent::Percent(50).of(3), 2);
        assert_eq!(MaxConcurrent::Percent(1).of(3), 1);
        assert_eq!(MaxConcurrent::All.of(0), 1);
    }

    #[test]
    fn bad_specs_are_refused_naming_the_field() {
        for (patch, says) in [
            (json!({"stages": []}), "at least one stage"),
            (
                json!({"stages": [{"name": "a"}, {"name": "a"}]}),
                "distinct",
            ),
            (
                json!({"stages": [{"name": "a", "maxConcurrent": 0}]}),
                "maxConcurrent 0",
            ),
            (
                json!({"stages": [{"name": "a", "maxConcurrent": "150%"}]}),
                "maxConcurrent \"150%\"",
            ),
            (
                json!({"stages": [{"name": "a", "bake": "soon"}]}),
                "bake \"soon\"",
            ),
            (
                json!({"stages": [{"name": "a", "gates": [{"condition": ""}]}]}),
                "gates[0].condition",
            ),
            (
                json!({"stages": [{"name": "a", "gates": [{"condition": "Drifted", "status": "no"}]}]}),
                "gates[0].status \"no\"",
            ),
            (
                json!({"package": {"source": {"path": "."}, "kubeConfig": {"secretRef": {"name": "x"}}}}),
                "spec.package.kubeConfig",
            ),
            (
                json!({"package": {"source": {"path": "."}, "nonsense": 1}}),
                "not a Package spec",
            ),
        ] {
            let mut v = base();
            for (k, x) in patch.as_object().unwrap() {
                v[k] = x.clone();
            }
            let e = spec(v).check().unwrap_err().to_string();
            assert!(e.contains(says), "{e} lacks {says}");
        }
    }

    #[test]
    fn a_cluster_gets_its_values_and_its_kubeconfig() {
        let mut v = base();
        v["clusterValues"] = json!([{"selector": {"matchLabels": {"region": "eu"}}, "values": {"app": {"tier": "eu"}}}]);
        let s = spec(v);
        let labels = [("region".to_string(), "eu".to_string())]
            .into_iter()
            .collect();
        let p = s.package_for(&labels, "eu-1");
        assert_eq!(p["values"], json!({"app": {"replicas": 1, "tier": "eu"}}));
        assert_eq!(p["kubeConfig"], json!({"secretRef": {"name": "eu-1"}}));
        let other = s.package_for(&Default::default(), "us-1");
        assert_eq!(
            other["values"],
            json!({"app": {"replicas": 1, "tier": "a"}})
        );
        assert_ne!(s.digest(), spec(base()).digest());
    }
}
