//! Sprig's `urlParse` and `urlJoin` over Go's `net/url` rules: scheme detection, opaque URLs,
//! authority with userinfo and port validation, percent-decoding of path and fragment, and
//! `URL.String()`'s re-escaping when joining; and `getHostByName` (a DNS lookup).

use std::collections::BTreeMap;

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{Value, map_read};

use crate::args::{arg, s};
use crate::{f, gofmt};

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("urlParse", [String], url_parse),
        f!("urlJoin", [Map], url_join),
        f!("getHostByName", [String], get_host_by_name),
    ]
}

/// Sprig's `getHostByName`: one of the name's addresses, picked at random (Go panics with
/// `invalid argument to Intn` when the lookup yields nothing).
fn get_host_by_name(a: &[Value]) -> FuncResult {
    use rand::Rng;
    use std::net::ToSocketAddrs;
    let mut addrs: Vec<String> = Vec::new();
    if let Ok(it) = (s(a, 0), 0u16).to_socket_addrs() {
        for sa in it {
            let ip = sa.ip().to_string();
            if !addrs.contains(&ip) {
                addrs.push(ip);
            }
        }
    }
    if addrs.is_empty() {
        return Err("invalid argument to Intn".into());
    }
    let i = rand::thread_rng().gen_range(0..addrs.len());
    Ok(addrs.swap_remove(i).into())
}

#[derive(Default, Debug)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_query: String,
    force_query: bool,
    fragment: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    UserPassword,
    Fragment,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host {
        return !b"!$&'()*+,;=:[]<>\"-_.~".contains(&c);
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
                Mode::Fragment => false,
                Mode::Host => false,
            };
        }
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        if should_escape(b, mode) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                let bad: String = s[i..].chars().take(3).collect();
                return Err(format!("invalid URL escape {}", gofmt::quote(&bad)));
            }
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            if mode == Mode::Host && v < 0x80 && s[i..i + 3] != *"%25" {
                return Err(format!("invalid URL escape {}", gofmt::quote(&s[i..i + 3])));
            }
            out.push(v);
            i += 3;
        } else {
            if mode == Mode::Host && b[i] < 0x80 && should_escape(b[i], Mode::Host) {
                return Err(format!(
                    "invalid character {} in host name",
                    gofmt::quote(&s[i..i + 1])
                ));
            }
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn get_scheme(raw: &str) -> Result<(String, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' || c == b'.' {
            if i == 0 {
                return Ok((String::new(), raw));
            }
            continue;
        }
        if c == b':' {
            if i == 0 {
                return Err("missing protocol scheme".into());
            }
            return Ok((raw[..i].to_string(), &raw[i + 1..]));
        }
        return Ok((String::new(), raw));
    }
    Ok((String::new(), raw))
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".into());
        };
        let port = &host[i + 1..];
        if !valid_port(port) {
            return Err(format!("invalid port {} after host", gofmt::quote(port)));
        }
        return Ok(host.to_string());
    }
    if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_port(port) {
            return Err(format!("invalid port {} after host", gofmt::quote(port)));
        }
    }
    unescape(host, Mode::Host)
}

fn valid_port(p: &str) -> bool {
    if p.is_empty() {
        return true;
    }
    p.starts_with(':') && p[1..].bytes().all(|b| b.is_ascii_digit())
}

fn parse(raw: &str) -> Result<Url, String> {
    let (u, frag) = match raw.split_once('#') {
        Some((a, b)) => (a, Some(b)),
        None => (raw, None),
    };
    let mut url = parse_no_frag(u)?;
    if let Some(f) = frag {
        url.fragment = unescape(f, Mode::Fragment)?;
    }
    Ok(url)
}

fn parse_no_frag(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest.to_string();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest.pop();
    } else if let Some((a, q)) = rest.clone().split_once('?') {
        rest = a.to_string();
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest;
            return Ok(url);
        }
        let seg = rest.split('/').next().unwrap_or("");
        if seg.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let auth_rest = rest[2..].to_string();
        let (authority, path) = match auth_rest.find('/') {
            Some(i) => (auth_rest[..i].to_string(), auth_rest[i..].to_string()),
            None => (auth_rest.clone(), String::new()),
        };
        rest = path;
        match authority.rfind('@') {
            None => url.host = parse_host(&authority)?,
            Some(i) => {
                url.host = parse_host(&authority[i + 1..])?;
                let ui = &authority[..i];
                match ui.split_once(':') {
                    None => url.user = Some((unescape(ui, Mode::UserPassword)?, None)),
                    Some((u, p)) => {
                        url.user = Some((
                            unescape(u, Mode::UserPassword)?,
                            Some(unescape(p, Mode::UserPassword)?),
                        ))
                    }
                }
            }
        }
    }
    url.path = unescape(&rest, Mode::Path)?;
    Ok(url)
}

fn userinfo_string(u: &(String, Option<String>)) -> String {
    let mut s = escape(&u.0, Mode::UserPassword);
    if let Some(p) = &u.1 {
        s.push(':');
        s.push_str(&escape(p, Mode::UserPassword));
    }
    s
}

fn hostname(host: &str) -> String {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match host.rfind(':') {
        Some(i) if valid_port(&host[i..]) => host[..i].to_string(),
        _ => host.to_string(),
    }
}

fn url_parse(a: &[Value]) -> FuncResult {
    let raw = s(a, 0);
    let u =
        parse(raw).map_err(|e| format!("unable to parse url: parse {}: {e}", gofmt::quote(raw)))?;
    let mut m = BTreeMap::new();
    m.insert("scheme".to_string(), Value::from(u.scheme.clone()));
    m.insert("host".to_string(), Value::from(u.host.clone()));
    m.insert("hostname".to_string(), Value::from(hostname(&u.host)));
    m.insert("path".to_string(), Value::from(u.path.clone()));
    m.insert("query".to_string(), Value::from(u.raw_query.clone()));
    m.insert("opaque".to_string(), Value::from(u.opaque.clone()));
    m.insert("fragment".to_string(), Value::from(u.fragment.clone()));
    m.insert(
        "userinfo".to_string(),
        Value::from(u.user.as_ref().map(userinfo_string).unwrap_or_default()),
    );
    Ok(Value::map(m))
}

fn dict_get(d: &BTreeMap<String, Value>, key: &str) -> Result<String, String> {
    match d.get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(Value::Nil) => Err(crate::lists::NIL_DEREF.into()),
        Some(v) => Err(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            v.kind_name()
        )),
    }
}

fn url_join(a: &[Value]) -> FuncResult {
    let d = match arg(a, 0) {
        Value::Map(m) => map_read(m).clone(),
        _ => BTreeMap::new(),
    };
    let mut u = Url {
        scheme: dict_get(&d, "scheme")?,
        host: dict_get(&d, "host")?,
        path: dict_get(&d, "path")?,
        raw_query: dict_get(&d, "query")?,
        opaque: dict_get(&d, "opaque")?,
        fragment: dict_get(&d, "fragment")?,
        ..Url::default()
    };
    let userinfo = dict_get(&d, "userinfo")?;
    if !userinfo.is_empty() {
        let tmp = parse(&format!("proto://{userinfo}@host")).map_err(|e| {
            format!(
                "unable to parse userinfo in dict: parse {}: {e}",
                gofmt::quote(&format!("proto://{userinfo}@host"))
            )
        })?;
        u.user = tmp.user;
    }
    Ok(url_string(&u).into())
}

fn url_string(u: &Url) -> String {
    let mut buf = String::new();
    if !u.scheme.is_empty() {
        buf.push_str(&u.scheme);
        buf.push(':');
    }
    if !u.opaque.is_empty() {
        buf.push_str(&u.opaque);
    } else {
        if !u.scheme.is_empty() || !u.host.is_empty() || u.user.is_some() {
            if !u.host.is_empty() || !u.path.is_empty() || u.user.is_some() {
                buf.push_str("//");
            }
            if let Some(ui) = &u.user {
                buf.push_str(&userinfo_string(ui));
                buf.push('@');
            }
            if !u.host.is_empty() {
                buf.push_str(&escape(&u.host, Mode::Host));
            }
        }
        let path = escape(&u.path, Mode::Path);
        if !path.is_empty() && !path.starts_with('/') && !u.host.is_empty() {
            buf.push('/');
        }
        if buf.is_empty() && path.split('/').next().unwrap_or("").contains(':') {
            buf.push_str("./");
        }
        buf.push_str(&path);
    }
    if u.force_query || !u.raw_query.is_empty() {
        buf.push('?');
        buf.push_str(&u.raw_query);
    }
    if !u.fragment.is_empty() {
        buf.push('#');
        buf.push_str(&escape(&u.fragment, Mode::Fragment));
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    // Sprig docs (url.md): urlParse and urlJoin round trip.
    #[test]
    fn url_parse_and_join_match_sprig_docs() {
        let v = url_parse(&["http://admin:secret@server.com:8080/api?list=false#anchor".into()])
            .unwrap();
        let Value::Map(m) = &v else { panic!() };
        let m = map_read(m);
        assert_eq!(m["scheme"], Value::str("http"));
        assert_eq!(m["host"], Value::str("server.com:8080"));
        assert_eq!(m["hostname"], Value::str("server.com"));
        assert_eq!(m["path"], Value::str("/api"));
        assert_eq!(m["query"], Value::str("list=false"));
        assert_eq!(m["fragment"], Value::str("anchor"));
        assert_eq!(m["userinfo"], Value::str("admin:secret"));
        drop(m);
        assert_eq!(
            url_join(&[v]).unwrap(),
            Value::str("http://admin:secret@server.com:8080/api?list=false#anchor")
        );
    }
}
