//! Storage semantics over the memory driver.

use super::*;
use crate::record::{Info, Status};

pub(super) fn rel(name: &str, version: u64, status: Status) -> Release {
    Release {
        name: name.into(),
        version,
        namespace: "ns".into(),
        info: Some(Info {
            status,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn store() -> Store<MemoryDriver> {
    let mut s = Store::new(MemoryDriver::new("ns"));
    s.clock = || 1_700_000_000;
    s
}

pub(super) fn block<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

#[test]
fn key_and_labels_are_helms() {
    let mut r = rel("web", 3, Status::Superseded);
    r.labels.insert("team".into(), "a".into());
    let o = StoredObject::from_release(&r, ("createdAt", 1_700_000_000)).unwrap();
    assert_eq!(o.key, "sh.helm.release.v1.web.v3");
    let want: BTreeMap<String, String> = [
        ("createdAt", "1700000000"),
        ("name", "web"),
        ("owner", "helm"),
        ("status", "superseded"),
        ("version", "3"),
        ("team", "a"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(o.labels, want);
    let back = o.decode().unwrap();
    assert_eq!(back.labels.get("team").map(String::as_str), Some("a"));
    assert_eq!(back.labels.len(), 1, "system labels are not custom labels");
}

#[test]
fn reserved_custom_label_is_refused() {
    let mut r = rel("web", 1, Status::Deployed);
    r.labels.insert("owner".into(), "me".into());
    assert!(matches!(
        StoredObject::from_release(&r, ("createdAt", 0)),
        Err(Error::ReservedLabel { .. })
    ));
}

#[test]
fn update_sets_modified_at_and_drops_created_at_like_helm() {
    let s = store();
    block(async {
        s.create(&rel("a", 1, Status::PendingInstall))
            .await
            .unwrap();
        s.update(&rel("a", 1, Status::Deployed)).await.unwrap();
    });
    let o = &s.driver.objects()[0];
    assert_eq!(
        o.labels.get("modifiedAt").map(String::as_str),
        Some("1700000000")
    );
    assert!(!o.labels.contains_key("createdAt"));
    assert_eq!(o.labels["status"], "deployed");
}

#[test]
fn history_limit_keeps_last_deployed() {
    // Revisions 1..=5: 2 deployed, the rest failed. With a limit of 3 before writing the 6th,
    // Helm keeps 2 (last deployed) plus the newest so that 2 remain for room: {2, 5}.
    let mut s = store();
    s.max_history = 3;
    block(async {
        for v in 1..=5u64 {
            let st = if v == 2 {
                Status::Deployed
            } else {
                Status::Failed
            };
            s.driver
                .create(StoredObject::from_release(&rel("a", v, st), ("createdAt", 0)).unwrap())
                .await
                .unwrap();
        }
        s.create(&rel("a", 6, Status::PendingUpgrade))
            .await
            .unwrap();
        let revs: Vec<u64> = s
            .history("a")
            .await
            .unwrap()
            .iter()
            .map(|r| r.version)
            .collect();
        assert_eq!(revs, vec![2, 5, 6]);
    });
}

#[test]
fn prune_without_deployed_deletes_oldest() {
    let objs: Vec<StoredObject> = (1..=4)
        .map(|v| {
            StoredObject::from_release(&rel("a", v, Status::Failed), ("createdAt", 0)).unwrap()
        })
        .collect();
    assert_eq!(revisions_to_prune(&objs, 2), vec![1, 2]);
    assert_eq!(revisions_to_prune(&objs, 4), Vec::<u64>::new());
    assert_eq!(revisions_to_prune(&objs, 0), vec![1, 2, 3, 4]);
}

#[test]
fn unlimited_history_when_zero() {
    let mut s = store();
    s.max_history = 0;
    block(async {
        for v in 1..=12 {
            s.create(&rel("a", v, Status::Superseded)).await.unwrap();
        }
        assert_eq!(s.history("a").await.unwrap().len(), 12);
    });
}

#[test]
fn last_and_deployed_pick_highest_revision() {
    let s = store();
    block(async {
        s.create(&rel("a", 1, Status::Superseded)).await.unwrap();
        s.create(&rel("a", 2, Status::Deployed)).await.unwrap();
        s.create(&rel("a", 10, Status::Failed)).await.unwrap();
        s.create(&rel("b", 1, Status::Deployed)).await.unwrap();
        assert_eq!(s.last("a").await.unwrap().unwrap().version, 10);
        assert_eq!(s.deployed("a").await.unwrap().unwrap().version, 2);
        assert!(s.last("zzz").await.unwrap().is_none());
        let latest: Vec<(String, u64)> = s
            .list_latest()
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.name, r.version))
            .collect();
        assert_eq!(latest, vec![("a".into(), 10), ("b".into(), 1)]);
    });
}

#[test]
fn list_latest_decodes_only_the_latest_revision() {
    // A corrupt older revision must not break listing, because it is never decoded.
    let s = store();
    block(async {
        s.create(&rel("a", 2, Status::Deployed)).await.unwrap();
        let mut bad =
            StoredObject::from_release(&rel("a", 1, Status::Superseded), ("createdAt", 0)).unwrap();
        bad.payload = b"not base64 !!".to_vec();
        s.driver.create(bad).await.unwrap();
        let all = s.list_latest().await.unwrap();
        assert_eq!(all.len(), 1);
        assert!(
            s.history("a").await.is_err(),
            "history decodes everything and reports the bad one"
        );
    });
}

#[test]
fn create_twice_is_already_exists() {
    let s = store();
    block(async {
        s.create(&rel("a", 1, Status::Deployed)).await.unwrap();
        let err = s.create(&rel("a", 1, Status::Deployed)).await.unwrap_err();
        assert!(matches!(err, Error::AlreadyExists { .. }), "{err}");
    });
}

#[test]
fn release_names_follow_helm_rules() {
    for ok in ["a", "my-app", "a.b-c", "x1"] {
        validate_name(ok).unwrap();
    }
    for bad in ["", "A", "-a", "a-", "a..b", "a_b", &"x".repeat(54)] {
        assert!(validate_name(bad).is_err(), "{bad:?} should be refused");
    }
}
