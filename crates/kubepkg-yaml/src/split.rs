//! Splitting a multi-document YAML stream the way Kubernetes' `utilyaml.NewYAMLReader` does
//! (Helm 4's values loader uses it). A line starting with `---` followed only by spaces or a
//! comment separates documents; anything else after `---` (`--- {a: 1}`, `----`) is an error.
//! A separator before the first document stays in that document's text (as in Go), later ones
//! are dropped, so go-yaml's line numbers inside a document match Helm's.

use crate::error::YamlError;

/// The non-empty documents of `src`, in order.
pub fn split_documents(src: &str) -> Result<Vec<String>, YamlError> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in src.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err(YamlError::Separator {
                    text: trimmed.to_string(),
                });
            }
            if !cur.is_empty() {
                docs.push(std::mem::take(&mut cur));
                continue;
            }
        }
        cur.push_str(line);
    }
    if !cur.is_empty() {
        docs.push(cur);
    }
    Ok(docs)
}
