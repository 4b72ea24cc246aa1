//! Helm's layer over text/template (helm.sh/helm/v4 `pkg/engine`): the engine functions'
//! texts (`include`'s recursion limit, `required`/`fail` wrapping), the `lookup` hook, the order
//! in which Helm parses a chart's files, the `<no value>` scrub of rendered output, and Helm's
//! rewriting of parse and execution errors (`cleanupParseError`, `reformatExecErrorMsg`), so
//! callers get Helm's final error text byte for byte.

use crate::{ExecError, ParseError, Value};

/// Start marker Helm wraps `required`/`fail` messages in.
pub const WARN_START: &str = "HELM_ERR_START";
/// End marker Helm wraps `required`/`fail` messages in.
pub const WARN_END: &str = "HELM_ERR_END";

/// Answers Helm's `lookup apiVersion kind namespace name`. Returns the object (or a list
/// object) as a map, or an empty map when nothing is found; the error text is what Helm's
/// lookup would return.
pub trait Lookup: Send + Sync {
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Value, String>;
}

/// The names of Helm's engine functions handled inside the template engine.
pub const ENGINE_FUNCS: &[&str] = &["include", "tpl", "required", "fail", "lookup"];

/// Whether `name` is one of Helm's engine functions.
pub fn is_engine_func(name: &str) -> bool {
    ENGINE_FUNCS.contains(&name)
}

/// Helm's `warnWrap`.
pub fn warn_wrap(s: &str) -> String {
    format!("{WARN_START}{s}{WARN_END}")
}

/// Sort template paths the way Helm parses them (`sortTemplates`): most path separators
/// first, then reverse lexical order. Parsing in this order makes a parent chart's `define`
/// (fewer separators, parsed later) replace a subchart's of the same name.
pub fn sort_templates(names: &mut [String]) {
    // Each name's depth counted once (counted in every comparison, sorting an umbrella's 1,800
    // names took 2 % of its render).
    let mut keyed: Vec<(usize, String)> = names
        .iter_mut()
        .map(|n| {
            (
                memchr::memchr_iter(b'/', n.as_bytes()).count(),
                std::mem::take(n),
            )
        })
        .collect();
    // Helm sorts ascending by (depth, name) and then reverses; equal keys are equal names.
    keyed.sort_unstable_by(|(da, a), (db, b)| (db, b).cmp(&(da, a)));
    for (slot, (_, name)) in names.iter_mut().zip(keyed) {
        *slot = name;
    }
}

/// Helm's scrub of rendered output: Go prints `<no value>` for missing values even with
/// `missingkey=zero`; Helm removes every occurrence.
pub fn scrub_no_value(s: &str) -> String {
    if s.contains("<no value>") {
        s.replace("<no value>", "")
    } else {
        s.to_string()
    }
}

/// [`scrub_no_value`] on rendered bytes (Go strings are bytes; a rendering can hold bytes that
/// are not UTF-8).
pub fn scrub_no_value_bytes(b: Vec<u8>) -> Vec<u8> {
    const NO_VALUE: &[u8] = b"<no value>";
    if !b.windows(NO_VALUE.len()).any(|w| w == NO_VALUE) {
        return b;
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(NO_VALUE) {
            i += NO_VALUE.len();
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Helm's `cleanupParseError`: `parse error at (LOCATION): MESSAGE`.
pub fn parse_error_text(filename: &str, err: &ParseError) -> String {
    let msg = &err.message;
    let tokens: Vec<&str> = msg.split(": ").collect();
    if tokens.len() == 1 {
        return format!("parse error in ({filename}): {msg}");
    }
    let location = tokens[1];
    let last = tokens[tokens.len() - 1];
    format!("parse error at ({location}): {last}")
}

#[derive(PartialEq, Eq, Clone)]
struct Traceable {
    location: String,
    message: String,
    executed_function: String,
}

impl Traceable {
    fn render(&self, out: &mut String) {
        if !self.location.is_empty() {
            out.push_str(&self.location);
            out.push_str("\n  ");
        }
        if !self.executed_function.is_empty() {
            out.push_str(&self.executed_function);
            out.push_str("\n    ");
        }
        if !self.message.is_empty() {
            out.push_str(&self.message);
            out.push('\n');
        }
    }
}

fn cut_template(msg: &str) -> &str {
    match msg.find(" template:") {
        Some(i) => &msg[..i],
        None => msg,
    }
}

fn parse_exec_error_string(s: &str) -> Option<Traceable> {
    let rest = s.strip_prefix("template: ")?;
    if rest.starts_with("no template ") {
        return Some(Traceable {
            location: String::new(),
            message: s.to_string(),
            executed_function: String::new(),
        });
    }
    if let Some((name, after)) = rest.split_once(": executing ") {
        let ok = (|| {
            let after = after.strip_prefix('"')?;
            let end = after.find('"')?;
            let func = &after[..end];
            let after_func = after[end + 1..].strip_prefix(" at <")?;
            let (loc, msg) = after_func.split_once(">: ")?;
            Some(Traceable {
                location: name.to_string(),
                message: cut_template(msg).to_string(),
                executed_function: format!("executing \"{func}\" at <{loc}>:"),
            })
        })();
        if ok.is_some() {
            return ok;
        }
        // Go's strings.Cut found the separator but the rest did not parse: give up.
        return None;
    }
    let sep = rest.rfind(": ")?;
    Some(Traceable {
        location: rest[..sep].to_string(),
        message: cut_template(&rest[sep + 2..]).to_string(),
        executed_function: String::new(),
    })
}

/// Helm's `reformatExecErrorMsg` for an error from executing `filename`.
pub fn exec_error_text(filename: &str, err: &ExecError) -> String {
    let full = err.message();
    if !err.is_exec_error {
        return full.to_string();
    }
    let tokens: Vec<&str> = full.splitn(3, ": ").collect();
    if tokens.len() != 3 {
        return format!("execution error in ({filename}): {full}");
    }
    let location = tokens[1];
    if let Some(start) = tokens[2].find(WARN_START)
        && let Some(end) = tokens[2].rfind(WARN_END)
        && end >= start + WARN_START.len()
    {
        return format!(
            "execution error at ({location}): {}",
            &tokens[2][start + WARN_START.len()..end]
        );
    }
    let mut locs: Vec<Traceable> = Vec::new();
    for layer in &err.chain {
        match parse_exec_error_string(layer) {
            Some(t) => {
                if locs.last() != Some(&t) {
                    locs.push(t);
                }
            }
            None => return full.to_string(),
        }
    }
    let mut s = String::new();
    for l in &locs {
        l.render(&mut s);
    }
    s.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_puts_parents_last() {
        let mut v = vec![
            "p/templates/a.yaml".to_string(),
            "p/charts/c/templates/b.yaml".to_string(),
            "p/templates/z.yaml".to_string(),
        ];
        sort_templates(&mut v);
        assert_eq!(
            v,
            vec![
                "p/charts/c/templates/b.yaml",
                "p/templates/z.yaml",
                "p/templates/a.yaml"
            ]
        );
    }

    #[test]
    fn parse_errors_are_shortened() {
        let e = ParseError {
            message: "template: c/templates/a.yaml:3: unexpected \"}\" in operand".into(),
        };
        assert_eq!(
            parse_error_text("c/templates/a.yaml", &e),
            "parse error at (c/templates/a.yaml:3): unexpected \"}\" in operand"
        );
    }
}
