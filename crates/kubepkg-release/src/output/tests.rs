//! The printers' layouts, written from Helm's templates (`cmd/helm/status.go`,
//! `get_metadata.go`, `list.go`, `history.go`, `get_values.go`); the cluster parity test
//! (`crates/kubepkg/tests/it/helm_parity.rs`) compares the same printers with real `helm` on the
//! same records. Times are local (`TZ`), so expected times are built with [`time`]'s own
//! functions and the layout around them is what is checked.

use super::*;
use crate::record::{Chart, Dependency, HookExecution, HookPhase, Info, Metadata, Status};
use serde_json::json;

fn at(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

fn release() -> Release {
    Release {
        name: "web".into(),
        namespace: "shop".into(),
        version: 2,
        chart: Some(Chart {
            metadata: Some(Metadata {
                name: "crashy".into(),
                version: "0.1.0".into(),
                app_version: "1.16".into(),
                dependencies: vec![
                    Some(Dependency {
                        name: "zeta".into(),
                        ..Default::default()
                    }),
                    Some(Dependency {
                        name: "alpha".into(),
                        ..Default::default()
                    }),
                ],
                ..Default::default()
            }),
            ..Default::default()
        }),
        config: json!({"web": "ok", "message": "hi"})
            .as_object()
            .cloned()
            .unwrap(),
        manifest: "---\n# Source: crashy/templates/cm.yaml\nkind: ConfigMap".into(),
        hooks: vec![Hook {
            name: "web-test".into(),
            path: "crashy/templates/test.yaml".into(),
            manifest: "kind: Pod".into(),
            events: vec![HookEvent::Test],
            last_run: HookExecution {
                started_at: Some(at("2026-03-04T05:06:07Z")),
                completed_at: Some(at("2026-03-04T05:06:09Z")),
                phase: HookPhase::Succeeded,
            },
            ..Default::default()
        }],
        info: Some(Info {
            last_deployed: Some(at("2026-03-04T05:06:00Z")),
            status: Status::Deployed,
            description: "Upgrade complete".into(),
            notes: "  Thanks!\n".into(),
            ..Default::default()
        }),
        apply_method: "ssa".into(),
        ..Default::default()
    }
}

#[test]
fn formats_are_helms_three() {
    assert_eq!(Format::parse("yaml").unwrap(), Format::Yaml);
    assert_eq!(
        Format::parse("xml").unwrap_err().to_string(),
        r#"invalid format type "xml""#
    );
}

#[test]
fn install_and_upgrade_print_the_status_text() {
    let r = release();
    let deployed = time::ansic(Some(at("2026-03-04T05:06:00Z")));
    let started = time::ansic(Some(at("2026-03-04T05:06:07Z")));
    let completed = time::ansic(Some(at("2026-03-04T05:06:09Z")));
    assert_eq!(
        super::release(&r, Format::Table).unwrap(),
        format!(
            "NAME: web\nLAST DEPLOYED: {deployed}\nNAMESPACE: shop\nSTATUS: deployed\nREVISION: 2\n\
             TEST SUITE:     web-test\nLast Started:   {started}\nLast Completed: {completed}\n\
             Phase:          Succeeded\nNOTES:\nThanks!\n"
        )
    );
    // A dry run also shows the hooks and the manifest.
    let mut dry = Release {
        hooks: Vec::new(),
        ..r.clone()
    };
    dry.info.as_mut().unwrap().description = "Dry run complete".into();
    dry.info.as_mut().unwrap().notes.clear();
    assert!(
        super::release(&dry, Format::Table)
            .unwrap()
            .ends_with("TEST SUITE: None\nHOOKS:\nMANIFEST:\n---\n# Source: crashy/templates/cm.yaml\nkind: ConfigMap\n")
    );
    let json = super::release(&r, Format::Json).unwrap();
    assert!(json.starts_with(r#"{"name":"web","info":{"#) && json.ends_with("}\n"));
}

#[test]
fn status_has_a_description_and_only_tests_that_ran() {
    let mut r = release();
    r.hooks.push(Hook {
        name: "never-ran".into(),
        events: vec![HookEvent::Test],
        ..Default::default()
    });
    let text = status(&r, &Resources::new(), Format::Table).unwrap();
    let deployed = time::ansic(Some(at("2026-03-04T05:06:00Z")));
    assert!(
        text.starts_with(&format!(
            "NAME: web\nLAST DEPLOYED: {deployed}\nNAMESPACE: shop\nSTATUS: deployed\nREVISION: 2\nDESCRIPTION: Upgrade complete\nTEST SUITE:     web-test\n"
        )),
        "{text}"
    );
    assert!(!text.contains("never-ran") && text.ends_with("NOTES:\nThanks!\n"));
    // Live resources: a section per group, kubectl's tables; in JSON under info.resources
    // without the chart.
    let mut resources = Resources::new();
    resources.insert(
        "v1/ConfigMap".into(),
        vec![json!({"kind": "Table", "columnDefinitions": [{"name": "Name"}], "rows": [{"cells": ["web"]}]})],
    );
    let text = status(&r, &resources, Format::Table).unwrap();
    assert!(text.contains("DESCRIPTION: Upgrade complete\nRESOURCES:\n==> v1/ConfigMap\nNAME\nweb\n\n\nTEST SUITE:"), "{text}");
    let v: Value = serde_json::from_str(&status(&r, &resources, Format::Json).unwrap()).unwrap();
    assert!(v.get("chart").is_none());
    assert_eq!(
        v["info"]["resources"]["v1/ConfigMap"][0]["rows"][0]["cells"][0],
        "web"
    );
}

#[test]
fn list_is_a_uitable_and_ends_with_a_newline_when_empty() {
    let mut r = release();
    r.info.as_mut().unwrap().last_deployed = None;
    assert_eq!(
        list(std::slice::from_ref(&r), Format::Table, false).unwrap(),
        "NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS  \tCHART       \tAPP VERSION\n\
         web \tshop     \t2       \t       \tdeployed\tcrashy-0.1.0\t1.16       \n"
    );
    assert_eq!(list(&[], Format::Table, true).unwrap(), "\n");
    assert_eq!(
        list(std::slice::from_ref(&r), Format::Json, false).unwrap(),
        "[{\"name\":\"web\",\"namespace\":\"shop\",\"revision\":\"2\",\"updated\":\"\",\"status\":\"deployed\",\"chart\":\"crashy-0.1.0\",\"app_version\":\"1.16\"}]\n"
    );
    assert_eq!(
        list_names(&[r.clone(), r.clone()], Format::Table).unwrap(),
        "web\nweb\n"
    );
    assert_eq!(
        list_names(&[r.clone()], Format::Json).unwrap(),
        "[\"web\"]\n"
    );
    assert_eq!(list_names(&[r], Format::Yaml).unwrap(), "- web\n");
}

#[test]
fn history_rows_in_helms_field_order() {
    let r = release();
    let updated = time::go_json(at("2026-03-04T05:06:00Z"));
    assert_eq!(
        history(std::slice::from_ref(&r), Format::Json).unwrap(),
        format!(
            "[{{\"revision\":2,\"updated\":\"{updated}\",\"status\":\"deployed\",\"chart\":\"crashy-0.1.0\",\"app_version\":\"1.16\",\"description\":\"Upgrade complete\"}}]\n"
        )
    );
    let deployed = time::ansic(Some(at("2026-03-04T05:06:00Z")));
    let pad = " ".repeat(deployed.chars().count() - "UPDATED".len());
    assert_eq!(
        history(&[r], Format::Table).unwrap(),
        format!(
            "REVISION\tUPDATED{pad}\tSTATUS  \tCHART       \tAPP VERSION\tDESCRIPTION     \n\
             2       \t{deployed}\tdeployed\tcrashy-0.1.0\t1.16       \tUpgrade complete\n"
        )
    );
}

#[test]
fn values_sorted_with_helms_headings_and_nil_map() {
    let r = release();
    assert_eq!(
        values(&r.config, false, Format::Table).unwrap(),
        "USER-SUPPLIED VALUES:\nmessage: hi\nweb: ok\n"
    );
    assert_eq!(
        values(&r.config, false, Format::Json).unwrap(),
        "{\"message\":\"hi\",\"web\":\"ok\"}\n"
    );
    assert_eq!(values(&Map::new(), false, Format::Json).unwrap(), "null\n");
    assert_eq!(values(&Map::new(), true, Format::Json).unwrap(), "{}\n");
    assert_eq!(
        values(&Map::new(), true, Format::Table).unwrap(),
        "COMPUTED VALUES:\nnull\n"
    );
    assert_eq!(values(&Map::new(), false, Format::Yaml).unwrap(), "null\n");
}

#[test]
fn metadata_lists_sorted_dependencies_labels_and_the_apply_method() {
    let r = release();
    let labels = BTreeMap::from([
        ("owner".to_string(), "helm".to_string()),
        ("name".to_string(), "web".to_string()),
    ]);
    assert_eq!(
        metadata(&r, &labels, Format::Table).unwrap(),
        "NAME: web\nCHART: crashy\nVERSION: 0.1.0\nAPP_VERSION: 1.16\nANNOTATIONS: \n\
         LABELS: name=web,owner=helm\nDEPENDENCIES: alpha,zeta\nNAMESPACE: shop\nREVISION: 2\n\
         STATUS: deployed\nDEPLOYED_AT: 2026-03-04T05:06:00Z\nAPPLY_METHOD: server-side apply\n"
    );
    let v: Value =
        serde_json::from_str(&metadata(&r, &BTreeMap::new(), Format::Json).unwrap()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "name",
            "chart",
            "version",
            "appVersion",
            "dependencies",
            "namespace",
            "revision",
            "status",
            "deployedAt",
            "applyMethod"
        ]
    );
}

#[test]
fn get_all_and_the_parts_of_a_revision() {
    let r = release();
    let computed = json!({"web": "ok", "message": "hi", "count": 3})
        .as_object()
        .cloned()
        .unwrap();
    let all = get_all(&r, &computed).unwrap();
    assert!(all.contains("REVISION: 2\nCHART: crashy\nVERSION: 0.1.0\nAPP_VERSION: 1.16\nDESCRIPTION: Upgrade complete\nTEST SUITE:     web-test\n"), "{all}");
    assert!(all.contains(
        "USER-SUPPLIED VALUES:\nmessage: hi\nweb: ok\n\nCOMPUTED VALUES:\ncount: 3\nmessage: hi\nweb: ok\n\nHOOKS:\n---\n# Source: crashy/templates/test.yaml\nkind: Pod\nMANIFEST:\n---\n# Source: crashy/templates/cm.yaml\nkind: ConfigMap\nNOTES:\nThanks!\n"
    ), "{all}");
    assert_eq!(manifest(&r), format!("{}\n", r.manifest));
    assert_eq!(
        hooks(&r),
        "---\n# Source: crashy/templates/test.yaml\nkind: Pod\n"
    );
    assert_eq!(notes(&r), "NOTES:\n  Thanks!\n\n");
}
