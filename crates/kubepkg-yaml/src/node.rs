//! YAML documents as node trees, read and written as kustomize's kyaml does (go-yaml v3's
//! `yaml.Node` under `kio.ParseAll` and `kio.StringAll`).
//!
//! Helm 4 hands a chart's manifests to a post-renderer through kyaml, and reads the answer back
//! the same way: each document is decoded into a node tree that keeps what the text said (key
//! order, scalar styles, flow collections, explicit tags, anchors and aliases) and is written by
//! go-yaml v3's encoder with a 2-space indent and compact sequences (`key:\n- item`). So the
//! bytes Helm prints after post-rendering are go-yaml v3's, not the template's: this module
//! reproduces them.
//!
//! - [`parse_stream`] is `kio.ParseAll`: the stream split on `\n---` lines (a separator that
//!   carries more than a comment is refused), the first document of each part decoded, empty
//!   and `null` documents dropped, and a lone `List` (or `ResourceList`) with `items` unwrapped
//!   into its items.
//! - [`write_stream`] is `kio.StringAll` (documents after the first start with `---`).
//! - [`Node::set_annotation`], [`Node::clear_annotation`], [`Node::clear_empty_annotations`]
//!   are kyaml's `SetAnnotation`, `ClearAnnotation` and `ClearEmptyAnnotations`.
//!
//! Not kept: comments (go-yaml v3 keeps them; a document whose text has comments is written
//! without them) and `%` directives.

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle};

use crate::decode::{
    check_yaml_directive, fold_unicode_breaks, last_line_is_content, name_at, scan_error,
};
use crate::error::YamlError;

/// How a scalar was written (go-yaml v3's `Style` bits for scalars).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// A scalar with its style and its explicit tag (`!!str`, `!foo`), if the text had one.
    Scalar {
        value: String,
        style: ScalarStyle,
        tag: Option<String>,
    },
    /// A sequence; `flow` when written `[a, b]`.
    Sequence { items: Vec<Node>, flow: bool },
    /// A mapping in its key order; `flow` when written `{a: b}`.
    Mapping {
        pairs: Vec<(Node, Node)>,
        flow: bool,
    },
    /// `*name`.
    Alias(String),
}

/// One node of a document (go-yaml v3's `yaml.Node`, without comments).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub content: Content,
    /// `&name`, when the text gave the node one.
    pub anchor: Option<String>,
}

/// kyaml's annotation on each read resource (cleared again when written).
const INDEX_ANNOTATIONS: [&str; 2] = [
    "config.kubernetes.io/index",
    "internal.config.kubernetes.io/index",
];

impl Node {
    /// A plain scalar.
    pub fn plain(value: &str) -> Node {
        Node::scalar(value, ScalarStyle::Plain)
    }

    /// A scalar written in `style`.
    pub fn scalar(value: &str, style: ScalarStyle) -> Node {
        Node {
            content: Content::Scalar {
                value: value.to_string(),
                style,
                tag: None,
            },
            anchor: None,
        }
    }

    /// An empty block mapping.
    pub fn mapping() -> Node {
        Node {
            content: Content::Mapping {
                pairs: Vec::new(),
                flow: false,
            },
            anchor: None,
        }
    }

    /// The scalar's text.
    pub fn as_str(&self) -> Option<&str> {
        match &self.content {
            Content::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The mapping's pairs.
    pub fn pairs(&self) -> Option<&[(Node, Node)]> {
        match &self.content {
            Content::Mapping { pairs, .. } => Some(pairs),
            _ => None,
        }
    }

    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.pairs()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value under `key` of a mapping, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match &mut self.content {
            Content::Mapping { pairs, .. } => pairs
                .iter_mut()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Whether the node has no content: an empty collection or a scalar (go-yaml's
    /// `len(node.Content) == 0`, kyaml's test for "empty").
    fn is_empty_content(&self) -> bool {
        match &self.content {
            Content::Scalar { .. } | Content::Alias(_) => true,
            Content::Sequence { items, .. } => items.is_empty(),
            Content::Mapping { pairs, .. } => pairs.is_empty(),
        }
    }

    /// Whether this is a `null` scalar (go-yaml's `!!null` tag, explicit or resolved).
    pub fn is_null(&self) -> bool {
        match &self.content {
            Content::Scalar { value, style, tag } => match tag.as_deref() {
                Some(t) => t == "!!null",
                None => {
                    *style == ScalarStyle::Plain
                        && matches!(value.as_str(), "" | "~" | "null" | "Null" | "NULL")
                }
            },
            _ => false,
        }
    }

    /// kyaml's `FieldClearer`: removes `key` from a mapping (only when its value is empty if
    /// `if_empty`).
    fn clear_field(&mut self, key: &str, if_empty: bool) {
        if let Content::Mapping { pairs, .. } = &mut self.content
            && let Some(i) = pairs.iter().position(|(k, _)| k.as_str() == Some(key))
            && (!if_empty || pairs[i].1.is_empty_content())
        {
            pairs.remove(i);
        }
    }

    /// kyaml's `PathGetter{Create: MappingNode}` for one field: the value under `key`,
    /// appended as an empty mapping when missing. `None` when `self` is not a mapping.
    fn field_or_create(&mut self, key: &str) -> Option<&mut Node> {
        let Content::Mapping { pairs, .. } = &mut self.content else {
            return None;
        };
        let i = match pairs.iter().position(|(k, _)| k.as_str() == Some(key)) {
            Some(i) => i,
            None => {
                pairs.push((Node::plain(key), Node::mapping()));
                pairs.len() - 1
            }
        };
        Some(&mut pairs[i].1)
    }

    /// kyaml's `ClearEmptyAnnotations`: drops an empty `metadata.annotations`, then an empty
    /// `metadata`.
    pub fn clear_empty_annotations(&mut self) {
        if let Some(meta) = self.get_mut("metadata") {
            meta.clear_field("annotations", true);
        }
        self.clear_field("metadata", true);
    }

    /// go-yaml v3's name of the node's kind.
    fn kind_name(&self) -> &'static str {
        match &self.content {
            Content::Scalar { .. } => "ScalarNode",
            Content::Sequence { .. } => "SequenceNode",
            Content::Mapping { .. } => "MappingNode",
            Content::Alias(_) => "AliasNode",
        }
    }

    fn not_a_mapping(&self) -> NodeError {
        NodeError::NotAMapping {
            got: self.kind_name(),
            contents: crate::emit::write_node(self),
        }
    }

    /// kyaml's `SetAnnotation`: empty annotations cleared first, then `metadata.annotations`
    /// created as needed and `key` set to `value`, single-quoted (an existing value keeps its
    /// style). Errors when the document or its metadata is not a mapping.
    pub fn set_annotation(&mut self, key: &str, value: &str) -> Result<(), NodeError> {
        self.clear_empty_annotations();
        if !matches!(self.content, Content::Mapping { .. }) {
            return Err(self.not_a_mapping());
        }
        // `self` is a mapping, so the field is there (or made) below.
        let Some(meta) = self.field_or_create("metadata") else {
            return Ok(());
        };
        if !matches!(meta.content, Content::Mapping { .. }) {
            return Err(meta.not_a_mapping());
        }
        let Some(annotations) = meta.field_or_create("annotations") else {
            return Ok(());
        };
        if !matches!(annotations.content, Content::Mapping { .. }) {
            return Err(annotations.not_a_mapping());
        }
        let Content::Mapping { pairs, .. } = &mut annotations.content else {
            return Ok(());
        };
        match pairs.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
            Some((_, v)) => {
                let style = match &v.content {
                    Content::Scalar { style, .. } => *style,
                    _ => ScalarStyle::Plain,
                };
                *v = Node::scalar(value, style);
            }
            None => pairs.push((
                Node::plain(key),
                Node::scalar(value, ScalarStyle::SingleQuoted),
            )),
        }
        Ok(())
    }

    /// The value of annotation `key`, if the document has it as a scalar.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.get("metadata")?.get("annotations")?.get(key)?.as_str()
    }

    /// kyaml's `ClearAnnotation`: removes `metadata.annotations[key]` if present.
    pub fn clear_annotation(&mut self, key: &str) {
        if let Some(a) = self
            .get_mut("metadata")
            .and_then(|m| m.get_mut("annotations"))
        {
            a.clear_field(key, false);
        }
    }
}

/// Why a node tree could not be read or changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// The text is not YAML (go-yaml's error).
    #[error("MalformedYAMLError: {}", .0.go_text())]
    Malformed(YamlError),
    /// A `---` line that carries more than a comment.
    #[error("invalid document separator: {0}")]
    Separator(String),
    /// The document (or its `metadata`) is not a mapping (kyaml's text: the kind found and
    /// the node written out).
    #[error("wrong node kind: expected MappingNode but got {got}: node contents:\n{contents}")]
    NotAMapping { got: &'static str, contents: String },
}

/// kyaml's `splitDocuments`: the stream cut at every `\n---…\n` line (CRLF read as LF).
fn split_documents(src: &str) -> Result<Vec<String>, NodeError> {
    let s = src.replace("\r\n", "\n");
    let mut docs = Vec::new();
    if s.is_empty() {
        return Ok(docs);
    }
    let mut prev = 0;
    let mut search = 0;
    while let Some(off) = s[search..].find("\n---") {
        let start = search + off;
        let Some(nl) = s[start + 1..].find('\n') else {
            break;
        };
        let end = start + 1 + nl + 1;
        let separator = &s[start..end];
        let after = separator[4..].trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(NodeError::Separator(separator.trim().to_string()));
        }
        docs.push(s[prev..start].to_string());
        prev = end;
        search = end.saturating_sub(1);
    }
    docs.push(s[prev..].to_string());
    Ok(docs)
}

/// `kio.ParseAll(src)`: every resource of the stream as a node tree.
pub fn parse_stream(src: &str) -> Result<Vec<Node>, NodeError> {
    let parts = split_documents(src)?;
    let single = parts.len() == 1;
    let last = parts.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, mut part) in parts.into_iter().enumerate() {
        if i != last {
            part.push('\n');
        }
        let Some(node) = parse_first_document(&part).map_err(NodeError::Malformed)? else {
            continue;
        };
        if node.is_null() {
            continue;
        }
        let mut node = node;
        mark_read(&mut node, out.len())?;
        let kind = node.get("kind").and_then(Node::as_str).unwrap_or("");
        if single
            && (kind == "List" || kind == "ResourceList")
            && (node.get("items").is_some() || node.get("functionConfig").is_some())
        {
            if let Some(Node {
                content: Content::Sequence { items, .. },
                ..
            }) = node.get("items")
            {
                out.extend(items.iter().cloned());
            }
            continue;
        }
        out.push(node);
    }
    Ok(out)
}

/// Every document of `src` as written, without what `kio.ParseAll` does on reading (no
/// annotations set, no `List` unwrapped); empty and `null` documents dropped. For patches.
pub fn parse_documents(src: &str) -> Result<Vec<Node>, NodeError> {
    let parts = split_documents(src)?;
    let last = parts.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, mut part) in parts.into_iter().enumerate() {
        if i != last {
            part.push('\n');
        }
        if let Some(node) = parse_first_document(&part).map_err(NodeError::Malformed)?
            && !node.is_null()
        {
            out.push(node);
        }
    }
    Ok(out)
}

/// `kio.StringAll(nodes)`: the reader's index annotations cleared, empty annotations and
/// metadata dropped, each document written by kyaml's encoder.
pub fn write_stream(nodes: &[Node]) -> String {
    let mut out = String::new();
    for (i, n) in nodes.iter().enumerate() {
        let mut n = n.clone();
        for a in INDEX_ANNOTATIONS {
            n.clear_annotation(a);
        }
        n.clear_empty_annotations();
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&crate::emit::write_node(&n));
    }
    out
}

/// What `kio.ParseAll` does to each resource as it reads it: the index annotations set
/// (they are cleared again by [`write_stream`], but setting them moves and drops empty
/// `metadata`/`annotations` as kyaml does).
pub fn mark_read(node: &mut Node, index: usize) -> Result<(), NodeError> {
    let i = index.to_string();
    for a in INDEX_ANNOTATIONS {
        node.set_annotation(a, &i)?;
    }
    Ok(())
}

/// The root node of the first document of `src` (go-yaml v3's `Decoder.Decode` into a
/// `yaml.Node`); `None` for an empty stream or an empty document.
fn parse_first_document(src: &str) -> Result<Option<Node>, YamlError> {
    enum Frame {
        Seq(Vec<Node>, bool, Option<String>),
        Map(Vec<(Node, Node)>, Option<Node>, bool, Option<String>),
    }
    check_yaml_directive(src)?;
    let chars: Vec<char> = src.chars().collect();
    let anchor_name = |start: usize| -> Option<String> {
        // The anchor is the token before the node (after an optional tag).
        let before: String = chars[..start.min(chars.len())].iter().collect();
        let mut t = before.trim_end();
        let mut last = t.rsplit(char::is_whitespace).next().unwrap_or("");
        if last.starts_with('!') {
            t = t[..t.len() - last.len()].trim_end();
            last = t.rsplit(char::is_whitespace).next().unwrap_or("");
        }
        let last = last.trim_start_matches(['-', '[', '{', ',']);
        last.strip_prefix('&').map(str::to_string)
    };
    let tag_text = |tag: Option<std::borrow::Cow<'_, saphyr_parser::Tag>>| {
        tag.map(|t| {
            let full = format!("{}{}", t.handle, t.suffix);
            full.strip_prefix("tag:yaml.org,2002:")
                .map(|s| format!("!!{s}"))
                .unwrap_or(full)
        })
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: std::collections::HashMap<usize, String> = std::collections::HashMap::new();
    let parser = Parser::new_from_str(src);
    let mut in_doc = false;
    for ev in parser {
        let (ev, span) = ev.map_err(|e| scan_error(src, &e))?;
        let start = span.start.index();
        let produced: Option<Node> = match ev {
            Event::Nothing | Event::StreamStart => None,
            Event::StreamEnd => return Ok(None),
            Event::DocumentStart(_) => {
                in_doc = true;
                None
            }
            Event::DocumentEnd => {
                if in_doc {
                    return Ok(None);
                }
                None
            }
            Event::Alias(id) => {
                let name = anchors
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| name_at(src, start));
                Some(Node {
                    content: Content::Alias(name),
                    anchor: None,
                })
            }
            Event::Scalar(value, style, anchor, tag) => {
                let mut value = value;
                if matches!(style, SaphyrStyle::Literal | SaphyrStyle::Folded)
                    && value.ends_with('\n')
                    && !src.ends_with(['\n', '\r'])
                    && span.end.index() >= chars.len()
                    && last_line_is_content(src, &value)
                {
                    value.to_mut().pop();
                }
                let value = if value.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
                    fold_unicode_breaks(src, &value, style, start, span.end.index())
                } else {
                    value.into_owned()
                };
                let anchor = (anchor > 0).then(|| {
                    let name = anchor_name(start).unwrap_or_else(|| format!("a{anchor}"));
                    anchors.insert(anchor, name.clone());
                    name
                });
                Some(Node {
                    content: Content::Scalar {
                        value,
                        style: match style {
                            SaphyrStyle::Plain => ScalarStyle::Plain,
                            SaphyrStyle::SingleQuoted => ScalarStyle::SingleQuoted,
                            SaphyrStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
                            SaphyrStyle::Literal => ScalarStyle::Literal,
                            SaphyrStyle::Folded => ScalarStyle::Folded,
                        },
                        tag: tag_text(tag),
                    },
                    anchor,
                })
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= crate::decode::MAX_DEPTH {
                    return Err(YamlError::Syntax {
                        line: Some(span.start.line()),
                        message: format!("exceeded max depth of {}", crate::decode::MAX_DEPTH),
                    });
                }
                let flow = matches!(chars.get(start), Some('[' | '{'));
                let anchor = (anchor > 0).then(|| {
                    let name = anchor_name(start).unwrap_or_else(|| format!("a{anchor}"));
                    anchors.insert(anchor, name.clone());
                    name
                });
                stack.push(if matches!(ev, Event::SequenceStart(..)) {
                    Frame::Seq(Vec::new(), flow, anchor)
                } else {
                    Frame::Map(Vec::new(), None, flow, anchor)
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(items, flow, anchor)) => Some(Node {
                    content: Content::Sequence { items, flow },
                    anchor,
                }),
                Some(Frame::Map(pairs, _, flow, anchor)) => Some(Node {
                    content: Content::Mapping { pairs, flow },
                    anchor,
                }),
                None => None,
            },
        };
        if let Some(n) = produced {
            match stack.last_mut() {
                Some(Frame::Seq(items, _, _)) => items.push(n),
                Some(Frame::Map(pairs, pending, _, _)) => match pending.take() {
                    Some(k) => pairs.push((k, n)),
                    None => *pending = Some(n),
                },
                None => return Ok(Some(n)),
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_order_and_styles() {
        let src = "kind: A\nmetadata:\n  name: 'x'\n  labels: {a: \"1\", b: c}\nspec:\n    list:\n    - 1\n    - [a, b]\n    text: |\n      hello\n";
        let docs = parse_stream(src).unwrap();
        assert_eq!(
            write_stream(&docs),
            "kind: A\nmetadata:\n  name: 'x'\n  labels: {a: \"1\", b: c}\nspec:\n  list:\n  - 1\n  - [a, b]\n  text: |\n    hello\n"
        );
    }

    #[test]
    fn annotations_are_added_and_cleared_as_kyaml_does() {
        let mut docs = parse_stream("kind: A\nmetadata:\n  name: x\n  annotations: {}\n").unwrap();
        docs[0].set_annotation("f", "a/b.yaml").unwrap();
        assert_eq!(
            write_stream(&docs),
            "kind: A\nmetadata:\n  name: x\n  annotations:\n    f: 'a/b.yaml'\n"
        );
        docs[0].clear_annotation("f");
        assert_eq!(write_stream(&docs), "kind: A\nmetadata:\n  name: x\n");
    }

    #[test]
    fn lists_are_unwrapped_and_separators_checked() {
        let docs = parse_stream("kind: List\nitems:\n- kind: A\n- kind: B\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert!(matches!(
            parse_stream("a: 1\n--- b\nc: 2\n"),
            Err(NodeError::Separator(_))
        ));
        assert!(matches!(
            parse_stream("a: b: c\n"),
            Err(NodeError::Malformed(_))
        ));
    }
}
