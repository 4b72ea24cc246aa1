//! The URL and e-mail checks Helm's chart rules make with `govalidator` (`IsRequestURL`,
//! `IsURL`, `IsEmail`), approximated by their rules rather than their full regular
//! expressions: what passes here passes there for every chart of the corpus.

/// `govalidator.IsRequestURL`: `url.ParseRequestURI` accepts it and it has a scheme.
pub fn is_request_url(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    scheme_ok && !rest.is_empty() && valid_url_text(s) && valid_authority(rest)
}

/// Go's `url.Parse` refusals that matter here: control characters and bad `%` escapes.
fn valid_url_text(s: &str) -> bool {
    if s.chars().any(|c| c.is_control()) {
        return false;
    }
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() {
                return false;
            }
            if !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
            continue;
        }
        i += 1;
    }
    true
}

/// The host part of `//host...` must not hold spaces or other characters Go refuses.
fn valid_authority(rest: &str) -> bool {
    let Some(after) = rest.strip_prefix("//") else {
        return true;
    };
    let host = after.split(['/', '?', '#']).next().unwrap_or("");
    !host.contains(' ')
}

/// `govalidator.IsURL`, in its common shape: an optional scheme, a host that is an IP, a
/// dotted domain or `localhost`, optional port, path, query and fragment.
pub fn is_url(s: &str) -> bool {
    if s.is_empty() || s.len() >= 2083 || s.len() <= 3 || s.starts_with('.') {
        return false;
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let rest = match s.find("://") {
        Some(i) => {
            let scheme = &s[..i];
            if scheme.is_empty()
                || !scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
            {
                return false;
            }
            &s[i + 3..]
        }
        None => s,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host_port.rsplit_once(':') {
        Some((h, port)) if !h.starts_with('[') || h.ends_with(']') => {
            if !port.chars().all(|c| c.is_ascii_digit()) || port.is_empty() {
                return false;
            }
            h
        }
        _ => host_port,
    };
    if host.is_empty() || host.starts_with('.') {
        return false;
    }
    if host == "localhost" || host.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let host = host.trim_end_matches('.');
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
}

/// `govalidator.IsEmail`: a local part of the characters RFC 5322 allows in a dot-atom and a
/// dotted domain.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let atom_char = |c: char| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    let local_ok = !local.is_empty()
        && local
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(atom_char));
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.chars().next().is_some_and(|c| c.is_alphanumeric())
                && l.chars().last().is_some_and(|c| c.is_alphanumeric())
                && l.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
        });
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_emails() {
        assert!(is_request_url("https://github.com/helm/helm"));
        assert!(!is_request_url("github.com/helm/helm"));
        assert!(!is_request_url(""));
        assert!(is_url("https://helm.sh"));
        assert!(is_url("helm.sh/docs"));
        assert!(!is_url("not a url"));
        assert!(is_email("someone@example.com"));
        assert!(!is_email("someone"));
        assert!(!is_email("a@b"));
    }
}
