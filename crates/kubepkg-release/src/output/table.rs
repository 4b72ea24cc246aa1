//! The two table layouts Helm prints: gosuri/uitable's (`helm list`, `helm history`) and
//! kubectl's printer over a server-side Table (`helm status`'s RESOURCES).

use serde_json::Value;

/// gosuri/uitable's layout, kept in `kubepkg-gostd` so that crates below this one print the same.
pub use kubepkg_gostd::uitable::{uitable, uitable_max_width};

/// A header row of the column `names`, for [`uitable`].
pub(crate) fn header_row(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// A server-side Table as kubectl prints it for `helm status`: the columns of priority 0,
/// headers upper-cased, cells padded to the widest plus three spaces (at least six wide), the
/// last column unpadded. `None` when `table` is not a Table. The header is left out when the
/// columns are those of the previous table printed (`last_columns`), as kubectl does.
pub fn server_table(table: &Value, last_columns: &mut Option<Value>) -> Option<String> {
    if table.get("kind")?.as_str()? != "Table" {
        return None;
    }
    let columns = table.get("columnDefinitions")?.as_array()?;
    let shown: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.get("priority").and_then(Value::as_i64).unwrap_or(0) == 0)
        .map(|(i, _)| i)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let same = last_columns.as_ref() == Some(table.get("columnDefinitions")?);
    if !columns.is_empty() && !same {
        rows.push(
            shown
                .iter()
                .map(|i| {
                    columns[*i]
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_uppercase()
                })
                .collect(),
        );
    }
    *last_columns = table.get("columnDefinitions").cloned();
    for row in table
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cells = row.get("cells").and_then(Value::as_array);
        rows.push(
            shown
                .iter()
                .map(|i| match cells.and_then(|c| c.get(*i)) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => "<none>".into(),
                    Some(v) => v.to_string(),
                })
                .collect(),
        );
    }
    Some(tabwriter(&rows))
}

/// Go's `text/tabwriter` as kubectl configures it (min width 6, padding 3, spaces): every
/// cell but a line's last padded to its column's width.
fn tabwriter(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter(|r| i + 1 < r.len())
                .map(|r| r[i].chars().count() + 3)
                .max()
                .unwrap_or(0)
                .max(6)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}", w = widths[i]));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(rows: &[&[&str]]) -> String {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect();
        uitable(&rows)
    }

    /// Expected texts written from gosuri/uitable's rules (`Resize`, `Row.String`), which the
    /// cluster parity test checks against real `helm` output.
    #[test]
    fn cells_are_padded_to_the_widest_line_and_joined_by_tabs() {
        assert_eq!(
            table(&[&["NAME", "REVISION"], &["a-long-name", "2"]]),
            "NAME       \tREVISION\na-long-name\t2       \n"
        );
        assert_eq!(table(&[]), "");
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

    fn server(columns: &[(&str, i64)], rows: &[&[Value]]) -> Value {
        json!({
            "kind": "Table",
            "columnDefinitions": columns
                .iter()
                .map(|(n, p)| json!({"name": n, "priority": p}))
                .collect::<Vec<_>>(),
            "rows": rows.iter().map(|c| json!({"cells": c})).collect::<Vec<_>>(),
        })
    }

    /// kubectl's layout: priority-0 columns, upper-cased headers, three spaces of padding,
    /// six at least, `<none>` for nulls, numbers as JSON writes them, the last cell unpadded.
    #[test]
    fn server_tables_print_as_kubectl() {
        let t = server(
            &[("Name", 0), ("Data", 0), ("Extra", 1), ("Age", 0)],
            &[
                &[json!("web-config"), json!(2), json!("x"), json!("5s")],
                &[json!("a"), Value::Null, json!("y"), json!("10m")],
            ],
        );
        let mut last = None;
        assert_eq!(
            server_table(&t, &mut last).unwrap(),
            "NAME         DATA     AGE\nweb-config   2        5s\na            <none>   10m\n"
        );
        // The same columns again: no second header.
        assert_eq!(
            server_table(&t, &mut last).unwrap(),
            "web-config   2        5s\na            <none>   10m\n"
        );
        assert_eq!(server_table(&json!({"kind": "Pod"}), &mut last), None);
    }
}
