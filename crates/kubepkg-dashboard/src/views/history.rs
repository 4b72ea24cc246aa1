//! A package's history: its revisions, newest first; each failed revision's kept diagnosis (the
//! description the run ended with: what failed, the unready pods, a failed hook's log tail) and
//! hook verdicts; and the diff between two revisions chosen with a GET form (the plan's diff:
//! a Secret shows its keys and sizes, never a value).

use std::fmt::Write;

use kubepkg_engine::compare::ComponentDiff;
use kubepkg_model::values::Effective;
use kubepkg_package::plan::ObjectChange;
use kubepkg_package::revision::{History, RevisionStatus};

use crate::html::{age, diff_line, esc, page};
use crate::views::package::{crumbs, tabs};

/// The revisions compared and their diff.
pub struct Compared {
    pub from: u64,
    pub to: u64,
    pub components: Vec<ComponentDiff>,
    /// Each component's effective values in the older and the newer revision.
    pub values_from: Vec<(String, Effective)>,
    pub values_to: Vec<(String, Effective)>,
}

/// The history page.
pub fn render(h: &History, compared: Option<&Compared>) -> String {
    let Some(latest) = h.latest() else {
        return page("History", &[], "<p>No revisions.</p>", None);
    };
    let mut body = format!(
        "<h1>History of {}/{}</h1>\n{}",
        esc(&latest.namespace),
        esc(&latest.name),
        tabs(&latest.namespace, &latest.name, "history")
    );
    body.push_str(&compare_form(h, compared));
    if let Some(c) = compared {
        body.push_str(&diff(c));
    }
    body.push_str("<section aria-labelledby=\"revisions\"><h2 id=\"revisions\">Revisions</h2>\n<table class=\"revisions\"><thead><tr><th scope=\"col\">Revision</th><th scope=\"col\">Status</th><th scope=\"col\">Reason</th><th scope=\"col\">Version</th><th scope=\"col\">Applied</th><th scope=\"col\">Description</th></tr></thead><tbody>\n");
    for r in h.revisions.iter().rev() {
        let failed = r.status == RevisionStatus::Failed;
        let short = r.description.lines().next().unwrap_or_default();
        let _ = writeln!(
            body,
            "<tr{}><th scope=\"row\">{}</th><td>{}{}</td><td>{}</td><td>{}</td><td>{} ago</td><td>{}{}</td></tr>",
            if failed { " class=\"failed\"" } else { "" },
            r.revision,
            if failed { "✗ " } else { "" },
            r.status.as_str(),
            r.reason.map_or("", |x| x.as_str()),
            esc(&r.version),
            age(&r.last_deployed),
            esc(short),
            if failed {
                format!(" <a href=\"#diagnosis-{}\">diagnosis</a>", r.revision)
            } else {
                String::new()
            }
        );
    }
    body.push_str("</tbody></table></section>\n");
    let failed: Vec<_> = h
        .revisions
        .iter()
        .rev()
        .filter(|r| r.status == RevisionStatus::Failed || !r.hook_verdicts.is_empty())
        .collect();
    if !failed.is_empty() {
        body.push_str("<section aria-labelledby=\"diagnosis\"><h2 id=\"diagnosis\">Failures and hook verdicts</h2>\n");
        for r in failed {
            let _ = write!(
                body,
                "<article id=\"diagnosis-{n}\" class=\"diagnosis\"><h3>Revision {n}: {status} ({reason})</h3><pre>{text}</pre>",
                n = r.revision,
                status = r.status.as_str(),
                reason = r.reason.map_or("no reason recorded", |x| x.as_str()),
                text = esc(&r.description),
            );
            if !r.hook_verdicts.is_empty() {
                body.push_str("<h4>Hook verdicts</h4><ul>");
                for v in &r.hook_verdicts {
                    let _ = write!(
                        body,
                        "<li><strong>{}</strong>: {}",
                        esc(&v.hook),
                        esc(&v.to_string())
                    );
                    if !v.affected.is_empty() {
                        let _ = write!(body, " (affected: {})", esc(&v.affected_text()));
                    }
                    if let Some(a) = &v.approve {
                        let _ = write!(body, " — to approve: <code>{}</code>", esc(a));
                    }
                    body.push_str("</li>");
                }
                body.push_str("</ul>");
            }
            body.push_str("</article>\n");
        }
        body.push_str("</section>\n");
    }
    let title = format!("History of {}/{}", latest.namespace, latest.name);
    page(&title, &crumbs(latest, "history", "History"), &body, None)
}

/// The GET form choosing two revisions.
fn compare_form(h: &History, compared: Option<&Compared>) -> String {
    if h.revisions.len() < 2 {
        return String::new();
    }
    let newest = h.revisions.last().map_or(0, |r| r.revision);
    let from = compared.map_or(newest.saturating_sub(1), |c| c.from);
    let to = compared.map_or(newest, |c| c.to);
    let options = |selected: u64| {
        let mut o = String::new();
        for r in h.revisions.iter().rev() {
            let s = if r.revision == selected {
                " selected"
            } else {
                ""
            };
            let _ = write!(
                o,
                "<option value=\"{n}\"{s}>{n} ({} {})</option>",
                esc(&r.version),
                r.status.as_str(),
                n = r.revision
            );
        }
        o
    };
    format!(
        "<form class=\"compare\" method=\"get\"><fieldset><legend>Compare two revisions</legend>\
<label>From <select name=\"from\">{}</select></label> <label>To <select name=\"to\">{}</select></label> \
<button type=\"submit\">Show the diff</button></fieldset></form>\n",
        options(from),
        options(to)
    )
}

/// The diff, component by component, object by object.
fn diff(c: &Compared) -> String {
    let mut out = format!(
        "<section aria-labelledby=\"diff\"><h2 id=\"diff\">Diff from revision {} to revision {}</h2>\n",
        c.from, c.to
    );
    let mut any = false;
    for comp in &c.components {
        let Some(objects) = &comp.objects else {
            let _ = write!(
                out,
                "<h3>{}</h3><p>Not compared: the release revision one side recorded is no longer kept (Helm's history limit) or was never applied.</p>",
                esc(&comp.name)
            );
            continue;
        };
        if objects.is_empty() {
            continue;
        }
        any = true;
        let charts = if comp.from_chart == comp.to_chart {
            esc(&comp.to_chart)
        } else {
            format!("{} → {}", esc(&comp.from_chart), esc(&comp.to_chart))
        };
        let _ = write!(
            out,
            "<h3>{} <span class=\"chart\">{charts}</span></h3>",
            esc(&comp.name)
        );
        for o in objects {
            let change = match o.change {
                ObjectChange::Added => "added",
                ObjectChange::Removed => "removed",
                ObjectChange::Changed => "changed",
            };
            let _ = write!(
                out,
                "<h4>{} <span class=\"change\">({change})</span></h4>",
                esc(&o.object)
            );
            if !o.secret_keys.is_empty() {
                out.push_str("<p>A Secret: its keys and their sizes, never its values.</p>");
            }
            out.push_str("<pre class=\"diff\">");
            for line in o.diff.lines() {
                // The plan's headers name the deployed and the planned side: here, revisions.
                let line = if line.starts_with("--- ") {
                    line.replace(" (deployed)", &format!(" (revision {})", c.from))
                } else if line.starts_with("+++ ") {
                    line.replace(" (planned)", &format!(" (revision {})", c.to))
                } else {
                    line.to_string()
                };
                // Each line a block: the spans need no newline between them.
                out.push_str(&diff_line(&line));
            }
            out.push_str("</pre>");
        }
    }
    if !any {
        out.push_str("<p>No rendered object differs.</p>");
    }
    out.push_str(&values_diff(c));
    out.push_str("</section>\n");
    out
}

/// Each component's effective values, leaf by leaf with their sources, diffed.
fn values_diff(c: &Compared) -> String {
    let mut out = String::from("<h3>Values</h3>");
    let mut names: Vec<&String> = c.values_to.iter().map(|(n, _)| n).collect();
    for (n, _) in &c.values_from {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let mut any = false;
    for name in names {
        let text = |all: &[(String, Effective)]| {
            all.iter()
                .find(|(n, _)| n == name)
                .map(|(_, e)| crate::views::values::lines(e))
                .unwrap_or_default()
        };
        let (old, new) = (text(&c.values_from), text(&c.values_to));
        if old == new {
            continue;
        }
        any = true;
        let diff = similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(2)
            .header(
                &format!("{name} (revision {})", c.from),
                &format!("{name} (revision {})", c.to),
            )
            .to_string();
        let _ = write!(out, "<h4>{}</h4><pre class=\"diff\">", esc(name));
        for line in diff.lines() {
            out.push_str(&diff_line(line));
        }
        out.push_str("</pre>");
    }
    if !any {
        out.push_str("<p>No component's values differ.</p>");
    }
    out
}
