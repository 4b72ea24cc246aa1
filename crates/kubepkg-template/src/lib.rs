//! Go `text/template` for kubepkg: the lexer, parser and executor with Go's exact semantics and
//! error texts, and Go's `fmt` printing of [`Value`]s. Functions are supplied by callers as
//! [`Function`]s (Sprig and Helm's functions live in `kubepkg-funcs`).

#![forbid(unsafe_code)]

pub mod func;

pub use func::{ArgType, FuncResult, Function};
pub use kubepkg_value::Value;
