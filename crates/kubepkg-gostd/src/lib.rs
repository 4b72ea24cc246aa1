//! Go's standard library as Helm uses it, in one place.
//!
//! Helm's output is made by Go: numbers are printed by `strconv` and `fmt`, strings quoted by
//! `strconv.Quote`, times printed and parsed by `time` with its reference-time layouts,
//! durations by `time.Duration`. kubepkg reproduces that output byte for byte, so every crate
//! that prints or reads such text calls this crate instead of keeping its own copy. Each module
//! names the Go source it follows; every function is checked against values recorded from real
//! Go (`oracle/`, golden data in `testdata/go-stdlib.tsv`, compared by `oracle_tests.rs`).
//!
//! | module | Go |
//! |---|---|
//! | [`strconv`] | `strconv`: `FormatFloat`, `ParseFloat` (decimal text), `ParseInt`/`ParseUint`, `Quote` and friends, `IsPrint`, `CanBackquote` |
//! | [`fmt`] | `fmt/format.go`: the flags, width, precision and padding of one verb, and the number forms (`%d %x %o %b %c %q %U`, `%e %f %g %x` of floats) |
//! | [`json`] | `encoding/json`'s text of a `float64`, and serde data written as `json.Marshal` writes it |
//! | [`path`] | `path.Clean`, `path.Match` (`filepath.Match` on `/`: `.helmignore`, `--show-only`) |
//! | [`time`] | `time`: `Time.String`/`Format`/`ParseInLocation`, `LoadLocation` and `Local`, `Duration.String`/`Round`, `ParseDuration`, civil dates |
//! | [`slog`] | `log/slog`'s `TextHandler` line (Helm 4's CLI logger: no time), and the one way kubepkg logs a Helm warning |
//! | [`utf8`] | `unicode/utf8` over Go strings (bytes that need not be UTF-8) |
//! | [`flate`], [`archive`] | `compress/flate`'s compressor at the default level, `compress/gzip`'s and `archive/tar`'s writers (the bytes of a chart archive Helm writes) |
//! | [`uitable`] | not the standard library: gosuri/uitable, the table layout of Helm's CLI |
//!
//! The crate is a leaf: it depends on no other kubepkg crate, on one time library (jiff,
//! for the IANA zone database only; the calendar arithmetic is Go's own, in [`time::civil`])
//! and on serde_json (whose writer [`json::to_vec`] drives with Go's formatting).
//!
//! [`slog::log`] is the one way a library emits one of Helm's warnings (coalescing, a
//! deprecated chart, non-bool conditions and tags, import-values, unknown hooks).
//! [`flate`] and [`archive`] write the archives of `file://` dependencies as Helm's
//! `chartutil.Save` does. `oracle/regen.sh` records the golden data from Go; `oracle_tests.rs`
//! keeps a list of known gaps, which may only shrink.

pub mod archive;
pub mod flate;
pub mod fmt;
pub mod json;
pub mod path;
pub mod slog;
pub mod strconv;
pub mod time;
pub mod uitable;
pub mod utf8;

#[cfg(test)]
mod oracle_tests;
