//! Go's `fmt` as Sprig relies on it: `%v` (through `fmt.Sprint`, `fmt.Sprintf("%v")` and
//! Sprig's `strval`) is the template engine's printer (`kubepkg_template::fmt`); `%q` and float
//! text are `kubepkg-gostd`'s `strconv`.

use kubepkg_value::Value;

pub use kubepkg_gostd::strconv::quote;

/// `fmt.Sprintf("%v", v)`.
pub fn sprint_v(v: &Value) -> String {
    kubepkg_template::fmt::format_value(v)
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also `%v` for a `float64`.
pub fn format_float_g(f: f64) -> String {
    kubepkg_gostd::strconv::format_float(f, 'g', -1, 64)
}
