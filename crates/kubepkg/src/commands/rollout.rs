//! `kubepkg rollout status|history|promote|pause|resume|abort NAME` (`plan`: rollout_plan.rs): a fleet rollout
//! (`PackageRollout`, docs/fleet.md) as the controller reports it, and the changes a person
//! makes to one. The controller does the rollout; these verbs read its status and write its
//! spec or its annotations (approval, abort), so they work the same with `kubectl`.

use anyhow::{Context as _, Result, bail};
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use super::print_structured;
use crate::cli::{RolloutArgs, RolloutCommand, RolloutPromoteArgs};
use crate::exit::Exit;
use crate::settings::Settings;

use super::rollout_object::{api, get};

pub async fn run(cmd: RolloutCommand, settings: &Settings) -> Result<Exit> {
    if let RolloutCommand::Plan(a) = &cmd
        && a.offline
    {
        return super::rollout_plan::offline(a, settings).await;
    }
    let kube = settings.connect().await?;
    match cmd {
        RolloutCommand::Status(a) if a.watch => {
            let live = settings.terminal.live(crate::terminal::ProgressMode::Auto);
            watch(&kube, &a.rollout, live).await
        }
        RolloutCommand::Status(a) => status(&kube, &a.rollout).await,
        RolloutCommand::Promote(a) => promote(&kube, &a).await,
        RolloutCommand::Pause(a) => set_paused(&kube, &a.name, true).await,
        RolloutCommand::Resume(a) => set_paused(&kube, &a.name, false).await,
        RolloutCommand::Abort(a) => abort(&kube, &a.name).await,
        RolloutCommand::History(a) => history(&kube, &a).await,
        RolloutCommand::Plan(a) => super::rollout_plan::plan(&kube, &a, settings).await,
    }
}

fn s(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The items of the array `v[key]`; none when it is absent or no array.
fn items<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// The status as a person reads it: the phase and what it waits for, the stages, the clusters.
pub fn status_text(name: &str, status: &Value) -> String {
    let mut out = format!(
        "ROLLOUT: {name}\nPHASE: {}\nSTAGE: {}\nMESSAGE: {}\n\n",
        s(status, "phase"),
        s(status, "stage"),
        s(status, "message")
    );
    let mut rows = vec![vec![
        "STAGE".to_string(),
        "STATE".into(),
        "READY AT".into(),
        "CLUSTERS".into(),
    ]];
    for st in items(status, "stages") {
        let clusters: Vec<&str> = items(st, "clusters").filter_map(Value::as_str).collect();
        rows.push(vec![
            s(st, "name"),
            s(st, "state"),
            s(st, "readyAt"),
            clusters.join(", "),
        ]);
    }
    out.push_str(&kubepkg_gostd::uitable::uitable(&rows));
    out.push('\n');
    let mut rows = vec![
        [
            "CLUSTER",
            "STAGE",
            "STATE",
            "VERSION",
            "REVISION",
            "REACHABLE",
            "KUBERNETES",
            "MESSAGE",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in items(status, "clusters") {
        let reachable = match c.get("reachable").and_then(Value::as_bool) {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        rows.push(vec![
            s(c, "name"),
            s(c, "stage"),
            s(c, "state"),
            s(c, "version"),
            s(c, "revision"),
            reachable.to_string(),
            s(c, "kubernetesVersion"),
            s(c, "message"),
        ]);
    }
    out.push_str(&kubepkg_gostd::uitable::uitable(&rows));
    out.push('\n');
    out
}

async fn status(kube: &kubepkg_kube::Cluster, a: &RolloutArgs) -> Result<Exit> {
    let o = get(kube, &a.name).await?;
    let status = o.data.get("status").cloned().unwrap_or(json!({}));
    print_structured(
        json!({"name": o.name_any(), "namespace": o.namespace(), "spec": o.data.get("spec"), "status": status}),
        a.output,
        || status_text(&a.name, &status),
    )?;
    Ok(Exit::Succeeded)
}

/// Phases in which a rollout changes nothing more until a person acts or the version changes.
fn resting(phase: &str) -> bool {
    matches!(
        phase,
        "Succeeded"
            | "Halted"
            | "RolledBack"
            | "Aborted"
            | "Invalid"
            | "AwaitingApproval"
            | "Paused"
    )
}

/// How `rollout status --watch` exits for the phase it rested in.
fn exit_of(phase: &str) -> Exit {
    match phase {
        "Succeeded" | "AwaitingApproval" | "Paused" => Exit::Succeeded,
        "RolledBack" => Exit::RolledBack,
        "Halted" => Exit::UpgradeFailed,
        "Invalid" => Exit::InvalidPackage,
        _ => Exit::Failed,
    }
}

/// `rollout status --watch`: the status, followed on standard error (redrawn in place when
/// `live` — the live table then gives way —, else one `PHASE: message` line per change) until
/// the rollout rests for its current spec; then the status on standard output, as `status`
/// prints it.
async fn watch(kube: &kubepkg_kube::Cluster, a: &RolloutArgs, live: bool) -> Result<Exit> {
    use std::io::Write as _;
    let mut drawn = 0usize;
    let mut last = String::new();
    loop {
        let o = get(kube, &a.name).await?;
        let now = o.data.get("status").cloned().unwrap_or(json!({}));
        let current =
            now.get("observedGeneration").and_then(Value::as_i64) == o.metadata.generation;
        let phase = s(&now, "phase");
        let mut err = std::io::stderr().lock();
        if live {
            let (rows, cols) = console::Term::stderr().size();
            let lines = fit(&status_text(&a.name, &now), rows, cols);
            if drawn > 0 {
                // Up to the first line drawn, and clear to the end of the screen.
                write!(err, "\x1b[{drawn}A\x1b[J")?;
            }
            for l in &lines {
                writeln!(err, "{l}")?;
            }
            drawn = lines.len();
        } else {
            let line = format!("{phase}: {}", s(&now, "message"));
            if line != last {
                writeln!(err, "{line}")?;
                last = line;
            }
        }
        let rests = current && resting(&phase);
        if rests && live {
            // The live table gives way to the status on standard output.
            write!(err, "\x1b[{drawn}A\x1b[J")?;
        }
        err.flush()?;
        drop(err);
        if rests {
            status(kube, a).await?;
            return Ok(exit_of(&phase));
        }
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    }
}

/// The lines of `text` that a terminal of `rows`×`cols` shows without wrapping or scrolling
/// (tabs expanded to the terminal's stops every 8 columns, each line cut to `cols` with `…`,
/// at most `rows - 1` of them), so a redraw can move back over exactly what it drew.
fn fit(text: &str, rows: u16, cols: u16) -> Vec<String> {
    let cols = usize::from(cols.max(2));
    text.lines()
        .take(usize::from(rows.max(2)) - 1)
        .map(|l| console::truncate_str(&expand_tabs(l), cols - 1, "…").into_owned())
        .collect()
}

/// `line` with each tab replaced by the spaces up to the next stop (every 8 columns).
fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - col % 8;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += 1;
        }
    }
    out
}

/// Approves `stage` (or the stage awaiting approval) for the rollout's current digest.
async fn promote(kube: &kubepkg_kube::Cluster, a: &RolloutPromoteArgs) -> Result<Exit> {
    let o = get(kube, &a.name).await?;
    let status = o.data.get("status").cloned().unwrap_or(json!({}));
    let digest = s(&status, "digest");
    if digest.is_empty() {
        bail!(
            "PackageRollout {} has no status yet: is the kubepkg controller running?",
            a.name
        );
    }
    if s(&status, "phase") == "Aborted" {
        bail!(
            "PackageRollout {} is aborted for its current version: no stage starts any more; change the version to start a new rollout",
            a.name
        );
    }
    let stages: Vec<Value> = items(&status, "stages").cloned().collect();
    let stage = match &a.stage {
        Some(st) => {
            if !stages.iter().any(|x| s(x, "name") == *st) {
                let names: Vec<String> = stages.iter().map(|x| s(x, "name")).collect();
                bail!(
                    "PackageRollout {} has no stage {st} (its stages: {})",
                    a.name,
                    names.join(", ")
                );
            }
            st.clone()
        }
        None => match stages.iter().find(|x| s(x, "state") == "AwaitingApproval") {
            Some(x) => s(x, "name"),
            None => bail!(
                "no stage of PackageRollout {} awaits approval (phase {}); name one to approve it ahead: kubepkg rollout promote {} STAGE",
                a.name,
                s(&status, "phase"),
                a.name
            ),
        },
    };
    let mut approved: Vec<String> = o
        .annotations()
        .get(kubepkg_fleet::APPROVED_ANNOTATION)
        .map(|v| {
            v.split(',')
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .collect()
        })
        .unwrap_or_default();
    // Approvals of earlier digests are of no use any more.
    approved.retain(|e| e.ends_with(&format!("@{digest}")));
    let entry = format!("{stage}@{digest}");
    if !approved.contains(&entry) {
        approved.push(entry);
    }
    let patch = json!({"metadata": {"annotations": {kubepkg_fleet::APPROVED_ANNOTATION: approved.join(",")}}});
    api(kube)
        .patch(&a.name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .with_context(|| format!("approving stage {stage} of PackageRollout {}", a.name))?;
    println!("stage {stage} of PackageRollout {} approved", a.name);
    Ok(Exit::Succeeded)
}

/// Aborts the rollout's current digest (its `kubepkg.dev/aborted` annotation).
async fn abort(kube: &kubepkg_kube::Cluster, name: &str) -> Result<Exit> {
    let o = get(kube, name).await?;
    let status = o.data.get("status").cloned().unwrap_or(json!({}));
    let digest = s(&status, "digest");
    if digest.is_empty() {
        bail!("PackageRollout {name} has no status yet: is the kubepkg controller running?");
    }
    let phase = s(&status, "phase");
    if matches!(phase.as_str(), "Succeeded" | "RolledBack") {
        bail!(
            "PackageRollout {name} has ended ({phase}): there is nothing to abort; a new version is a new rollout"
        );
    }
    let patch = json!({"metadata": {"annotations": {kubepkg_fleet::ABORTED_ANNOTATION: digest}}});
    api(kube)
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .with_context(|| format!("aborting PackageRollout {name}"))?;
    println!(
        "PackageRollout {name} aborted: no cluster starts or rolls back any more; clusters in progress finish on their own"
    );
    Ok(Exit::Succeeded)
}

/// The rollout's `status.history` as a person reads it, newest first.
pub fn history_text(status: &Value) -> String {
    let mut rows = vec![
        ["DIGEST", "VERSION", "OUTCOME", "STARTED", "SUPERSEDED"]
            .map(String::from)
            .to_vec(),
    ];
    let entries: Vec<&Value> = items(status, "history").collect();
    for e in entries.iter().rev() {
        rows.push(vec![
            s(e, "digest"),
            s(e, "version"),
            s(e, "phase"),
            s(e, "started"),
            s(e, "superseded"),
        ]);
    }
    let mut out = kubepkg_gostd::uitable::uitable(&rows);
    out.push('\n');
    out
}

async fn history(kube: &kubepkg_kube::Cluster, a: &RolloutArgs) -> Result<Exit> {
    let o = get(kube, &a.name).await?;
    let status = o.data.get("status").cloned().unwrap_or(json!({}));
    let entries = status.get("history").cloned().unwrap_or(json!([]));
    print_structured(entries, a.output, || history_text(&status))?;
    Ok(Exit::Succeeded)
}

async fn set_paused(kube: &kubepkg_kube::Cluster, name: &str, paused: bool) -> Result<Exit> {
    get(kube, name).await?;
    let patch = json!({"spec": {"paused": paused}});
    api(kube)
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .with_context(|| format!("updating PackageRollout {name}"))?;
    println!(
        "PackageRollout {name} {}",
        if paused { "paused" } else { "resumed" }
    );
    Ok(Exit::Succeeded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_table_fits_the_terminal_so_it_can_be_redrawn() {
        let text = "short\nthis line is far too long\nthird\nfourth\n";
        assert_eq!(fit(text, 4, 12), ["short", "this line …", "third"]);
        assert_eq!(fit(text, 40, 80).len(), 4);
        // Tabs take the columns the terminal gives them.
        assert_eq!(fit("ab\tc\td", 5, 12), ["ab      c …"]);
    }
}
