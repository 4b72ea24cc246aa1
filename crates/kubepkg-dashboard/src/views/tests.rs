//! The views drawn from a recorded revision (the kubevirt fixture): the graph's steps follow
//! `dependsOn`, states are words as well as colours, cluster text is escaped, and the list's
//! filter and counts work from query parameters alone.

use kubepkg_package::instance::ComponentState;
use kubepkg_package::plan::fixtures::previous_revision;
use kubepkg_package::revision::{PackageRevision, RevisionStatus};

use crate::query::Query;
use crate::read::Status;

/// Asserts that `text` contains `part`, showing all of `text` when it does not.
#[track_caller]
fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}

fn revision() -> PackageRevision {
    let mut rev = previous_revision("1.4.0", Some(true));
    rev.components[1].depends_on = vec!["operator".into()];
    rev.components[2].depends_on = vec!["kubevirt".into()];
    rev.description = "<script>alert(1)</script>".into();
    rev
}

fn state(name: &str, ready: bool, waiting: Option<&str>) -> ComponentState {
    ComponentState {
        name: name.into(),
        release: format!("kv-{name}"),
        namespace: "kubevirt".into(),
        revision: 1,
        ready,
        waiting_for: waiting.map(str::to_string),
    }
}

fn status() -> Status {
    Status {
        revision: revision(),
        components: vec![
            state("operator", true, None),
            state(
                "kubevirt",
                false,
                Some("KubeVirt kubevirt/kv: Available=False"),
            ),
            state("worker", true, None),
        ],
    }
}

#[test]
fn the_graph_has_a_step_per_depth_and_says_each_state_in_words() {
    let html = super::package::render(&status(), &[]);
    assert_eq!(html.matches("<li class=\"step\">").count(), 3, "{html}");
    let step2 = html
        .split("<h3 class=\"step-title\">Step 2</h3>")
        .nth(1)
        .unwrap();
    let step2 = step2.split("</li>\n").next().unwrap();
    assert_contains(step2, "data-live-key=\"kubevirt\"");
    assert_contains(step2, "<span class=\"word\">Waiting</span>");
    assert_contains(step2, "waiting for KubeVirt kubevirt/kv: Available=False");
    assert_contains(step2, "<dt>After</dt><dd>operator</dd>");
    // Deployed, but a component waits now: kstatus reads the live conditions, as `status`.
    assert_contains(&html, "kstatus: <strong>InProgress</strong>");
    assert_contains(&html, "<th scope=\"row\">Reconciling</th><td>True</td>");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("<script>alert"));
}

#[test]
fn the_list_counts_filters_and_sorts_by_query_parameters() {
    let ready = Status {
        revision: {
            let mut r = revision();
            r.name = "other".into();
            r
        },
        components: vec![state("operator", true, None)],
    };
    let mut failed = status();
    failed.revision.status = RevisionStatus::Failed;
    let all = [failed, ready];
    // The list of `all` under the query string `query`, for `scope`.
    let list = |query: Option<&str>, scope: &str| {
        super::list::render(&all, &Default::default(), &Query::parse(query), scope)
    };
    let html = list(None, "namespace kubepkg-system");
    assert_contains(&html, "<span class=\"count\">1</span> package");
    assert_eq!(html.matches("<tr data-live-key=").count(), 2);
    let html = list(Some("state=failed"), "x");
    assert_eq!(html.matches("<tr data-live-key=").count(), 1);
    assert_contains(&html, "data-live-key=\"kubepkg-system/kv\"");
    let html = list(Some("q=nothing"), "x");
    assert_contains(&html, "No package matches");
    let html = list(Some("sort=name"), "x");
    let (kv, other) = (
        html.find(">kv</a>").unwrap(),
        html.find(">other</a>").unwrap(),
    );
    assert!(kv < other);
}

#[test]
fn the_list_shows_package_objects_elsewhere_and_rollouts_from_their_status() {
    use crate::read::{ElsewhereRow, Others, RolloutRow};
    let others = Others {
        elsewhere: vec![ElsewhereRow {
            namespace: "shop".into(),
            name: "edge".into(),
            target: Some("https://edge.example:6443".into()),
            version: "2.0.0".into(),
            revision: Some(3),
            ready: Some((
                "False".into(),
                "UpgradeFailed".into(),
                "a <b> failed".into(),
            )),
        }],
        rollouts: vec![RolloutRow {
            namespace: "shop".into(),
            name: "web".into(),
            phase: String::new(),
            stage: String::new(),
            message: String::new(),
            clusters: vec!["f1: Ready".into(), "f2: InProgress".into()],
        }],
    };
    let html = super::list::render(&[], &others, &Query::parse(None), "x");
    assert_contains(
        &html,
        "<a href=\"/packages/shop/edge/plan\">edge</a></th><td>shop</td><td>https://edge.example:6443</td><td>2.0.0</td><td>3</td><td>False</td><td>UpgradeFailed</td><td>a &lt;b&gt; failed</td>",
    );
    assert_contains(
        &html,
        "<th scope=\"row\">web</th><td>shop</td><td>not reconciled yet</td><td></td><td>f1: Ready, f2: InProgress</td>",
    );
    // Neither is counted among the packages with revisions here.
    assert_contains(&html, "0 packages");
}
