//! What a request's path and query say: query parameters (`application/x-www-form-urlencoded`,
//! as a GET form sends them) and the names in a path, checked before they reach the cluster.

use crate::error::DashboardError;

/// The decoded query parameters of a request, in order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    pub(crate) fn parse(query: Option<&str>) -> Query {
        let pairs = query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (decode(k), decode(v))
            })
            .collect();
        Query(pairs)
    }

    /// The first value of `key`, if given and not empty.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, v)| k == key && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// `key` as a revision number.
    pub(crate) fn revision(&self, key: &'static str) -> Result<Option<u64>, DashboardError> {
        self.get(key)
            .map(|v| {
                v.parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(DashboardError::BadRequest {
                        what: key,
                        value: v.to_string(),
                        expected: "expected a revision number (1, 2, …; see the History page)",
                    })
            })
            .transpose()
    }
}

/// Percent-decoding, `+` as a space; invalid escapes and bytes are kept as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A namespace or package name from a path: a DNS-1123 name (what both are), else an error
/// naming it.
pub(crate) fn name<'a>(what: &'static str, value: &'a str) -> Result<&'a str, DashboardError> {
    let ok = !value.is_empty()
        && value.len() <= 253
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if ok {
        Ok(value)
    } else {
        Err(DashboardError::BadRequest {
            what,
            value: value.to_string(),
            expected: "expected a Kubernetes name (lower-case letters, digits, '-' and '.')",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_query_decodes() {
        let q = Query::parse(Some("q=web+app&state=waiting&x=%2Fa%zz&empty="));
        assert_eq!(q.get("q"), Some("web app"));
        assert_eq!(q.get("state"), Some("waiting"));
        assert_eq!(q.get("x"), Some("/a%zz"));
        assert_eq!(q.get("empty"), None);
        assert_eq!(Query::parse(Some("a=%4")).get("a"), Some("%4"));
    }

    #[test]
    fn a_bad_revision_or_name_is_an_error_that_says_what_to_give() {
        let e = Query::parse(Some("from=x")).revision("from").unwrap_err();
        assert!(e.to_string().contains("expected a revision number"), "{e}");
        assert_eq!(e.status(), 400);
        assert!(name("namespace", "Bad/Name").is_err());
        assert_eq!(name("namespace", "team-a").unwrap(), "team-a");
    }
}
