//! Typed errors of the YAML/JSON/TOML layer. Each error's `Display` is the exact text Helm's Go
//! code produces for the same input (`err.Error()`), because templates observe that text
//! (`fromYaml` puts it under `"Error"`) and users compare it with Helm's messages.

use thiserror::Error;

/// Why reading or writing YAML failed. `Display` is Go's `err.Error()` for the same failure.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum YamlError {
    /// The text is not valid YAML (go-yaml's parser rejected it), an alias is unknown, or a
    /// limit (alias expansion, nesting depth) was hit. `line` is 1-based when go-yaml names one.
    /// Display: `error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context`.
    #[error("error converting YAML to JSON: yaml: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Syntax {
        line: Option<usize>,
        message: String,
    },
    /// The YAML decoded, but cannot be expressed as JSON (e.g. `.inf`, `.nan`, a `null` or
    /// unsupported map key). Display: `error converting YAML to JSON: json: unsupported value: +Inf`.
    #[error("error converting YAML to JSON: {message}")]
    Convert { message: String },
    /// The document has the wrong shape for the requested Go type (a list where a map is
    /// required). Display: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}`.
    #[error("error unmarshaling JSON: while decoding JSON: {message}")]
    Shape { message: String },
    /// A value cannot be marshalled (NaN/Inf in `toYaml`). Display: `error marshaling into JSON: json: unsupported value: NaN`.
    #[error("error marshaling into JSON: {message}")]
    Marshal { message: String },
    /// A `---` line carries more than a comment (Kubernetes' YAML reader rejects it).
    #[error("error reading yaml document: invalid Yaml document separator: {text}")]
    Separator { text: String },
    /// go-yaml refused to read back the JSON text `toYaml` produced (Go's JSON leaves DEL and
    /// C1 control characters unescaped). Display: `yaml: control characters are not allowed`.
    #[error("yaml: {message}")]
    Reread { message: String },
    /// A multi-document stream could not be split or one document failed; `document` is 1-based.
    /// Display follows Helm 4's values loader: `cannot unmarshal yaml document: …`.
    #[error("cannot unmarshal yaml document: {source}")]
    Document {
        document: usize,
        #[source]
        source: Box<YamlError>,
    },
}

impl YamlError {
    /// The error as a bare go-yaml/JSON error, without the `error converting YAML to JSON: `
    /// context `sigs.k8s.io/yaml.Unmarshal` adds (what `YAMLToJSON` returns).
    pub fn go_text(&self) -> String {
        let full = self.to_string();
        full.strip_prefix("error converting YAML to JSON: ")
            .map(str::to_string)
            .unwrap_or(full)
    }

    /// The problem alone, for readers that print the place themselves: go-yaml's message
    /// without `yaml: line N: ` and the `error converting YAML to JSON: ` context.
    pub fn problem(&self) -> String {
        match self {
            YamlError::Syntax { message, .. }
            | YamlError::Convert { message }
            | YamlError::Shape { message } => message.clone(),
            YamlError::Document { source, .. } => source.problem(),
            other => other.to_string(),
        }
    }

    /// The 1-based line go-yaml reported, if any.
    pub fn line(&self) -> Option<usize> {
        match self {
            YamlError::Syntax { line, .. } => *line,
            YamlError::Document { source, .. } => source.line(),
            _ => None,
        }
    }
}

/// Why reading or writing JSON failed. `Display` is Go's encoding/json error text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JsonError {
    /// Malformed JSON: `invalid character 'x' looking for beginning of value`,
    /// `unexpected end of JSON input`. `offset` is the byte offset Go reports.
    #[error("{message}")]
    Syntax { offset: usize, message: String },
    /// Valid JSON of the wrong shape: `json: cannot unmarshal array into Go value of type map[string]interface {}`.
    #[error("{message}")]
    Shape { message: String },
    /// A value JSON cannot represent: `json: unsupported value: NaN`.
    #[error("{message}")]
    Unsupported { message: String },
}

/// Why reading or writing TOML failed. `Display` follows BurntSushi/toml's error text where we
/// can reproduce it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TomlError {
    /// The TOML text is malformed.
    #[error("{message}")]
    Parse { message: String },
    /// The value cannot be encoded as TOML (e.g. the top level is not a map).
    #[error("{message}")]
    Encode { message: String },
}
