//! Go's `strconv`: number text ([`format_float`], [`parse_int`], [`parse_uint`],
//! [`parse_float`]) and quoting ([`quote`], [`quote_to_ascii`], [`quote_rune`],
//! [`can_backquote`], [`is_print`]). Each submodule names the Go file it follows.

mod ftoa;
mod isprint;
mod parse;
mod quote;

pub use ftoa::format_float;
pub use parse::{
    NumError, NumErrorKind, atoi, parse_float, parse_float_saturating, parse_int, parse_uint,
    underscore_ok,
};
pub use quote::{can_backquote, is_print, quote, quote_bytes, quote_rune, quote_to_ascii, rune};
