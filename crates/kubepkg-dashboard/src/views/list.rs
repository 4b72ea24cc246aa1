//! The package list: every package shown, its version, revision, state with its reason and
//! what it waits for, and age; counts by state; filter (`state`, `q`) and sort (`sort`) as
//! query parameters of a GET form, so it all works without JavaScript.

use std::fmt::Write;

use crate::html::{age, badge, esc, package_href, page};
use crate::query::Query;
use crate::read::Status;
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
pub fn render(all: &[Status], query: &Query, scope: &str) -> String {
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
    page("Packages", &crumbs(), &body, Some("/events"))
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
