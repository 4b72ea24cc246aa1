//! A plan ([`kubepkg_package::plan::Plan`]) as text: [`render_text`] in a stable layout
//! (snapshot-tested here), [`render_styled`] the same text in a [`Palette`]'s colours
//! (`kubepkg plan` on a terminal). `-o json` prints the plan's own serialization instead.

use std::fmt::Write as _;

use kubepkg_package::plan::{Action, Change, FailurePolicy, Gate, ObjectChange, Plan};

use super::style::{Palette, Role};

/// The plan as stable text, without colour (what the tests pin and the dashboard's plan view
/// shows; `kubepkg plan` to a pipe or a file prints the same, [`render_styled`] with
/// [`Palette::PLAIN`]).
pub fn render_text(plan: &Plan, with_diff: bool) -> String {
    render_styled(plan, with_diff, Palette::PLAIN)
}

/// The plan as stable text in `palette`'s colours (its first line bold; each object's change
/// mark and diff as `git diff` and helm-diff colour them: added green, removed red, changed
/// yellow, hunk headers cyan, `---`/`+++` bold; warnings yellow). With [`Palette::PLAIN`] this
/// is [`render_text`].
pub fn render_styled(plan: &Plan, with_diff: bool, palette: Palette) -> String {
    let mut s = String::new();
    let versions = match &plan.from_version {
        Some(f) if *f != plan.to_version => format!("{f} -> {}", plan.to_version),
        _ => plan.to_version.clone(),
    };
    let action = match (plan.action, &plan.downgrade) {
        (Action::Upgrade, Some(_)) => "downgrade",
        (a, _) => action_word(a),
    };
    let title = format!(
        "Plan: {action} {} of package {} {versions} in namespace {}",
        plan.name, plan.package, plan.namespace
    );
    let _ = writeln!(s, "{}", palette.paint(Role::Heading, title));
    match plan.revision {
        Some(r) => {
            let _ = writeln!(s, "Records revision {r}.");
        }
        None => {
            let _ = writeln!(s, "Nothing to change; no revision is recorded.");
        }
    }
    if let Some(d) = &plan.downgrade {
        let _ = writeln!(s, "Downgrade from {} to {}: {}", d.from, d.to, d.verdict());
    }
    if !plan.requirements.is_empty() {
        let _ = writeln!(s, "\nRequires (must be Ready first):");
        for r in &plan.requirements {
            let mut line = format!("  {}", r.name);
            if let Some(v) = &r.version {
                line.push_str(&format!(" {v}"));
            }
            if r.optional {
                line.push_str(" (optional: waits only if installed)");
            }
            let _ = writeln!(s, "{line}");
        }
    }
    if !plan.hooks.is_empty() {
        let _ = writeln!(s, "\nPreUpgrade hooks:");
        for h in &plan.hooks {
            let verb = if h.runs { "runs" } else { "skipped" };
            let _ = writeln!(s, "  {} [{verb}] {}", h.name, h.why);
            if h.runs {
                let _ = writeln!(
                    s,
                    "    release {} in {}; waits for it, then uninstalls it after a successful upgrade",
                    h.release, h.namespace
                );
                for o in &h.objects {
                    let _ = writeln!(s, "    creates {o}");
                }
            }
        }
    }
    if !plan.rollback_hooks.is_empty() {
        let _ = writeln!(
            s,
            "\nPreRollback hooks (kept with this revision; run before any rollback away from {}, automatic or manual, and may refuse it):",
            plan.to_version
        );
        for h in &plan.rollback_hooks {
            let _ = writeln!(s, "  {h}");
        }
    }
    let _ = writeln!(
        s,
        "\nOrder (one at a time; each waits for the previous to be ready):"
    );
    for (i, st) in plan.steps.iter().enumerate() {
        let after = if st.depends_on.is_empty() {
            String::new()
        } else {
            format!(" (after {})", st.depends_on.join(", "))
        };
        let _ = writeln!(
            s,
            "  {}. {}{after}: {}",
            i + 1,
            st.name,
            change_text(&st.change)
        );
        let _ = writeln!(
            s,
            "     release {} in namespace {}",
            st.release, st.namespace
        );
        if st.upgrade_context {
            let _ = writeln!(
                s,
                "     gets kubepkg.fromVersion, kubepkg.toVersion, kubepkg.previous"
            );
        }
        for g in &st.gates {
            let _ = writeln!(s, "     ready when: {}", gate_text(g));
        }
        match &st.diff {
            None => {
                let _ = writeln!(s, "     objects: previous rendering unknown");
            }
            Some(d) if d.is_empty() => {}
            Some(d) => {
                for od in d {
                    let mark = change_mark(palette, od.change);
                    let hook = od.hook.as_deref().map(hook_note).unwrap_or_default();
                    let _ = writeln!(s, "     {mark} {}{hook}", od.object);
                }
                if with_diff {
                    for od in d {
                        for (i, line) in od.diff.lines().enumerate() {
                            let _ = writeln!(s, "       {}", palette.diff_line(line, i < 2));
                        }
                    }
                }
            }
        }
    }
    if !plan.backend_objects.is_empty() {
        let _ = writeln!(
            s,
            "\nBackend objects (applied per component in the order above; each waits until its controller says Ready):"
        );
        for o in &plan.backend_objects {
            let mark = match o.change {
                Some(c) => change_mark(palette, c),
                None => " ".to_string(),
            };
            let what = match o.change {
                Some(ObjectChange::Added) => "created",
                Some(ObjectChange::Changed) => "changed",
                Some(ObjectChange::Removed) => "deleted",
                None => "unchanged",
            };
            let _ = writeln!(
                s,
                "  {mark} {} {}/{} ({}: {what})",
                o.kind, o.namespace, o.name, o.component
            );
            if with_diff && o.change.is_some() {
                for line in o.yaml.lines() {
                    let _ = writeln!(s, "       {line}");
                }
            }
        }
    }
    if !plan.removals.is_empty() {
        let _ = writeln!(s, "\nRemoved (uninstalled last, in reverse order):");
        for r in &plan.removals {
            let _ = writeln!(s, "  {} (release {} in {})", r.name, r.release, r.namespace);
        }
    }
    if !plan.crd_changes.is_empty() {
        let _ = writeln!(s, "\nCRD changes:");
        for c in &plan.crd_changes {
            let _ = writeln!(s, "  {}: {}", c.component, c.change);
        }
        if !plan.unsafe_crd_changes().is_empty() {
            let _ = writeln!(
                s,
                "  apply refuses the unsafe changes unless given --allow-unsafe-crd-changes"
            );
        }
    }
    if !plan.drift.is_empty() {
        let _ = writeln!(
            s,
            "\nDrift (live objects differ from what the deployed revision applied):"
        );
        for d in &plan.drift {
            let touched = plan
                .steps
                .iter()
                .any(|st| st.name == d.component && !matches!(st.change, Change::Unchanged { .. }));
            let fate = if touched {
                "this apply puts it back"
            } else {
                "kept: this apply does not change the component"
            };
            let _ = writeln!(s, "  {}: {}: {} ({fate})", d.component, d.object, d.what);
        }
    }
    let _ = writeln!(
        s,
        "\nIf a component fails: {}",
        failure_text(&plan.on_failure)
    );
    for w in &plan.warnings {
        let _ = writeln!(s, "{} {w}", palette.paint(Role::Waiting, "Warning:"));
    }
    if let Some(c) = &plan.capabilities {
        let _ = writeln!(
            s,
            "Rendered offline with {c}; `plan --cluster` uses the server's."
        );
    }
    s
}

fn action_word(a: Action) -> &'static str {
    match a {
        Action::Install => "install",
        Action::Upgrade => "upgrade",
        Action::Reconfigure => "reconfigure",
        Action::Rollback => "roll back",
        Action::NoChange => "no change to",
    }
}

fn change_text(c: &Change) -> String {
    match c {
        Change::Install { chart } => format!("install {chart}"),
        Change::Upgrade {
            from_chart,
            to_chart,
            from_revision,
            to_revision,
        } => {
            let charts = if from_chart == to_chart || from_chart.is_empty() {
                to_chart.clone()
            } else {
                format!("{from_chart} -> {to_chart}")
            };
            format!("upgrade {charts} (release revision {from_revision} -> {to_revision})")
        }
        Change::Unchanged { chart, revision } => {
            format!("unchanged {chart} (release revision {revision})")
        }
    }
}

/// An object change's sign (`+`, `-`, `~`) in its colour.
fn change_mark(palette: Palette, c: ObjectChange) -> String {
    let (sign, role) = match c {
        ObjectChange::Added => ("+", Role::Good),
        ObjectChange::Removed => ("-", Role::Bad),
        ObjectChange::Changed => ("~", Role::Waiting),
    };
    palette.paint(role, sign).to_string()
}

/// How a hook object's row says when it runs: a hook is run at its events, not kept applied,
/// and a `test` hook (Helm's `test-success` too) only by `kubepkg test`.
fn hook_note(events: &str) -> String {
    let only_tests = events
        .split(',')
        .all(|e| matches!(e.trim(), "test" | "test-success"));
    if only_tests {
        " (test hook: run by `kubepkg test`, not by apply)".to_string()
    } else {
        format!(" (hook: {events})")
    }
}

/// What a readiness gate waits for.
fn gate_text(g: &Gate) -> String {
    match g {
        Gate::Release { release } => format!("release {release} ready"),
        Gate::Condition {
            api_version,
            object_kind,
            name,
            namespace,
            condition,
            status,
        } => format!(
            "{object_kind} {namespace}/{name} ({api_version}) condition {condition}={status}"
        ),
        Gate::Backend {
            object_kind,
            namespace,
            name,
            ready,
        } => format!("{object_kind} {namespace}/{name} {ready}"),
    }
}

fn failure_text(f: &FailurePolicy) -> String {
    f.to_string()
}

#[cfg(test)]
mod tests;
