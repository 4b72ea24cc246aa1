//! The plan of a `Package` object's current spec: whether the controller applied that spec yet
//! (and if not, why: suspended, waiting on requirements, in progress, failed), then the plan it
//! would run, as `kubepkg plan --cluster` prints it (Secret values masked), its diff lines
//! marked as the history's diff marks them.

use std::fmt::Write;

use crate::html::{diff_line, diff_line_at, esc, page};
use crate::read::PlanPage;
use crate::views::package::{crumbs_of, tabs};

/// Whether the spec is applied, said in a sentence.
fn applied(p: &PlanPage) -> String {
    let generation = p.generation.unwrap_or_default();
    let caught_up = p.observed.is_some() && p.observed == p.generation;
    let why = match (&p.ready, p.suspended) {
        (_, true) => "it is suspended (spec.suspend)".to_string(),
        (Some((reason, message)), _) if reason == "RequirementsNotMet" => {
            format!("it waits for its requirements: {message}")
        }
        (Some((reason, message)), _) if reason == "Progressing" => {
            format!("an apply is in progress: {message}")
        }
        (Some((reason, message)), _) => format!("its last apply ended {reason}: {message}"),
        (None, _) => "the controller has not reconciled it yet".to_string(),
    };
    if caught_up && !p.suspended {
        format!(
            "The spec of generation {generation} is the one the controller last applied; below is what applying it again would change."
        )
    } else {
        format!(
            "The spec of generation {generation} is not applied yet: {why}. Below is the plan the controller would run."
        )
    }
}

/// The plan page.
pub fn render(p: &PlanPage) -> String {
    let mut body = format!(
        "<h1>Plan of {}/{}</h1>\n{}<p class=\"applied\">{}</p>\n",
        esc(&p.namespace),
        esc(&p.name),
        tabs(&p.namespace, &p.name, "plan"),
        esc(&applied(p))
    );
    match &p.plan {
        Ok(text) => {
            body.push_str("<section aria-labelledby=\"plan\"><h2 id=\"plan\">The plan</h2>\n<pre class=\"diff plan\">");
            // A diff in the plan is indented: from its `---` header on, lines indented as far
            // carry the mark at that column; a line indented less ends it.
            let mut diff_at: Option<usize> = None;
            for line in text.lines() {
                let indent = line.len() - line.trim_start().len();
                if line.trim_start().starts_with("--- ") {
                    diff_at = Some(indent);
                } else if diff_at.is_some_and(|at| indent < at || line.trim().is_empty()) {
                    diff_at = None;
                }
                match diff_at {
                    Some(at) => body.push_str(&diff_line_at(line, at)),
                    None => body.push_str(&diff_line(line)),
                }
            }
            body.push_str("</pre></section>\n");
        }
        Err(why) => {
            let _ = writeln!(
                body,
                "<p class=\"error\">The plan cannot be made: {}</p>",
                esc(why)
            );
        }
    }
    let title = format!("Plan of {}/{}", p.namespace, p.name);
    page(
        &title,
        &crumbs_of(&p.namespace, &p.name, "plan", "Plan"),
        &body,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_of(observed: Option<i64>, suspended: bool, ready: Option<(&str, &str)>) -> PlanPage {
        PlanPage {
            namespace: "shop".into(),
            name: "web".into(),
            generation: Some(3),
            observed,
            suspended,
            ready: ready.map(|(r, m)| (r.to_string(), m.to_string())),
            plan: Ok("component app: upgrade\n-  image: a:1\n+  image: a:2\n".into()),
        }
    }

    #[test]
    fn says_why_a_spec_is_not_applied() {
        let suspended = render(&page_of(Some(2), true, Some(("Succeeded", "ok"))));
        assert!(
            suspended.contains("generation 3 is not applied yet: it is suspended"),
            "{suspended}"
        );
        let waiting = render(&page_of(
            Some(2),
            false,
            Some(("RequirementsNotMet", "base >=2 is absent")),
        ));
        assert!(
            waiting.contains("it waits for its requirements: base &gt;=2 is absent"),
            "{waiting}"
        );
        let applied = render(&page_of(Some(3), false, Some(("Succeeded", "ok"))));
        assert!(
            applied.contains("is the one the controller last applied"),
            "{applied}"
        );
    }

    #[test]
    fn marks_the_plans_diff_lines_and_escapes_them() {
        let mut p = page_of(Some(2), false, None);
        p.plan = Ok("  2. b: upgrade\n     ~ Deployment web-b\n       --- Deployment web-b (deployed)\n       +++ Deployment web-b (planned)\n       @@ -1 +1 @@\n         - name: <c>\n       -  image: b:1\n       +  image: b:2\nIf a component fails: stop\n".into());
        let html = render(&p);
        for (class, line) in [
            ("ctx", "     ~ Deployment web-b"),
            ("ctx", "       --- Deployment web-b (deployed)"),
            ("hunk", "       @@ -1 +1 @@"),
            // A context line of YAML's list item: its dash is not the diff's mark.
            ("ctx", "         - name: &lt;c&gt;"),
            ("del", "       -  image: b:1"),
            ("add", "       +  image: b:2"),
            ("ctx", "If a component fails: stop"),
        ] {
            assert!(
                html.contains(&format!("<span class=\"{class}\">{line}</span>")),
                "{class} {line}: {html}"
            );
        }
        p.plan = Err("source ConfigMap shop-9 not found".into());
        let html = render(&p);
        assert!(
            html.contains("The plan cannot be made: source ConfigMap shop-9 not found"),
            "{html}"
        );
    }
}
