//! Sprig v3.3 and Helm's own template functions as [`Function`]s for kubepkg's Go
//! `text/template` engine.
//!
//! Every function declares the Go parameter types of its Sprig/Helm signature (the engine checks
//! and converts arguments like Go's reflection does) and returns the Go type Go returns, because
//! templates observe it (`typeOf`, `kindOf`, printing). Behaviour follows the Go sources
//! (Masterminds/sprig v3.3.0, spf13/cast, Masterminds/semver v3, goutils, xstrings, mergo and
//! Helm's `pkg/engine`), including their quirks and error texts; an error string is what the Go
//! function returns or panics with (the engine wraps it as `error calling NAME: …`).
//!
//! [`helm_functions`] is the set Helm binds, minus `include`, `tpl` and `lookup`, which need the
//! template set and are bound by the engine ([`ENGINE_BOUND`]).
//!
//! List functions also accept Helm's named slices and maps (`.Capabilities.APIVersions`,
//! `.Files`: [`reflect`]). RSA keys (`genPrivateKey`, `genCA`, `genSignedCert`, …) are made by
//! kubepkg-rsakey (`bench/rsa-keygen.sh` compares it with Go's generator).

#![forbid(unsafe_code)]

pub mod cast;
mod crypto;
mod dates;
mod defaults;
mod dicts;
mod encoding;
pub mod gofmt;
mod helm;
mod lists;
mod math;
mod paths;
pub mod reflect;
mod regex;
mod semver;
pub mod strings;
mod urls;

use kubepkg_template::Function;

pub use dates::{format_time, time_string};

/// Helm functions that the engine binds itself because they need the template set or a cluster.
pub const ENGINE_BOUND: [&str; 3] = ["include", "tpl", "lookup"];

/// Functions that change a map they are given (Sprig's `set` and `unset`, and the merges, which
/// write into their first map): what one template does with them to `.Values` or `$` is seen by
/// every template executed after it, so templates that may call them run one after another.
pub const CHANGE_THEIR_ARGUMENTS: [&str; 6] = [
    "set",
    "unset",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
];

/// Declares a [`Function`] with fixed parameters: `f!("name", [String, Int], body)`.
#[macro_export]
#[doc(hidden)]
macro_rules! f {
    ($name:expr, [$($p:ident),*], $call:expr) => {
        ::kubepkg_template::Function {
            name: $name,
            params: &[$($crate::arg_type!($p)),*],
            variadic: None,
            call: $call,
        }
    };
}

/// An [`ArgType`](kubepkg_template::ArgType) by name; `Cert` is Sprig's `certificate` struct.
#[macro_export]
#[doc(hidden)]
macro_rules! arg_type {
    (Cert) => {
        ::kubepkg_template::ArgType::Object("sprig.certificate")
    };
    ($p:ident) => {
        ::kubepkg_template::ArgType::$p
    };
}

/// Declares a variadic [`Function`]: `fv!("name", [String], Any, body)`.
#[macro_export]
#[doc(hidden)]
macro_rules! fv {
    ($name:expr, [$($p:ident),*], $v:ident, $call:expr) => {
        ::kubepkg_template::Function {
            name: $name,
            params: &[$($crate::arg_type!($p)),*],
            variadic: Some($crate::arg_type!($v)),
            call: $call,
        }
    };
}

/// Argument accessors. The engine has already checked the Go types, so these fall back to zero
/// values instead of failing if a caller bypasses it.
pub(crate) mod args {
    use kubepkg_value::Value;

    static NIL: Value = Value::Nil;

    /// Argument `i` (nil when absent).
    pub fn arg(a: &[Value], i: usize) -> &Value {
        a.get(i).unwrap_or(&NIL)
    }

    /// A `string` argument.
    pub fn s(a: &[Value], i: usize) -> &str {
        a.get(i).and_then(Value::as_str).unwrap_or("")
    }

    /// The exact bytes of a `string` argument declared [`kubepkg_template::ArgType::StringBytes`].
    pub fn bytes(a: &[Value], i: usize) -> &[u8] {
        a.get(i).and_then(Value::go_bytes).unwrap_or_default()
    }

    /// An `int`/`int64` argument.
    pub fn int(a: &[Value], i: usize) -> i64 {
        match a.get(i) {
            Some(Value::Int(x) | Value::Int64(x)) => *x,
            Some(Value::Uint(u)) => *u as i64,
            _ => 0,
        }
    }
}

/// Every Sprig v3.3 function of `TxtFuncMap()` except `env` and `expandenv` (which read the
/// process environment and which Helm removes), with Sprig's own implementations.
pub fn sprig_functions() -> Vec<Function> {
    [
        strings::functions,
        lists::functions,
        dicts::functions,
        defaults::functions,
        math::functions,
        dates::functions,
        encoding::functions,
        crypto::functions,
        semver::functions,
        regex::functions,
        paths::functions,
        urls::functions,
    ]
    .into_iter()
    .flat_map(|module| module())
    .collect()
}

/// The functions Helm binds (Sprig without `env`/`expandenv`, with Helm's `fromJson`, `fail`
/// and `required` — Helm's `toJson` and `mustToJson` write as Sprig's — plus Helm's YAML/JSON/TOML and duration helpers), by
/// Helm's names. `include`, `tpl` and `lookup` are not here: see [`ENGINE_BOUND`]. The list
/// functions of [`reflect::REFLECTING`] accept Helm's named slices and maps as Go's reflection
/// does.
pub fn helm_functions() -> Vec<Function> {
    reflect::wrap(helm_functions_as_declared())
}

/// [`helm_functions`] before the [`reflect`] wrapping.
fn helm_functions_as_declared() -> Vec<Function> {
    let extra = helm::functions();
    let mut all: Vec<Function> = sprig_functions()
        .into_iter()
        .filter(|f| !extra.iter().any(|e| e.name == f.name))
        .collect();
    all.extend(extra);
    all.sort_by_key(|f| f.name);
    all
}

/// [`helm_functions`] as a table built once per process and shared: handing it to
/// `Templates::with_funcs` costs nanoseconds, while building the table per render costs ~20 µs.
pub fn helm_table() -> std::sync::Arc<kubepkg_template::FuncTable> {
    static TABLE: std::sync::LazyLock<std::sync::Arc<kubepkg_template::FuncTable>> =
        std::sync::LazyLock::new(|| {
            std::sync::Arc::new(kubepkg_template::FuncTable::new(helm_functions()))
        });
    TABLE.clone()
}

/// One RSA key of `bits` bits made as the certificate functions and `genPrivateKey` make theirs
/// (kubepkg-rsakey's generator): the Rust side of
/// `bench/rsa-keygen.sh` (`examples/rsa_keygen.rs`), not an API.
#[doc(hidden)]
pub fn bench_rsa_key(bits: usize) -> Result<(), String> {
    crypto::rsa_key(bits).map(drop)
}

/// Asserts that `f` refuses each input of `cases` with the error beside it (Go's text).
#[cfg(test)]
#[track_caller]
fn assert_refusals<T: std::fmt::Debug>(
    f: impl Fn(&str) -> Result<T, String>,
    cases: &[(&str, &str)],
) {
    for &(input, error) in cases {
        assert_eq!(f(input).unwrap_err(), error, "{input:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = sprig_functions().iter().map(|f| f.name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate Sprig function names");
    }
}
