//! Deprecated Kubernetes APIs as `helm lint` reports them (`rules/deprecations.go`): a type of
//! client-go's scheme whose lifecycle says it is deprecated at the kube version (Helm's
//! default, or `--kube-version`) gives apiserver's warning text. The table
//! (`deprecated_apis.txt`) is generated from k8s.io/api at the version Helm v4.3.1 builds
//! with, by `tools/lint-ref/deprecated_apis.py`.

use std::sync::OnceLock;

struct Deprecated {
    api_version: &'static str,
    kind: &'static str,
    deprecated: (u32, u32),
    removed: Option<(u32, u32)>,
    replacement: Option<(&'static str, &'static str)>,
}

fn version(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn table() -> &'static [Deprecated] {
    static TABLE: OnceLock<Vec<Deprecated>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("deprecated_apis.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let f: Vec<&'static str> = l.split_whitespace().collect();
                let [api_version, kind, dep, rem, rep_gv, rep_kind] = f[..] else {
                    return None;
                };
                Some(Deprecated {
                    api_version,
                    kind,
                    deprecated: version(dep)?,
                    removed: version(rem),
                    replacement: (rep_gv != "-").then_some((rep_gv, rep_kind)),
                })
            })
            .collect()
    })
}

/// The deprecation warning for an object of `api_version` and `kind` at Kubernetes
/// `major.minor`, if it is deprecated there.
pub fn warning(api_version: &str, kind: &str, major: u32, minor: u32) -> Option<String> {
    if api_version.is_empty() || kind.is_empty() {
        return None;
    }
    let d = table()
        .iter()
        .find(|d| d.api_version == api_version && d.kind == kind)?;
    let (dm, dn) = d.deprecated;
    let current_zero = major == 0 && minor == 0;
    if !current_zero && (dm > major || (dm == major && dn > minor)) {
        return None;
    }
    let mut msg = format!("{api_version} {kind} is deprecated in v{dm}.{dn}+");
    if let Some((rm, rn)) = d.removed {
        msg.push_str(&format!(", unavailable in v{rm}.{rn}+"));
    }
    if let Some((gv, k)) = d.replacement {
        msg.push_str(&format!("; use {gv} {k}"));
    }
    Some(msg)
}

#[cfg(test)]
mod tests {
    #[test]
    fn old_apis_are_deprecated() {
        assert_eq!(
            super::warning("apps/v1beta1", "StatefulSet", 1, 37).as_deref(),
            Some(
                "apps/v1beta1 StatefulSet is deprecated in v1.8+, unavailable in v1.16+; use apps/v1 StatefulSet"
            )
        );
        assert!(super::warning("apps/v1", "Deployment", 1, 37).is_none());
        assert!(super::warning("policy/v1beta1", "PodDisruptionBudget", 1, 20).is_none());
    }
}
