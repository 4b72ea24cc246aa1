//! The package list: every package shown, its version, revision, state with its reason and
//! what it waits for, and age; counts by state; filter (`state`, `q`) and sort (`sort`) as
//! query parameters of a GET form, so it all works without JavaScript. Then the `Package`
//! objects with no revision here (applied in another cluster, or not yet) and the
//! `PackageRollout`s, each from its object's status.

use std::fmt::Write;

use crate::html::{age, badge, esc, package_href, page};
use crate::query::Query;
use crate::read::{Others, Status};
use crate::state::LiveRow;
use crate::state::{self, State};

/// The columns the list sorts by.
const SORTS: [(&str, &str); 5] = [
    ("name", "Name"),
    ("namespace", "Namespace"),
    ("state", "State"),
    ("revision", "Revision"),
    ("age", "Age"),
];

/// One row as shown.
struct Row<'a> {
    status: &'a Status,
    state: State,
    waiting: String,
}

/// The live state of each row (key `namespace/name`).
pub fn live_rows(all: &[Status]) -> Vec<LiveRow> {
    all.iter()
        .map(|s| {
            let (state, waiting) = state::package(&s.revision, &s.components);
            LiveRow::new(
                format!("{}/{}", s.revision.namespace, s.revision.name),
                state,
                waiting,
            )
        })
        .collect()
}

/// The list page.
pub fn render(all: &[Status], others: &Others, query: &Query, scope: &str) -> String {
    let mut rows: Vec<Row> = all
        .iter()
        .map(|s| {
            let (state, waiting) = state::package(&s.revision, &s.components);
            Row {
                status: s,
                state,
                waiting,
            }
        })
        .collect();
    let mut counts = String::new();
    for st in State::ALL {
        let n = rows.iter().filter(|r| r.state == st).count();
        if n > 0 {
            let _ = write!(
                counts,
                "<li><a href=\"/?state={}\">{} <span class=\"count\">{n}</span> {}</a></li>",
                st.key(),
                badge(st),
                if n == 1 { "package" } else { "packages" }
            );
        }
    }
    let wanted = query.get("state").and_then(State::from_key);
    let text = query.get("q").map(str::to_lowercase);
    rows.retain(|r| {
        wanted.is_none_or(|w| r.state == w)
            && text.as_ref().is_none_or(|t| {
                let rev = &r.status.revision;
                [&rev.name, &rev.namespace, &rev.package]
                    .iter()
                    .any(|f| f.to_lowercase().contains(t.as_str()))
            })
    });
    let sort = query
        .get("sort")
        .filter(|s| SORTS.iter().any(|(k, _)| k == s))
        .unwrap_or("namespace");
    rows.sort_by(|a, b| {
        let (x, y) = (&a.status.revision, &b.status.revision);
        let key = match sort {
            "name" => x.name.cmp(&y.name),
            "state" => a.state.cmp(&b.state),
            "revision" => y.revision.cmp(&x.revision),
            // Newest first.
            "age" => y.last_deployed.cmp(&x.last_deployed),
            _ => x.namespace.cmp(&y.namespace),
        };
        key.then_with(|| (&x.namespace, &x.name).cmp(&(&y.namespace, &y.name)))
    });

    let mut body = format!(
        "<h1>Packages</h1>\n<p>{} in {}.</p>\n<ul class=\"counts\" aria-label=\"Packages by state\">{counts}</ul>\n",
        match all.len() {
            1 => "1 package".to_string(),
            n => format!("{n} packages"),
        },
        esc(scope)
    );
    body.push_str(&filter_form(query, wanted, sort));
    if rows.is_empty() {
        body.push_str("<p class=\"empty\">No package matches. <a href=\"/\">Show all</a>.</p>");
        body.push_str(&elsewhere(others));
        return page("Packages", &crumbs(), &body, Some("/events"));
    }
    body.push_str("<table class=\"packages\">\n<caption class=\"visually-hidden\">Packages</caption>\n<thead><tr>");
    for (key, label) in [
        ("name", "Name"),
        ("namespace", "Namespace"),
        ("", "Package"),
        ("revision", "Revision"),
        ("state", "State"),
        ("", "Reason"),
        ("", "kstatus"),
        ("", "Waiting for"),
        ("age", "Age"),
    ] {
        if key.is_empty() {
            let _ = write!(body, "<th scope=\"col\">{label}</th>");
        } else if key == sort {
            let _ = write!(
                body,
                "<th scope=\"col\" aria-sort=\"{}\">{label}</th>",
                if matches!(key, "revision" | "age") {
                    "descending"
                } else {
                    "ascending"
                }
            );
        } else {
            let _ = write!(
                body,
                "<th scope=\"col\"><a href=\"/?sort={key}{}\">{label}</a></th>",
                wanted
                    .map(|w| format!("&amp;state={}", w.key()))
                    .unwrap_or_default()
            );
        }
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    for r in &rows {
        let rev = &r.status.revision;
        let reason = rev.reason.map(|r| r.as_str()).unwrap_or("");
        let _ = writeln!(
            body,
            "<tr data-live-key=\"{ns}/{name}\"><th scope=\"row\"><a href=\"{href}\">{name}</a></th><td>{ns}</td><td>{pkg} {version}</td><td>{revision}</td><td class=\"state\">{badge}</td><td>{reason}</td><td>{kstatus}</td><td class=\"waits\">{waits}</td><td>{age}</td></tr>",
            ns = esc(&rev.namespace),
            name = esc(&rev.name),
            href = package_href(&rev.namespace, &rev.name, ""),
            pkg = esc(&rev.package),
            version = esc(&rev.version),
            revision = rev.revision,
            badge = badge(r.state),
            kstatus = state::conditions(rev, &r.waiting).1,
            waits = esc(&r.waiting),
            age = age(&rev.last_deployed),
        );
    }
    body.push_str("</tbody>\n</table>\n");
    body.push_str(&elsewhere(others));
    page("Packages", &crumbs(), &body, Some("/events"))
}

/// The `Package` objects with no revision here and the `PackageRollout`s, as their status
/// says (as of the page's load).
fn elsewhere(others: &Others) -> String {
    let mut out = String::new();
    if !others.elsewhere.is_empty() {
        out.push_str("<section aria-labelledby=\"elsewhere\"><h2 id=\"elsewhere\">Package objects applied in another cluster or not yet</h2>\n<table class=\"packages\"><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Namespace</th><th scope=\"col\">Where</th><th scope=\"col\">Version</th><th scope=\"col\">Revision</th><th scope=\"col\">Ready</th><th scope=\"col\">Reason</th><th scope=\"col\">Message</th></tr></thead><tbody>\n");
        for r in &others.elsewhere {
            let (ready, reason, message) = r
                .ready
                .clone()
                .unwrap_or_else(|| ("Unknown".into(), String::new(), "not reconciled yet".into()));
            let _ = writeln!(
                out,
                "<tr><th scope=\"row\"><a href=\"{href}\">{name}</a></th><td>{ns}</td><td>{target}</td><td>{version}</td><td>{revision}</td><td>{ready}</td><td>{reason}</td><td>{message}</td></tr>",
                href = package_href(&r.namespace, &r.name, "plan"),
                name = esc(&r.name),
                ns = esc(&r.namespace),
                target = esc(r
                    .target
                    .as_deref()
                    .unwrap_or("this cluster (not applied yet)")),
                version = esc(&r.version),
                revision = r.revision.map(|n| n.to_string()).unwrap_or_default(),
                ready = esc(&ready),
                reason = esc(&reason),
                message = esc(&message),
            );
        }
        out.push_str("</tbody></table></section>\n");
    }
    if !others.rollouts.is_empty() {
        out.push_str("<section aria-labelledby=\"rollouts\"><h2 id=\"rollouts\">Rollouts</h2>\n<table class=\"packages\"><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Namespace</th><th scope=\"col\">Phase</th><th scope=\"col\">Stage</th><th scope=\"col\">Clusters</th><th scope=\"col\">Message</th></tr></thead><tbody>\n");
        for r in &others.rollouts {
            let phase = if r.phase.is_empty() {
                "not reconciled yet"
            } else {
                r.phase.as_str()
            };
            let _ = writeln!(
                out,
                "<tr><th scope=\"row\">{name}</th><td>{ns}</td><td>{phase}</td><td>{stage}</td><td>{clusters}</td><td>{message}</td></tr>",
                name = esc(&r.name),
                ns = esc(&r.namespace),
                phase = esc(phase),
                stage = esc(&r.stage),
                clusters = esc(&r.clusters.join(", ")),
                message = esc(&r.message),
            );
        }
        out.push_str("</tbody></table></section>\n");
    }
    out
}

fn crumbs() -> Vec<(String, String)> {
    vec![("Packages".to_string(), "/".to_string())]
}

/// The GET form of the filter and sort.
fn filter_form(query: &Query, wanted: Option<State>, sort: &str) -> String {
    let mut states = String::from("<option value=\"\">any state</option>");
    for st in State::ALL {
        let selected = if wanted == Some(st) { " selected" } else { "" };
        let _ = write!(
            states,
            "<option value=\"{}\"{selected}>{}</option>",
            st.key(),
            st.label()
        );
    }
    let mut sorts = String::new();
    for (key, label) in SORTS {
        let selected = if key == sort { " selected" } else { "" };
        let _ = write!(sorts, "<option value=\"{key}\"{selected}>{label}</option>");
    }
    format!(
        "<form class=\"filter\" method=\"get\" action=\"/\" role=\"search\">\
<label>Name contains <input type=\"search\" name=\"q\" value=\"{}\"></label> \
<label>State <select name=\"state\">{states}</select></label> \
<label>Sort by <select name=\"sort\">{sorts}</select></label> \
<button type=\"submit\">Show</button></form>\n",
        esc(query.get("q").unwrap_or_default())
    )
}
