//! gosuri/uitable, the table layout of Helm's CLI (`helm list`, `history`, `repo list`,
//! `search repo`, `dependency list`). Not Go's standard library, but the one way Helm prints a
//! table, so it lives beside the other Go printing rules: every crate that prints one calls
//! this. Widths follow go-runewidth (control characters count nothing; East Asian wide
//! characters are not measured as two columns).

/// Display width as go-runewidth counts it (control characters, `\n` included, are 0).
/// (East Asian wide characters are not measured as two columns.)
fn width(s: &str) -> usize {
    s.chars().filter(|c| !c.is_control()).count()
}

fn line_width(s: &str) -> usize {
    s.split('\n').map(width).max().unwrap_or(0)
}

/// uitable's `Resize`: padded with spaces to `w`, or cut to a display width of `w - 3` plus
/// `...` when wider (zero-width characters, `\n` too, cost nothing).
fn resize(s: &str, w: usize) -> String {
    let sw = width(s);
    if sw == w {
        return s.to_string();
    }
    if sw < w {
        return format!("{s}{}", " ".repeat(w - sw));
    }
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

/// A table as Helm prints one (gosuri/uitable, no maximum column width): a column is as wide
/// as its widest line; every cell is resized to that width (padded with spaces, or cut to a
/// display width of `width - 3` plus `...` when longer, counting all its lines); a cell left
/// with several lines spreads its row over several lines, the other cells blank. Cells are
/// joined by a tab.
pub fn uitable(rows: &[Vec<String>]) -> String {
    uitable_max_width(rows, usize::MAX)
}

/// [`uitable`] with uitable's `MaxColWidth`: no column wider than `max` (longer cells are cut
/// to `max - 3` plus `...`), as `helm search` prints (`--max-col-width`, default 50).
pub fn uitable_max_width(rows: &[Vec<String>], max: usize) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| line_width(c))
                .max()
                .unwrap_or(0)
                .min(max)
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
