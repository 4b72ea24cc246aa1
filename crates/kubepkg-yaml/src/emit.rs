//! The writer: `sigs.k8s.io/yaml.Marshal` = Go `encoding/json` text, re-read by go-yaml v2
//! (so JSON numbers become `int`, `uint64` or `float64` again) and printed by go-yaml v2's
//! emitter.

use kubepkg_value::Value;

use crate::error::YamlError;

/// `sigs.k8s.io/yaml.Marshal(v)`.
pub fn marshal(_v: &Value) -> Result<String, YamlError> {
    Err(YamlError::Marshal {
        message: "not implemented yet".into(),
    })
}

/// Helm's `toYamlPretty` (go-yaml v3, indent 2).
pub fn marshal_pretty(_v: &Value) -> Result<String, YamlError> {
    Err(YamlError::Marshal {
        message: "not implemented yet".into(),
    })
}
