//! `kubepkg list`: the latest revision of each release, decoding one record per release,
//! printed byte for byte as `helm list` prints it. By default, like Helm, only deployed and
//! failed releases are shown, sorted by name. `kubepkg list --packages` lists packages.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_release::Status;
use kubepkg_release::record::Release;

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
        let mut list = with_releases!(&cluster, scope, |rel| rel.store.list_latest().await?);
        if !args.all {
            // Helm's default state mask: deployed and failed.
            list.retain(|r| matches!(r.status(), Status::Deployed | Status::Failed));
        }
        // Helm sorts by name (stable), so across namespaces equal names keep namespace order.
        list.sort_by(|a, b| a.name.cmp(&b.name));
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
            "json" => println!("{}", serde_json::Value::Array(rows)),
            "yaml" => print!(
                "{}",
                kubepkg_yaml::to_yaml(&releases::from_json(&serde_json::Value::Array(rows))?)
                    .map_err(|e| anyhow::anyhow!("{e}"))?
            ),
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
                let mut table = vec![
                    [
                        "NAME",
                        "NAMESPACE",
                        "REVISION",
                        "UPDATED",
                        "STATUS",
                        "CHART",
                        "APP VERSION",
                    ]
                    .map(String::from)
                    .to_vec(),
                ];
                for r in &rows {
                    table.push(
                        cols.iter()
                            .map(|c| r[*c].as_str().unwrap_or("").to_string())
                            .collect(),
                    );
                }
                print!("{}", helm_table(&table));
            }
            other => anyhow::bail!("invalid format type {other:?}"),
        }
        Ok(ExitCode::SUCCESS)
    })
}
