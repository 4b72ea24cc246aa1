//! The reader on Applications as Argo CD v3.5.7's real application controller left them: the
//! fixtures in `testdata/argocd/` were captured by `crates/kubepkg/tests/it/argocd.rs`
//! (`KUBEPKG_ARGOCD_CAPTURE=crates/kubepkg-gitops/testdata/argocd cargo test -p kubepkg --test it
//! -- argocd::`), never written by hand: `shop-db-running` (the operation just started),
//! `shop-db-unready` (sync succeeded, the Deployment not yet compared as synced or healthy),
//! `shop-db` (Synced and Healthy), `shop-broken-running` and `shop-broken` (a chart whose
//! template calls `fail`).

use super::*;

fn fixture(name: &str) -> Value {
    let path = format!("{}/testdata/argocd/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_operation_is_argocd_app_syncs_and_reads_back_unchanged_from_the_controller() {
    let operation = sync_operation("1.0.0", false);
    assert_eq!(
        operation,
        json!({
            "sync": {"revision": "1.0.0", "syncStrategy": {"hook": {}}},
            "initiatedBy": {"username": "kubepkg"},
            "retry": {},
        })
    );
    // The controller's copy of the operation it ran, through Argo CD's Go types.
    for name in ["shop-db-running", "shop-db", "shop-broken"] {
        assert_eq!(
            fixture(name)["status"]["operationState"]["operation"],
            operation,
            "{name}"
        );
    }
    let patch = sync_patch("1.0.0", true);
    assert_eq!(patch["operation"]["sync"]["prune"], true);
    assert_eq!(patch["status"], json!({"operationState": null}));
}

#[test]
fn an_operation_still_set_is_in_progress() {
    assert!(operation_in_progress(&fixture("shop-db-running")));
    assert!(operation_in_progress(&fixture("shop-broken-running")));
    for name in ["shop-db-unready", "shop-db", "shop-broken"] {
        assert!(!operation_in_progress(&fixture(name)), "{name}");
    }
}

/// The verdict on fixture `name` at revision 1.0.0, whose operation is checked to be in `phase`.
fn verdict_in_phase(name: &str, phase: &str) -> Verdict {
    let app = fixture(name);
    assert_eq!(app["status"]["operationState"]["phase"], phase, "{name}");
    verdict(&app, "1.0.0")
}

#[test]
fn a_running_operation_is_syncing() {
    assert_eq!(
        verdict_in_phase("shop-db-running", "Running"),
        Verdict::Syncing {
            message: String::new()
        }
    );
    // Running while the chart cannot be rendered: the condition says why.
    let app = fixture("shop-broken-running");
    let Verdict::Syncing { message } = verdict(&app, "1.0.0") else {
        panic!("{:?}", verdict(&app, "1.0.0"));
    };
    assert!(
        message.starts_with("ComparisonError: Failed to load target state: "),
        "{message}"
    );
    assert!(
        message.contains("kubepkg test: this chart refuses to render"),
        "{message}"
    );
}

#[test]
fn a_succeeded_sync_is_ready_only_when_synced_at_the_revision_and_healthy() {
    let unready = verdict_in_phase("shop-db-unready", "Succeeded");
    assert_eq!(
        unready,
        Verdict::Unready {
            sync: "OutOfSync".into(),
            health: "Missing".into(),
            message: "Deployment shop-db: OutOfSync".into(),
        }
    );
    assert_eq!(
        unready.message(),
        "OutOfSync, Missing: Deployment shop-db: OutOfSync"
    );
    let app = fixture("shop-db");
    assert_eq!(app["status"]["sync"]["status"], "Synced");
    assert_eq!(app["status"]["health"]["status"], "Healthy");
    assert_eq!(verdict(&app, "1.0.0"), Verdict::Ready);
    assert_eq!(verdict(&app, "1.0.0").message(), "Synced, Healthy");
    // The state of an operation to another revision says nothing about this one.
    assert_eq!(
        verdict(&app, "2.0.0"),
        Verdict::Syncing {
            message: String::new()
        }
    );
}

#[test]
fn a_chart_that_does_not_render_fails_with_argocds_message() {
    let app = fixture("shop-broken");
    let state = &app["status"]["operationState"];
    assert_eq!(state["phase"], "Error");
    let verdict = verdict(&app, "1.0.0");
    assert_eq!(
        verdict,
        Verdict::Failed {
            phase: Phase::Error,
            message: state["message"].as_str().unwrap().to_string(),
        }
    );
    let line = verdict.message();
    assert!(line.starts_with("sync Error: ComparisonError: "), "{line}");
    assert!(
        line.contains("kubepkg test: this chart refuses to render"),
        "{line}"
    );
}

#[test]
fn an_application_never_synced_is_waiting_for_its_operation() {
    let mut app = fixture("shop-db");
    app["status"]["operationState"] = Value::Null;
    assert_eq!(
        verdict(&app, "1.0.0"),
        Verdict::Syncing {
            message: String::new()
        }
    );
    let mut app = fixture("shop-broken-running");
    app["status"]["operationState"] = Value::Null;
    assert!(
        matches!(verdict(&app, "1.0.0"), Verdict::Syncing { message } if message.starts_with("ComparisonError:"))
    );
}
