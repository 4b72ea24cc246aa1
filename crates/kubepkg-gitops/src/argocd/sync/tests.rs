use super::*;

#[test]
fn the_operation_is_argocd_app_syncs() {
    assert_eq!(
        sync_operation("1.0.0", false),
        json!({
            "sync": {"revision": "1.0.0", "syncStrategy": {"hook": {}}},
            "initiatedBy": {"username": "kubepkg"},
        })
    );
    assert_eq!(
        sync_patch("1.0.0", true)["operation"]["sync"]["prune"],
        true
    );
    assert_eq!(
        sync_patch("1.0.0", true)["status"],
        json!({"operationState": null})
    );
}
