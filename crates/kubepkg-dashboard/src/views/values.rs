//! Each component's effective values in a revision, every leaf with the source that set it
//! (`kubepkg values --explain`). A value read from a Secret (a `Package`'s `spec.valuesFrom`)
//! is not shown: only its size.

use std::fmt::Write;

use kubepkg_model::values::{Effective, Explained, ValueSource, display_value};
use kubepkg_package::revision::{History, PackageRevision};

use crate::html::{esc, page};
use crate::views::package::{crumbs, tabs};

/// The values page of `rev` (`history` lists the revisions one may choose).
pub fn render(
    rev: &PackageRevision,
    history: &History,
    components: &[(String, Effective)],
) -> String {
    let mut body = format!(
        "<h1>Values of {}/{}</h1>\n{}",
        esc(&rev.namespace),
        esc(&rev.name),
        tabs(&rev.namespace, &rev.name, "values")
    );
    let mut options = String::new();
    for r in history.revisions.iter().rev() {
        let s = if r.revision == rev.revision {
            " selected"
        } else {
            ""
        };
        let _ = write!(
            options,
            "<option value=\"{n}\"{s}>{n} ({} {})</option>",
            esc(&r.version),
            r.status.as_str(),
            n = r.revision
        );
    }
    let _ = write!(
        body,
        "<form class=\"compare\" method=\"get\"><label>Revision <select name=\"revision\">{options}</select></label> <button type=\"submit\">Show</button></form>\n\
<p>Revision {} ({} {}): each value and where it came from, lowest precedence first: chart default, package default, then the user's sources.</p>\n",
        rev.revision,
        esc(&rev.package),
        esc(&rev.version)
    );
    if components.is_empty() {
        body.push_str("<p>No component's release revision is kept for this revision.</p>");
    }
    for (name, eff) in components {
        let _ = write!(
            body,
            "<section aria-labelledby=\"c-{id}\"><h2 id=\"c-{id}\">{name}</h2>",
            id = esc(name),
            name = esc(name)
        );
        if eff.explain.is_empty() {
            body.push_str("<p>No values.</p></section>\n");
            continue;
        }
        body.push_str("<table class=\"values\"><thead><tr><th scope=\"col\">Path</th><th scope=\"col\">Value</th><th scope=\"col\">Set by</th></tr></thead><tbody>");
        for e in &eff.explain {
            let shown = shown(e);
            let _ = write!(
                body,
                "<tr><th scope=\"row\"><code>{}</code></th><td><code>{}</code></td><td>{}</td></tr>",
                esc(&e.path),
                esc(&shown),
                esc(&e.source.to_string())
            );
        }
        body.push_str("</tbody></table></section>\n");
    }
    let title = format!("Values of {}/{}", rev.namespace, rev.name);
    page(&title, &crumbs(rev, "values", "Values"), &body, None)
}

/// A value as the dashboard shows it: one read from a Secret (`spec.valuesFrom`) by its size.
pub fn shown(e: &Explained) -> String {
    match &e.source {
        ValueSource::PackageValuesFrom(_) => format!(
            "(from a Secret, not shown: {} bytes)",
            display_value(&e.value).len()
        ),
        _ => display_value(&e.value),
    }
}

/// The lines a values diff compares: `path: value  # source`, one per leaf.
pub fn lines(eff: &Effective) -> String {
    eff.explain
        .iter()
        .map(|e| format!("{}: {}  # {}\n", e.path, shown(e), e.source))
        .collect()
}
