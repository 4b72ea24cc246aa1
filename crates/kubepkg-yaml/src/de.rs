//! serde over a [located](crate::located) document: `#[derive(Deserialize)]` types read strictly
//! from YAML as Helm reads it, every error with its line and column.
//!
//! [`from_str`] reads one document ([`crate::located::read`]: go-yaml v2's scalars, Helm's
//! limits) into any `T: Deserialize`, stricter than go-yaml in three ways, for files a person
//! writes and kubepkg checks:
//! - a key written twice in one mapping is an error naming the key and both lines (Helm keeps
//!   the last silently); a key set by a `<<` merge and written again is not a duplicate;
//! - types are not converted: a number or a boolean where a string is wanted is an error
//!   (`invalid type: floating point `1.5`, expected a string`, with a hint to quote it), as in
//!   Helm's JSON step;
//! - a second document with content in the stream is an error (go-yaml ignores it).
//!
//! Numbers are handed to serde with go-yaml's type (`i64`, `u64`, `f64`); `null` is `None`
//! for an `Option` and an empty mapping for a struct (go-yaml leaves a struct alone on null).
//! [`Spanned`] keeps where a value starts, as the `toml` crate's `Spanned` does: its
//! `Deserialize` asks this deserializer for the place, so it works with this module only.
//! serde's own errors (``unknown field `x`, expected one of …``, `missing field`, `invalid
//! type`) are placed at the innermost node they were raised for (a key for an unknown field,
//! the mapping for a missing one).

use std::collections::HashMap;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};

use crate::decode::{RED_ZONE, STACK_CHUNK};
use crate::located::{self, Entry, Located, LocatedNode, Mark, Scalar};

/// Why reading into a type failed: the problem and, when known, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    mark: Option<Mark>,
}

impl Error {
    /// The problem, without the place (go-yaml's text for YAML errors, serde's for the rest).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where the problem is, when known.
    pub fn mark(&self) -> Option<Mark> {
        self.mark
    }

    /// Places an error raised for the node at `mark`, unless a node inside it placed it.
    fn at(mut self, mark: Mark) -> Self {
        self.mark.get_or_insert(mark);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mark {
            Some(m) => write!(f, "{m}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            message: msg.to_string(),
            mark: None,
        }
    }
}

impl From<located::LocatedError> for Error {
    fn from(e: located::LocatedError) -> Self {
        Error {
            message: e.error.problem(),
            mark: e.mark,
        }
    }
}

/// The one document of `src` read into `T` (see the module docs). An empty document is `null`.
pub fn from_str<T: DeserializeOwned>(src: &str) -> Result<T, Error> {
    let doc = located::read(src)?;
    if let Some(mark) = doc.next_document {
        return Err(Error {
            message: "a second YAML document starts here; the file holds one document".into(),
            mark: Some(mark),
        });
    }
    let null = Located {
        mark: Mark { line: 1, column: 1 },
        node: LocatedNode::Scalar(Scalar::Null),
    };
    from_located(doc.root.as_ref().unwrap_or(&null))
}

/// A located node read into `T`.
pub fn from_located<'de, T: de::Deserialize<'de>>(node: &'de Located) -> Result<T, Error> {
    T::deserialize(NodeDe(node))
}

/// A value and where it starts in the text. Deserializes only through this module.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// Where the value starts.
    pub mark: Mark,
    /// The value.
    pub value: T,
}

/// A [`Spanned`] serializes as its value alone (the place is not part of it).
impl<T: serde::Serialize> serde::Serialize for Spanned<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

/// The struct name and fields by which [`Spanned`] asks [`NodeDe`] for a place.
const SPANNED: &str = "$__kubepkg_yaml_spanned";
const SPANNED_LINE: &str = "$__kubepkg_yaml_spanned_line";
const SPANNED_COLUMN: &str = "$__kubepkg_yaml_spanned_column";
const SPANNED_VALUE: &str = "$__kubepkg_yaml_spanned_value";
const SPANNED_FIELDS: &[&str] = &[SPANNED_LINE, SPANNED_COLUMN, SPANNED_VALUE];

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpannedVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: de::Deserialize<'de>> Visitor<'de> for SpannedVisitor<T> {
            type Value = Spanned<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value read by kubepkg_yaml::de")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spanned<T>, A::Error> {
                let mut mark = Mark::default();
                let mut value = None;
                while let Some(key) = map.next_key::<&str>()? {
                    match key {
                        SPANNED_LINE => mark.line = map.next_value()?,
                        SPANNED_COLUMN => mark.column = map.next_value()?,
                        _ => value = Some(map.next_value()?),
                    }
                }
                let value = value.ok_or_else(|| de::Error::missing_field(SPANNED_VALUE))?;
                Ok(Spanned { mark, value })
            }
        }
        deserializer.deserialize_struct(
            SPANNED,
            SPANNED_FIELDS,
            SpannedVisitor(std::marker::PhantomData),
        )
    }
}

/// The deserializer of one located node.
#[derive(Clone, Copy)]
struct NodeDe<'de>(&'de Located);

impl<'de> NodeDe<'de> {
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || match &self.0.node {
            LocatedNode::Scalar(s) => match s {
                Scalar::Null => visitor.visit_unit(),
                Scalar::Bool(b) => visitor.visit_bool(*b),
                Scalar::Int(i) => visitor.visit_i64(*i),
                Scalar::Uint(u) => visitor.visit_u64(*u),
                Scalar::Float(f) => visitor.visit_f64(*f),
                Scalar::Str(s) => visitor.visit_borrowed_str(s),
            },
            LocatedNode::Seq(items) => visitor.visit_seq(Items(items.iter())),
            LocatedNode::Map(entries) => visitor.visit_map(Pairs::new(entries)?),
        });
        r.map_err(|e| e.at(self.0.mark))
    }

    /// Text where text is wanted; a plain scalar YAML resolved to a boolean or a number (`no`,
    /// `1.0`) is refused saying that quotes keep it text.
    fn text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let resolved = match self.0.node {
            LocatedNode::Scalar(Scalar::Bool(_)) => Some("a boolean"),
            LocatedNode::Scalar(Scalar::Int(_) | Scalar::Uint(_) | Scalar::Float(_)) => {
                Some("a number")
            }
            _ => None,
        };
        self.any(visitor).map_err(|mut e| {
            if let Some(kind) = resolved {
                let hint = format!(" (YAML reads it unquoted as {kind}: quote it to keep it text)");
                e.message.push_str(&hint);
            }
            e
        })
    }

    fn is_null(&self) -> bool {
        matches!(self.0.node, LocatedNode::Scalar(Scalar::Null))
    }
}

impl<'de> Deserializer<'de> for NodeDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let r = if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        };
        r.map_err(|e| e.at(self.0.mark))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let r = if name == SPANNED {
            visitor.visit_map(SpannedAccess {
                node: self.0,
                next: 0,
            })
        } else if self.is_null() {
            visitor.visit_map(Pairs::new(&[])?)
        } else {
            return self.any(visitor);
        };
        r.map_err(|e| e.at(self.0.mark))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| e.at(self.0.mark))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let r = match &self.0.node {
            LocatedNode::Scalar(Scalar::Str(s)) => {
                visitor.visit_enum(s.as_str().into_deserializer())
            }
            LocatedNode::Map(entries) if entries.len() == 1 => {
                visitor.visit_enum(de::value::MapAccessDeserializer::new(Pairs::new(entries)?))
            }
            _ => return self.any(visitor),
        };
        r.map_err(|e| e.at(self.0.mark))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.text(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.text(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// The items of a sequence.
struct Items<'de>(std::slice::Iter<'de, Located>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.0
            .next()
            .map(|item| seed.deserialize(NodeDe(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The pairs of a mapping, one per key: a key written twice is an error, a merged pair gives
/// way to a later one of the same key (go-yaml's order of application).
struct Pairs<'de> {
    pairs: std::vec::IntoIter<&'de Entry>,
    value: Option<&'de Located>,
}

impl<'de> Pairs<'de> {
    fn new(entries: &'de [Entry]) -> Result<Self, Error> {
        // key → (index in `kept`, where it is written in this mapping)
        let mut seen: HashMap<&str, (usize, Option<Mark>)> = HashMap::new();
        let mut kept: Vec<&Entry> = Vec::with_capacity(entries.len());
        for e in entries {
            let written = (!e.merged).then_some(e.key_mark);
            match seen.get_mut(e.key.as_str()) {
                None => {
                    seen.insert(&e.key, (kept.len(), written));
                    kept.push(e);
                }
                Some((i, first)) => {
                    if let (Some(first), Some(_)) = (*first, written) {
                        return Err(Error {
                            message: format!(
                                "duplicate key `{}` (first on line {}); write each key once",
                                e.key, first.line
                            ),
                            mark: Some(e.key_mark),
                        });
                    }
                    if first.is_none() {
                        *first = written;
                    }
                    kept[*i] = e;
                }
            }
        }
        Ok(Pairs {
            pairs: kept.into_iter(),
            value: None,
        })
    }
}

impl<'de> MapAccess<'de> for Pairs<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.pairs.next() else {
            return Ok(None);
        };
        self.value = Some(&entry.value);
        let key: de::value::BorrowedStrDeserializer<'de, Error> =
            de::value::BorrowedStrDeserializer::new(&entry.key);
        seed.deserialize(key)
            .map(Some)
            .map_err(|e| e.at(entry.key_mark))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(NodeDe(v)),
            None => Err(de::Error::custom("a value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.pairs.len())
    }
}

/// What [`Spanned`]'s `Deserialize` reads: the line, the column, then the value.
struct SpannedAccess<'de> {
    node: &'de Located,
    next: usize,
}

impl<'de> MapAccess<'de> for SpannedAccess<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(&field) = SPANNED_FIELDS.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(de::value::BorrowedStrDeserializer::new(field))
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let field = self.next;
        self.next += 1;
        match field {
            0 => seed.deserialize(self.node.mark.line.into_deserializer()),
            1 => seed.deserialize(self.node.mark.column.into_deserializer()),
            _ => seed.deserialize(NodeDe(self.node)),
        }
    }
}
