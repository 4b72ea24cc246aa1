//! The resource limits of one execution ([`Limits`]) and what is left of them, as the executor
//! and the functions it calls see them.
//!
//! Go's `text/template` has no limits besides 100 000 nested `template` calls, so a chart can
//! make Helm run for hours or exhaust memory (`randAlphaNum 1000000000`, a `range` over
//! `until 100000` inside another, `tpl` calling itself). kubepkg bounds every execution; each
//! limit's error names the template, line and limit and the environment variable that raises
//! it ([`Limits::from_env`] reads them; `docs/limits.md` lists them with their defaults).
//!
//! Functions are plain `fn(&[Value])` ([`crate::Function`]), so the limits of the running
//! execution are kept per thread while it runs: a function that would make a long string or
//! list asks [`check_string`] or [`check_list`] before it allocates; the executor charges
//! [`charge`] for each `range` iteration, function call and template call.

use std::cell::Cell;

/// Resource limits of one execution (one template file of a chart, with everything it
/// `include`s and `tpl`s). [`Limits::default`] is generous enough for every chart of the
/// corpus; [`Limits::from_env`] applies the `KUBEPKG_TEMPLATE_MAX_*` variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest output (bytes) a single [`crate::Templates::execute`] may produce, including
    /// output of nested `include`/`tpl` calls. Default 256 MiB (`KUBEPKG_TEMPLATE_MAX_OUTPUT`).
    pub max_output_bytes: usize,
    /// Largest string one function may make (`randAlphaNum`, `randAlpha`, `randNumeric`,
    /// `randAscii`, `repeat`, `indent`, `nindent`). Default 64 MiB
    /// (`KUBEPKG_TEMPLATE_MAX_STRING`).
    pub max_string_bytes: usize,
    /// Longest list one function may make (`until`, `untilStep`, `seq`). Default 16 Mi
    /// elements (`KUBEPKG_TEMPLATE_MAX_LIST`).
    pub max_list_len: usize,
    /// Deepest nesting of `template`, `include` and `tpl` calls together. Default 100 000, Go's
    /// own limit for `template` calls (Helm additionally fails a name `include`d more than
    /// 1 000 times in one nest). The stack grows on the heap as needed, so deep nests cost
    /// memory (a few KiB per level), not a crash (`KUBEPKG_TEMPLATE_MAX_DEPTH`).
    pub max_depth: usize,
    /// Deepest nesting of `tpl` calls (a `tpl` whose text calls `tpl`…): each level parses a
    /// template and keeps it, so a `tpl` that calls itself would exhaust memory long before
    /// [`Limits::max_depth`]. Default 100 (`KUBEPKG_TEMPLATE_MAX_TPL_DEPTH`).
    pub max_tpl_depth: usize,
    /// Most operations one execution may run: `range` iterations, function calls and
    /// `template` calls (with their `include`s and `tpl`s). Default 100 000 000, a few minutes
    /// of work (`KUBEPKG_TEMPLATE_MAX_OPERATIONS`).
    pub max_operations: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_output_bytes: 256 << 20,
            max_string_bytes: 64 << 20,
            max_list_len: 16 << 20,
            max_depth: 100_000,
            max_tpl_depth: 100,
            max_operations: 100_000_000,
        }
    }
}

/// The environment variable that sets each limit.
pub mod env {
    /// [`super::Limits::max_output_bytes`].
    pub const MAX_OUTPUT: &str = "KUBEPKG_TEMPLATE_MAX_OUTPUT";
    /// [`super::Limits::max_string_bytes`].
    pub const MAX_STRING: &str = "KUBEPKG_TEMPLATE_MAX_STRING";
    /// [`super::Limits::max_list_len`].
    pub const MAX_LIST: &str = "KUBEPKG_TEMPLATE_MAX_LIST";
    /// [`super::Limits::max_depth`].
    pub const MAX_DEPTH: &str = "KUBEPKG_TEMPLATE_MAX_DEPTH";
    /// [`super::Limits::max_tpl_depth`].
    pub const MAX_TPL_DEPTH: &str = "KUBEPKG_TEMPLATE_MAX_TPL_DEPTH";
    /// [`super::Limits::max_operations`].
    pub const MAX_OPERATIONS: &str = "KUBEPKG_TEMPLATE_MAX_OPERATIONS";
}

/// An environment variable of [`Limits::from_env`] that is not a whole number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}={value:?}: want a whole number (the limit's new value)")]
pub struct LimitsError {
    pub name: &'static str,
    pub value: String,
}

impl Limits {
    /// The default limits with each `KUBEPKG_TEMPLATE_MAX_*` variable that is set applied.
    pub fn from_env() -> Result<Limits, LimitsError> {
        Limits::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Limits::from_env`] over any source of variables.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Limits, LimitsError> {
        fn read<T: std::str::FromStr>(
            get: &impl Fn(&str) -> Option<String>,
            name: &'static str,
            slot: &mut T,
        ) -> Result<(), LimitsError> {
            if let Some(value) = get(name) {
                *slot = value
                    .trim()
                    .replace('_', "")
                    .parse()
                    .map_err(|_| LimitsError { name, value })?;
            }
            Ok(())
        }
        let mut l = Limits::default();
        read(&get, env::MAX_OUTPUT, &mut l.max_output_bytes)?;
        read(&get, env::MAX_STRING, &mut l.max_string_bytes)?;
        read(&get, env::MAX_LIST, &mut l.max_list_len)?;
        read(&get, env::MAX_DEPTH, &mut l.max_depth)?;
        read(&get, env::MAX_TPL_DEPTH, &mut l.max_tpl_depth)?;
        read(&get, env::MAX_OPERATIONS, &mut l.max_operations)?;
        Ok(l)
    }
}

thread_local! {
    static ACTIVE: Cell<Option<Limits>> = const { Cell::new(None) };
    static OPERATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The limits of the execution running on this thread (the defaults outside one).
pub fn current() -> Limits {
    ACTIVE.with(Cell::get).unwrap_or_default()
}

/// Installs an execution's limits on this thread until dropped; nested executions (a
/// function that executes templates itself) see the outer limits and budget.
pub(crate) struct Scope {
    outermost: bool,
}

impl Scope {
    pub(crate) fn enter(limits: Limits) -> Scope {
        let outermost = ACTIVE.with(|a| {
            if a.get().is_some() {
                return false;
            }
            a.set(Some(limits));
            true
        });
        if outermost {
            OPERATIONS.with(|o| o.set(0));
        }
        Scope { outermost }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.outermost {
            ACTIVE.with(|a| a.set(None));
        }
    }
}

/// Count `n` operations against [`Limits::max_operations`].
pub fn charge(n: u64) -> Result<(), String> {
    let max = current().max_operations;
    let used = OPERATIONS.with(|o| {
        let used = o.get().saturating_add(n);
        o.set(used);
        used
    });
    if used > max {
        return Err(format!(
            "the template ran more than {max} operations (range iterations, function and \
             template calls), kubepkg's limit; set {}=N to raise it",
            env::MAX_OPERATIONS
        ));
    }
    Ok(())
}

/// Whether a function may make a string of `bytes` bytes ([`Limits::max_string_bytes`]).
pub fn check_string(bytes: u128) -> Result<(), String> {
    let max = current().max_string_bytes;
    if bytes > max as u128 {
        return Err(format!(
            "the result would be {bytes} bytes, over kubepkg's limit of {max} bytes for one \
             string; set {}=BYTES to raise it",
            env::MAX_STRING
        ));
    }
    Ok(())
}

/// Whether a function may make a list of `len` elements ([`Limits::max_list_len`]); the
/// elements also count as operations.
pub fn check_list(len: u128) -> Result<(), String> {
    let max = current().max_list_len;
    if len > max as u128 {
        return Err(format!(
            "the list would have {len} elements, over kubepkg's limit of {max}; set {}=N to \
             raise it",
            env::MAX_LIST
        ));
    }
    charge(len as u64)
}

/// The text of the output limit's error.
pub(crate) fn output_exceeded(max: usize) -> String {
    format!(
        "output exceeds the limit of {max} bytes; set {}=BYTES to raise it",
        env::MAX_OUTPUT
    )
}

/// The text of the nesting limit's error.
pub(crate) fn depth_exceeded(max: usize) -> String {
    format!(
        "exceeded the maximum nesting of template, include and tpl calls ({max}); set {}=N to \
         raise it",
        env::MAX_DEPTH
    )
}

/// The text of the `tpl` nesting limit's error.
pub(crate) fn tpl_depth_exceeded(max: usize) -> String {
    format!(
        "exceeded the maximum nesting of tpl calls ({max}); set {}=N to raise it",
        env::MAX_TPL_DEPTH
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_variables_set_the_limits() {
        let vars = |name: &str| match name {
            "KUBEPKG_TEMPLATE_MAX_OUTPUT" => Some("1_000".to_string()),
            "KUBEPKG_TEMPLATE_MAX_OPERATIONS" => Some(" 5 ".to_string()),
            _ => None,
        };
        let l = Limits::from_lookup(vars).unwrap();
        assert_eq!(l.max_output_bytes, 1000);
        assert_eq!(l.max_operations, 5);
        assert_eq!(l.max_string_bytes, Limits::default().max_string_bytes);
        let e = Limits::from_lookup(|n| (n == env::MAX_STRING).then(|| "64MiB".to_string()))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "KUBEPKG_TEMPLATE_MAX_STRING=\"64MiB\": want a whole number (the limit's new value)"
        );
    }

    #[test]
    fn checks_use_the_running_execution_s_limits() {
        assert!(check_string(64 << 20).is_ok());
        let _scope = Scope::enter(Limits {
            max_string_bytes: 10,
            max_operations: 3,
            ..Limits::default()
        });
        assert!(check_string(10).is_ok());
        assert!(
            check_string(11)
                .unwrap_err()
                .contains("KUBEPKG_TEMPLATE_MAX_STRING")
        );
        assert!(charge(3).is_ok());
        assert!(charge(1).unwrap_err().contains("more than 3 operations"));
    }
}
