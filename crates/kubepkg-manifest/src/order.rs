//! Helm's order of kinds (`releaseutil.InstallOrder` / `UninstallOrder`): objects are applied
//! kind group by kind group in install order and deleted in uninstall order. Unknown kinds
//! (custom resources) come last, sorted by kind name; equal kinds keep manifest order.

/// Kinds in the order Helm 4 installs them (and `helm template` prints them); kinds not
/// listed go last, ordered by name.
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Kinds in the order Helm uninstalls them (validating webhooks first so they cannot block
/// the removal of the rest).
pub const UNINSTALL_ORDER: [&str; 38] = [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "APIService",
    "Ingress",
    "IngressClass",
    "Service",
    "CronJob",
    "Job",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "Deployment",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
    "DaemonSet",
    "RoleBindingList",
    "RoleBinding",
    "RoleList",
    "Role",
    "ClusterRoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleList",
    "ClusterRole",
    "CustomResourceDefinition",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ConfigMap",
    "SecretList",
    "Secret",
    "ServiceAccount",
    "PodDisruptionBudget",
    "PodSecurityPolicy",
    "LimitRange",
    "ResourceQuota",
    "NetworkPolicy",
    "Namespace",
    "PriorityClass",
];

/// Sort key of a kind under an ordering: known kinds by position, unknown after, by name.
fn key<'a>(ordering: &[&str], kind: &'a str) -> (usize, &'a str) {
    match ordering.iter().position(|k| *k == kind) {
        Some(i) => (i, ""),
        None => (ordering.len(), kind),
    }
}

/// Stable-sorts items by kind under `ordering` (Helm's `sortManifestsByKind`).
pub fn sort_by_kind<T>(items: &mut [T], ordering: &[&str], kind: impl Fn(&T) -> &str) {
    items.sort_by(|a, b| key(ordering, kind(a)).cmp(&key(ordering, kind(b))));
}

/// Splits items already sorted by kind into consecutive groups of one kind: Helm applies a
/// group at once and waits for it before the next.
pub fn kind_groups<T>(items: &[T], kind: impl Fn(&T) -> &str) -> Vec<&[T]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=items.len() {
        if i == items.len() || kind(&items[i]) != kind(&items[start]) {
            if i > start {
                groups.push(&items[start..i]);
            }
            start = i;
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected order from Helm's kind_sorter_test.go "install" case, restricted to the kinds used.
    #[test]
    fn install_order_matches_helm() {
        let mut kinds = vec![
            "Deployment",
            "Zoo",
            "Service",
            "Namespace",
            "ConfigMap",
            "Job",
            "Apple",
            "CustomResourceDefinition",
            "Secret",
            "ServiceAccount",
            "ClusterRole",
        ];
        sort_by_kind(&mut kinds, INSTALL_ORDER, |k| k);
        assert_eq!(
            kinds,
            vec![
                "Namespace",
                "ServiceAccount",
                "Secret",
                "ConfigMap",
                "CustomResourceDefinition",
                "ClusterRole",
                "Service",
                "Deployment",
                "Job",
                "Apple",
                "Zoo",
            ]
        );
    }

    #[test]
    fn uninstall_order_reverses_known_kinds_and_keeps_unknown_last() {
        let mut kinds = vec![
            "Namespace",
            "Widget",
            "Deployment",
            "ValidatingWebhookConfiguration",
        ];
        sort_by_kind(&mut kinds, &UNINSTALL_ORDER, |k| k);
        assert_eq!(
            kinds,
            vec![
                "ValidatingWebhookConfiguration",
                "Deployment",
                "Namespace",
                "Widget"
            ]
        );
    }

    #[test]
    fn equal_kinds_keep_manifest_order() {
        let mut items = vec![
            ("ConfigMap", 1),
            ("Secret", 2),
            ("ConfigMap", 3),
            ("Secret", 4),
        ];
        sort_by_kind(&mut items, INSTALL_ORDER, |i| i.0);
        assert_eq!(
            items,
            vec![
                ("Secret", 2),
                ("Secret", 4),
                ("ConfigMap", 1),
                ("ConfigMap", 3)
            ]
        );
        let groups = kind_groups(&items, |i| i.0);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[1], &[("ConfigMap", 1), ("ConfigMap", 3)]);
    }
}
