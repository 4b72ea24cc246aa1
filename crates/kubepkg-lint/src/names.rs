//! Kubernetes' object name rules as `helm lint` applies them to `metadata.name`
//! (`validateMetadataName`): the validation function of the object's kind (DNS-1123
//! subdomain for most, DNS-1035 label for Services, DNS-1123 label for Namespaces, path
//! segment names for RBAC objects, none for CertificateSigningRequests), with
//! apimachinery's messages.

const DNS1123_LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{re}')"));
    s
}

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

fn is_subdomain(s: &str) -> bool {
    s.split('.').all(is_label)
}

fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len(253));
    }
    if !is_subdomain(s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN,
            &["example.com"],
        ));
    }
    errs
}

fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !is_label(s) {
        if is_subdomain(s) {
            errs.push("must not contain dots".into());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    let ok = is_label(s) && s.as_bytes()[0].is_ascii_lowercase();
    if !ok {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

fn path_segment(s: &str) -> Vec<String> {
    if s == "." || s == ".." {
        return vec![format!("may not be '{s}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| s.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// The problems of `name` for an object of `kind` (empty when it is valid).
pub fn name_errors(kind: &str, name: &str) -> Vec<String> {
    match kind.to_ascii_lowercase().as_str() {
        "service" => dns1035_label(name),
        "namespace" => dns1123_label(name),
        "certificatesigningrequest" => Vec::new(),
        "role" | "clusterrole" | "rolebinding" | "clusterrolebinding" => path_segment(name),
        _ => dns1123_subdomain(name),
    }
}

/// `validateMetadataName`'s error: `object name does not conform to Kubernetes naming
/// requirements: "NAME": metadata.name: Invalid value: "NAME": MSG` (several messages as
/// apimachinery's aggregate prints them).
pub fn validate(kind: &str, name: &str) -> Option<String> {
    let errs = name_errors(kind, name);
    if errs.is_empty() {
        return None;
    }
    let q = kubepkg_gostd::strconv::quote(name);
    let each: Vec<String> = errs
        .iter()
        .map(|m| format!("metadata.name: Invalid value: {q}: {m}"))
        .collect();
    let mut seen: Vec<String> = Vec::new();
    for e in each {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    let agg = if seen.len() == 1 {
        seen.remove(0)
    } else {
        format!("[{}]", seen.join(", "))
    };
    Some(format!(
        "object name does not conform to Kubernetes naming requirements: {q}: {agg}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_their_rules() {
        assert!(validate("ConfigMap", "ok-name.x").is_none());
        assert!(validate("Service", "1abc").is_some());
        assert!(
            validate("Namespace", "a.b")
                .unwrap()
                .contains("must not contain dots")
        );
        assert!(validate("ClusterRole", "system:admin").is_none());
        assert!(validate("ClusterRole", "a/b").is_some());
        assert!(validate("CertificateSigningRequest", "Any_Thing").is_none());
    }
}
