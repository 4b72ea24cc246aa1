//! `kubepkg list`: the latest revision of each release, if Helm's state flags select its status
//! (default: every status, as Helm 4), chosen from the storage labels so that only one record
//! per release is decoded, then filtered, sorted and printed byte for byte as `helm list`
//! prints it. `kubepkg list --packages` lists packages.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::{Context, Result};
use kubepkg_release::Status;
use kubepkg_release::record::Release;
use kubepkg_release::storage::{Driver, StoredObject};

use super::releases::{self, with_releases};
use crate::cli::ListArgs;

/// Go's `time.Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`) in local time, as
/// `helm list` prints UPDATED.
pub fn go_time(t: jiff::Timestamp) -> String {
    let z = t.to_zoned(jiff::tz::TimeZone::system());
    let frac = match t.subsec_nanosecond() {
        0 => String::new(),
        n => format!(".{n:09}").trim_end_matches('0').to_string(),
    };
    format!(
        "{}{frac} {}",
        z.strftime("%Y-%m-%d %H:%M:%S"),
        z.strftime("%z %Z")
    )
}

fn updated(r: &Release) -> String {
    r.info
        .as_ref()
        .and_then(|i| i.last_deployed)
        .map(go_time)
        .unwrap_or_default()
}

/// A table as Helm prints one (gosuri/uitable, no maximum column width): a column is as wide
/// as its widest line; every cell is resized to that width (padded with spaces, or cut to a
/// display width of `width - 3` plus `...` when longer, counting all its lines); a cell left with several
/// lines spreads its row over several lines, the other cells blank. Cells are joined by a tab.
/// (Widths count characters; East Asian wide characters are not measured as two columns.)
pub fn helm_table(rows: &[Vec<String>]) -> String {
    /// Display width as go-runewidth counts it (control characters, `\n` included, are 0).
    fn width(s: &str) -> usize {
        s.chars().filter(|c| !c.is_control()).count()
    }
    fn line_width(s: &str) -> usize {
        s.split('\n').map(width).max().unwrap_or(0)
    }
    fn resize(s: &str, w: usize) -> String {
        let sw = width(s);
        if sw == w {
            return s.to_string();
        }
        if sw < w {
            return format!("{s}{}", " ".repeat(w - sw));
        }
        // Characters up to a display width of `w - 3` (zero-width ones, `\n` too, are free).
        let target = w.saturating_sub(3);
        let mut kept = String::new();
        let mut acc = 0;
        for ch in s.chars() {
            kept.push(ch);
            acc += usize::from(!ch.is_control());
            if acc >= target {
                break;
            }
        }
        format!("{kept}...")
    }
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| line_width(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| resize(c, widths[i]))
            .collect();
        let height = cells
            .iter()
            .map(|c| c.split('\n').count())
            .max()
            .unwrap_or(1);
        for line in 0..height {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| match c.split('\n').nth(line) {
                    Some(part) => resize(part, widths[i]),
                    None => resize(" ", widths[i]),
                })
                .collect();
            out.push_str(&parts.join("\t"));
            out.push('\n');
        }
    }
    out
}

/// The release states `helm list` shows (its `ListStates` bit mask).
struct StateMask {
    all: bool,
    states: Vec<Status>,
}

impl StateMask {
    /// Helm 4's state mask: the union of the state flags, or every state when none is given
    /// (`-a`, Helm 3's flag for every state, is accepted too). Helm 3 showed only deployed and
    /// failed releases by default; kubepkg follows Helm 4.
    fn from_flags(a: &ListArgs) -> StateMask {
        let mut states = Vec::new();
        let mut add = |on: bool, s: &[Status]| {
            if on {
                states.extend_from_slice(s);
            }
        };
        add(a.deployed, &[Status::Deployed]);
        add(a.uninstalled, &[Status::Uninstalled]);
        add(a.uninstalling, &[Status::Uninstalling]);
        add(
            a.pending,
            &[
                Status::PendingInstall,
                Status::PendingRollback,
                Status::PendingUpgrade,
            ],
        );
        add(a.failed, &[Status::Failed]);
        add(a.superseded, &[Status::Superseded]);
        StateMask {
            all: a.all || states.is_empty(),
            states,
        }
    }

    fn only_superseded(&self) -> bool {
        !self.all && self.states == [Status::Superseded]
    }

    fn covers(&self, status: &Status) -> bool {
        self.all || self.states.contains(status)
    }
}

/// One `--selector` requirement on the storage labels.
enum LabelRequirement {
    Equals(String, String),
    NotEquals(String, String),
}

fn parse_selector(s: &str) -> Result<Vec<LabelRequirement>> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            if let Some((k, v)) = p.split_once("!=") {
                Ok(LabelRequirement::NotEquals(
                    k.trim().into(),
                    v.trim().into(),
                ))
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                Ok(LabelRequirement::Equals(k.trim().into(), v.trim().into()))
            } else {
                anyhow::bail!("invalid --selector {s:?}: use k=v, k==v or k!=v")
            }
        })
        .collect()
}

/// The records `helm list` shows: the latest revision of each release (namespace and name),
/// if its status is in the mask, its name matches the filter and its labels the selector.
/// When the mask is only `--superseded`, Helm skips the latest-revision step (a superseded
/// record is never the latest): every superseded record is shown, in storage-key order.
fn choose<'a>(
    objects: &'a [StoredObject],
    mask: &StateMask,
    filter: Option<&regex::Regex>,
    selector: &[LabelRequirement],
) -> Vec<&'a StoredObject> {
    let candidates: Vec<&StoredObject> = if mask.only_superseded() {
        let mut all: Vec<&StoredObject> = objects.iter().collect();
        all.sort_by(|a, b| (&a.namespace, &a.key).cmp(&(&b.namespace, &b.key)));
        all
    } else {
        let mut latest: BTreeMap<(&str, &str), &StoredObject> = BTreeMap::new();
        for o in objects {
            let Some(name) = o.release_name() else {
                continue;
            };
            let slot = latest.entry((o.namespace.as_str(), name)).or_insert(o);
            if o.revision() > slot.revision() {
                *slot = o;
            }
        }
        latest.into_values().collect()
    };
    candidates
        .into_iter()
        .filter(|o| {
            o.status().is_some_and(|s| mask.covers(&s))
                && o.release_name()
                    .is_some_and(|n| filter.is_none_or(|f| f.is_match(n)))
                && selector.iter().all(|r| match r {
                    LabelRequirement::Equals(k, v) => o.labels.get(k) == Some(v),
                    LabelRequirement::NotEquals(k, v) => o.labels.get(k) != Some(v),
                })
        })
        .collect()
}

pub fn run(args: ListArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        if args.packages {
            return super::package::list(&cluster, args.all_namespaces, &args.output).await;
        }
        let ns = cluster.namespace.clone();
        let scope = if args.all_namespaces {
            None
        } else {
            Some(ns.as_str())
        };
        let filter = match &args.filter {
            Some(f) => {
                Some(regex::Regex::new(f).with_context(|| format!("invalid --filter {f:?}"))?)
            }
            None => None,
        };
        let selector = parse_selector(args.selector.as_deref().unwrap_or(""))?;
        let mask = StateMask::from_flags(&args);
        // Labels only: which revision of each release to show, as Helm's list does it.
        let mut list = with_releases!(&cluster, scope, |rel| {
            let owner = BTreeMap::from([("owner".to_string(), "helm".to_string())]);
            let objects = rel.store.driver.query(&owner).await?;
            let chosen = choose(&objects, &mask, filter.as_ref(), &selector);
            chosen
                .into_iter()
                .map(|o| o.decode())
                .collect::<Result<Vec<Release>, _>>()?
        });
        // Helm's sorts: by name, or with -d by deploy time in seconds; -r reverses.
        list.sort_by(|a, b| a.name.cmp(&b.name));
        if args.date {
            list.sort_by_key(|r| {
                r.info
                    .as_ref()
                    .and_then(|i| i.last_deployed)
                    .map_or(i64::MIN, |t| t.as_second())
            });
        }
        if args.reverse {
            list.reverse();
        }
        let list: Vec<Release> = list
            .into_iter()
            .skip(args.offset)
            .take(if args.max > 0 { args.max } else { usize::MAX })
            .collect();
        if args.short {
            let names: Vec<&str> = list.iter().map(|r| r.name.as_str()).collect();
            match args.output.as_str() {
                "json" => println!("{}", serde_json::to_string(&names)?),
                "yaml" => print!(
                    "{}",
                    kubepkg_yaml::to_yaml(&releases::from_json(&serde_json::json!(names))?)
                        .map_err(|e| anyhow::anyhow!("{e}"))?
                ),
                _ => names.iter().for_each(|n| println!("{n}")),
            }
            return Ok(ExitCode::SUCCESS);
        }
        let rows: Vec<serde_json::Value> = list
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "namespace": r.namespace,
                    "revision": r.version.to_string(),
                    "updated": updated(r),
                    "status": r.status().to_string(),
                    "chart": r.chart_label(),
                    "app_version": r.app_version(),
                })
            })
            .collect();
        match args.output.as_str() {
            "json" | "yaml" => {
                releases::print_json_or_yaml(&args.output, &serde_json::Value::Array(rows))?
            }
            "table" => {
                let cols = [
                    "name",
                    "namespace",
                    "revision",
                    "updated",
                    "status",
                    "chart",
                    "app_version",
                ];
                let mut table = Vec::new();
                let header: Vec<String> = [
                    "NAME",
                    "NAMESPACE",
                    "REVISION",
                    "UPDATED",
                    "STATUS",
                    "CHART",
                    "APP VERSION",
                ]
                .map(String::from)
                .to_vec();
                if !args.no_headers {
                    table.push(header);
                }
                for r in &rows {
                    table.push(
                        cols.iter()
                            .map(|c| r[*c].as_str().unwrap_or("").to_string())
                            .collect(),
                    );
                }
                // Helm ends the table with a newline even when it has no rows.
                let text = helm_table(&table);
                print!("{}", if text.is_empty() { "\n" } else { &text });
            }
            other => anyhow::bail!("invalid format type {other:?}"),
        }
        Ok(ExitCode::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::helm_table;

    fn table(rows: &[&[&str]]) -> String {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect();
        helm_table(&rows)
    }

    /// Expected texts written from gosuri/uitable's rules (`Resize`, `Row.String`), which the
    /// cluster parity test checks against real `helm` output.
    #[test]
    fn cells_are_padded_to_the_widest_line_and_joined_by_tabs() {
        assert_eq!(
            table(&[&["NAME", "REVISION"], &["a-long-name", "2"]]),
            "NAME       \tREVISION\na-long-name\t2       \n"
        );
    }

    #[test]
    fn a_multi_line_cell_is_cut_to_its_widest_line_with_an_ellipsis() {
        // Widest line 6 ("abcdef"); the whole cell is wider, so it becomes width 3 + "...".
        assert_eq!(table(&[&["H", "abcdef\nxy"]]), "H\tabc...\n");
        // Widest line second (8): the cut to width 5 keeps the newline (width 0), so the row
        // spreads over two lines and the other cells of the second line are blank.
        assert_eq!(
            table(&[&["H", "ab\nabcdefgh"]]),
            "H\tab      \n \tabc...  \n"
        );
    }
}
