//! Values as a recorded package revision holds them: each effective leaf explained by the
//! source the revision recorded (`kubepkg values --revision N --explain`), and the notice an
//! apply gives when it drops the user values of the deployed revision
//! (docs/rules.md#values-provenance). The layering itself is the model's
//! ([`kubepkg_model::values`]).

use serde_json::{Map, Value};

use kubepkg_model::values::{Effective, Layering, UserValues, ValueLayer, ValueSource};

use crate::revision::PackageRevision;

/// Explains a component's values as recorded in the cluster, for `kubepkg values --revision N
/// --explain`: `chart_defaults` from the release's chart, `supplied` the release's user-supplied
/// values (package defaults, user values and `kubepkg.*`), `revision` the package revision.
/// The user values are explained by the sources the revision recorded (`valueSources`); a
/// revision recorded before kubepkg kept them names its user values as a whole. What `supplied`
/// holds beyond them came from the package defaults, except the `kubepkg` key (the upgrade
/// context).
pub fn effective_recorded(
    chart_defaults: &Map<String, Value>,
    supplied: &Map<String, Value>,
    revision: &PackageRevision,
    component: &str,
) -> Effective {
    let mut package_layer = supplied.clone();
    let context = package_layer.remove("kubepkg");
    let mut layering = Layering::default();
    layering.overlay(chart_defaults, &ValueSource::ChartDefault);
    layering.overlay(&package_layer, &ValueSource::PackageDefault);
    if revision.value_sources.is_empty() {
        if let Some(given) = revision.values.get(component) {
            layering.overlay(given, &ValueSource::Recorded(revision.revision));
        }
    } else {
        for layer in &revision.value_sources {
            if let Some(Value::Object(m)) = layer.values.get(component) {
                layering.overlay(m, &layer.source);
            }
        }
    }
    if let Some(ctx) = context {
        let mut m = Map::new();
        m.insert("kubepkg".into(), ctx);
        layering.overlay(&m, &ValueSource::UpgradeContext);
    }
    layering.effective()
}

/// What an apply does to the user values of the deployed revision, when it gives other ones:
/// kubepkg never carries values over silently (Helm's `upgrade` without values reuses the old
/// ones without a word; with any value it drops the rest). `None` when nothing given before is
/// lost. The text names the revision, the components and the sources that are not kept.
pub fn dropped_values_notice(deployed: &PackageRevision, user: &UserValues) -> Option<String> {
    let now = user.given_all();
    // Values given for that revision only (`--set-once`…) are meant to go: not noted.
    let only_once = |c: &String| {
        !deployed.value_sources.is_empty()
            && deployed
                .value_sources
                .iter()
                .filter(|l| l.values.contains_key(c))
                .all(ValueLayer::is_once)
    };
    let lost: Vec<&String> = deployed
        .values
        .iter()
        .filter(|(c, v)| !v.is_empty() && !now.contains_key(*c) && !only_once(c))
        .map(|(c, _)| c)
        .collect();
    if lost.is_empty() {
        return None;
    }
    let mut sources: Vec<String> = deployed
        .value_sources
        .iter()
        .filter(|l| !l.is_once() && lost.iter().any(|c| l.values.contains_key(*c)))
        .map(ValueLayer::named)
        .collect();
    sources.dedup();
    let names: Vec<&str> = lost.iter().map(|s| s.as_str()).collect();
    let from = if sources.is_empty() {
        String::new()
    } else {
        format!(" (from {})", sources.join("; "))
    };
    Some(format!(
        "values given in revision {}{from} for component(s) {} are not kept: this apply gives none for them, so they go back to package and chart defaults; pass them again (-f/--set) to keep them (`kubepkg values {} --revision {}` prints them)",
        deployed.revision,
        names.join(", "),
        deployed.name,
        deployed.revision
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use kubepkg_model::values::{Explained, merge_maps};

    /// Each explained leaf as (path, source), what the assertions compare.
    fn sources(e: &Effective) -> Vec<(String, String)> {
        let leaf = |x: &Explained| (x.path.clone(), x.source.to_string());
        e.explain.iter().map(leaf).collect()
    }

    fn revision_with(user: &UserValues, n: u64) -> crate::revision::PackageRevision {
        let values = user.given_all();
        crate::revision::PackageRevision {
            name: "shop".into(),
            namespace: "default".into(),
            revision: n,
            package: "shop".into(),
            version: "1.0.0".into(),
            manifest_digest: "sha256:00".into(),
            values_digest: crate::revision::values_digest(&values),
            values,
            value_sources: user.layers(),
            status: crate::revision::RevisionStatus::Deployed,
            ..Default::default()
        }
    }

    #[test]
    fn recorded_values_are_explained_from_the_release_and_the_revision() {
        // Regression: a value given with --set was explained as "file values given in revision N".
        let mut user = UserValues::new();
        user.add_file("prod.yaml", "worker: {replicas: 3, tier: gold}\n")
            .unwrap();
        user.add_set("worker.replicas=5").unwrap();
        user.add_set_string("worker.tier=010").unwrap();
        user.add_set_json("worker.ports=[80,443]").unwrap();
        let rev = revision_with(&user, 4);
        // Through the stored Secret, as `kubepkg values --revision 4` reads it.
        let rev = crate::revision::from_secret(&crate::revision::to_secret(&rev)).unwrap();
        let chart = json!({"replicas": 1, "image": "w:1"})
            .as_object()
            .cloned()
            .unwrap();
        let mut supplied = json!({"size": "medium", "kubepkg": {"toVersion": "2.0.0"}})
            .as_object()
            .cloned()
            .unwrap();
        supplied = merge_maps(supplied, &user.given("worker"));
        let e = effective_recorded(&chart, &supplied, &rev, "worker");
        assert_eq!(
            sources(&e),
            [
                ("image".into(), "chart default".into()),
                ("kubepkg.toVersion".into(), "kubepkg upgrade context".into()),
                ("ports".into(), "--set-json worker.ports=[80,443]".into()),
                ("replicas".into(), "--set worker.replicas=5".into()),
                ("size".into(), "package default (kubepkg.yaml)".into()),
                ("tier".into(), "--set-string worker.tier=010".into()),
            ]
        );
        assert_eq!(e.values["replicas"], json!(5));
        assert_eq!(e.values["tier"], json!("010"));
    }

    #[test]
    fn revisions_recorded_without_sources_still_read_and_say_so() {
        // A record as kubepkg wrote it before `valueSources` existed (field absent).
        let mut user = UserValues::new();
        user.add_set("worker.replicas=5").unwrap();
        let mut json = serde_json::to_value(revision_with(&user, 2)).unwrap();
        json.as_object_mut().unwrap().remove("valueSources");
        let payload = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            serde_json::to_vec(&json).unwrap(),
        );
        let old =
            crate::revision::decode("kubepkg.package.v1.shop.v2", payload.as_bytes()).unwrap();
        assert!(old.value_sources.is_empty());
        let supplied = json!({"replicas": 5}).as_object().cloned().unwrap();
        let e = effective_recorded(&Map::new(), &supplied, &old, "worker");
        assert_eq!(
            sources(&e),
            [(
                "replicas".into(),
                "user values of revision 2 (-f or --set; this revision was recorded without their sources)"
                    .into()
            )]
        );
    }

    #[test]
    fn an_apply_without_the_values_of_the_deployed_revision_says_they_are_dropped() {
        let mut before = UserValues::new();
        before.add_set("worker.replicas=5").unwrap();
        before.add_file("db.yaml", "db: {size: 10Gi}\n").unwrap();
        let deployed = revision_with(&before, 3);
        let mut now = UserValues::new();
        now.add_set("db.size=20Gi").unwrap();
        let notice = dropped_values_notice(&deployed, &now).unwrap();
        assert_eq!(
            notice,
            "values given in revision 3 (from --set worker.replicas) for component(s) worker are not kept: this apply gives none for them, so they go back to package and chart defaults; pass them again (-f/--set) to keep them (`kubepkg values shop --revision 3` prints them)"
        );
        assert!(dropped_values_notice(&deployed, &before).is_none());
        let notice = dropped_values_notice(&deployed, &UserValues::new()).unwrap();
        assert!(notice.contains("component(s) db, worker"), "{notice}");

        // A secret given with --set (any flag) is named by its key, never echoed.
        let mut secret = UserValues::new();
        secret
            .add_set("app.token=s3cr3t-t0ken,app.user=admin")
            .unwrap();
        secret.add_set_string("app.pin=0042").unwrap();
        secret
            .add_set_json(r#"app.key={"k":"js0n-s3cret"}"#)
            .unwrap();
        secret
            .add_set_file("app.cert=cert.pem", &|_: &str| Ok("PEM-S3CRET".into()))
            .unwrap();
        let deployed = revision_with(&secret, 4);
        let notice = dropped_values_notice(&deployed, &UserValues::new()).unwrap();
        for value in ["s3cr3t-t0ken", "admin", "0042", "js0n-s3cret", "PEM-S3CRET"] {
            assert!(!notice.contains(value), "{value} in {notice}");
        }
        assert!(
            notice.contains(
                "(from --set-json app.key.k; --set app.token,app.user; --set-string app.pin; --set-file app.cert)"
            ),
            "{notice}"
        );
    }
}
