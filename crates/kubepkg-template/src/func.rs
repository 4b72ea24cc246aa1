//! The contract between the template engine and the functions it calls.
//!
//! text/template calls Go functions through reflection and checks each argument against the
//! parameter's Go type (`wrong type for value; expected int; got float64`), converting untyped
//! constants such as `3` or `"x"` to the parameter type. A [`Function`] therefore declares its
//! parameter types as [`ArgType`]s; the executor validates and converts arguments exactly as Go
//! does before calling [`Function::call`], so a function body only ever sees values of the
//! declared types (or [`Value::Nil`] for nil-able types given nil).

use kubepkg_value::Value;

/// What a function returns: a value, or the error text the Go function would return (the
/// executor wraps it as `error calling NAME: TEXT`).
pub type FuncResult = Result<Value, String>;

/// The Go type of a function parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// `interface{}`: anything, including nil.
    Any,
    /// `string`, as text: a string whose bytes are not UTF-8 ([`Value::NonUtf8String`]) reaches
    /// the function as the [`Value::String`] Go's rune-wise functions see (each invalid byte
    /// decoded as U+FFFD, see [`kubepkg_value::go_lossy`]).
    String,
    /// `string`, with its exact bytes: the function receives [`Value::String`] or
    /// [`Value::NonUtf8String`]. For functions whose result depends on the bytes themselves
    /// (hashes, base64, byte-indexed cuts such as `substr`).
    StringBytes,
    /// `int`
    Int,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `bool`
    Bool,
    /// `[]interface{}` (nil allowed)
    List,
    /// `[]string` (nil allowed)
    StringList,
    /// `map[string]interface{}` (nil allowed)
    Map,
    /// `[]byte` (nil allowed)
    Bytes,
    /// `time.Time`
    Time,
    /// A named Go type implemented by a [`kubepkg_value::GoObject`] whose `type_name()` is
    /// this string, e.g. `sprig.certificate` (nil allowed only for pointer types, `*T`).
    Object(&'static str),
}

/// A function callable from templates.
#[derive(Clone)]
pub struct Function {
    /// The name templates call it by.
    pub name: &'static str,
    /// Fixed parameters, in order.
    pub params: &'static [ArgType],
    /// The element type of a trailing variadic parameter (`...interface{}`), if any.
    pub variadic: Option<ArgType>,
    /// The body. Receives arguments already validated/converted to `params`/`variadic`.
    pub call: fn(&[Value]) -> FuncResult,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("variadic", &self.variadic)
            .finish()
    }
}
