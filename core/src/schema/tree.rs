//! [`JsonTree`]: a JSON value parsed into one flat vector of nodes and one string buffer,
//! for checking a call's arguments and deserializing the tool's struct from them without a
//! `serde_json::Value` (a map per object, a `String` per key and per string, and with
//! `preserve_order` a SipHash per key).
//!
//! What it accepts and refuses is what a `Value` parse accepts and refuses: it is built by
//! serde_json's own parser through `deserialize_any`, with the same calls a `Value` makes
//! (numbers kept as serde_json keeps them, escapes decoded, the same nesting limit). Where a
//! `Value` would differ from the tree (an object with a key given twice keeps only the last
//! one in a `Value`), the tree says so and the callers go through [`JsonTree::to_value`].

use std::cell::Cell;
use std::fmt;
use std::sync::OnceLock;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde_json::{Map, Number, Value};

/// A JSON value parsed into a flat tree: the nodes in document order (a container's members
/// follow it, an object's as key, value, key, value), the strings in one buffer.
///
/// It is what the server's registry parses a `tools/call`'s `arguments` into: the compiled
/// input schema checks it ([`CompiledSchema::validate_tree`](super::CompiledSchema::validate_tree))
/// and the tool's struct is deserialized from it ([`JsonTree::deserialize`]), with the verdicts,
/// violations and results that a `Value` of the same text gives.
///
/// Dropping a tree keeps its two buffers (emptied, up to 64 KiB each) for the next tree parsed
/// on the same thread, so a loop that parses and drops one value after another allocates once.
#[derive(Clone)]
pub struct JsonTree {
    nodes: Vec<Node>,
    strings: String,
    /// Some object has a key twice. A `Value` keeps the last one (where the first was), so
    /// checks and deserialization read [`JsonTree::to_value`] instead.
    duplicates: bool,
}

#[derive(Clone)]
enum Node {
    Null,
    Bool(bool),
    Number(Number),
    /// A string (or an object's key): its bytes in `strings`.
    String {
        start: usize,
        end: usize,
    },
    /// `len` items; `end` is the index of the node after the last one.
    Array {
        len: usize,
        end: usize,
    },
    /// `len` members (key, value); `end` is the index of the node after the last one.
    /// `sorted`: the keys are in strictly increasing order (no key twice).
    Object {
        len: usize,
        end: usize,
        sorted: bool,
    },
}

impl fmt::Debug for JsonTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("JsonTree").field(&self.to_value()).finish()
    }
}

impl JsonTree {
    /// Parses `text` (one JSON value, with nothing but whitespace after it); the errors are
    /// serde_json's for the same text parsed into a `Value`.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let mut parser = serde_json::Deserializer::from_str(text);
        let tree = <JsonTree as serde::Deserialize>::deserialize(&mut parser)?;
        parser.end()?;
        Ok(tree)
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        let mut tree = JsonTree::fresh();
        tree.nodes.push(Node::Object {
            len: 0,
            end: 1,
            sorted: true,
        });
        tree
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.nodes.first(), Some(Node::Null))
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        matches!(self.nodes.first(), Some(Node::Object { .. }))
    }

    /// Whether some object in the value has a key given twice (a `Value` keeps the last).
    pub fn has_duplicate_keys(&self) -> bool {
        self.duplicates
    }

    /// The value as a `serde_json::Value`, exactly as `serde_json::from_str` gives it for the
    /// same text (a key given twice keeps its last value, at the place of the first).
    pub fn to_value(&self) -> Value {
        self.root().to_value()
    }

    /// Deserializes `T` from the value, with the result and errors that
    /// `serde_json::from_value(self.to_value())` gives: the tree is read in place (strings
    /// borrowed), and the few shapes it does not read the way a `Value` does (a key given
    /// twice, numeric map keys, serde_json's private tokens) go through a `Value`; so does any
    /// error, for its message.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        if let Some(Ok(value)) = self.deserialize_in_place() {
            return Ok(value);
        }
        serde_json::from_value(self.to_value())
    }

    /// `T` read from the tree in place; `None` when the tree has a shape this reader leaves to
    /// a `Value` (then the result is not used).
    pub(crate) fn deserialize_in_place<T: DeserializeOwned>(
        &self,
    ) -> Option<Result<T, serde_json::Error>> {
        if self.duplicates {
            return None;
        }
        let unsupported = Cell::new(false);
        let result = T::deserialize(De {
            at: self.root(),
            unsupported: &unsupported,
        });
        (!unsupported.get()).then_some(result)
    }

    /// The value at `path` (member names from the root object down), as a `Value`; `None`
    /// when a member on the way is absent or the value is `null`. A key given twice is read
    /// at its first occurrence: see [`JsonTree::has_duplicate_keys`].
    pub fn value_at(&self, path: &[String]) -> Option<Value> {
        path.iter()
            .try_fold(self.root(), |at, key| at.get(key))
            .filter(|at| !matches!(at.kind(), Kind::Null))
            .map(|at| at.to_value())
    }

    pub(crate) fn root(&self) -> At<'_> {
        At {
            tree: self,
            index: 0,
        }
    }

    fn push_str(&mut self, s: &str) {
        let start = self.strings.len();
        self.strings.push_str(s);
        self.nodes.push(Node::String {
            start,
            end: self.strings.len(),
        });
    }
}

/// A node of a [`JsonTree`].
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    tree: &'a JsonTree,
    index: usize,
}

/// What a JSON value is, for the checker (containers are read through [`Json`]'s methods).
pub(crate) enum Kind<'a> {
    Null,
    Bool(bool),
    Number(&'a Number),
    String(&'a str),
    Array,
    Object,
}

/// A JSON value the compiled checker reads: a `&Value`, or a node of a [`JsonTree`].
pub(crate) trait Json<'a>: Copy {
    type Items: Iterator<Item = Self>;
    type Members: Iterator<Item = (&'a str, Self)>;
    fn kind(self) -> Kind<'a>;
    /// An array's items (none for anything else).
    fn items(self) -> Self::Items;
    /// An object's members (none for anything else).
    fn members(self) -> Self::Members;
    /// The number of an array's items or an object's members.
    fn len(self) -> usize;
    /// An object's member.
    fn get(self, key: &str) -> Option<Self>;
    /// The value as a `Value`.
    fn to_value(self) -> Value;
    /// The value's JSON, cut short, for a message.
    fn short(self) -> String;
}

impl<'a> At<'a> {
    #[inline]
    fn node(self) -> &'a Node {
        &self.tree.nodes[self.index]
    }

    /// The index of the node after this one and its members.
    #[inline]
    fn next(self) -> usize {
        match self.node() {
            Node::Array { end, .. } | Node::Object { end, .. } => *end,
            _ => self.index + 1,
        }
    }

    #[inline]
    fn at(self, index: usize) -> Self {
        At {
            tree: self.tree,
            index,
        }
    }

    #[inline]
    fn str_at(self, index: usize) -> &'a str {
        match &self.tree.nodes[index] {
            Node::String { start, end } => &self.tree.strings[*start..*end],
            _ => "",
        }
    }

    fn unexpected(self) -> Unexpected<'a> {
        match self.node() {
            Node::Null => Unexpected::Unit,
            Node::Bool(b) => Unexpected::Bool(*b),
            Node::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => Unexpected::Unsigned(u),
                (None, Some(i), _) => Unexpected::Signed(i),
                (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
            },
            Node::String { .. } => Unexpected::Str(self.str_at(self.index)),
            Node::Array { .. } => Unexpected::Seq,
            Node::Object { .. } => Unexpected::Map,
        }
    }
}

/// An array's items in a tree.
#[derive(Clone)]
pub(crate) struct Items<'a> {
    tree: &'a JsonTree,
    next: usize,
    left: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = At<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<At<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let item = At {
            tree: self.tree,
            index: self.next,
        };
        self.next = item.next();
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// An object's members in a tree, in document order.
#[derive(Clone)]
pub(crate) struct Members<'a> {
    tree: &'a JsonTree,
    next: usize,
    left: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, At<'a>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = At {
            tree: self.tree,
            index: self.next,
        };
        let value = key.at(self.next + 1);
        self.next = value.next();
        Some((key.str_at(key.index), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

impl<'a> Json<'a> for At<'a> {
    type Items = Items<'a>;
    type Members = Members<'a>;

    #[inline]
    fn kind(self) -> Kind<'a> {
        match self.node() {
            Node::Null => Kind::Null,
            Node::Bool(b) => Kind::Bool(*b),
            Node::Number(n) => Kind::Number(n),
            Node::String { start, end } => Kind::String(&self.tree.strings[*start..*end]),
            Node::Array { .. } => Kind::Array,
            Node::Object { .. } => Kind::Object,
        }
    }

    #[inline]
    fn items(self) -> Items<'a> {
        let left = match self.node() {
            Node::Array { len, .. } => *len,
            _ => 0,
        };
        Items {
            tree: self.tree,
            next: self.index + 1,
            left,
        }
    }

    #[inline]
    fn members(self) -> Members<'a> {
        let left = match self.node() {
            Node::Object { len, .. } => *len,
            _ => 0,
        };
        Members {
            tree: self.tree,
            next: self.index + 1,
            left,
        }
    }

    fn len(self) -> usize {
        match self.node() {
            Node::Array { len, .. } | Node::Object { len, .. } => *len,
            _ => 0,
        }
    }

    #[inline]
    fn get(self, key: &str) -> Option<Self> {
        // The keys' bytes, compared where they are (their lengths first).
        let (tree, key) = (self.tree, key.as_bytes());
        let mut index = self.index + 1;
        for _ in 0..self.len() {
            if let Some(Node::String { start, end }) = tree.nodes.get(index)
                && end - start == key.len()
                && tree.strings.as_bytes().get(*start..*end) == Some(key)
            {
                return Some(self.at(index + 1));
            }
            index = self.at(index + 1).next();
        }
        None
    }

    fn to_value(self) -> Value {
        match self.node() {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String { start, end } => Value::String(self.tree.strings[*start..*end].into()),
            Node::Array { .. } => Value::Array(self.items().map(Json::to_value).collect()),
            Node::Object { .. } => {
                // As a `Value` parse builds it: inserted in order, a repeated key replaced.
                let mut map = Map::new();
                for (key, value) in self.members() {
                    map.insert(key.to_owned(), value.to_value());
                }
                Value::Object(map)
            }
        }
    }

    fn short(self) -> String {
        super::short(&self.to_value())
    }
}

/// An object's members in a `Value` (none for anything else).
pub(crate) struct ValueMembers<'a>(Option<serde_json::map::Iter<'a>>);

impl<'a> Iterator for ValueMembers<'a> {
    type Item = (&'a str, &'a Value);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = self.0.as_mut()?.next()?;
        Some((key.as_str(), value))
    }
}

impl<'a> Json<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;
    type Members = ValueMembers<'a>;

    #[inline]
    fn kind(self) -> Kind<'a> {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(b) => Kind::Bool(*b),
            Value::Number(n) => Kind::Number(n),
            Value::String(s) => Kind::String(s),
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    fn items(self) -> Self::Items {
        match self {
            Value::Array(items) => items.iter(),
            _ => [].iter(),
        }
    }

    fn members(self) -> ValueMembers<'a> {
        ValueMembers(self.as_object().map(Map::iter))
    }

    fn len(self) -> usize {
        match self {
            Value::Array(items) => items.len(),
            Value::Object(members) => members.len(),
            _ => 0,
        }
    }

    #[inline]
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }

    fn to_value(self) -> Value {
        self.clone()
    }

    fn short(self) -> String {
        super::short(self)
    }
}

// --- Parsing: serde_json's parser, the calls a `Value` makes. ---

/// serde_json's private key for a raw value inside a `Value` parse (with its `raw_value`
/// feature, an object whose first key is this one is the JSON text of its value).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";
/// The same for a number kept as text (its `arbitrary_precision` feature).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Whether a `Value` parse treats an object whose first key is `token` as serde_json's own
/// encoding (true when the feature behind it is on in this build; Cargo unifies features).
fn token_is_special(token: &'static str) -> bool {
    static RAW: OnceLock<bool> = OnceLock::new();
    static NUMBER: OnceLock<bool> = OnceLock::new();
    let (cell, text) = if token == RAW_VALUE_TOKEN {
        (&RAW, r#"{"$serde_json::private::RawValue":"0"}"#)
    } else {
        (&NUMBER, r#"{"$serde_json::private::Number":"0"}"#)
    };
    *cell.get_or_init(|| serde_json::from_str::<Value>(text).is_ok_and(|v| !v.is_object()))
}

/// Whether serde_json's `Map` keeps insertion order (its `preserve_order` feature) rather than
/// sorting its keys; a `Value` object is deserialized in its map's order.
fn map_preserves_order() -> bool {
    static PRESERVES: OnceLock<bool> = OnceLock::new();
    *PRESERVES.get_or_init(|| {
        let mut map = Map::new();
        map.insert("b".into(), Value::Null);
        map.insert("a".into(), Value::Null);
        map.keys().next().is_some_and(|k| k == "b")
    })
}

thread_local! {
    /// The buffers of the last tree dropped on this thread, emptied, for the next tree parsed
    /// on it: a server that parses and drops one call's arguments after another (`dispatch`,
    /// stdio) allocates for them once.
    static SPARE: Cell<(Vec<Node>, String)> = const { Cell::new((Vec::new(), String::new())) };
}

/// Buffers larger than this are freed rather than kept for the next tree.
const KEEP: usize = 64 * 1024;

impl JsonTree {
    /// An empty tree, on this thread's spare buffers when there are some.
    fn fresh() -> Self {
        let (mut nodes, strings) = SPARE.try_with(Cell::take).unwrap_or_default();
        if nodes.capacity() == 0 {
            // Room for a few members: one allocation for most arguments.
            nodes.reserve(8);
        }
        JsonTree {
            nodes,
            strings,
            duplicates: false,
        }
    }
}

impl Drop for JsonTree {
    fn drop(&mut self) {
        let mut nodes = std::mem::take(&mut self.nodes);
        let mut strings = std::mem::take(&mut self.strings);
        if nodes.capacity() * std::mem::size_of::<Node>() > KEEP || strings.capacity() > KEEP {
            return;
        }
        nodes.clear();
        strings.clear();
        let _ = SPARE.try_with(|spare| spare.set((nodes, strings)));
    }
}

impl<'de> serde::Deserialize<'de> for JsonTree {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut tree = JsonTree::fresh();
        Build(&mut tree).deserialize(deserializer)?;
        Ok(tree)
    }
}

/// Appends one value's nodes to a tree.
struct Build<'t>(&'t mut JsonTree);

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        self.0.nodes.push(Node::Bool(value));
        Ok(())
    }

    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        self.0.nodes.push(Node::Number(value.into()));
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        self.0.nodes.push(Node::Number(value.into()));
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        // As a `Value`: a float that is not finite is null.
        self.0
            .nodes
            .push(Number::from_f64(value).map_or(Node::Null, Node::Number));
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        self.0.push_str(value);
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.0.nodes.push(Node::Null);
        Ok(())
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.nodes.push(Node::Null);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let tree = self.0;
        let at = tree.nodes.len();
        tree.nodes.push(Node::Null);
        let mut len = 0;
        while seq.next_element_seed(Build(&mut *tree))?.is_some() {
            len += 1;
        }
        let end = tree.nodes.len();
        tree.nodes[at] = Node::Array { len, end };
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tree = self.0;
        let at = tree.nodes.len();
        tree.nodes.push(Node::Null);
        let mut len = 0;
        while map.next_key_seed(Key(&mut *tree))?.is_some() {
            if len == 0 {
                let key = tree.root().str_at(at + 1);
                let token = [RAW_VALUE_TOKEN, NUMBER_TOKEN]
                    .into_iter()
                    .find(|token| key.starts_with("$serde_json::") && key == *token);
                if let Some(token) = token
                    && token_is_special(token)
                {
                    return special(tree, at, token, map);
                }
            }
            map.next_value_seed(Build(&mut *tree))?;
            len += 1;
        }
        let end = tree.nodes.len();
        // Keys in increasing order (most objects are small and written in order) have no
        // key twice; others are searched for one.
        tree.nodes[at] = Node::Object {
            len,
            end,
            sorted: false,
        };
        let object = tree.root().at(at);
        let mut keys = object.members().map(|(k, _)| k);
        let first = keys.next();
        let sorted = keys
            .try_fold(first, |previous, key| {
                (previous < Some(key)).then_some(Some(key))
            })
            .is_some();
        if !sorted && has_duplicates(object) {
            tree.duplicates = true;
        }
        tree.nodes[at] = Node::Object { len, end, sorted };
        Ok(())
    }
}

/// An object whose first key is one of serde_json's tokens, read as a `Value` parse reads it
/// (the value is a string: JSON text parsed in its place, or a number's digits).
#[cold]
fn special<'de, A: MapAccess<'de>>(
    tree: &mut JsonTree,
    at: usize,
    token: &'static str,
    mut map: A,
) -> Result<(), A::Error> {
    struct Text(&'static str);
    impl<'de> DeserializeSeed<'de> for Text {
        type Value = String;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
            d.deserialize_str(self)
        }
    }
    impl Visitor<'_> for Text {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E>(self, s: &str) -> Result<String, E> {
            Ok(s.to_owned())
        }
    }
    tree.nodes.truncate(at);
    if token == RAW_VALUE_TOKEN {
        let text = map.next_value_seed(Text("raw value"))?;
        let mut parser = serde_json::Deserializer::from_str(&text);
        Build(tree)
            .deserialize(&mut parser)
            .and_then(|()| parser.end())
            .map_err(de::Error::custom)
    } else {
        let text = map.next_value_seed(Text("string containing a number"))?;
        let number: Number = text.parse().map_err(de::Error::custom)?;
        tree.nodes.push(Node::Number(number));
        Ok(())
    }
}

/// Whether an object of the tree has a key twice.
fn has_duplicates(object: At<'_>) -> bool {
    let len = object.len();
    if len <= 16 {
        let keys = object.members().map(|(k, _)| k);
        return keys
            .clone()
            .enumerate()
            .any(|(i, k)| keys.clone().take(i).any(|earlier| earlier == k));
    }
    let mut keys: Vec<&str> = object.members().map(|(k, _)| k).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

/// An object's key, appended as a string node.
struct Key<'t>(&'t mut JsonTree);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, key: &str) -> Result<(), E> {
        self.0.push_str(key);
        Ok(())
    }
}

// --- Deserializing from the tree: what `serde_json::from_value` does with the same `Value`. ---

/// A node as a `Deserializer`, mirroring `serde_json::Value`'s (strings are handed out
/// borrowed from the tree; a `DeserializeOwned` type cannot tell). Shapes it leaves to a
/// `Value` set `unsupported`.
#[derive(Clone, Copy)]
struct De<'de> {
    at: At<'de>,
    unsupported: &'de Cell<bool>,
}

type Error = serde_json::Error;

impl<'de> De<'de> {
    fn with(self, at: At<'de>) -> Self {
        De {
            at,
            unsupported: self.unsupported,
        }
    }

    fn invalid_type<E: de::Error>(self, exp: &dyn de::Expected) -> E {
        de::Error::invalid_type(self.at.unexpected(), exp)
    }

    fn unsupported(self) -> Error {
        self.unsupported.set(true);
        de::Error::custom("read through a Value")
    }

    fn visit_array<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let len = self.at.len();
        let mut seq = SeqDe {
            items: self.at.items(),
            de: self,
        };
        let value = visitor.visit_seq(&mut seq)?;
        if seq.items.len() == 0 {
            Ok(value)
        } else {
            Err(de::Error::invalid_length(len, &"fewer elements in array"))
        }
    }

    fn visit_object<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let len = self.at.len();
        // A `Value`'s object is read in its map's order: sorted keys unless serde_json keeps
        // insertion order.
        let members = self.at.members();
        let in_order = matches!(self.at.node(), Node::Object { sorted: true, .. });
        let mut map = MapDe {
            members: if !in_order && !map_preserves_order() {
                let mut list: Vec<(&'de str, At<'de>)> = members.collect();
                list.sort_unstable_by(|a, b| a.0.cmp(b.0));
                Order::Sorted(list.into_iter())
            } else {
                Order::Document(members)
            },
            value: None,
            de: self,
        };
        let value = visitor.visit_map(&mut map)?;
        let left = match &map.members {
            Order::Document(m) => m.len(),
            Order::Sorted(m) => m.len(),
        };
        if left == 0 {
            Ok(value)
        } else {
            Err(de::Error::invalid_length(len, &"fewer elements in map"))
        }
    }
}

struct SeqDe<'de> {
    items: Items<'de>,
    de: De<'de>,
}

impl<'de> SeqAccess<'de> for SeqDe<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some(item) => seed.deserialize(self.de.with(item)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

enum Order<'de> {
    Document(Members<'de>),
    Sorted(std::vec::IntoIter<(&'de str, At<'de>)>),
}

struct MapDe<'de> {
    members: Order<'de>,
    value: Option<At<'de>>,
    de: De<'de>,
}

impl<'de> MapAccess<'de> for MapDe<'de> {
    type Error = Error;

    fn next_key_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let next = match &mut self.members {
            Order::Document(m) => m.next(),
            Order::Sorted(m) => m.next(),
        };
        match next {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(KeyDe { key, de: self.de }).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(self.de.with(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(match &self.members {
            Order::Document(m) => m.len(),
            Order::Sorted(m) => m.len(),
        })
    }
}

macro_rules! number_methods {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.at.node() {
                Node::Number(n) => n.deserialize_any(visitor),
                _ => Err(self.invalid_type(&visitor)),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for De<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(b),
            Kind::Number(n) => n.deserialize_any(visitor),
            Kind::String(s) => visitor.visit_borrowed_str(s),
            Kind::Array => self.visit_array(visitor),
            Kind::Object => self.visit_object(visitor),
        }
    }

    number_methods!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Object => {
                let mut members = self.at.members();
                match (members.next(), members.next()) {
                    (Some((variant, value)), None) => visitor.visit_enum(Enum {
                        variant,
                        value: Some(self.with(value)),
                    }),
                    _ => Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            Kind::String(variant) => visitor.visit_enum(Enum {
                variant,
                value: None,
            }),
            _ => Err(self.invalid_type(&"string or map")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's own types (`RawValue`) read a `Value` their own way.
        if name.starts_with("$serde_json::") {
            return Err(self.unsupported());
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Bool(b) => visitor.visit_bool(b),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::String(s) => visitor.visit_borrowed_str(s),
            Kind::Array => self.visit_array(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Array => self.visit_array(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Object => self.visit_object(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.at.kind() {
            Kind::Array => self.visit_array(visitor),
            Kind::Object => self.visit_object(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// An object's key as a `Deserializer` (a `Value`'s map keys: strings; `true`/`false` for a
/// `bool`; numeric keys are left to a `Value`).
struct KeyDe<'de> {
    key: &'de str,
    de: De<'de>,
}

macro_rules! key_number_methods {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
            Err(self.de.unsupported())
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for KeyDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.key)
    }

    key_number_methods!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    );

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.key {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::invalid_type(Unexpected::Str(self.key), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        BorrowedStrDeserializer::<Error>::new(self.key).deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

/// An enum: a string (a unit variant) or an object with one member.
struct Enum<'de> {
    variant: &'de str,
    value: Option<De<'de>>,
}

impl<'de> EnumAccess<'de> for Enum<'de> {
    type Error = Error;
    type Variant = Variant<'de>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Variant<'de>), Error> {
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.variant))
            .map(|v| (v, Variant { value: self.value }))
    }
}

struct Variant<'de> {
    value: Option<De<'de>>,
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(value) => serde::Deserialize::deserialize(value),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(value) => match value.at.kind() {
                Kind::Array if value.at.len() == 0 => visitor.visit_unit(),
                Kind::Array => value.visit_array(visitor),
                _ => Err(value.invalid_type(&"tuple variant")),
            },
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(value) => match value.at.kind() {
                Kind::Object => value.visit_object(visitor),
                _ => Err(value.invalid_type(&"struct variant")),
            },
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}
