//! One package: its components as a graph in `dependsOn` order (a column per step: a
//! component stands right of everything it depends on), each with its live state, what it
//! waits for and its gates (`readyWhen`); the hooks the revision ran; the revision's
//! conditions and the Events about the package.

use std::collections::BTreeMap;
use std::fmt::Write;

use kubepkg_package::revision::{ComponentRecord, PackageRevision};

use crate::html::{age, badge, esc, package_href, page};
use crate::read::{EventLine, Status};
use crate::state;
use crate::state::LiveRow;

/// The live state of the package (key `namespace/name`) and of each component (key: its
/// name).
pub fn live_rows(s: &Status) -> Vec<LiveRow> {
    let rev = &s.revision;
    let (st, waiting) = state::package(rev, &s.components);
    let mut rows = vec![LiveRow::new(
        format!("{}/{}", rev.namespace, rev.name),
        st,
        waiting,
    )];
    rows.extend(s.components.iter().map(|c| {
        let (st, waiting) = state::component(rev, c);
        LiveRow::new(c.name.clone(), st, waiting)
    }));
    rows
}

/// The links between a package's pages, `current` marked.
pub fn tabs(namespace: &str, name: &str, current: &str) -> String {
    let mut out = String::from("<nav aria-label=\"Package\" class=\"tabs\"><ul>");
    for (view, label) in [
        ("", "Components"),
        ("history", "History"),
        ("values", "Values"),
        ("plan", "Plan"),
    ] {
        let aria = if view == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<li><a href=\"{}\"{aria}>{label}</a></li>",
            package_href(namespace, name, view)
        );
    }
    out.push_str("</ul></nav>\n");
    out
}

/// The page's breadcrumbs, ending at `view` of the package.
pub fn crumbs(rev: &PackageRevision, view: &str, label: &str) -> Vec<(String, String)> {
    crumbs_of(&rev.namespace, &rev.name, view, label)
}

/// [`crumbs`] of package `name` in `namespace`.
pub fn crumbs_of(namespace: &str, name: &str, view: &str, label: &str) -> Vec<(String, String)> {
    let mut c = vec![
        ("Packages".to_string(), "/".to_string()),
        (
            format!("{namespace}/{name}"),
            package_href(namespace, name, ""),
        ),
    ];
    if !view.is_empty() {
        c.push((label.to_string(), package_href(namespace, name, view)));
    }
    c
}

/// The components of the revision in apply order: those applied, then (while its run goes
/// on) those it has yet to apply.
fn components(rev: &PackageRevision) -> Vec<&ComponentRecord> {
    let to_apply = rev.to_apply.iter().filter(|_| rev.status.is_pending());
    rev.components.iter().chain(to_apply).collect()
}

/// The step (column) of each component: one more than the deepest component it depends on.
fn levels(rev: &PackageRevision) -> BTreeMap<String, usize> {
    let mut level: BTreeMap<String, usize> = BTreeMap::new();
    // Components are recorded in apply order, so dependencies come first.
    for c in components(rev) {
        let l = c
            .depends_on
            .iter()
            .filter_map(|d| level.get(d))
            .max()
            .map_or(0, |m| m + 1);
        level.insert(c.name.clone(), l);
    }
    level
}

/// The package page.
pub fn render(s: &Status, events: &[EventLine]) -> String {
    let rev = &s.revision;
    let (st, waiting) = state::package(rev, &s.components);
    let mut body = format!(
        "<h1>Package {ns}/{name}</h1>\n{tabs}<dl class=\"summary\">\
<dt>State</dt><dd data-live-key=\"{ns}/{name}\"><span class=\"state\">{badge}</span> <span class=\"waits\">{waits}</span></dd>\
<dt>Package</dt><dd>{pkg} {version}</dd><dt>Revision</dt><dd>{revision} ({status})</dd>\
<dt>Reason</dt><dd>{reason}</dd><dt>Last applied</dt><dd>{age} ago</dd></dl>\n",
        ns = esc(&rev.namespace),
        name = esc(&rev.name),
        tabs = tabs(&rev.namespace, &rev.name, ""),
        badge = badge(st),
        waits = esc(&waiting),
        pkg = esc(&rev.package),
        version = esc(&rev.version),
        revision = rev.revision,
        status = rev.status.as_str(),
        reason = rev.reason.map_or("none yet", |r| r.as_str()),
        age = age(&rev.last_deployed),
    );
    if !rev.description.is_empty() {
        let _ = writeln!(
            body,
            "<p class=\"description\">{}</p>",
            esc(&rev.description)
        );
    }
    body.push_str(&graph(s));
    body.push_str(&hooks(rev));
    body.push_str(&conditions(rev, &waiting));
    body.push_str(&events_table(events));
    let title = format!("{}/{}", rev.namespace, rev.name);
    let live = format!("/events/{}/{}", rev.namespace, rev.name);
    page(&title, &crumbs(rev, "", ""), &body, Some(&live))
}

/// The components, a column per step of the `dependsOn` order.
fn graph(s: &Status) -> String {
    let rev = &s.revision;
    let levels = levels(rev);
    let depth = levels.values().max().map_or(0, |m| m + 1);
    let mut out = String::from(
        "<section aria-labelledby=\"components\"><h2 id=\"components\">Components</h2>\n\
<p class=\"hint\">In apply order: each step starts when the steps before it are ready.</p>\n<ol class=\"graph\">\n",
    );
    for step in 0..depth {
        let _ = write!(
            out,
            "<li class=\"step\"><h3 class=\"step-title\">Step {}</h3><ul>",
            step + 1
        );
        for c in components(rev)
            .into_iter()
            .filter(|c| levels.get(&c.name) == Some(&step))
        {
            let live = s.components.iter().find(|l| l.name == c.name);
            let (st, waiting) = match live {
                Some(l) => state::component(rev, l),
                None => (state::State::Unknown, String::new()),
            };
            let _ = write!(
                out,
                "<li class=\"node\" data-live-key=\"{name}\"><h4>{name}</h4>\
<p class=\"state\">{badge}</p><p class=\"waits\">{waits}</p><dl>",
                name = esc(&c.name),
                badge = badge(st),
                waits = esc(&waiting),
            );
            if !c.depends_on.is_empty() {
                let _ = write!(
                    out,
                    "<dt>After</dt><dd>{}</dd>",
                    esc(&c.depends_on.join(", "))
                );
            }
            let _ = write!(
                out,
                "<dt>Release</dt><dd>{} (revision {})</dd>",
                esc(&format!("{}/{}", c.namespace, c.release)),
                live.map_or(c.revision, |l| l.revision)
            );
            if !c.chart.is_empty() {
                let _ = write!(out, "<dt>Chart</dt><dd>{}</dd>", esc(&c.chart));
            }
            let mut gates = vec!["its workloads ready (kstatus)".to_string()];
            for g in &c.ready_when {
                gates.push(format!(
                    "{} {} {}={}",
                    g.kind,
                    g.namespace
                        .as_deref()
                        .map_or(g.name.clone(), |n| format!("{n}/{}", g.name)),
                    g.condition,
                    g.status
                ));
            }
            let _ = write!(
                out,
                "<dt>Ready when</dt><dd>{}</dd></dl></li>",
                esc(&gates.join("; "))
            );
        }
        out.push_str("</ul></li>\n");
    }
    out.push_str("</ol></section>\n");
    out
}

/// The hooks this revision ran or keeps, each marked as a hook, with its verdict.
fn hooks(rev: &PackageRevision) -> String {
    let mut names: Vec<&str> = rev
        .hooks_completed
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    names.extend(rev.hook_verdicts.iter().map(|v| v.hook.as_str()));
    names.extend(rev.rollback_hooks.iter().map(|h| h.name.as_str()));
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section aria-labelledby=\"hooks\"><h2 id=\"hooks\">Hooks</h2><ul class=\"hooks\">",
    );
    for n in names {
        let mut what = Vec::new();
        if let Some(h) = rev.hooks_completed.iter().find(|h| h.name == n) {
            what.push(format!(
                "PreUpgrade hook, ran for {} → {}",
                h.from_version, h.to_version
            ));
        }
        if rev.rollback_hooks.iter().any(|h| h.name == n) {
            what.push("PreRollback hook, kept for a rollback away from this version".to_string());
        }
        for v in rev.hook_verdicts.iter().filter(|v| v.hook == n) {
            what.push(v.to_string());
        }
        let _ = write!(
            out,
            "<li><span class=\"hook-mark\">Hook</span> <strong>{}</strong>: {}</li>",
            esc(n),
            esc(&what.join("; "))
        );
    }
    out.push_str("</ul></section>\n");
    out
}

/// The conditions as `kubepkg status` shows them, and kstatus' reading of them.
fn conditions(rev: &PackageRevision, waiting: &str) -> String {
    let (now, kstatus) = state::conditions(rev, waiting);
    let mut out = format!(
        "<section aria-labelledby=\"conditions\"><h2 id=\"conditions\">Conditions</h2><p>kstatus: <strong>{kstatus}</strong></p>"
    );
    if now.is_empty() {
        out.push_str("<p>None recorded yet.</p></section>\n");
        return out;
    }
    out.push_str("<table><thead><tr><th scope=\"col\">Type</th><th scope=\"col\">Status</th><th scope=\"col\">Reason</th><th scope=\"col\">Message</th><th scope=\"col\">Since</th></tr></thead><tbody>");
    for c in &now {
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&c.type_),
            esc(&c.status),
            esc(&c.reason),
            esc(&c.message),
            esc(&c.last_transition_time)
        );
    }
    out.push_str("</tbody></table></section>\n");
    out
}

fn events_table(events: &[EventLine]) -> String {
    let mut out = String::from("<section aria-labelledby=\"events\"><h2 id=\"events\">Events</h2>");
    if events.is_empty() {
        out.push_str("<p>No Events about this package's objects (Events expire after an hour).</p></section>\n");
        return out;
    }
    out.push_str("<table><thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Type</th><th scope=\"col\">Object</th><th scope=\"col\">Reason</th><th scope=\"col\">Message</th></tr></thead><tbody>");
    for e in events {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&e.when),
            if e.warning { "⚠ Warning" } else { "Normal" },
            esc(&e.object),
            esc(&e.reason),
            esc(&e.message)
        );
    }
    out.push_str("</tbody></table></section>\n");
    out
}
