//! `path`: lexical operations on slash-separated paths (chart files, archive entries, template
//! names), independent of the operating system's separator.

/// Go's `path.Clean`: the shortest equivalent path by lexical processing (`.` elements and
/// repeated slashes dropped, `..` applied to the element before it, leading `..` kept on a
/// relative path and dropped on a rooted one); `.` for an empty result.
pub fn clean(p: &str) -> String {
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}
