//! Helm's `repo.ResolveReferenceURL`: a chart's `urls[0]` of an index against the repository
//! URL. An absolute URL is kept; a relative one resolves against the repository URL taken as
//! a directory (a trailing `/` added), RFC 3986 style, and the result carries the repository
//! URL's query (Helm replaces the reference's query by the base's, for signed-URL repositories).

/// `reference` made absolute against the repository URL `base`.
pub fn resolve_reference(base: &str, reference: &str) -> String {
    if has_scheme(reference) {
        return reference.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => (&before_query[..i], &before_query[i..]),
        None => (before_query, ""),
    };
    let reference = reference.split_once('?').map_or(reference, |(p, _)| p);
    let resolved = if let Some(net) = reference.strip_prefix("//") {
        format!("{scheme}://{net}")
    } else {
        let merged = if reference.starts_with('/') {
            reference.to_string()
        } else {
            format!("{}/{reference}", path.trim_end_matches('/'))
        };
        format!("{scheme}://{authority}{}", remove_dot_segments(&merged))
    };
    match query {
        Some(q) if !q.is_empty() => format!("{resolved}?{q}"),
        _ => resolved,
    }
}

/// The `index.yaml` URL of the repository at `base`.
pub fn index_url(base: &str) -> String {
    resolve_reference(base, "index.yaml")
}

fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) if i > 0 => {
            let scheme = &s[..i];
            scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

/// The last path segment of `url` (Helm's `filepath.Base(u.Path)`), the file name a
/// downloaded chart gets.
pub fn file_name(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    let path = no_query.split_once("://").map_or(no_query, |(_, r)| r);
    let path = path.find('/').map_or("", |i| &path[i..]);
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("chart.tgz")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_as_helm_resolves_them() {
        assert_eq!(index_url("http://h:1"), "http://h:1/index.yaml");
        assert_eq!(
            index_url("http://h:1/charts/"),
            "http://h:1/charts/index.yaml"
        );
        assert_eq!(
            resolve_reference("https://h/charts", "app-1.0.0.tgz"),
            "https://h/charts/app-1.0.0.tgz"
        );
        assert_eq!(
            resolve_reference("https://h/charts", "../x/app.tgz"),
            "https://h/x/app.tgz"
        );
        assert_eq!(
            resolve_reference("https://h/charts", "/a.tgz"),
            "https://h/a.tgz"
        );
        assert_eq!(
            resolve_reference("https://h/c?sig=1", "a.tgz?x=2"),
            "https://h/c/a.tgz?sig=1"
        );
        assert_eq!(
            resolve_reference("https://h/c", "https://cdn/a.tgz"),
            "https://cdn/a.tgz"
        );
        assert_eq!(file_name("https://h/c/app-1.0.0.tgz?s=1"), "app-1.0.0.tgz");
    }
}
