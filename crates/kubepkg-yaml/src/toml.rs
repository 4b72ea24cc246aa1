//! TOML as Helm's `toToml`/`fromToml` (BurntSushi/toml): encoding a map to TOML text and
//! decoding TOML into values (integers become Go `int64`, floats `float64`).

use kubepkg_value::Value;

use crate::error::TomlError;

/// Helm's `toToml` encoder. Not yet byte-compatible with BurntSushi/toml; see the crate report.
pub fn to_toml(_v: &Value) -> Result<String, TomlError> {
    Err(TomlError::Encode {
        message: "toToml is not implemented yet".into(),
    })
}

/// Helm's `fromToml`.
pub fn from_toml(_src: &str) -> Result<Value, TomlError> {
    Err(TomlError::Parse {
        message: "fromToml is not implemented yet".into(),
    })
}
