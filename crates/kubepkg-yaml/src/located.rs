//! A document read as Helm reads a values file, every node with the place it starts: for
//! readers that name lines in their messages (`kubepkg.yaml`, through [`crate::de`]).
//!
//! [`read`] is [`crate::from_yaml_str`] with positions: the same parse (the first document,
//! libyaml's repairs), the same go-yaml v2 scalar resolution, `<<` merges and tags, the same JSON
//! step (map keys become strings as `sigs.k8s.io/yaml` makes them, `.inf`/`.nan` are errors) and
//! the same limits ([`crate::decode`]: go-yaml's alias ratio, [`crate::decode::MAX_DEPTH`] levels,
//! also counted through aliases here), so hostile input costs what it costs Helm's reading.
//! Two things Helm's reading drops are kept, for a strict reader to judge:
//! - every pair of a mapping in document order, duplicates included, each marked whether it
//!   came through a `<<` merge key ([`Entry::merged`]); the last of a key is Helm's value;
//! - numbers keep go-yaml's type ([`Scalar::Int`], [`Scalar::Uint`], [`Scalar::Float`]) before
//!   the JSON step makes them all `float64` ([`Located::to_value`] is Helm's value).
//!
//! Positions are 1-based lines and columns (in characters) of saphyr-parser's events: a block
//! mapping or sequence starts at its first key or `-`, a node with an anchor or tag at that.
//! An alias node is placed where the alias is written (its contents where the anchor's are).
//! Where libyaml reads text saphyr-parser refuses, the text is repaired first
//! ([`crate::decode`]); lines stay exact, columns on a repaired line may be off by what the
//! repair inserted or removed. Reading is only done when asked: Helm's readings do not keep
//! positions.

use std::collections::BTreeMap;

use kubepkg_value::Value;

use crate::decode::{
    Decoder, GoYaml, MapOut, Node, Positions, RED_ZONE, STACK_CHUNK, Work, depth_error, json_key,
    read_document, scalar,
};
use crate::error::YamlError;
pub use crate::mark::Mark;
pub use crate::resolve::Scalar;

/// A node of the document and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// Where the node starts (for an alias, where the alias is written).
    pub mark: Mark,
    /// What it holds.
    pub node: LocatedNode,
}

/// What a [`Located`] node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum LocatedNode {
    /// null, a boolean, a number (go-yaml's type; finite, but in a pair that a later pair of
    /// the same key replaces, which Helm's JSON step never sees) or a string.
    Scalar(Scalar),
    /// A sequence.
    Seq(Vec<Located>),
    /// A mapping's pairs in document order, duplicates included (merged pairs where their `<<`
    /// is, in the order go-yaml applies them): the last pair of a key is the one Helm keeps.
    Map(Vec<Entry>),
}

/// One pair of a mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key as the JSON step makes it (`1` → `"1"`, `n` → `"false"`).
    pub key: String,
    /// Where the key starts.
    pub key_mark: Mark,
    /// The value.
    pub value: Located,
    /// The pair came through a `<<` merge key (it is not written in this mapping).
    pub merged: bool,
}

/// A located reading of a stream's first document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The document's root; `None` for an empty document.
    pub root: Option<Located>,
    /// Where a second document starts, when one with content follows (go-yaml reads only the
    /// first; a strict reader refuses it). Empty documents (a trailing `---`) do not count.
    pub next_document: Option<Mark>,
}

/// Why a located reading failed: Helm's error for the same text and, when known, where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct LocatedError {
    /// The error Helm's reading ([`crate::from_yaml_str`]) gives.
    #[source]
    pub error: YamlError,
    /// Where the problem is: the parser's position for a syntax error, the innermost node being
    /// decoded for a limit or a value JSON cannot hold.
    pub mark: Option<Mark>,
}

/// The first document of `src` as [`crate::from_yaml_str`] reads it, every node located.
pub fn read(src: &str) -> Result<Document, LocatedError> {
    read_counted(src, &mut Work::default())
}

/// [`read`], counting its [`Work`].
fn read_counted(src: &str, work: &mut Work) -> Result<Document, LocatedError> {
    let mut positions = Positions::default();
    let (text, nodes, root) =
        read_document(src, work, Some(&mut positions)).map_err(|error| LocatedError {
            error,
            // Line 0: refused before the first event (a `%YAML` directive).
            mark: Some(positions.at).filter(|m| m.line > 0),
        })?;
    let next_document = positions.next_document;
    let Some(root) = root else {
        return Ok(Document {
            root: None,
            next_document,
        });
    };
    let mut d = Decoder::new(&text, &nodes, &positions.marks);
    let r = d.located(root);
    work.steps = d.decode_count;
    let place = |i: Option<usize>| i.and_then(|i| positions.marks.get(i).copied());
    let root = r.map_err(|error| LocatedError {
        error,
        mark: place(d.failed_at),
    })?;
    if d.unconvertible.is_some() {
        // Helm's JSON step runs after the whole decode, keys before values, and never sees a
        // value a later duplicate replaced: its own reading says whether and how it fails.
        crate::decode::unmarshal(src, crate::decode::Target::Any).map_err(|error| {
            LocatedError {
                error,
                mark: place(d.unconvertible),
            }
        })?;
    }
    Ok(Document {
        root: Some(root),
        next_document,
    })
}

impl Located {
    /// The node as Helm's reading gives it ([`crate::from_yaml_str`]): numbers `float64`, the
    /// last pair of each key.
    pub fn to_value(&self) -> Value {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || match &self.node {
            LocatedNode::Scalar(s) => match s {
                Scalar::Null => Value::Nil,
                Scalar::Bool(b) => Value::Bool(*b),
                Scalar::Int(i) => Value::Float(*i as f64),
                Scalar::Uint(u) => Value::Float(*u as f64),
                Scalar::Float(f) => Value::Float(*f),
                Scalar::Str(s) => Value::from(s.as_str()),
            },
            LocatedNode::Seq(items) => Value::list(items.iter().map(Located::to_value).collect()),
            LocatedNode::Map(entries) => Value::map(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_value()))
                    .collect::<BTreeMap<_, _>>(),
            ),
        })
    }
}

impl Decoder<'_> {
    /// Decode node `idx` located: [`Decoder::decode`]'s steps (so the same alias limits), then
    /// the JSON step's scalar rules; the innermost failing node is kept in `failed_at`.
    fn located(&mut self, idx: usize) -> Result<Located, YamlError> {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            let r = self.located_inner(idx);
            if r.is_err() && self.failed_at.is_none() {
                self.failed_at = Some(idx);
            }
            r
        })
    }

    fn located_inner(&mut self, idx: usize) -> Result<Located, YamlError> {
        self.step()?;
        let mark = self.marks.get(idx).copied().unwrap_or_default();
        let node = match self.node(idx) {
            &Node::Alias { at, target } => {
                let inner = self.through_alias(idx, at, target, |d, target| d.located(target))?;
                return Ok(Located { mark, ..inner });
            }
            Node::Scalar { value, tag, plain } => {
                LocatedNode::Scalar(match scalar(value.get(self.src), tag.as_deref(), *plain)? {
                    GoYaml::Scalar(Scalar::Float(f)) if !f.is_finite() => {
                        self.unconvertible.get_or_insert(idx);
                        Scalar::Float(f)
                    }
                    GoYaml::Scalar(s) => s,
                    GoYaml::Bytes(b) => Scalar::Str(kubepkg_gostd::utf8::lossy(&b)),
                    GoYaml::Seq(_) | GoYaml::Map(_) => Scalar::Null,
                })
            }
            Node::Seq(items) => {
                self.enter(mark)?;
                let mut out = Vec::with_capacity(items.len());
                for &i in items {
                    out.push(self.located(i)?);
                }
                self.depth -= 1;
                LocatedNode::Seq(out)
            }
            Node::Map(_) => {
                self.enter(mark)?;
                let mut out = LocatedMap(Vec::new());
                self.mapping_into(idx, &mut out, false)?;
                self.depth -= 1;
                LocatedNode::Map(out.0)
            }
        };
        Ok(Located { mark, node })
    }

    /// One more level of collections, refused past [`crate::decode::MAX_DEPTH`].
    fn enter(&mut self, mark: Mark) -> Result<(), YamlError> {
        self.depth += 1;
        if self.depth > crate::decode::MAX_DEPTH {
            return Err(depth_error(Some(mark.line)));
        }
        Ok(())
    }
}

/// The pairs of a located mapping being decoded.
struct LocatedMap(Vec<Entry>);

impl MapOut for LocatedMap {
    fn pair(
        &mut self,
        d: &mut Decoder<'_>,
        (k, key): (usize, GoYaml),
        value: usize,
        merged: bool,
    ) -> Result<(), YamlError> {
        let located = d.located(value)?;
        let name = json_key(&key, &GoYaml::Scalar(Scalar::Null)).unwrap_or_else(|_| {
            d.unconvertible.get_or_insert(k);
            String::new()
        });
        self.0.push(Entry {
            key: name,
            key_mark: d.marks.get(k).copied().unwrap_or_default(),
            value: located,
            merged,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::alias_bomb;

    /// The located reading stops an alias bomb after as few steps as Helm's reading does.
    #[test]
    fn an_alias_bomb_stops_after_a_bounded_number_of_steps() {
        let mut work = Work::default();
        let e = read_counted(&alias_bomb::alias_bomb(), &mut work).unwrap_err();
        assert_eq!(e.error.problem(), "document contains excessive aliasing");
        let (_, helm) = crate::decode::decode_go_work(&alias_bomb::alias_bomb());
        assert_eq!((work.reads, work.steps), (1, helm.steps), "{work:?}");
        assert!(work.steps <= 10_000, "{work:?}");
    }
}
