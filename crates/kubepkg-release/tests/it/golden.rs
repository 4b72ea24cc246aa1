//! Byte-level agreement with real Helm: a release record printed by Helm 4.3.1 (same
//! encoder as its storage) decodes into our `Release` and re-encodes to the same bytes.
//! Regenerate the data with `tests/golden/regen.sh`.

use kubepkg_release::record::{HookDeletePolicy, HookEvent, Status};
use kubepkg_release::{Release, codec, storage::StoredObject};

const HELM4: &str = include_str!("../golden/helm-v4.3.1-install.json");

#[test]
fn helm4_record_reencodes_byte_for_byte() {
    let json = HELM4.trim_end_matches('\n');
    let release: Release = serde_json::from_str(json).expect("decode Helm's record");
    let ours = String::from_utf8(codec::to_json(&release).unwrap()).unwrap();
    assert_eq!(ours, json);
}

#[test]
fn helm4_record_fields_are_read() {
    let r: Release = serde_json::from_str(HELM4).unwrap();
    assert_eq!(
        (r.name.as_str(), r.version, r.namespace.as_str()),
        ("rel", 1, "demo")
    );
    let info = r.info.as_ref().unwrap();
    assert_eq!(info.status, Status::PendingInstall);
    assert_eq!(info.notes, "Release rel <installed>\n");
    assert_eq!(r.config["replicas"], 3);
    assert_eq!(r.config["s"], "x");
    assert_eq!(r.chart_label(), "h7chart-0.1.0");
    assert_eq!(r.app_version(), "1.2.3");
    let hook = &r.hooks[0];
    assert_eq!(
        hook.events,
        vec![HookEvent::PreInstall, HookEvent::PreUpgrade]
    );
    assert_eq!(hook.weight, -5);
    assert_eq!(
        hook.delete_policies,
        vec![
            HookDeletePolicy::BeforeHookCreation,
            HookDeletePolicy::HookSucceeded
        ]
    );
    let chart = r.chart.as_ref().unwrap();
    assert_eq!(
        chart.schema.as_deref(),
        Some(&b"{\"type\":\"object\"}\n"[..])
    );
    assert_eq!(r.apply_method, "ssa");
}

#[test]
fn stored_object_round_trip_keeps_helm_bytes() {
    let r: Release = serde_json::from_str(HELM4).unwrap();
    let obj = StoredObject::from_release(&r, ("createdAt", 1)).unwrap();
    let json = codec::decode_to_json(&obj.key, &obj.payload).unwrap();
    assert_eq!(
        String::from_utf8(json).unwrap(),
        HELM4.trim_end_matches('\n')
    );
    assert_eq!(obj.key, "sh.helm.release.v1.rel.v1");
    assert_eq!(obj.labels["status"], "pending-install");
}
