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
//! Comments are kept where go-yaml v3 keeps them in the common cases: full-line comments above a
//! mapping key or sequence item, whatever their column, a blank line after them kept (head);
//! after the last entry of a block collection at its entries' column (foot); after a value, a
//! flow collection or a key with a block value, on its line (line). Not placed as go-yaml v3
//! places them: comments inside flow collections, and some comments between list items that
//! go-yaml v3 gives to the item's first key. `%` directives are not kept.

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle};

use crate::decode::{
    RED_ZONE, STACK_CHUNK, check_yaml_directive, fold_unicode_breaks, last_line_is_content,
    name_at, scan_error,
};
use crate::emit::{Emitter, Style, analyze, is_break};
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

/// One node of a document (go-yaml v3's `yaml.Node`).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub content: Content,
    /// `&name`, when the text gave the node one.
    pub anchor: Option<String>,
    /// Comment lines right above it (a mapping key or a sequence item), `#` included.
    pub head_comment: Option<String>,
    /// The comment after it on its line (a key's when its value is a block collection).
    pub line_comment: Option<String>,
    /// Comment lines after its entry at its column (a mapping key or a sequence item).
    pub foot_comment: Option<String>,
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
            head_comment: None,
            line_comment: None,
            foot_comment: None,
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
            head_comment: None,
            line_comment: None,
            foot_comment: None,
        }
    }

    /// A copy with other content (anchor and comments kept).
    pub fn with_content(&self, content: Content) -> Node {
        Node {
            content,
            anchor: self.anchor.clone(),
            head_comment: self.head_comment.clone(),
            line_comment: self.line_comment.clone(),
            foot_comment: self.foot_comment.clone(),
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
            contents: write_node(self),
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
        out.push_str(&write_node(&n));
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

/// A group of full-line comments: consecutive comment lines at one column (blank lines between
/// them kept), as go-yaml v3 keeps them.
#[derive(Debug)]
struct CommentGroup {
    first: usize,
    last: usize,
    column: usize,
    text: String,
    used: bool,
}

/// The comments of a document: full-line groups, and the trailing comment of each line (its
/// character index and text).
#[derive(Debug, Default)]
struct Comments {
    groups: Vec<CommentGroup>,
    trailing: std::collections::HashMap<usize, (usize, String)>,
}

impl Comments {
    /// Finds the comments of `src`, given the character ranges of its scalars (a `#` inside one
    /// is text) and the lines they span.
    fn find(src: &str, scalars: &[(usize, usize)]) -> Comments {
        let inside = |i: usize| scalars.iter().any(|&(a, b)| i >= a && i < b);
        let mut out = Comments::default();
        let mut index = 0;
        let mut pending: Option<CommentGroup> = None;
        let mut blanks = 0;
        for (n, line) in src.split('\n').enumerate() {
            let lineno = n + 1;
            let chars: Vec<char> = line.chars().collect();
            let indent = chars.iter().take_while(|c| **c == ' ').count();
            let first = chars.get(indent).copied();
            if first == Some('#') && !inside(index + indent) {
                let text: String = chars[indent..]
                    .iter()
                    .collect::<String>()
                    .trim_end()
                    .to_string();
                match &mut pending {
                    Some(g) if g.column == indent => {
                        for _ in 0..blanks {
                            g.text.push('\n');
                        }
                        g.text.push('\n');
                        g.text.push_str(&text);
                        g.last = lineno;
                    }
                    _ => {
                        if let Some(g) = pending.take() {
                            out.groups.push(g);
                        }
                        pending = Some(CommentGroup {
                            first: lineno,
                            last: lineno,
                            column: indent,
                            text,
                            used: false,
                        });
                    }
                }
                blanks = 0;
            } else if chars.iter().all(|c| c.is_whitespace()) && !inside(index) {
                blanks += 1;
            } else {
                if let Some(g) = pending.take() {
                    out.groups.push(g);
                }
                blanks = 0;
                // A trailing comment: ` #` outside any scalar.
                for (k, c) in chars.iter().enumerate() {
                    if *c == '#' && k > 0 && chars[k - 1].is_whitespace() && !inside(index + k) {
                        let text: String =
                            chars[k..].iter().collect::<String>().trim_end().to_string();
                        out.trailing.insert(lineno, (index + k, text));
                        break;
                    }
                }
            }
            index += chars.len() + 1;
        }
        if let Some(g) = pending.take() {
            out.groups.push(g);
        }
        out
    }

    /// The comments right before line `line` (only blank lines between), taken: the nearest
    /// unused group and those adjacent before it, whatever their columns, as go-yaml v3 makes
    /// them a node's head comment. Blank lines before the node are kept as one.
    fn head(&mut self, line: usize, blank: &[bool]) -> Option<String> {
        let is_blank = |l: usize| blank.get(l.wrapping_sub(1)).copied().unwrap_or(false);
        let mut at = self
            .groups
            .iter()
            .position(|g| !g.used && g.last < line && (g.last + 1..line).all(is_blank))?;
        let gap = self.groups[at].last + 1 < line;
        let mut parts = vec![at];
        while let Some(prev) = self
            .groups
            .iter()
            .position(|g| !g.used && g.last + 1 == self.groups[at].first)
        {
            parts.push(prev);
            at = prev;
        }
        let mut text = String::new();
        for &i in parts.iter().rev() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&self.groups[i].text);
            self.groups[i].used = true;
        }
        if gap {
            text.push_str("\n\n");
        }
        Some(text)
    }

    /// The unused groups at `column` between lines `after` and `before` (exclusive), taken.
    fn foot(&mut self, after: usize, before: usize, column: usize) -> Option<String> {
        let mut text: Option<String> = None;
        for g in self.groups.iter_mut() {
            if !g.used && g.first > after && g.last < before && g.column == column {
                g.used = true;
                match &mut text {
                    Some(t) => {
                        t.push('\n');
                        t.push_str(&g.text);
                    }
                    None => text = Some(g.text.clone()),
                }
            }
        }
        text
    }

    /// The trailing comment of line `line` if only blanks (and `:` for a key) separate it from
    /// character `end`, taken.
    fn trailing(&mut self, src: &[char], line: usize, end: usize, key: bool) -> Option<String> {
        let (at, _) = self.trailing.get(&line)?;
        if *at < end {
            return None;
        }
        let between: String = src[end..*at].iter().collect();
        let between = between.trim();
        if !(between.is_empty() || key && between == ":") {
            return None;
        }
        self.trailing.remove(&line).map(|(_, t)| t)
    }
}

/// The root node of the first document of `src` (go-yaml v3's `Decoder.Decode` into a
/// `yaml.Node`, comments included); `None` for an empty stream or an empty document.
fn parse_first_document(src: &str) -> Result<Option<Node>, YamlError> {
    struct Frame {
        seq: bool,
        items: Vec<Node>,
        pairs: Vec<(Node, Node)>,
        pending: Option<Node>,
        flow: bool,
        anchor: Option<String>,
        head: Option<String>,
        /// Column of the collection's entries (its first key or `-`).
        column: Option<usize>,
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
    // The events of the first document, read ahead so the comments can be found outside the
    // scalars.
    let mut events = Vec::new();
    let mut in_doc = false;
    for ev in Parser::new_from_str(src) {
        let (ev, span) = ev.map_err(|e| scan_error(src, &e))?;
        let done = match &ev {
            Event::StreamEnd => true,
            Event::DocumentEnd => in_doc,
            Event::DocumentStart(_) => {
                in_doc = true;
                false
            }
            _ => false,
        };
        events.push((ev, span));
        if done {
            break;
        }
    }
    // Where a scalar's text ends: its span without the line breaks and blanks a block scalar's
    // span runs on into.
    let text_end = |start: usize, end: usize| -> usize {
        let mut e = end.min(chars.len());
        while e > start + 1 && chars[e - 1].is_whitespace() {
            e -= 1;
        }
        e.max(start + 1)
    };
    let mut newlines_before = Vec::with_capacity(chars.len() + 1);
    let mut count = 0;
    newlines_before.push(0);
    for c in &chars {
        if *c == '\n' {
            count += 1;
        }
        newlines_before.push(count);
    }
    let line_of = |idx: usize| newlines_before.get(idx).copied().unwrap_or(count) + 1;
    let scalars: Vec<(usize, usize)> = events
        .iter()
        .filter(|(e, _)| matches!(e, Event::Scalar(..)))
        .map(|(_, s)| (s.start.index(), text_end(s.start.index(), s.end.index())))
        .collect();
    let mut comments = Comments::find(src, &scalars);
    // The line indentation (spaces) of each line, by 1-based number.
    let line_indent: Vec<usize> = src
        .split('\n')
        .map(|l| l.chars().take_while(|c| *c == ' ').count())
        .collect();
    let indent_of = |line: usize| line_indent.get(line.wrapping_sub(1)).copied().unwrap_or(0);
    let blank_lines: Vec<bool> = src
        .split('\n')
        .map(|l| l.chars().all(char::is_whitespace))
        .collect();
    let mut last_content = 0usize;
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: std::collections::HashMap<usize, String> = std::collections::HashMap::new();
    // A block collection starts where its first entry does.
    let lines: Vec<usize> = (0..events.len())
        .map(|i| match &events[i].0 {
            Event::SequenceStart(..) | Event::MappingStart(..)
                if !matches!(chars.get(events[i].1.start.index()), Some('[' | '{')) =>
            {
                events
                    .get(i + 1)
                    .map_or(events[i].1.start.line(), |(_, s)| s.start.line())
            }
            _ => events[i].1.start.line(),
        })
        .collect();
    for (i, (ev, span)) in events.into_iter().enumerate() {
        let start = span.start.index();
        let line = lines[i];
        // Where the node goes: a key, a sequence item, a value, or the root.
        let (is_key, is_item) = match stack.last() {
            Some(f) if !f.flow && f.seq => (false, true),
            Some(f) if !f.flow => (f.pending.is_none(), false),
            _ => (false, false),
        };
        let block_parent = stack.last().is_some_and(|f| !f.flow);
        // The column of an entry: a key's own, a sequence item's dash (its line's indentation).
        let entry_column = if is_key {
            span.start.col()
        } else {
            indent_of(line)
        };
        if block_parent
            && (is_key || is_item)
            && matches!(
                ev,
                Event::Scalar(..)
                    | Event::SequenceStart(..)
                    | Event::MappingStart(..)
                    | Event::Alias(_)
            )
            && let Some(f) = stack.last_mut()
            && f.column.is_none()
        {
            f.column = Some(entry_column);
        }
        let head = if block_parent && (is_key || is_item) {
            match &ev {
                Event::Scalar(..)
                | Event::SequenceStart(..)
                | Event::MappingStart(..)
                | Event::Alias(_) => comments.head(line, &blank_lines),
                _ => None,
            }
        } else {
            None
        };
        let produced: Option<Node> = match ev {
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => None,
            Event::StreamEnd | Event::DocumentEnd => return Ok(None),
            Event::Alias(id) => {
                let name = anchors
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| name_at(src, start));
                last_content = last_content.max(span.end.line());
                Some(Node {
                    content: Content::Alias(name),
                    anchor: None,
                    head_comment: head,
                    line_comment: None,
                    foot_comment: None,
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
                let block = matches!(style, SaphyrStyle::Literal | SaphyrStyle::Folded);
                let end_line = if block { line } else { span.end.line() };
                let text_end_at = text_end(start, span.end.index());
                last_content = last_content.max(line_of(text_end_at - 1));
                let line_comment = if block {
                    None
                } else {
                    comments.trailing(&chars, end_line, span.end.index(), is_key)
                };
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
                    head_comment: head,
                    line_comment,
                    foot_comment: None,
                })
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= crate::decode::MAX_DEPTH {
                    return Err(YamlError::Syntax {
                        line: Some(line),
                        message: format!("exceeded max depth of {}", crate::decode::MAX_DEPTH),
                    });
                }
                let flow = matches!(chars.get(start), Some('[' | '{'));
                let anchor = (anchor > 0).then(|| {
                    let name = anchor_name(start).unwrap_or_else(|| format!("a{anchor}"));
                    anchors.insert(anchor, name.clone());
                    name
                });
                stack.push(Frame {
                    seq: matches!(ev, Event::SequenceStart(..)),
                    items: Vec::new(),
                    pairs: Vec::new(),
                    pending: None,
                    flow,
                    anchor,
                    head,
                    column: None,
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(mut f) => {
                    // A flow collection ends after its `]` or `}`.
                    let close = if matches!(chars.get(start), Some(']' | '}')) {
                        start + 1
                    } else {
                        span.end.index()
                    };
                    if f.flow {
                        last_content = last_content.max(line_of(close.saturating_sub(1)));
                    } else if let Some(column) = f.column {
                        // Comments after the last entry at the entries' column: its foot.
                        let before = if stack.is_empty() { usize::MAX } else { line };
                        if let Some(foot) = comments.foot(last_content, before, column) {
                            let last = if f.seq {
                                f.items.last_mut()
                            } else {
                                f.pairs.last_mut().map(|(k, _)| k)
                            };
                            if let Some(n) = last {
                                n.foot_comment = Some(foot);
                            }
                        }
                    }
                    let content = if f.seq {
                        Content::Sequence {
                            items: f.items,
                            flow: f.flow,
                        }
                    } else {
                        Content::Mapping {
                            pairs: f.pairs,
                            flow: f.flow,
                        }
                    };
                    let line_comment = if f.flow {
                        let parent_key = stack
                            .last()
                            .is_some_and(|p| !p.flow && !p.seq && p.pending.is_none());
                        comments.trailing(
                            &chars,
                            line_of(close.saturating_sub(1)),
                            close,
                            parent_key,
                        )
                    } else {
                        None
                    };
                    Some(Node {
                        content,
                        anchor: f.anchor,
                        head_comment: f.head,
                        line_comment,
                        foot_comment: None,
                    })
                }
                None => None,
            },
        };
        if let Some(mut n) = produced {
            match stack.last_mut() {
                Some(f) if f.seq => f.items.push(n),
                Some(f) => match f.pending.take() {
                    Some(mut k) => {
                        // `key: # comment` before a block collection: the key's.
                        if !f.flow
                            && k.line_comment.is_none()
                            && matches!(
                                n.content,
                                Content::Mapping { flow: false, .. }
                                    | Content::Sequence { flow: false, .. }
                            )
                        {
                            k.line_comment = n.line_comment.take();
                        }
                        f.pairs.push((k, n))
                    }
                    None => f.pending = Some(n),
                },
                None => return Ok(Some(n)),
            }
        }
    }
    Ok(None)
}

// The node tree written as go-yaml v3's encoder writes it, with the emitter of `emit`.
impl Emitter {
    /// Opens a flow collection with `open` (`[` or `{`).
    fn flow_start(&mut self, open: &str) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.flow_level += 1;
    }

    /// Before item `i` of a flow collection: the `,` after the one before, and a new line when
    /// the line is already past the best width (or not started).
    fn flow_item(&mut self, i: usize) {
        if i > 0 {
            self.write_indicator(",", false, false, false);
        }
        if self.column == 0 || self.column > self.best_width {
            self.write_indent();
        }
    }

    /// A mapping key `k` and its `:`: a simple key as it is, another as `? key` then `:` (on
    /// a line of its own in a block mapping).
    fn tree_key(&mut self, k: &Node, block: bool) {
        if simple_tree_key(k) {
            self.tree(k, true, true);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, block);
            self.tree(k, true, false);
            if block {
                self.write_indent();
            }
            self.write_indicator(":", true, false, block);
        }
    }

    /// Closes a flow collection with `close` (`]` or `}`), on a new line when at its start.
    fn flow_end(&mut self, close: &str) {
        self.flow_level -= 1;
        self.pop_indent();
        if self.column == 0 {
            self.write_indent();
        }
        self.write_indicator(close, false, false, false);
    }

    /// A node tree ([`Node`]) as go-yaml v3's encoder writes it: styles, flow
    /// collections, tags and anchors as the tree holds them.
    pub(crate) fn tree(&mut self, n: &Node, mapping: bool, simple_key: bool) {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.tree_inner(n, mapping, simple_key)
        })
    }

    /// go-yaml v3's `yaml_emitter_write_comment`: each line at the indentation, `# ` added
    /// where a line lacks its `#`, then a line break.
    pub(crate) fn write_comment(&mut self, text: &str) {
        let (mut breaks, mut pound) = (false, false);
        for c in text.chars() {
            if is_break(c) {
                self.write_break(c);
                breaks = true;
                pound = false;
            } else {
                if breaks {
                    self.write_indent();
                }
                if !pound {
                    if c != '#' {
                        self.put('#');
                        self.put(' ');
                    }
                    pound = true;
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        if !breaks {
            self.put_break();
        }
        self.whitespace = true;
    }

    /// A head or foot comment: on lines of its own at the current indentation.
    pub(crate) fn block_comment(&mut self, text: &Option<String>) {
        if let Some(c) = text {
            self.write_indent();
            self.write_comment(c);
        }
    }

    /// A line comment: after what was just written.
    pub(crate) fn line_comment(&mut self, text: &Option<String>) {
        if let Some(c) = text {
            if !self.whitespace {
                self.put(' ');
            }
            self.write_comment(c);
        }
    }

    pub(crate) fn tree_inner(&mut self, n: &Node, mapping: bool, simple_key: bool) {
        self.tree_content(n, mapping, simple_key);
        let block = match &n.content {
            Content::Sequence { items, flow } => {
                !*flow && self.flow_level == 0 && !items.is_empty()
            }
            Content::Mapping { pairs, flow } => !*flow && self.flow_level == 0 && !pairs.is_empty(),
            _ => false,
        };
        if !simple_key && !block && self.flow_level == 0 {
            self.line_comment(&n.line_comment);
        }
    }

    pub(crate) fn tree_content(&mut self, n: &Node, mapping: bool, simple_key: bool) {
        use {Content, ScalarStyle};
        self.mapping_ctx = mapping;
        self.simple_key_ctx = simple_key;
        if let Some(a) = &n.anchor {
            self.write_indicator(&format!("&{a}"), true, false, false);
        }
        match &n.content {
            Content::Alias(name) => {
                self.write_indicator(&format!("*{name}"), true, false, false);
            }
            Content::Scalar { value, style, tag } => {
                if let Some(t) = tag {
                    self.write_indicator(t, true, false, false);
                }
                let requested = match style {
                    ScalarStyle::DoubleQuoted => Style::Double,
                    ScalarStyle::SingleQuoted => Style::Single,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                    ScalarStyle::Plain if value.contains('\n') => Style::Literal,
                    ScalarStyle::Plain => Style::Plain,
                };
                self.scalar(value, requested);
            }
            Content::Sequence { items, flow } => {
                if *flow || self.flow_level > 0 || items.is_empty() {
                    self.flow_start("[");
                    for (i, item) in items.iter().enumerate() {
                        self.flow_item(i);
                        self.tree(item, false, false);
                    }
                    self.flow_end("]");
                } else {
                    let indentless = if self.compact_seq {
                        self.mapping_ctx && (self.column == 0 || !self.indention)
                    } else {
                        self.mapping_ctx && !self.indention && !self.v3
                    };
                    self.increase_indent(false, indentless);
                    for item in items {
                        self.block_comment(&item.head_comment);
                        self.write_indent();
                        self.write_indicator("-", true, false, true);
                        self.tree(item, false, false);
                        self.block_comment(&item.foot_comment);
                    }
                    self.pop_indent();
                }
            }
            Content::Mapping { pairs, flow } => {
                if *flow || self.flow_level > 0 || pairs.is_empty() {
                    self.flow_start("{");
                    for (i, (k, v)) in pairs.iter().enumerate() {
                        self.flow_item(i);
                        self.tree_key(k, false);
                        self.tree(v, true, false);
                    }
                    self.flow_end("}");
                } else {
                    self.increase_indent(false, false);
                    for (k, v) in pairs {
                        self.block_comment(&k.head_comment);
                        self.write_indent();
                        self.tree_key(k, true);
                        self.line_comment(&k.line_comment);
                        self.tree(v, true, false);
                        self.block_comment(&k.foot_comment);
                    }
                    self.pop_indent();
                }
            }
        }
    }
}

/// libyaml's `yaml_emitter_check_simple_key` for a node of a tree.
fn simple_tree_key(k: &Node) -> bool {
    use Content;
    let extra = k.anchor.as_ref().map_or(0, |a| a.len() + 1);
    match &k.content {
        Content::Alias(name) => name.len() + 1 + extra <= 128,
        Content::Scalar { value, tag, .. } => {
            let v: Vec<char> = value.chars().collect();
            let len = value.len() + extra + tag.as_ref().map_or(0, String::len);
            len <= 128 && !analyze(&v, true).multiline
        }
        Content::Sequence { items, .. } => items.is_empty() && extra <= 128,
        Content::Mapping { pairs, .. } => pairs.is_empty() && extra <= 128,
    }
}

/// One document of a node tree as kyaml's encoder writes it (go-yaml v3, 2-space indent,
/// compact sequences, no line folding), with its final line break.
pub(crate) fn write_node(n: &Node) -> String {
    let mut e = Emitter::new(2, usize::MAX / 2, true);
    e.compact_seq = true;
    e.tree(n, false, false);
    e.write_indent();
    e.out
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

    /// The output was recorded from kyaml v0.21.2 itself (`kio.ParseAll` then `kio.StringAll`).
    #[test]
    fn comments_are_kept_where_kyaml_keeps_them() {
        let src = "# doc\n\nl:\n- a # line\n# c\n\n- b\nm:\n  x: 1\n# d\n\n  y: 2\nn:\n  - a\n# c1\n    # c2\n  - b\na:\n  b:\n    c: 1\n    # foot c\n  # foot b\nd: # key\n  e: [1, 2] # flow\n  f: |\n    # text\n# trailing doc\n";
        let want = "# doc\n\nl:\n- a # line\n# c\n\n- b\nm:\n  x: 1\n  # d\n\n  y: 2\nn:\n- a\n# c1\n# c2\n- b\na:\n  b:\n    c: 1\n    # foot c\n  # foot b\nd: # key\n  e: [1, 2] # flow\n  f: |\n    # text\n# trailing doc\n";
        assert_eq!(write_stream(&parse_stream(src).unwrap()), want);
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
