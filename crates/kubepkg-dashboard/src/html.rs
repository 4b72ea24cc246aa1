//! HTML building blocks: escaping (every text from the cluster goes through [`esc`]), the page
//! frame (landmarks, a skip link, the one stylesheet and script, both served by path: the
//! Content-Security-Policy allows no inline script or style) and a state badge.

use std::fmt::Write;

use crate::state::State;

/// `s` escaped for HTML text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A link target under the package `namespace/name` (both checked names, so no escaping).
pub fn package_href(namespace: &str, name: &str, view: &str) -> String {
    let mut href = format!("/packages/{namespace}/{name}");
    if !view.is_empty() {
        let _ = write!(href, "/{view}");
    }
    href
}

/// A whole page: `title`, the breadcrumb trail (`(text, href)`, the last one the current
/// page), the body, and whether the live script should subscribe to `live` (an events path).
pub fn page(title: &str, crumbs: &[(String, String)], body: &str, live: Option<&str>) -> String {
    let mut trail = String::new();
    for (i, (text, href)) in crumbs.iter().enumerate() {
        if i + 1 == crumbs.len() {
            let _ = write!(
                trail,
                "<li><a href=\"{}\" aria-current=\"page\">{}</a></li>",
                esc(href),
                esc(text)
            );
        } else {
            let _ = write!(
                trail,
                "<li><a href=\"{}\">{}</a></li>",
                esc(href),
                esc(text)
            );
        }
    }
    let live_attr = live
        .map(|l| format!(" data-live=\"{}\"", esc(l)))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{title} · kubepkg</title>\n<link rel=\"stylesheet\" href=\"/static/dashboard.css\">\n\
<script src=\"/static/dashboard.js\" defer></script>\n</head>\n<body{live_attr}>\n\
<a class=\"skip\" href=\"#main\">Skip to content</a>\n\
<header><p class=\"brand\">kubepkg</p><nav aria-label=\"Breadcrumb\"><ol class=\"crumbs\">{trail}</ol></nav>\
<p class=\"live-status\" role=\"status\" aria-live=\"polite\" id=\"live-status\"></p></header>\n\
<main id=\"main\" tabindex=\"-1\">\n{body}\n</main>\n</body>\n</html>\n",
        title = esc(title),
    )
}

/// The state as a badge: a symbol and the word, the colour only repeating them.
pub fn badge(state: State) -> String {
    format!(
        "<span class=\"badge\" data-state=\"{}\"><span aria-hidden=\"true\">{}</span> <span class=\"word\">{}</span></span>",
        state.key(),
        state.symbol(),
        state.label()
    )
}

/// How long ago the RFC 3339 time `t` was (`5m`, `3h`, `2d`), empty when it does not read.
pub fn age(t: &str) -> String {
    let Ok(then) = t.parse::<jiff::Timestamp>() else {
        return String::new();
    };
    let secs = jiff::Timestamp::now().as_second() - then.as_second();
    match secs {
        s if s < 0 => "0s".to_string(),
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// One line of a unified diff (or of a plan that holds diffs) as a block of its kind: added,
/// removed, a hunk header, or context.
pub fn diff_line(line: &str) -> String {
    diff_line_at(line, 0)
}

/// [`diff_line`] of a diff indented by `column` spaces (the plan's): its mark is there.
pub fn diff_line_at(line: &str, column: usize) -> String {
    let marked = line.get(column..).unwrap_or_default();
    let class = match marked.chars().next() {
        Some('+') if !marked.starts_with("+++") => "add",
        Some('-') if !marked.starts_with("---") => "del",
        Some('@') => "hunk",
        _ => "ctx",
    };
    format!("<span class=\"{class}\">{}</span>", esc(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_page_has_no_inline_script() {
        let p = page(
            "t",
            &[("Packages".into(), "/".into())],
            "<p>x</p>",
            Some("/events"),
        );
        assert!(p.contains("<script src=\"/static/dashboard.js\" defer></script>"));
        assert_eq!(p.matches("<script").count(), 1);
        assert!(!p.contains("style="));
    }
}
